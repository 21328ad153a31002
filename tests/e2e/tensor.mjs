// End-to-end test of issue 29's own tensors in the explorer: a safetensors file written by the
// real package (tests/fixtures/tensors, tests/conformance/tensors.py) is opened in the page, a
// tensor picked, and the panels show the numbers `qscope compare --tensor` prints for it; the
// link carries the names only and asks for the file again; a malformed file or another format
// is named and the previous sample stays.
//
//   trunk build --release && cargo build --release && node tests/e2e/tensor.mjs
//
// Environment: QSCOPE_BIN (default target/release/qscope), and common.mjs's.

import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, SHOTS, TIMEOUT_MS, check, compareCli, main, text, until } from './common.mjs';
import { audit } from './audit.mjs';

const FILE = join(ROOT, 'tests/fixtures/tensors/weights.safetensors');
const SPEC = 'qkeras.quantized_bits(bits=4, symmetric=True)';
const hashOf = (page) => page.evaluate(() => decodeURIComponent(location.hash));
const source = (page) => text(page, 'sample-source').catch(() => '');

/** `qscope compare --tensor FILE:NAME SPEC…`'s rows: spec → { bits, mse, sqnr }. */
const cli = (name, specs) => compareCli(`${FILE}:${name}`, specs);

async function open(page, file) {
  await page.locator('[data-testid="tensor-file"]').setInputFiles(file);
}

/** A safetensors file of `n` F32 tensors of `size` elements, as the reference writes it. */
function many(n, size = 4) {
  const header = {};
  const bytes = 4 * size;
  for (let i = 0; i < n; i++) header[`t${String(i).padStart(3, '0')}`] = { dtype: 'F32', shape: [size], data_offsets: [bytes * i, bytes * i + bytes] };
  let json = JSON.stringify(header);
  while ((8 + json.length) % 8) json += ' ';
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  const data = Buffer.alloc(bytes * n);
  for (let i = 0; i < size * n; i++) data.writeFloatLE(Math.sin(i) * 0.5, 4 * i);
  return Buffer.concat([len, Buffer.from(json), data]);
}

/** `qscope scan FILE SPEC` as a map: tensor → SQNR. */
function cliScan(file, spec) {
  const bin = process.env.QSCOPE_BIN ?? join(ROOT, 'target/release/qscope');
  const r = spawnSync(bin, ['scan', file, spec], { encoding: 'utf8' });
  if (!check('qscope scan runs', r.status === 0, r.stderr)) return new Map();
  return new Map(r.stdout.split('\n').filter((l) => l && !l.startsWith('#') && !l.startsWith('name')).map((l) => { const c = l.split('\t'); return [c[0], Number(c[4])]; }));
}

// "Scan all tensors": the page's rows are qscope scan's, worst first; Cancel stops a scan.
async function scanAll(page) {
  await page.locator('[data-testid="tensor-scan"]').click({ timeout: TIMEOUT_MS });
  const rows = await until(
    () => page.locator('[data-testid="tensor-scan-table"] tbody tr').evaluateAll((tr) => tr.map((r) => [r.dataset.name, ...[...r.querySelectorAll('td.num')].map((td) => td.innerText)])),
    (r) => r.length === 3,
  );
  const want = cliScan(FILE, "torchao.float8");
  const same = rows.every(([name, , sqnr]) => want.has(name) && sqnr === String(Math.round(want.get(name) * 10) / 10));
  check('Scan all tensors gives qscope scan\'s SQNR for each tensor and for all', rows.length === 3 && same, JSON.stringify({ rows, want: [...want] }));
  const firstTwo = rows.slice(0, 2).map((r) => Number(r[2]));
  check('the worst tensor comes first', firstTwo[0] <= firstTwo[1], JSON.stringify(rows));
  await page.locator('[data-testid="tensor-scan-table"] tr[data-name="layer.bias"] button').click({ timeout: TIMEOUT_MS });
  const bias = await until(() => source(page), (t) => /layer\.bias/.test(t));
  check('a scanned tensor is one click from being the sample', /layer\.bias · \[48\] · F32/.test(bias), JSON.stringify(bias));
  // Cancel: 48 tensors of 256 K elements through the six preset formats, stopped after the first few.
  const manyFile = join(SHOTS, 'many.safetensors');
  writeFileSync(manyFile, many(48, 1 << 18));
  await open(page, manyFile);
  await until(() => page.locator('[data-testid="tensor-list"] li').count(), (n) => n === 48);
  await page.locator('[data-testid="tensor-scan"]').click({ timeout: TIMEOUT_MS });
  await until(() => page.locator('[data-testid="tensor-scan-table"] tbody tr').count(), (n) => n >= 3);
  await page.locator('[data-testid="tensor-scan-cancel"]').click({ timeout: TIMEOUT_MS });
  const stopped = await until(() => page.locator('[data-testid="tensor-scan-progress"]').isVisible(), (v) => v === false);
  const partial = await page.locator('[data-testid="tensor-scan-table"] tbody tr').count();
  check('Cancel stops the scan with the rows done so far', stopped === false && partial >= 3 && partial < 48, String(partial));
  await open(page, FILE);
  await until(() => page.locator('[data-testid="tensor-list"] li').count(), (n) => n === 2);
  await page.locator('[data-testid="tensor-list"] li[data-name="layer.weight"] button').click({ timeout: TIMEOUT_MS });
  await until(() => source(page), (t) => /layer\.weight/.test(t));
}

// The Train view's "Inspect weights": a layer's latent weights become the explorer's sample.
async function inspectWeights(context, url) {
  const page = await context.newPage();
  await page.goto(url + "#view=train&dataset=xor&hidden=6&wq=qkeras.quantized_bits(2,0,1,alpha='auto')&seed=3", { waitUntil: 'load', timeout: TIMEOUT_MS });
  for (let i = 0; i < 3; i++) await page.locator('[data-testid="train-step"]').click({ timeout: TIMEOUT_MS });
  await page.locator('[data-testid="train-inspect-layer"]').selectOption('0');
  await page.locator('[data-testid="train-inspect"]').click({ timeout: TIMEOUT_MS });
  const got = await until(() => source(page), (t) => /trainer/.test(t));
  check('Inspect weights opens the explorer on the layer\'s latent weights', /trainer · hidden 1 weights · \[2, 6\] · F32/.test(got), JSON.stringify(got));
  const hash = await hashOf(page);
  check('with the layer\'s weight quantizer selected and the names in the link', /^#q=qkeras\.quantized_bits\(bits=2,.*alpha='auto'\).*&file=trainer&tensor=hidden 1 weights$/.test(hash), JSON.stringify(hash));
  const note = await until(() => text(page, 'frozen-note').catch(() => ''), (t) => /channel/.test(t));
  check('its per-output-channel scales are QKeras\' for a Dense kernel', /channel 0 of 6 \(axis 1\)/.test(note), JSON.stringify(note));
  await page.close();
}

/** The drawn channel: typed, then clicked on the strip; the curve, levels, Explain and link follow. */
async function channelPick(page) {
  const scaleOf = async () => Number((await text(page, 'sample-numbers').catch(() => '')).match(/scale ([\d.e−-]+)/)?.[1].replace('−', '-'));
  const scale0 = await scaleOf();
  await page.locator('[data-testid="sample-channel"]').fill('5');
  await page.locator('[data-testid="sample-channel"]').press('Enter');
  const hash = await until(() => hashOf(page), (h) => /channel=5/.test(h));
  check('typing a channel puts it in the link', /&channel=5$/.test(hash), JSON.stringify(hash));
  const note = await until(() => text(page, 'frozen-note').catch(() => ''), (t) => /channel 5/.test(t));
  check('the curve is drawn for that channel', /Drawn for channel 5 of 48 \(axis 1\)/.test(note), JSON.stringify(note));
  const scale5 = await until(scaleOf, (v) => v !== scale0);
  check('the outlier channel 5 has its own, larger scale', scale5 > 4 * scale0, JSON.stringify([scale0, scale5]));
  const ticks = await text(page, 'histogram-ticks').catch(() => '');
  check('the histogram marks that channel\'s levels', /ticks: the levels of channel 5/.test(ticks), JSON.stringify(ticks));
  const drawn = await text(page, 'channel-drawn').catch(() => '');
  check('the strip reads out the drawn channel', /^channel 5 -?[\d.]+ dB \(max \|x\| [\d.]+, scale [\d.e−-]+\)$/.test(drawn), JSON.stringify(drawn));
  const explain = await text(page, 'explain').catch(() => '');
  check('Explain takes its statistic from that channel', /of channel 5 \(axis 1\) of the sample/.test(explain), JSON.stringify(explain.slice(0, 300)));
  const box = await page.locator('[data-testid="channel-canvas"]').boundingBox();
  await page.locator('[data-testid="channel-canvas"]').click({ position: { x: (10.5 * box.width) / 48, y: box.height / 2 } });
  const clicked = await until(() => hashOf(page), (h) => /channel=10/.test(h));
  check('a click on the strip picks the channel under it', /&channel=10$/.test(clicked), JSON.stringify([clicked, box.width]));
}

async function run(context, url) {
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'load', timeout: TIMEOUT_MS });
  const before = await until(() => source(page), (t) => /synthetic/.test(t));
  check('the sample starts synthetic', /^Sample: synthetic: 1000 × normal/.test(before), JSON.stringify(before));

  await open(page, FILE);
  const names = await until(
    () => page.locator('[data-testid="tensor-list"] li').evaluateAll((li) => li.map((l) => [l.dataset.name, l.innerText])),
    (r) => r.length === 2,
  );
  check('the file lists its two tensors with dtype, shape and size', names.length === 2 &&
    names.some(([n, t]) => n === 'layer.weight' && /BF16 · \[64, 48\] · 3 K/.test(t)) &&
    names.some(([n, t]) => n === 'layer.bias' && /F32 · \[48\] · 48/.test(t)), JSON.stringify(names));

  await page.locator('[data-testid="tensor-list"] li[data-name="layer.weight"] button').click({ timeout: TIMEOUT_MS });
  const picked = await until(() => source(page), (t) => /layer\.weight/.test(t));
  check('the picked tensor is the sample: file, tensor, shape, dtype', /weights\.safetensors · layer\.weight · \[64, 48\] · BF16/.test(picked), JSON.stringify(picked));
  const hash = await until(() => hashOf(page), (h) => /tensor=/.test(h));
  check('the link records the file and tensor names', /&file=weights\.safetensors&tensor=layer\.weight$/.test(hash), JSON.stringify(hash));

  // The Quality panel and the format comparison against the CLI on the same tensor.
  const expected = cli('layer.weight', [SPEC]);
  const shown = await until(() => page.locator('[data-testid="sqnr"] dd').first().innerText().catch(() => ''), (t) => /dB/.test(t));
  if (expected) {
    const want = expected.get(SPEC);
    check('the Quality panel shows the CLI\'s SQNR for the tensor', want && shown === `${(Math.round(want.sqnr * 10) / 10)} dB`, JSON.stringify([shown, want]));
  }
  // Channel by channel: the outlier column (output channel 5, ×12) is named.
  const strip = await until(() => text(page, 'channel-strip').catch(() => ''), (t) => /channels along axis/.test(t));
  check('the channel strip covers the 48 output channels', /48 channels along axis 1/.test(strip), JSON.stringify(strip.slice(0, 80)));
  const outl = await text(page, 'channel-outliers').catch(() => '');
  check('the outlier channel is named with its ratio to the median', /outlier channels .*: 5 \(\d+\.\d×\)$/.test(outl), JSON.stringify(outl));
  const worstText = await text(page, 'channel-worst').catch(() => '');
  check('the worst channels are listed with their SQNR', /^worst: channel \d+ -?[\d.]+ dB/.test(worstText), JSON.stringify(worstText));

  // The channel axis: axis 0 makes each row a channel; the CLI's --axis 0 agrees.
  await page.locator('[data-testid="tensor-axis"]').selectOption('0');
  const hash0 = await until(() => hashOf(page), (h) => /axis=0/.test(h));
  check('choosing channel axis 0 goes into the link', /&axis=0$/.test(hash0), JSON.stringify(hash0));
  const want0 = cli('layer.weight', ['--axis', '0', SPEC]);
  const shown0 = await until(() => page.locator('[data-testid="sqnr"] dd').first().innerText().catch(() => ''), (t) => t !== shown);
  if (want0) {
    const w = want0.get(SPEC);
    check('the Quality panel follows the axis as qscope compare --axis does', w && shown0 === `${Math.round(w.sqnr * 10) / 10} dB`, JSON.stringify([shown0, w]));
  }
  await page.locator('[data-testid="tensor-axis"]').selectOption('1');
  await until(() => hashOf(page), (h) => !/axis=/.test(h));
  await page.locator('[data-testid="compare-formats"]').click({ timeout: TIMEOUT_MS });
  const table = await until(
    () => page.locator('[data-testid="formats-table"] tbody tr').evaluateAll((tr) => tr.map((r) => [r.querySelector('code').title, ...[...r.querySelectorAll('td.num')].map((td) => td.innerText)])),
    (r) => r.length >= 4,
  );
  const preset = cli('layer.weight', []);
  if (preset) {
    const mismatched = table.filter(([spec, bits, , mse]) => !preset.has(spec) || preset.get(spec).mse !== mse || preset.get(spec).bits !== bits);
    check('"which format?" on the tensor gives the CLI\'s bits and MSE for every preset format', table.length === preset.size && mismatched.length === 0, JSON.stringify({ mismatched, table }));
  }
  const subtitle = await page.locator('[data-testid="formats-panel"]').innerText();
  check('the comparison says it ran on the tensor', !/1000 × normal/.test(await text(page, 'sqnr').catch(() => '')) && table.length > 0, subtitle.slice(0, 80));
  await page.locator('[data-testid="sample-panel"]').screenshot({ path: join(SHOTS, 'tensor-picked-1360.png') });
  await audit(page, 'the explorer with a tensor as the sample');

  await scanAll(page);

  // A malformed file, then a PyTorch pickle: named, and the tensor stays the sample.
  await open(page, { name: 'broken.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.concat([Buffer.from([64, 0, 0, 0, 0, 0, 0, 0]), Buffer.from('{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}')]) });
  const broken = await until(() => text(page, 'tensor-error').catch(() => ''), (t) => t.trim() !== '');
  check('a malformed file is named with its problem', /broken\.safetensors: safetensors: the header says it is 64 bytes/.test(broken), JSON.stringify(broken));
  check('and the previous sample stays', /layer\.weight/.test(await source(page)));
  await open(page, { name: 'model.pt', mimeType: 'application/octet-stream', buffer: Buffer.from([0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e]) });
  const pickle = await until(() => text(page, 'tensor-error').catch(() => ''), (t) => /pickle/.test(t));
  check('a PyTorch checkpoint is named with the Python line that writes safetensors', /pickle/.test(pickle) && /save_file/.test(pickle), JSON.stringify(pickle));
  const huge = await page.evaluate(() => document.documentElement.scrollWidth);
  check('a long message does not widen the page', huge <= 1360, String(huge));

  // The link without the file: which file to open; everything else kept; opening it restores.
  const again = await context.newPage();
  await again.goto(url + '#q=qkeras.quantized_bits(bits=3)&file=weights.safetensors&tensor=layer.weight', { waitUntil: 'load', timeout: TIMEOUT_MS });
  const missing = await until(() => text(again, 'tensor-missing').catch(() => ''), (t) => t.trim() !== '');
  check('a link naming a file the page has not read says which file and tensor to open', /tensor layer\.weight of weights\.safetensors: open that file again/.test(missing), JSON.stringify(missing));
  check('meanwhile the synthetic sample is shown and the link keeps its names', /synthetic/.test(await source(again)) && /file=weights\.safetensors/.test(await hashOf(again)));
  await open(again, FILE);
  const restored = await until(() => source(again), (t) => /layer\.weight/.test(t));
  check('opening that file picks the link\'s tensor', /weights\.safetensors · layer\.weight/.test(restored) && (await text(again, 'tensor-missing').catch(() => '')).trim() === '', JSON.stringify(restored));
  await again.goto(url + "#q=qkeras.quantized_bits(4,0,1,alpha='auto')&file=weights.safetensors&tensor=layer.weight", { waitUntil: 'load', timeout: TIMEOUT_MS });
  await open(again, FILE);
  const note = await until(() => text(again, 'frozen-note').catch(() => ''), (t) => /channel/.test(t));
  check('a per-channel quantizer\'s curve says which channel it is drawn for', /Drawn for channel 0 of 48 \(axis 1\) of the sample tensor/.test(note), JSON.stringify(note));
  const gran = await text(again, 'tensor-granularity').catch(() => '');
  check('the granularity says how the library groups the tensor and what sets it', /per channel: one scale for each of the 48 channels of axis 1 \(alpha sets it\)/.test(gran), JSON.stringify(gran));
  await channelPick(again);
  await again.goto(url + "#q=qkeras.quantized_bits(4,0,1,alpha='auto')&file=weights.safetensors&tensor=layer.weight&axis=0&channel=7", { waitUntil: 'load', timeout: TIMEOUT_MS });
  await open(again, FILE);
  const kept = await until(() => text(again, 'frozen-note').catch(() => ''), (t) => /channel \d+ of/.test(t));
  check('opening the file a link names keeps the link\'s axis and drawn channel', /Drawn for channel 7 of 64 \(axis 0\)/.test(kept) && /&axis=0&channel=7$/.test(await hashOf(again)), JSON.stringify(kept));
  await again.setViewportSize({ width: 390, height: 844 });
  await again.locator('[data-testid="sample-panel"]').scrollIntoViewIfNeeded();
  const phone = await again.evaluate(() => document.documentElement.scrollWidth);
  check('on a phone the tensor controls fit the width', phone <= 390, String(phone));
  await again.screenshot({ path: join(SHOTS, 'tensor-390.png') });
  await again.close();

  await inspectWeights(context, url);

  await page.locator('[data-testid="tensor-back"]').click({ timeout: TIMEOUT_MS });
  const back = await until(() => source(page), (t) => /synthetic/.test(t));
  const hashBack = await hashOf(page);
  check('"Back to the synthetic sample" is one click and drops the names from the link', /synthetic/.test(back) && !/file=|tensor=/.test(hashBack), JSON.stringify([back, hashBack]));
  await page.close();
}

main(run);
