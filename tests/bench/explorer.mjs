// The explorer page's own figures, measured in headless Chromium on the release build (shared by
// tests/bench/page.mjs, which reports them, and tests/e2e/explorer.mjs, which prints them and
// checks only gross bounds: speed is measured by benchmarks, not by timed tests).
//
// - first plot: navigation start (performance.timeOrigin) to the `qscope:first-plot` mark the
//   app sets once a plot canvas has been drawn with curves — a cold load in a fresh context;
// - redraw: a link comparing six quantizers, the first one's bits slider moved through many
//   values; per change, from the start of the animation frame in which the app applies it to the
//   end of that frame's script and layout (both panels redrawn, every readout updated): what
//   must fit in a frame for the drag to show on the next one;
// - hover: the same, for a pointer moving over the forward panel (the crosshair follows);
// - PNG export: the click on "PNG" to "PNG saved" (drawn at 2×, encoded, text chunks added),
//   on a fresh page and again after the drag, hovers and zooms above.

/** Six compared quantizers; the first (selected) has a bits slider. */
export const SIX = '#q=qkeras.quantized_bits(4,0,1)&q=larq.approx_sign&q=qkeras.ternary()&q=larq.ste_sign'
  + '&q=qkeras.quantized_po2(4)&q=qkeras.quantized_relu(3,1)&x=-2,2';

/** The value below which a share `p` of `values` lies (nearest rank). */
export function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] : NaN;
}

const median = (values) => percentile(values, 0.5);

/** Milliseconds from navigation start to the first plot drawn with curves on `page` at `url`. */
export async function firstPlotMs(page, url) {
  await page.goto(url, { waitUntil: 'load' });
  return page.evaluate(() => new Promise((done) => {
    const look = () => {
      const m = performance.getEntriesByName('qscope:first-plot')[0];
      if (m) done(m.startTime); else setTimeout(look, 20);
    };
    look();
  }));
}

/** Per change, the frame's work in ms. `kind` is what changes, at the start of an idle frame,
 * making the app schedule its update for the next animation frame: `bits` moves the bits
 * slider (2 to 8 bits and back), `hover` the pointer across the forward panel. */
function frameWork(page, kind, changes) {
  return page.evaluate(async ({ kind, changes }) => {
    const act = (k) => {
      if (kind === 'bits') {
        const s = document.querySelector('#param-bits');
        const v = 2 + Math.abs(((k + 2) % 12) - 6);
        s.value = String(v === Number(s.value) ? v + 1 : v);
        s.dispatchEvent(new Event('input', { bubbles: true }));
      } else {
        const c = document.querySelector('[data-testid="plot-forward"]');
        const r = c.getBoundingClientRect();
        const x = r.left + r.width * (0.1 + (0.8 * ((k * 7) % 40)) / 40);
        const at = { bubbles: true, clientX: x, clientY: r.top + r.height / 2, pointerType: 'mouse' };
        c.dispatchEvent(new PointerEvent('pointermove', at));
      }
    };
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    const out = [];
    for (let k = 0; k < changes; k++) {
      await frame();
      let start = 0;
      // Callbacks of one frame run in the order they were asked for: this one before the
      // app's, the measuring one after it (and after the effects its microtasks run).
      requestAnimationFrame(() => { start = performance.now(); });
      act(k);
      const end = await new Promise((r) => requestAnimationFrame(() => {
        document.body.getBoundingClientRect();
        r(performance.now());
      }));
      out.push(end - start);
    }
    return out;
  }, { kind, changes });
}

/** Frame work of `changes` moves of the bits slider. */
export const redrawMs = (page, changes = 60) => frameWork(page, 'bits', changes);

/** Frame work of `changes` pointer moves across the forward panel. */
export const hoverMs = (page, changes = 60) => frameWork(page, 'hover', changes);

/** Milliseconds from a click on "PNG" to "PNG saved". */
export function pngMs(page) {
  return page.evaluate(() => new Promise((done, fail) => {
    const status = document.querySelector('[data-testid="status"]');
    const start = performance.now();
    const watch = new MutationObserver(() => {
      if (/PNG saved/.test(status.textContent)) {
        watch.disconnect();
        done(performance.now() - start);
      } else if (/failed/.test(status.textContent)) {
        watch.disconnect();
        fail(new Error(status.textContent));
      }
    });
    watch.observe(status, { childList: true, subtree: true, characterData: true });
    document.querySelector('[data-testid="export-png"]').click();
  }));
}

/** Drags, hovers and zooms a while (what "after use" means for the PNG export). */
async function use(page) {
  await redrawMs(page, 120);
  await hoverMs(page, 120);
  const box = await page.locator('[data-testid="plot-forward"]').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let k = 0; k < 10; k++) await page.mouse.wheel(0, k % 2 ? 200 : -200);
  await page.mouse.move(0, 0);
}

/** Every figure on `page` (already at `url` + [`SIX`], drawn): `{ redraw, hover, pngFresh, pngUsed }`,
 * each a list of milliseconds. */
export async function explorerFigures(page, { changes = 60, exports = 3 } = {}) {
  await page.locator('#param-bits').waitFor();
  const pngFresh = [await pngMs(page)];
  const redraw = await redrawMs(page, changes);
  const hover = await hoverMs(page, changes);
  await use(page);
  const pngUsed = [];
  for (let k = 0; k < exports; k++) pngUsed.push(await pngMs(page));
  return { redraw, hover, pngFresh, pngUsed };
}

/** One line of figures for a log. */
export function describe({ first, redraw, hover, pngFresh, pngUsed }) {
  const ms = (v) => `${v.toFixed(1)} ms`;
  return [
    first && `first plot ${ms(median(first))} (median of ${first.length} cold loads)`,
    `redraw with six curves p95 ${ms(percentile(redraw, 0.95))} (median ${ms(median(redraw))}, ${redraw.length} changes)`,
    `hover p95 ${ms(percentile(hover, 0.95))}`,
    `PNG export fresh ${ms(pngFresh[0])}, after use ${pngUsed.map((v) => v.toFixed(0)).join(' / ')} ms`,
  ].filter(Boolean).join('; ');
}
