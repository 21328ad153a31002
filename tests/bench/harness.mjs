// The benchmark harness, shared by Node (tests/bench/run.mjs) and headless Chromium
// (tests/bench/index.html): no Node or DOM imports; the qscope bindings and TensorFlow.js
// are passed in.
//
// For each n, in one run: a plain copy of the same bytes (WasmWorkload.copy, the
// memory-bandwidth limit), the qscope kernels with f32x4 SIMD and forced scalar (same
// build), and the same fake-quantize-with-STE written the idiomatic way in TensorFlow.js
// (tfjs ops under tf.tidy; tf.grad of sum(q(x)) with tf.customGrad for the STE).
//
// Timing: a timed run is k back-to-back calls of the measured function between two
// performance.now() reads, k doubled during warm-up until a run lasts ≥ MIN_RUN_MS (a
// non-isolated page coarsens performance.now() to 0.1 ms, and a 1M copy takes ~0.1 ms;
// at 20 ms a tick is 0.5 %); the figure is the median over `reps` timed runs of n·k / time.
//
// Training (pass `train`, kernel `mlp:2-8-8-1` etc.): samples per second through forward,
// backward and SGD update at batch 10, one step per call: qscope's WasmTrainer (the same
// network as `qscope train --bench`, in the SIMD and the scalar build, float and with 4-bit
// weights and activations, `:q4`) and the same float network in TensorFlow.js (see
// tfjsTrainer). Timed like the kernels, after a warm-up of TRAIN_WARM_MS (TF.js' JavaScript
// needs ~2 s of training before V8 has it at full speed), with TRAIN_RUN_MS runs.

export const MIN_RUN_MS = 20;
export const TRAIN_ARCHS = ['2-8-8-1', '2-64-64-64-1'];
export const TRAIN_BATCH = 10;
export const TRAIN_LR = 0.01; // crates/bench/src/train.rs
export const TRAIN_RUN_MS = 50;
export const TRAIN_WARM_MS = { qscope: 300, tfjs: 2000 };

/** The benchmark kernels (crates/bench/src/lib.rs EXTRA) and their TensorFlow.js versions. */
export function tfjsKernels(tf) {
  const one = () => tf.scalar(1);
  // Larq's sign: sign(sign(x) + 0.1), i.e. 0 ↦ +1.
  const signPlus = (x) => tf.sign(tf.sign(x).add(0.1));
  return [
    {
      spec: 'qkeras.quantized_bits(4,0,1)',
      // clip(round(8x), −7, 7) / 8; STE: gradient 1 everywhere.
      forward: (x) => tf.round(x.mul(8)).clipByValue(-7, 7).div(8),
      grad: (dy) => dy,
    },
    {
      spec: 'qkeras.ternary()',
      // sign(x)·[|x| ≥ 0.33]; gradient 1 − tanh²(x) (alpha None).
      forward: (x) => tf.sign(x).mul(tf.abs(x).greaterEqual(0.33).cast('float32')),
      grad: (dy, x) => dy.mul(one().sub(tf.tanh(x).square())),
    },
    {
      spec: 'larq.ste_sign',
      // x ≥ 0 ? 1 : −1; gradient 1[|x| ≤ 1] (Larq's ste_sign with clip_value 1).
      forward: signPlus,
      grad: (dy, x) => tf.where(tf.abs(x).lessEqual(1), dy, tf.zerosLike(dy)),
    },
    {
      spec: 'qkeras.quantized_po2(4)',
      // sign⁺(x)·2^clip(round(log2|x|), −4, 3), |x| < 1e−7 ↦ 2^−4; STE: gradient 1.
      forward: (x) => {
        const s = tf.sign(x);
        const sp = s.add(one().sub(tf.abs(s)));
        const a = tf.abs(x);
        const safe = tf.where(a.less(1e-7), tf.fill(a.shape, 2 ** -4), a);
        const e = tf.round(tf.log(safe).div(Math.LN2)).clipByValue(-4, 3);
        return sp.mul(tf.pow(tf.scalar(2), e));
      },
      grad: (dy) => dy,
    },
    {
      spec: 'larq.approx_sign',
      // sign⁺(x); gradient (2 − 2|x|)·1[|x| ≤ 1] (Larq's approx_sign).
      forward: signPlus,
      grad: (dy, x) => {
        const a = tf.abs(x);
        return tf.where(a.lessEqual(1), one().sub(a).mul(2).mul(dy), tf.zerosLike(dy));
      },
    },
  ];
}

/** q(x) with its straight-through gradient, as tf.customGrad. */
export function withSte(tf, k) {
  return tf.customGrad((x, save) => {
    save([x]);
    return { value: k.forward(x), gradFunc: (dy, [xs]) => k.grad(dy, xs) };
  });
}

/** crates/quant/src/inputs.rs `spread(n)`, bit for bit: a 64-bit LCG, top 24 bits → [−2, 2). */
export function inputs(n) {
  const out = new Float32Array(n);
  const M = (1n << 64n) - 1n;
  let s = 0x2545f4914f6cdd1dn;
  for (let i = 0; i < n; i++) {
    s = (s * 6364136223846793005n + 1442695040888963407n) & M;
    out[i] = (Number(s >> 40n) / 16777216) * 4 - 2; // exact in float32
  }
  return out;
}

export function median(v) {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Elements per second of `fn` over n elements: median of `reps` timed runs after warm-up
 * (calls for `warmMs`, then calibration). Also returns k, the calls per timed run.
 */
export function measure(fn, n, reps, { minRunMs = MIN_RUN_MS, warmMs = 0 } = {}) {
  const now = () => performance.now();
  const tw = now();
  do fn();
  while (now() - tw < warmMs);
  // Calibration: double k until k calls take ≥ minRunMs.
  let k = 1;
  for (;;) {
    const t0 = now();
    for (let i = 0; i < k; i++) fn();
    if (now() - t0 >= minRunMs) break;
    k *= 2;
  }
  const rates = new Array(reps);
  for (let r = 0; r < reps; r++) {
    const t0 = now();
    for (let i = 0; i < k; i++) fn();
    const t1 = now();
    rates[r] = (n * k) / ((t1 - t0) / 1000);
  }
  return { eps: median(rates), k };
}

const sum = (a) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i];
  return s;
};
const sumAbs = (a) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i]);
  return s;
};

/**
 * Checks once, on a small input, that TF.js and the qscope wasm agree: WasmWorkload's
 * checksum is Σy (after forward) and Σy + Σg (after forward_backward), summed in f64 in
 * order, so identical outputs give identical sums. Returns warning lines (none: agreement).
 */
export function checkAgreement(tf, qscope, n = 4099) {
  const warnings = [];
  const xs = inputs(n);
  for (const k of tfjsKernels(tf)) {
    const w = new qscope.WasmWorkload(k.spec, n);
    qscope.set_scalar(false);
    w.forward();
    const fwdWasm = w.checksum();
    w.forward_backward();
    const gradWasm = w.checksum() - fwdWasm;
    w.free();
    const q = withSte(tf, k);
    const x = tf.tensor1d(xs);
    const [yt, gt] = [tf.tidy(() => k.forward(x)), tf.tidy(() => tf.grad((v) => q(v).sum())(x))];
    const [y, g] = [yt.dataSync(), gt.dataSync()];
    tf.dispose([x, yt, gt]);
    const [fy, fg] = [sum(y), sum(g)];
    const tolY = 1e-9 * sumAbs(y);
    const tolG = 1e-5 * sumAbs(g); // tanh: TensorFlow's float32 approximation vs TF.js'
    if (!(Math.abs(fy - fwdWasm) <= tolY)) {
      warnings.push(`${k.spec}: forward disagrees: Σy TF.js ${fy} vs wasm ${fwdWasm} (n=${n})`);
    }
    if (!(Math.abs(fg - gradWasm) <= tolG)) {
      warnings.push(`${k.spec}: gradient disagrees: Σg TF.js ${fg} vs wasm ${gradWasm} (n=${n})`);
    }
  }
  return warnings;
}

// ── training ─────────────────────────────────────────────────────────

/**
 * The float network of `qscope.WasmTrainer(arch, batch, false)` in TensorFlow.js, from its
 * initial weights and on its 250 training points: dense layers with tanh (the output too:
 * loss ½(tanh z − t)², mean over the batch, as crates/nn/src/loss.rs SquaredError), plain SGD.
 * Written the fast idiomatic way: tf.variable weights and optimizer.minimize under tf.tidy
 * (no loss read back), batches cycled through pre-made tensors. In Node that measured
 * ~1.5× the speed of the Layers API (tf.sequential + model.trainOnBatch, which is async and
 * reads the loss back) on both networks, so it is the reference.
 */
export function tfjsTrainer(tf, t, arch, batch, lr) {
  const widths = arch.split('-').map(Number);
  const d = widths[0];
  const [xs, ys] = [t.train_x(), t.train_y()];
  const W = [];
  const b = [];
  for (let l = 0; l + 1 < widths.length; l++) {
    // tf.variable keeps its initial tensor's data; the initial tensor itself must go.
    const [w0, b0] = [tf.tensor2d(t.weights(l), [widths[l], widths[l + 1]]), tf.tensor1d(t.bias(l))];
    W.push(tf.variable(w0));
    b.push(tf.variable(b0));
    tf.dispose([w0, b0]);
  }
  const forward = (x) => {
    let h = x;
    for (let l = 0; l < W.length; l++) h = tf.tanh(h.matMul(W[l]).add(b[l]));
    return h;
  };
  const loss = (x, y) => forward(x).sub(y).square().mean().mul(0.5);
  const rows = (start, m) => [
    tf.tensor2d(xs.subarray(start * d, (start + m) * d), [m, d]),
    tf.tensor2d(ys.subarray(start, start + m), [m, 1]),
  ];
  const batches = [];
  for (let s = 0; s + batch <= ys.length; s += batch) batches.push(rows(s, batch));
  const opt = tf.train.sgd(lr);
  let i = 0;
  return {
    step() {
      const [x, y] = batches[i];
      i = (i + 1) % batches.length;
      tf.tidy(() => opt.minimize(() => loss(x, y), false));
    },
    /** Mean loss and Σ of every gradient on training points start…start+m−1 (no update). */
    lossAndGradients(start, m) {
      const [x, y] = rows(start, m);
      const { value, grads } = tf.variableGrads(() => loss(x, y), [...W, ...b]);
      const g = Object.values(grads).map((v) => v.dataSync());
      const out = { loss: value.dataSync()[0], gradSum: g.reduce((a, v) => a + sum(v), 0), gradAbs: g.reduce((a, v) => a + sumAbs(v), 0) };
      tf.dispose([x, y, value, ...Object.values(grads)]);
      return out;
    },
    /** Mean loss over the last batch stepped (a sanity figure). */
    lastLoss() {
      const [x, y] = batches[(i + batches.length - 1) % batches.length];
      const v = tf.tidy(() => loss(x, y));
      const out = v.dataSync()[0];
      v.dispose();
      return out;
    },
    dispose() {
      tf.dispose([...W, ...b, ...batches.flat()]);
      opt.dispose();
    },
  };
}

/**
 * Checks once that TF.js builds the same network and loss as qscope: from the same initial
 * weights, the mean loss and Σ of the gradients on the first `batch` training points.
 */
export function checkTrainAgreement(tf, qscope, batch = TRAIN_BATCH) {
  const warnings = [];
  for (const arch of TRAIN_ARCHS) {
    const t = new qscope.WasmTrainer(arch, batch, false);
    const tt = tfjsTrainer(tf, t, arch, batch, TRAIN_LR);
    const r = tt.lossAndGradients(0, batch);
    const lq = t.loss_and_gradients(Uint32Array.from({ length: batch }, (_, j) => j));
    const gq = t.grad_checksum();
    tt.dispose();
    t.free();
    if (!(Math.abs(r.loss - lq) <= 1e-5 * Math.abs(lq))) warnings.push(`mlp:${arch}: loss TF.js ${r.loss} vs qscope ${lq}`);
    if (!(Math.abs(r.gradSum - gq) <= 1e-5 * r.gradAbs)) {
      warnings.push(`mlp:${arch}: Σ gradients TF.js ${r.gradSum} vs qscope ${gq} (Σ|g| ${r.gradAbs})`);
    }
  }
  return warnings;
}

async function benchTrain({ qscope, qscopeScalar, tf, runtime, reps, log }) {
  const rows = [];
  const yieldNow = () => new Promise((r) => setTimeout(r, 0));
  const batch = TRAIN_BATCH;
  const row = (kernel, impl, m, loss) => {
    const n = batch * m.k * reps;
    rows.push({ kernel, pass: 'train', impl, runtime, n, batch, elements_per_s: Math.round(m.eps) });
    log(`${runtime} batch ${batch} ${impl.padEnd(9)} train ${kernel}: ${(m.eps / 1e3).toFixed(1)} k samples/s ` +
      `(${(1e6 / m.eps).toFixed(3)} µs/sample, k=${m.k}, last batch loss ${loss.toPrecision(3)})`);
    if (!Number.isFinite(loss)) log(`WARNING: ${kernel} (${impl}): non-finite loss`);
  };
  const disagree = checkTrainAgreement(tf, qscope);
  for (const line of disagree) log(`WARNING: TF.js and qscope training disagree: ${line}`);
  if (!disagree.length) {
    log(`${runtime}: TF.js and qscope agree on the loss and Σ gradients of ${TRAIN_ARCHS.map((a) => `mlp:${a}`).join(', ')} (same weights, first batch; 1e-5 relative)`);
  }
  const opts = (warmMs) => ({ minRunMs: TRAIN_RUN_MS, warmMs });
  for (const arch of TRAIN_ARCHS) {
    for (const quantized of [false, true]) {
      const kernel = `mlp:${arch}${quantized ? ':q4' : ''}`;
      for (const [impl, module] of [['simd', qscope], ['scalar', qscopeScalar]]) {
        const t = new module.WasmTrainer(arch, batch, quantized);
        const m = measure(() => t.steps(1), batch, reps, opts(TRAIN_WARM_MS.qscope));
        if (!Number.isFinite(t.checksum())) log(`WARNING: ${kernel} (${impl}): non-finite weights`);
        row(kernel, impl, m, t.loss());
        t.free();
        await yieldNow();
      }
    }
    const t = new qscope.WasmTrainer(arch, batch, false);
    const tt = tfjsTrainer(tf, t, arch, batch, TRAIN_LR);
    t.free();
    const m = measure(() => tt.step(), batch, reps, opts(TRAIN_WARM_MS.tfjs));
    row(`mlp:${arch}`, 'tfjs-wasm', m, tt.lastLoss());
    tt.dispose();
    await yieldNow();
  }
  return rows;
}

/**
 * Runs every measurement. `qscope`: { WasmWorkload, WasmTrainer, set_scalar, simd_enabled };
 * `tf`: TensorFlow.js with the wasm backend active; `parts`: 'kernels' and/or 'train';
 * `kernels`: substrings, one of which a kernel's spec contains to be measured (all if absent);
 * `log(line)`: progress. Returns rows { kernel, pass, impl, runtime, n, elements_per_s } (and
 * `batch` for the training rows, where n is the number of samples trained while timed).
 */
export async function runBench({ qscope, qscopeScalar, tf, runtime, sizes, reps, parts = ['kernels', 'train'], kernels, log }) {
  if (!qscope.simd_enabled()) log(`WARNING: this qscope build has no f32x4 path (simd_enabled() is false)`);
  if (qscopeScalar.simd_enabled()) log(`WARNING: the scalar qscope build has the f32x4 path`);
  const rows = parts.includes('kernels') ? await benchKernels({ qscope, qscopeScalar, tf, runtime, sizes, reps, only: kernels, log }) : [];
  if (parts.includes('train')) rows.push(...(await benchTrain({ qscope, qscopeScalar, tf, runtime, reps, log })));
  if (tf.memory().numTensors > 0) log(`note: ${tf.memory().numTensors} TF.js tensors still alive`);
  return rows;
}

async function benchKernels({ qscope, qscopeScalar, tf, runtime, sizes, reps, only, log }) {
  const rows = [];
  const yieldNow = () => new Promise((r) => setTimeout(r, 0));
  // Stochastic kernels are marked (the aims for a copy's time are the deterministic ones').
  const stochastic = (kernel) => kernel !== 'copy' && qscope.bench_stochastic(kernel);
  const row = (kernel, pass, impl, n, m) => {
    rows.push({ kernel, pass, impl, runtime, n, ...(stochastic(kernel) && { stochastic: true }), elements_per_s: Math.round(m.eps) });
    log(`${runtime} n=${n} ${impl.padEnd(9)} ${pass.padEnd(16)} ${kernel}: ${(m.eps / 1e9).toFixed(3)} G/s (k=${m.k})`);
  };
  const disagree = checkAgreement(tf, qscope);
  for (const line of disagree) log(`WARNING: TF.js and qscope disagree: ${line}`);
  if (!disagree.length) log(`${runtime}: TF.js and qscope agree on 4099 inputs (Σy to 1e-9, Σ∂y/∂x to 1e-5, relative) for all ${tfjsKernels(tf).length} kernels`);
  const tfjs = new Map(tfjsKernels(tf).map((k) => [k.spec, k]));
  const all = qscope.bench_kernels();
  const kernels = all.filter((k) => !only || only.some((s) => k.includes(s)));
  for (const n of sizes) {
    const xs = inputs(n);
    // The copy: same bytes in, same bytes out, as a forward.
    {
      const w = new qscope.WasmWorkload(all[0], n);
      row('copy', 'forward', 'copy', n, measure(() => w.copy(), n, reps));
      w.free();
    }
    await yieldNow();
    for (const spec of kernels) {
      // SIMD: the f32x4 build; scalar: the same code built without simd128.
      for (const [impl, module] of [['simd', qscope], ['scalar', qscopeScalar]]) {
        const w = new module.WasmWorkload(spec, n);
        row(spec, 'forward', impl, n, measure(() => w.forward(), n, reps));
        row(spec, 'forward_backward', impl, n, measure(() => w.forward_backward(), n, reps));
        if (!Number.isFinite(w.checksum())) log(`WARNING: ${spec} (${impl}): non-finite checksum`);
        w.free();
        await yieldNow();
      }
      const k = tfjs.get(spec);
      if (!k) continue;

      const x = tf.tensor1d(xs);
      const q = withSte(tf, k);
      const dq = tf.grad((v) => q(v).sum());
      row(k.spec, 'forward', 'tfjs-wasm', n, measure(() => {
        const y = tf.tidy(() => k.forward(x));
        y.dataSync();
        y.dispose();
      }, n, reps));
      row(k.spec, 'forward_backward', 'tfjs-wasm', n, measure(() => {
        const g = tf.tidy(() => dq(x));
        g.dataSync();
        g.dispose();
      }, n, reps));
      x.dispose();
      await yieldNow();
    }
  }
  return rows;
}
