// Shared by the end-to-end tests (explorer, train, modes, lesson): paths, the check list, canvas
// pixel statistics, polling, and `main(run)` — serve the release build (dist/) on 127.0.0.1,
// check that it declares its Content Security Policy, launch Debian's chromium with
// playwright-core (headless, no background networking, a fresh profile), watch every page for
// policy violations and requests leaving the origin (audit.mjs), call `run(context, url)`, fail
// on any violation or outside request, print `e2e: N passed, M failed` and exit non-zero on any
// failure. Environment: QSCOPE_DIST (default dist), CHROMIUM (default /usr/bin/chromium).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/static-server.mjs';
import { cspOf, hashSource, inlineScripts } from '../../scripts/csp.mjs';
import { guard, guardFindings } from './audit.mjs';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const DIST = resolve(ROOT, process.env.QSCOPE_DIST ?? 'dist');
export const SHOTS = join(ROOT, 'target', 'e2e');
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const TIMEOUT_MS = 10_000;

/** Headless, no sandbox, no GPU, and nothing that talks to the network by itself. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const results = [];

/** Records one check; every check can fail. */
/** Records and prints one check; returns whether it passed. */
export function check(name, pass, detail = '') {
  results.push({ name, pass: Boolean(pass) });
  console.log(`${pass ? 'ok  ' : 'FAIL'}  ${name}${detail ? ` — ${detail}` : ''}`);
  return Boolean(pass);
}

// Pixel statistics of a canvas: size, CSS size, a hash of its pixels, and how many pixels
// differ from the top-left (background) pixel.
export async function canvasStats(page, testid) {
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

// Polls `probe` until `done(value)` holds or the timeout passes; returns the last value. A
// probe that throws while the page navigates (a reload's destroyed context) counts as not done
// yet; if it still throws at the timeout, the error is raised.
export async function until(probe, done, timeout = TIMEOUT_MS) {
  const end = Date.now() + timeout;
  const attempt = async () => {
    try {
      return { v: await probe() };
    } catch (error) {
      if (Date.now() >= end) throw error;
      return { error };
    }
  };
  let r = await attempt();
  while ((r.error || !done(r.v)) && Date.now() < end) {
    await new Promise((res) => setTimeout(res, 50));
    r = await attempt();
  }
  if (r.error) throw r.error;
  return r.v;
}

export const text = (page, id) => page.locator(`[data-testid="${id}"]`).innerText({ timeout: TIMEOUT_MS });
export const inked = (s) => s && s.ink > 0.01 * s.width * s.height;


/** The policy the built page declares: own origin only, and inline script by hash alone (Trunk's
 * loader, hashed by scripts/csp.mjs at build time). */
export const POLICY = {
  'default-src': ["'none'"],
  'script-src': ["'self'", "'wasm-unsafe-eval'"],
  'style-src': ["'self'"],
  'img-src': ["'self'"],
  'connect-src': ["'self'"],
  'manifest-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
};

/** Checks that `html` (dist/index.html) declares POLICY, its script-src allowing exactly its inline scripts. */
function builtPolicy(html) {
  const policy = cspOf(html);
  const directives = Object.fromEntries((policy ?? '').split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
  const hashes = inlineScripts(html).map(hashSource);
  const expected = { ...POLICY, 'script-src': [...POLICY['script-src'], ...hashes] };
  const same = JSON.stringify(Object.keys(directives).sort()) === JSON.stringify(Object.keys(expected).sort()) &&
    Object.entries(expected).every(([k, v]) => JSON.stringify(directives[k]) === JSON.stringify(v));
  check('the built page declares its Content Security Policy (own origin; inline script by hash only)', policy !== null && hashes.length >= 1 && same, policy ?? 'no policy');
  const first = html.indexOf('http-equiv="Content-Security-Policy"');
  check('the policy comes before any script, style or link', first > 0 && !/<(script|link|style)\b/i.test(html.slice(0, first)), String(first));
}

/** Serves dist/ (or `options.dist`), runs `run(context, url)` in a fresh headless Chromium, prints
 *  the summary, exits. Service workers are blocked (each test sees the network's files) unless
 *  `options.serviceWorkers` is 'allow'. */
export async function main(run, options = {}) {
  const dist = options.dist ?? DIST;
  let server;
  let context;
  const profile = mkdtempSync(join(tmpdir(), 'qscope-e2e-'));
  try {
    mkdirSync(SHOTS, { recursive: true });
    const built = existsSync(join(dist, 'index.html'));
    check(`the release build exists (${dist})`, built);
    if (built) {
      builtPolicy(readFileSync(join(dist, 'index.html'), 'utf8'));
      server = await serve(dist);
      const url = `http://127.0.0.1:${server.address().port}/`;
      console.log(`serving ${dist} at ${url}`);
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
        viewport: { width: 1360, height: 860 },
        deviceScaleFactor: 2,
        serviceWorkers: options.serviceWorkers ?? 'block',
      });
      await guard(context, url.replace(/\/$/, ''));
      await run(context, url);
      const found = guardFindings();
      check('no Content Security Policy violation, no request leaving the origin', found.length === 0, found.slice(0, 8).join(' | '));
    }
  } catch (e) {
    check('the test ran to the end', false, e?.stack ?? String(e));
  } finally {
    await context?.close().catch(() => {});
    server?.close();
    rmSync(profile, { recursive: true, force: true });
  }

  process.exit(report());
}

/** Prints `e2e: N passed, M failed`; returns the exit code (0: at least one check, none failed). */
export function report() {
  const failed = results.filter((r) => !r.pass).length;
  console.log(`\ne2e: ${results.length - failed} passed, ${failed} failed`);
  return failed === 0 && results.length > 0 ? 0 : 1;
}

/** `qscope compare --tensor TARGET SPEC…` (TARGET: `FILE:NAME`)'s rows: spec → { bits, mse, sqnr };
 *  null (and a failed check) when the CLI is missing or fails. */
export function compareCli(target, specs) {
  const bin = process.env.QSCOPE_BIN ?? join(ROOT, 'target/release/qscope');
  if (!check(`the native CLI exists (${bin})`, existsSync(bin))) return null;
  const r = spawnSync(bin, ['compare', '--tensor', target, ...specs], { encoding: 'utf8' });
  if (!check('qscope compare --tensor runs', r.status === 0, r.stderr)) return null;
  const rows = new Map();
  for (const line of r.stdout.split('\n').filter((l) => l && !l.startsWith('#') && !l.startsWith('bits'))) {
    const [bits, mse, sqnr, spec] = line.split('\t');
    rows.set(spec, { bits, mse, sqnr: Number(sqnr) });
  }
  return rows;
}
