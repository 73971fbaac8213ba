// check-html.js PAGE.html SHOT.png [EXPECT] - load a `profil report --html`
// page in headless Chromium (/usr/bin/chromium) with the network cut off,
// and check what a reader relies on: no console errors or failed requests,
// the flat table and the pictures are there, a click on a heading sorts
// the table, hovering a bar names a function, and the flame graph is
// drawn (or says it needs stacks).  EXPECT, a JSON object, asks more of
// the flame graph:
//   total    the profile's samples: the root box's count
//   zoom     a function: a click on its widest box spans the full width;
//            a click on the root, then Reset, zoom back out; hovering it
//            gives its samples, share and 95% error
//   searches [{re, matched, error}]: re typed into the search box, the samples
//            the page must say match (and their share of total, to 2
//            decimals; and their 95% error, given, to 2 decimals)
//   cpu      a wall profile's samples on the CPU: "on the CPU only" is
//            offered, and ticked makes the root box that many, each box as
//            wide as its CPU count says; unticked, the wall view is back
// Prints "ok" and writes a screenshot; exits 1 with the reasons otherwise.
'use strict';
const { open_page, flame_boxes, finish } = require('./page');

// The Wilson interval's half-width in points, as the tables have it
// (cli/report/table.c), written again here to check the page's.
// Wilson's half-width for k of n counts, worth n / scale samples of equal
// weight (scale 1: unweighted; the timer engine without perf events
// takes one a tick, each weighing the intervals it stands for)
function error95(k, n, scale) {
	const z = 1.959964;
	if (!n)
		return 0;
	const p = k / n;
	n /= scale || 1;
	return 100 * z * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n);
}

const boxes = flame_boxes;

const near = (a, b) => Math.abs(a - b) < 0.01;

async function flame(page, expect, problems) {
	if (await page.locator('#flame-none').count() > 0) {
		if (expect.total !== undefined)
			problems.push('flame graph: the page says there are no stacks');
		return 'no stacks';
	}
	const width = Number(await page.locator('#flame-svg').getAttribute('width'));
	let all = await boxes(page);
	const root = all.find((b) => b.i === 0);
	if (all.length < 2 || !root)
		return problems.push('flame graph has ' + all.length + ' boxes'), '';
	if (!near(root.x, 0) || !near(root.w, width))
		problems.push('root box at ' + root.x + ' width ' + root.w + ' of ' + width);
	if (expect.total !== undefined && root.count !== expect.total)
		problems.push('root box has ' + root.count + ' samples, the profile ' + expect.total);
	const total = root.count;
	for (const b of all)
		if (b.x < -0.01 || b.x + b.w > width + 0.01 || !near(b.w, width * b.count / total))
			problems.push('box ' + b.name + ' at ' + b.x + '+' + b.w + ' for ' + b.count);

	if (expect.zoom) {
		const of = (list) => list.filter((b) => b.name === expect.zoom)
			.sort((a, b) => b.count - a.count)[0];
		const target = of(all);
		if (!target)
			return problems.push('no box for ' + expect.zoom), '';
		const rect = (i) => page.locator('#flame-svg g.fg-box[data-i="' + i + '"] rect');
		// from the page's own data: is box i under box a (or a itself)?
		const parent = JSON.parse(await page.locator('#flame-data').textContent()).parent;
		const under = (i, a) => { while (i > a) i = parent[i]; return i === a; };
		const zoomed = async (how) => {
			const now = await boxes(page), t = now.find((b) => b.i === target.i);
			if (!t || !near(t.x, 0) || !near(t.w, width))
				problems.push(how + ': ' + expect.zoom + ' does not span the width: ' +
					JSON.stringify(t));
			// what is drawn: its callers, full width and dimmed, and what it
			// called, in proportion to it
			for (const b of now) {
				if (under(target.i, b.i) && b.i !== target.i) {
					if (!near(b.x, 0) || !near(b.w, width) || !/fg-dim/.test(b.cls))
						problems.push(how + ': caller ' + b.name + ' not full width, dimmed');
				} else if (under(b.i, target.i)) {
					if (!near(b.w, width * b.count / target.count) || b.x < -0.01 ||
					    b.x + b.w > width + 0.01)
						problems.push(how + ': ' + b.name + ' at ' + b.x + '+' + b.w);
				} else {
					problems.push(how + ': ' + b.name + ' drawn, not in the zoom');
				}
			}
		};
		const unzoomed = async (how) => {
			const now = await boxes(page), t = now.find((b) => b.i === target.i);
			if (now.length !== all.length || !t || !near(t.w, width * target.count / total))
				problems.push(how + ' does not zoom out: ' + JSON.stringify(t));
		};
		await rect(target.i).click();
		await zoomed('click');
		await rect(0).click();
		await unzoomed('a click on the root');
		await rect(target.i).click();
		await zoomed('click again');
		await page.click('#flame-reset');
		await unzoomed('Reset');

		// hover: function, object, samples, share and its 95% error
		await rect(target.i).hover();
		const tip = page.locator('#flame-tip');
		// its lines: the name, the object, then the figures, which
		// start with the samples (no other number before them)
		const lines = (await tip.isVisible()) ?
			await page.$$eval('#flame-tip > *', (es) => es.map((e) => e.textContent)) : [];
		const text = lines.join('\n');
		// the error as the Wilson interval's half-width; within 0.02 of
		// it, for the page may count the samples' weights (a run's kernel
		// samples weigh more: 5.04 shown for 5.045 here once)
		const want = target.count + ' samples, ' + (100 * target.count / total).toFixed(2) +
			'% \u00b1 ';
		const err = error95(target.count, total, expect.scale);
		const figures = lines[2] || '';
		const shown = figures.startsWith(want) ?
			parseFloat(figures.slice(want.length)) : NaN;
		if (lines[0] !== expect.zoom || !(Math.abs(shown - err) <= 0.02))
			problems.push('hover text "' + text + '" lacks "' + want +
				err.toFixed(2) + '"');
	}

	if (expect.cpu !== undefined) {
		const toggle = page.locator('#flame-cpu');
		if (!(await toggle.isVisible()))
			problems.push('a wall profile without the "on the CPU only" switch');
		else {
			await toggle.check();
			const now = await boxes(page), r = now.find((b) => b.i === 0);
			if (!r || r.count !== expect.cpu || !near(r.w, width))
				problems.push('on the CPU only: root ' + JSON.stringify(r) +
					', want ' + expect.cpu + ' samples');
			for (const b of now)
				if (r && !near(b.w, width * b.count / r.count))
					problems.push('on the CPU only: box ' + b.name + ' at ' +
						b.w + ' for ' + b.count);
			if (now.some((b) => /off-cpu/.test(b.name) && b.count > 0))
				problems.push('on the CPU only: an off-CPU box has samples');
			await toggle.uncheck();
			const back = (await boxes(page)).find((b) => b.i === 0);
			if (!back || back.count !== total)
				problems.push('unticked: root ' + JSON.stringify(back) + ', want ' + total);
		}
	}

	for (const search of expect.searches || []) {
		await page.fill('#flame-search', search.re);
		const shown = page.locator('#flame-match');
		const matched = Number(await shown.getAttribute('data-samples'));
		const text = await shown.textContent();
		const share = (100 * search.matched / total).toFixed(2) + '%';
		if (matched !== search.matched || !text.includes(share))
			problems.push('search "' + search.re + '": ' + matched + ' samples, "' +
				text + '"; want ' + search.matched + ', ' + share);
		if (search.error !== undefined &&
		    !text.includes('\u00b1 ' + search.error.toFixed(2) + ' '))
			problems.push('search "' + search.re + '": "' + text + '"; want \u00b1 ' +
				search.error.toFixed(2));
		const re = new RegExp(search.re);
		all = await boxes(page);
		if (!all.some((b) => / fg-match/.test(b.cls)))
			problems.push('search "' + search.re + '" highlights nothing');
		for (const b of all)
			if (/ fg-match/.test(b.cls) !== (b.i > 0 && re.test(b.name)))
				problems.push('search "' + search.re + '": box ' + b.name +
					(re.test(b.name) ? ' not' : '') + ' highlighted');
	}
	return all.length + ' boxes';
}

async function main() {
	const [page_path, shot, expect_json] = process.argv.slice(2);
	const expect = expect_json ? JSON.parse(expect_json) : {};
	const problems = [];
	const { browser, page } = await open_page(page_path, problems);

	const rows = await page.locator('#flat tbody tr').count();
	const bars = await page.locator('svg.hist rect.b').count();
	if (rows < 2)
		problems.push('flat table has ' + rows + ' rows');
	if (bars < 1)
		problems.push('no bars in the picture');

	// first click on "samples" sorts ascending, the second descending
	const samples = async () => page.$$eval('#flat tbody tr td:nth-child(5)',
		(tds) => tds.map((td) => Number(td.getAttribute('data-v'))));
	const heading = page.locator('#flat th', { hasText: 'samples' });
	await heading.click();
	const up = await samples();
	await heading.click();
	const down = await samples();
	const sorted = (v, dir) => v.every((x, i) => i === 0 || dir * (x - v[i - 1]) >= 0);
	if (!sorted(up, 1) || !sorted(down, -1))
		problems.push('clicking "samples" does not sort: ' + up + ' / ' + down);

	// a bar's hover text names a function
	const title = await page.locator('svg.hist rect.b title').first().textContent();
	if (!/samples/.test(title || ''))
		problems.push('bar without a hover text: ' + title);

	const drawn = await flame(page, expect, problems);

	await finish(browser, page, shot, problems, rows + ' rows, ' + bars +
		' bars, flame graph: ' + drawn);
}

main().catch((e) => { console.log('error: ' + e.message); process.exit(1); });
