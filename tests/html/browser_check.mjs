// tests/html/browser_check.mjs NODE_DIR SHOTDIR KIND FILE [PROGRAM]
// Open one of hyprof's pages in headless Chromium (Debian's /usr/bin/chromium
// driven by playwright-core) and use it as a person would:
//   KIND report   the HTML report: renders with no console error and no
//                 network request; clicking a frame zooms it to the full
//                 width; reset; search; tooltip; the functions table sorts;
//                 cost and ranks sections shown when the data has them
//   KIND compare  the comparison page: same, plus the differential colors and
//                 the difference table
//   KIND svg      the flame graph SVG: click-to-zoom, reset, search
// PROGRAM, when given, must appear in the page title.  A screenshot goes to
// SHOTDIR/<basename of FILE>.png.  Prints one line per failure and
// "N passed, N failed"; exits 1 when something failed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const [nodeDir, shotDir, kind, file, program] = process.argv.slice(2);
const require = createRequire(path.join(nodeDir, 'package.json'));
const { chromium } = require('playwright-core');

let failures = 0, checks = 0;
function check(ok, what) { checks++; if (!ok) { failures++; console.log('FAIL: ' + what); } }

const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hyprof-chromium-'));
const ctx = await chromium.launchPersistentContext(userDir, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: { width: 1400, height: 900 },
});
const errors = [], external = [];
try {
  const page = ctx.pages()[0] || await ctx.newPage();
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => { const u = r.url(); if (!u.startsWith('file:') && !u.startsWith('data:')) external.push(u); });
  page.on('dialog', (d) => d.accept('kernel|helper_1'));
  await page.goto('file://' + path.resolve(file));
  if (kind === 'svg') await svgChecks(page); else await pageChecks(page);
  fs.mkdirSync(shotDir, { recursive: true });
  const shot = path.join(shotDir, path.basename(file).replace(/\.[a-z]+$/, '') + '.png');
  await page.screenshot({ path: shot, fullPage: kind !== 'svg' });
  console.log('screenshot: ' + shot);
} catch (e) {
  check(false, 'browser session: ' + (e && e.stack || e));
} finally {
  await ctx.close();
  fs.rmSync(userDir, { recursive: true, force: true });
}
check(errors.length === 0, 'no console errors: ' + errors.join(' | '));
check(external.length === 0, 'no network requests: ' + external.join(' '));
console.log(`${checks - failures} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);

async function frameWidth(page, i) {
  return page.evaluate((i) => {
    const e = document.querySelector(`#flame .fr[data-i="${i}"]`);
    return e ? e.getBoundingClientRect().width : -1;
  }, i);
}

async function pageChecks(page) {
  await page.waitForSelector('#flame .fr', { timeout: 15000 });
  const title = await page.title();
  if (program) check(title.includes(program.split('/').pop()), `title "${title}" names ${program}`);
  if (kind === 'compare') check(/compare/.test(title), `compare title "${title}"`);
  const flameW = await page.evaluate(() => document.getElementById('flame').clientWidth);
  const nframes = await page.locator('#flame .fr').count();
  check(nframes >= 3, `flame graph has frames (${nframes})`);

  // a frame narrower than the graph, two rows below the root when there is one
  const pick = await page.evaluate((W) => {
    const fr = [...document.querySelectorAll('#flame .fr')].map((e) => ({
      i: +e.dataset.i, top: parseFloat(e.style.top), w: e.getBoundingClientRect().width, text: e.textContent }));
    const c = fr.filter((f) => f.w < W - 10 && f.w > 30).sort((a, b) => a.top - b.top || b.w - a.w);
    return c.length ? c[0] : null;
  }, flameW);
  check(pick !== null, 'a frame narrower than the graph exists');
  if (pick) {
    await page.click(`#flame .fr[data-i="${pick.i}"]`, { position: { x: 5, y: 5 } });
    const w = await frameWidth(page, pick.i);
    check(Math.abs(w - flameW) <= 1.5, `clicking frame ${pick.i} (${pick.text}, ${pick.w.toFixed(1)} px) zooms it to the full width ${flameW}: ${w}`);
    const crumbs = await page.textContent('#crumbs');
    check(crumbs.includes('all') && crumbs.length > 3, `breadcrumbs after zoom: ${crumbs}`);
    // tooltip
    await page.hover(`#flame .fr[data-i="${pick.i}"]`, { position: { x: 8, y: 6 } });
    const tip = await page.evaluate(() => { const t = document.getElementById('tip'); return { d: t.style.display, s: t.textContent }; });
    check(tip.d === 'block' && /total/.test(tip.s), `tooltip shows the frame's values: ${tip.s.slice(0, 80)}`);
    await page.click('#reset');
    const w2 = await frameWidth(page, pick.i);
    check(Math.abs(w2 - pick.w) <= 1.5, `reset restores the width ${pick.w.toFixed(1)}: ${w2}`);
  }
  // search
  const name = await page.evaluate(() => {
    const e = [...document.querySelectorAll('#flame .fr')].find((x) => +x.dataset.i > 0 && x.textContent && !/^\[/.test(x.textContent));
    return e ? e.textContent : null;
  });
  if (name) {
    const q = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    await page.fill('#search', q);
    const hits = await page.locator('#flame .fr.hit').count();
    const m = await page.textContent('#match');
    check(hits >= 1 && /matched/.test(m), `search "${q}" highlights ${hits} frames: ${m}`);
    await page.fill('#search', '');
  }
  // functions table: sorting by name gives alphabetical order
  const nrows = await page.locator('#ftable tbody tr').count();
  check(nrows >= 1, `functions table has rows (${nrows})`);
  await page.click('#ftable thead th:first-child');
  const names = await page.$$eval('#ftable tbody tr td:first-child', (tds) => tds.map((t) => t.textContent));
  const sorted = [...names].sort((a, b) => a.localeCompare(b));
  const desc = [...sorted].reverse();
  check(JSON.stringify(names) === JSON.stringify(sorted) || JSON.stringify(names) === JSON.stringify(desc),
    'clicking Function sorts the table by name');
  await page.click('#ftable thead th:first-child');
  const names2 = await page.$$eval('#ftable tbody tr td:first-child', (tds) => tds.map((t) => t.textContent));
  check(names.length < 2 || names2[0] !== names[0] || names[0] === names[names.length - 1], 'clicking again reverses the order');

  const data = await page.evaluate(() => JSON.parse(document.getElementById('hyprof-data').textContent));
  const hasCost = data.runs.some((r) => Object.keys(r.cost).length > 0);
  const costShown = await page.evaluate(() => !document.getElementById('sec-cost').hidden);
  check(costShown === hasCost, `cost section shown (${costShown}) exactly when m->cost has keys (${hasCost})`);
  if (hasCost) {
    const svg = await page.locator('#cost svg').count();
    check(svg >= 1, 'the cost section has its picture');
    const txt = await page.textContent('#cost');
    check(/predicted/.test(txt) && /low/.test(txt) && /high/.test(txt), 'the cost picture labels low, high and predicted');
  }
  const ranks = new Set(data.runs[data.runs.length - 1].threads.filter((t) => t.rank >= 0).map((t) => t.rank));
  const ranksShown = await page.evaluate(() => !document.getElementById('sec-ranks').hidden);
  check(ranksShown === (ranks.size >= 2), `ranks section shown (${ranksShown}) when MPI ran with ${ranks.size} ranks`);
  if (ranksShown) {
    const bars = await page.locator('#ranks svg rect').count();
    check(bars === ranks.size, `one bar per rank (${bars} for ${ranks.size})`);
  }
  if (kind === 'compare') {
    const top = await page.textContent('#ftable tbody tr:first-child td:first-child');
    const dRows = await page.$$eval('#ftable tbody tr', (trs) => trs.length);
    check(dRows >= 1, 'difference table has rows');
    // reset the table to its default order: reload
    await page.reload();
    await page.waitForSelector('#flame .fr');
    const first = await page.textContent('#ftable tbody tr:first-child td:first-child');
    process.env.HYPROF_EXPECT_TOP && check(first === process.env.HYPROF_EXPECT_TOP,
      `the largest change is listed first: ${first}, want ${process.env.HYPROF_EXPECT_TOP}`);
    void top;
    const reds = await page.evaluate(() => [...document.querySelectorAll('#flame .fr')].filter((e) => {
      const m = /rgb\((\d+), (\d+), (\d+)\)/.exec(e.style.background); return m && +m[1] === 245 && +m[2] < 240; }).length);
    check(reds >= 1, `frames that grew are red (${reds})`);
  }
}

async function svgChecks(page) {
  await page.waitForSelector('g.f', { timeout: 15000 });
  const W = await page.evaluate(() => +document.documentElement.getAttribute('width'));
  const pick = await page.evaluate((W) => {
    const gs = [...document.querySelectorAll('g.f')].map((g, k) => {
      const r = g.querySelector('rect');
      return { k, w: +r.getAttribute('width'), y: +r.getAttribute('y'), n: g.getAttribute('data-n') };
    });
    const maxy = Math.max(...gs.map((g) => g.y));
    const c = gs.filter((g) => g.y < maxy && g.w < W - 40 && g.w > 20).sort((a, b) => b.y - a.y || b.w - a.w);
    return c.length ? c[0] : null;
  }, W);
  check(pick !== null, 'a frame narrower than the graph exists above the bottom row');
  if (!pick) return;
  const rectW = (k) => page.evaluate((k) => +document.querySelectorAll('g.f')[k].querySelector('rect').getAttribute('width'), k);
  await page.locator('g.f').nth(pick.k).click({ position: { x: 4, y: 4 } });
  const w = await rectW(pick.k);
  check(Math.abs(w - (W - 20)) <= 0.5, `clicking ${pick.n} (${pick.w}) zooms it to the full width ${W - 20}: ${w}`);
  await page.click('#unzoom');
  check(Math.abs(await rectW(pick.k) - pick.w) <= 0.5, 'Reset Zoom restores the width');
  await page.click('#search');
  const m = await page.textContent('#matched');
  check(/Matched: [\d.]+%/.test(m), `search marks matches: ${m}`);
  const purple = await page.evaluate(() => [...document.querySelectorAll('g.f rect')].filter((r) => r.getAttribute('fill') === 'rgb(230,0,230)').length);
  check(purple >= 1, `matching frames turn purple (${purple})`);
}
