// page.js - what the checks of the HTML page share: the page opened in
// headless Chromium cut off from the network (offline.js), every console
// error or warning, page error and request other than the page itself
// written down as a problem; the flame graph's boxes; the end.
'use strict';
const path = require('path');
const { offlinePage } = require('./offline');

// { browser, page } with page_path loaded (offline.js: cut off from the
// network); problems gets the faults, console errors and warnings too.
async function open_page(page_path, problems) {
	const { browser, page } = await offlinePage(problems, ['error', 'warning']);

	await page.goto('file://' + path.resolve(page_path));
	return { browser, page };
}

// Every drawn flame graph box: index, function, count, x, width, classes.
async function flame_boxes(page) {
	return page.$$eval('#flame-svg g.fg-box', (gs) => gs.map((g) => {
		const r = g.querySelector('rect');
		return {
			i: Number(g.getAttribute('data-i')), name: g.getAttribute('data-name'),
			count: Number(g.getAttribute('data-count')),
			x: Number(r.getAttribute('x')), w: Number(r.getAttribute('width')),
			cls: g.getAttribute('class'),
		};
	}));
}

// The end of a check: the screenshot (if asked), the browser closed, and
// the problems printed with exit status 1, or "ok: " and what was seen.
async function finish(browser, page, shot, problems, seen) {
	if (shot)
		await page.screenshot({ path: shot, fullPage: true });
	await browser.close();
	if (problems.length) {
		console.log(problems.join('\n'));
		process.exit(1);
	}
	console.log('ok: ' + seen);
}

module.exports = { open_page, flame_boxes, finish };
