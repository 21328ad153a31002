// `scripts/dev bench`: qscope's WASM kernels (f32x4 SIMD and scalar, same build) against a
// plain copy of the same bytes and against the same quantizers in TensorFlow.js (wasm
// backend), in Node and in headless Chromium, plus the native rows of `qscope bench`.
// The measuring code is tests/bench/harness.mjs in both runtimes.
//
//   node tests/bench/run.mjs [--n 1000000,4000000] [--reps 15] [--runtimes node,chromium,native]
//
// Needs (scripts/dev bench builds them): target/bench/node and target/bench/web (wasm-bindgen
// output of the release qscope.wasm) and target/release/qscope. Progress goes to stderr, the
// table to stdout, every measurement to target/bench.json.
// Environment: CHROMIUM (default /usr/bin/chromium).

import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync, spawnSync } from 'node:child_process';
import { runBench } from './harness.mjs';
import { serve } from '../../scripts/static-server.mjs';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const require = createRequire(import.meta.url);
const log = (line) => process.stderr.write(line + '\n');

function options(argv) {
  const o = { sizes: [1_000_000, 4_000_000], reps: 15, runtimes: ['node', 'chromium', 'native'] };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k} needs a value`);
    if (k === '--n') o.sizes = v.split(',').map(Number);
    else if (k === '--reps') o.reps = Number(v);
    else if (k === '--runtimes') o.runtimes = v.split(',');
    else throw new Error(`unknown option ${k}`);
  }
  if (o.sizes.some((n) => !(Number.isInteger(n) && n > 0))) throw new Error('--n: positive integers');
  if (!(Number.isInteger(o.reps) && o.reps >= 10)) throw new Error('--reps: at least 10');
  return o;
}

async function benchNode({ sizes, reps }) {
  const pkg = join(ROOT, 'target/bench/node/qscope.js');
  if (!existsSync(pkg)) throw new Error(`${pkg} missing: run scripts/dev bench (it builds the bindings)`);
  const qscope = require(pkg);
  const qscopeScalar = require(join(ROOT, 'target/bench/node-scalar/qscope.js'));
  // The same union package as the page (the wasm backend registers with its tfjs-core).
  const tf = require('@tensorflow/tfjs');
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(join(ROOT, 'node_modules/@tensorflow/tfjs-backend-wasm/dist') + '/');
  if (!(await tf.setBackend('wasm'))) throw new Error('TF.js wasm backend did not start in Node');
  await tf.ready();
  const env = tf.env();
  log(`node ${process.version}: tfjs ${tf.version.tfjs} backend ${tf.getBackend()}, wasm simd ` +
    `${await env.getAsync('WASM_HAS_SIMD_SUPPORT')}, threads ${await env.getAsync('WASM_HAS_MULTITHREAD_SUPPORT')}`);
  return runBench({ qscope, qscopeScalar, tf, runtime: 'node', sizes, reps, log });
}

async function benchChromium({ sizes, reps }) {
  const { chromium } = await import('playwright-core');
  const server = await serve(ROOT, 0);
  const profile = mkdtempSync(join(tmpdir(), 'qscope-bench-chromium-'));
  let context;
  try {
    // A fresh profile (user data dir) each run; no background networking.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ],
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => log(m.type() === 'log' ? m.text() : `[console.${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => log(`[pageerror] ${e.message}`));
    const origin = `http://127.0.0.1:${server.address().port}`;
    // Nothing but the local server: any other request is a mistake, fail it loudly.
    await page.route((url) => !url.href.startsWith(origin + '/') && !url.href.startsWith('data:'), (route) => {
      log(`[blocked] ${route.request().url()}`);
      return route.abort();
    });
    await page.goto(`${origin}/tests/bench/index.html`);
    await page.waitForFunction(() => window.qscopeBenchReady === true, null, { timeout: 30_000 });
    log(`chromium: ${execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()}`);
    return await page.evaluate((o) => window.qscopeBench(o), { sizes, reps });
  } finally {
    await context?.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

function benchNative({ sizes, reps }) {
  const bin = join(ROOT, 'target/release/qscope');
  if (!existsSync(bin)) throw new Error(`${bin} missing: cargo build --release --bin qscope`);
  log(`native: ${bin} bench --n ${sizes.join(',')} --reps ${reps}`);
  const r = spawnSync(bin, ['bench', '--n', sizes.join(','), '--reps', String(reps)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`qscope bench failed (${r.status}): ${r.stderr}`);
  const rows = JSON.parse(r.stdout);
  for (const x of rows) log(`native n=${x.n} ${x.impl.padEnd(9)} ${x.pass.padEnd(16)} ${x.kernel}: ${(x.elements_per_s / 1e9).toFixed(3)} G/s`);
  return rows;
}

// ── the table ────────────────────────────────────────────────────────
const G = (v) => (v === undefined ? '—' : (v / 1e9).toFixed(3));
const R = (v) => (v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(2));

function table(rows) {
  const get = (kernel, pass, impl, runtime, n) =>
    rows.find((r) => r.kernel === kernel && r.pass === pass && r.impl === impl && r.runtime === runtime && r.n === n)
      ?.elements_per_s;
  const kernels = [...new Set(rows.filter((r) => r.kernel !== 'copy').map((r) => r.kernel))];
  const sizes = [...new Set(rows.map((r) => r.n))].sort((a, b) => a - b);
  const out = [];
  const head = ['kernel', 'pass', 'n', 'simd', 'scalar', 'native', 'copy', 'tfjs-wasm', 'SIMD/scalar', 't(SIMD)/t(copy)', 'SIMD/tfjs'];
  for (const runtime of ['chromium', 'node']) {
    if (!rows.some((r) => r.runtime === runtime)) continue;
    out.push(`\n${runtime}: G elements/s; native = target/release/qscope bench (same kernels, x86-64 release build); ratios use this runtime's figures`);
    const body = [];
    for (const n of sizes) {
      const copy = get('copy', 'forward', 'copy', runtime, n);
      for (const k of kernels) {
        for (const pass of ['forward', 'forward_backward']) {
          const simd = get(k, pass, 'simd', runtime, n);
          const scalar = get(k, pass, 'scalar', runtime, n);
          const tfjs = get(k, pass, 'tfjs-wasm', runtime, n);
          body.push([k, pass === 'forward' ? 'fwd' : 'fwd+grad', n >= 1e6 ? `${n / 1e6}M` : String(n),
            G(simd), G(scalar), G(get(k, pass, 'native', 'native', n)), G(copy), G(tfjs),
            R(simd / scalar), R(copy / simd), R(simd / tfjs)]);
        }
      }
    }
    const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
    const fmt = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
    out.push(fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(fmt));
  }
  return out.join('\n');
}

// ── main ─────────────────────────────────────────────────────────────
const o = options(process.argv.slice(2));
const start = performance.now();
const load = () => loadavg().map((v) => v.toFixed(2)).join(' ');
log(`${cpus().length} × ${cpus()[0]?.model}; load average ${load()}`);
if (loadavg()[0] > 0.8) log('WARNING: the machine is busy (1-minute load average > 0.8): figures will be low and noisy');
const rows = [];
for (const runtime of o.runtimes) {
  const t = performance.now();
  log(`== ${runtime}`);
  if (runtime === 'node') rows.push(...(await benchNode(o)));
  else if (runtime === 'chromium') rows.push(...(await benchChromium(o)));
  else if (runtime === 'native') rows.push(...benchNative(o));
  else throw new Error(`unknown runtime ${runtime}`);
  log(`== ${runtime} done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}
const outFile = join(ROOT, 'target/bench.json');
const keys = ['kernel', 'pass', 'impl', 'runtime', 'n', 'elements_per_s'];
writeFileSync(outFile, JSON.stringify(rows.map((r) => Object.fromEntries(keys.map((k) => [k, r[k]]))), null, 1) + '\n');
console.log(table(rows));
log(`\nwrote ${outFile} (${rows.length} rows) in ${((performance.now() - start) / 1000).toFixed(1)} s; load average ${load()}`);
