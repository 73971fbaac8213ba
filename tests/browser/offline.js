// offline.js - a page of headless Chromium (Debian's /usr/bin/chromium,
// or $CHROMIUM) cut off from the network, what the browser checks open
// their pages in: any request beyond file:// is aborted, and said in
// problems, as are the page's errors and console messages of the types
// given.
'use strict';
const { chromium } = require('playwright-core');

// { browser, page } of a 1200x900 window; problems (an array) collects
// what went wrong, the console messages of types (['error', ...]) too.
async function offlinePage(problems, types) {
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox'],
	});
	const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
	await context.route('**/*', (route) => {
		if (route.request().url().startsWith('file:'))
			return route.continue();
		problems.push('request: ' + route.request().url());
		return route.abort();
	});
	const page = await context.newPage();
	page.on('console', (m) => {
		if (types.includes(m.type()))
			problems.push('console ' + m.type() + ': ' + m.text());
	});
	page.on('pageerror', (e) => problems.push('page error: ' + e.message));
	page.on('request', (r) => {
		if (!r.url().startsWith('file:'))
			problems.push('request: ' + r.url());
	});
	return { browser, page };
}

module.exports = { offlinePage };
