// The benchmark tables, from the rows of one run (target/bench.json, docs/bench.json): printed
// by run.mjs after a run and written into the book by book.mjs.

import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { pageTable } from './page.mjs';
import { tensorsTable } from './tensors.mjs';

/** What a run was: when, on what, at which commit, how busy the machine was. */
export function metadata({ root, chromium, options, loadBefore, loadAfter }) {
  const run = (cmd, args) => {
    try {
      return execFileSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return 'unknown';
    }
  };
  const dirty = run('git', ['status', '--porcelain', '--untracked-files=no']);
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    commit: run('git', ['rev-parse', '--short=12', 'HEAD']) + (dirty && dirty !== 'unknown' ? ' (with uncommitted changes)' : ''),
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB`,
    node: process.version,
    chromium: run(chromium, ['--version']),
    load: `${loadBefore} before, ${loadAfter} after (1, 5, 15 min)`,
    options: { n: options.sizes, reps: options.reps, runtimes: options.runtimes, parts: options.parts },
  };
}

/** Every table of a run's rows, as run.mjs prints them. */
export function report(rows) {
  return [table(rows), trainTable(rows), pageTable(rows), tensorsTable(rows)].filter(Boolean).join('\n');
}

const G = (v) => (v === undefined ? '—' : (v / 1e9).toFixed(3));
const R = (v) => (v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(2));

// One row per kernel and size: for each pass the SIMD throughput, its time over the copy's,
// SIMD over scalar and over TF.js; then the native throughputs. Stochastic kernels are marked *.
function table(all) {
  const rows = all.filter((r) => r.pass !== 'train' && r.pass !== 'ui' && !r.kernel.startsWith('tensors:'));
  if (!rows.length) return '';
  const get = (kernel, pass, impl, runtime, n) =>
    rows.find((r) => r.kernel === kernel && r.pass === pass && r.impl === impl && r.runtime === runtime && r.n === n)
      ?.elements_per_s;
  const kernels = [...new Set(rows.filter((r) => r.kernel !== 'copy').map((r) => r.kernel))];
  const stochastic = new Set(rows.filter((r) => r.stochastic).map((r) => r.kernel));
  const name = (k) => (stochastic.has(k) ? `${k} *` : k);
  const sizes = [...new Set(rows.map((r) => r.n))].sort((a, b) => a - b);
  const passes = [['forward', 'fwd'], ['forward_backward', 'f+g']];
  const out = [];
  const head = ['kernel', 'n', ...passes.flatMap(([, p]) => [`${p} G/s`, `${p} t÷copy`, `${p} ÷scalar`, `${p} ÷tfjs`]), 'native fwd', 'native f+g'];
  const grid = (h, body, left) => {
    const widths = h.map((c, i) => Math.max(c.length, ...body.map((b) => b[i].length)));
    const fmt = (cells) => cells.map((c, i) => (i < left ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
    return [fmt(h), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(fmt)];
  };
  for (const runtime of ['chromium', 'node']) {
    if (!rows.some((r) => r.runtime === runtime)) continue;
    out.push(`\n${runtime}: SIMD G elements/s; t÷copy = SIMD time over a copy's (aims: fwd ≤ 2, f+g ≤ 3); ÷scalar, ÷tfjs = throughput ratios; ` +
      `native = target/release/qscope bench G/s; * = stochastic`);
    const body = [];
    const slow = [];
    for (const n of sizes) {
      const copy = get('copy', 'forward', 'copy', runtime, n);
      const size = n >= 1e6 ? `${n / 1e6}M` : String(n);
      for (const k of kernels) {
        const cells = [name(k), size];
        for (const [pass] of passes) {
          const [simd, scalar, tfjs] = ['simd', 'scalar', 'tfjs-wasm'].map((impl) => get(k, pass, impl, runtime, n));
          cells.push(G(simd), R(copy / simd), R(simd / scalar), R(simd / tfjs));
          if (!stochastic.has(k) && simd) slow.push({ k, n: size, pass, ratio: copy / simd });
        }
        body.push([...cells, ...passes.map(([pass]) => G(get(k, pass, 'native', 'native', n)))]);
      }
      body.push([`copy = ${G(copy)} G/s`, size, ...head.slice(2).map(() => '')]);
    }
    out.push(...grid(head, body, 1));
    // The worst five deterministic kernels by time over a copy's, per pass and size.
    for (const n of sizes.map((v) => (v >= 1e6 ? `${v / 1e6}M` : String(v)))) {
      for (const [pass, p] of passes) {
        const worst = slow.filter((r) => r.n === n && r.pass === pass).sort((a, b) => b.ratio - a.ratio).slice(0, 5);
        out.push(`${runtime} n=${n} worst five ${p} t÷copy: ${worst.map((r) => `${r.k} ${R(r.ratio)}`).join(', ')}`);
      }
      // How many deterministic kernels meet both aims (fwd ≤ 2 and f+g ≤ 3 times a copy's time).
      const at = (k, pass) => slow.find((r) => r.n === n && r.k === k && r.pass === pass)?.ratio;
      const measured = kernels.filter((k) => at(k, 'forward') !== undefined && at(k, 'forward_backward') !== undefined);
      const within = measured.filter((k) => at(k, 'forward') <= 2 && at(k, 'forward_backward') <= 3);
      out.push(`${runtime} n=${n} within both aims: ${within.length} of ${measured.length} deterministic kernels`);
    }
  }
  return out.join('\n');
}

// TensorFlow Playground's plain-JavaScript network, 2-8-8-1 at batch 10, forward+backward
// (measured on a 2-core Debian machine; CONTRIBUTING.md, "Toolchain"): the reference of the `vs Playground` column.
const PLAYGROUND_S_PER_SAMPLE = 2.2e-6;
const S = (v) => (v === undefined ? '—' : v >= 1e6 ? `${(v / 1e6).toFixed(2)}M` : `${(v / 1e3).toFixed(1)}k`);

function trainTable(rows) {
  const train = rows.filter((r) => r.pass === 'train');
  if (!train.length) return '';
  const get = (kernel, impl, runtime) =>
    train.find((r) => r.kernel === kernel && r.impl === impl && r.runtime === runtime)?.elements_per_s;
  const kernels = [...new Set(train.map((r) => r.kernel))];
  const batch = train[0].batch;
  const out = [];
  const head = ['network', 'simd', 'scalar', 'native', 'tfjs-wasm', 'SIMD/scalar', 'SIMD/tfjs', 'µs/sample (simd)', 'vs Playground'];
  for (const runtime of ['chromium', 'node']) {
    if (!train.some((r) => r.runtime === runtime)) continue;
    out.push(`\n${runtime}: training (samples/s, batch ${batch}: forward, backward, SGD update); native = target/release/qscope train --bench; ` +
      `vs Playground = SIMD samples/s × ${PLAYGROUND_S_PER_SAMPLE * 1e6} µs (TF Playground's plain-JS 2-8-8-1); ratios use this runtime's figures`);
    const body = kernels.map((k) => {
      const [simd, scalar, tfjs] = [get(k, 'simd', runtime), get(k, 'scalar', runtime), get(k, 'tfjs-wasm', runtime)];
      return [k, S(simd), S(scalar), S(get(k, 'native', 'native')), S(tfjs), R(simd / scalar), R(simd / tfjs),
        simd ? (1e6 / simd).toFixed(3) : '—', k === 'mlp:2-8-8-1' ? R(simd * PLAYGROUND_S_PER_SAMPLE) : '—'];
    });
    const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
    const fmt = (cells) => cells.map((c, i) => (i < 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
    out.push(fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(fmt));
  }
  return out.join('\n');
}

