// The Train view as a user runs it: the release build (dist/) in headless Chromium, Play for
// a few seconds on the classroom demo (spiral, 2-16-16-1, 4-bit weights and activations, 500
// points, with its float twin; then with a third STE twin too), counting trained epochs and
// the page's animation frames (requestAnimationFrame callbacks: what the user sees).
// Issue 5's aim: ≥ 200 epochs/s at ≥ 30 fps (TF Playground: ~20 epochs/s here).
//
// Rows: kernel `page:train:2-16-16-1` (`…+ste-twin` with the third net), pass `ui`, impl
// `page`, runtime `chromium`, n = epochs counted, elements_per_s = epochs/s, fps.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from '../../scripts/static-server.mjs';

const LINKS = [
  ['page:train:2-16-16-1', '#view=train&dataset=spiral&hidden=16,16&wq=qkeras.quantized_bits(4,0,1)&aq=qkeras.quantized_tanh(4)&lr=0.01&batch=10&optimizer=adam&seed=0'],
  ['page:train:2-16-16-1+ste-twin', '#view=train&dataset=spiral&hidden=16,16&wq=larq.ste_sign&aq=qkeras.quantized_tanh(4)&twin_wq=larq.approx_sign&lr=0.01&batch=10&optimizer=adam&seed=0'],
];

/** Plays each link for `seconds` after a 1 s warm-up; one row each. */
export async function benchPage({ root, chromiumPath, seconds = 5, log }) {
  const dist = join(root, 'dist');
  if (!existsSync(join(dist, 'index.html'))) throw new Error(`${dist} missing: scripts/dev bench builds it (trunk build --release)`);
  const { chromium } = await import('playwright-core');
  const server = await serve(dist, 0);
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const rows = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    page.on('pageerror', (e) => log(`[pageerror] ${e.message}`));
    const url = `http://127.0.0.1:${server.address().port}/`;
    for (const [kernel, link] of LINKS) {
      await page.goto(url + link, { waitUntil: 'load' });
      await page.locator('[data-testid="train-boundary"]').waitFor();
      await page.locator('[data-testid="train-play"]').click();
      await page.waitForTimeout(1000);
      const r = await page.evaluate(async (ms) => {
        const epoch = () => Number(document.querySelector('[data-testid="train-epoch"]').innerText);
        const e0 = epoch();
        let frames = 0, worst = 0, last = performance.now();
        const t0 = last;
        await new Promise((done) => {
          const f = (t) => {
            frames++;
            worst = Math.max(worst, t - last);
            last = t;
            if (t - t0 < ms) requestAnimationFrame(f); else done();
          };
          requestAnimationFrame(f);
        });
        const secs = (performance.now() - t0) / 1000;
        return { epochs: epoch() - e0, secs, fps: frames / secs, worst };
      }, seconds * 1000);
      await page.locator('[data-testid="train-play"]').click();
      const eps = r.epochs / r.secs;
      log(`page ${kernel}: ${eps.toFixed(0)} epochs/s at ${r.fps.toFixed(1)} fps (slowest frame ${r.worst.toFixed(0)} ms)`);
      rows.push({ kernel, pass: 'ui', impl: 'page', runtime: 'chromium', n: r.epochs, elements_per_s: Math.round(eps), fps: Number(r.fps.toFixed(1)) });
    }
  } finally {
    await browser.close();
    server.close();
  }
  return rows;
}

/** The page rows as a table, with the aim. */
export function pageTable(rows) {
  const page = rows.filter((r) => r.pass === 'ui');
  if (!page.length) return '';
  const lines = ['\nTrain view in headless Chromium (Play, 5 s): epochs/s and frames/s; aim ≥ 200 epochs/s at ≥ 30 fps (TF Playground ~20 epochs/s)'];
  for (const r of page) {
    const ok = r.elements_per_s >= 200 && r.fps >= 30 ? 'meets the aim' : 'MISSES the aim';
    lines.push(`${r.kernel.padEnd(32)} ${String(r.elements_per_s).padStart(6)} epochs/s  ${r.fps.toFixed(1).padStart(5)} fps  ${ok}`);
  }
  return lines.join('\n');
}
