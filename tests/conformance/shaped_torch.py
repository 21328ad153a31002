#!/usr/bin/env python3
"""Shape-aware conformance vectors: torchao 0.18 and bitsandbytes 0.50 on 2-D and 3-D weights.

The 1-D generators (torchao_affine.py, torchao_mx.py, torchao_formats.py, bnb_formats.py) feed
each library one row.  Here each library gets a weight of a real shape, through its own call on
that tensor (no reshaping by this script):

    torchao.affine(...group_size=g...):  s, z = choose_qparams_affine(W, M, (1, ..., 1, g), dtype, lo, hi)
                                         y = dequantize_affine(quantize_affine(W, ...), ...); dydx = 1
    torchao.intx_fake_quantize(...):     y = IntxFakeQuantizer(IntxFakeQuantizeConfig(torch.intN,
                                         group_size=g, is_symmetric=True))(W); dydx = d(sum y)/dW (autograd)
    torchao.mx(...):                     y = MXTensor.to_mx(W, elem_dtype, 32, mode).dequantize(torch.float32); dydx = 1
    torchao.nvfp4[(per_tensor_scale=t)]: y = NVFP4Tensor.to_nvfp4(W, per_tensor_scale=t).dequantize(torch.float32),
                                         'auto': t = per_tensor_amax_to_scale(torch.amax(torch.abs(W))); dydx = 1
    torchao.float8(...):                 y = hp_tensor_to_float8_dynamic(W, dtype, LinearMMConfig(),
                                         round_scales_to_power_of_2=r).to_original_precision(); dydx by autograd
    bnb.<t>(blocksize=64):               q, state = quantize_4bit(W, blocksize=64, quant_type=t);
                                         y = get_4bit_type(t)[code] * absmax (checked against
                                         dequantize_4bit(q, state) as bnb_formats.py does); dydx = 1

dydx as each 1-D generator defines it.  Shapes (8, 64), (16, 96) and (4, 2, 64): every last
dimension a multiple of every group / block (torchao asserts it).  Where a library refuses a
shape (IntxFakeQuantizer asserts a 2-D input) the header says so and there is no case.

Inputs, one per shape, the same for every quantizer: x = N(0, 1) * 0.5 (numpy default_rng
seeded with the shape), row r of x.reshape(-1, last) multiplied by (1 + r), then column 37 of
the last axis multiplied by 10 (an outlier in every row).

Each case is preceded by comments: the shape and the scales the library stored, then whether
the result (y and dydx) equals, bit for bit, the 1-D generator's evaluation of

  - the flattened tensor x.reshape(-1) ("flattened (1-D)"), and
  - each row x.reshape(-1, last)[r] on its own, concatenated ("per row along the last axis").

Output: shaped_torch.txt beside this script, in torchao.txt's line format (see generate.py)
plus shaped.txt's `shape d0 d1 ...` line after `kind`; x, y and dydx list every element in
row-major (C) order of that shape.  `# compare: bits`: -0 is not +0, any NaN matches a NaN.

How to run: both venvs of the 1-D generators (torchao_formats.py's, then bnb_formats.py's);
the bnb venv sees torch 2.15 / torchao / numpy / ml_dtypes through a .pth file, which must hold
an ABSOLUTE path (site ignores a relative one that does not exist relative to site-packages),
and bitsandbytes imports `packaging`, which the torch venv does not carry:

    python3 -m venv .venv/torch2150 && .venv/torch2150/bin/pip install \\
        torch==2.15.0 torchao==0.18.0 ml_dtypes==0.6.0 numpy
    python3 -m venv .venv/bnb
    echo $PWD/.venv/torch2150/lib/python3.11/site-packages \\
        > .venv/bnb/lib/python3.11/site-packages/torch2150.pth
    .venv/bnb/bin/pip install --no-deps bitsandbytes==0.50.2 packaging
    .venv/bnb/bin/python tests/conformance/shaped_torch.py

Deterministic: a rerun writes identical bytes.
"""

import platform
import traceback
import warnings

import numpy as np
import torch

warnings.filterwarnings("ignore")
import ml_dtypes  # noqa: E402
import torchao  # noqa: E402
from torchao.float8.float8_scaling_utils import hp_tensor_to_float8_dynamic  # noqa: E402
from torchao.float8.float8_training_tensor import LinearMMConfig  # noqa: E402
from torchao.prototype.mx_formats.config import ScaleCalculationMode  # noqa: E402
from torchao.prototype.mx_formats.mx_tensor import MXTensor  # noqa: E402
from torchao.prototype.mx_formats.nvfp4_tensor import NVFP4Tensor, per_tensor_amax_to_scale  # noqa: E402
from torchao.quantization.qat import IntxFakeQuantizeConfig  # noqa: E402
from torchao.quantization.qat.fake_quantizer import IntxFakeQuantizer  # noqa: E402
from torchao.quantization.quant_primitives import (  # noqa: E402
    MappingType, choose_qparams_affine, dequantize_affine, quantize_affine)

# The 1-D generators (this directory is on sys.path: the script's own): their evaluations of a
# 1-D tensor are the "flattened" and "per row" references.
import bnb_formats  # noqa: E402  (imports bitsandbytes)
import torchao_affine  # noqa: E402
import torchao_formats  # noqa: E402
import torchao_mx  # noqa: E402
from formats import line, write  # noqa: E402

import bitsandbytes  # noqa: E402
import bitsandbytes.functional as BF  # noqa: E402

F32 = np.float32
SHAPES = [(8, 64), (16, 96), (4, 2, 64)]
OUTLIER_COLUMN = 37


def make_x(shape):
    rng = np.random.default_rng(list(shape))
    x = (rng.standard_normal(shape).astype(F32) * F32(0.5)).reshape(-1, shape[-1])
    x = x * (F32(1) + np.arange(x.shape[0], dtype=F32))[:, None]
    x[:, OUTLIER_COLUMN] *= F32(10)
    return x.reshape(shape).astype(F32)


def grad_of(f, x_np):
    x = torch.tensor(x_np, requires_grad=True)
    y = f(x)
    y.sum().backward()
    return y.detach().numpy(), x.grad.numpy()


# --- each quantizer: (shaped evaluation -> y, dydx, note), (1-D evaluation -> y, dydx) ---------

def affine_case(mapping, lo, hi, g):
    spec = f"torchao.affine(mapping_type='{mapping}', group_size={g}, quant_min={lo}, quant_max={hi})"
    dtype = torch.int8 if hi <= 127 else torch.uint8

    def shaped(x):
        w = torch.tensor(x)
        block = (1,) * (w.dim() - 1) + (g,)
        s, z = choose_qparams_affine(w, getattr(MappingType, mapping.upper()), block, dtype, lo, hi)
        c = quantize_affine(w, block, s, z, dtype, lo, hi)
        y = dequantize_affine(c, block, s, z, dtype, lo, hi).numpy()
        return y, np.ones_like(x), f"block_size {block}, {s.numel()} scales of shape {tuple(s.shape)}"

    def flat(v):
        return torchao_affine.affine(v, mapping, lo, hi, g)

    return spec, shaped, flat, "torchao_affine.py"


def intx_case(dtype, g):
    spec = f"torchao.intx_fake_quantize(dtype='{dtype}', group_size={g}, is_symmetric=True)"

    def shaped(x):
        fq = IntxFakeQuantizer(IntxFakeQuantizeConfig(getattr(torch, dtype), group_size=g, is_symmetric=True))
        y, d = grad_of(fq, x)
        return y, d, f"{fq.scale.numel()} scales of shape {tuple(fq.scale.shape)}"

    def flat(v):
        return torchao_affine.intx(v, dtype, g, True)

    return spec, shaped, flat, "torchao_affine.py"


def mx_case(elem, mode):
    spec = f"torchao.mx(elem_dtype='{elem}', block_size={torchao_mx.BLOCK}, scaling_mode='{mode}')"

    def shaped(x):
        m = MXTensor.to_mx(torch.tensor(x), torchao_mx.ELEMS[elem][0], torchao_mx.BLOCK, ScaleCalculationMode(mode))
        y = m.dequantize(torch.float32).numpy()
        codes = m.scale.view(torch.uint8)
        return y, np.ones_like(x), f"scale codes of shape {tuple(codes.shape)}: {codes.reshape(-1).tolist()}"

    def flat(v):
        return torchao_mx.mx(v, elem, mode)[0], np.ones_like(v)

    return spec, shaped, flat, "torchao_mx.py"


def nvfp4_case(t):
    spec = "torchao.nvfp4" if t == "None" else f"torchao.nvfp4(per_tensor_scale={t})"

    def scale_of(w):
        return per_tensor_amax_to_scale(torch.amax(torch.abs(w))) if t == "'auto'" else None

    def shaped(x):
        w = torch.tensor(x)
        s = scale_of(w)
        m = NVFP4Tensor.to_nvfp4(w, per_tensor_scale=s)
        y = m.dequantize(torch.float32).numpy()
        codes = m.scale.view(torch.uint8)
        extra = "" if s is None else f"per-tensor scale {str(F32(s.item()))} (amax over the whole tensor); "
        return y, np.ones_like(x), f"{extra}scale codes of shape {tuple(codes.shape)}: {codes.reshape(-1).tolist()}"

    def flat(v):
        return torchao_mx.nvfp4(v, t)[0], np.ones_like(v)

    return spec, shaped, flat, "torchao_mx.py"


def float8_case(dtype, pow2):
    spec = f"torchao.float8(float8_dtype='{dtype}', round_scales_to_power_of_2={pow2})"

    def shaped(x):
        w = torch.tensor(x, requires_grad=True)
        x8 = hp_tensor_to_float8_dynamic(w, getattr(torch, dtype), LinearMMConfig(), round_scales_to_power_of_2=pow2)
        y = x8.to_original_precision()
        y.sum().backward()
        return y.detach().numpy(), w.grad.numpy(), f"scale {str(F32(x8._scale.item()))} (shape {tuple(x8._scale.shape)})"

    def flat(v):
        y, g, _ = torchao_formats.run(v, dtype, pow2)
        return y, g

    return spec, shaped, flat, "torchao_formats.py"


def bnb_case(t, blocksize=64):
    spec = f"bnb.{t}(blocksize={blocksize})"

    def shaped(x):
        w = torch.tensor(x)
        q, state = BF.quantize_4bit(w, blocksize=blocksize, quant_type=t)
        y = BF.dequantize_4bit(q, state).numpy()
        assert y.shape == x.shape, (spec, y.shape)
        packed = q.reshape(-1).numpy()
        codes = np.stack([packed >> 4, packed & 0xF], axis=1).reshape(-1)[: x.size]
        absmax = state.absmax.numpy()
        ref = (bnb_formats.table(t)[codes] * np.repeat(absmax, blocksize)[: x.size]).astype(F32)
        y = y.reshape(-1)
        differ = [i for i in range(x.size) if not bnb_formats.same(y[i], ref[i])]
        zeros = [i for i in differ if y[i] == 0 and ref[i] == 0 and codes[i] == 8 and t == "fp4"]
        assert differ == zeros, (spec, x.shape, differ)
        note = f"; the kernel gave -0 for code 0b1000 at {len(zeros)}" if zeros else ""
        stored = " ".join(str(F32(a)) for a in absmax)
        return ref.reshape(x.shape), np.ones_like(x), f"{len(absmax)} blocks over the flattened tensor, absmax {stored}{note}"

    def flat(v):
        _, ref, _, _ = bnb_formats.run(v, t, blocksize)
        return ref, np.ones_like(v)

    return spec, shaped, flat, "bnb_formats.py"


CASES = [
    affine_case("symmetric", -8, 7, 32),
    affine_case("asymmetric", -128, 127, 16),
    intx_case("int4", 32),
    mx_case("fp4_e2m1", "floor"),
    mx_case("float8_e4m3fn", "floor"),
    nvfp4_case("None"),
    nvfp4_case("'auto'"),
    float8_case("float8_e4m3fn", False),
    float8_case("float8_e5m2", True),
    bnb_case("nf4"),
    bnb_case("fp4"),
]


# --- comparisons ---------------------------------------------------------------------------

def same(a, b):
    a, b = np.asarray(a, F32).reshape(-1), np.asarray(b, F32).reshape(-1)
    return (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))


def verdict(what, y, d, yr, dr):
    sy, sd = same(y, yr), same(d, dr)
    if sy.all() and sd.all():
        return f"== {what}: bitwise"
    parts = []
    if not sy.all():
        parts.append(f"y differs in {int((~sy).sum())} of {sy.size} elements")
    if not sd.all():
        parts.append(f"dydx differs in {int((~sd).sum())} of {sd.size} elements")
    return f"!= {what}: " + ", ".join(parts)


def per_rows(flat, x):
    rows = x.reshape(-1, x.shape[-1])
    ys, ds = zip(*(flat(np.ascontiguousarray(r)) for r in rows))
    return np.concatenate(ys), np.concatenate(ds)


def nvfp4_per_expert(x):
    """torchao's 3-D (MoE) dynamic path: amax per leading index (dim=(1, 2)), scale shape (E, 1, 1)."""
    w = torch.tensor(x)
    s = per_tensor_amax_to_scale(torch.amax(torch.abs(w), dim=(1, 2))).view(-1, 1, 1)
    return NVFP4Tensor.to_nvfp4(w, per_tensor_scale=s).dequantize(torch.float32).numpy()


def main():
    torch.set_num_threads(1)
    body, n, refused = [], 0, []
    for spec, shaped, flat, gen in CASES:
        for shape in SHAPES:
            x = make_x(shape)
            try:
                y, d, note = shaped(x)
            except AssertionError as e:
                where = traceback.extract_tb(e.__traceback__)[-1]
                refused.append(f"{spec} on {shape}: AssertionError at `{where.line}` "
                               f"({where.name} in torchao/{where.filename.split('/torchao/')[-1]}) - no case")
                continue
            y2, d2, _ = shaped(x)
            assert same(y, y2).all() and same(d, d2).all(), (spec, shape, "not deterministic")
            assert y.shape == x.shape and d.shape == x.shape, (spec, shape, y.shape, d.shape)
            yf, df = flat(x.reshape(-1).copy())
            yr, dr = per_rows(flat, x)
            rows = int(np.prod(shape[:-1]))
            comments = [f"shape {shape}: {note}",
                        verdict(f"flattened (1-D, as {gen} evaluates it)", y, d, yf, df),
                        verdict(f"per row along the last axis ({rows} rows of {shape[-1]}, each as 1-D)", y, d, yr, dr)]
            if spec.startswith("torchao.nvfp4(per_tensor_scale='auto')") and len(shape) == 3:
                ye = nvfp4_per_expert(x)
                eq = same(y, ye)
                comments.append("torchao's own 3-D (MoE) dynamic path takes the amax per index of axis 0 instead"
                                " (scale shape (E, 1, 1)): " + ("the same y" if eq.all() else
                                f"y differs from this case in {int((~eq).sum())} of {eq.size} elements"))
            body += [""] + ["# " + c for c in comments]
            body += [f"case {spec}", "mode train", "kind exact", "shape " + " ".join(map(str, shape)),
                     line("x", x), line("y", y), line("dydx", d), "end"]
            n += 1
    header = [
        "# qscope conformance vectors: torchao (group-wise integers, MX, NVFP4, scaled FP8) and bitsandbytes"
        " 4-bit on shaped weights",
        "# generator: tests/conformance/shaped_torch.py (see its docstring for how to re-run)",
        "# compare: bits (every value and gradient to the bit; -0 is not +0, any NaN matches a NaN)",
        f"# python {platform.python_version()}, torch {torch.__version__}, torchao {torchao.__version__}, "
        f"bitsandbytes {bitsandbytes.__version__}, numpy {np.__version__}, ml_dtypes {ml_dtypes.__version__}, "
        f"CPU capability {torch.backends.cpu.get_cpu_capability()}",
        "# format: as torchao.txt plus `shape d0 d1 ...` after `kind`; x, y, dydx in row-major (C) order of that",
        "# shape; each library is called on the tensor of that shape (float32); dydx as its 1-D generator defines it",
        f"# x = N(0,1)*0.5 (default_rng seeded with the shape), row r of x.reshape(-1, last) scaled by (1+r),",
        f"# column {OUTLIER_COLUMN} of the last axis scaled by 10",
        "# each case's comments: whether it equals the 1-D generator on the flattened tensor, and on each row alone",
    ] + [f"# refused: {r}" for r in refused] + [f"# {n} cases"]
    write("shaped_torch.txt", header + body, n)


if __name__ == "__main__":
    main()
