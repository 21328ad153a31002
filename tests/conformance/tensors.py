#!/usr/bin/env python3
"""Generate qscope's tensor-file reference fixtures with the real numpy and safetensors.

Writes small files under tests/fixtures/tensors/ so that qscope's pure-Rust
safetensors / .npy / .npz readers can be tested by round trip against files
made by the reference implementations:

    dtypes.safetensors      one tensor per safetensors dtype (F64 F32 F16 BF16
                            F8_E4M3 F8_E5M2 I64 I32 I16 I8 U8 U16 U32 U64 BOOL,
                            named f64, f32, ..., plus f32_4d of shape 2x3x2x2),
                            __metadata__ {"format": "pt", "source": "qscope tensors.py"}
    empty_meta.safetensors  one tensor, no __metadata__
    shapes.safetensors      zero-element and 0-d tensors: shape [0], [] and [2,0,3]
    v<1|2|3>_*.npy          numpy.save (version 1.0) / numpy.lib.format.write_array
                            with version=(2,0) and (3,0); little/big-endian and
                            byte-order-free dtypes, C and Fortran order, 0-d and
                            zero-element arrays
    stored.npz              numpy.savez            (ZIP_STORED members)
    deflated.npz            numpy.savez_compressed (ZIP_DEFLATED members)
    expected.txt            the expected float32 values of every tensor (below)

.npy names: v<version>_<byte order>_<kind><size>_<order>_<shape>.npy, byte order
lt ('<'), gt ('>') or na ('|', single-byte dtypes); shape 3x4, 2x3x4, 5, 0d
(0-d array), 0 / 2x0 (zero elements).

Every value is an edge case of its dtype (+-0, smallest subnormal, largest finite,
NaN and +-inf where the dtype has them, float64 values exactly halfway between
float32 neighbours and ones just off, integers above 2^24 that must round, ties
such as 2^24+1 and 2^25+2, values near the integer limits) followed by seeded
random values (numpy.random.default_rng, seed from SEED and the tensor's name),
so a rerun writes identical bytes.  np.savez's members get zipfile's default
stamp 1980-01-01 00:00:00 (ZipFile.open(name, "w") on Python 3.11); in case a
Python stamps the current time, time.localtime is pinned to 2000-01-01 while
the .npz files are written.

safetensors path: every dtype, including BF16 / F8_E4M3 / F8_E5M2 (ml_dtypes
arrays), is written by the package itself, safetensors.numpy.save_file; no
hand-written fallback is used.  The package writes __metadata__'s keys in a
random order (a Rust HashMap, different on every call); the script calls
save_file again until they come out in the dict's order, "format" then "source".  Reading back: safetensors 0.8.0's numpy loader
(safe_open(framework="np").get_tensor, hence load_file) raises AttributeError
for F8_E4M3 / F8_E5M2 (it looks the dtype up on the numpy module); those two are
reloaded through the package's own parser, safetensors.deserialize, whose raw
bytes are viewed as the ml_dtypes type.  Every tensor is checked both ways where
possible.

expected.txt line format:

    # comment lines
    tensor <file> <name>   name: safetensors key; "-" for a .npy file; the member
                           name without ".npy" for a .npz (as np.load gives it)
    dtype <dtype>          as stored in the file: F32, BF16, ... for safetensors;
                           '<f4', '>i8', '|b1', ... (numpy descr) for .npy / .npz
    shape <d0> <d1> ...    nothing after "shape" for a 0-d tensor
    order C|F              numpy files only (fortran_order of the header)
    f32 <hex> <hex> ...    float32 bit pattern (8 lowercase hex digits) of every
                           element in C (row-major) order after conversion to
                           float32; nothing after "f32" for zero elements
    end

The float32 values are numpy's `np.ascontiguousarray(a.astype(np.float32))
.view(np.uint32)` on the array as loaded back by the package (safetensors /
np.load).  That is exactly torch.Tensor.float() for these casts: wider floats
(F64) round to nearest, ties to even, overflowing to +-inf and underflowing to
+-0 with the sign kept; narrower floats (F16, BF16, F8) widen exactly; integers
round to nearest, ties to even; bool gives 0.0 / 1.0.  The script proves this
for every element against an independent exact computation (rational
arithmetic, hand-decoded float bit fields).  NaN: sign kept and quiet; the
payload is numpy's / ml_dtypes' (float8 NaN becomes the canonical 0x7fc00000 /
0xffc00000, where torch keeps mantissa bits, e.g. 0x7ff00000 for F8_E4M3 0x7f),
so compare NaN by class and sign, not by payload.

Self-check: every file is reloaded with the real package and compared bitwise
(NaN-aware, via raw bytes) with what was written, dtype string, shape and order
included; expected.txt is parsed back and compared with a fresh conversion.

How to run (versions used for the committed files):

    python3 -m venv .venv/tensors && .venv/tensors/bin/pip install numpy==2.4.6 \\
                safetensors==0.8.0 ml_dtypes==0.6.0
    .venv/tensors/bin/python tests/conformance/tensors.py [--outdir DIR]

Takes about a second; prints the versions, the files with their sizes and the
dtypes the package refused.
"""

import argparse
import fractions
import json
import math
import os
import struct
import sys
import time
import zipfile
import zlib
from unittest import mock

import ml_dtypes
import numpy as np
import safetensors
import safetensors.numpy as stnp

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.normpath(os.path.join(HERE, "..", "fixtures", "tensors"))
SEED = 20240611
N_RANDOM = 40
F = fractions.Fraction

BF16 = np.dtype(ml_dtypes.bfloat16)
E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)
E5M2 = np.dtype(ml_dtypes.float8_e5m2)

# safetensors dtype string -> numpy dtype (for viewing safetensors.deserialize bytes)
ST_DTYPES = {
    "F64": np.dtype("<f8"), "F32": np.dtype("<f4"), "F16": np.dtype("<f2"),
    "BF16": BF16, "F8_E4M3": E4M3, "F8_E5M2": E5M2,
    "I64": np.dtype("<i8"), "I32": np.dtype("<i4"), "I16": np.dtype("<i2"),
    "I8": np.dtype("i1"), "U64": np.dtype("<u8"), "U32": np.dtype("<u4"),
    "U16": np.dtype("<u2"), "U8": np.dtype("u1"), "BOOL": np.dtype("?"),
}

# --------------------------------------------------------------------------
# independent exact reference for the float32 conversion
# --------------------------------------------------------------------------


def f32_round_bits(q, negative):
    """Bits of the float32 nearest (ties to even) to the exact rational q."""
    sign = 0x80000000 if negative else 0
    a = abs(q)
    if a == 0:
        return sign
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while F(2) ** e > a:
        e -= 1
    while F(2) ** (e + 1) <= a:
        e += 1
    e = max(e, -126)
    quantum = F(2) ** (e - 23)
    m = a / quantum
    n = m.numerator // m.denominator
    r = m - n
    if r > F(1, 2) or (r == F(1, 2) and n % 2 == 1):
        n += 1
    value = n * quantum
    if value >= F(2) ** 128:
        return sign | 0x7F800000
    if n == 0:
        return sign
    return sign | struct.unpack("<I", struct.pack("<f", float(value)))[0]


SMALL_FLOATS = {  # dtype -> (exponent bits, mantissa bits, kind)
    np.dtype("f2"): (5, 10, "ieee"),
    BF16: (8, 7, "ieee"),
    E5M2: (5, 2, "ieee"),
    E4M3: (4, 3, "fn"),  # no inf; NaN only for S.1111.111
}


def decode_small(bits, ebits, mbits, kind):
    """('nan'|'inf'|'num', negative, exact value) from a float's bit fields."""
    neg = bool((bits >> (ebits + mbits)) & 1)
    e = (bits >> mbits) & ((1 << ebits) - 1)
    m = bits & ((1 << mbits) - 1)
    bias = (1 << (ebits - 1)) - 1
    top = (1 << ebits) - 1
    if kind == "ieee" and e == top:
        return ("inf" if m == 0 else "nan", neg, None)
    if kind == "fn" and e == top and m == (1 << mbits) - 1:
        return ("nan", neg, None)
    if e == 0:
        return ("num", neg, F(m, 1 << mbits) * F(2) ** (1 - bias))
    return ("num", neg, (1 + F(m, 1 << mbits)) * F(2) ** (e - bias))


def reference(a):
    """Per element (kind, negative, exact) for array a in C order."""
    a = np.ascontiguousarray(a)
    nat = a.astype(a.dtype.newbyteorder("=")) if a.dtype.byteorder not in "=|" else a
    flat = nat.reshape(-1)
    out = []
    if nat.dtype in SMALL_FLOATS:
        eb, mb, kind = SMALL_FLOATS[nat.dtype]
        ut = np.uint16 if nat.dtype.itemsize == 2 else np.uint8
        for b in flat.view(ut):
            out.append(decode_small(int(b), eb, mb, kind))
    elif nat.dtype.kind == "f":  # f4, f8: Python float holds them exactly
        for v in flat:
            x = float(v)
            neg = math.copysign(1.0, x) < 0
            if math.isnan(x):
                out.append(("nan", neg, None))
            elif math.isinf(x):
                out.append(("inf", neg, None))
            else:
                out.append(("num", neg, F(x)))
    elif nat.dtype.kind in "iu":
        for v in flat:
            out.append(("num", int(v) < 0, F(int(v))))
    elif nat.dtype.kind == "b":
        for v in flat:
            out.append(("num", False, F(1 if v else 0)))
    else:
        raise TypeError(nat.dtype)
    return out


def to_f32_bits(a):
    """The conversion under test: numpy astype(float32), C order, as uint32."""
    with np.errstate(all="ignore"):
        f = np.ascontiguousarray(np.asarray(a).astype(np.float32))
    return [int(x) for x in f.view(np.uint32).reshape(-1)]


NAN_PAYLOADS = {}


def check_conversion(a, what):
    got = to_f32_bits(a)
    ref = reference(a)
    assert len(got) == len(ref) == a.size, what
    for i, (g, (kind, neg, q)) in enumerate(zip(got, ref)):
        if kind == "nan":
            ok = (g & 0x7F800000) == 0x7F800000 and (g & 0x7FFFFF) != 0
            ok = ok and bool(g >> 31) == neg and (g & 0x400000) != 0
            NAN_PAYLOADS.setdefault(str(a.dtype), set()).add(f"{g:08x}")
        elif kind == "inf":
            ok = g == (0xFF800000 if neg else 0x7F800000)
        else:
            ok = g == f32_round_bits(q, neg)
        assert ok, f"{what}[{i}]: numpy gives {g:08x}, exact reference {kind} {neg} {q}"
    return got


# --------------------------------------------------------------------------
# values
# --------------------------------------------------------------------------


def rng_for(name):
    return np.random.default_rng([SEED, zlib.crc32(name.encode())])


def f32_tie_values(rng, n):
    """float64 values around float32 rounding boundaries: exact ties and just off."""
    out = []
    x = (rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n)).astype(np.float32)
    for i, v in enumerate(x):
        up = np.nextafter(v, np.float32(np.inf) if v > 0 else np.float32(-np.inf))
        mid = (float(v) + float(up)) / 2  # exact in float64
        out.append([mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf)][i % 3])
    return out


def random_floats(rng, n, dtype, lo, hi):
    x = rng.standard_normal(n) * 2.0 ** rng.integers(lo, hi, n)
    with np.errstate(all="ignore"):
        return list(x.astype(dtype))


def random_ints(rng, n, dtype):
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    shifts = rng.integers(0, info.bits, n)
    return [int(v) >> int(s) for v, s in zip(x, shifts)]


def random_f8(rng, n, dtype, nan_codes):
    codes = [c for c in range(256) if c not in nan_codes]
    b = np.array(rng.choice(codes, n), dtype=np.uint8)
    return list(b.view(dtype))


FMAX32 = float(np.finfo(np.float32).max)
HALF_ULP_MAX32 = 2.0 ** 103  # half the float32 ulp at the top binade


def edges(kind):
    """Edge-case values for one element type (Python numbers or bit patterns)."""
    inf, nan = float("inf"), float("nan")
    if kind == "f8":
        return [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308,
                1.7976931348623157e308, -1.7976931348623157e308, nan, -nan, inf, -inf,
                1.0, 0.1, -1.0 / 3,
                FMAX32, FMAX32 + HALF_ULP_MAX32,                      # tie -> inf
                np.nextafter(FMAX32 + HALF_ULP_MAX32, 0.0),           # -> FMAX32
                -(FMAX32 + HALF_ULP_MAX32),
                2.0 ** -149, 2.0 ** -150,                             # tie -> +0
                np.nextafter(2.0 ** -150, 1.0),                       # -> 2^-149
                -(2.0 ** -150), 3 * 2.0 ** -150,                      # -> -0, 2^-148
                2.0 ** -126, 2.0 ** -126 - 2.0 ** -150,               # tie -> 2^-126
                1 + 2.0 ** -24, 1 + 3 * 2.0 ** -24,                   # ties -> 1, 1+2^-22
                1 + 2.0 ** -24 + 2.0 ** -52, 1 + 2.0 ** -24 - 2.0 ** -53,
                16777217.0, 2.0 ** 60 + 2.0 ** 36]                    # tie, tie
    if kind == "f4":
        f = np.finfo(np.float32)
        return [0.0, -0.0, 2.0 ** -149, -(2.0 ** -149), float(f.tiny),
                float(f.tiny) - 2.0 ** -149, float(f.max), -float(f.max),
                nan, -nan, inf, -inf, 1.0, -1.0, float(np.float32(0.1)),
                float(np.float32(16777216.0)), float(np.float32(1e-40))]
    if kind == "f2":
        return [0.0, -0.0, 2.0 ** -24, -(2.0 ** -24), 2.0 ** -14 - 2.0 ** -24,
                2.0 ** -14, 65504.0, -65504.0, nan, -nan, inf, -inf, 1.0,
                -1.0, 0.0999755859375, 2048.0]
    if kind == "bf16":  # bit patterns
        return [0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x7F7F, 0xFF7F,
                0x7FC0, 0xFFC0, 0x7F80, 0xFF80, 0x3F80, 0xBF80, 0x3DCD, 0x4B80]
    if kind == "e4m3":
        return [0x00, 0x80, 0x01, 0x81, 0x07, 0x08, 0x7E, 0xFE, 0x7F, 0xFF,
                0x38, 0xB8, 0x40]
    if kind == "e5m2":
        return [0x00, 0x80, 0x01, 0x81, 0x03, 0x04, 0x7B, 0xFB, 0x7C, 0xFC,
                0x7E, 0xFE, 0x3C, 0xBC]
    t = 2 ** 24
    if kind == "i8":
        m = 2 ** 63
        return [0, 1, -1, t, t + 1, t + 3, -(t + 1), -(t + 3), 2 ** 25 + 2,
                2 ** 25 + 6, 2 ** 25 + 1, 2 ** 31 - 1, -(2 ** 31), 2 ** 53 + 1,
                m - 1, -m, -m + 1, m - 2 ** 38, m - 2 ** 38 - 1, -(m - 2 ** 38),
                2 ** 40 + 2 ** 16, 2 ** 40 + 2 ** 16 + 1]
    if kind == "i4":
        return [0, 1, -1, t, t + 1, t + 3, -(t + 1), 2 ** 25 + 2, 2 ** 25 + 6,
                2 ** 31 - 1, -(2 ** 31), 2 ** 31 - 64, 2 ** 31 - 65, -(2 ** 31 - 64),
                2 ** 30 + 64, 2 ** 30 + 192]
    if kind == "i2":
        return [0, 1, -1, 32767, -32768, -32767, 2049, -2049]
    if kind == "i1":
        return [0, 1, -1, 127, -128, -127]
    if kind == "u1":
        return [0, 1, 127, 128, 255]
    if kind == "u2":
        return [0, 1, 32768, 65535]
    if kind == "u4":
        return [0, 1, t + 1, t + 3, 2 ** 31 + 128, 2 ** 31 + 384, 2 ** 32 - 1,
                2 ** 32 - 128, 2 ** 32 - 129]
    if kind == "u8":
        return [0, 1, t + 1, 2 ** 63, 2 ** 63 + 2 ** 39, 2 ** 63 + 2 ** 39 + 1,
                2 ** 63 + 3 * 2 ** 39, 2 ** 64 - 1, 2 ** 64 - 2 ** 39,
                2 ** 64 - 2 ** 39 - 1]
    if kind == "b1":
        return [False, True, True, False, False, True]
    raise KeyError(kind)


KIND_DTYPE = {
    "f8": np.dtype("<f8"), "f4": np.dtype("<f4"), "f2": np.dtype("<f2"),
    "bf16": BF16, "e4m3": E4M3, "e5m2": E5M2,
    "i8": np.dtype("<i8"), "i4": np.dtype("<i4"), "i2": np.dtype("<i2"),
    "i1": np.dtype("i1"), "u1": np.dtype("u1"), "u2": np.dtype("<u2"),
    "u4": np.dtype("<u4"), "u8": np.dtype("<u8"), "b1": np.dtype("?"),
}


def pool(kind, name, n_random):
    """Edge cases followed by n_random seeded random values, as a 1-D array."""
    rng = rng_for(name)
    dt = KIND_DTYPE[kind]
    e = edges(kind)
    if kind == "f8":
        r = f32_tie_values(rng, n_random // 2)
        r += random_floats(rng, n_random - len(r), np.float64, -160, 160)
        vals = np.array(e + r, dtype=np.float64)
    elif kind == "f4":
        r = random_floats(rng, n_random, np.float32, -140, 120)
        vals = np.array(e + r, dtype=np.float32)
    elif kind == "f2":
        r = random_floats(rng, n_random, np.float16, -26, 14)
        vals = np.array(e + r, dtype=np.float16)
    elif kind == "bf16":
        r = random_floats(rng, n_random, BF16, -135, 120)
        vals = np.concatenate([np.array(e, np.uint16).view(BF16), np.array(r, BF16)])
    elif kind in ("e4m3", "e5m2"):
        nan_codes = {0x7F, 0xFF} if kind == "e4m3" else {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF}
        r = random_f8(rng, n_random, dt, nan_codes)
        vals = np.concatenate([np.array(e, np.uint8).view(dt), np.array(r, dt)])
    elif kind == "b1":
        vals = np.array(e + list(rng.integers(0, 2, n_random).astype(bool)), dtype=bool)
    else:
        vals = np.array(e + random_ints(rng, n_random, dt), dtype=dt)
    assert vals.dtype == dt, (kind, vals.dtype)
    return vals


def take(kind, name, shape):
    n = int(np.prod(shape, dtype=np.int64))
    p = pool(kind, name, max(0, n - len(edges(kind))) + 8)
    if n <= len(edges(kind)):  # spread the edges over a small array
        idx = np.linspace(0, len(edges(kind)) - 1, n).round().astype(int) if n else []
        if n == 1:
            idx = [len(edges(kind)) // 2]
        return p[np.asarray(idx, dtype=int)].reshape(shape)
    return p[:n].reshape(shape)


# --------------------------------------------------------------------------
# safetensors
# --------------------------------------------------------------------------

ST_TENSORS = [  # name, kind, layout (1 = 1-D, 2 = 2-D with 5 columns)
    ("f64", "f8", 1), ("f32", "f4", 2), ("f16", "f2", 2), ("bf16", "bf16", 1),
    ("f8_e4m3", "e4m3", 2), ("f8_e5m2", "e5m2", 1), ("i64", "i8", 1),
    ("i32", "i4", 2), ("i16", "i2", 1), ("i8", "i1", 2), ("u8", "u1", 1),
    ("u16", "u2", 1), ("u32", "u4", 2), ("u64", "u8", 1), ("bool", "b1", 2),
]


def st_arrays():
    out = {}
    for name, kind, layout in ST_TENSORS:
        ne = len(edges(kind))
        nr = N_RANDOM + (-(ne + N_RANDOM)) % 5 if layout == 2 else N_RANDOM
        a = pool(kind, name, nr)
        out[name] = a.reshape(-1, 5) if layout == 2 else a
    out["f32_4d"] = take("f4", "f32_4d", (2, 3, 2, 2))
    return out


def st_header(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        raw = f.read(n)
    return n, raw, list(json.loads(raw).items())  # dicts keep file order


REFUSED = []


def st_reload(path, written, metadata):
    """Reload with the package; check bitwise equality; return {name: (dtype, array)}."""
    with open(path, "rb") as f:
        data = f.read()
    raw = {k: v for k, v in safetensors.deserialize(data)}
    out = {}
    with safetensors.safe_open(path, framework="np") as f:
        assert (f.metadata() or None) == metadata, (path, f.metadata())
        assert sorted(f.keys()) == sorted(written), (path, f.keys())
        for k in written:
            st_dtype = f.get_slice(k).get_dtype()
            assert raw[k]["dtype"] == st_dtype, (k, raw[k]["dtype"], st_dtype)
            w = written[k]
            a_raw = np.frombuffer(bytes(raw[k]["data"]), dtype=ST_DTYPES[st_dtype])
            a_raw = a_raw.reshape(raw[k]["shape"])
            try:
                a = f.get_tensor(k)
                assert a.dtype == a_raw.dtype and a.tobytes() == a_raw.tobytes(), k
            except AttributeError as e:  # numpy loader lacks the dtype
                REFUSED.append(f"{os.path.basename(path)}:{k} ({st_dtype}) "
                               f"safe_open(np).get_tensor: {e}; checked via deserialize")
                a = a_raw
            assert a.dtype == w.dtype, (k, a.dtype, w.dtype)
            assert a.shape == w.shape and a.tobytes() == w.tobytes(), k
            out[k] = (st_dtype, a)
    if not any(ST_DTYPES[d] in (E4M3, E5M2) for d, _ in out.values()):
        loaded = stnp.load_file(path)  # the plain one-call API must agree too
        for k, (_, a) in out.items():
            assert loaded[k].dtype == a.dtype and loaded[k].tobytes() == a.tobytes(), k
    return out


def weights():
    rng = np.random.default_rng(29)
    w = (rng.standard_normal((64, 48)) * 0.05).astype(np.float32)
    w[:, 5] *= 12.0
    return {
        "layer.weight": w.astype(ml_dtypes.bfloat16),
        "layer.bias": (rng.standard_normal(48) * 0.01).astype(np.float32),
    }


def write_safetensors(outdir, blocks, notes):
    specs = [
        ("dtypes.safetensors", st_arrays(),
         {"format": "pt", "source": "qscope tensors.py"}),
        ("empty_meta.safetensors", {"weight": take("f4", "empty_meta", (2, 3))}, None),
        # A layer as a checkpoint holds it, for the page's end-to-end test: weight-like values,
        # one outlier input channel, no NaN.
        ("weights.safetensors", weights(), {"format": "pt"}),
        ("shapes.safetensors", {
            "empty": np.zeros((0,), np.float32),
            "scalar": np.array(-2.5, np.float32),
            "empty_2d": np.zeros((2, 0, 3), np.int32),
        }, None),
    ]
    for fname, tensors, meta in specs:
        path = os.path.join(outdir, fname)
        for attempt in range(1000):
            stnp.save_file(tensors, path, metadata=meta)
            # __metadata__ key order comes from a Rust HashMap (random per call):
            # rewrite until it is the dict's order, so reruns give identical bytes
            if meta is None or list(dict(st_header(path)[2])["__metadata__"]) == list(meta):
                break
        else:
            raise RuntimeError(f"{fname}: __metadata__ never came out in dict order")
        if attempt:
            notes.append(f"{fname}: __metadata__ key order random per save_file call; "
                         f"kept attempt {attempt + 1}")
        loaded = st_reload(path, tensors, meta)
        for k in tensors:
            st_dtype, a = loaded[k]
            blocks.append(block(fname, k, st_dtype, a.shape, None, a))
        n, raw, hdr = st_header(path)
        keys = [k for k, _ in hdr]
        offs = {k: v["data_offsets"] for k, v in hdr if k != "__metadata__"}
        data_order = sorted(offs, key=lambda k: tuple(offs[k]))
        notes.append(f"{fname}: header {n} B (pad {len(raw) - len(raw.rstrip(b' '))} "
                     f"spaces, 8+{n} = {8 + n} = 0 mod 8: {(8 + n) % 8 == 0}); "
                     f"JSON key order {keys}; data order {data_order}")


# --------------------------------------------------------------------------
# numpy
# --------------------------------------------------------------------------

NPY_DTYPES = ["<f2", "<f4", "<f8", ">f2", ">f4", ">f8", "|i1", "|u1", "<i2", ">i2",
              "<i4", ">i4", "<i8", ">i8", "<u2", "<u4", "<u8", "|b1"]
NPY_EXTRA = [  # version, dtype, order, shape
    (1, "<f4", "F", (3, 4)), (1, ">f8", "F", (3, 4)), (1, "<i8", "F", (3, 4)),
    (1, "<f4", "F", (2, 3, 4)), (1, ">i2", "F", (2, 3, 4)), (1, "|b1", "F", (2, 3, 4)),
    (1, "<f8", "C", ()), (1, ">i4", "C", ()), (1, "<f4", "C", (0,)),
    (1, "<i2", "C", (2, 0)),
    (2, "<f4", "C", (5,)), (2, ">f8", "F", (3, 4)), (2, "<i8", "C", (3, 4)),
    (2, "|b1", "C", (5,)),
    (3, "<f4", "C", (5,)), (3, ">f2", "F", (2, 3, 4)), (3, "<u8", "C", (3, 4)),
    (3, "<f8", "C", ()),
]


def npy_kind(descr):
    return descr[1:]  # "<f4" -> "f4", "|b1" -> "b1": the keys of KIND_DTYPE


def npy_array(descr, order, shape):
    base = take(npy_kind(descr), f"npy {descr} {order} {shape}", shape)
    a = base.astype(np.dtype(descr))
    if order == "F":
        a = np.asfortranarray(a)
        assert a.flags.f_contiguous and not a.flags.c_contiguous
    return a


def npy_name(version, descr, order, shape):
    bo = {"<": "lt", ">": "gt", "|": "na"}[descr[0]]
    sh = "x".join(map(str, shape)) if shape else "0d"
    return f"v{version}_{bo}_{descr[1:]}_{order.lower()}_{sh}.npy"


def npy_header(path):
    with open(path, "rb") as f:
        version = np.lib.format.read_magic(f)
        reader = {(1, 0): np.lib.format.read_array_header_1_0,
                  (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        # (3, 0) has the 2.0 layout with a utf-8 header; ours are ascii
        hdr = (reader or np.lib.format.read_array_header_2_0)(f)
        return version, hdr, f.tell()


def check_npy_loaded(a, written, what):
    assert a.dtype == written.dtype and a.dtype.str == written.dtype.str, what
    assert a.shape == written.shape, what
    assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(written).tobytes(), what


def write_npy(outdir, blocks, notes):
    cases = [(1, d, "C", (3, 4)) for d in NPY_DTYPES] + NPY_EXTRA
    pads = set()
    for version, descr, order, shape in cases:
        a = npy_array(descr, order, shape)
        fname = npy_name(version, descr, order, shape)
        path = os.path.join(outdir, fname)
        if version == 1:
            np.save(path, a)
        else:
            with open(path, "wb") as f:
                np.lib.format.write_array(f, a, version=(version, 0))
        got_version, (shp, fortran, dt), data_start = npy_header(path)
        assert got_version == (version, 0), (fname, got_version)
        assert dt.str == descr and shp == shape, (fname, dt.str, shp)
        assert fortran == (order == "F"), fname
        pads.add((version, data_start % 64 == 0))
        b = np.load(path)
        check_npy_loaded(b, a, fname)
        blocks.append(block(fname, "-", descr, shp, "F" if fortran else "C", b))
    notes.append("npy data offsets multiple of 64: " + ", ".join(
        f"v{v}:{ok}" for v, ok in sorted(pads)))


NPZ = {
    "stored.npz": (np.savez, zipfile.ZIP_STORED, [
        ("weight", "<f4", "C", (3, 4)), ("index", "<i8", "C", (5,)),
        ("mask", "|b1", "C", (2, 3))]),
    "deflated.npz": (np.savez_compressed, zipfile.ZIP_DEFLATED, [
        ("w", ">f8", "C", (2, 3, 4)), ("idx", "<i4", "F", (3, 4)),
        ("half", "<f2", "C", (7,))]),
}
ZIP64_TAG = b"\x01\x00"
ZIP_TIME = time.struct_time((2000, 1, 1, 0, 0, 0, 5, 1, 0))


def write_npz(outdir, blocks, notes):
    for fname, (saver, compression, members) in NPZ.items():
        arrays = {n: npy_array(d, o, s) for n, d, o, s in members}
        path = os.path.join(outdir, fname)
        with mock.patch("time.localtime", return_value=ZIP_TIME):
            saver(path, **arrays)
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            assert [i.filename for i in infos] == [n + ".npy" for n in arrays], fname
            for i in infos:
                assert i.compress_type == compression, (fname, i.filename)
                assert i.date_time in (ZIP_TIME[:6], (1980, 1, 1, 0, 0, 0)), i.date_time
            notes.append(f"{fname}: members " + ", ".join(
                f"{i.filename} (method {i.compress_type}, flags 0x{i.flag_bits:x}, "
                f"zip64 extra {i.extra[:2] == ZIP64_TAG})" for i in infos))
        with np.load(path) as z:
            assert list(z.files) == list(arrays), (fname, z.files)
            for n, d, o, s in members:
                b = z[n]
                check_npy_loaded(b, arrays[n], f"{fname}:{n}")
                fortran = b.flags.f_contiguous and not b.flags.c_contiguous
                assert fortran == (o == "F"), (fname, n)
                blocks.append(block(fname, n, d, b.shape, o, b))


# --------------------------------------------------------------------------
# expected.txt
# --------------------------------------------------------------------------


def block(fname, name, dtype, shape, order, a):
    bits = check_conversion(a, f"{fname}:{name}")
    lines = [f"tensor {fname} {name}", f"dtype {dtype}",
             ("shape " + " ".join(map(str, shape))).rstrip()]
    if order is not None:
        lines.append(f"order {order}")
    lines.append(("f32 " + " ".join(f"{b:08x}" for b in bits)).rstrip())
    lines.append("end")
    return {"file": fname, "name": name, "array": a, "lines": lines}


def parse_expected(text):
    out, cur = [], None
    for ln in text.splitlines():
        if not ln or ln.startswith("#"):
            continue
        tag, _, rest = ln.partition(" ")
        if tag == "tensor":
            f, n = rest.split(" ")
            cur = {"file": f, "name": n}
        elif tag == "end":
            out.append(cur)
            cur = None
        elif tag in ("shape", "f32"):
            cur[tag] = rest.split()
        else:
            cur[tag] = rest
    assert cur is None
    return out


def reload_any(outdir, fname, name):
    path = os.path.join(outdir, fname)
    if fname.endswith(".npy"):
        return np.load(path)
    if fname.endswith(".npz"):
        with np.load(path) as z:
            return z[name]
    with open(path, "rb") as f:
        raw = {k: v for k, v in safetensors.deserialize(f.read())}
    v = raw[name]
    return np.frombuffer(bytes(v["data"]), dtype=ST_DTYPES[v["dtype"]]).reshape(v["shape"])


HEADER = """\
# qscope tensor-file fixtures: expected float32 values (see tests/conformance/tensors.py)
# numpy {np} safetensors {st} ml_dtypes {ml}
# tensor <file> <name> / dtype / shape / [order C|F] / f32 <hex bits, C order> / end
# NaN payloads are numpy's: compare NaN by class and sign.
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--outdir", default=DEFAULT_OUT)
    args = ap.parse_args()
    outdir = args.outdir
    os.makedirs(outdir, exist_ok=True)
    for old in os.listdir(outdir):
        if old.endswith((".npy", ".npz", ".safetensors")):
            os.remove(os.path.join(outdir, old))

    blocks, notes = [], []
    write_safetensors(outdir, blocks, notes)
    write_npy(outdir, blocks, notes)
    write_npz(outdir, blocks, notes)

    text = HEADER.format(np=np.__version__, st=safetensors.__version__,
                         ml=ml_dtypes.__version__)
    text += "\n".join("\n".join(b["lines"]) for b in blocks) + "\n"
    with open(os.path.join(outdir, "expected.txt"), "w") as f:
        f.write(text)

    # self-check: parse expected.txt back, reload each file, convert again
    with open(os.path.join(outdir, "expected.txt")) as f:
        parsed = parse_expected(f.read())
    assert len(parsed) == len(blocks)
    for p, b in zip(parsed, blocks):
        assert (p["file"], p["name"]) == (b["file"], b["name"])
        a = reload_any(outdir, p["file"], p["name"])
        assert [int(d) for d in p["shape"]] == list(a.shape), p["file"]
        assert p["f32"] == [f"{x:08x}" for x in to_f32_bits(a)], (p["file"], p["name"])
        assert len(p["f32"]) == a.size
        if p["file"].endswith(".safetensors"):
            assert "order" not in p
        else:
            assert p["dtype"] == a.dtype.str and p["order"] in ("C", "F")

    print(f"numpy {np.__version__}, safetensors {safetensors.__version__}, "
          f"ml_dtypes {ml_dtypes.__version__}, python {sys.version.split()[0]}")
    total = 0
    for name in sorted(os.listdir(outdir)):
        size = os.path.getsize(os.path.join(outdir, name))
        total += size
        print(f"  {size:7d}  {name}")
    print(f"  {total:7d}  total ({len(blocks)} tensors in expected.txt)")
    print("refused by the package:", "none" if not REFUSED else "")
    for r in REFUSED:
        print("  " + r)
    print("NaN payloads after astype(float32):",
          {k: sorted(v) for k, v in sorted(NAN_PAYLOADS.items())})
    for n in notes:
        print("note:", n)


if __name__ == "__main__":
    main()
