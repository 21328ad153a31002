#!/usr/bin/env python3
"""Writes the seed corpora (fuzz/corpus/TARGET/) and dictionaries (fuzz/dict/TARGET.dict) of the
fuzz targets from the catalogue (`qscope list`), the conformance cases, the built-in lessons, the
lesson fixtures, example hashes and the tensor-file fixtures. Run from the repository root with a built `qscope`:

    python3 fuzz/seeds.py target/release/qscope

then minimise each corpus (`scripts/dev fuzz` reads them; `cargo fuzz cmin` keeps them small).
"""
import glob
import hashlib
import os
import random
import re
import subprocess
import sys
import zlib

QSCOPE = sys.argv[1] if len(sys.argv) > 1 else "target/release/qscope"
listing = subprocess.run([QSCOPE, "list"], check=True, capture_output=True, text=True).stdout


def write(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = f"fuzz/corpus/{target}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/{hashlib.sha1(data).hexdigest()}", "wb") as f:
        f.write(data)


def escape(b):
    """A byte as libFuzzer's dictionaries write it: printable ASCII as is, else \\xAB."""
    c = chr(b)
    return "\\" + c if c in '"\\' else c if 32 <= b < 127 else f"\\x{b:02X}"


def dictionary(target, words):
    os.makedirs("fuzz/dict", exist_ok=True)
    with open(f"fuzz/dict/{target}.dict", "w") as f:
        f.write(f"# libFuzzer dictionary of the {target} target (written by fuzz/seeds.py)\n")
        for w in sorted({w if isinstance(w, bytes) else w.encode() for w in words}):
            f.write('"' + "".join(escape(b) for b in w) + '"\n')


names = []
for line in listing.splitlines():
    m = re.match(r"^  ([A-Za-z_.0-9]+)(?:  \(also: (.*)\))?$", line)
    if m:
        names.append(m.group(1))
        names += [a.strip() for a in (m.group(2) or "").split(",") if a.strip()]
params = sorted(set(re.findall(r"^      ([a-z_0-9]+) +=", listing, re.M)))
choices = sorted(set(re.findall(r"'([a-z_0-9]+)'", listing)))
cases = sorted({l[5:].strip() for f in glob.glob("tests/conformance/*.txt") for l in open(f) if l.startswith("case ")})
random.seed(20261126)

# The spec parser: every name, a sample of the conformance cases, the odd forms.
specs = names + random.sample(cases, 60) + [
    "quantized_bits(4, 0, 1, alpha='auto')", "qkeras.quantized_bits(bits=4,symmetric=True,)",
    "larq.SteTern(threshold_value=0.1, ternary_weight_networks=True)", "torchao.mx(elem_dtype='fp4_e2m1')",
    "lsq(bits=4, step=0.1)", "qkeras.quantized_bits(4,0,1,scale_axis=[0, 1])", "pact(bits=4,alpha=1e+1)",
    "qkeras.quantized_bits(var_name=\"it's\")", "quantized_po2(4, max_value=None)", "softround(alpha=inf)",
]
for s in specs:
    write("spec", s)
spec_words = names + params + choices + ["True", "False", "None", "(", ")", "=", ",", "[", "]", "'", '"',
                                         "inf", "nan", "-1e308", "1e-45", "auto", "auto_po2"]
dictionary("spec", spec_words)

# Keras config dicts (the target puts the `{` in front).
for name, config in [
    ("quantized_bits", '{"bits": 4, "integer": 0, "symmetric": 1, "alpha": "auto"}'),
    ("quantized_relu", '{"bits": 3, "integer": 1, "use_sigmoid": 0}'),
    ("ternary", '{"alpha": null, "threshold": 0.3}'),
    ("quantized_po2", '{"bits": 4, "max_value": 2.0, "quadratic_approximation": true}'),
    ("binary", '{"use_01": false, "alpha": 1.0}'),
    ("SteSign", '{"clip_value": 1.5, "name": "ste_sign", "trainable": true, "dtype": "float32"}'),
    ("DoReFa", '{"k_bit": 2, "mode": "weights"}'),
]:
    write("spec_json", f'"class_name": "{name}", "config": {config}}}')
write("spec_json", '"class_name": "quantized_bits", "config": {"bits": 8, "scale_axis": [0, 1]}}')
dictionary("spec_json", spec_words + ['"class_name"', '"config"', "{", "}", ":", "null", "true", "false"])

# Explorer hashes (with the page's keys) and trainer hashes.
explorer = [
    "#q=qkeras.quantized_bits(4,0,1)&q=larq.approx_sign&x=-2,2",
    "#q=ste&x=-2,2&seed=3&sample=student_t,0.25&df=2.5&outliers=0.01",
    "#q=qkeras.quantized_bits(bits=4,symmetric=True,alpha='auto')&x=-0.5,0.5&mode=infer&seed=7",
    "#q=qkeras.quantized_bits%28bits%3D4%2C%20symmetric%3DTrue%29&x=-2,2",
    "#q=qkeras.quantized_bits(bits%3D4)&x=-1,1&infer=1&seed=3",
    "#q=larq.SteSign&x=-2,2&pin=1.5&sel=0&hide=alpha,picker",
    "#q=!larq.ApproxSign&q=bnb.nf4(blocksize=64)&q=torchao.mx&sel=2&block=3&sample=laplace,0.2",
    "#q=quantized_bitz(4)&x=oops",
    "#lesson=ste&step=2&q=larq.ste_sign", "#q=ste&lesson=ste&x=-1,1&step=3&embed=1&present=1",
    "#lesson=binary&step=4&present=1&view=train&dataset=xor", "#step=0&embed=yes&lesson=",
    "#q=%7B%22class_name%22%3A%20%22quantized_bits%22%2C%20%22config%22%3A%20%7B%22bits%22%3A%204%7D%7D",
]
trainer = [
    "#view=train&dataset=xor&hidden=8,8&wq=qkeras.quantized_bits(4,0,1)&play=1",
    "#view=train&dataset=sine&noise=2&hidden=8,999&wq=quantized_bitz(4)&lr=-1&batch=0&optimizer=rmsprop"
    "&loss=hinge&features=x3&ratio=1&l2=-1&seed=x&wq5=larq.ste_sign&colour=red",
    "#view=train&hidden=8,8&wq=larq.ste_sign&wq2=&aq=qkeras.quantized_tanh(4)&twin_wq=larq.approx_sign",
    "#view=train&hidden=8,8&wq=larq.ste_sign&qo=1&twin_aq=ste",
    "#view=train&pace=0&pace=1001&pace=fast&pace=2.5&stepby=week",
    "#view=train&dataset=xor&hidden=8&l1=0.01&l2=0.001&optimizer=sgd&lr=0.1&batch=10&activation=tanh",
    "#view=train&wq=qkeras.quantized_bits(4, 0, alpha='auto')&hidden=&features=x1,x2,x1x2,sinx1",
]
for h in explorer + trainer:
    write("explorer_hash", h)
for h in trainer:
    write("trainer_hash", h)
train_keys = re.findall(r'key: Some\("([a-z_0-9]+)"\)', open("crates/explore/src/train/settings.rs").read())
hash_words = ["&", "=", "#", "%", ",", "!", "~"] + ["q=", "x=", "mode=", "infer=", "seed=", "sample=", "df=",
             "outliers=", "hide=", "sel=", "pin=", "block=", "lesson=", "step=", "embed=", "present=", "view=train"]
dictionary("explorer_hash", hash_words + names + params + choices + [k + "=" for k in train_keys])
dictionary("trainer_hash", hash_words + [k + "=" for k in train_keys] + ["wq1=", "aq2=", "xor", "circle", "spiral",
           "gauss", "sine", "relu", "tanh", "sigmoid", "linear", "adam", "sgd", "rmsprop", "max", "epoch", "batch"]
           + names)

# Lessons: the built-in ones and the fixtures (small ones whole).
lessons = sorted(glob.glob("lessons/*.md")) + sorted(glob.glob("tests/fixtures/lessons/*.md"))
for path in lessons:
    text = open(path, encoding="utf-8").read()
    write("lesson", text)
    packed = zlib.compressobj(9, zlib.DEFLATED, -15)
    raw = packed.compress(text.encode()) + packed.flush()
    write("lesson_link", b"\x02" + raw)
for v in ["ste", "stee", "quantized_bits", "~", "~AAAA", "~8/", "~" + "A" * 5, "~abc$def"]:
    write("lesson_link", b"\x00" + v.encode())
write("lesson_link", b"\x01" + b"y0jNy_cHAA")
dictionary("lesson", ["# ", "## ", "### ", "```qscope", "```", "~~~", "\n", "$", "$$", "\\$", "**", "*", "`", "- ",
           "[x](https://example.org)", "\\frac{", "}{", "}", "^", "_", "\\sqrt", "\\text{", "\\partial", "\\cdot",
           "\\operatorname{", "view=train", "view=explorer", "highlight=", "task=", "done=", "dydx(", "y(", ") == 0",
           " and ", "levels", "sqnr", "mse", "curve:1", "control:bits", "forward", "backward"] + hash_words + names)

# eval's stdin: a spec on the first line, the numbers after it.
for spec, numbers in [
    ("qkeras.quantized_bits(4,0,1)", "0.3 -2\n0.1875"), ("larq.SteSign", "nan inf -inf"),
    ("qkeras.ternary(alpha='auto')", "-2 -1 0 1 2"), ("bnb.nf4(blocksize=64)", " ".join(str(i / 7) for i in range(70))),
    ("torchao.mx", "1e38 -3.4e38 1e-45 -0 +inf -Infinity NaN"), ("lsq(bits=4, step=0.1)", "0.05 0.15 -0.25"),
    ("", "1 2 abc"),
]:
    write("eval_stdin", f"{spec}\n{numbers}")
dictionary("eval_stdin", ["nan", "-nan", "inf", "-inf", "+inf", "infinity", "-Infinity", "1e38", "3.4028236e38",
           "1e-45", "-0", "0x1p3", " ", "\n", "\t"] + names)

# The structured quantizer target: arbitrary bytes (libFuzzer's mutations find the rest).
for k in range(40):
    write("quantizers", bytes(random.randrange(256) for _ in range(random.choice([16, 64, 256, 600]))))

# Tensor files, whole (each target reads its input as a file): the fixtures written by numpy and
# safetensors (tests/fixtures/tensors/), and a few hand-made edges.
def tensor_fixtures(ext):
    return [open(p, "rb").read() for p in sorted(glob.glob(f"tests/fixtures/tensors/*.{ext}"))]


def safetensors_file(header, data=b""):
    h = header.encode() + b" " * (-len(header) % 8)
    return len(h).to_bytes(8, "little") + h + data


for data in tensor_fixtures("safetensors") + [
    safetensors_file("{}"),
    safetensors_file('{"q":{"dtype":"F4","shape":[4],"data_offsets":[0,2]},'
                     '"w":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[2,4]}}', b"\x00\x00\x7f\xff"),
]:
    write("tensors_safetensors", data)
for data in tensor_fixtures("npy"):
    write("tensors_npy", data)
for data in tensor_fixtures("npz") + [b"PK\x05\x06" + bytes(18)]:
    write("tensors_npz", data)
st_dtypes = ["BOOL", "U8", "I8", "U16", "I16", "U32", "I32", "U64", "I64", "F16", "BF16", "F32", "F64", "F8_E4M3",
             "F8_E5M2", "F8_E8M0", "F4", "F6_E2M3", "F6_E3M2", "C64"]
dictionary("tensors_safetensors", ['"dtype"', '"shape"', '"data_offsets"', '"__metadata__"', "{", "}", "[", "]", ":",
           ",", '"', "\\u0000", "\\ud800", "null", "true", "1e3", "-0", "18446744073709551616", "4294967296"]
           + ['"' + d + '"' for d in st_dtypes] + [b"\x00" * 7, b"\xff" * 8, b"\x08" + bytes(7)])
descrs = [e + k for e in "<>|=" for k in ["f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1"]]
npy_words = [b"\x93NUMPY", b"\x01\x00", b"\x02\x00", b"\x03\x00", b"\xff\xff", "'descr'", "'fortran_order'",
             "'shape'", "True", "False", "(", ")", ",)", ", ", ": ", "L", "[('a', '<f4')]", "'|O'", "{", "}", "\n"]
npy_words += ["'" + d + "'" for d in descrs]
dictionary("tensors_npy", npy_words)
dictionary("tensors_npz", npy_words + [b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06", b"PK\x06\x06", b"PK\x06\x07",
           b"\xff\xff\xff\xff", b"\xff\xff", b"\x01\x00", b"\x08\x00", b"\x00\x00", ".npy", "data.pkl",
           "config.json", "model.weights.h5", "/"])

# csv: a small table in each dialect the reader takes (comma, semicolon, tab; a BOM; CRLF), quoted
# names and labels spanning lines, and a file of every problem (blank lines, NaN, 1e999, an empty
# cell, text after a closing quote).
rows = [(f"{0.5 * i:.1f}", f"-{i}e-3" if i else "0e-3", "ab"[i % 2]) for i in range(12)]
for sep, head, bom, end in [(",", "x", "", "\n"), (";", "x", "", "\n"), ("\t", "x", "", "\n"),
                            (",", "x", "\ufeff", "\r\n"), (",", "xx", "", "\n")]:
    write("csv", bom + end.join(sep.join(r) for r in [(head, "y", "label")] + rows) + end)
write("csv", '"a, ""b""","c\nd",kind\n' + "".join(f'"{i}", {i}.25 ,"k\n{i % 3}"\n' for i in range(12)))
write("csv", "a,b,c\n1,2,3\n\n  \n4,NaN,1e999\n5,,\"x\"y\n")
dictionary("csv", [",", ";", "\t", '"', '""', "\r\n", "\r", "\n", b"\xef\xbb\xbf", "NaN", "inf", "-0", "1e999",
                   "1e39", "3.4028235e38", "1e-45", "0x1", "label", b"\xff"])
