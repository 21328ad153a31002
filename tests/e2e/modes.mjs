// End-to-end test of small screens and the page's display modes: serves the release build
// (dist/) on 127.0.0.1 and drives Debian's chromium with playwright-core.
//
// - Phones (390 × 844 and 360 × 780), explorer and trainer: nothing scrolls sideways, the figure
//   (the forward plot, the decision boundary) starts above the fold; by touch, a sideways drag
//   pans, a pinch zooms, a tap pins, an upward drag on the plot scrolls the page.
// - Presenter mode (1280 × 720, 1920 × 1080): the button and the `p` key (not while typing),
//   present=1 in the hash and kept by a reload, body text ≥ 24 px, the picker and the other
//   chrome hidden; `f` toggles fullscreen.
// - Embed mode (720 × 480): the Embed dialog's <iframe> code carries embed=1 and the state; the
//   embedded page shows only the figure (no controls), filling the frame, and a footer linking
//   to the full view; also inside a real <iframe>.
// - axe-core finds no accessibility violation: phones, presenter (explorer, trainer), the Embed
//   dialog open, embedded explorer and trainer.
// - No console errors.
//
//   trunk build --release && node tests/e2e/modes.mjs
//
// Prints `N passed, M failed` and exits non-zero on any failure. Screenshots in target/e2e/:
// phone-{explorer,train}-{390,360}.png, desktop-{explorer,train}.png,
// presenter-{explorer,train}-{1280,1920}.png, embed-{explorer,train}.png, embed-iframe.png.
// Environment: QSCOPE_DIST (default dist), CHROMIUM (default /usr/bin/chromium).

import { join } from 'node:path';
import { SHOTS, TIMEOUT_MS, canvasStats, check, inked, main, until } from './common.mjs';
import { audit } from './audit.mjs';

const EXPLORER = '#q=qkeras.quantized_bits(4,0,1)&q=larq.ste_sign&x=-2,2';
const TRAIN = '#view=train&dataset=xor&hidden=8,8';
const PHONES = [
  { width: 390, height: 844 },
  { width: 360, height: 780 },
];

function watch(page, errors) {
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`);
  });
}

const shot = (page, name, fullPage = false) => page.screenshot({ path: join(SHOTS, name), fullPage });

/** Sideways overflow and where the figure starts, scrolled to the top. */
async function layout(page, testid) {
  return page.evaluate((id) => {
    window.scrollTo(0, 0);
    const el = document.querySelector(`[data-testid="${id}"]`);
    const wide = [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5 && e.getClientRects().length > 0)
      .slice(0, 3)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className || ''}[${Math.round(e.getBoundingClientRect().right)}]`);
    return {
      scrollWidth: document.scrollingElement.scrollWidth,
      innerWidth,
      top: el ? el.getBoundingClientRect().top : null,
      width: el ? el.getBoundingClientRect().width : null,
      wide,
    };
  }, testid);
}

const xRange = async (page) => [
  Number(await page.locator('[data-testid="x-lo"]').inputValue()),
  Number(await page.locator('[data-testid="x-hi"]').inputValue()),
];

async function box(page, testid) {
  const b = await page.locator(`[data-testid="${testid}"]`).boundingBox();
  return { x: b.x + b.width / 2, y: b.y + b.height / 2, w: b.width, h: b.height, left: b.x, top: b.y };
}

/** One touch gesture: `frames` is a list of touch point lists (viewport pixels). */
async function touch(cdp, frames) {
  const points = (ps) => ps.map(([x, y], id) => ({ x, y, id, radiusX: 2, radiusY: 2, force: 1 }));
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: points(frames[0]) });
  for (const f of frames.slice(1)) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: points(f) });
    await new Promise((r) => setTimeout(r, 20));
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
}

const steps = (from, to, n = 8) =>
  Array.from({ length: n + 1 }, (_, i) => from.map((p, k) => p.map((v, j) => v + ((to[k][j] - v) * i) / n)));

async function phones(context, url, errors) {
  for (const size of PHONES) {
    const page = await context.newPage();
    watch(page, errors);
    await page.setViewportSize(size);
    await page.goto(url + EXPLORER, { waitUntil: 'load', timeout: TIMEOUT_MS });
    await until(() => canvasStats(page, 'plot-forward'), inked);
    const e = await layout(page, 'plot-forward');
    const tag = `${size.width}×${size.height}`;
    check(`explorer at ${tag}: nothing scrolls sideways`, e.scrollWidth <= e.innerWidth, `scrollWidth ${e.scrollWidth}, innerWidth ${e.innerWidth} ${e.wide.join(' ')}`);
    check(`explorer at ${tag}: the forward plot starts above the fold`, e.top !== null && e.top < size.height, `top ${e.top?.toFixed(0)} px`);
    check(`explorer at ${tag}: the plot is as wide as the screen allows`, e.width >= size.width - 40, `${e.width?.toFixed(0)} px`);
    // crates/app/src/canvas.rs measures text in a span fixed below the viewport (class text-measure, its
    // font set through CSSOM): wrapped at the screen's width it would measure a long entry short,
    // and the next entry would be drawn over it.
    const measured = await page.evaluate(() => {
      const span = document.createElement('span');
      span.textContent = 'qkeras.quantized_bits(bits=4, symmetric=True) qkeras.quantized_bits(bits=4)';
      span.className = 'text-measure';
      Object.assign(span.style, { fontFamily: 'sans-serif', fontStyle: 'normal', fontSize: '24px' });
      document.body.appendChild(span);
      const w = span.offsetWidth, h = span.offsetHeight;
      span.remove();
      return { w, h };
    });
    check(`explorer at ${tag}: legend text is measured on one line, wider than the screen`, measured.w > size.width && measured.h < 40, `${measured.w}×${measured.h} px`);
    await shot(page, `phone-explorer-${size.width}.png`, true);
    await audit(page, `the explorer at ${tag}`);

    await page.goto(url + TRAIN, { waitUntil: 'load', timeout: TIMEOUT_MS });
    await until(() => canvasStats(page, 'train-boundary'), inked);
    const t = await layout(page, 'train-boundary');
    check(`trainer at ${tag}: nothing scrolls sideways`, t.scrollWidth <= t.innerWidth, `scrollWidth ${t.scrollWidth}, innerWidth ${t.innerWidth} ${t.wide.join(' ')}`);
    check(`trainer at ${tag}: the boundary starts above the fold`, t.top !== null && t.top < size.height, `top ${t.top?.toFixed(0)} px`);
    const twin = await layout(page, 'train-boundary-float');
    check(`trainer at ${tag}: the float twin's boundary sits beside it`, Math.abs(twin.top - t.top) < 2, `${t.top} vs ${twin.top}`);
    await shot(page, `phone-train-${size.width}.png`, true);
    await audit(page, `the trainer at ${tag}`);
    await page.close();
  }
}

async function touches(context, url, errors) {
  const page = await context.newPage();
  watch(page, errors);
  await page.setViewportSize(PHONES[0]);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
  await page.goto(url + EXPLORER, { waitUntil: 'load', timeout: TIMEOUT_MS });
  await until(() => canvasStats(page, 'plot-forward'), inked);
  await page.evaluate(() => window.scrollTo(0, 0));
  let c = await box(page, 'plot-forward');

  const x0 = await xRange(page);
  await touch(cdp, steps([[c.x + 60, c.y]], [[c.x - 60, c.y]]));
  const x1 = await until(() => xRange(page), (x) => x[0] !== x0[0]);
  check('touch: a sideways drag pans the x range', x1[0] > x0[0] && Math.abs(x1[1] - x1[0] - (x0[1] - x0[0])) < 1e-3, `${x0} → ${x1}`);

  await touch(cdp, steps([[c.x - 30, c.y], [c.x + 30, c.y]], [[c.x - 110, c.y], [c.x + 110, c.y]]));
  const x2 = await until(() => xRange(page), (x) => x[1] - x[0] < x1[1] - x1[0] - 1e-3);
  check('touch: spreading two fingers zooms in', x2[1] - x2[0] < 0.6 * (x1[1] - x1[0]), `${x1} → ${x2}`);
  await touch(cdp, steps([[c.x - 110, c.y], [c.x + 110, c.y]], [[c.x - 30, c.y], [c.x + 30, c.y]]));
  const x3 = await until(() => xRange(page), (x) => x[1] - x[0] > x2[1] - x2[0] + 1e-3);
  check('touch: pinching two fingers zooms out', x3[1] - x3[0] > 1.6 * (x2[1] - x2[0]), `${x2} → ${x3}`);

  const readout = () => page.locator('[data-testid="readout"] .readout-x .num').innerText();
  const before = await readout();
  await touch(cdp, [[[c.left + c.w * 0.8, c.y]]]);
  const after = await until(readout, (r) => r !== before);
  check('touch: a tap pins the x', after !== before, `${before} → ${after}`);
  check('touch: a tap does not move the range', (await xRange(page)).join() === x3.join());

  const scrolled = await page.evaluate(() => scrollY);
  c = await box(page, 'plot-forward');
  await touch(cdp, steps([[c.x, c.y + 80]], [[c.x, c.y - 80]], 10));
  const y = await until(() => page.evaluate(() => scrollY), (s) => s > scrolled + 20, 3000);
  check('touch: an upward drag on the plot scrolls the page', y > scrolled + 20, `scrollY ${scrolled} → ${y}`);
  check('touch: and leaves the range alone', (await xRange(page)).join() === x3.join());
  await page.close();
}

/** The thickest vertical run of colour `rgb` (layout pixels) down the column at `frac` of a canvas' width. */
async function thickness(page, testid, rgb, frac) {
  return page.evaluate(([id, [r, g, b], f]) => {
    const c = document.querySelector(`[data-testid="${id}"]`);
    const x = Math.round(c.width * f);
    const d = c.getContext('2d').getImageData(x, 0, 1, c.height).data;
    let best = 0;
    let run = 0;
    for (let i = 0; i < d.length; i += 4) {
      const near = Math.abs(d[i] - r) + Math.abs(d[i + 1] - g) + Math.abs(d[i + 2] - b) < 60;
      run = near ? run + 1 : 0;
      best = Math.max(best, run);
    }
    return best / (c.width / c.clientWidth);
  }, [testid, rgb, frac]);
}

const BLUE = [0x00, 0x72, 0xb2];

const bodyFont = (page) => page.evaluate(() => parseFloat(getComputedStyle(document.body).fontSize));
const isPresenting = (page) => page.evaluate(() => document.documentElement.classList.contains('presenter'));
const hashOf = (page) => page.evaluate(() => decodeURIComponent(location.hash));

async function presenter(context, url, errors) {
  const page = await context.newPage();
  watch(page, errors);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(url + EXPLORER, { waitUntil: 'load', timeout: TIMEOUT_MS });
  await until(() => canvasStats(page, 'plot-forward'), inked);
  const normalFont = await bodyFont(page);
  const toggle = page.locator('[data-testid="presenter-toggle"]');
  check('presenter: the toggle is not pressed at first', (await toggle.getAttribute('aria-pressed')) === 'false');
  const plain = await canvasStats(page, 'plot-forward');
  const thin = await thickness(page, 'plot-backward', BLUE, 0.96);
  await toggle.click();
  check('presenter: the button turns it on', await until(() => isPresenting(page), Boolean));
  check('presenter: the toggle says so (aria-pressed)', (await toggle.getAttribute('aria-pressed')) === 'true');
  check('presenter: present=1 in the hash, the state kept', /(^|[#&])present=1(&|$)/.test(await hashOf(page)) && (await hashOf(page)).includes('q=larq.'), await hashOf(page));
  const font = await bodyFont(page);
  check('presenter: body text ≥ 24 px at 1280×720', font >= 24, `${font} px (normally ${normalFont} px)`);
  check('presenter: the picker is hidden', !(await page.locator('[data-testid="picker"]').isVisible()));
  check('presenter: the export buttons and the code panel are hidden', !(await page.locator('[data-testid="export-png"]').isVisible()));
  const drawn = await until(() => canvasStats(page, 'plot-forward'), (s) => s && s.hash !== plain.hash);
  check('presenter: the figure is redrawn for the projector', drawn.hash !== plain.hash);
  const thick = await thickness(page, 'plot-backward', BLUE, 0.96);
  check('presenter: curves ≥ 3 px wide', thick >= 3 && thick > thin, `${thick} px (normally ${thin} px)`);
  const fwd = await box(page, 'plot-forward');
  const bwd = await box(page, 'plot-backward');
  check('presenter: both panels fit on the screen at 1280×720', bwd.top + bwd.h <= 720 + 1 && fwd.top >= 0, `forward ${fwd.top.toFixed(0)}–${(fwd.top + fwd.h).toFixed(0)}, backward to ${(bwd.top + bwd.h).toFixed(0)}`);
  const sideways = await layout(page, 'plot-forward');
  check('presenter: nothing scrolls sideways', sideways.scrollWidth <= sideways.innerWidth, `${sideways.scrollWidth} ${sideways.wide.join(' ')}`);
  await shot(page, 'presenter-explorer-1280.png');
  await audit(page, 'the explorer presented');

  await page.reload({ waitUntil: 'load' });
  await until(() => canvasStats(page, 'plot-forward'), inked);
  check('presenter: a reload keeps it', await isPresenting(page));

  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.waitForTimeout(300);
  const big = await bodyFont(page);
  check('presenter: larger type at 1920×1080', big >= font, `${big} px`);
  const thick1920 = await until(() => thickness(page, 'plot-backward', BLUE, 0.96), (t) => t > thick);
  check('presenter: thicker curves at 1920×1080', thick1920 > thick, `${thick1920} px`);
  await shot(page, 'presenter-explorer-1920.png');

  // `p` while typing is text; elsewhere it toggles.
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.locator('[data-testid="plot-forward"]').focus();
  await page.keyboard.press('p');
  check('presenter: the p key turns it off', !(await until(() => isPresenting(page), (v) => !v)));
  check('presenter: present leaves the hash', !(await hashOf(page)).includes('present='), await hashOf(page));
  await page.locator('[data-testid="picker-search"]').focus();
  await page.keyboard.type('p');
  await page.waitForTimeout(200);
  check('presenter: p typed into the search box is text', !(await isPresenting(page)) && (await page.locator('[data-testid="picker-search"]').inputValue()) === 'p');
  await page.locator('[data-testid="picker-search"]').fill('');
  await page.locator('[data-testid="plot-forward"]').focus();
  await page.keyboard.press('p');
  check('presenter: the p key turns it on again', await until(() => isPresenting(page), Boolean));

  await page.keyboard.press('f');
  const full = await until(() => page.evaluate(() => Boolean(document.fullscreenElement)), Boolean, 3000);
  check('presenter: f enters fullscreen', full);
  await page.keyboard.press('f');
  const left = await until(() => page.evaluate(() => !document.fullscreenElement), Boolean, 3000);
  check('presenter: f again leaves it', left);

  // The trainer, presented.
  await page.goto(url + '#present=1&' + TRAIN.slice(1), { waitUntil: 'load', timeout: TIMEOUT_MS });
  await until(() => canvasStats(page, 'train-boundary'), inked);
  check('presenter: the trainer opens presented from a link', await isPresenting(page));
  check('presenter: trainer body text ≥ 24 px', (await bodyFont(page)) >= 24);
  const tb = await box(page, 'train-boundary');
  check('presenter: the trainer\'s boundary is on screen', tb.top + tb.h <= 720, `${tb.top.toFixed(0)}–${(tb.top + tb.h).toFixed(0)}`);
  const lc = await box(page, 'train-loss-curve');
  check('presenter: and its curves beneath it too', lc.top + lc.h <= 720, `loss chart ${lc.top.toFixed(0)}–${(lc.top + lc.h).toFixed(0)}`);
  await shot(page, 'presenter-train-1280.png');
  await audit(page, 'the trainer presented');
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.waitForTimeout(300);
  await shot(page, 'presenter-train-1920.png');
  await page.locator('[data-testid="presenter-toggle"]').click();
  check('presenter: the trainer\'s button turns it off', !(await until(() => isPresenting(page), (v) => !v)));
  await page.close();
}

/** The <iframe> code the Embed dialog gives, parsed. */
async function embedCode(page) {
  await page.locator('[data-testid="embed-open"]').click();
  const code = await page.locator('[data-testid="embed-code"]').inputValue();
  // Parsed here, not in the page: a DOMParser document there takes the page's policy, which
  // refuses the code's style attribute (meant for the embedding page).
  const tag = code.match(/^<iframe\s([^>]*)><\/iframe>$/);
  const attrs = tag && Object.fromEntries([...tag[1].matchAll(/([a-z]+)="([^"]*)"/g)].map(([, k, v]) => [k, v.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&')]));
  const parsed = attrs && { src: attrs.src, width: attrs.width, height: attrs.height, title: attrs.title };
  return { code, parsed };
}

/** What an embedded page shows: visible controls, the bar, the footer link, overflow. */
async function embedded(page) {
  return page.evaluate(() => {
    const visible = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    const controls = [...document.querySelectorAll('button, input, select, textarea')].filter(visible);
    const link = document.querySelector('.embed-footer a');
    return {
      controls: controls.map((e) => e.dataset.testid || e.tagName.toLowerCase()),
      bar: [...document.querySelectorAll('.bar')].some(visible),
      link: link && visible(link) ? { text: link.textContent, href: link.href, target: link.target, rel: link.rel } : null,
      scroll: [document.scrollingElement.scrollWidth, document.scrollingElement.scrollHeight, innerWidth, innerHeight],
    };
  });
}

async function embeds(context, url, errors) {
  const page = await context.newPage();
  watch(page, errors);
  await page.goto(url + EXPLORER, { waitUntil: 'load', timeout: TIMEOUT_MS });
  await until(() => canvasStats(page, 'plot-forward'), inked);
  await shot(page, 'desktop-explorer.png');
  const { code, parsed } = await embedCode(page);
  const src = decodeURIComponent(parsed?.src ?? '');
  check('embed: the dialog gives an <iframe>', parsed !== null, code);
  check('embed: its src has embed=1 and the state', /[#&]embed=1(&|$)/.test(src) && src.includes('q=larq.') && src.includes('x=-2,2') && src.startsWith(url), src);
  check('embed: 720 × 480 with a title', parsed.width === '720' && parsed.height === '480' && parsed.title.startsWith('qscope'));
  await shot(page, 'embed-dialog.png');
  await audit(page, 'the explorer with the Embed dialog open');

  const frame = await context.newPage();
  watch(frame, errors);
  await frame.setViewportSize({ width: 720, height: 480 });
  await frame.goto(parsed.src, { waitUntil: 'load', timeout: TIMEOUT_MS });
  await until(() => canvasStats(frame, 'plot-forward'), inked);
  await until(() => canvasStats(frame, 'plot-backward'), inked);
  const e = await embedded(frame);
  check('embed: no controls, no title bar', e.controls.length === 0 && !e.bar, e.controls.join(' '));
  const fwd = await box(frame, 'plot-forward');
  const bwd = await box(frame, 'plot-backward');
  check('embed: the forward plot fills the width', fwd.w >= 0.9 * 720, `${fwd.w} px`);
  check('embed: the two panels fill the height', bwd.top + bwd.h - fwd.top >= 0.85 * 480 && bwd.top + bwd.h <= 480, `${fwd.top}–${bwd.top + bwd.h}`);
  const f = await canvasStats(frame, 'plot-forward');
  check('embed: the canvas is drawn at its size', f.width >= fwd.w && f.cssWidth === Math.round(fwd.w), JSON.stringify(f));
  check('embed: nothing scrolls', e.scroll[0] <= e.scroll[2] && e.scroll[1] <= e.scroll[3], e.scroll.join(' '));
  check('embed: a footer links to the full view in a new tab', e.link && /open in qscope/.test(e.link.text) && !/embed=1/.test(e.link.href) && e.link.href.includes('q=') && e.link.target === '_blank' && e.link.rel.includes('noopener'), JSON.stringify(e.link));
  await shot(frame, 'embed-explorer.png');
  await audit(frame, 'the embedded explorer');

  // The trainer's figure: boundaries and curves.
  await page.goto(url + TRAIN, { waitUntil: 'load', timeout: TIMEOUT_MS });
  await until(() => canvasStats(page, 'train-boundary'), inked);
  await shot(page, 'desktop-train.png');
  const train = await embedCode(page);
  const tsrc = decodeURIComponent(train.parsed?.src ?? '');
  check('embed: the trainer\'s src has embed=1 and its state', /[#&]embed=1(&|$)/.test(tsrc) && tsrc.includes('view=train') && tsrc.includes('dataset=xor'), tsrc);
  await frame.goto(train.parsed.src, { waitUntil: 'load', timeout: TIMEOUT_MS });
  await until(() => canvasStats(frame, 'train-boundary'), inked);
  const t = await embedded(frame);
  check('embed: the trainer shows no controls', t.controls.length === 0 && !t.bar, t.controls.join(' '));
  const parts = ['train-boundary', 'train-boundary-float', 'train-loss-curve', 'train-acc-curve'];
  const boxes = await Promise.all(parts.map((id) => box(frame, id)));
  const [l, r] = [Math.min(...boxes.map((b) => b.left)), Math.max(...boxes.map((b) => b.left + b.w))];
  const bottom = Math.max(...boxes.map((b) => b.top + b.h));
  check('embed: boundaries and curves fill the frame', r - l >= 0.9 * 720 && bottom <= 480 && bottom >= 0.8 * 480, `x ${l.toFixed(0)}–${r.toFixed(0)}, bottom ${bottom.toFixed(0)}`);
  check('embed: the trainer does not scroll', t.scroll[0] <= t.scroll[2] && t.scroll[1] <= t.scroll[3], t.scroll.join(' '));
  await shot(frame, 'embed-train.png');
  await audit(frame, 'the embedded trainer');

  // In a real <iframe> on another page.
  const host = await context.newPage();
  watch(host, errors);
  await host.setViewportSize({ width: 800, height: 560 });
  await host.setContent(`<!doctype html><body style="margin:24px;background:#eee">${code}</body>`, { waitUntil: 'load' });
  const inner = host.frameLocator('iframe');
  const drawn = await until(
    () => inner.locator('[data-testid="plot-forward"]').evaluate((c) => c.width > 0 && c.clientWidth > 600).catch(() => false),
    Boolean,
  );
  check('embed: the code works in an <iframe>', drawn);
  await host.waitForTimeout(300);
  await shot(host, 'embed-iframe.png');
  await Promise.all([page.close(), frame.close(), host.close()]);
}

main(async (context, url) => {
  const errors = [];
  await phones(context, url, errors);
  await touches(context, url, errors);
  await presenter(context, url, errors);
  await embeds(context, url, errors);
  check('no console errors', errors.length === 0, errors.join('\n'));
});
