#!/usr/bin/env python3
"""Generate qscope's conformance reference vectors from the real QKeras and Larq.

Every case evaluates one quantizer of the real library eagerly in TensorFlow
(float32) on a 1-D grid of inputs and records the forward value y = q(x) and the
gradient dy/dx = d(sum q(x))/dx taken with tf.GradientTape (x watched; a None
gradient is written as zeros).  The grid is fed as shape (N, 1), so per-channel
statistics ("auto" scales, TWN thresholds, ...) see the whole grid as one
channel; results are flattened back to N values.  Stochastic cases record the
mean over S independent draws of y, the per-element sample variance of y
(ddof=1) and the mean gradient.

Outputs (next to this script): qkeras.txt and larq.txt.  Line format:

    # comment lines (anywhere between cases)
    case <spec>                 e.g. case qkeras.quantized_bits(4,0,1,alpha='auto')
    mode train|infer            Keras learning phase 1 / 0
    kind exact|stochastic
    samples <S>                 (stochastic only)
    x <v1> <v2> ...
    y <v1> ...                  (stochastic: mean over S draws)
    yvar <v1> ...               (stochastic only: sample variance, ddof=1)
    dydx <v1> ...               (stochastic: mean over S draws)
    end

Numbers are float32 written in their shortest round-trip decimal form (numpy's
`str(np.float32(v))`; `nan`, `inf`, `-inf`; `-0.0` for negative zero).  Parsing
a token as f32 (correct rounding, e.g. Rust `str::parse::<f32>`) gives back
the exact float32 bits; the script verifies this with exact rational arithmetic.

<spec> is `qkeras.` / `larq.` followed by the constructor expression (QKeras
functions: bare name, or name(kwargs) for the non-x keyword arguments).  The
Python object is built by evaluating exactly that expression, so spec and
object cannot diverge.  The same spec can appear in several cases (train and
infer, main grid and NaN case).

How to run (versions used for the committed files):

    python3 -m venv .venv/tf && .venv/tf/bin/pip install tensorflow-cpu==2.15.1 larq==0.14.0 \
                numpy==1.26.4 tensorflow-model-optimization==0.7.5 pyparsing networkx scikit-learn tqdm
    # (QKeras imports pyparsing, networkx, scikit-learn and tqdm.) QKeras from source (PyPI's release is outdated), commit 78ea90fc...:
    mkdir -p .venv/qkeras-src
    git --git-dir=<path to a qkeras git dir> archive 78ea90fc381fef23faa4db0e1d88bd1173c1c644 \
        | tar -x -C .venv/qkeras-src
    QKERAS_SRC=.venv/qkeras-src QKERAS_COMMIT=78ea90fc381fef23faa4db0e1d88bd1173c1c644 \
        .venv/tf/bin/python tests/conformance/generate.py [--samples 2000] [--only qkeras|larq]

QKERAS_SRC defaults to .venv/qkeras-src; QKERAS_COMMIT, if unset, is read with
`git -C $QKERAS_SRC rev-parse HEAD` when that works, else recorded as unknown.
The run is deterministic (fixed seeds: numpy for the grids, tf.random.set_seed
per case for the draws), single-threaded, and takes a few minutes on 2 cores.

Learning phase: QKeras reads `K.learning_phase()` through smart_cond.  In TF
2.15 eager mode `tf.keras.backend.set_learning_phase(1)` (deprecated but
working) makes those training branches run; the script checks this at start-up
(stochastic_binary draws random values in train and is deterministic in infer)
and checks every `exact` case by evaluating it twice (bitwise identical) and
every `stochastic` case for non-zero variance.
"""

import argparse
import fractions
import math
import os
import subprocess
import sys
import time
import warnings
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
warnings.filterwarnings("ignore")

QKERAS_SRC = os.environ.get("QKERAS_SRC", ".venv/qkeras-src")
sys.path.insert(0, QKERAS_SRC)

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.config.threading.set_intra_op_parallelism_threads(1)
tf.config.threading.set_inter_op_parallelism_threads(1)
tf.get_logger().setLevel("ERROR")

import larq  # noqa: E402
import larq.quantizers as lqq  # noqa: E402
import qkeras  # noqa: E402
import qkeras.quantizers as qkq  # noqa: E402

K = tf.keras.backend
F32 = np.float32
HERE = os.path.dirname(os.path.abspath(__file__))
TINY = 1e-30  # smallest magnitude used: stay far away from subnormals (TF flushes them)
MAX_STOCH = 64

# --------------------------------------------------------------------------
# number formatting
# --------------------------------------------------------------------------


def fmt(v):
    v = F32(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return str(v)


_checked = set()


def check_roundtrip(v, tok):
    """Exact check that tok parses (round-to-nearest-even) to float32 v."""
    v = F32(v)
    bits = int(v.view(np.uint32))
    if bits in _checked:
        return
    if np.isfinite(v):
        r = fractions.Fraction(tok)
        fv = fractions.Fraction(float(v))
        up = fractions.Fraction(float(np.nextafter(v, F32(np.inf))))
        dn = fractions.Fraction(float(np.nextafter(v, F32(-np.inf))))
        lo_mid, hi_mid = (dn + fv) / 2, (fv + up) / 2
        even = (bits & 1) == 0
        ok = (lo_mid < r < hi_mid) or (even and (r == lo_mid or r == hi_mid))
        if v == 0:
            ok = r == 0 and (tok.startswith("-") == bool(np.signbit(v)))
        assert ok, (tok, v)
    _checked.add(bits)


def line(tag, arr):
    toks = []
    for v in np.asarray(arr, dtype=F32).reshape(-1):
        t = fmt(v)
        check_roundtrip(v, t)
        toks.append(t)
    return tag + " " + " ".join(toks)


# --------------------------------------------------------------------------
# grids
# --------------------------------------------------------------------------


def nbrs(vals):
    out = []
    for v in vals:
        v = F32(v)
        if not np.isfinite(v):
            continue
        out += [np.nextafter(v, F32(-np.inf)), v, np.nextafter(v, F32(np.inf))]
    return out


def cap(vals, n):
    vals = sorted(set(float(F32(v)) for v in vals if np.isfinite(F32(v))))
    if len(vals) <= n:
        return vals
    # keep both ends densely, thin the middle
    e = n // 3
    mid = vals[e:len(vals) - e]
    idx = np.linspace(0, len(mid) - 1, n - 2 * e).round().astype(int)
    return vals[:e] + [mid[i] for i in sorted(set(idx))] + vals[len(vals) - e:]


def finalize(vals, lim=None):
    out = {}
    for v in vals:
        v = F32(v)
        if np.isnan(v):
            continue
        if np.isfinite(v) and 0 < abs(v) < TINY:
            continue
        if lim is not None and np.isfinite(v) and abs(v) > lim:
            continue
        out[int(v.view(np.uint32))] = v
    arr = sorted(out.values(), key=lambda a: (float(a), 0 if np.signbit(a) else 1))
    return np.array(arr, dtype=F32)


def make_grid(seed, ties=(), bounds=(), lo=-2.0, hi=2.0, lim=None, extra=(),
              logsweep=None, small=False, rscale=None):
    """Interesting inputs for one quantizer.

    ties: exact rounding ties (each with both float32 neighbours);
    bounds: clip points / kinks (with neighbours);
    lo..hi: dense linear sweep; lim: data-dependent quantizers keep |x| <= lim
    (and include +-lim) so that the statistics are controlled;
    logsweep=(e0, e1, n): +-2**linspace(e0, e1, n).
    """
    rng = np.random.RandomState(seed)
    rs = rscale if rscale is not None else max(abs(lo), abs(hi)) / 2
    v = [0.0, -0.0]
    if small:
        v += nbrs(cap(bounds, 6)) + nbrs(cap(ties, 8))
        v += list(np.linspace(lo, hi, 13))
        # off-lattice points (ties and sweep are often exact multiples of the step)
        v += list(lo + (hi - lo) * (np.arange(9) + 0.3183) / 9)
        v += list(rng.randn(4) * rs)
        v += [TINY, -TINY]
    else:
        v += nbrs(bounds) + nbrs(cap(ties, 48))
        v += list(np.linspace(lo, hi, 201))
        v += list(rng.randn(16) * rs)
        v += nbrs([TINY, -TINY, 1e-7, -1e-7]) + [1e-3, -1e-3, 0.1, -0.1]
        if lim is None:
            v += [10.0, -10.0, 100.0, -100.0, 1e3, -1e3, 1e4, -1e4]
        if logsweep is not None:
            e0, e1, n = logsweep
            mags = 2.0 ** np.linspace(e0, e1, n)
            v += list(mags) + list(-mags)
    v += list(extra)
    if lim is not None:
        v = [min(max(a, -lim), lim) for a in v] + [lim, -lim]
    g = finalize(v)
    if small and len(g) > MAX_STOCH:
        keep = set(np.linspace(0, len(g) - 1, MAX_STOCH).round().astype(int))
        g = g[sorted(keep)]
    return g


# --------------------------------------------------------------------------
# cases
# --------------------------------------------------------------------------


class Case:
    def __init__(self, lib, expr, mode="train", kind="exact", grid=None,
                 dd=False, rank1=False, notes=(), nan_case=None):
        self.lib, self.expr, self.mode, self.kind = lib, expr, mode, kind
        self.grid = grid or {}
        self.dd = dd            # data-dependent: no NaN / inf in the tensor
        self.rank1 = rank1      # feed shape (N,) instead of (N, 1)
        self.notes = list(notes)
        self.nan_case = (not dd and kind == "exact" and mode == "train"
                         if nan_case is None else nan_case)

    @property
    def spec(self):
        return self.lib + "." + self.expr


def _fn_builder(fn):
    def build(**kw):
        def q(x):
            return fn(x, **kw)
        return q
    return build


QK_CLASSES = ["quantized_bits", "quantized_linear", "quantized_po2",
              "quantized_relu_po2", "quantized_relu", "quantized_tanh",
              "quantized_sigmoid", "quantized_ulaw", "quantized_hswish",
              "binary", "stochastic_binary", "ternary", "stochastic_ternary",
              "bernoulli"]
QK_FUNCS = ["_round_through", "stochastic_round", "stochastic_round_po2",
            "hard_sigmoid", "hard_tanh", "smooth_sigmoid", "smooth_tanh",
            "binary_sigmoid", "binary_tanh"]
LQ_CLASSES = ["SteSign", "ApproxSign", "SwishSign", "SteHeaviside",
              "MagnitudeAwareSign", "SteTern", "DoReFa", "NoOp"]


def build(case):
    if case.lib == "qkeras":
        ns = {n: getattr(qkq, n) for n in QK_CLASSES}
        if "(" not in case.expr:
            assert case.expr in QK_FUNCS
            return getattr(qkq, case.expr)
        ns.update({n: _fn_builder(getattr(qkq, n)) for n in QK_FUNCS})
    else:
        ns = {n: getattr(lqq, n) for n in LQ_CLASSES}
    return eval(case.expr, {"__builtins__": {}}, ns)  # noqa: S307


def set_phase(mode):
    K.set_learning_phase(1 if mode == "train" else 0)


def run_once(q, x_np, rank1):
    x = tf.constant(x_np if rank1 else x_np.reshape(-1, 1), dtype=tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = q(x)
        loss = tf.reduce_sum(y)
    g = tape.gradient(loss, x)
    y = np.asarray(y, dtype=F32)
    assert y.shape == tuple(x.shape), ("output shape", y.shape, x.shape)
    none = g is None
    g = np.zeros(x_np.shape, F32) if none else np.asarray(g, dtype=F32)
    return y.reshape(-1), g.reshape(-1), none


def same_bits(a, b):
    return np.array_equal(np.asarray(a, F32).view(np.uint32),
                          np.asarray(b, F32).view(np.uint32))


def seed_of(s):
    return zlib.crc32(s.encode()) & 0x7FFFFFFF


def probe_inf(case):
    """Which infinities the quantizer maps to a non-NaN forward value."""
    keep, notes = [], []
    set_phase(case.mode)
    for v in (-np.inf, np.inf):
        q = build(case)
        y, _, _ = run_once(q, np.array([v], F32), case.rank1)
        if np.isnan(y[0]):
            notes.append(f"{fmt(v)} not in grid: forward gives nan")
        else:
            keep.append(v)
    return keep, notes


def evaluate(case, samples):
    x = case.x
    set_phase(case.mode)
    tf.random.set_seed(seed_of(case.spec + case.mode + case.kind + str(len(x))))
    q = build(case)
    if case.kind == "exact":
        y, g, none = run_once(q, x, case.rank1)
        y2, g2, _ = run_once(q, x, case.rank1)
        assert same_bits(y, y2) and same_bits(g, g2), \
            f"{case.spec} ({case.mode}) is not deterministic"
        return dict(y=y, dydx=g, none=none)
    ys = np.empty((samples, len(x)), np.float64)
    gs = np.empty((samples, len(x)), np.float64)
    none = False
    for i in range(samples):
        y, g, n = run_once(q, x, case.rank1)
        ys[i], gs[i] = y, g
        none |= n
    var = ys.var(axis=0, ddof=1)
    assert np.nanmax(var) > 0, f"{case.spec} ({case.mode}) drew no randomness"
    return dict(y=ys.mean(0).astype(F32), yvar=var.astype(F32),
                dydx=gs.mean(0).astype(F32), none=none)


# ---------------------------- grid families --------------------------------


def g_bits(q, seed, small=False):
    a = 1.0 if q.alpha is None else float(q.alpha)
    kn = int(bool(q.keep_negative))
    u = q.bits - kn
    if u > 0:
        d = 2.0 ** (q.integer - q.bits + kn) * a
        m = 2 ** u
        kmin, kmax = kn * (-m + int(q.symmetric)), m - 1
        ties = [(k + 0.5) * d for k in range(kmin - 2, kmax + 2)]
        bounds = [kmin * d, kmax * d, (kmin - 0.5) * d, (kmax + 0.5) * d]
        r = (max(abs(kmin), kmax) + 3) * d
    else:
        ties, bounds, r = [], [0.0, a, -a], 2.0 * a
    return make_grid(seed, ties, bounds, -r, r, small=small)


def g_bits_auto(q, seed, small=False, bits=None, integer=None):
    bits = q.bits if bits is None else bits
    integer = q.integer if integer is None else integer
    half = 2 ** (bits - 1) - 1                 # levels / 2
    mi = 2.0 ** integer
    if q.post_training_scale is not None:      # frozen scale: not data dependent
        s = float(np.asarray(q.post_training_scale)) / 2 ** (bits - 1) * mi
        ties = [(k + 0.5) * s for k in range(-half - 2, half + 2)]
        bounds = [half * s, -half * s]
        r = (half + 3) * s
        return make_grid(seed, ties, bounds, -r, r, small=small)
    sigma = 2.0 ** -(bits - 2) * mi            # step that "auto" will find
    lim = half * sigma                         # max |x| of the grid
    ties = [(k + 0.5) * sigma for k in range(-half, half)]
    return make_grid(seed, ties, [lim, -lim], -lim, lim, lim=lim, small=small,
                     rscale=lim / 2)


def g_linear(q, seed, small=False):
    kn = int(bool(q.keep_negative))
    sign = q.bits == 1 and kn
    dts = 2.0 ** (q.integer - q.bits + kn)
    if isinstance(q.alpha, str):
        if sign:
            lim = 1.0                          # qs = 2 max|x| / 1
            return make_grid(seed, [0.0], [lim, -lim], -lim, lim, lim=lim,
                             small=small, rscale=0.5)
        u = 2 ** (q.bits - kn)
        lo, hi = kn * (-u + int(q.symmetric)), u - 1
        sigma = 2.0 ** -(q.bits - 1)
        lim = (hi - lo) / 2 * sigma if kn else (hi - lo) * sigma
        ties = [(k + 0.5) * sigma for k in range(lo - 1, hi + 1)]
        return make_grid(seed, ties, [lim, -lim, lo * sigma, hi * sigma],
                         -lim, lim, lim=lim, small=small, rscale=lim / 2)
    qs = dts * (1.0 if q.alpha is None else float(q.alpha))
    if sign:
        return make_grid(seed, [0.0], [0.5 * qs, -0.5 * qs], -3 * qs, 3 * qs,
                         small=small)
    u = 2 ** (q.bits - kn)
    lo, hi = kn * (-u + int(q.symmetric)), u - 1
    ties = [(k + 0.5) * qs for k in range(lo - 2, hi + 2)]
    bounds = [lo * qs, hi * qs, (lo - 0.5) * qs, (hi + 0.5) * qs]
    r = (max(abs(lo), hi) + 3) * qs
    return make_grid(seed, ties, bounds, -r, r, small=small)


def g_po2(q, seed, small=False, relu=False):
    min_e, max_e = q._min_exp, q._max_exp
    e0, e1 = max(math.floor(min_e) - 2, -99), min(math.ceil(max_e) + 2, 13)
    ks = range(e0, e1 + 1)
    ns = float(getattr(q, "negative_slope", 0) or 0)
    if q.quadratic_approximation:
        ties = [2.0 ** (2 * k + 1) for k in range(e0 // 2, e1 // 2 + 1)]
    else:
        ties = [2.0 ** (k + 0.5) for k in ks]
    pows = [2.0 ** k for k in ks]
    bounds = [2.0 ** min_e, 2.0 ** max_e, 1e-7, 1.0]
    if q.max_value is not None:
        bounds += [float(q.max_value)]
    ties, pows = cap(ties, 24), cap(pows, 24)
    if relu:
        neg = [-t for t in ties + pows] + ([-t / ns for t in ties + pows] if ns else [])
        ties = ties + neg
        bounds = bounds + [-b for b in bounds]
    else:
        ties = ties + [-t for t in ties]
        pows = pows + [-p for p in pows]
        bounds = bounds + [-b for b in bounds]
    top = 4.0 if q.max_value is None else 2.0 * float(q.max_value)
    return make_grid(seed, ties, bounds + pows, -top, top, small=small,
                     logsweep=(max(e0, -99), min(e1, 13.2), 41))


def g_relu(q, seed, small=False):
    ns = float(q.negative_slope)
    nb = q.bits - (ns != 0.0)
    m, mi = 2 ** nb, 2.0 ** q.integer
    d = mi / m
    if q.use_sigmoid:
        ties = [mi * (2 * (k + 0.5) / m - 1) for k in range(0, m)]
        if ns:
            ties += [mi * (2 * (k + 0.5) / (ns * m) - 1) for k in range(0, int(ns * m) + 1)]
    else:
        ties = [(k + 0.5) * d for k in range(-1, m + 1)]
        if ns:
            ties += [-(k + 0.5) * d / ns for k in range(0, int(ns * m) + 2)]
    bounds = [0.0, mi - d, mi, -mi, (m - 0.5) * d]
    if q.relu_upper_bound is not None:
        bounds += [float(q.relu_upper_bound)]
    r = 1.5 * max(mi, float(q.relu_upper_bound or 0))
    if ns:
        r = max(r, 1.5 * mi / ns if not q.use_sigmoid else 1.5 * mi)
    return make_grid(seed, ties, bounds, -r, r, small=small)


def g_tanh(q, seed, small=False):
    m = 2 ** (q.bits - 1)
    ps = [(k + 0.5) / m for k in range(-m, m)]
    if q.use_real_tanh:
        ties = [math.atanh(p) for p in ps if abs(p) < 1]
        r = 3.0
    else:
        ties = ps
        r = 2.0
    return make_grid(seed, ties, [1.0, -1.0, 1 - 1 / m, -1 + 1 / m], -r, r,
                     small=small)


def g_sigmoid(q, seed, small=False):
    m = 2 ** q.bits
    ps = [(k + 0.5) / m for k in range(0, m)]
    if q.use_real_sigmoid:
        ties = [math.log(p / (1 - p)) for p in ps]
        r = 6.0
    else:
        ties = [2 * p - 1 for p in ps]
        r = 2.0
    return make_grid(seed, ties, [1.0, -1.0, 2 / m - 1, 1 - 2 / m], -r, r,
                     small=small)


def g_ulaw(q, seed, small=False):
    m, mi = 2 ** (q.bits - 1), 2.0 ** q.integer
    ties = [mi * (2 * (k + 0.5) / m - 1) for k in range(0, m)]
    return make_grid(seed, ties, [mi, -mi, mi / m, -mi / m], -1.5 * mi, 1.5 * mi,
                     small=small)


def g_hswish(q, seed, small=False):
    s, ub = float(q.relu_shift), float(q.relu_upper_bound)
    d = 2.0 ** (q.integer - q.bits + 1)
    m = 2 ** (q.bits - 1)
    hs = [(k + 0.5) * d for k in range(-m - 1, m + 1)]
    ties = []
    for h in hs:
        disc = s * s + 4 * ub * h
        if disc >= 0:
            for x in ((-s + math.sqrt(disc)) / 2, (-s - math.sqrt(disc)) / 2):
                if -s < x <= ub - s:
                    ties.append(x)
        if h > ub - s:
            ties.append(h)
    bounds = [-s, ub - s, -s / 2]
    r = max(s, ub - s, 1.0) + 2
    return make_grid(seed, ties, bounds, -r, r, small=small)


def g_sign(seed, bounds=(0.0,), r=2.0, small=False, lim=None):
    return make_grid(seed, [], list(bounds), -r, r, small=small, lim=lim)


# ------------------------------- QKeras ------------------------------------


def qkeras_cases():
    C = []

    def add(expr, gridf, *, train_exact=True, infer_exact=False,
            stoch_train=False, stoch_infer=False, dd=False, rank1_infer=False,
            notes=()):
        def mk(mode, kind, rank1=False):
            c = Case("qkeras", expr, mode, kind, dd=dd, rank1=rank1, notes=notes)
            q = build(c)
            c.x = gridf(q, seed_of(expr + kind), kind == "stochastic")
            return c
        if train_exact:
            C.append(mk("train", "exact"))
        if infer_exact:
            C.append(mk("infer", "exact", rank1_infer))
        if stoch_train:
            C.append(mk("train", "stochastic"))
        if stoch_infer:
            C.append(mk("infer", "stochastic"))

    # quantized_bits ---------------------------------------------------------
    for e in ["quantized_bits()", "quantized_bits(1,0,0)", "quantized_bits(1,0,1)",
              "quantized_bits(2,0,0)", "quantized_bits(2,0,1)", "quantized_bits(2,1,1)",
              "quantized_bits(4,0,0)", "quantized_bits(4,0,1)", "quantized_bits(4,1,0)",
              "quantized_bits(4,2,1)", "quantized_bits(4,3,0)", "quantized_bits(8,0,1)",
              "quantized_bits(8,2,1)", "quantized_bits(8,3,0)",
              "quantized_bits(4,0,0,keep_negative=False)",
              "quantized_bits(4,1,1,keep_negative=False)",
              "quantized_bits(1,0,0,keep_negative=False)",
              "quantized_bits(8,2,0,keep_negative=False)",
              "quantized_bits(4,0,1,alpha=1)", "quantized_bits(4,0,1,alpha=0.5)",
              "quantized_bits(2,0,1,alpha=0.5)", "quantized_bits(4,1,0,alpha=1.5)",
              "quantized_bits(4,0,1,use_ste=False)",
              "quantized_bits(4,0,1,use_ste=False,qnoise_factor=0.5)",
              "quantized_bits(4,0,1,use_ste=False,qnoise_factor=1.0)",
              "quantized_bits(4,0,1,qnoise_factor=0.5)",
              "quantized_bits(8,1,0,qnoise_factor=0.25)",
              # More integer bits than bits, as QKeras' own test_quantized_bits has it
              # (tests/qactivation_test.py): Δ = 2^100/128, levels out to ±127·2^93.
              "quantized_bits(8,100,1,True)"]:
        add(e, g_bits)
    for e in ["quantized_bits(4,0,1,use_stochastic_rounding=True)",
              "quantized_bits(2,1,0,use_stochastic_rounding=True)",
              "quantized_bits(4,0,0,keep_negative=False,use_stochastic_rounding=True)"]:
        add(e, g_bits, train_exact=False, infer_exact=True, stoch_train=True)
    for e in ["quantized_bits(4,0,1,alpha='auto')", "quantized_bits(2,0,1,alpha='auto')",
              "quantized_bits(8,0,1,alpha='auto')", "quantized_bits(4,2,1,alpha='auto')",
              "quantized_bits(4,0,0,alpha='auto')",
              "quantized_bits(4,0,1,keep_negative=False,alpha='auto')",
              "quantized_bits(4,0,1,alpha='auto',qnoise_factor=0.5)",
              "quantized_bits(4,0,1,alpha='auto',use_ste=False,qnoise_factor=0.5)",
              "quantized_bits(4,0,1,alpha='auto_po2')", "quantized_bits(2,0,1,alpha='auto_po2')",
              "quantized_bits(8,0,1,alpha='auto_po2')", "quantized_bits(4,1,1,alpha='auto_po2')",
              "quantized_bits(4,0,1,alpha='auto_po2',max_po2_exponent=-3)",
              "quantized_bits(4,0,1,alpha='auto_po2',min_po2_exponent=0)",
              "quantized_bits(4,0,1,alpha='auto_po2',min_po2_exponent=-4,max_po2_exponent=-1)"]:
        add(e, g_bits_auto, dd=True)
    add("quantized_bits(4,0,1,alpha='auto',use_stochastic_rounding=True)", g_bits_auto,
        dd=True, notes=["string alpha ignores use_stochastic_rounding: deterministic in train"])
    for e in ["quantized_bits(4,0,1,alpha='auto',post_training_scale=2.0)",
              "quantized_bits(4,1,1,alpha='auto_po2',post_training_scale=4.0)",
              "quantized_bits(8,0,1,alpha='auto',post_training_scale=0.75)"]:
        add(e, g_bits_auto)
    # a gaussian-only tensor for the auto scales
    for e in ["quantized_bits(4,0,1,alpha='auto')", "quantized_bits(4,0,1,alpha='auto_po2')"]:
        C.append(Case("qkeras", e, "train", "exact", dd=True,
                      notes=["x: 64 standard normal values (seed 7)"]))
        C[-1].x = finalize(np.random.RandomState(7).randn(64))

    # quantized_linear ------------------------------------------------------
    for e in ["quantized_linear()", "quantized_linear(1,0,1)", "quantized_linear(1,1,1)",
              "quantized_linear(1,0,1,keep_negative=False)",
              "quantized_linear(2,0,1)", "quantized_linear(2,0,0)", "quantized_linear(3,1,1)",
              "quantized_linear(4,0,1)", "quantized_linear(4,0,0)", "quantized_linear(4,2,0)",
              "quantized_linear(5,1,1)", "quantized_linear(6,2,0)", "quantized_linear(7,0,1)",
              "quantized_linear(8,3,1)",
              "quantized_linear(4,0,1,keep_negative=False)",
              "quantized_linear(3,1,0,keep_negative=False)",
              "quantized_linear(4,0,1,alpha=0.5)", "quantized_linear(4,0,0,alpha=2.0)",
              "quantized_linear(1,0,1,alpha=3.0)",
              "quantized_linear(4,0,1,qnoise_factor=0.5)",
              "quantized_linear(4,1,0,qnoise_factor=0.0)"]:
        add(e, g_linear)
    for e in ["quantized_linear(4,0,1,use_stochastic_rounding=True)",
              "quantized_linear(1,0,1,use_stochastic_rounding=True)",
              "quantized_linear(3,0,0,keep_negative=False,use_stochastic_rounding=True)"]:
        add(e, g_linear, train_exact=False, infer_exact=True, stoch_train=True)
    for e in ["quantized_linear(4,0,1,alpha='auto')", "quantized_linear(2,0,1,alpha='auto')",
              "quantized_linear(4,0,0,alpha='auto')", "quantized_linear(1,0,1,alpha='auto')",
              "quantized_linear(8,0,1,alpha='auto')",
              "quantized_linear(4,0,1,keep_negative=False,alpha='auto')",
              "quantized_linear(4,0,1,alpha='auto',qnoise_factor=0.5)",
              "quantized_linear(4,0,1,alpha='auto_po2')", "quantized_linear(1,0,1,alpha='auto_po2')",
              "quantized_linear(8,0,1,alpha='auto_po2')", "quantized_linear(3,2,0,alpha='auto_po2')"]:
        add(e, g_linear, dd=True)
    for e in ["quantized_linear(4,0,1,alpha='auto')", "quantized_linear(4,0,1,alpha='auto_po2')"]:
        C.append(Case("qkeras", e, "train", "exact", dd=True,
                      notes=["x: 64 standard normal values (seed 7)"]))
        C[-1].x = finalize(np.random.RandomState(7).randn(64))
    add("quantized_linear(4,0,1,alpha='auto',use_stochastic_rounding=True)", g_linear,
        train_exact=False, stoch_train=True, dd=True)

    # quantized_po2 / quantized_relu_po2 ------------------------------------
    for e in ["quantized_po2()", "quantized_po2(1)", "quantized_po2(2)", "quantized_po2(3)",
              "quantized_po2(4)", "quantized_po2(4,1)", "quantized_po2(4,0.5)",
              "quantized_po2(4,3)", "quantized_po2(5,4)", "quantized_po2(6,16)",
              "quantized_po2(4,quadratic_approximation=True)",
              "quantized_po2(1,quadratic_approximation=True)",
              "quantized_po2(2,quadratic_approximation=True)",
              "quantized_po2(5,4,quadratic_approximation=True)",
              "quantized_po2(4,log2_rounding='floor')",
              "quantized_po2(4,2,log2_rounding='floor')",
              "quantized_po2(4,qnoise_factor=0.5)",
              "quantized_po2(4,use_ste=False)",
              "quantized_po2(4,use_ste=False,qnoise_factor=0.5)"]:
        add(e, g_po2)
    for e in ["quantized_po2(4,use_stochastic_rounding=True)",
              "quantized_po2(4,2,use_stochastic_rounding=True)",
              "quantized_po2(5,quadratic_approximation=True,use_stochastic_rounding=True)"]:
        add(e, g_po2, train_exact=False, infer_exact=True, stoch_train=True)
    rp = lambda q, s, small=False: g_po2(q, s, small, relu=True)  # noqa: E731
    for e in ["quantized_relu_po2()", "quantized_relu_po2(4)", "quantized_relu_po2(4,1)",
              "quantized_relu_po2(4,4)", "quantized_relu_po2(3,0.5)",
              "quantized_relu_po2(4,negative_slope=0.25)",
              "quantized_relu_po2(4,negative_slope=0.5)",
              "quantized_relu_po2(5,2,negative_slope=0.5)",
              "quantized_relu_po2(4,quadratic_approximation=True)",
              "quantized_relu_po2(4,log2_rounding='floor')",
              "quantized_relu_po2(4,qnoise_factor=0.5)",
              "quantized_relu_po2(4,use_ste=False,qnoise_factor=0.5)"]:
        add(e, rp)
    for e in ["quantized_relu_po2(4,use_stochastic_rounding=True)",
              "quantized_relu_po2(4,2,negative_slope=0.25,use_stochastic_rounding=True)"]:
        add(e, rp, train_exact=False, infer_exact=True, stoch_train=True)

    # quantized_relu ----------------------------------------------------------
    for e in ["quantized_relu()", "quantized_relu(1,0)", "quantized_relu(2,0)",
              "quantized_relu(3,0)", "quantized_relu(4,0)", "quantized_relu(4,1)",
              "quantized_relu(4,2)", "quantized_relu(8,3)", "quantized_relu(6,0)",
              "quantized_relu(4,0,use_sigmoid=1)", "quantized_relu(4,1,use_sigmoid=1)",
              "quantized_relu(3,0,use_sigmoid=1,negative_slope=0.25)",
              "quantized_relu(4,0,negative_slope=0.25)",
              "quantized_relu(4,1,negative_slope=0.125)",
              "quantized_relu(bits=3,integer=1,negative_slope=0.25)",
              "quantized_relu(4,0,negative_slope=0.5)",
              "quantized_relu(4,2,relu_upper_bound=3.0,is_quantized_clip=False)",
              "quantized_relu(4,0,relu_upper_bound=0.5,is_quantized_clip=False)",
              "quantized_relu(4,0,is_quantized_clip=False)",
              "quantized_relu(4,0,relu_upper_bound=0.5)",
              "quantized_relu(4,0,use_ste=False)",
              "quantized_relu(4,0,use_ste=False,qnoise_factor=0.5)",
              "quantized_relu(4,0,qnoise_factor=0.5)",
              "quantized_relu(4,1,negative_slope=0.25,qnoise_factor=0.5)"]:
        add(e, g_relu)
    for e in ["quantized_relu(4,0,use_stochastic_rounding=True)",
              "quantized_relu(3,1,use_stochastic_rounding=True)",
              "quantized_relu(4,0,use_sigmoid=1,use_stochastic_rounding=True)",
              "quantized_relu(3,1,negative_slope=0.25,use_stochastic_rounding=True)"]:
        add(e, g_relu, train_exact=False, infer_exact=True, stoch_train=True)

    # quantized_tanh / quantized_sigmoid / quantized_ulaw / quantized_hswish --
    for e in ["quantized_tanh()", "quantized_tanh(1)", "quantized_tanh(2)", "quantized_tanh(3)",
              "quantized_tanh(4)", "quantized_tanh(4,symmetric=True)",
              "quantized_tanh(4,use_real_tanh=True)",
              "quantized_tanh(4,symmetric=True,use_real_tanh=True)",
              "quantized_tanh(8,use_real_tanh=True)"]:
        add(e, g_tanh)
    for e in ["quantized_tanh(4,use_stochastic_rounding=True)",
              "quantized_tanh(3,use_stochastic_rounding=True,use_real_tanh=True)"]:
        add(e, g_tanh, train_exact=False, infer_exact=True, stoch_train=True)
    for e in ["quantized_sigmoid()", "quantized_sigmoid(1)", "quantized_sigmoid(2)",
              "quantized_sigmoid(4)", "quantized_sigmoid(4,symmetric=True)",
              "quantized_sigmoid(4,use_real_sigmoid=True)",
              "quantized_sigmoid(4,symmetric=True,use_real_sigmoid=True)",
              "quantized_sigmoid(8,use_real_sigmoid=True)"]:
        add(e, g_sigmoid)
    for e in ["quantized_sigmoid(4,use_stochastic_rounding=True)",
              "quantized_sigmoid(3,use_real_sigmoid=True,use_stochastic_rounding=True)"]:
        add(e, g_sigmoid, train_exact=False, infer_exact=True, stoch_train=True)
    for e in ["quantized_ulaw()", "quantized_ulaw(4,0)", "quantized_ulaw(4,1)",
              "quantized_ulaw(4,0,1)", "quantized_ulaw(6,2,1,u=100.0)",
              "quantized_ulaw(3,0,0,u=8.0)"]:
        add(e, g_ulaw)
    for e in ["quantized_hswish()", "quantized_hswish(4,0)", "quantized_hswish(8,2)",
              "quantized_hswish(6,3,1)", "quantized_hswish(4,2,relu_shift=2,relu_upper_bound=4)",
              "quantized_hswish(6,1,1,relu_shift=1,relu_upper_bound=3)",
              "quantized_hswish(4,2,qnoise_factor=0.5)"]:
        add(e, g_hswish)

    # binary / ternary and their stochastic relatives -------------------------
    gb = lambda q, s, small=False: g_sign(s, (0.0,), 2.0, small)  # noqa: E731
    gba = lambda q, s, small=False: g_sign(s, (0.0, 1.0, -1.0), 1.5, small, lim=1.5)  # noqa: E731
    for e in ["binary()", "binary(use_01=True)", "binary(alpha=1)", "binary(alpha=0.5)",
              "binary(use_01=True,alpha=2.0)"]:
        add(e, gb)
    for e in ["binary(alpha='auto')", "binary(alpha='auto_po2')", "binary(use_01=True,alpha='auto')",
              "binary(alpha='auto_po2',min_po2_exponent=1)",
              "binary(alpha='auto_po2',max_po2_exponent=-2)"]:
        add(e, gba, dd=True)
    add("binary(use_stochastic_rounding=True)", gb, train_exact=False, infer_exact=True,
        stoch_train=True, dd=True, rank1_infer=True,
        notes=["infer case fed as shape (N,): with shape (N,1) QKeras returns shape (N,2) "
               "(tf.ones_like(tf.shape(x)) broadcast bug in the inference branch)"])
    add("binary(alpha='auto',use_stochastic_rounding=True)", gba, train_exact=False,
        stoch_train=True, dd=True)

    def gt(q, s, small=False):
        t = 0.33 if q.threshold is None else float(q.threshold)
        return g_sign(s, (0.0, t, -t, 1.0, -1.0), 2.0, small)
    for e in ["ternary()", "ternary(alpha=1)", "ternary(alpha=0.5)", "ternary(threshold=0.5)",
              "ternary(alpha=2.0,threshold=0.1)", "ternary(threshold=0.0)"]:
        add(e, gt)
    gta = lambda q, s, small=False: g_sign(s, (0.0, 0.5, -0.5, 1.0, -1.0, 0.75, -0.75), 1.5, small, lim=1.5)  # noqa: E731,E501
    for e in ["ternary(alpha='auto')", "ternary(alpha='auto_po2')",
              "ternary(alpha='auto',number_of_unrolls=1)", "ternary(alpha='auto',number_of_unrolls=10)",
              "ternary(alpha='auto_po2',number_of_unrolls=2)"]:
        add(e, gta, dd=True)
    for e in ["ternary(alpha='auto')", "ternary(alpha='auto_po2')"]:
        C.append(Case("qkeras", e, "train", "exact", dd=True,
                      notes=["x: 64 standard normal values (seed 7)"]))
        C[-1].x = finalize(np.random.RandomState(7).randn(64))
    for e in ["ternary(alpha='auto',use_stochastic_rounding=True)",
              "ternary(alpha='auto_po2',use_stochastic_rounding=True)"]:
        add(e, gta, train_exact=False, infer_exact=True, stoch_train=True, dd=True)

    for e in ["stochastic_binary()", "stochastic_binary(temperature=2.0,use_real_sigmoid=False)",
              "stochastic_binary(alpha=0.5)"]:
        add(e, gb, train_exact=False, infer_exact=True, stoch_train=True)
    for e in ["stochastic_binary(alpha='auto')", "stochastic_binary(alpha='auto_po2')"]:
        add(e, gba, train_exact=False, infer_exact=True, stoch_train=True, dd=True)
    add("stochastic_ternary()", gt, train_exact=False, infer_exact=True,
        notes=["alpha=None: only the inference branch works (training asserts a string alpha)"])
    for e in ["stochastic_ternary(alpha='auto')", "stochastic_ternary(alpha='auto_po2')",
              "stochastic_ternary(alpha='auto',temperature=4.0,use_real_sigmoid=False)",
              "stochastic_ternary(alpha='auto',number_of_unrolls=1)"]:
        add(e, gta, train_exact=False, infer_exact=True, stoch_train=True, dd=True)
    for e in ["bernoulli()", "bernoulli(temperature=2.0,use_real_sigmoid=False)",
              "bernoulli(alpha=0.5)"]:
        add(e, gb, train_exact=False, stoch_train=True)
    add("bernoulli()", gb, train_exact=False, stoch_infer=True,
        notes=["bernoulli has no inference branch: random in infer too"])
    for e in ["bernoulli(alpha='auto')", "bernoulli(alpha='auto_po2')"]:
        add(e, gba, train_exact=False, stoch_train=True, dd=True)

    # data-dependent scales on an all-zero tensor
    for e in ["quantized_bits(4,0,1,alpha='auto')", "quantized_bits(4,0,1,alpha='auto_po2')",
              "quantized_linear(4,0,1,alpha='auto')", "quantized_linear(4,0,1,alpha='auto_po2')",
              "binary(alpha='auto')", "binary(alpha='auto_po2')",
              "ternary(alpha='auto')", "ternary(alpha='auto_po2')"]:
        C.append(Case("qkeras", e, "train", "exact", dd=True, notes=["all-zero input"]))
        C[-1].x = np.array([-0.0, 0.0, 0.0, -0.0], F32)

    # functions -------------------------------------------------------------
    def gr(prec):
        def f(q, s, small=False):
            ties = [(k + 0.5) * prec for k in range(-8, 8)] if not small else \
                [(k + 0.5) * prec for k in range(-3, 3)]
            return make_grid(s, ties, [0.0], -4 * prec * 2, 4 * prec * 2, small=small)
        return f
    add("_round_through", gr(1.0))
    add("_round_through(use_stochastic_rounding=True, precision=0.5)", gr(1.0),
        train_exact=False, infer_exact=True)
    for p in ["0.5", "0.25", "1.0"]:
        add(f"_round_through(use_stochastic_rounding=True, precision={p})", gr(float(p)),
            train_exact=False, stoch_train=True)
    add("stochastic_round", gr(0.5), train_exact=False, stoch_train=True,
        notes=["gradient is None (floor/ceil/where have no gradient): written as zeros"])
    for p in ["0.25", "1.0", "0.125"]:
        add(f"stochastic_round(precision={p})", gr(float(p)), train_exact=False, stoch_train=True,
            notes=["gradient is None: written as zeros"])
    add("stochastic_round(precision=0.25)", gr(0.25), train_exact=False, stoch_infer=True,
        notes=["stochastic_round ignores the learning phase: random in infer too",
               "gradient is None: written as zeros"])

    def gpo(q, s, small=False):
        t = [2.0 ** k for k in range(-4, 3)] + [2.0 ** (k + 0.5) for k in range(-4, 2)]
        return make_grid(s, t + [-v for v in t[:4]], [0.0, 1e-7], -3.0, 3.0, small=small)
    add("stochastic_round_po2", gpo, train_exact=False, stoch_train=True,
        notes=["returns the (float) EXPONENT e with E[2**e] = |x|, not a value; "
               "gradient is None: written as zeros"])
    gf = lambda q, s, small=False: make_grid(  # noqa: E731
        s, [(k + 0.5) for k in range(-3, 3)], [0.0, 1.0, -1.0, 8 / 3, -8 / 3], -4.0, 4.0,
        small=small)
    for e in ["hard_sigmoid", "hard_tanh", "smooth_sigmoid", "smooth_tanh",
              "binary_sigmoid", "binary_tanh"]:
        add(e, gf)
    return C


# -------------------------------- Larq -------------------------------------


def larq_cases():
    C = []

    def add(expr, gridf, dd=False, notes=()):
        c = Case("larq", expr, "train", "exact", dd=dd, notes=notes)
        c.x = gridf(build(c), seed_of(expr))
        C.append(c)

    def gsign(q, s):
        c = getattr(q, "clip_value", 1.0)
        b = [0.0] + ([c, -c] if c is not None else [])
        return g_sign(s, b + [1.0, -1.0], 2.0 * max(1.0, c or 1.0))

    for e in ["SteSign()", "SteSign(clip_value=1.0)", "SteSign(clip_value=0.5)",
              "SteSign(clip_value=None)", "SteSign(clip_value=2.0)", "ApproxSign()",
              "SteHeaviside()", "SteHeaviside(clip_value=0.5)", "SteHeaviside(clip_value=None)"]:
        add(e, gsign)

    def gsw(q, s):
        z = 2.399357280 / q.beta   # zero of the SwishSign derivative
        return g_sign(s, [0.0, z, -z, 1.0, -1.0], 3.0)
    for e in ["SwishSign()", "SwishSign(beta=5.0)", "SwishSign(beta=2.0)", "SwishSign(beta=10.0)"]:
        add(e, gsw)
    for e in ["MagnitudeAwareSign()", "MagnitudeAwareSign(clip_value=0.5)",
              "MagnitudeAwareSign(clip_value=None)"]:
        add(e, lambda q, s: g_sign(s, [0.0, 0.5, -0.5, 1.0, -1.0], 2.0, lim=2.0), dd=True)

    def gtern(q, s):
        t, c = q.threshold_value, q.clip_value
        b = [0.0, t, -t, 1.0, -1.0] + ([c, -c] if c is not None else [])
        return g_sign(s, b, 2.0)
    for e in ["SteTern()", "SteTern(threshold_value=0.1)", "SteTern(threshold_value=0.5)",
              "SteTern(threshold_value=0.5,clip_value=0.75)",
              "SteTern(threshold_value=0.3,clip_value=None)", "SteTern(threshold_value=0.0)"]:
        add(e, gtern)
    for e in ["SteTern(ternary_weight_networks=True)",
              "SteTern(ternary_weight_networks=True,clip_value=None)",
              "SteTern(ternary_weight_networks=True,clip_value=0.5)"]:
        add(e, lambda q, s: g_sign(s, [0.0, 1.0, -1.0], 2.0, lim=2.0), dd=True)
        c = Case("larq", e, "train", "exact", dd=True,
                 notes=["x: 64 standard normal values (seed 7)"])
        c.x = finalize(np.random.RandomState(7).randn(64))
        C.append(c)

    def gdor(q, s):
        n = 2 ** q.precision - 1
        ties = [(j + 0.5) / n for j in range(n)]
        return make_grid(s, ties, [0.0, 1.0], -0.5, 1.5)
    for e in ["DoReFa()"] + [f"DoReFa(k_bit={k}, mode='activations')" for k in (1, 2, 3, 4, 8)]:
        add(e, gdor)
    for k in (1, 2, 3, 4, 8):
        e = f"DoReFa(k_bit={k}, mode='weights')"
        add(e, lambda q, s: g_sign(s, [0.0, 0.5, -0.5, 1.0, -1.0], 2.0, lim=2.0), dd=True)
        c = Case("larq", e, "train", "exact", dd=True,
                 notes=["x: 64 standard normal values (seed 7)"])
        c.x = finalize(np.random.RandomState(7).randn(64))
        C.append(c)
    for e in ["MagnitudeAwareSign()", "SteTern(ternary_weight_networks=True)",
              "DoReFa(k_bit=1, mode='weights')", "DoReFa(k_bit=2, mode='weights')"]:
        c = Case("larq", e, "train", "exact", dd=True, notes=["all-zero input"])
        c.x = np.array([-0.0, 0.0, 0.0, -0.0], F32)
        C.append(c)
    for e in ["NoOp(precision=8)", "NoOp(precision=1)"]:
        add(e, lambda q, s: g_sign(s, [0.0, 1.0, -1.0], 2.0))
    return C


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------


def check_learning_phase():
    x = tf.constant(np.linspace(-1, 1, 64, dtype=F32).reshape(-1, 1))
    q = qkq.stochastic_binary()
    tf.random.set_seed(1)
    set_phase("train")
    a, b = q(x).numpy(), q(x).numpy()
    assert not np.array_equal(a, b), "set_learning_phase(1) did not enable training branch"
    set_phase("infer")
    a, b = q(x).numpy(), q(x).numpy()
    assert np.array_equal(a, b), "set_learning_phase(0) did not enable inference branch"


def qkeras_commit():
    c = os.environ.get("QKERAS_COMMIT")
    if c:
        return c
    try:
        return subprocess.check_output(["git", "-C", QKERAS_SRC, "rev-parse", "HEAD"],
                                       stderr=subprocess.DEVNULL, text=True).strip()
    except Exception:  # noqa: BLE001
        print("warning: QKeras commit unknown (set QKERAS_COMMIT)", file=sys.stderr)
        return "unknown"


def header(lib, samples, n_cases):
    import platform
    h = [
        f"# qscope conformance vectors: {lib}",
        "# generator: tests/conformance/generate.py (see its docstring for how to re-run)",
        f"# python {platform.python_version()}, tensorflow {tf.__version__}, "
        f"keras {pkg_version('keras')}, numpy {np.__version__}",
    ]
    if lib == "qkeras":
        h += [f"# qkeras {getattr(qkeras, '__version__', '?')} from source, "
              f"commit {qkeras_commit()}",
              "# mode train = tf.keras.backend.set_learning_phase(1), "
              "mode infer = set_learning_phase(0) (verified at start-up)"]
    else:
        h += [f"# larq {pkg_version('larq')}",
              "# larq has no train/infer difference: all cases use mode train"]
    h += [
        "# x is fed as shape (N,1) (one channel) unless a case comment says otherwise;",
        "# dydx = d(sum(q(x)))/dx via tf.GradientTape, None gradients written as zeros.",
        f"# stochastic cases: y and dydx are means over S={samples} draws, "
        "yvar the sample variance of y (ddof=1).",
        "# a spec may occur in several cases (train/infer, main grid and NaN case).",
        f"# {n_cases} cases",
    ]
    return h


def pkg_version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:  # noqa: BLE001
        return "?"


def emit(case, res, out):
    out.append("")
    for n in case.notes:
        out.append("# " + n)
    if res.get("none"):
        if not any("None" in n for n in case.notes):
            out.append("# gradient is None: written as zeros")
    out.append("case " + case.spec)
    out.append("mode " + case.mode)
    out.append("kind " + case.kind)
    if case.kind == "stochastic":
        out.append(f"samples {res['samples']}")
    out.append(line("x", case.x))
    out.append(line("y", res["y"]))
    if case.kind == "stochastic":
        out.append(line("yvar", res["yvar"]))
    out.append(line("dydx", res["dydx"]))
    out.append("end")


def expand(cases):
    """Add +-inf where the forward saturates cleanly, and the NaN cases."""
    out = []
    for c in cases:
        if not c.dd and c.kind == "exact":
            infs, notes = probe_inf(c)
            c.x = finalize(list(c.x) + infs)
            c.notes += notes
        out.append(c)
        if c.nan_case:
            n = Case(c.lib, c.expr, c.mode, c.kind, rank1=c.rank1, nan_case=False,
                     notes=["NaN case"])
            n.x = np.array([-0.75, np.nan, 0.75], F32)
            out.append(n)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--only", choices=["qkeras", "larq"])
    ap.add_argument("--outdir", default=HERE)
    args = ap.parse_args()
    check_learning_phase()
    for lib, maker in (("qkeras", qkeras_cases), ("larq", larq_cases)):
        if args.only and args.only != lib:
            continue
        t0 = time.time()
        cases = expand(maker())
        body = []
        for i, c in enumerate(cases):
            res = evaluate(c, args.samples)
            res["samples"] = args.samples
            emit(c, res, body)
            print(f"[{lib} {i + 1}/{len(cases)}] {c.spec} {c.mode} {c.kind} "
                  f"n={len(c.x)}", file=sys.stderr)
        text = "\n".join(header(lib, args.samples, len(cases)) + body) + "\n"
        with open(os.path.join(args.outdir, lib + ".txt"), "w") as f:
            f.write(text)
        print(f"{lib}: {len(cases)} cases in {time.time() - t0:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
