// The dashboard's browser test: loads each page of a running `cairn-ui` in headless Chromium
// (puppeteer-core over the DevTools protocol), fails on any console error, page error, failed
// request or HTTP error answer, checks that the keyboard reaches the page (the first Tab lands
// on the skip link), and saves a full-page screenshot of each page, wide and narrow.
//
// Usage: node dashboard.mjs PUPPETEER_DIR CHROMIUM URL_WITH_TOKEN OUT_DIR PATH...
// Prints one JSON object: {"pages": [{"path", "status", "problems", "screenshots"}]}; exits 1
// when any page had a problem.
import path from 'node:path';
import { createRequire } from 'node:module';

const [puppeteerDir, chromium, start, outDir, ...paths] = process.argv.slice(2);
const require = createRequire(path.join(puppeteerDir, 'index.js'));
const puppeteer = require('puppeteer-core');
const origin = new URL(start).origin;

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage'],
});
const report = { pages: [] };
let failed = false;
try {
  const page = await browser.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  // The URL `cairn ui` printed signs the browser in; every page after it goes by the cookie.
  const first = await page.goto(start, { waitUntil: 'networkidle0' });
  if (!first || first.status() !== 200) problems.push(`sign-in: HTTP ${first?.status()}`);
  for (const p of paths) {
    problems.length = 0;
    const entry = { path: p, status: 0, problems: [], screenshots: [] };
    const answer = await page.goto(origin + p, { waitUntil: 'networkidle0' });
    entry.status = answer ? answer.status() : 0;
    const [route, query] = p.split('?');
    const slug = (t) => t.replace(/[^a-z0-9]+/gi, '-').replace(/^-+|-+$/g, '');
    const name = [route === '/' ? 'overview' : slug(route), query ? slug(decodeURIComponent(query)).slice(-40) : ''].filter(Boolean).join('-');
    for (const [label, width] of [['wide', 1280], ['narrow', 420]]) {
      await page.setViewport({ width, height: 900 });
      const file = path.join(outDir, `${name}-${label}.png`);
      await page.screenshot({ path: file, fullPage: true });
      entry.screenshots.push(file);
    }
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.className ?? '');
    if (focused !== 'skip') problems.push(`the first Tab focused "${focused}", not the skip link`);
    // Nothing wider than a narrow window unless it scrolls inside its own box.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    if (overflow > 2) problems.push(`the narrow page scrolls sideways by ${overflow}px`);
    await page.setViewport({ width: 1280, height: 900 });
    entry.problems = [...problems];
    if (entry.status !== 200 || entry.problems.length) failed = true;
    report.pages.push(entry);
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(report));
process.exit(failed ? 1 : 0);
