#!/usr/bin/env python3
"""Generate qscope's reference vectors for torchao 0.18's scaled FP8 from the real package.

Each case runs torchao's float8 training conversion on one float32 1-D tensor, tensorwise:

    x8 = hp_tensor_to_float8_dynamic(x, dtype, LinearMMConfig(), round_scales_to_power_of_2=r)
    y = x8.to_original_precision()             # x8._data.to(float32) / x8._scale
    dydx = d(sum y)/dx                         # torch autograd through both conversions

for dtype in float8_e4m3fn, float8_e5m2 and r in False, True (the spec
`torchao.float8(float8_dtype=..., round_scales_to_power_of_2=...)`), on tensors whose amax
hits the edge cases: a plain normal sample; amax exactly a power of two; amax = the format's
max (scale 1) with every rounding tie of the format's grid; all zeros (the 1e-12 clamp);
tiny values (amax below 1e-12, and float32 subnormals); one outlier (the rest fall into the
format's subnormals or to 0); amax just above max/2^k, so the float32 scale lies just below a
power of two (round_scales_to_power_of_2 then rounds it UP, and x·scale saturates); amax =
float32's largest value; a negative amax; a NaN and an inf inside (every output NaN).

Outputs (next to this script): torchao.txt in tests/conformance's line format (see
generate.py's docstring): `case <spec>`, `mode train`, `kind exact`, x, y, dydx; a comment
line before each case records the scale torchao used.  Numbers are float32 in shortest
round-trip form, checked with exact rational arithmetic (formats.py's `line`).
tests/quantizers/conformance.rs checks qscope against them bit for bit (any NaN matches NaN).

How to run (versions used for the committed file; torch 2.10.0 gives the same file):

    python3 -m venv .venv/torch2150 && .venv/torch2150/bin/pip install \\
        torch==2.15.0 torchao==0.18.0 ml_dtypes==0.6.0 numpy
    .venv/torch2150/bin/python tests/conformance/torchao_formats.py
"""

import platform
import warnings

import numpy as np
import torch

warnings.filterwarnings("ignore")
import torchao  # noqa: E402
from torchao.float8.float8_scaling_utils import hp_tensor_to_float8_dynamic  # noqa: E402
from torchao.float8.float8_training_tensor import LinearMMConfig  # noqa: E402

from formats import line, write  # noqa: E402  (this directory is on sys.path: the script's own)

F32 = np.float32
DTYPES = ["float8_e4m3fn", "float8_e5m2"]


def up(v):
    return np.nextafter(F32(v), F32(np.inf))


def grid_ties(dtype):
    """Every finite value of the dtype, each midpoint between neighbours (a tie) and its
    float32 neighbours, positive and negative: at scale 1 the cast's whole grid."""
    t = torch.arange(256, dtype=torch.uint8).view(getattr(torch, dtype)).float().numpy()
    vals = np.unique(np.abs(t[np.isfinite(t)]))
    mids = (vals[:-1].astype(np.float64) + vals[1:]) / 2
    mids = np.asarray(mids, dtype=F32)
    pos = np.concatenate([vals, mids, np.nextafter(mids, F32(0)), np.nextafter(mids, F32(np.inf))])
    return np.concatenate([-pos, pos]).astype(F32)


def tensors(dtype):
    """(name, x) pairs for one dtype."""
    fmax = float(torch.finfo(getattr(torch, dtype)).max)
    rng = np.random.default_rng(12)
    normal = rng.standard_normal(64).astype(F32)
    po2 = normal[np.abs(normal) < 4.0]
    small = np.array([0.01, -0.02, 0.001, 3e-4, -1e-5, 0.5, 2.0**-20, 0.0, -0.0], dtype=F32)
    below = [F32(fmax / 2.0**k) for k in range(0, 12, 3)]  # scale 2^k exactly
    just = [up(b) for b in below]  # scale just below 2^k
    return [
        ("normal sample", normal),
        ("amax exactly 4 (a power of two)", np.concatenate([po2, [F32(-4.0)]])),
        ("amax exactly 2^-10", normal / F32(np.abs(normal).max()) * F32(2.0**-10)),
        ("amax = the format's max: scale 1, every value and tie of its grid", grid_ties(dtype)),
        ("all zeros (amax clamped to 1e-12)", np.array([0.0, -0.0, 0.0, -0.0], dtype=F32)),
        ("tiny: amax 5e-13, below the clamp", np.array([5e-13, -1e-13, 2e-13, 0.0, 1e-20], dtype=F32)),
        ("float32 subnormals only", np.array([1e-45, -3e-45, 1e-40, -2e-39, 0.0], dtype=F32)),
        ("one outlier 1e4: the rest in the format's subnormals or 0", np.concatenate([small, [F32(1e4)]])),
        ("one negative outlier -300", np.concatenate([small * F32(100), [F32(-300.0)]])),
    ] + [
        (f"amax just above max/2^{3 * i}: scale just below a power of two", np.concatenate([normal * F32(0.01), [j]]))
        for i, j in enumerate(just)
    ] + [
        ("amax = float32's largest value", np.array([np.finfo(F32).max, 1e30, -1e35, 1.0, 0.0], dtype=F32)),
        ("a NaN inside (every output NaN)", np.array([1.0, np.nan, -2.0, 0.5], dtype=F32)),
        ("an inf inside (scale 0: every output NaN)", np.array([1.0, -np.inf, -2.0, 0.5], dtype=F32)),
    ]


def run(x_np, dtype, pow2):
    x = torch.tensor(x_np, dtype=torch.float32, requires_grad=True)
    x8 = hp_tensor_to_float8_dynamic(x, getattr(torch, dtype), LinearMMConfig(), round_scales_to_power_of_2=pow2)
    y = x8.to_original_precision()
    y.sum().backward()
    return y.detach().numpy(), x.grad.numpy(), x8._scale.item()


def main():
    torch.set_num_threads(1)
    out = [
        "# qscope conformance vectors: torchao scaled FP8 (float8 training, tensorwise)",
        "# generator: tests/conformance/torchao_formats.py (see its docstring for how to re-run)",
        "# compare: bits (every value and gradient to the bit; -0 is not +0, any NaN matches a NaN)",
        f"# python {platform.python_version()}, torch {torch.__version__}, torchao {torchao.__version__}, "
        f"numpy {np.__version__}",
        "# y = hp_tensor_to_float8_dynamic(x, dtype, LinearMMConfig(), round_scales_to_power_of_2=r)"
        ".to_original_precision(); dydx = d(sum y)/dx from torch autograd",
    ]
    n = 0
    for dtype in DTYPES:
        for pow2 in [False, True]:
            spec = f"torchao.float8(float8_dtype='{dtype}', round_scales_to_power_of_2={pow2})"
            for name, x in tensors(dtype):
                x = np.asarray(x, dtype=F32)
                y, g, scale = run(x, dtype, pow2)
                y2, _, _ = run(x, dtype, pow2)
                assert np.array_equal(y.view(np.uint32), y2.view(np.uint32)), (spec, name)
                out += [f"# {name}: scale {str(F32(scale))}", f"case {spec}", "mode train", "kind exact",
                        line("x", x), line("y", y), line("dydx", g), "end"]
                n += 1
    write("torchao.txt", out, n)


if __name__ == "__main__":
    main()
