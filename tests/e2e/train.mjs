// End-to-end test of the Train view: serves the release build (dist/) on 127.0.0.1, drives
// Debian's chromium with playwright-core, trains 2-8-8-1 on xor with 4-bit weights and checks
// what a user sees.
//
//   trunk build --release && node tests/e2e/train.mjs
//
// Prints `N passed, M failed` and exits non-zero on any failure. Screenshot: target/e2e/train.png.
// Environment: QSCOPE_DIST (default dist), CHROMIUM (default /usr/bin/chromium).

import { join } from 'node:path';
import { SHOTS, TIMEOUT_MS, canvasStats, check, inked, main, text, until } from './common.mjs';
const LINK = '#view=train&dataset=xor&hidden=8,8&wq=qkeras.quantized_bits(4,0,1)';

const epochOf = async (page) => Number(await text(page, 'train-epoch'));
const click = (page, id) => page.locator(`[data-testid="${id}"]`).click({ timeout: TIMEOUT_MS });

async function run(browser, url) {
  const errors = [];
  const page = await browser.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`);
  });

  await page.goto(url + LINK, { waitUntil: 'load', timeout: TIMEOUT_MS });
  const first = await until(() => canvasStats(page, 'train-boundary'), inked);
  check('the boundary of the quantized net is drawn', inked(first), JSON.stringify(first));
  const twin = await until(() => canvasStats(page, 'train-boundary-float'), inked);
  check('the boundary of the float twin is drawn', inked(twin));
  check('the view switch shows Train as current', (await page.locator('[data-testid="view-train"][aria-current="page"]').count()) === 1);
  check('the weight quantizer field shows the link\'s spec', (await page.locator('[data-testid="train-wq"]').inputValue()) === 'qkeras.quantized_bits(4,0,1)');
  check('one histogram per hidden layer', (await page.locator('[data-testid="train-histogram"]').count()) === 2);

  const e0 = await epochOf(page);
  await click(page, 'train-step');
  const e1 = await until(() => epochOf(page), (e) => e > e0);
  check('step trains an epoch', e1 === e0 + 1, `${e0} → ${e1}`);

  await click(page, 'train-play');
  await page.waitForTimeout(3000);
  await click(page, 'train-play');
  const e2 = await epochOf(page);
  check('3 s of play trains many epochs', e2 >= e1 + 30, `${e1} → ${e2} (${((e2 - e1) / 3).toFixed(0)} epochs/s)`);
  const acc = await text(page, 'train-acc-test');
  check('test accuracy is a number', /^\d+(\.\d+)? %$/.test(acc.trim()), acc);
  const loss = await text(page, 'train-loss-test');
  check('test loss is a number', Number.isFinite(Number(loss)), loss);
  const after = await canvasStats(page, 'train-boundary');
  check('the boundary changed while training', after && after.hash !== first.hash);
  const e3 = await epochOf(page);
  await page.waitForTimeout(300);
  check('pause stops training', (await epochOf(page)) === e3);
  const hash = decodeURIComponent(await page.evaluate(() => location.hash));
  check('the hash keeps the settings', hash.includes('view=train') && hash.includes('dataset=xor') && hash.includes('hidden=8,8') && hash.includes('wq=qkeras.quantized_bits(4,0,1)'), hash);

  // a bad spec shows the parser's error and keeps the previous value
  await page.locator('[data-testid="train-wq"]').fill('qkeras.quantized_bitz(4)');
  await page.locator('[data-testid="train-wq"]').press('Enter');
  const bad = await page.locator('[data-testid="train-wq-error"]').count();
  check('a bad weight spec shows an error', bad === 1);
  await page.screenshot({ path: join(SHOTS, 'train.png'), fullPage: true });

  // a bad link: a banner, defaults, a drawn page
  const other = await browser.newPage();
  other.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  await other.goto(url + '#view=train&dataset=nope&hidden=x&lr=-1', { waitUntil: 'load', timeout: TIMEOUT_MS });
  const fallback = await until(() => canvasStats(other, 'train-boundary'), inked);
  check('a bad link still draws with defaults', inked(fallback));
  check('a bad link shows a banner', (await other.locator('[data-testid="hash-errors"]').count()) === 1);

  // a hand-edited link applies at once
  await other.evaluate(() => { location.hash = '#view=train&dataset=circle&hidden=4'; });
  const circle = await until(() => other.locator('[data-testid="train-histogram"]').count(), (n) => n === 1);
  check('a hand-edited link applies (one hidden layer)', circle === 1);

  // the view switch goes to the explorer and back
  await click(other, 'view-explorer');
  const fwd = await until(() => canvasStats(other, 'plot-forward'), inked);
  check('the view switch opens the explorer', inked(fwd));
  await click(other, 'view-train');
  const back = await until(() => canvasStats(other, 'train-boundary'), inked);
  check('the view switch opens the Train view again', inked(back));

  // play=1 autoplays (no prefers-reduced-motion here)
  await other.goto(url + '#view=train&dataset=circle&hidden=4&play=1', { waitUntil: 'load', timeout: TIMEOUT_MS });
  const auto = await until(() => epochOf(other), (e) => e > 5);
  check('play=1 autoplays', auto > 5 && /Pause/.test(await text(other, 'train-play')), `epoch ${auto}`);
  await click(other, 'train-play');

  let banners = 0;
  for (const p of [page, other]) banners += await p.locator('[data-testid="panic"]').count();
  check('no panic banner', banners === 0, `${banners}`);
  check('no console errors, page errors or failed requests', errors.length === 0, errors.join(' | '));
}

await main(run);
