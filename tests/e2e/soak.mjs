// Soak test of the Train view: plays a 2-8-8-1 net with 1-bit STE weights beside its float and
// approx_sign twins in headless Chromium for MINUTES (default 3) and samples every SAMPLE_S
// seconds, after a forced garbage collection: the epoch, the page's renderer's resident memory
// (/proc: the largest of the processes Chromium's SystemInfo names as renderers; the others are
// idle spares), the JS heap, the WebAssembly memory and the DOM's nodes and listeners.
//
//   scripts/dev soak [MINUTES]      (builds the page first)
//   node tests/e2e/soak.mjs [MINUTES]   (against an existing dist/)
//
// Aims (each a check; exit non-zero when one is missed): the epochs keep advancing (every sample
// later than the one before), no console error, page error or policy violation, and the renderer's
// memory grows by less than 10 % from the sample at one minute to the last. Samples go to stdout
// and target/soak.json.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/static-server.mjs';
import { CHROMIUM, CHROMIUM_ARGS, DIST, ROOT, TIMEOUT_MS, canvasStats, check, inked, report, text, until } from './common.mjs';
import { guard, guardFindings } from './audit.mjs';

const MINUTES = Number(process.argv[2] ?? 3);
const SAMPLE_S = 10;
const LINK = '#view=train&dataset=circle&hidden=8,8&wq=larq.ste_sign&twin_wq=larq.approx_sign&play=1';

/** Resident kilobytes of a process (0 when it is gone). */
function rssKb(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]);
  } catch {
    return 0;
  }
}

async function sample(page, session, browserSession, t0) {
  await session.send('HeapProfiler.collectGarbage');
  const { processInfo } = await browserSession.send('SystemInfo.getProcessInfo');
  const renderers = processInfo.filter((p) => p.type === 'renderer').map((p) => p.id);
  const metrics = Object.fromEntries((await session.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const dom = await session.send('Memory.getDOMCounters');
  const page_ = await page.evaluate(() => ({ wasm: window.__qscopeWasm?.memory?.buffer?.byteLength ?? 0 }));
  return {
    s: Math.round((Date.now() - t0) / 1000),
    epoch: Number(await text(page, 'train-epoch')),
    rendererMb: Math.max(0, ...renderers.map(rssKb)) / 1024,
    renderers: renderers.length,
    jsHeapMb: metrics.JSHeapUsedSize / 2 ** 20,
    wasmMb: page_.wasm / 2 ** 20,
    nodes: dom.nodes,
    listeners: dom.jsEventListeners,
  };
}

const show = (r) =>
  `${String(r.s).padStart(5)} s  epoch ${String(r.epoch).padStart(7)}  renderer ${r.rendererMb.toFixed(1).padStart(6)} MB (largest of ${r.renderers})  ` +
  `JS heap ${r.jsHeapMb.toFixed(2).padStart(6)} MB  wasm ${r.wasmMb.toFixed(1).padStart(5)} MB  nodes ${r.nodes}  listeners ${r.listeners}`;

async function soak() {
  const server = await serve(DIST);
  const url = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const errors = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
    await guard(context, url.replace(/\/$/, ''));
    await context.addInitScript(() => {
      addEventListener('TrunkApplicationStarted', (e) => { window.__qscopeWasm = e.detail.wasm; });
    });
    const page = await context.newPage();
    page.on('console', (m) => m.type() === 'error' && errors.push(`console.error: ${m.text()}`));
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    const session = await context.newCDPSession(page);
    await session.send('Performance.enable');
    const browserSession = await browser.newBrowserCDPSession();
    await page.goto(url + LINK, { waitUntil: 'load', timeout: TIMEOUT_MS });
    await until(() => canvasStats(page, 'train-boundary-twin'), inked);
    console.log(`soak: ${MINUTES} min of the Train view playing ${LINK}`);
    const t0 = Date.now();
    const rows = [];
    for (let k = 0; k * SAMPLE_S <= MINUTES * 60; k++) {
      const wait = t0 + k * SAMPLE_S * 1000 - Date.now();
      if (wait > 0) await page.waitForTimeout(wait);
      const r = await sample(page, session, browserSession, t0);
      rows.push(r);
      console.log(show(r));
    }
    writeFileSync(join(ROOT, 'target', 'soak.json'), JSON.stringify({ minutes: MINUTES, link: LINK, rows }, null, 1));
    const stalled = rows.slice(1).filter((r, i) => r.epoch <= rows[i].epoch).map((r) => `${r.s} s`);
    check('the epochs keep advancing (every sample later than the last)', rows.length > 2 && stalled.length === 0, `${rows.at(-1).epoch} epochs; stalled at ${stalled.join(', ') || 'none'}`);
    check('no console error or page error', errors.length === 0, errors.slice(0, 5).join(' | '));
    const found = guardFindings();
    check('no policy violation, no request leaving the origin', found.length === 0, found.slice(0, 5).join(' | '));
    const base = rows.find((r) => r.s >= 60) ?? rows[0];
    const last = rows.at(-1);
    const growth = (a, b) => (100 * (b - a)) / a;
    const g = growth(base.rendererMb, last.rendererMb);
    console.log(
      `from ${base.s} s to ${last.s} s: renderer ${base.rendererMb.toFixed(1)} → ${last.rendererMb.toFixed(1)} MB (${g.toFixed(1)} %), ` +
        `JS heap ${base.jsHeapMb.toFixed(2)} → ${last.jsHeapMb.toFixed(2)} MB (${growth(base.jsHeapMb, last.jsHeapMb).toFixed(1)} %), ` +
        `wasm ${base.wasmMb.toFixed(1)} → ${last.wasmMb.toFixed(1)} MB, nodes ${base.nodes} → ${last.nodes}, listeners ${base.listeners} → ${last.listeners}`,
    );
    check('the renderer\'s memory grows by less than 10 % after the first minute', MINUTES >= 2 && g < 10, `${g.toFixed(1)} %`);
  } finally {
    await browser.close();
    server.close();
  }
}

try {
  await soak();
} catch (e) {
  check('the soak ran to the end', false, e?.stack ?? String(e));
}
process.exit(report());
