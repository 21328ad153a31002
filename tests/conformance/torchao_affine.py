#!/usr/bin/env python3
"""Generate qscope's reference vectors for torchao 0.18's group-wise integers from the real package.

A float32 1-D tensor is one row cut into groups of g along its length; torchao asserts the
length is a multiple of g, so each group (a shorter tail one of its own) is torchao's row:

    torchao.affine(mapping_type=m, group_size=g, quant_min=lo, quant_max=hi), per group r (1, n):
        s, z = choose_qparams_affine(r, MappingType.M, (1, n), dtype, lo, hi)
        y = dequantize_affine(quantize_affine(r, (1, n), s, z, dtype, lo, hi), (1, n), s, z, dtype, lo, hi)
        dydx = 1 (qscope's definition: quantize_affine runs under no_grad)
    dtype: torch.int8 when [lo, hi] fits it, else torch.uint8.

    torchao.intx_fake_quantize(dtype='intN', group_size=g, is_symmetric=True):
        y = IntxFakeQuantizer(IntxFakeQuantizeConfig(torch.intN, group_size=g, is_symmetric=True))(x_whole)
        on the whole groups as one row (the tail: the same with group_size = its length, or, for a
        one-element tail that torchao refuses (group_size > 1), choose_qparams_affine +
        _fake_quantize_affine as IntxFakeQuantizer calls them — checked equal on every group);
        dydx = d(sum y)/dx from torch autograd.
    torchao.intx_fake_quantize(..., is_symmetric=False): torchao 0.18's own asymmetric path is
        broken (recorded in a comment below), so the vectors hold the affine primitives'
        asymmetric scheme: choose_qparams_affine(r, ASYMMETRIC, (1, n), torch.intN, lo, hi) then
        _fake_quantize_affine(r, (1, n), s, z, torch.int32, lo, hi), autograd for dydx.

Tensors: a normal sample of whole groups; a sample with a tail of 5 and one with a tail of 1;
groups of random magnitudes 2^-30…2^30; and one tensor of edge-case groups: all zeros, a single
outlier, a constant group (positive, negative), an amax exactly a power of two, a NaN inside, +inf
inside, -inf inside, both infinities, float32 subnormals, values near float32's max, and groups
whose scale is a power of two with every code's tie (k + 1/2)·s and its float32 neighbours.

Outputs: torchao_affine.txt beside this script (or the file named by the first argument), in
tests/conformance's line format; tests/quantizers/conformance.rs checks qscope against it bit for bit.

What torch 2.10.0 gives differently (run with .venv/torch2100, output to another file and
diff): the forward is the same everywhere; the intx gradient is s·(1/s) instead of 0 where the
rounded code lands exactly on quant_min or quant_max (torch 2.10's clamp passes the gradient on
its bounds; 2.15's does not).

How to run (versions used for the committed file):

    python3 -m venv .venv/torch2150 && .venv/torch2150/bin/pip install \\
        torch==2.15.0 torchao==0.18.0 ml_dtypes==0.6.0 numpy
    .venv/torch2150/bin/python tests/conformance/torchao_affine.py
"""

import platform
import sys
import warnings

import numpy as np
import torch

warnings.filterwarnings("ignore")
import torchao  # noqa: E402
from torchao.quantization.qat import IntxFakeQuantizeConfig  # noqa: E402
from torchao.quantization.qat.fake_quantizer import IntxFakeQuantizer  # noqa: E402
from torchao.quantization.quant_primitives import (  # noqa: E402
    MappingType, _fake_quantize_affine, choose_qparams_affine, dequantize_affine, quantize_affine)

from formats import line, write  # noqa: E402

F32 = np.float32
MAPPINGS = ["asymmetric", "symmetric", "symmetric_no_clipping_err"]
AFFINE = [(-8, 7, 32), (0, 15, 32), (-128, 127, 16), (0, 255, 8), (-2, 1, 4), (-8, 7, 1)]
INTX = [("int4", 32, True), ("int2", 32, True), ("int3", 16, True), ("int5", 32, True), ("int6", 32, True),
        ("int7", 32, True), ("int8", 32, True), ("int4", 8, True), ("int4", 32, False), ("int8", 16, False),
        ("int2", 4, False)]


def bounds(dtype):
    n = int(dtype[3:])
    return -(2 ** (n - 1)), 2 ** (n - 1) - 1


def up(v):
    return np.nextafter(F32(v), F32(np.inf))


def down(v):
    return np.nextafter(F32(v), F32(-np.inf))


def fit(values, g, rng):
    """Exactly g values: repeated cyclically, or the extremes kept and the rest sampled."""
    v = np.asarray(values, dtype=F32)
    if len(v) >= g:
        if g == 1:
            return v[:1]
        keep = [int(np.argmin(v)), int(np.argmax(v))]
        rest = [i for i in range(len(v)) if i not in keep]
        pick = keep + list(rng.choice(rest, size=g - 2, replace=False)) if g > 2 else keep[:g]
        return v[pick]
    return np.resize(v, g)


def tie_group(mapping, lo, hi, g, rng):
    """A group whose scale is exactly 1/8 and whose other elements are code ties and neighbours."""
    step = F32(0.125)
    if mapping == "symmetric":
        anchors = [-step * F32((hi - lo) / 2), step * F32((hi - lo) / 2)]
    elif mapping == "symmetric_no_clipping_err":
        anchors = [step * F32(min(lo, 0)), step * F32(max(hi, 0))]
    else:
        a = (hi - lo) // 2
        anchors = [-step * F32(a), step * F32(hi - lo - a)]
    lo_v, hi_v = anchors
    ties = np.arange(np.floor(lo_v / step), np.ceil(hi_v / step)) * step + step / 2
    ties = ties[(ties > lo_v) & (ties < hi_v)].astype(F32)
    pts = np.concatenate([ties, down(ties), up(ties)])
    rng.shuffle(pts)
    room = max(g - 2, 0)
    return np.concatenate([anchors, pts[:room]]).astype(F32)[:g] if g >= 2 else np.array(anchors[1:], F32)


def edge_groups(mapping, lo, hi, g, rng):
    """(name, group of exactly g values) for the edge cases."""
    base = rng.standard_normal(max(g, 2)).astype(F32)
    outlier = (base * F32(0.01)).copy()
    outlier[g // 2] = F32(300.0)
    nan = base.copy()
    nan[g // 3] = np.nan
    pinf = base.copy()
    pinf[g // 2] = np.inf
    ninf = base.copy()
    ninf[g // 2] = -np.inf
    both = base.copy()
    both[0], both[-1] = np.inf, -np.inf
    po2 = base / F32(np.abs(base).max()) * F32(4.0)
    subn = np.array([1e-45, -3e-45, 1e-40, -2e-39, 0.0, 7e-42], dtype=F32)
    huge = np.array([3.4e38, -3.0e38, 1e38, 0.0, -1.0], dtype=F32)
    groups = [
        ("all zeros", np.array([0.0, -0.0], F32)),
        ("a single outlier 300", outlier),
        ("constant 0.7", np.array([0.7], F32)),
        ("constant -2.5", np.array([-2.5], F32)),
        ("all positive in [10, 20]", np.linspace(10, 20, max(g, 2)).astype(F32)),
        ("amax exactly 4", po2),
        ("a NaN inside", nan),
        ("+inf inside", pinf),
        ("-inf inside", ninf),
        ("+inf and -inf", both),
        ("float32 subnormals", subn),
        ("near float32's max", huge),
        ("scale 1/8: every code's tie and its neighbours", tie_group(mapping, lo, hi, g, rng)),
    ]
    return [(name, fit(v, g, rng)) for name, v in groups]


def tensors(mapping, lo, hi, g):
    rng = np.random.default_rng(7)
    whole = max(3 * g, 12)
    mags = np.concatenate([rng.standard_normal(g).astype(F32) * F32(2.0 ** e) for e in (-30, -9, 0, 7, 30)])
    edges = edge_groups(mapping, lo, hi, g, rng)
    return [
        ("normal sample, whole groups", rng.standard_normal(whole).astype(F32)),
        ("normal sample with a tail of 5", rng.standard_normal(3 * g + 5).astype(F32)),
        ("normal sample with a tail of 1", rng.standard_normal(2 * g + 1).astype(F32)),
        ("groups of magnitude 2^-30, 2^-9, 1, 2^7, 2^30", mags),
        ("edge groups: " + "; ".join(n for n, _ in edges), np.concatenate([v for _, v in edges])),
    ]


def split(x, g):
    return [x[i:i + g] for i in range(0, len(x), g)]


def affine(x, mapping, lo, hi, g):
    dtype = torch.int8 if hi <= 127 else torch.uint8
    out = []
    for r in split(torch.tensor(x), g):
        r, block = r.reshape(1, -1), (1, r.numel())
        s, z = choose_qparams_affine(r, getattr(MappingType, mapping.upper()), block, dtype, lo, hi)
        c = quantize_affine(r, block, s, z, dtype, lo, hi)
        out.append(dequantize_affine(c, block, s, z, dtype, lo, hi).reshape(-1))
    return torch.cat(out).numpy(), np.ones_like(x)


def primitives(r, dtype, symmetric):
    """IntxFakeQuantizer's calls for one group row r (requires grad), or the asymmetric scheme."""
    lo, hi = bounds(dtype)
    block = (1, r.shape[1])
    with torch.no_grad():
        if symmetric:
            s, z = choose_qparams_affine(r, MappingType.SYMMETRIC, block, torch.int8, lo, hi,
                                         scale_dtype=torch.float32, zero_point_dtype=torch.float32)
            z = z.to(torch.int32)
        else:
            s, z = choose_qparams_affine(r, MappingType.ASYMMETRIC, block, getattr(torch, dtype), lo, hi)
    return _fake_quantize_affine(r, block, s, z, torch.int32, lo, hi)


def grad_of(f, x_np):
    x = torch.tensor(x_np, requires_grad=True)
    y = f(x)
    y.sum().backward()
    return y.detach().numpy(), x.grad.numpy()


def intx(x, dtype, g, symmetric):
    def by_primitives(x):
        return torch.cat([primitives(r.reshape(1, -1), dtype, symmetric).reshape(-1) for r in split(x, g)])

    y, d = grad_of(by_primitives, x)
    if symmetric:
        def by_quantizer(x):
            k = len(x) // g * g
            parts = []
            if k:
                fq = IntxFakeQuantizer(IntxFakeQuantizeConfig(getattr(torch, dtype), group_size=g, is_symmetric=True))
                parts.append(fq(x[:k].reshape(1, -1)).reshape(-1))
            if len(x) - k > 1:
                n = len(x) - k
                fq = IntxFakeQuantizer(IntxFakeQuantizeConfig(getattr(torch, dtype), group_size=n, is_symmetric=True))
                parts.append(fq(x[k:].reshape(1, -1)).reshape(-1))
            elif len(x) - k == 1:
                parts.append(primitives(x[k:].reshape(1, -1), dtype, True).reshape(-1))
            return torch.cat(parts)

        y2, d2 = grad_of(by_quantizer, x)
        assert same(y, y2) and same(d, d2), "IntxFakeQuantizer and its primitives differ"
    return y, d


def same(a, b):
    a, b = np.asarray(a, F32), np.asarray(b, F32)
    return bool(np.all((a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))))


def broken_asymmetric():
    """torchao 0.18's own is_symmetric=False on linspace(10, 20, 32), int4: for the record."""
    x = torch.linspace(10, 20, 32).reshape(1, 32).requires_grad_()
    fq = IntxFakeQuantizer(IntxFakeQuantizeConfig(torch.int4, group_size=32, is_symmetric=False))
    y = fq(x)
    y.sum().backward()
    vals = sorted({str(F32(v)) for v in y.detach().reshape(-1).tolist()})
    grads = sorted({str(F32(v)) for v in x.grad.reshape(-1).tolist()})
    return (f"# torchao's own is_symmetric=False (int4, linspace(10, 20, 32)): y in {{{', '.join(vals)}}}, "
            f"dydx in {{{', '.join(grads)}}}, scale {F32(fq.scale.item())}, zero point {fq.zero_point.item()}")


def main():
    torch.set_num_threads(1)
    out = [
        "# qscope conformance vectors: torchao group-wise integers (affine quant primitives, IntxFakeQuantizer)",
        "# generator: tests/conformance/torchao_affine.py (see its docstring for how to re-run)",
        "# compare: bits (every value and gradient to the bit; -0 is not +0, any NaN matches a NaN)",
        f"# python {platform.python_version()}, torch {torch.__version__}, torchao {torchao.__version__}, "
        f"numpy {np.__version__}, {platform.machine()}",
        "# each group (a shorter tail one of its own) is one torchao row; affine dydx = 1 (qscope's definition),",
        "# intx dydx from torch autograd",
        broken_asymmetric(),
    ]
    n = 0
    cases = [(f"torchao.affine(mapping_type='{m}', group_size={g}, quant_min={lo}, quant_max={hi})",
              m, lo, hi, g, lambda x, m=m, lo=lo, hi=hi, g=g: affine(x, m, lo, hi, g))
             for m in MAPPINGS for lo, hi, g in AFFINE]
    cases += [(f"torchao.intx_fake_quantize(dtype='{d}', group_size={g}, is_symmetric={sym})",
               "symmetric" if sym else "asymmetric", *bounds(d), g, lambda x, d=d, g=g, sym=sym: intx(x, d, g, sym))
              for d, g, sym in INTX]
    for spec, mapping, lo, hi, g, run in cases:
        for name, x in tensors(mapping, lo, hi, g):
            x = np.asarray(x, dtype=F32)
            y, d = run(x)
            y2, d2 = run(x)
            assert same(y, y2) and same(d, d2), (spec, name)
            out += [f"# {name}", f"case {spec}", "mode train", "kind exact",
                    line("x", x), line("y", y), line("dydx", d), "end"]
            n += 1
    write(sys.argv[1] if len(sys.argv) > 1 else "torchao_affine.txt", out, n)


if __name__ == "__main__":
    main()
