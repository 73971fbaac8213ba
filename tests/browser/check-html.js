// check-html.js PAGE.html SHOT.png - load a `profil report --html` page in
// headless Chromium (/usr/bin/chromium) with the network cut off, and
// check what a reader relies on: no console errors or failed requests,
// the flat table and the pictures are there, a click on a heading sorts
// the table, hovering a bar names a function.  Prints "ok" and writes a
// screenshot; exits 1 with the reason otherwise.
'use strict';
const { chromium } = require('playwright-core');
const path = require('path');

async function main() {
	const [page_path, shot] = process.argv.slice(2);
	const problems = [];
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
	await page.goto('file://' + path.resolve(page_path));

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

	if (shot)
		await page.screenshot({ path: shot, fullPage: true });
	await browser.close();
	if (problems.length) {
		console.log(problems.join('\n'));
		process.exit(1);
	}
	console.log('ok: ' + rows + ' rows, ' + bars + ' bars');
}

main().catch((e) => { console.log('error: ' + e.message); process.exit(1); });
