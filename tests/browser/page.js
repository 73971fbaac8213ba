// page.js - what the browser checks share: a page opened in headless
// Chromium (/usr/bin/chromium, or $CHROMIUM) with the network cut off,
// every console error or warning, page error and request other than the
// page itself written down as a problem.
'use strict';
const { chromium } = require('playwright-core');
const path = require('path');

// { browser, page } with page_path loaded; problems gets the faults.
async function open_page(page_path, problems) {
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox'],
	});
	const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
	// self-contained: any request other than the page itself is a fault
	await context.route('**/*', (route) => {
		if (route.request().url().startsWith('file:'))
			return route.continue();
		problems.push('request: ' + route.request().url());
		return route.abort();
	});
	const page = await context.newPage();
	page.on('console', (m) => {
		if (m.type() === 'error' || m.type() === 'warning')
			problems.push('console ' + m.type() + ': ' + m.text());
	});
	page.on('pageerror', (e) => problems.push('page error: ' + e.message));
	page.on('request', (r) => {
		if (!r.url().startsWith('file:'))
			problems.push('request: ' + r.url());
	});
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
