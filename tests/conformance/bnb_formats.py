#!/usr/bin/env python3
"""Generate qscope's reference vectors for bitsandbytes 0.50's 4-bit formats from the real package.

Each case runs bitsandbytes' CPU round trip on one float32 1-D tensor, as a user calls it:

    q, state = bitsandbytes.functional.quantize_4bit(x, blocksize=b, quant_type=t)
    y = bitsandbytes.functional.dequantize_4bit(q, state)

for t in nf4, fp4 (the spec `bnb.<t>(blocksize=b)`), blocksize 64 on tensors whose blocks hit
the edge cases — every table value, each midpoint between neighbours (a tie) and its float32
neighbours in a block of absmax 1 (as a full block, which multiplies by 1/absmax, and as a
tail, which divides), and scaled to absmax 3; a normal sample with a tail; blocks of all zeros
(a full one stores absmax 0, a tail 1e-38); one outlier; absmax exactly a power of two; a NaN
inside a block; +inf and -inf inside a block; values whose x·(1/3) and x/3 fall on either
side of a bound (full block against tail); tiny tail blocks (1, 2 and 3 elements); float32
subnormals (absmax below the 1e-38 clamp) and float32's largest value (1/absmax subnormal) —
and a normal sample at blocksize 32, 128, 2048 and 4096.

bitsandbytes' 4-bit functions have no autograd: dydx is qscope's straight-through 1.

The dequantization runs one of three kernels by length: AVX-512 (an even length that is a
multiple of 16, on a CPU with AVX-512), torch (an odd length) and scalar C++ (the rest). Each
case is checked against bitsandbytes' own table, `get_4bit_type(t)[code] * absmax` in float32
from the returned codes and absmax: they agree bit for bit except that the scalar kernel's FP4
table has -0 for the code 0b1000 (0 < x/absmax <= 0.0026), where the table and the other
kernels have +0. The file records the table's +0 and a comment counts those zeros per case.

Outputs (next to this script): bnb.txt in tests/conformance's line format: `case <spec>`,
`mode train`, `kind exact`, x, y, dydx; a comment line before each case names it and lists the
absmax bitsandbytes stored per block. tests/quantizers/conformance.rs checks qscope bit for bit.

How to run (versions used for the committed file; the torch 2.10 venv gives the same file).
PyPI's bitsandbytes wheel carries its CPU library; installed without dependencies it joins an
existing torch venv without touching its torch:

    python3 -m venv .venv/bnb
    echo .venv/torch2150/lib/python3.11/site-packages \\
        > .venv/bnb/lib/python3.11/site-packages/torch2150.pth   # torch 2.15, numpy, ml_dtypes
    .venv/bnb/bin/pip install --no-deps bitsandbytes==0.50.2
    .venv/bnb/bin/python tests/conformance/bnb_formats.py
"""

import logging
import platform

import numpy as np
import torch

logging.disable(logging.WARNING)  # bitsandbytes logs that an optional CPU gemm package is missing
import bitsandbytes  # noqa: E402
import bitsandbytes.functional as F  # noqa: E402

from formats import line, write  # noqa: E402  (this directory is on sys.path: the script's own)

F32 = np.float32
TYPES = ["nf4", "fp4"]


def table(t):
    return F.get_4bit_type(t, device="cpu").numpy()


def grid(t):
    """Every value of the table, each midpoint (float32, as bitsandbytes computes its bounds)
    and the midpoint's float32 neighbours: at absmax 1 the whole code look-up."""
    vals = np.unique(table(t))
    mids = (vals[:-1] + vals[1:]) / F32(2)
    down, up = np.nextafter(mids, F32(-np.inf)), np.nextafter(mids, F32(np.inf))
    return np.concatenate([vals, mids, down, up]).astype(F32)


def pad(x, n, fill=0.0):
    return np.concatenate([x, np.full(n - len(x), fill, dtype=F32)]).astype(F32)


def tensors(t):
    """(name, blocksize, x) triples for one quant type."""
    rng = np.random.default_rng(4)
    normal = rng.standard_normal(200).astype(F32)
    g = grid(t)
    small = (rng.standard_normal(63) * 0.01).astype(F32)
    nan_block = normal[:192].copy()
    nan_block[70] = np.nan
    inf_block, ninf_block = normal[:130].copy(), normal[:130].copy()
    inf_block[64] = np.inf
    ninf_block[100] = -np.inf
    subn = np.array([1e-40, -3e-41, 1e-45, 0.0, 5e-39, -2e-39], dtype=F32)
    top = np.array([np.finfo(F32).max, 1e38, -3e38, 1.0, 0.0, -1e30], dtype=F32)
    tiny_pos = np.array([1.0, 1e-3, 2.5e-3, 2.6e-3, 2.7e-3, -1e-3, 1e-9, 0.0, -0.0, 3e-3], dtype=F32)
    # x·(1/3) and x/3 on either side of an NF4 bound (x·(1/3) above it, x/3 on it or below).
    recip = np.array([3.0, 1.1679376, 1.9283608, -1.8318986, -1.0190382, -0.41373518, 0.11937045], dtype=F32)
    return [
        ("x/3 and x*(1/3) on either side of a bound, a full block of absmax 3", 64, pad(recip, 64)),
        ("x/3 and x*(1/3) on either side of a bound, a tail of absmax 3", 64, recip),
        ("grid at absmax 1, a full block", 64, pad(g, 64)),
        ("grid at absmax 1, a tail block", 64, g),
        ("grid at absmax 3, a full block", 64, pad(g * F32(3), 64)),
        ("grid at absmax 3, a tail block", 64, g * F32(3)),
        ("normal sample: 3 full blocks and a tail of 8", 64, normal),
        ("all zeros: a full block (absmax 0) and a tail (absmax 1e-38)", 64,
         np.array([0.0, -0.0] * 34, dtype=F32)),
        ("one outlier 1e4 among small values", 64, np.concatenate([small[:40], [F32(1e4)], small[40:]])),
        ("one negative outlier -300, as a tail", 64, np.concatenate([small[:20], [F32(-300)]])),
        ("absmax exactly 4 (a power of two)", 64, pad(np.clip(normal[:63], -3.9, 3.9), 64, -4.0)),
        ("a NaN inside the second block (that block NaN)", 64, nan_block),
        ("+inf inside the second block", 64, inf_block),
        ("-inf inside the second block", 64, ninf_block),
        ("a tail of 1", 64, normal[:65]),
        ("a tail of 2", 64, normal[:66]),
        ("a tensor of 3: one tiny block", 64, normal[:3]),
        ("a tail of 3 zeros", 64, np.concatenate([normal[:64], [F32(0.0), F32(-0.0), F32(0.0)]])),
        ("float32 subnormals, a full block (absmax below the 1e-38 clamp)", 64, pad(subn, 64)),
        ("float32 subnormals, a tail", 64, subn),
        ("float32's largest value, a full block (1/absmax subnormal)", 64, pad(top, 64)),
        ("float32's largest value, a tail", 64, top),
        ("tiny positives near the FP4 zero code, a tail of 10", 64, tiny_pos),
        ("tiny positives near the FP4 zero code, a full block", 64, pad(tiny_pos, 64)),
        ("blocksize 32: 3 full blocks and a tail of 4", 32, normal[:100]),
        ("blocksize 128: 2 full blocks and a tail of 4", 128, normal[:130] * F32(7)),
        ("blocksize 2048: one full block and a tail of 3", 2048,
         rng.standard_normal(2051).astype(F32)),
        ("blocksize 4096: one tail block of 50", 4096, normal[:50]),
    ]


def run(x_np, t, blocksize):
    """(y from the public API, y from bitsandbytes' table, codes, absmax)."""
    x = torch.tensor(x_np, dtype=torch.float32)
    q, state = F.quantize_4bit(x, blocksize=blocksize, quant_type=t)
    y = F.dequantize_4bit(q, state).reshape(-1).numpy()
    packed = q.reshape(-1).numpy()
    codes = np.stack([packed >> 4, packed & 0xF], axis=1).reshape(-1)[: len(x_np)]
    absmax = state.absmax.numpy()
    scale = np.repeat(absmax, blocksize)[: len(x_np)]
    ref = (table(t)[codes] * scale).astype(F32)
    return y, ref, codes, absmax


def same(a, b):
    return np.array_equal(a.view(np.uint32), b.view(np.uint32)) or (np.isnan(a) and np.isnan(b))


def main():
    torch.set_num_threads(1)
    out = [
        "# qscope conformance vectors: bitsandbytes 4-bit (NF4, FP4), block-wise absmax, CPU",
        "# generator: tests/conformance/bnb_formats.py (see its docstring for how to re-run)",
        "# compare: bits (every value and gradient to the bit; -0 is not +0, any NaN matches a NaN)",
        f"# python {platform.python_version()}, torch {torch.__version__}, bitsandbytes {bitsandbytes.__version__}, "
        f"numpy {np.__version__}, CPU capability {torch.backends.cpu.get_cpu_capability()}",
        "# y = dequantize_4bit(*quantize_4bit(x, blocksize=b, quant_type=t)) = get_4bit_type(t)[code] * absmax;"
        " dydx = 1 (qscope's straight-through: bitsandbytes has no gradient)",
    ]
    n = 0
    for t in TYPES:
        for name, blocksize, x in tensors(t):
            x = np.asarray(x, dtype=F32)
            y, ref, codes, absmax = run(x, t, blocksize)
            differ = [i for i in range(len(x)) if not same(y[i], ref[i])]
            signed_zero = [i for i in differ if y[i] == 0 and ref[i] == 0 and codes[i] == 8 and t == "fp4"]
            assert differ == signed_zero, (t, name, [(x[i], y[i], ref[i]) for i in differ])
            note = f"; the scalar C++ kernel gave -0 for code 0b1000 at {len(signed_zero)}" if signed_zero else ""
            spec = f"bnb.{t}(blocksize={blocksize})"
            stored = " ".join(str(F32(a)) for a in absmax)
            out += [f"# {name}: absmax {stored}{note}", f"case {spec}", "mode train", "kind exact",
                    line("x", x), line("y", ref), line("dydx", np.ones_like(x)), "end"]
            n += 1
    write("bnb.txt", out, n)


if __name__ == "__main__":
    main()
