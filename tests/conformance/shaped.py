#!/usr/bin/env python3
"""Shape-aware conformance vectors: QKeras / Larq weight quantizers on 1-D, 2-D, 4-D tensors.

generate.py feeds every grid as shape (N, 1), so per-channel statistics see one
channel.  This script evaluates the data-dependent (per-channel or per-tensor)
weight quantizers on real weight shapes:

    (8,)            1-D, for contrast
    (16, 8)         Dense kernel (in, out)
    (3, 3, 4, 6)    Conv2D kernel (kh, kw, cin, cout)
    (16, 8) zero    same as (16, 8) with output channel 3 set to all zeros

Inputs: x = N(0, 1) * 0.5 (numpy RandomState, seed from the shape), then
output channel c (index c along the LAST axis) multiplied by (1 + c), so
per-channel and per-tensor scales differ visibly.  The same x is used for
every quantizer of a shape.

Output: shaped.txt next to this script, in qkeras.txt's line format (see
generate.py) with one extra line after `kind`:

    shape <d0> <d1> ...

x, y and dydx list all elements in row-major (C) order of that shape; the
library is evaluated on tf.constant(x.reshape(shape)) (float32), dydx is
d(sum(y))/dx by tf.GradientTape (a None gradient is written as zeros).  Only
deterministic quantizers (kind exact).  Every case is evaluated in train and
infer mode (learning phase 1 / 0); an infer case is written only where it
differs from train (none does with the pinned versions; the header says so).

Each case is preceded by a comment saying what the evaluation matches:
  "== flattened (N,1)"        per-tensor statistic,
  "== per slice along axis a" evaluating every x[..., i, ...] (index i on axis
                              a) separately as shape (M, 1) gives the same y
                              (i.e. the statistic reduces over all other axes),
(for scale_axis=0 specs the one-channel shape is (1, N) / (1, M) instead;
on 1-D x "per slice along axis 0" means per element, fed as (1, 1)),
with "bitwise" or the largest |difference| (reduction order may change the
last bit of a mean).

Run (same venv and QKeras source as generate.py; see its docstring):

    QKERAS_SRC=.venv/qkeras-src QKERAS_COMMIT=78ea90fc381fef23faa4db0e1d88bd1173c1c644 \
        .venv/tf/bin/python tests/conformance/shaped.py

Deterministic: a rerun writes identical bytes.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import generate as g  # noqa: E402  (sets up TF threads, imports qkeras / larq)

np, tf, F32 = g.np, g.tf, g.F32

SHAPES = [((8,), None), ((16, 8), None), ((3, 3, 4, 6), None), ((16, 8), 3)]

QKERAS = [
    "quantized_bits(4,0,1,alpha='auto')",
    "quantized_bits(4,0,1,alpha='auto_po2')",
    "quantized_bits(8,0,1,alpha='auto')",
    "quantized_bits(4,0,0,alpha='auto')",
    "quantized_bits(4,0,1,keep_negative=False,alpha='auto')",
    "quantized_bits(4,0,1,alpha='auto',scale_axis=0)",
    "quantized_bits(4,0,1,alpha='auto_po2',scale_axis=0)",
    "quantized_linear(4,0,1,alpha='auto')",
    "quantized_linear(4,0,1,alpha='auto_po2')",
    "ternary(alpha='auto')",
    "ternary(alpha='auto_po2')",
    "binary(alpha='auto')",
    "binary(alpha='auto_po2')",
]
LARQ = [
    "MagnitudeAwareSign()",
    "MagnitudeAwareSign(clip_value=0.5)",
    "DoReFa(k_bit=2, mode='weights')",
    "SteTern(ternary_weight_networks=True)",
]
NOTES = {
    "quantized_bits(4,0,0,alpha='auto')":
        "third argument is symmetric (not keep_negative); a string alpha forces symmetric=True",
    "quantized_bits(4,0,1,keep_negative=False,alpha='auto')":
        "keep_negative=False: the alpha='auto' branch never clips negatives",
    "quantized_bits(4,0,1,alpha='auto',scale_axis=0)":
        "scale_axis=0: one scale per index of axis 0 (reduces over all other axes)",
    "quantized_bits(4,0,1,alpha='auto_po2',scale_axis=0)":
        "scale_axis=0: one scale per index of axis 0 (reduces over all other axes)",
}


def make_x(shape, zero_channel):
    seed = g.seed_of("shaped" + "x".join(map(str, shape)))
    x = np.random.RandomState(seed).randn(*shape) * 0.5
    x = x * (1.0 + np.arange(shape[-1]))          # broadcast along the last axis
    if zero_channel is not None:
        x[..., zero_channel] = 0.0
    return x.astype(F32)


def run_shaped(case, x, shape):
    """y, dydx (flattened, C order) of the quantizer on x.reshape(shape)."""
    g.set_phase(case.mode)
    q = g.build(case)
    xt = tf.constant(x.reshape(shape), dtype=tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = q(xt)
        loss = tf.reduce_sum(y)
    gr = tape.gradient(loss, xt)
    y = np.asarray(y, dtype=F32)
    assert y.shape == tuple(shape), ("output shape", case.spec, y.shape, shape)
    none = gr is None
    gr = np.zeros(shape, F32) if none else np.asarray(gr, dtype=F32)
    return y.reshape(-1), gr.reshape(-1), none


def one_channel(case, m):
    """Shape that makes the quantizer see m values as ONE channel: (m, 1), or
    (1, m) for scale_axis=0 (whose statistic reduces over all axes but 0)."""
    return (1, m) if "scale_axis=0" in case.expr else (m, 1)


def per_slices(case, x, shape, axis):
    """Evaluate every slice x[..., i, ...] (index i on `axis`) alone as one channel."""
    xs = x.reshape(shape)
    y = np.empty(shape, F32)
    idx = [slice(None)] * len(shape)
    for i in range(shape[axis]):
        idx[axis] = i
        sl = xs[tuple(idx)]
        yi, _, _ = run_shaped(case, sl.reshape(-1), one_channel(case, sl.size))
        y[tuple(idx)] = yi.reshape(sl.shape)
    return y.reshape(-1)


def compare(a, b):
    if g.same_bits(a, b):
        return "bitwise"
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if np.array_equal(np.isnan(a), np.isnan(b)):
        ok = ~np.isnan(a)
        d = float(np.max(np.abs(a[ok] - b[ok]))) if ok.any() else 0.0
        if d <= 1e-6 * max(1.0, float(np.max(np.abs(a[ok])))):
            return f"max |diff| {d:.3g}"
    return None


def classify(case, x, shape, y):
    """Comment lines: which evaluation the shaped result matches."""
    out = []
    oc = one_channel(case, x.size)
    tag = "(N,1)" if oc[1] == 1 else "(1,N)"
    yflat, _, _ = run_shaped(case, x, oc)
    c = compare(y, yflat)
    nd = int(np.sum(~(y == yflat) & ~(np.isnan(y) & np.isnan(yflat))))
    out.append(f"== flattened {tag}: {c}" if c else
               f"!= flattened {tag}: y differs in {nd} of {x.size} elements")
    axes = [len(shape) - 1] + ([0] if len(shape) > 1 else [])
    for a in axes:
        c = compare(y, per_slices(case, x, shape, a))
        out.append(f"{'==' if c else '!='} per slice along axis {a}" + (f": {c}" if c else ""))
    return out


def main():
    g.check_learning_phase()
    body, n_cases, summary = [], 0, []
    infer_differs = 0
    for lib, specs in (("qkeras", QKERAS), ("larq", LARQ)):
        for expr in specs:
            for shape, zc in SHAPES:
                x = make_x(shape, zc)
                res = {}
                for mode in ("train", "infer"):
                    case = g.Case(lib, expr, mode, "exact")
                    y, d, none = run_shaped(case, x, shape)
                    y2, d2, _ = run_shaped(case, x, shape)
                    assert g.same_bits(y, y2) and g.same_bits(d, d2), \
                        f"{case.spec} {shape} ({mode}) is not deterministic"
                    res[mode] = (case, y, d, none)
                modes = ["train"]
                if not (g.same_bits(res["train"][1], res["infer"][1])
                        and g.same_bits(res["train"][2], res["infer"][2])):
                    modes.append("infer")
                    infer_differs += 1
                for mode in modes:
                    case, y, d, none = res[mode]
                    g.set_phase(mode)
                    notes = classify(case, x, shape, y)
                    summary.append(f"{case.spec:58s} {mode:5s} {str(shape):14s} "
                                   f"{'zero ch' if zc is not None else '':7s} "
                                   + "; ".join(notes))
                    body.append("")
                    if zc is not None:
                        body.append(f"# output channel {zc} (last axis) is all zeros")
                    if expr in NOTES:
                        body.append("# " + NOTES[expr])
                    body += ["# " + n for n in notes]
                    if none:
                        body.append("# gradient is None: written as zeros")
                    body += [f"case {case.spec}", f"mode {mode}", "kind exact",
                             "shape " + " ".join(map(str, shape)),
                             g.line("x", x), g.line("y", y), g.line("dydx", d), "end"]
                    n_cases += 1
                print(summary[-1], file=sys.stderr)
    import platform
    head = [
        "# qscope conformance vectors: QKeras / Larq weight quantizers on shaped tensors",
        "# generator: tests/conformance/shaped.py (see its docstring for how to re-run)",
        f"# python {platform.python_version()}, tensorflow {tf.__version__}, "
        f"keras {g.pkg_version('keras')}, numpy {np.__version__}",
        f"# qkeras {getattr(g.qkeras, '__version__', '?')} from source, commit {g.qkeras_commit()}",
        f"# larq {g.pkg_version('larq')}",
        "# format: as qkeras.txt plus `shape d0 d1 ...` after `kind`; x, y, dydx in row-major",
        "# (C) order of that shape; evaluated on tf.constant(x.reshape(shape)), float32;",
        "# dydx = d(sum(q(x)))/dx via tf.GradientTape, None gradients written as zeros.",
        "# x = N(0,1)*0.5 (seeded), output channel c (last axis) scaled by (1+c).",
        "# mode train = set_learning_phase(1); every case was also run with set_learning_phase(0):",
        f"# {infer_differs} differed (only those have an infer case).",
        f"# {n_cases} cases",
    ]
    text = "\n".join(head + body) + "\n"
    with open(os.path.join(g.HERE, "shaped.txt"), "w") as f:
        f.write(text)
    print(f"shaped.txt: {n_cases} cases, {len(text)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
