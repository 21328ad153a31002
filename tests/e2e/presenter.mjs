// End-to-end test of presenter mode in lessons, on a projector's screen: every step of every
// built-in lesson at 1280 × 720 and at 1920 × 1080, as `#lesson=NAME&step=K&present=1` opens it.
//
// - One screen: no page scroll either way, the lesson text and the figure both on it.
// - The figure fills the free space: in the explorer each of the two panels at least half the
//   screen's width and a fifth of its height; in the trainer every decision boundary drawn at
//   least a third of the screen's height.
// - What the step points at (its highlight) is on screen, at least its first quarter screen.
// - Nothing wraps letter by letter: no visible text of four or more characters broken over three
//   or more lines of fewer than four characters each.
//
//   trunk build --release && node tests/e2e/presenter.mjs
//
// Prints `N passed, M failed` and exits non-zero on any failure. Screenshots in target/e2e/:
// presenter-lesson-NAME-K-WIDTH.png for each step with a comparison or a trainer.
// Environment: QSCOPE_DIST (default dist), CHROMIUM (default /usr/bin/chromium).

import { join } from 'node:path';
import { SHOTS, TIMEOUT_MS, canvasStats, check, inked, main, until } from './common.mjs';

const BUILTIN = ['ste', 'quantized_bits', 'binary', 'soft', 'bias', 'stochastic'];
const SCREENS = [
  [1280, 720],
  [1920, 1080],
];

/** What the page looks like at this step: boxes, scroll and the letter-by-letter wraps. */
const measure = (page) =>
  page.evaluate(() => {
    const box = (e) => {
      const r = e.getBoundingClientRect();
      return { x: r.x, y: r.y, w: r.width, h: r.height };
    };
    const visible = (e) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
    };
    const shown = (sel) => [...document.querySelectorAll(sel)].filter(visible).map(box);
    // Text nodes broken into three or more lines of under four characters on average.
    const wrapped = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const t = n.textContent.trim();
      if (t.length < 4 || !n.parentElement || !visible(n.parentElement)) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (lines.size >= 3 && t.length / lines.size < 4) wrapped.push(`"${t.slice(0, 24)}" in ${lines.size} lines`);
    }
    const progress = document.querySelector('[data-testid="lesson-progress"]')?.textContent ?? '';
    const marked = document.querySelector('[data-lesson-highlight]');
    return {
      progress,
      train: !!document.querySelector('.train-view'),
      panel: shown('[data-testid="lesson-panel"]')[0] ?? null,
      plots: shown('[data-testid="plot-forward"], [data-testid="plot-backward"]'),
      boundaries: shown('.boundary-stack'),
      wide: document.documentElement.scrollWidth,
      tall: document.documentElement.scrollHeight,
      wrapped,
      highlight: marked ? { label: marked.getAttribute('data-lesson-highlight'), ...box(marked) } : null,
    };
  });

async function step(context, url, name, k, [w, h]) {
  const page = await context.newPage();
  await page.setViewportSize({ width: w, height: h });
  await page.goto(`${url}#lesson=${name}&step=${k}&present=1`, { waitUntil: 'load', timeout: TIMEOUT_MS });
  await page.waitForSelector('[data-testid="lesson-panel"]', { timeout: TIMEOUT_MS });
  const figure = (await page.locator('.train-view').count()) > 0 ? 'train-boundary' : 'plot-forward';
  await until(() => canvasStats(page, figure), inked);
  await page.waitForTimeout(250);
  const m = await measure(page);
  const where = `${name} step ${k} at ${w}×${h}`;
  check(`${where}: one screen, no scroll`, m.wide <= w && m.tall <= h + 1, `page ${m.wide}×${m.tall}`);
  check(`${where}: the lesson text on screen`, m.panel && m.panel.w >= 0.2 * w && m.panel.y + Math.min(m.panel.h, 100) <= h, JSON.stringify(m.panel));
  if (m.train) {
    const small = m.boundaries.filter((b) => b.h < h / 3 || b.y + b.h > h);
    check(`${where}: every decision boundary at least a third of the screen high`, m.boundaries.length >= 1 && small.length === 0, m.boundaries.map((b) => `${Math.round(b.w)}×${Math.round(b.h)}@${Math.round(b.y)}`).join(' '));
  } else {
    const small = m.plots.filter((p) => p.w < w / 2 || p.h < h / 5 || p.y + p.h > h + 1);
    check(`${where}: both panels at least half the width and a fifth of the height`, m.plots.length === 2 && small.length === 0, m.plots.map((p) => `${Math.round(p.w)}×${Math.round(p.h)}@${Math.round(p.y)}`).join(' '));
  }
  if (m.highlight) {
    const hl = m.highlight;
    check(`${where}: what the step points at ("${hl.label}") is on screen`, hl.w > 0 && hl.h > 0 && hl.y >= 0 && hl.y + Math.min(hl.h, h / 4) <= h + 1, JSON.stringify(hl));
  }
  check(`${where}: nothing wraps letter by letter`, m.wrapped.length === 0, m.wrapped.slice(0, 4).join(' | '));
  const compares = (await page.locator('[data-testid="compare-item"]').count()) > 1;
  if (m.train || compares) await page.screenshot({ path: join(SHOTS, `presenter-lesson-${name}-${k}-${w}.png`) });
  const total = Number(m.progress.split('/')[1]);
  await page.close();
  return total;
}

async function run(context, url) {
  for (const name of BUILTIN) {
    for (const screen of SCREENS) {
      let total = await step(context, url, name, 1, screen);
      check(`${name}: the lesson has steps at ${screen.join('×')}`, total >= 2, `${total}`);
      for (let k = 2; k <= total; k++) await step(context, url, name, k, screen);
    }
  }
}

await main(run);
