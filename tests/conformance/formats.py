#!/usr/bin/env python3
"""Generate qscope's reference vectors for ml_dtypes' element casts from the real package.

For each of the ten dtypes, the cast `np.float32 -> dtype -> np.float32` (numpy's
`astype`, which ml_dtypes registers) is evaluated on a grid that holds:

- every representable finite value (each code of the dtype, viewed and converted) and its
  float32 neighbours;
- each midpoint between consecutive values (the rounding ties) and its float32 neighbours;
- the midpoint past the largest value (where overflow starts) and its neighbours, twice the
  largest value, 1e30 and float32's largest value;
- half the smallest positive value and its neighbours, float32's smallest normal and
  subnormal, and a few float32 subnormals around 2^-127 (E8M0's smallest value);
- +-0, +-inf, and NaN of both signs (`-nan` is written for a NaN with its sign bit set);
- the negatives of all of the above.

Outputs (next to this script): ml_dtypes.txt, in tests/conformance's line format (see
generate.py's docstring): one `case ml_dtypes.<dtype>` per dtype, `mode train`, `kind exact`,
x, y, and dydx = 1 everywhere (qscope's straight-through gradient: ml_dtypes defines none).
Numbers are float32 in shortest round-trip form, checked with exact rational arithmetic;
tests/quantizers/conformance.rs checks qscope's casts against them bit for bit (any NaN matches NaN).

How to run (versions used for the committed file):

    python3 -m venv .venv/mld && .venv/mld/bin/pip install ml_dtypes==0.6.0 numpy
    .venv/mld/bin/python tests/conformance/formats.py
"""

import fractions
import os
import platform
import sys
import warnings

import ml_dtypes
import numpy as np

warnings.filterwarnings("ignore")

F32 = np.float32
DTYPES = [
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3",
    "float8_e3m4", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn",
]


def fmt(v):
    v = F32(v)
    if np.isnan(v):
        return "-nan" if np.signbit(v) else "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return str(v)


def check_roundtrip(v, tok):
    """Exact check that tok parses (round-to-nearest-even) to float32 v."""
    v = F32(v)
    if not np.isfinite(v):
        return
    r = fractions.Fraction(tok)
    if v == 0:
        assert r == 0 and tok.startswith("-") == bool(np.signbit(v)), (tok, v)
        return
    def frac(w):  # past float32's largest value, 2^128 stands where inf would
        return fractions.Fraction(float(w)) if np.isfinite(w) else fractions.Fraction(2**128) * int(np.sign(w))

    fv = frac(v)
    up = frac(np.nextafter(v, F32(np.inf)))
    dn = frac(np.nextafter(v, F32(-np.inf)))
    lo_mid, hi_mid = (dn + fv) / 2, (fv + up) / 2
    even = (int(v.view(np.uint32)) & 1) == 0
    assert (lo_mid < r < hi_mid) or (even and r in (lo_mid, hi_mid)), (tok, v)


def line(tag, arr):
    toks = []
    for v in np.asarray(arr, dtype=F32).reshape(-1):
        t = fmt(v)
        check_roundtrip(v, t)
        toks.append(t)
    return tag + " " + " ".join(toks)


def write(name, lines, cases):
    """Writes the lines to `name` beside this script and says so."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {path}: {cases} cases", file=sys.stderr)


def representable(t):
    """Every finite value of dtype t, ascending, each once (from its codes)."""
    bits = ml_dtypes.finfo(t).bits
    codes = np.arange(1 << bits, dtype=np.uint8)
    vals = codes.view(t).astype(F32)
    return np.unique(vals[np.isfinite(vals)])


def with_neighbours(vals):
    out = []
    for v in vals:
        v = F32(v)
        out += [np.nextafter(v, F32(-np.inf)), v, np.nextafter(v, F32(np.inf))]
    return out


def grid(t):
    vals = representable(t)
    top, smallest = vals[-1], vals[vals > 0][0]
    mids = [F32((float(a) + float(b)) / 2) for a, b in zip(vals[:-1], vals[1:])]
    ulp_top = float(top) - float(vals[-2])
    beyond = F32(float(top) + ulp_top / 2)
    tiny = [F32(2.0**-127), F32(1.25 * 2.0**-127), F32(2.0**-128), F32(1.5 * 2.0**-127),
            np.finfo(F32).tiny, np.finfo(F32).smallest_subnormal]
    pos = (with_neighbours(vals) + with_neighbours(mids) + with_neighbours([beyond, F32(float(smallest) / 2)])
           + [F32(2 * float(top)), F32(1e30), np.finfo(F32).max] + with_neighbours(tiny))
    pos = np.unique(np.abs(np.array(pos, dtype=F32)))
    specials = np.array([0.0, -0.0, np.inf, -np.inf], dtype=F32)
    nans = np.array([0x7FC00000, 0xFFC00000], dtype=np.uint32).view(F32)
    return np.concatenate([-pos[::-1], pos, specials, nans])


def main():
    out = [
        "# qscope conformance vectors: ml_dtypes element casts",
        "# generator: tests/conformance/formats.py (see its docstring for how to re-run)",
        "# compare: bits (every value and gradient to the bit; -0 is not +0, any NaN matches a NaN)",
        f"# python {platform.python_version()}, numpy {np.__version__}, ml_dtypes {ml_dtypes.__version__}",
        "# y = x.astype(dtype).astype(np.float32); dydx = 1 (qscope's straight-through gradient)",
    ]
    for name in DTYPES:
        t = getattr(ml_dtypes, name)
        x = grid(t)
        y = x.astype(t).astype(F32)
        y2 = x.astype(t).astype(F32)
        assert np.array_equal(y.view(np.uint32), y2.view(np.uint32)), name
        out += [
            f"# {name}: {len(representable(t))} finite values, largest {ml_dtypes.finfo(t).max}",
            f"case ml_dtypes.{name}",
            "mode train",
            "kind exact",
            line("x", x),
            line("y", y),
            line("dydx", np.ones_like(x)),
            "end",
        ]
    write("ml_dtypes.txt", out, len(DTYPES))


if __name__ == "__main__":
    main()
