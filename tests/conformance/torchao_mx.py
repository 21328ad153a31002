#!/usr/bin/env python3
"""Generate qscope's reference vectors for torchao 0.18's MX and NVFP4 block formats.

Each case runs torchao on one float32 1-D tensor x, padded with zeros to whole blocks (torchao
asserts whole blocks; a zero does not change a block's amax, so the shorter tail block is the
block qscope cuts) and cut back:

    MX:     MXTensor.to_mx(xp, elem_dtype, block_size, scaling_mode).dequantize(torch.float32)
    NVFP4:  NVFP4Tensor.to_nvfp4(xp.reshape(1, -1), per_tensor_scale=t).dequantize(torch.float32)
            (2-D only in torchao: the 1-D tensor is one row; blocks of 16)

for every elem_dtype (float8_e4m3fn, float8_e5m2, "fp6_e2m3", "fp6_e3m2", float4_e2m1fn_x2 —
qscope's 'fp4_e2m1') and scaling_mode (floor, rceil, ceil, even), the spec
`torchao.mx(elem_dtype=..., block_size=32, scaling_mode=...)`, plus block sizes 16 and 1.
dydx is 1 everywhere: qscope's gradient (MX defines none; NVFP4's autograd reaches only the
block scales). NVFP4 runs with t = None, 'auto' (per_tensor_amax_to_scale(torch.amax(torch.abs(x))),
amax/2688) and the numbers 0.5 and 3e-3: `torchao.nvfp4(per_tensor_scale=...)`.

Tensors, cut into blocks of 32 that hit the edge cases:
- every representable value of the element type, each tie between neighbours (midpoint) and
  the float32 neighbours of both, positive and negative, in blocks whose scale is 1 (each
  block starts with an anchor that fixes its amax: the element's max, or 2^emax for ceil);
- element overflow in a block of scale 1 (between max and 2^(emax+1)), the element's
  subnormals; all zeros (±0); a single outlier; amax exactly a power of two and its float32
  neighbours; a NaN inside a block (the block is NaN, the others not); +inf and -inf inside;
  tiny blocks (scale code 0: torchao divides by 2^-126 and multiplies by 2^-127; float32
  subnormals); float32's largest value; a normal sample; a tail block of 5 elements.

Outputs (next to this script): torchao_mx.txt in tests/conformance's line format (see
generate.py's docstring): `case <spec>`, `mode train`, `kind exact`, x, y, dydx; the comment
before each case lists the block scale codes torchao stored.  Floats are float32 in
shortest round-trip form, checked with exact rational arithmetic (formats.py's `line`).
tests/quantizers/conformance.rs checks qscope against them bit for bit (any NaN matches NaN).

How to run (versions used for the committed file; torch 2.10.0 gives the same file):

    python3 -m venv .venv/torch2150 && .venv/torch2150/bin/pip install \\
        torch==2.15.0 torchao==0.18.0 ml_dtypes==0.6.0 numpy
    .venv/torch2150/bin/python tests/conformance/torchao_mx.py
"""

import platform
import warnings

import numpy as np
import torch

warnings.filterwarnings("ignore")
import ml_dtypes  # noqa: E402
import torchao  # noqa: E402
from torchao.prototype.mx_formats.config import ScaleCalculationMode  # noqa: E402
from torchao.prototype.mx_formats.mx_tensor import MXTensor  # noqa: E402
from torchao.prototype.mx_formats.nvfp4_tensor import NVFP4Tensor, per_tensor_amax_to_scale  # noqa: E402

from formats import line, representable, write  # noqa: E402  (this directory is on sys.path)

F32 = np.float32
BLOCK = 32
# qscope name -> (torchao elem_dtype, ml_dtypes type, largest power-of-two exponent emax)
ELEMS = {
    "float8_e4m3fn": (torch.float8_e4m3fn, ml_dtypes.float8_e4m3fn, 8),
    "float8_e5m2": (torch.float8_e5m2, ml_dtypes.float8_e5m2, 15),
    "fp6_e2m3": ("fp6_e2m3", ml_dtypes.float6_e2m3fn, 2),
    "fp6_e3m2": ("fp6_e3m2", ml_dtypes.float6_e3m2fn, 4),
    "fp4_e2m1": (torch.float4_e2m1fn_x2, ml_dtypes.float4_e2m1fn, 2),
}
MODES = ["floor", "rceil", "ceil", "even"]


def nb(v):
    v = F32(v)
    return [np.nextafter(v, F32(-np.inf)), v, np.nextafter(v, F32(np.inf))]


def blocks_of(anchor, values, size=BLOCK):
    """values in blocks of `size`, each block led by `anchor` (which fixes its amax)."""
    out = []
    for i in range(0, len(values), size - 1):
        out += [anchor] + list(values[i:i + size - 1])
        out += [F32(0.0)] * (-len(out) % size)
    return np.array(out, dtype=F32)


def grid(elem, mode):
    """Every value, tie and neighbour of the element type at block scale 1, both signs."""
    t, emax = ELEMS[elem][1], ELEMS[elem][2]
    vals = representable(t)
    pos = vals[vals >= 0]
    mids = [F32((float(a) + float(b)) / 2) for a, b in zip(pos[:-1], pos[1:])]
    top = F32(2.0**emax) if mode == "ceil" else pos[-1]
    cand = np.unique(np.abs(np.array([v for m in list(pos) + mids for v in nb(m)], dtype=F32)))
    cand = cand[cand <= top]
    return blocks_of(top, np.concatenate([cand, -cand]))


def tensors(elem, mode):
    t, emax = ELEMS[elem][1], ELEMS[elem][2]
    fmax = float(ml_dtypes.finfo(t).max)
    rng = np.random.default_rng(3)
    normal = rng.standard_normal(96).astype(F32)
    ramp = np.linspace(-1, 1, BLOCK - 1).astype(F32)
    p2 = F32(2.0**emax)
    over = np.array([fmax, fmax * 1.01, (fmax + 2 * float(p2)) / 2, np.nextafter(F32(2 * float(p2)), F32(0)),
                     -fmax * 1.05, fmax / 2, fmax / 3], dtype=F32)
    subn = representable(t)
    subn = subn[(subn > 0) & (subn < 2 * subn[subn > 0][0] * 4)]
    return [
        ("every value, tie and neighbour of the element type at block scale 1", grid(elem, mode)),
        ("overflow past the element's max in a block led by its max",
         blocks_of(F32(fmax), np.concatenate([over, -over, subn, -subn]))),
        ("all zeros (+0 and -0) beside a normal block", np.concatenate([np.tile(F32([0.0, -0.0]), 16), normal[:32]])),
        ("a single outlier 1000 among values near 1e-3",
         np.concatenate([ramp * F32(1e-3), [F32(1000.0)]]).astype(F32)),
        ("amax exactly a power of two (4), and its float32 neighbours",
         np.concatenate([np.concatenate([ramp * F32(3.0), [a]]) for a in nb(4.0)]).astype(F32)),
        ("amax exactly 2^-100 and 2^20",
         np.concatenate([ramp * F32(2.0**-101), [F32(2.0**-100)], ramp * F32(2.0**19), [F32(-(2.0**20))]])),
        ("a NaN inside the second block", np.concatenate([normal[:32], normal[32:40], [np.nan], normal[41:64]])),
        ("+inf inside the first block, -inf inside the second",
         np.concatenate([[np.inf], normal[1:32], normal[32:40], [-np.inf], normal[41:64]]).astype(F32)),
        ("tiny blocks: amax 2^-120, 2^-126 and float32 subnormals (scale code 0)",
         np.concatenate([ramp * F32(2.0**-121), [F32(2.0**-120)], ramp * F32(2.0**-127), [F32(2.0**-126)],
                         ramp * F32(1e-44), [F32(1e-40)]]).astype(F32)),
        ("float32's largest value", np.concatenate([ramp * F32(1e37), [np.finfo(F32).max]]).astype(F32)),
        ("a normal sample of 96", normal),
        ("a tail block of 5 elements after two whole blocks", np.concatenate([normal[:64], [3.5, -0.25, 1e-3, 7.0, 0.1]]).astype(F32)),
    ]


def mx(x_np, elem, mode, block=BLOCK):
    n = len(x_np)
    x = torch.nn.functional.pad(torch.tensor(x_np, dtype=torch.float32), (0, -n % block))
    m = MXTensor.to_mx(x, ELEMS[elem][0], block, ScaleCalculationMode(mode))
    y = m.dequantize(torch.float32)[:n].numpy()
    return y, m.scale.view(torch.uint8).reshape(-1).numpy().tolist()


NV = 16
NV_SCALES = ["None", "'auto'", "0.5", "0.003"]


def nv_tensors():
    fp4 = representable(ml_dtypes.float4_e2m1fn)
    pos = fp4[fp4 >= 0]
    mids = [F32((float(a) + float(b)) / 2) for a, b in zip(pos[:-1], pos[1:])]
    cand = np.unique(np.array([v for m in list(pos) + mids for v in nb(m)], dtype=F32))
    cand = cand[cand <= 6]
    rng = np.random.default_rng(4)
    normal = rng.standard_normal(48).astype(F32)
    ramp = np.linspace(-1, 1, NV - 1).astype(F32)
    led = lambda a, scale: np.concatenate([ramp * F32(scale), [F32(a)]]).astype(F32)  # noqa: E731
    return [
        ("every FP4 value, tie and neighbour at block scale 1 (blocks led by 6)",
         blocks_of(F32(6.0), np.concatenate([cand, -cand]), NV)),
        ("amax/6 off the E4M3 grid: amax 7, 6.5, 13, 100",
         np.concatenate([led(7, 7), led(6.5, 6.5), led(-13, 13), led(100, 90)])),
        ("amax beyond 2688 (5000, 1e6) and below 6*2^-6 (0.05, 1e-3)",
         np.concatenate([led(5000, 5000), led(-1e6, 3e5), led(0.05, 0.05), led(1e-3, 1e-3)])),
        ("all zeros (+0 and -0) beside a normal block", np.concatenate([np.tile(F32([0.0, -0.0]), 8), normal[:16]])),
        ("a NaN inside the second block", np.concatenate([normal[:16], normal[16:20], [np.nan], normal[21:32]])),
        ("+inf inside the first block, -inf inside the second",
         np.concatenate([[np.inf], normal[1:16], normal[16:20], [-np.inf], normal[21:32]]).astype(F32)),
        ("a single outlier 1000 among values near 1e-2", led(1000, 1e-2)),
        ("amax exactly a power of two (8, 2^-10) and float32 neighbours",
         np.concatenate([led(a, 7) for a in nb(8.0)] + [led(2.0**-10, 2.0**-11)])),
        ("float32 subnormals and float32's largest value", np.concatenate([led(1e-40, 1e-41), led(np.finfo(F32).max, 1e37)])),
        ("a normal sample of 48", normal),
        ("an all-zero tensor", np.zeros(16, dtype=F32)),
        ("a tail block of 5 elements after two whole blocks", np.concatenate([normal[:32], [3.5, -0.25, 1e-3, 7.0, 0.1]]).astype(F32)),
    ]


def nvfp4(x_np, t):
    n = len(x_np)
    x = torch.tensor(x_np, dtype=torch.float32)
    xp = torch.nn.functional.pad(x, (0, -n % NV))
    if t == "'auto'":
        t = per_tensor_amax_to_scale(torch.amax(torch.abs(x)))
    elif t != "None":
        t = torch.tensor(float(t), dtype=torch.float32)
    else:
        t = None
    m = NVFP4Tensor.to_nvfp4(xp.reshape(1, -1), per_tensor_scale=t)
    y = m.dequantize(torch.float32).reshape(-1)[:n].numpy()
    extra = "" if t is None else f", per-tensor scale {str(F32(t.item()))}"
    return y, m.scale.view(torch.uint8).reshape(-1).numpy().tolist(), extra


def case(spec, name, x, y, codes):
    x = np.asarray(x, dtype=F32)
    return [f"# {name}: scale codes {codes}", f"case {spec}", "mode train", "kind exact",
            line("x", x), line("y", y), line("dydx", np.ones_like(x)), "end"]


def main():
    torch.set_num_threads(1)
    out = [
        "# qscope conformance vectors: torchao MX and NVFP4 block formats",
        "# generator: tests/conformance/torchao_mx.py (see its docstring for how to re-run)",
        "# compare: bits (every value and gradient to the bit; -0 is not +0, any NaN matches a NaN)",
        f"# python {platform.python_version()}, torch {torch.__version__}, torchao {torchao.__version__}, "
        f"numpy {np.__version__}, ml_dtypes {ml_dtypes.__version__}",
        "# y = MXTensor.to_mx(x padded with zeros to whole blocks, elem_dtype, block_size, scaling_mode)"
        ".dequantize(torch.float32) cut back; dydx = 1 (qscope's: MX defines none)",
        "# y = NVFP4Tensor.to_nvfp4(x padded to whole blocks of 16 as one row, per_tensor_scale=t)"
        ".dequantize(torch.float32) cut back; dydx = 1 (qscope's)",
    ]
    n = 0
    for elem in ELEMS:
        for mode in MODES:
            spec = f"torchao.mx(elem_dtype='{elem}', block_size={BLOCK}, scaling_mode='{mode}')"
            for name, x in tensors(elem, mode):
                x = np.asarray(x, dtype=F32)
                y, codes = mx(x, elem, mode)
                y2, _ = mx(x, elem, mode)
                assert np.array_equal(y.view(np.uint32), y2.view(np.uint32)), (spec, name)
                out += case(spec, name, x, y, codes)
                n += 1
    x = np.random.default_rng(5).standard_normal(45).astype(F32) * F32(3)
    for elem, block in [("fp4_e2m1", 16), ("float8_e4m3fn", 1)]:
        spec = f"torchao.mx(elem_dtype='{elem}', block_size={block})"
        y, codes = mx(x, elem, "floor", block)
        out += case(spec, f"a sample of 45 in blocks of {block}", x, y, codes)
        n += 1
    for t in NV_SCALES:
        spec = "torchao.nvfp4" if t == "None" else f"torchao.nvfp4(per_tensor_scale={t})"
        for name, x in nv_tensors():
            x = np.asarray(x, dtype=F32)
            y, codes, extra = nvfp4(x, t)
            y2, _, _ = nvfp4(x, t)
            assert np.array_equal(y.view(np.uint32), y2.view(np.uint32)), (spec, name)
            out += case(spec, name + extra, x, y, codes)
            n += 1
    write("torchao_mx.txt", out, n)


if __name__ == "__main__":
    main()
