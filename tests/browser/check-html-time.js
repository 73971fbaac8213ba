// check-html-time.js PAGE.html SHOT.png EXPECT - the timeline of a
// `profil report --html` page in headless Chromium, driven as a reader
// drives it: the mouse dragged across the tracks.  EXPECT, a JSON object
// of what the profile holds (worked out by the caller from the profile,
// never from the page):
//   nslices  the timeline's slices
//   whole    {total, cpu}: the root box's count and the samples on the
//            CPU with no window chosen
//   tracks   the tracks' names, in order (each starts so), if given
//   colours  [{track, slice, up, kind}]: the colour up pixels (2 if not
//            given) above the foot of the track in the middle of that
//            slice: "cpu", "wait", "run" or "none"
//   phases   [{track, name, first, first_by, end, end_by, within}]: the
//            track lists a phase of that name whose slices are those within
//            within (1 if not given; an edge null: any; its start up to
//            first_by and its end up to end_by, if
//            given)
//   drags    [{from, to, first, end, range, option, total, cpu, functions,
//            searches}]: the mouse pressed in the middle of slice from on
//            the first track and let go in the middle of slice to (or
//            at x0 and x1, the window's x: where slices are narrower
//            than a pixel, only where the mouse can be); the
//            page must then show slices [first, end), the bounds as
//            range, the --time option that gives the window again as
//            option, the window's total (the root box), its samples on
//            the CPU, and for each of functions [{name, samples, amount,
//            boxed, error}] its row's samples, %self (amount of total, 2
//            decimals) and 95% error (as given, 4 decimals) and its
//            boxes' counts (boxed: its boxes drawn, if not amount); each
//            of searches [{re, matched}],
//            typed into the flame graph's search, that many
// With EXPECT {"probe": true}, prints "canvas X WIDTH", the tracks' x in
// the window and width, and checks nothing.
// After each drag, Escape gives the whole run back (its root and table);
// a click on the tracks does too; a click on a listed phase chooses its
// slices.  Prints "ok" and writes a screenshot (of the last drag's page);
// exits 1 with the reasons otherwise.
'use strict';
const { open_page, flame_boxes, finish } = require('./page');

const near = (a, b) => Math.abs(a - b) < 0.01;

// What the page shows now: its window line's data, the root, the table.
async function state(page) {
	const line = page.locator('#tl-window');
	const rows = await page.$$eval('#flat tbody tr', (trs) => trs.map((tr) => ({
		name: tr.cells[5].textContent, pct: tr.cells[0].textContent,
		samples: Number(tr.cells[4].textContent),
		pct_v: Number(tr.cells[0].getAttribute('data-v')),
		err: Number(tr.cells[1].getAttribute('data-v')),
	})));
	const boxes = await flame_boxes(page);
	return {
		first: Number(await line.getAttribute('data-first')),
		end: Number(await line.getAttribute('data-end')),
		samples: Number(await line.getAttribute('data-samples')),
		cpu: Number(await line.getAttribute('data-cpu')),
		range: await page.locator('#tl-range').textContent(),
		line: await line.textContent(),
		title: await page.locator('#tl-title').textContent(),
		root: boxes.find((b) => b.i === 0), boxes, rows,
		width: Number(await page.locator('#flame-svg').getAttribute('width')),
	};
}

// The boxes drawn in proportion to the root, the root the full width.
function proportional(s, how, problems) {
	if (!s.root || !near(s.root.x, 0) || !near(s.root.w, s.width))
		problems.push(how + ': root box ' + JSON.stringify(s.root));
	for (const b of s.boxes)
		if (s.root && (b.x < -0.01 || b.x + b.w > s.width + 0.01 ||
		    !near(b.w, s.width * b.count / s.root.count)))
			problems.push(how + ': box ' + b.name + ' at ' + b.x + '+' + b.w +
				' for ' + b.count + ' of ' + s.root.count);
}

// Where the canvas is in the viewport, its top scrolled to the top.
async function canvas(page) {
	await page.evaluate(() => document.getElementById('tl-canvas').scrollIntoView());
	return page.locator('#tl-canvas').boundingBox();
}

async function drag(page, expect, d, problems) {
	const box = await canvas(page);
	const x = (slice) => box.x + (slice + 0.5) * box.width / expect.nslices;
	const y = box.y + 15;
	const how = 'drag ' + (d.x0 !== undefined ? 'from x ' + d.x0 + ' to ' + d.x1 :
		d.from + '..' + d.to);

	await page.mouse.move(d.x0 !== undefined ? d.x0 : x(d.from), y);
	await page.mouse.down();
	await page.mouse.move(d.x1 !== undefined ? d.x1 : x(d.to), y, { steps: 8 });
	await page.mouse.up();
	const s = await state(page);
	if (s.first !== d.first || s.end !== d.end)
		problems.push(how + ': slices ' + s.first + '..' + s.end + ', want ' +
			d.first + '..' + d.end);
	if (s.range !== d.range)
		problems.push(how + ': range "' + s.range + '", want "' + d.range + '"');
	if (d.option !== undefined && !s.line.includes('--time ' + d.option + ' '))
		problems.push(how + ': "' + s.line + '" does not name --time ' + d.option);
	if (s.samples !== d.total || s.cpu !== d.cpu)
		problems.push(how + ': ' + s.samples + ' counts, ' + s.cpu +
			' on the CPU; want ' + d.total + ', ' + d.cpu);
	if (!s.root || s.root.count !== d.total)
		problems.push(how + ': root box ' + JSON.stringify(s.root) + ', want ' + d.total);
	if (!s.title.includes(d.range) || !s.title.includes(d.cpu + ' samples'))
		problems.push(how + ': heading "' + s.title + '"');
	proportional(s, how, problems);
	let sum = 0;
	for (const r of s.rows)
		sum += r.pct_v;
	if (s.rows.length && Math.abs(sum - 100) > 0.01 * s.rows.length)
		problems.push(how + ': the table\'s %self add up to ' + sum);
	for (const f of d.functions || []) {
		const row = s.rows.find((r) => r.name === f.name);
		const pct = (100 * f.amount / d.total).toFixed(2);
		if (f.amount === 0) {
			if (row)
				problems.push(how + ': a row for ' + f.name + ', which has nothing here');
		} else if (!row || row.samples !== f.samples || row.pct !== pct ||
		    (f.error !== undefined && !(Math.abs(row.err - f.error) <= 0.00015)))
			problems.push(how + ': ' + f.name + ' row ' + JSON.stringify(row) +
				', want ' + f.samples + ' samples, ' + pct + '%' +
				(f.error !== undefined ? ' \u00b1 ' + f.error : ''));
		let boxed = 0;
		for (const b of s.boxes)
			if (b.name === f.name)
				boxed += b.count;
		const want = f.boxed !== undefined ? f.boxed : f.amount;
		if (boxed !== want)
			problems.push(how + ': ' + f.name + '\'s boxes hold ' + boxed + ', want ' +
				want);
	}
	for (const q of d.searches || []) {
		await page.fill('#flame-search', q.re);
		const matched = Number(await page.locator('#flame-match').getAttribute('data-samples'));
		if (matched !== q.matched)
			problems.push(how + ': search "' + q.re + '" matched ' + matched + ', want ' +
				q.matched);
		await page.fill('#flame-search', '');
	}
	return s;
}

// The whole run shown again: its slices, its root, its table as loaded.
async function whole(page, expect, loaded, how, problems) {
	const s = await state(page);
	if (s.first !== 0 || s.end !== expect.nslices || s.samples !== expect.whole.total ||
	    !s.root || s.root.count !== expect.whole.total || s.title !== '')
		problems.push(how + ': not the whole run: ' + JSON.stringify({
			first: s.first, end: s.end, samples: s.samples, root: s.root, title: s.title }));
	if (JSON.stringify(s.rows) !== JSON.stringify(loaded.rows))
		problems.push(how + ': the functions table is not the whole run\'s');
	if (await page.locator('#tl-sel').isVisible())
		problems.push(how + ': a window still marked');
	proportional(s, how, problems);
}

// The colours of the canvas at [{track, slice, up}], read at once.
async function colours(page, expect, list) {
	return page.evaluate(([list, n]) => {
		const cv = document.getElementById('tl-canvas');
		const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
		return list.map((c) => {
			const x = Math.floor((c.slice + 0.5) * cv.width / n);
			const y = c.track * 42 + 30 - (c.up || 2);	// ROWH 42, TRACK 30
			const at = 4 * (y * cv.width + x);
			return [d[at], d[at + 1], d[at + 2]];
		});
	}, [list, expect.nslices]);
}

const KINDS = { cpu: [0xe8, 0x79, 0x3a], wait: [0x9d, 0x8a, 0xd6],
	run: [0xe3, 0xc1, 0x3b], none: [0xf4, 0xf4, 0xf4] };

async function main() {
	const [page_path, shot, expect_json] = process.argv.slice(2);
	const expect = JSON.parse(expect_json);
	const problems = [];
	const { browser, page } = await open_page(page_path, problems);

	if (expect.probe) {
		const box = await canvas(page);
		console.log('canvas ' + box.x + ' ' + box.width);
		await browser.close();
		return;
	}
	const names = await page.$$eval('#tl-names .tl-name', (ns) => ns.map((n) => n.textContent));
	if (expect.tracks && (names.length !== expect.tracks.length ||
	    expect.tracks.some((t, k) => !names[k].startsWith(t))))
		problems.push('tracks ' + JSON.stringify(names) + ', want ' +
			JSON.stringify(expect.tracks));
	const loaded = await state(page);
	await whole(page, expect, loaded, 'as loaded', problems);
	if (loaded.cpu !== expect.whole.cpu)
		problems.push('as loaded: ' + loaded.cpu + ' on the CPU, want ' + expect.whole.cpu);
	const got = await colours(page, expect, expect.colours || []);
	(expect.colours || []).forEach((c, k) => {
		const want = KINDS[c.kind];
		if (got[k].some((v, j) => Math.abs(v - want[j]) > 8))
			problems.push('track ' + c.track + ' slice ' + c.slice + ': colour ' +
				got[k] + ', want ' + c.kind + ' ' + want);
	});
	const phases = await page.$$eval('#tl-phases > div', (ds) => ds.map((d) =>
		Array.from(d.querySelectorAll('li')).map((li) => ({
			name: li.getAttribute('data-name'), first: Number(li.getAttribute('data-first')),
			end: Number(li.getAttribute('data-end')) }))));
	for (const p of expect.phases || [])
		if (!(phases[p.track] || []).some((q) => q.name === p.name &&
		    (p.first === null || (q.first >= p.first - (p.within || 1) &&
		    q.first <= (p.first_by !== undefined ? p.first_by : p.first) + (p.within || 1))) &&
		    (p.end === null || (q.end >= p.end - (p.within || 1) &&
		    q.end <= (p.end_by !== undefined ? p.end_by : p.end) + (p.within || 1)))))
			problems.push('track ' + p.track + ': no phase ' + JSON.stringify(p) + ' in ' +
				JSON.stringify(phases[p.track]));

	for (const d of expect.drags || []) {
		await drag(page, expect, d, problems);
		await page.keyboard.press('Escape');
		await whole(page, expect, loaded, 'Escape after drag ' + d.from + '..' + d.to,
			problems);
	}
	// a phase chosen by a click; then a click on the tracks
	const li = page.locator('#tl-phases li').first();
	if (await li.count() > 0) {
		const first = Number(await li.getAttribute('data-first'));
		const end = Number(await li.getAttribute('data-end'));
		await li.click();
		const s = await state(page);
		if (s.first !== first || s.end !== end)
			problems.push('a click on a phase: slices ' + s.first + '..' + s.end +
				', want ' + first + '..' + end);
		const box = await canvas(page);
		await page.mouse.click(box.x + box.width / 2, box.y + 10);
		await whole(page, expect, loaded, 'a click on the tracks', problems);
	}
	const drags = expect.drags || [], last = drags[drags.length - 1];
	if (last)
		await drag(page, expect, last, []);
	await finish(browser, page, shot, problems, names.length + ' tracks, ' +
		(expect.drags || []).length + ' windows');
}

main().catch((e) => { console.log('error: ' + e.message); process.exit(1); });
