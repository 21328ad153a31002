// End-to-end test of the Train view: serves the release build (dist/) on 127.0.0.1, drives
// Debian's chromium with playwright-core, trains 2-8-8-1 on xor with 4-bit weights and checks
// what a user sees; then the STE swap mid-run, the STE twin, per-layer quantizers, the latent /
// quantized toggle, MXFP4 and NF4 weights, a diverging run, prefers-reduced-motion, the dark theme
// and axe-core's audit (no violation, light and dark), the pace (epochs per second, changed
// while playing), Step by batch, the one-batch walkthrough, and that the `qscope train`
// command the page shows gives the page's numbers to the last digit (needs target/debug/qscope
// or $QSCOPE_BIN: `cargo build --bin qscope`).
//
//   trunk build --release && node tests/e2e/train.mjs
//
// Prints `N passed, M failed` and exits non-zero on any failure. Screenshots: target/e2e/train.png,
// train-batch.png and train-batch-phone.png (390 × 844).
// Environment: QSCOPE_DIST (default dist), CHROMIUM (default /usr/bin/chromium).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, SHOTS, TIMEOUT_MS, canvasStats, check, inked, main, text, until } from './common.mjs';
import { audit, tabWalk } from './audit.mjs';
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
  check('one histogram per layer (2 hidden + output)', (await page.locator('[data-testid="train-histogram"]').count()) === 3);

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
  await audit(page, 'the trainer (light, a spec error showing)');
  const walk = await tabWalk(page);
  check('keyboard: Tab reaches every visible control of the trainer, each with a focus outline', walk.count > 20 && walk.missed.length === 0 && walk.unseen.length === 0, `${walk.count} controls; missed: ${walk.missed.join(', ')}; no outline: ${walk.unseen.join(', ')}`);

  // a bad link: a banner, defaults, a drawn page
  const other = await browser.newPage();
  other.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  await other.goto(url + '#view=train&dataset=nope&hidden=x&lr=-1', { waitUntil: 'load', timeout: TIMEOUT_MS });
  const fallback = await until(() => canvasStats(other, 'train-boundary'), inked);
  check('a bad link still draws with defaults', inked(fallback));
  check('a bad link shows a banner', (await other.locator('[data-testid="hash-errors"]').count()) === 1);
  await audit(other, 'the trainer with a link\'s problems');

  // a hand-edited link applies at once
  await other.evaluate(() => { location.hash = '#view=train&dataset=circle&hidden=4'; });
  const circle = await until(() => other.locator('[data-testid="train-histogram"]').count(), (n) => n === 2);
  check('a hand-edited link applies (one hidden layer + output)', circle === 2);

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

  const more = await browser.newPage();
  more.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  more.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
  });
  await steSwap(more, url);
  await twinAndLayers(more, url);
  await learnedSteps(more, url);
  await cliReproduces(more, url);
  await divergence(more, url);
  await hiddenTab(more, url);
  await pace(more, url);
  await stepByBatch(more, url);
  await oneBatch(more, url);
  await blockFormats(browser, url, errors);
  await reducedMotion(browser, url, errors);
  await dark(browser, url);

  let banners = 0;
  for (const p of [page, other, more]) banners += await p.locator('[data-testid="panic"]').count();
  check('no panic banner', banners === 0, `${banners}`);
  check('no console errors, page errors or failed requests', errors.length === 0, errors.join(' | '));
}

const hashOf = async (page) => decodeURIComponent(await page.evaluate(() => location.hash));
const attr = (page, id, name) => page.locator(`[data-testid="${id}"]`).getAttribute(name, { timeout: TIMEOUT_MS });

/** An LSQ net's learned steps read under its histograms, as `qscope train` prints them. */
async function learnedSteps(page, url) {
  await page.goto(url + '#view=train&dataset=circle&hidden=8,8&activation=tanh&wq=lsq(2)&aq=&optimizer=adam&lr=0.01&batch=10&seed=0', { waitUntil: 'load', timeout: TIMEOUT_MS });
  const captions = () => page.locator('[data-testid="train-learned"]').allInnerTexts();
  // qscope train --dataset circle --hidden 8,8 --activation tanh --wq 'lsq(2)' --optimizer adam --lr 0.01: "# learned at the start: hidden1_weights_step 0.6894958 hidden2_weights_step 0.6374936"
  const start = await until(captions, (c) => c[0]?.includes('step'));
  check('each LSQ layer shows its step before training, as qscope train prints it', start[0].includes('learned weights step 0.6895') && start[1].includes('learned weights step 0.6375') && start[2] === '', start.join(' | '));
  await click(page, 'train-step');
  // epoch 1: hidden1_weights_step 0.5346091
  const after = await until(captions, (c) => c[0]?.includes('0.5346'));
  check('after an epoch the step has learned what qscope train prints', after[0].includes('learned weights step 0.5346'), after.join(' | '));
}

/** Playing with ste_sign, picking approx_sign from the catalogue swaps it in without a reset. */
async function steSwap(page, url) {
  await page.goto(url + '#view=train&dataset=xor&hidden=8,8&wq=larq.ste_sign&play=1', { waitUntil: 'load', timeout: TIMEOUT_MS });
  const before = await until(() => epochOf(page), (e) => e >= 20);
  await page.locator('[data-testid="train-wq-pick"]').selectOption('larq.ApproxSign');
  await page.waitForTimeout(500);
  const after = await epochOf(page);
  check('an STE swap keeps training (no reset, no pause)', after > before && /Pause/.test(await text(page, 'train-play')), `${before} → ${after}`);
  check('the swap is marked on the curves', (await attr(page, 'train-marks', 'data-count')) === '2', 'w1 and w2 swapped');
  const swapped = await hashOf(page);
  check('the hash holds the new STE', swapped.includes('wq=larq.ApproxSign'), swapped);
  await click(page, 'train-play');
  // binary weights: the quantized diagram has one thickness, the latent one many
  const quantized = await canvasStats(page, 'train-diagram');
  await click(page, 'train-show-latent');
  const latent = await until(() => canvasStats(page, 'train-diagram'), (s) => s && s.hash !== quantized.hash);
  check('the latent / quantized toggle redraws the diagram', inked(quantized) && latent && latent.hash !== quantized.hash);
  await click(page, 'train-show-quantized');
}

/** The STE twin draws a third boundary; a per-layer override lands in the hash and the nets. */
async function twinAndLayers(page, url) {
  await page.goto(url + '#view=train&dataset=circle&hidden=6,6&wq=larq.ste_sign&twin_wq=larq.approx_sign', { waitUntil: 'load', timeout: TIMEOUT_MS });
  const twin = await until(() => canvasStats(page, 'train-boundary-twin'), inked);
  check('the STE twin has its own boundary', inked(twin));
  await click(page, 'train-step');
  await until(() => epochOf(page), (e) => e === 1);
  const accs = await Promise.all(['', '-float', '-twin'].map((s) => attr(page, `train-acc-test${s}`, 'data-exact')));
  check('all three nets report metrics', accs.every((a) => Number(a) >= 0 && Number(a) <= 1), accs.join(', '));
  await page.locator('[data-testid="train-per-layer"] summary').click();
  await page.locator('[data-testid="train-wq-2"]').fill('qkeras.quantized_bits(2,0,1)');
  await page.locator('[data-testid="train-wq-2"]').press('Enter');
  const hash = await until(() => hashOf(page), (h) => h.includes('wq2=qkeras.quantized_bits(2,0,1)'));
  check('a per-layer quantizer goes into the hash', hash.includes('wq2=qkeras.quantized_bits(2,0,1)') && hash.includes('wq=larq.ste_sign'), hash);
  await audit(page, 'the trainer with the STE twin and per-layer quantizers open');
  check('the per-layer swap is marked', Number(await attr(page, 'train-marks', 'data-count')) >= 1);
  check('the command shows the per-layer quantizer', (await text(page, 'train-command')).includes("--wq2 'qkeras.quantized_bits(2,0,1)'"));
  // a quantizer as the activation (QActivation)
  await page.locator('[data-testid="train-activation"]').selectOption('quantizer');
  const act = await until(() => hashOf(page), (h) => h.includes('activation=qkeras.quantized_relu(4,2)'));
  check('a quantizer can be the activation', act.includes('activation=qkeras.quantized_relu(4,2)') && (await page.locator('[data-testid="train-activation-spec"]').inputValue()) === 'qkeras.quantized_relu(4,2)', act);
  await click(page, 'train-step');
  const actEpoch = await until(() => epochOf(page), (e) => e === 1);
  check('a net with a quantizer activation trains', actEpoch === 1 && Number(await attr(page, 'train-loss-test', 'data-exact')) > 0);
}

/** Splits a POSIX shell line of bare words, '…' strings and \' (as the page quotes). */
function shellWords(line) {
  const words = [];
  let word = '', quoted = false, any = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '\\' && !quoted) { word += line[++i] ?? ''; any = true; }
    else if (c === "'") { quoted = !quoted; any = true; }
    else if (c === ' ' && !quoted) { if (any) words.push(word); word = ''; any = false; }
    else { word += c; any = true; }
  }
  if (any) words.push(word);
  return words;
}

/** The page's numbers after 3 epochs equal what its `qscope train` command prints. */
async function cliReproduces(page, url) {
  const link = "#view=train&dataset=spiral&hidden=8,6&wq=qkeras.quantized_bits(4,0,1,alpha='auto')&wq2=larq.ste_sign" +
    '&aq=qkeras.quantized_tanh(4)&qo=1&features=x1,x2,sinx1&ratio=0.6&l2=0.001&weight_clip=0.5&lr=0.01&batch=5&optimizer=adam&seed=7&noise=0.1';
  await page.goto(url + link, { waitUntil: 'load', timeout: TIMEOUT_MS });
  for (let i = 1; i <= 3; i++) {
    await click(page, 'train-step');
    await until(() => epochOf(page), (e) => e === i);
  }
  const bin = process.env.QSCOPE_BIN ?? join(ROOT, 'target/debug/qscope');
  if (!check(`the native CLI exists (${bin})`, existsSync(bin))) return;
  const words = shellWords(await text(page, 'train-command'));
  check('the page shows a qscope train command for 3 epochs', words[0] === 'qscope' && words[1] === 'train' && words.at(-1) === '3', words.join(' '));
  check('the command carries the weight clip', words.join(' ').includes('--weight-clip 0.5'), words.join(' '));
  check('the weight clip control shows it', (await page.locator('[data-testid="train-weight-clip"]').inputValue()) === '0.5');
  const r = spawnSync(bin, [...words.slice(1), '--json'], { encoding: 'utf8' });
  if (!check('the command runs', r.status === 0, r.stderr)) return;
  const last = JSON.parse(r.stdout.trim().split('\n').at(-1));
  const page3 = {
    test_loss: await attr(page, 'train-loss-test', 'data-exact'),
    test_acc: await attr(page, 'train-acc-test', 'data-exact'),
  };
  // JSON.parse reads both as the same double: equal doubles print the same shortest text.
  check('the browser and the CLI give the same test loss, bit for bit', Number(page3.test_loss) === last.test_loss, `${page3.test_loss} vs ${last.test_loss}`);
  check('the browser and the CLI give the same test accuracy', Number(page3.test_acc) === last.test_acc, `${page3.test_acc} vs ${last.test_acc}`);
}

/** A diverging run pauses with a message naming the cause. */
async function divergence(page, url) {
  await page.goto(url + '#view=train&dataset=xor&hidden=8,8&activation=linear&wq=&aq=&optimizer=sgd&loss=bce&lr=10&play=1', { waitUntil: 'load', timeout: TIMEOUT_MS });
  const message = await until(() => page.locator('[data-testid="train-message"]').count(), (n) => n === 1);
  const said = message === 1 ? await text(page, 'train-message') : '';
  check('a NaN loss pauses training with a clear message', /diverged/.test(said) && /NaN/.test(said) && /Play/.test(await text(page, 'train-play')), said);
  const e = await epochOf(page);
  await page.waitForTimeout(300);
  check('a diverged run stays paused', (await epochOf(page)) === e);
}

/** Hiding the tab pauses training, with a message. */
async function hiddenTab(page, url) {
  await page.goto(url + '#view=train&dataset=circle&hidden=4&play=1', { waitUntil: 'load', timeout: TIMEOUT_MS });
  await until(() => epochOf(page), (e) => e > 3);
  await page.evaluate(() => {
    Object.defineProperty(document, 'hidden', { value: true, configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  const said = await until(() => page.locator('[data-testid="train-message"]').innerText().catch(() => ''), (t) => t.length > 0);
  check('hiding the tab pauses training', /hidden/.test(said) && /Play/.test(await text(page, 'train-play')), said);
  await page.evaluate(() => { delete document.hidden; });
}

/** Opens a Train view link on a fresh page (a same-page hash edit would keep the running nets). */
async function open(page, link) {
  await page.goto('about:blank');
  await page.goto(link, { waitUntil: 'load', timeout: TIMEOUT_MS });
  await until(() => canvasStats(page, 'train-boundary'), inked);
}

/** Batches trained so far and batches per epoch, with the page's clock, in one read. */
const batches = (page) => page.evaluate(() => {
  const e = document.querySelector('[data-testid="train-batches"]');
  return { t: performance.now(), steps: Number(e.dataset.steps), perEpoch: Number(e.dataset.perEpoch) };
});

/** Epochs per second over `ms` of play (batches count, so fractions of epochs count). */
async function measuredPace(page, ms) {
  const a = await batches(page);
  await page.waitForTimeout(ms);
  const b = await batches(page);
  return (b.steps - a.steps) / a.perEpoch / ((b.t - a.t) / 1000);
}

/** `pace=N` trains N epochs a second (± 30 %); changing the pace while playing takes effect at once. */
async function pace(page, url) {
  await open(page, url + '#view=train&dataset=xor&hidden=8,8&pace=20');
  check('the pace control shows the link\'s pace', (await page.locator('[data-testid="train-pace"]').inputValue()) === '20');
  const label = await page.locator('label:has([data-testid="train-pace"])').innerText();
  check('the pace control is labelled', /^pace/.test(label), label.split('\n')[0]);
  await click(page, 'train-play');
  await page.waitForTimeout(300);
  const rates = {};
  for (const n of [20, 5, 1, 100]) {
    if (n !== 20) {
      const before = await epochOf(page);
      await page.locator('[data-testid="train-pace"]').selectOption(String(n));
      await page.waitForTimeout(300);
      check(`switching to pace ${n} keeps playing, no reset`, /Pause/.test(await text(page, 'train-play')) && (await epochOf(page)) >= before);
    }
    rates[n] = await measuredPace(page, 3000);
    check(`pace=${n} trains ${n} ± 30 % epochs/s`, Math.abs(rates[n] - n) <= 0.3 * n, `${rates[n].toFixed(2)} epochs/s`);
  }
  check('changing the pace while playing changes the rate', rates[5] < rates[20] / 2 && rates[1] < rates[5] / 2 && rates[100] > rates[20] * 2, JSON.stringify(rates));
  check('the hash holds the pace', (await hashOf(page)).includes('&pace=100'), await hashOf(page));
  await page.locator('[data-testid="train-pace"]').selectOption('max');
  const max = await measuredPace(page, 1500);
  check('pace max trains faster than 100 epochs/s and leaves the hash', max > rates[100] && !(await hashOf(page)).includes('pace='), `${max.toFixed(0)} epochs/s`);
  await click(page, 'train-play');
  // Keyboard: the pace control is reachable by Tab from the Step button.
  await page.locator('[data-testid="train-reset"]').focus();
  await page.keyboard.press('Tab');
  check('the pace control is keyboard reachable', await page.evaluate(() => document.activeElement?.dataset.testid === 'train-pace'));
}

/** `stepby=batch`: Step trains one batch; by epoch it trains to the end of the epoch. */
async function stepByBatch(page, url) {
  await open(page, url + '#view=train&dataset=xor&hidden=8,8&stepby=batch');
  await click(page, 'train-step');
  const one = await until(() => batches(page), (b) => b.steps === 1);
  check('Step by batch trains one batch', one.steps === 1 && (await epochOf(page)) === 0 && (await text(page, 'train-batches')) === `1/${one.perEpoch}`, await text(page, 'train-batches'));
  await page.locator('[data-testid="train-stepby"]').selectOption('epoch');
  await click(page, 'train-step');
  const rest = await until(() => batches(page), (b) => b.steps === one.perEpoch);
  check('Step by epoch then trains to the end of the epoch', rest.steps === one.perEpoch && (await epochOf(page)) === 1 && (await text(page, 'train-batches')) === `0/${one.perEpoch}`, `${rest.steps} batches`);
}

// Shortest float32 text read back as float32 (as a double it would be another number).
const exact = async (page, key) => Math.fround(Number(await attr(page, `train-batch-${key}`, 'data-exact')));

/** "Show one batch": the exact numbers of one weight through one step; every net takes the batch. */
async function oneBatch(page, url) {
  const link = url + '#view=train&dataset=xor&hidden=8,8';
  await open(page, link);
  await click(page, 'train-batch-step');
  await until(() => page.locator('[data-testid="train-batch-latent-after"]').count(), (n) => n === 1);
  const v = {};
  for (const key of ['latent-before', 'q-before', 'grad-q', 'ste', 'grad-w', 'update', 'latent-after', 'q-after']) v[key] = await exact(page, key);
  check('the walkthrough shows every number', Object.values(v).every(Number.isFinite), JSON.stringify(v));
  check('latent after = latent before + update (float32)', Math.fround(v['latent-before'] + v.update) === v['latent-after'], JSON.stringify(v));
  check('∂L/∂w = ∂L/∂q · STE factor (float32)', Math.fround(v['grad-q'] * v.ste) === v['grad-w']);
  const flipped = await attr(page, 'train-batch-flipped', 'data-exact');
  check('"flipped level" says whether q(w) changed', flipped === (v['q-before'] !== v['q-after'] ? 'yes' : 'no'), flipped);
  check('q(w) is a 4-bit level', Number.isInteger(v['q-after'] * 8) && Math.abs(v['q-after']) <= 1, String(v['q-after']));
  check('one batch is one step', (await batches(page)).steps === 1 && (await epochOf(page)) === 0);
  const summary = await text(page, 'train-batch-summary');
  check('the summary names the weight and its layer', /^weight \d+ → \d+ of hidden layer 1: w /.test(summary), summary);
  // Follow the same weight.
  await page.locator('[data-testid="train-batch-keep"]').check();
  await click(page, 'train-batch-step');
  const same = await until(() => text(page, 'train-batch-summary'), (s) => s !== summary);
  check('"keep this weight" follows the same weight', same.split(':')[0] === summary.split(':')[0] && (await exact(page, 'latent-before')) === v['latent-after'], same);
  await page.locator('[data-testid="train-batch-layer"]').selectOption('2');
  await click(page, 'train-batch-step');
  const out = await until(() => text(page, 'train-batch-summary'), (s) => s.includes('output layer'));
  check('another layer can be walked (the float output layer)', out.includes('output layer') && (await exact(page, 'ste')) === 1, out);
  await page.locator('[data-testid="train-batch"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SHOTS, 'train-batch.png'), fullPage: true });
  // Lockstep: three walked batches and Step (to the end of the epoch) give every net what a plain epoch gives.
  await click(page, 'train-step');
  await until(() => epochOf(page), (e) => e === 1);
  const walked = await Promise.all(['', '-float'].map((s) => attr(page, `train-loss-test${s}`, 'data-exact')));
  await open(page, link);
  await click(page, 'train-step');
  await until(() => epochOf(page), (e) => e === 1);
  const plain = await Promise.all(['', '-float'].map((s) => attr(page, `train-loss-test${s}`, 'data-exact')));
  check('walked batches keep every net in lockstep (same epoch as plain steps, bit for bit)', walked[0] === plain[0] && walked[1] === plain[1], `${walked} vs ${plain}`);
  // A phone: the panel fits its width.
  await page.setViewportSize({ width: 390, height: 844 });
  await click(page, 'train-batch-step');
  await until(() => page.locator('[data-testid="train-batch-latent-after"]').count(), (n) => n === 1);
  const fit = await page.evaluate(() => {
    const e = document.querySelector('[data-testid="train-batch"]');
    const r = e.getBoundingClientRect();
    return { scroll: e.scrollWidth, client: e.clientWidth, right: r.right };
  });
  check('on a 390 px phone the panel does not overflow', fit.scroll <= fit.client, JSON.stringify(fit));
  await page.locator('[data-testid="train-batch"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SHOTS, 'train-batch-phone.png') });
  await page.setViewportSize({ width: 1360, height: 860 });
}

/** Block formats as weight quantizers (blocks along each layer's input dimension): fresh MXFP4 and NF4 nets learn xor. */
async function blockFormats(browser, url, errors) {
  for (const [name, wq] of [['MXFP4', "torchao.mx(elem_dtype='fp4_e2m1')"], ['NF4', 'bnb.nf4(blocksize=64)']]) {
    const page = await browser.newPage();
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
    });
    await page.goto(url + `#view=train&dataset=xor&hidden=8,8&wq=${encodeURIComponent(wq)}&play=1`, { waitUntil: 'load', timeout: TIMEOUT_MS });
    check(`the ${name} weight spec is taken from the link`, (await page.locator('[data-testid="train-wq"]').inputValue()) === wq);
    const epoch = await until(() => epochOf(page), (e) => e >= 100, 20_000);
    await click(page, 'train-play');
    const acc = Number((await text(page, 'train-acc-test')).replace('%', ''));
    check(`a fresh net with ${name} weights learns xor (test accuracy ≥ 90 % after ${epoch} epochs)`, epoch >= 100 && acc >= 90, `${acc} %`);
    check(`the ${name} net's diagram is drawn`, inked(await canvasStats(page, 'train-diagram')));
    check(`the ${name} net has no panic banner`, (await page.locator('[data-testid="panic"]').count()) === 0);
    await page.screenshot({ path: join(SHOTS, `train-${name.toLowerCase()}.png`), fullPage: true });
    await page.close();
  }
}

/** prefers-reduced-motion: play=1 does not start training by itself, and nothing on the page
 * animates (the stylesheet turns every transition and animation off). */
async function reducedMotion(context, url, errors) {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(url + '#view=train&dataset=circle&hidden=4&play=1', { waitUntil: 'load', timeout: TIMEOUT_MS });
  await until(() => canvasStats(page, 'train-boundary'), inked);
  await page.waitForTimeout(500);
  check('with prefers-reduced-motion, play=1 waits for the user', (await epochOf(page)) === 0 && /Play/.test(await text(page, 'train-play')));
  await click(page, 'train-step');
  await until(() => epochOf(page), (e) => e === 1);
  const motion = await page.evaluate(() => ({
    running: document.getAnimations().length,
    transitions: [...document.querySelectorAll('button, a, input, select, summary')].filter((el) => {
      const st = getComputedStyle(el);
      return st.transitionDuration.split(',').some((d) => parseFloat(d) > 0) || st.animationName !== 'none' && parseFloat(st.animationDuration) > 0;
    }).length,
  }));
  check('with prefers-reduced-motion nothing animates or transitions', motion.running === 0 && motion.transitions === 0, JSON.stringify(motion));
  await page.close();
}

/** The trainer in the dark theme passes the audit. */
async function dark(context, url) {
  const page = await context.newPage();
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(url + '#view=train&dataset=xor&hidden=8,8&wq=larq.ste_sign&twin_wq=larq.approx_sign', { waitUntil: 'load', timeout: TIMEOUT_MS });
  await until(() => canvasStats(page, 'train-boundary-twin'), inked);
  await audit(page, 'the trainer (dark)');
  await page.screenshot({ path: join(SHOTS, 'train-dark.png'), fullPage: true });
  await page.close();
}

await main(run);
