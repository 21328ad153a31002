// `scripts/dev bench`: qscope's WASM kernels (f32x4 SIMD and scalar, same build) against a
// plain copy of the same bytes and against the same quantizers in TensorFlow.js (wasm
// backend), in Node and in headless Chromium, plus the native rows of `qscope bench`; and
// training throughput (samples/s at batch 10) of small MLPs in the same runtimes, against
// the same network in TensorFlow.js, plus the native rows of `qscope train --bench`.
// The measuring code is tests/bench/harness.mjs in both runtimes.
//
//   node tests/bench/run.mjs [--n 1000000,4000000] [--reps 15] [--runtimes node,chromium,native]
//                            [--only kernels,train,page] [--kernels 'SUBSTR|SUBSTR']
//
// --kernels keeps the kernel rows whose spec contains one of the `|`-separated substrings
// (the copy always runs): a quick look at a few kernels.
//
// Needs (scripts/dev bench builds them): target/bench/node and target/bench/web (wasm-bindgen
// output of the release qscope_bench.wasm) and target/release/qscope. Progress goes to stderr, the
// table to stdout, every measurement to target/bench.json with the run's date, machine and commit
// (copy it to docs/bench.json and run `scripts/dev docs` to put it in the book: tests/bench/book.mjs).
// Environment: CHROMIUM (default /usr/bin/chromium).

import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync, spawnSync } from 'node:child_process';
import { benchPage } from './page.mjs';
import { benchTensors } from './tensors.mjs';
import { report, metadata } from './tables.mjs';
import { runBench, TRAIN_ARCHS, TRAIN_BATCH } from './harness.mjs';
import { serve } from '../../scripts/static-server.mjs';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const require = createRequire(import.meta.url);
const log = (line) => process.stderr.write(line + '\n');

function options(argv) {
  const o = { sizes: [1_000_000, 4_000_000], reps: 15, runtimes: ['node', 'chromium', 'native'], parts: ['kernels', 'train', 'page', 'tensors'] };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k} needs a value`);
    if (k === '--n') o.sizes = v.split(',').map(Number);
    else if (k === '--reps') o.reps = Number(v);
    else if (k === '--runtimes') o.runtimes = v.split(',');
    else if (k === '--only') o.parts = v.split(',');
    else if (k === '--kernels') o.kernels = v.split('|');
    else throw new Error(`unknown option ${k}`);
  }
  if (o.sizes.some((n) => !(Number.isInteger(n) && n > 0))) throw new Error('--n: positive integers');
  if (!(Number.isInteger(o.reps) && o.reps >= 10)) throw new Error('--reps: at least 10');
  if (!o.parts.length || o.parts.some((p) => !['kernels', 'train', 'page', 'tensors'].includes(p))) throw new Error('--only: kernels, train, page or tensors (comma-separated)');
  return o;
}

async function benchNode({ sizes, reps, parts, kernels }) {
  const pkg = join(ROOT, 'target/bench/node/qscope_bench.js');
  if (!existsSync(pkg)) throw new Error(`${pkg} missing: run scripts/dev bench (it builds the bindings)`);
  const qscope = require(pkg);
  const qscopeScalar = require(join(ROOT, 'target/bench/node-scalar/qscope_bench.js'));
  // The same union package as the page (the wasm backend registers with its tfjs-core).
  const tf = require('@tensorflow/tfjs');
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(join(ROOT, 'node_modules/@tensorflow/tfjs-backend-wasm/dist') + '/');
  if (!(await tf.setBackend('wasm'))) throw new Error('TF.js wasm backend did not start in Node');
  await tf.ready();
  const env = tf.env();
  log(`node ${process.version}: tfjs ${tf.version.tfjs} backend ${tf.getBackend()}, wasm simd ` +
    `${await env.getAsync('WASM_HAS_SIMD_SUPPORT')}, threads ${await env.getAsync('WASM_HAS_MULTITHREAD_SUPPORT')}`);
  return runBench({ qscope, qscopeScalar, tf, runtime: 'node', sizes, reps, parts, kernels, log });
}

async function benchChromium({ sizes, reps, parts, kernels }) {
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
    return await page.evaluate((o) => window.qscopeBench(o), { sizes, reps, parts, kernels });
  } finally {
    await context?.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

function benchNative({ sizes, reps, parts, kernels }) {
  const bin = join(ROOT, 'target/release/qscope');
  if (!existsSync(bin)) throw new Error(`${bin} missing: cargo build --release --bin qscope`);
  const run = (args) => {
    log(`native: ${bin} ${args.join(' ')}`);
    const r = spawnSync(bin, args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`qscope ${args[0]} failed (${r.status}): ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  const rows = [];
  if (parts.includes('kernels')) {
    const keep = (k) => k === 'copy' || !kernels || kernels.some((s) => k.includes(s));
    for (const x of run(['bench', '--n', sizes.join(','), '--reps', String(reps)]).filter((x) => keep(x.kernel))) {
      log(`native n=${x.n} ${x.impl.padEnd(9)} ${x.pass.padEnd(16)} ${x.kernel}: ${(x.elements_per_s / 1e9).toFixed(3)} G/s`);
      rows.push(x);
    }
  }
  if (parts.includes('train')) {
    // The same networks as the harness' TRAIN_ARCHS, float and :q4, ~1 s each.
    const args = ['train', '--bench', '--arch', TRAIN_ARCHS.join(','), '--batch', String(TRAIN_BATCH), '--seconds', '1', '--quantized'];
    for (const x of run(args)) {
      log(`native batch ${x.batch} ${x.impl.padEnd(9)} train ${x.kernel}: ${(x.elements_per_s / 1e3).toFixed(1)} k samples/s (${(1e6 / x.elements_per_s).toFixed(3)} µs/sample)`);
      rows.push(x);
    }
  }
  return rows;
}

// ── main ─────────────────────────────────────────────────────────────
const o = options(process.argv.slice(2));
const start = performance.now();
const load = () => loadavg().map((v) => v.toFixed(2)).join(' ');
const startLoad = load();
log(`${cpus().length} × ${cpus()[0]?.model}; load average ${startLoad}`);
if (loadavg()[0] > 0.8) log('WARNING: the machine is busy (1-minute load average > 0.8): figures will be low and noisy');
const rows = [];
for (const runtime of o.runtimes) {
  const t = performance.now();
  log(`== ${runtime}`);
  // The page part runs in Chromium only; kernels and train in every runtime.
  const harness = o.parts.some((p) => p === 'kernels' || p === 'train');
  if (runtime === 'node') {
    if (harness) rows.push(...(await benchNode(o)));
  } else if (runtime === 'chromium') {
    if (harness) rows.push(...(await benchChromium(o)));
    if (o.parts.includes('page')) rows.push(...(await benchPage({ root: ROOT, chromiumPath: CHROMIUM, log })));
  } else if (runtime === 'native') {
    if (harness) rows.push(...benchNative(o));
    // Opening and scanning a checkpoint: the CLI, and the page's "Open a tensor…" beside it.
    if (o.parts.includes('tensors')) rows.push(...(await benchTensors({ root: ROOT, chromiumPath: CHROMIUM, log })));
  }
  else throw new Error(`unknown runtime ${runtime}`);
  log(`== ${runtime} done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}
const outFile = join(ROOT, 'target/bench.json');
// `batch` only on the training rows, `fps` only on the Train view's rows, `stochastic` only on
// stochastic kernels', `ms` only on the explorer's.
const keys = ['kernel', 'pass', 'impl', 'runtime', 'n', 'batch', 'fps', 'stochastic', 'elements_per_s', 'ms', 'longest_ms', 'ratio', 'peak_mb'];
const pick = (r) => Object.fromEntries(keys.filter((k) => r[k] !== undefined).map((k) => [k, r[k]]));
const meta = metadata({ root: ROOT, chromium: CHROMIUM, options: o, loadBefore: startLoad, loadAfter: load() });
writeFileSync(outFile, JSON.stringify({ meta, rows: rows.map(pick) }, null, 1) + '\n');
console.log(report(rows));
log(`\nwrote ${outFile} (${rows.length} rows) in ${((performance.now() - start) / 1000).toFixed(1)} s; load average ${load()}`);
