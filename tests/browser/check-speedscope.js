// check-speedscope.js FILE SHOT [AT...] - open a speedscope file in
// speedscope's own page (the release in the speedscope npm package, by
// file://, the network cut off) in headless Chromium, import it through
// the page's file input (its "Browse" entry), and print what speedscope
// shows, one line each, fields tab-separated:
//   profile I NAME WEIGHT      the list of profiles (threads): the name
//                              and total weight the page gives each
//   row I NAME TOTAL SELF FILE profile I's sandwich table: each frame's
//                              total and self as shown, and its file (the
//                              row's title; "-": none)
//   at I T STACK               for AT = I:T (T ns after profile I's
//                              start): the frames its time order view
//                              draws there, outermost first, each as
//                              its tooltip names it (NAME, or
//                              NAME@FILE:LINE), joined by ';' ("-": none)
// The file is checked against speedscope's published schema (the
// package's file-format-schema.json), and the page must show no error
// and ask for nothing beyond file://.  Prints "ok" last and writes a
// screenshot of the time order view; exits 1 with the reasons otherwise.
'use strict';
const { offlinePage } = require('./offline');
const fs = require('fs');
const path = require('path');

const release = path.join(path.dirname(require.resolve('speedscope/package.json')),
	'dist', 'release');

// What of JSON Schema (draft 7) speedscope's schema uses: $ref into its
// definitions, type, const, enum, required, properties, items, anyOf.
function validate(schema, root, v, at, problems) {
	if (schema.$ref)
		return validate(root.definitions[schema.$ref.replace('#/definitions/', '')],
			root, v, at, problems);
	if (schema.anyOf) {
		const ok = schema.anyOf.some((s) => {
			const p = [];
			validate(s, root, v, at, p);
			return p.length === 0;
		});
		if (!ok)
			problems.push(at + ': matches none of ' + schema.anyOf.map((s) => s.$ref).join(', '));
		return;
	}
	const types = { number: 'number', string: 'string', object: 'object', array: 'object' };
	if (schema.type && (typeof v !== types[schema.type] || v === null ||
	    (schema.type === 'array') !== Array.isArray(v)))
		return problems.push(at + ': not ' + schema.type);
	if (schema.const !== undefined && v !== schema.const)
		problems.push(at + ': not ' + schema.const);
	if (schema.enum && !schema.enum.includes(v))
		problems.push(at + ': ' + v + ' not one of ' + schema.enum.join(', '));
	for (const k of schema.required || [])
		if (!(k in v))
			problems.push(at + ': no ' + k);
	for (const [k, s] of Object.entries(schema.properties || {}))
		if (v && k in v)
			validate(s, root, v[k], at + '.' + k, problems);
	if (schema.items && Array.isArray(v))
		v.forEach((x, i) => validate(schema.items, root, x, at + '[' + i + ']', problems));
}

const clean = (s) => String(s).replace(/[\t\n]/g, ' ');

// Wait for the page to draw what the last action asked.
const frames = (page) => page.evaluate(() => new Promise((r) =>
	requestAnimationFrame(() => requestAnimationFrame(r))));

// The tooltip shown, as NAME or NAME@FILE:LINE; null if none.
async function tooltip(page) {
	return page.evaluate(() => {
		for (const d of document.querySelectorAll('div')) {
			const inner = d.firstElementChild, span = inner && inner.firstElementChild;
			if (!d.style.top || !d.style.left || !span || span.tagName !== 'SPAN')
				continue;
			let name = '', where = '';
			for (const n of inner.childNodes)
				if (n.nodeType === Node.TEXT_NODE)
					name += n.textContent;
				else if (n.tagName === 'DIV')
					where = n.textContent;
			return name.trim() + (where ? '@' + where : '');
		}
		return null;
	});
}

// The frames the time order view draws at x, outermost first: the
// tooltips of its rows (speedscope's FRAME_HEIGHT, 20 px each) down from
// the first, which is found within 4 px once (where it starts is the
// same for every x); none in the first row: a gap.
let firstRow = null;
async function stackAt(page, x) {
	const names = [];
	let y = firstRow;

	for (let top = 120; y === null && top < 220; top += 4) {
		await page.mouse.move(x, top);
		await frames(page);
		if (await tooltip(page) !== null)
			y = firstRow = top + 8;
	}
	for (; y !== null && y < page.viewportSize().height; y += 20) {
		await page.mouse.move(x, y);
		await frames(page);
		const t = await tooltip(page);
		if (t === null)
			break;
		names.push(t);
	}
	await page.mouse.move(0, 0);
	return names;
}

async function main() {
	const [file, shot, ...ats] = process.argv.slice(2);
	const problems = [];
	const data = JSON.parse(fs.readFileSync(file, 'utf8'));
	const schema = JSON.parse(fs.readFileSync(path.join(release, 'file-format-schema.json')));
	validate({ $ref: '#/definitions/FileFormat.File' }, schema, data, 'file', problems);

	// speedscope's WebGL warns of its driver: errors are faults
	const { browser, page } = await offlinePage(problems, ['error']);
	await page.goto('file://' + path.join(release, 'index.html'));
	await page.setInputFiles('input#file', file);
	const n = data.profiles.length;
	await page.getByText(n > 1 ? '(' : data.profiles[0].name).first().waitFor();
	const out = [];

	// the profiles as the page lists them: hovering its title ("NAME
	// (I/N)") opens the list, leaving it closes it, a row picks one
	const title = page.getByText(new RegExp('^\\(\\d+/' + n + '\\)$'));
	const listed = () => page.$$eval('tr', (trs) => trs.filter((tr) =>
		tr.offsetParent !== null).map((tr) => [...tr.querySelectorAll('td')]
		.map((td) => td.textContent)).filter((c) => c.length === 3 &&
		/^\d+$/.test(c[0])));
	const select = async (i) => {
		await title.hover();
		await page.waitForFunction(() => [...document.querySelectorAll('th')]
			.some((th) => th.offsetParent !== null && th.textContent.includes('Total Weight')));
		if (i === undefined) {
			for (const c of await listed())
				out.push(['profile', Number(c[0]) - 1, clean(c[1]), c[2]]);
		} else {
			await page.locator('tr:visible', { has: page.locator('td', {
				hasText: new RegExp('^' + (i + 1) + '$') }) }).first().click();
		}
		await page.mouse.move(page.viewportSize().width / 2, page.viewportSize().height - 5);
		await frames(page);
	};
	if (n > 1)
		await select();
	else
		out.push(['profile', 0, clean(data.profiles[0].name), '']);

	for (let i = 0; i < n; i++) {
		// the toolbar names the profile shown: "NAME (I/N)"
		const shown = page.getByText('(' + (i + 1) + '/' + n + ')', { exact: true });
		for (let tries = 0; n > 1 && !(await shown.isVisible()); tries++) {
			if (tries === 5)
				throw new Error('profile ' + (i + 1) + ' cannot be selected');
			await select(i);
		}
		const pr = data.profiles[i];
		// time order: its axis spans endValue - startValue, or the weights
		// when they are more (speedscope's StackListProfileBuilder)
		const span = Math.max(pr.endValue - pr.startValue, pr.weights.reduce((a, b) => a + b, 0));
		await page.keyboard.press('1');
		await frames(page);
		for (const at of ats) {
			const [pi, t] = at.split(':').map(Number);
			if (pi !== i)
				continue;
			const x = Math.min(page.viewportSize().width - 1, t / span * page.viewportSize().width);
			const s = await stackAt(page, x);
			out.push(['at', i, t, s.length ? s.map(clean).join(';') : '-']);
		}
		if (i === 0)
			await page.screenshot({ path: shot });
		// the sandwich view's table, every row: scrolled through
		await page.keyboard.press('3');
		await page.getByText('Symbol Name').waitFor();
		// its list draws its rows once it knows its height
		await page.waitForFunction(() => [...document.querySelectorAll('tr')]
			.some((tr) => tr.offsetParent !== null && tr.querySelectorAll('td').length === 3 &&
			    !/^\d+$/.test(tr.querySelector('td').textContent)));
		const rows = new Map();
		for (let k = 0; k < 10000; k++) {
			const r = await page.evaluate(() => {
				// the header's table, then beside it the rows' scrolled list
				const th = [...document.querySelectorAll('th')].find((e) =>
					e.textContent.includes('Symbol Name'));
				const sc = [...th.closest('table').parentElement.querySelectorAll('div')]
					.find((d) => getComputedStyle(d).overflowY === 'auto');
				const base = sc.getBoundingClientRect().top - sc.scrollTop, got = [];
				for (const tr of sc.querySelectorAll('tr')) {
					const td = tr.querySelectorAll('td');
					if (td.length === 3)
						got.push([Math.round(tr.getBoundingClientRect().top - base),
							td[2].textContent, td[0].textContent, td[1].textContent,
							td[2].getAttribute('title') || '-']);
				}
				const before = sc.scrollTop;
				sc.scrollTop = before + sc.clientHeight / 2;
				return { got, moved: sc.scrollTop !== before };
			});
			for (const g of r.got)
				rows.set(g[0], g.slice(1));
			if (!r.moved)
				break;
			await frames(page);
		}
		for (const [, g] of [...rows.entries()].sort((a, b) => a[0] - b[0])) {
			const value = (s) => s.replace(/\s*\(.*$/, '').trim();
			out.push(['row', i, clean(g[0]), value(g[1]), value(g[2]), clean(g[3])]);
		}
	}
	await browser.close();
	for (const o of out)
		console.log(o.join('\t'));
	if (problems.length) {
		console.log(problems.join('\n'));
		process.exit(1);
	}
	console.log('ok');
}

main().catch((e) => {
	console.log('check-speedscope: ' + e.message);
	process.exit(1);
});
