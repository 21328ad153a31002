// A classroom: the site after one visit works offline and installs (assets/sw.js, written into
// dist/ by scripts/offline.mjs; crates/app/src/offline.rs registers it; the web app manifest), a
// new build is picked up on the next visit, and presenter mode's "follow on your phone" shows a QR
// code that reads back as the page's own link without presenter mode (crates/app/src/follow.rs).
//
// Runs on a copy of dist/ (the test makes a second build of it), with service workers allowed.

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsQR from 'jsqr';
import { DIST, SHOTS, TIMEOUT_MS, canvasStats, check, inked, main, text, until } from './common.mjs';
import { serviceWorker } from '../../scripts/offline.mjs';

const copy = mkdtempSync(join(tmpdir(), 'qscope-offline-'));
cpSync(DIST, copy, { recursive: true });
process.on('exit', () => rmSync(copy, { recursive: true, force: true }));

/** The text a QR code on the page reads as (null: unreadable): its drawing — the SVG's box and
 *  the path of dark modules — painted module by module at `scale` pixels into a bitmap for jsQR.
 *  (Not through an <img>: the page's policy allows images of its own origin only.) */
async function readQr(page, selector, scale = 8) {
  const drawing = await page.evaluate((sel) => {
    const svg = document.querySelector(sel);
    const path = svg?.querySelector('path');
    return svg && path ? { box: svg.getAttribute('viewBox'), d: path.getAttribute('d') } : null;
  }, selector);
  if (!drawing) return null;
  const side = Number(drawing.box.split(' ')[2]);
  const px = side * scale;
  const rgba = new Uint8ClampedArray(px * px * 4).fill(255);
  for (const m of drawing.d.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) {
    const [x0, y, run] = [Number(m[1]), Number(m[2]), Number(m[3])];
    for (let yy = y * scale; yy < (y + 1) * scale; yy++) {
      for (let xx = x0 * scale; xx < (x0 + run) * scale; xx++) rgba.fill(0, (yy * px + xx) * 4, (yy * px + xx) * 4 + 3);
    }
  }
  return jsQR(rgba, px, px)?.data ?? null;
}

const controlled = (page) => page.evaluate(() => Boolean(navigator.serviceWorker?.controller));
const ours = (page) => page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith('qscope-')));

await main(
  async (context, url) => {
    const sw = readFileSync(join(copy, 'sw.js'), 'utf8');
    const files = JSON.parse(sw.match(/^const FILES = (.*);$/m)?.[1] ?? '[]');
    const need = ['index.html', 'worker.js', 'manifest.webmanifest', 'icon-192.png', 'docs/index.html', 'reference/index.html'];
    check(
      'the built sw.js lists every file of the site: the app, its wasm, the book, the reference',
      need.every((f) => files.includes(f)) && files.some((f) => f.endsWith('_bg.wasm')) && !/const VERSION = 'unbuilt'/.test(sw),
      `${files.length} files`,
    );

    const page = context.pages()[0] ?? (await context.newPage());
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(`console.error: ${m.text().slice(0, 300)}`));
    await page.goto(url);
    await until(() => canvasStats(page, 'plot-forward'), inked);
    check('after one visit a service worker controls the page', await until(() => controlled(page), Boolean, 30_000));

    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    check('Chromium finds the site installable (manifest, icons, service worker)', installabilityErrors.length === 0,
      JSON.stringify(installabilityErrors));
    const manifest = await page.evaluate(async () => (await fetch('manifest.webmanifest')).json());
    check('the manifest names the app and opens it standalone at its own folder',
      manifest.short_name === 'qscope' && manifest.display === 'standalone' && manifest.start_url === './', JSON.stringify(manifest));

    // Classroom Wi-Fi fails.
    await context.setOffline(true);
    await page.reload();
    await until(() => canvasStats(page, 'plot-forward'), inked);
    check('offline, a reload draws the explorer', inked(await canvasStats(page, 'plot-forward')));
    await page.goto(`${url}docs/`);
    check('offline, the book opens', (await page.locator('main h1').count()) > 0, await page.title());
    await page.goto(`${url}reference/`);
    const entries = await page.locator('a[href$=".html"]').count();
    check('offline, the quantizer reference opens', entries >= 50, `${entries} links`);
    await page.goto(`${url}#lesson=ste&step=2`);
    await page.locator('[data-testid="lesson-title"]').waitFor({ timeout: TIMEOUT_MS });
    check('offline, a built-in lesson opens at its step', (await text(page, 'lesson-progress')).startsWith('2 /'), await text(page, 'lesson-progress'));
    await context.setOffline(false);

    // A new build on the server: the next visit installs it, the one after runs it.
    const before = await ours(page);
    const html = readFileSync(join(copy, 'index.html'), 'utf8');
    writeFileSync(join(copy, 'index.html'), html.replace('<head>', '<head>\n    <meta name="qscope-test-build" content="2">'));
    const next = serviceWorker(copy);
    writeFileSync(join(copy, 'sw.js'), next.source);
    await page.goto(url);
    // The new worker records its version once it has installed every file and taken over.
    const versions = (page) =>
      page.evaluate(async () => (await (await caches.open('qscope-versions')).match('versions'))?.json() ?? []);
    await until(() => versions(page), (v) => v.includes(`qscope-${next.version}`), 30_000);
    const after = await ours(page);
    check('the next visit installs the new build', after.includes(`qscope-${next.version}`), after.join(', '));
    check('the previous build stays cached beside it', before.filter((k) => k !== 'qscope-versions').every((k) => after.includes(k)),
      `${before.join(', ')} → ${after.join(', ')}`);
    await page.reload();
    const marked = await until(() => page.locator('meta[name="qscope-test-build"]').count(), (n) => n === 1);
    check('the visit after that runs the new build', marked === 1);

    // Presenter mode: a QR code of the step for the students' phones.
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.goto(`${url}#lesson=ste&step=3&present=1`);
    await page.locator('[data-testid="lesson-title"]').waitFor({ timeout: TIMEOUT_MS });
    await page.click('.lesson-bar [data-testid="follow-open"]');
    await page.locator('[data-testid="follow-qr"]').waitFor({ timeout: TIMEOUT_MS });
    const link = await text(page, 'follow-url');
    const here = await page.evaluate(() => location.href);
    check('the phones\' link is the page\'s own, without presenter mode',
      link === here.replace('present=1&', '').replace(/[&]present=1/, '') && link.includes('lesson=ste&step=3') && !link.includes('present'),
      `${link} (page: ${here})`);
    const read = await readQr(page, '[data-testid="follow-qr"]');
    check('the QR code reads back as that link', read === link, String(read));
    const box = await page.locator('[data-testid="follow-qr"]').boundingBox();
    check('the QR code fills most of a 720 px screen\'s height', box && box.height >= 0.5 * 720, JSON.stringify(box));
    const fits = await page.evaluate(() => {
      const d = document.querySelector('[data-testid="follow-dialog"]');
      const url = document.querySelector('[data-testid="follow-url"]').getBoundingClientRect();
      const r = d.getBoundingClientRect();
      return { inside: r.top >= 0 && r.bottom <= innerHeight, scrolls: d.scrollHeight > d.clientHeight + 1, url: url.height };
    });
    check('the code, its link and the note fit a 720 px screen, the link shown', fits.inside && !fits.scrolls && fits.url >= 10, JSON.stringify(fits));
    const problem = await text(page, 'follow-problem').catch(() => '');
    check('on 127.0.0.1 it says phones cannot open this address and how to serve the class',
      problem.includes('127.0.0.1') && problem.includes('scripts/dev serve --lan'), problem);
    await page.screenshot({ path: join(SHOTS, 'offline-follow-1280x720.png') });
    await page.keyboard.press('ArrowRight');
    const moved = await until(() => text(page, 'follow-url'), (l) => l.includes('step=4'));
    check('the code follows the lesson to its next step', moved.includes('step=4') && (await readQr(page, '[data-testid="follow-qr"]')) === moved, moved);
    await page.keyboard.press('Escape');
    await until(() => page.locator('[data-testid="follow-dialog"]').count(), (n) => n === 0);
    check('Esc closes the code and keeps the lesson open', (await page.locator('[data-testid="lesson-bar"]').count()) === 1);
    await page.goto(`${url}#q=ste_sign()&present=1`);
    await page.locator('.bar [data-testid="follow-open"]').waitFor({ timeout: TIMEOUT_MS });
    check('outside a lesson presenter mode offers the code too', await page.locator('.bar [data-testid="follow-open"]').isVisible());
    await page.goto(`${url}#q=ste_sign()`);
    await page.locator('[data-testid="presenter-toggle"]').first().waitFor({ timeout: TIMEOUT_MS });
    check('without presenter mode there is no phones button', (await page.locator('[data-testid="follow-open"]').count()) === 0);

    check('no script error', errors.length === 0, errors.join(' | '));
  },
  { dist: copy, serviceWorkers: 'allow' },
);
