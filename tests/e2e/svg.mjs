// The render comparison of the SVG figures: every gallery figure, README's figures and two
// exports from the page's dark and high-contrast themes, written by the compact writer and by
// plotters' own SVG backend (the reference, `Figure::svg_reference`), rasterized by headless
// Chromium at the drawing's 2× scale and compared pixel by pixel. A figure that follows the
// reader's colour scheme is compared twice: light against the reference in the light theme,
// and under `prefers-color-scheme: dark` against the reference drawn in the dark theme.
//
// The pairs come from `cargo test --locked --test explorer svg::writes_the_render_comparison_pairs`,
// which this script runs itself (into target/svg-render), so they cannot be stale; if cargo,
// the pairs or the browser fail, the test fails. Each new SVG is also parsed by Chromium's XML
// parser (DOMParser, image/svg+xml). No network: the pairs are served from 127.0.0.1 and every
// request leaving it fails the test (audit.mjs).
//
// Per figure: the mean absolute difference over every channel of every pixel (0–255) and the
// share of pixels where a channel differs by more than 64 (a visible change, beyond
// anti-aliasing); both must stay under the bounds below. Prints the max and mean of both.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/static-server.mjs';
import { CHROMIUM, CHROMIUM_ARGS, ROOT, check, report } from './common.mjs';
import { guard, guardFindings } from './audit.mjs';

/** Per-figure bounds: mean absolute difference (0–255) and share of visibly changed pixels. */
const MEAN_MAX = 0.3;
const CHANGED_MAX = 0.003;

const PAIRS = join(ROOT, 'target', 'svg-render');

/** In the page: rasterizes two SVGs at `scale` and compares them. */
async function compare(page, a, b, scale) {
  return page.evaluate(
    async ([a, b, scale]) => {
      const load = (src) =>
        new Promise((ok, fail) => {
          const img = new Image();
          img.onload = () => ok(img);
          img.onerror = () => fail(new Error(`cannot load ${src}`));
          img.src = `${src}?${Math.random()}`;
        });
      const raster = async (src) => {
        const img = await load(src);
        const c = document.createElement('canvas');
        c.width = Math.round(img.naturalWidth * scale);
        c.height = Math.round(img.naturalHeight * scale);
        const ctx = c.getContext('2d');
        ctx.drawImage(img, 0, 0, c.width, c.height);
        return { w: c.width, h: c.height, data: ctx.getImageData(0, 0, c.width, c.height).data };
      };
      const [x, y] = [await raster(a), await raster(b)];
      if (x.w !== y.w || x.h !== y.h) return { error: `sizes ${x.w}×${x.h} and ${y.w}×${y.h}` };
      let sum = 0;
      let changed = 0;
      let ink = 0;
      for (let i = 0; i < x.data.length; i += 4) {
        let worst = 0;
        for (let k = 0; k < 4; k++) {
          const d = Math.abs(x.data[i + k] - y.data[i + k]);
          sum += d;
          worst = Math.max(worst, d);
        }
        if (worst > 64) changed++;
        if (x.data[i] !== x.data[0] || x.data[i + 1] !== x.data[1] || x.data[i + 2] !== x.data[2]) ink++;
      }
      const pixels = x.w * y.h;
      return { mean: sum / (4 * pixels), changed: changed / pixels, ink: ink / pixels, background: [...x.data.slice(0, 3)] };
    },
    [a, b, scale],
  );
}

/** In the page: whether Chromium's XML parser takes `src` as an SVG document. */
async function wellFormed(page, src) {
  return page.evaluate(async (src) => {
    const text = await (await fetch(src)).text();
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const error = doc.querySelector('parsererror');
    return error ? error.textContent.slice(0, 200) : doc.documentElement.localName === 'svg' ? '' : 'no <svg> root';
  }, src);
}

async function run() {
  const made = spawnSync('cargo', ['test', '--locked', '--test', 'explorer', '--', '--exact', 'svg::writes_the_render_comparison_pairs'], {
    cwd: ROOT,
    env: { ...process.env, QSCOPE_SVG_PAIRS: PAIRS },
    encoding: 'utf8',
  });
  if (!check('the pairs were written (cargo test --test explorer svg::)', made.status === 0, (made.stderr ?? '').slice(-600))) return;
  const pairs = JSON.parse(readFileSync(join(PAIRS, 'pairs.json'), 'utf8'));
  check('there are pairs to compare', pairs.length >= 40, `${pairs.length}`);
  writeFileSync(join(PAIRS, 'index.html'), '<!doctype html><html><head><title>svg</title></head><body></body></html>\n');
  const server = await serve(PAIRS);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const profile = mkdtempSync(join(tmpdir(), 'qscope-svg-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 800, height: 600 },
    });
    await guard(context, origin);
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    const results = { light: [], dark: [] };
    for (const { name, dark } of pairs) {
      const error = await wellFormed(page, `${name}.svg`);
      check(`${name}.svg is well-formed XML with an <svg> root`, error === '', error);
      await page.emulateMedia({ colorScheme: 'light' });
      const light = await compare(page, `${name}.svg`, `${name}.ref.svg`, 2);
      results.light.push({ name, ...light });
      if (dark) {
        await page.emulateMedia({ colorScheme: 'dark' });
        const d = await compare(page, `${name}.svg`, `${name}.ref-dark.svg`, 2);
        results.dark.push({ name, ...d });
      }
    }
    for (const [scheme, list] of Object.entries(results)) {
      for (const r of list) {
        const pass = !r.error && r.mean <= MEAN_MAX && r.changed <= CHANGED_MAX && r.ink > 0.01;
        const detail = r.error ?? `mean |Δ| ${r.mean.toFixed(3)}, ${(100 * r.changed).toFixed(3)} % of pixels changed visibly, ink ${(100 * r.ink).toFixed(1)} %`;
        check(`${r.name} (${scheme}) renders as the reference`, pass, detail);
      }
      const ok = list.filter((r) => !r.error);
      const max = (k) => Math.max(...ok.map((r) => r[k]));
      const mean = (k) => ok.reduce((s, r) => s + r[k], 0) / ok.length;
      console.log(
        `${scheme}: ${ok.length} figures; mean |Δ| max ${max('mean').toFixed(3)} mean ${mean('mean').toFixed(3)}; ` +
          `visibly changed pixels max ${(100 * max('changed')).toFixed(3)} % mean ${(100 * mean('changed')).toFixed(3)} %`,
      );
    }
    // The dark comparison means something only if the scheme switched the figure's colours.
    const darkBackground = results.dark.every((r) => r.background && r.background[0] < 64);
    check('under prefers-color-scheme: dark the figures have a dark background', results.dark.length > 0 && darkBackground);
    const found = guardFindings();
    check('no request leaving 127.0.0.1, no policy violation', found.length === 0, found.slice(0, 8).join(' | '));
  } catch (e) {
    check('the render comparison ran to the end', false, e?.stack ?? String(e));
  } finally {
    await context?.close().catch(() => {});
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

await run();
process.exit(report());
