// End-to-end test of the page's worker (issue 29: a 16 M-element tensor leaves the page
// responsive): a tensor of 4 M elements — above the page's limit for quantizing on its own
// thread (qscope_explore::analysis::OFF_PAGE) — is quantized in the worker, with a progress
// line and Cancel; Resume finishes it; the panels then show `qscope compare --tensor`'s numbers. In a
// browser without workers the page computes the same numbers itself.
//
//   trunk build --release && cargo build --release && node tests/e2e/worker.mjs
//
// Environment: QSCOPE_BIN (default target/release/qscope), and common.mjs's.

import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SHOTS, TIMEOUT_MS, check, compareCli, main, text, until } from './common.mjs';
import { audit } from './audit.mjs';

const [ROWS, COLS] = [2048, 2048];
const SPEC = "qkeras.quantized_bits(4,0,1,alpha='auto')";

/** A safetensors file of one BF16 weight `[ROWS, COLS]` (a normal-like draw), written once. */
function bigFile() {
  const path = join(ROOT, 'target', 'e2e', 'big.safetensors');
  mkdirSync(join(ROOT, 'target', 'e2e'), { recursive: true });
  let json = JSON.stringify({ w: { dtype: 'BF16', shape: [ROWS, COLS], data_offsets: [0, ROWS * COLS * 2] } });
  while ((8 + json.length) % 8) json += ' ';
  const f = new Float32Array(ROWS * COLS);
  let s = 2029;
  const u = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
  // Column 5 is an outlier channel, ten times the others.
  for (let i = 0; i < f.length; i++) f[i] = (u() + u() + u() + u() - 2) * 0.035 * (i % COLS === 5 ? 10 : 1);
  const fd = openSync(path, 'w');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  writeSync(fd, len);
  writeSync(fd, Buffer.from(json));
  writeSync(fd, Buffer.from(new Uint16Array(new Uint32Array(f.buffer).map((b) => b >>> 16)).buffer));
  closeSync(fd);
  return path;
}

/** `qscope compare --tensor FILE:w SPEC…`'s rows: spec → { bits, mse, sqnr }. */
const cli = (file, specs) => compareCli(`${file}:w`, specs);

const status = (page) => text(page, 'offpage-status').catch(() => '');
/** The worker has answered everything asked: no status line, or one without a progress bar. */
const idle = (page) => page.waitForFunction(() => !document.querySelector('[data-testid="offpage-status"] progress:not(.hidden)'), null, { timeout: 120_000 });

async function run(context, url) {
  const file = bigFile();
  const page = await context.newPage();
  await page.goto(`${url}#q=${encodeURIComponent(SPEC)}`, { waitUntil: 'load', timeout: TIMEOUT_MS });
  await page.locator('[data-testid="tensor-file"]').setInputFiles(file);
  await page.locator('[data-testid="tensor-list"] li[data-name="w"] button').click({ timeout: 60_000 });

  // At work: what, how far, and Cancel.
  await page.locator('[data-testid="offpage-status"] progress').waitFor({ state: 'visible', timeout: 60_000 });
  const busy = await status(page);
  check('a large tensor is quantized in the background, said with its name and size', /^Quantizing w \(4,194,304 elements\) in the background: \d+ %/.test(busy), JSON.stringify(busy));
  await page.locator('[data-testid="offpage-cancel"]').click({ timeout: TIMEOUT_MS });
  const stopped = await until(() => status(page), (t) => /Stopped/.test(t));
  check('Cancel stops the work and says the panels show the numbers from before', /Stopped: the panels show the numbers from before for w/.test(stopped), JSON.stringify(stopped));
  await page.locator('[data-testid="offpage-resume"]').click({ timeout: TIMEOUT_MS });
  await page.waitForTimeout(50);
  await idle(page);
  check('Resume finishes the work and the status line goes', (await status(page)) === '', JSON.stringify(await status(page)));

  // The worker's numbers are the CLI's.
  const expected = cli(file, [SPEC]);
  const shown = await until(() => page.locator('[data-testid="sqnr"] dd').first().innerText().catch(() => ''), (t) => /dB/.test(t));
  const want = expected && [...expected.values()][0];
  check('the Quality panel shows the CLI\'s SQNR for the large tensor', want && shown === `${Math.round(want.sqnr * 10) / 10} dB`, JSON.stringify([shown, want]));
  const note = await text(page, 'frozen-note').catch(() => '');
  check('the curve is frozen at the worker\'s numbers for the drawn channel', /Drawn for channel 0 of 2048 \(axis 1\)/.test(note), JSON.stringify(note));
  const outliers = await text(page, 'channel-outliers').catch(() => '');
  check('the channel strip names the outlier column from the worker\'s channel statistics', /: 5 \(\d+\.\d×\)$/.test(outliers), JSON.stringify(outliers));

  // "Which format?" on it: the preset, answered by the worker, is the CLI's.
  await page.locator('[data-testid="compare-formats"]').click({ timeout: TIMEOUT_MS });
  await page.waitForTimeout(50);
  await idle(page);
  const table = await until(
    () => page.locator('[data-testid="formats-table"] tbody tr').evaluateAll((tr) => tr.map((r) => [r.querySelector('code').title, ...[...r.querySelectorAll('td.num')].map((td) => td.innerText)])),
    (r) => r.length >= 4,
  );
  const preset = cli(file, []);
  if (preset) {
    const mismatched = table.filter(([spec, bits, , mse]) => !preset.has(spec) || preset.get(spec).mse !== mse || preset.get(spec).bits !== bits);
    check('"which format?" on the large tensor gives the CLI\'s bits and MSE for every preset format', table.length === preset.size && mismatched.length === 0, JSON.stringify({ mismatched, table }));
  }
  await page.screenshot({ path: join(SHOTS, 'worker-1360.png') });
  await audit(page, 'the explorer with a large tensor quantized in the worker');
  await page.close();

  // A browser without workers: the page quantizes the tensor itself, to the same numbers.
  const bare = await context.newPage();
  await bare.addInitScript(() => { delete window.Worker; });
  await bare.goto(`${url}#q=${encodeURIComponent(SPEC)}`, { waitUntil: 'load', timeout: TIMEOUT_MS });
  await bare.locator('[data-testid="tensor-file"]').setInputFiles(file);
  await bare.locator('[data-testid="tensor-list"] li[data-name="w"] button').click({ timeout: 60_000 });
  const own = await until(() => bare.locator('[data-testid="sqnr"] dd').first().innerText().catch(() => ''), (t) => t === shown, 60_000);
  check('without workers the page computes the same SQNR itself', own === shown, JSON.stringify([own, shown]));
  check('and shows no progress it cannot make', (await status(bare)) === '', JSON.stringify(await status(bare)));
  await bare.close();
}

main(run);
