// End-to-end test of the explorer: serves the release build (dist/) on 127.0.0.1, drives
// Debian's chromium with playwright-core and checks what a user sees (the server is
// scripts/static-server.mjs, the one `scripts/dev serve` uses).
//
//   trunk build --release && node tests/e2e/explorer.mjs
//
// Prints `N passed, M failed` and exits non-zero on any failure. Screenshots go to target/e2e/.
// Environment: QSCOPE_DIST (default dist), CHROMIUM (default /usr/bin/chromium).

import { mkdtempSync, mkdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/static-server.mjs';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const DIST = resolve(ROOT, process.env.QSCOPE_DIST ?? 'dist');
const SHOTS = join(ROOT, 'target', 'e2e');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const TIMEOUT_MS = 10_000;

const FIRST = 'qkeras.quantized_bits(4,0,1)';
const SECOND = 'qkeras.quantized_bits(2,0,1)';
const BAD = 'qkeras.quantized_bits(bits=0)';

// ── checks ───────────────────────────────────────────────────────────
const results = [];
function check(name, pass, detail = '') {
  results.push({ name, pass: Boolean(pass) });
  console.log(`${pass ? 'ok  ' : 'FAIL'}  ${name}${detail ? ` — ${detail}` : ''}`);
}

// Pixel statistics of a canvas: size, CSS size, a hash of its pixels, and how many pixels
// differ from the top-left (background) pixel.
async function canvasStats(page, testid) {
  return page.evaluate((id) => {
    const c = document.querySelector(`[data-testid="${id}"]`);
    if (!c) return null;
    const ctx = c.getContext('2d');
    if (!c.width || !c.height) return { width: 0, height: 0, ink: 0, hash: 0 };
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let hash = 0x811c9dc5;
    let ink = 0;
    const [r0, g0, b0, a0] = [d[0], d[1], d[2], d[3]];
    for (let i = 0; i < d.length; i += 4) {
      if (d[i] !== r0 || d[i + 1] !== g0 || d[i + 2] !== b0 || d[i + 3] !== a0) ink++;
      hash = Math.imul(hash ^ d[i], 16777619) ^ d[i + 1];
      hash = Math.imul(hash ^ d[i + 2], 16777619) ^ d[i + 3];
    }
    return {
      width: c.width,
      height: c.height,
      cssWidth: c.clientWidth,
      cssHeight: c.clientHeight,
      background: [r0, g0, b0, a0],
      ink,
      hash: hash >>> 0,
    };
  }, testid);
}

// Polls `probe` until `done(value)` holds or the timeout passes; returns the last value.
async function until(probe, done, timeout = TIMEOUT_MS) {
  const end = Date.now() + timeout;
  let v = await probe();
  while (!done(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    v = await probe();
  }
  return v;
}

const text = (page, id) => page.locator(`[data-testid="${id}"]`).innerText({ timeout: TIMEOUT_MS });
const inked = (s) => s && s.ink > 0.01 * s.width * s.height;

async function applySpec(page, spec) {
  const input = page.locator('[data-testid="spec-input"]');
  await input.fill(spec, { timeout: TIMEOUT_MS });
  await input.press('Enter', { timeout: TIMEOUT_MS });
}

async function run(browser, url) {
  const errors = [];
  const wasmTypes = [];
  const watch = (page) => {
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
    page.on('response', (r) => {
      if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`);
      if (r.url().endsWith('.wasm')) wasmTypes.push(r.headers()['content-type']);
    });
  };

  // ── light theme, 2× device pixels ──
  const page = await browser.newPage();
  watch(page);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(url, { waitUntil: 'load', timeout: TIMEOUT_MS });

  const title = await page.locator('.brand').innerText({ timeout: TIMEOUT_MS }).catch(() => '');
  check('the title bar says qscope', title.trim() === 'qscope', JSON.stringify(title));

  const input = await page.locator('[data-testid="spec-input"]').inputValue({ timeout: TIMEOUT_MS }).catch(() => '');
  check('the spec field starts with the default spec', input === FIRST, JSON.stringify(input));

  const fwd0 = await until(() => canvasStats(page, 'plot-forward'), inked);
  const bwd0 = await until(() => canvasStats(page, 'plot-backward'), inked);
  check('the forward canvas has pixels drawn', inked(fwd0), JSON.stringify(fwd0 && { ink: fwd0.ink, w: fwd0.width, h: fwd0.height }));
  check('the backward canvas has pixels drawn', inked(bwd0), JSON.stringify(bwd0 && { ink: bwd0.ink, w: bwd0.width, h: bwd0.height }));
  const dpr = await page.evaluate(() => window.devicePixelRatio);
  check(
    'the canvases are sized by devicePixelRatio (crisp on HiDPI)',
    dpr === 2 && fwd0 && fwd0.width === Math.round(fwd0.cssWidth * dpr) && fwd0.height === Math.round(fwd0.cssHeight * dpr),
    JSON.stringify(fwd0 && { dpr, backing: [fwd0.width, fwd0.height], css: [fwd0.cssWidth, fwd0.cssHeight] }),
  );
  check(
    'the light theme draws on a light background',
    fwd0 && fwd0.background.slice(0, 3).every((v) => v > 200),
    JSON.stringify(fwd0?.background),
  );

  const levels0 = await until(() => text(page, 'levels').catch(() => ''), (t) => /\d+ levels/.test(t));
  check('the levels readout shows 15 levels for 4 bits', /^15 levels\b/.test(levels0), JSON.stringify(levels0));
  const canonical0 = await text(page, 'canonical').catch(() => '');
  check('the canonical spec is shown', canonical0 === 'qkeras.quantized_bits(bits=4, symmetric=True)', JSON.stringify(canonical0));
  const formula = await text(page, 'formula-forward').catch(() => '');
  check('the forward formula is shown', formula.trim().length > 3, JSON.stringify(formula));
  await page.screenshot({ path: join(SHOTS, 'explorer-light.png') });

  // ── a different spec ──
  await applySpec(page, SECOND);
  const levels1 = await until(() => text(page, 'levels').catch(() => ''), (t) => t !== levels0);
  check('a new spec + Enter updates the levels readout', /^3 levels\b/.test(levels1), `${JSON.stringify(levels0)} → ${JSON.stringify(levels1)}`);
  const fwd1 = await until(() => canvasStats(page, 'plot-forward'), (s) => s && s.hash !== fwd0.hash);
  check('a new spec + Enter redraws the forward canvas', fwd1 && fwd1.hash !== fwd0.hash && inked(fwd1), JSON.stringify(fwd1 && { ink: fwd1.ink }));
  const err1 = await text(page, 'spec-error').catch(() => 'missing');
  check('a good spec shows no error', err1.trim() === '', JSON.stringify(err1));

  // ── a bad spec: the error shows, the figure stays ──
  await applySpec(page, BAD);
  const err2 = await until(() => text(page, 'spec-error').catch(() => ''), (t) => t.trim() !== '');
  check('a bad spec shows the parse error beside the field', /bits/.test(err2) && /range|expected/.test(err2), JSON.stringify(err2));
  await page.waitForTimeout(300); // give a (wrong) redraw the chance to happen
  const fwd2 = await canvasStats(page, 'plot-forward');
  check('a bad spec keeps the forward canvas as it was', fwd2 && fwd2.hash === fwd1.hash && inked(fwd2), JSON.stringify(fwd2 && { ink: fwd2.ink }));
  const levels2 = await text(page, 'levels').catch(() => '');
  check('a bad spec keeps the last good readout', levels2 === levels1, JSON.stringify(levels2));
  await page.screenshot({ path: join(SHOTS, 'explorer-bad-spec.png') });

  // ── an example button ──
  await page.locator('button.example', { hasText: 'larq.ste_sign' }).click({ timeout: TIMEOUT_MS });
  const canonical3 = await until(() => text(page, 'canonical').catch(() => ''), (t) => t === 'larq.SteSign');
  const levels3 = await text(page, 'levels').catch(() => '');
  check('an example button applies its spec', canonical3 === 'larq.SteSign' && /^2 levels\b/.test(levels3), `${JSON.stringify(canonical3)} ${JSON.stringify(levels3)}`);
  const err3 = await text(page, 'spec-error').catch(() => 'missing');
  check('applying a good spec clears the error', err3.trim() === '', JSON.stringify(err3));
  const bwd3 = await until(() => canvasStats(page, 'plot-backward'), (s) => s && s.hash !== bwd0.hash);
  check('the backward canvas shows the new gradient', bwd3 && bwd3.hash !== bwd0.hash && inked(bwd3));
  await page.screenshot({ path: join(SHOTS, 'explorer-ste-sign.png') });

  // ── dark theme ──
  const dark = await browser.newPage();
  watch(dark);
  await dark.emulateMedia({ colorScheme: 'dark' });
  await dark.goto(url, { waitUntil: 'load', timeout: TIMEOUT_MS });
  const fwdDark = await until(() => canvasStats(dark, 'plot-forward'), inked);
  check(
    'the dark theme draws on a dark background',
    inked(fwdDark) && fwdDark.background.slice(0, 3).every((v) => v < 60),
    JSON.stringify(fwdDark?.background),
  );
  await dark.screenshot({ path: join(SHOTS, 'explorer-dark.png') });

  const banners = (await page.locator('[data-testid="panic"]').count()) + (await dark.locator('[data-testid="panic"]').count());
  check('the .wasm is served as application/wasm', wasmTypes.length > 0 && wasmTypes.every((t) => t === 'application/wasm'), JSON.stringify(wasmTypes));
  check('no panic banner', banners === 0, `${banners}`);
  check('no console errors, page errors or failed requests', errors.length === 0, errors.join(' | '));
}

// ── main ─────────────────────────────────────────────────────────────
let server;
let context;
const profile = mkdtempSync(join(tmpdir(), 'qscope-e2e-'));
try {
  mkdirSync(SHOTS, { recursive: true });
  const built = existsSync(join(DIST, 'index.html'));
  check(`the release build exists (${DIST})`, built);
  if (built) {
    server = await serve(DIST);
    const url = `http://127.0.0.1:${server.address().port}/`;
    console.log(`serving ${DIST} at ${url}`);
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1360, height: 860 },
      deviceScaleFactor: 2,
    });
    await run(context, url);
  }
} catch (e) {
  check('the test ran to the end', false, e?.stack ?? String(e));
} finally {
  await context?.close().catch(() => {});
  server?.close();
  rmSync(profile, { recursive: true, force: true });
}

const failed = results.filter((r) => !r.pass).length;
console.log(`\ne2e: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 && results.length > 0 ? 0 : 1);
