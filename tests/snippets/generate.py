#!/usr/bin/env python3
"""Run every "Copy as code" snippet in the real frameworks and record what it computes.

For every spec of the case list (each catalogue entry at its defaults, from `qscope list`,
then CONFIGS below) and every language `qscope code SPEC --lang L` offers (pytorch, qkeras,
larq; the cli line is qscope itself), the snippet text is taken from the built binary, so it
is exactly what a user copies, and run UNCHANGED after x is defined:

    PyTorch     x = torch.tensor(grid, dtype=torch.float32, requires_grad=True)   (shape (N,))
    TensorFlow  x = tf.constant(grid.reshape(-1, 1)), watched by a tf.GradientTape

The snippet ends with `y` defined, or `q` (a Keras quantizer: then y = q(x)).  Recorded: y,
dydx = d(sum y)/dx, and d(sum y)/dp for every other leaf tensor with requires_grad=True the
snippet defines (PyTorch: named as the snippet names it) or trainable variable of q (Keras).
A None gradient is written as zeros.  TensorFlow runs with Keras learning phase 1 (training);
a snippet that raises there is run with phase 0 and recorded as `mode infer`.  A snippet whose
output changes with the seed is stochastic: y, dydx and the parameter gradients are means
over S draws, yvar the sample variance of y (ddof=1), as tests/conformance does.

Grid (the same for every language of a spec, seeded by crc32 of the spec): the multiples of
1/128 in [-3, 3]; every numeric literal of the spec and its snippets, negated, and one ulp
either side; for a literal below 1 that is not a multiple of 1/128 (a step, a threshold), its
multiples and half-multiples in [-3, 3]; 16 normal draws; ±10 and ±1e4 except for
data-dependent specs (NARROW), whose statistics stay on [-3, 3]; and for the others NaN,
unless it turns other outputs into NaN in the framework (then the case says so).

Outputs, next to this script: pytorch-<major.minor>.txt per torch, qkeras.txt, larq.txt, in
tests/conformance's line format plus, per case, `lang`, `version` (framework and version),
`hash fnv1a64:<16 hex>` (FNV-1a 64 of the snippet's UTF-8 text, qscope code's output without
its final newline), `grad <name> <values>` per parameter, and `error <message>` for a snippet
that raised.  Floats are float32 in shortest round-trip form (str(np.float32)), checked with
exact rational arithmetic.  tests/explorer/snippets.rs checks qscope against these files.

How to run (versions used for the committed files; about 3 minutes on 2 cores):

    cargo build --release --bin qscope
    python3 -m venv .venv/tf && .venv/tf/bin/pip install tensorflow-cpu==2.15.1 \\
        larq==0.14.0 numpy==1.26.4 tensorflow-model-optimization==0.7.5 pyparsing networkx \\
        scikit-learn tqdm      # + QKeras from source at .venv/qkeras-src: see tests/conformance
    python3 -m venv .venv/torch2150 && .venv/torch2150/bin/pip install \\
        torch==2.15.0 torchao==0.18.0 shok==0.3.0 numpy   # likewise .venv/torch2100, torch==2.10.0
    python3 -m venv .venv/bnb && echo .venv/torch2150/lib/python3.11/site-packages \\
        > .venv/bnb/lib/python3.11/site-packages/torch2150.pth && .venv/bnb/bin/pip install \\
        --no-deps bitsandbytes==0.50.2   # likewise .venv/bnb2100 over .venv/torch2100
    QKERAS_COMMIT=78ea90fc381fef23faa4db0e1d88bd1173c1c644 .venv/tf/bin/python tests/snippets/generate.py \\
        --torch .venv/bnb/bin/python --torch .venv/bnb2100/bin/python \\
        --tf .venv/tf/bin/python [--samples 2000] [--only SUBSTRING]

The bnb venvs are the torch venvs plus bitsandbytes (its wheel carries its CPU library;
--no-deps leaves torch as it is): the bitsandbytes snippets need it, the others run the same, and
each bitsandbytes case records its version in a comment line.

--only regenerates the cases whose spec contains SUBSTRING and keeps the others' committed
outputs.  QKERAS_SRC (default .venv/qkeras-src) and QKERAS_COMMIT as in tests/conformance.
"""

import argparse
import fractions
import json
import os
import re
import subprocess
import sys
import time
import zlib

from runners import worker

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
QSCOPE = os.path.join(ROOT, "target", "release", "qscope")
QKERAS_SRC = os.environ.get("QKERAS_SRC", ".venv/qkeras-src")
LANGS = ("pytorch", "qkeras", "larq")

# Configurations beyond each catalogue entry at its defaults.  Add a spec here and re-run;
# tests/explorer/snippets.rs then checks every language qscope offers for it.
CONFIGS = [
    "qkeras.quantized_bits(4,0,1)", "qkeras.quantized_bits(4,0,1,alpha=1)",
    "qkeras.quantized_bits(4,2,1)", "qkeras.quantized_bits(3,0,0)", "qkeras.quantized_bits(1,0,1)",
    "qkeras.quantized_bits(4,0,1,keep_negative=False)",
    "qkeras.quantized_bits(4,0,1,alpha='auto')", "qkeras.quantized_bits(4,0,1,alpha='auto_po2')",
    "qkeras.quantized_bits(4,0,1,qnoise_factor=0.5)", "qkeras.quantized_bits(4,0,1,use_ste=False)",
    "qkeras.quantized_bits(4,0,1,use_stochastic_rounding=True)",
    "qkeras.quantized_linear(4,0)", "qkeras.quantized_linear(4,1,keep_negative=False)",
    "qkeras.quantized_linear(4,0,alpha='auto')", "qkeras.quantized_linear(4,0,qnoise_factor=0.5)",
    "qkeras.quantized_po2(4)", "qkeras.quantized_po2(4,max_value=2)",
    "qkeras.quantized_po2(4,quadratic_approximation=True)", "qkeras.quantized_po2(4,use_ste=False)",
    "qkeras.quantized_relu_po2(4)", "qkeras.quantized_relu_po2(4,negative_slope=0.25)",
    "qkeras.quantized_relu(4,0)", "qkeras.quantized_relu(4,2)",
    "qkeras.quantized_relu(4,0,negative_slope=0.25)", "qkeras.quantized_relu(4,0,use_sigmoid=True)",
    "qkeras.quantized_relu(4,0,qnoise_factor=0.5)", "qkeras.quantized_relu(4,0,use_ste=False)",
    "qkeras.quantized_relu(4,0,use_stochastic_rounding=True)",
    "qkeras.quantized_relu(4,2,relu_upper_bound=3.0,is_quantized_clip=False)",
    "qkeras.quantized_tanh(4)", "qkeras.quantized_tanh(4,use_real_tanh=True)",
    "qkeras.quantized_sigmoid(4)", "qkeras.quantized_sigmoid(4,use_real_sigmoid=True)",
    "qkeras.quantized_ulaw(4)", "qkeras.quantized_hswish(4,0)",
    "qkeras.binary(alpha=1)", "qkeras.binary(alpha='auto')", "qkeras.binary(use_stochastic_rounding=True)",
    "qkeras.stochastic_binary(alpha=1)", "qkeras.ternary(alpha=1)", "qkeras.ternary(alpha='auto')",
    "qkeras.ternary(alpha=1,threshold=0.5)", "qkeras.stochastic_ternary(alpha='auto')",
    "qkeras.bernoulli(alpha=1)", "qkeras._round_through(use_stochastic_rounding=True)",
    "qkeras.stochastic_round(precision=0.25)",
    "larq.SteSign(clip_value=0.5)", "larq.SteSign(clip_value=None)", "larq.SwishSign(beta=2.0)",
    "larq.SteHeaviside(clip_value=None)", "larq.MagnitudeAwareSign(clip_value=None)",
    "larq.SteTern(threshold_value=0.1)", "larq.SteTern(threshold_value=0.5,clip_value=None)",
    "larq.SteTern(ternary_weight_networks=True)", "larq.DoReFa(k_bit=4)",
    "larq.DoReFa(k_bit=2,mode='weights')", "larq.NoOp(precision=8)",
    "soft_round(alpha=2.0)", "soft_round(hard=True)", "ste(step=0.1)",
    "clipped_ste(step=0.25,min_value=-0.5,max_value=1.5)",
    "lsq(bits=4,step=0.1)", "lsq(bits=3,signed=False,step=0.25)", "lsq(bits=4,step=0.1,grad_scale=False)",
    "pact(alpha=1.5)", "pact(bits=2,alpha=2.0)",
    "fake_quantize(scale=0.05,zero_point=3,quant_min=0,quant_max=15)",
    "torchao.float8(float8_dtype='float8_e5m2')", "torchao.float8(round_scales_to_power_of_2=True)",
    "torchao.float8(float8_dtype='float8_e5m2',round_scales_to_power_of_2=True)",
    "torchao.affine(mapping_type='symmetric')",
    "torchao.affine(mapping_type='symmetric_no_clipping_err',group_size=16,quant_min=0,quant_max=15)",
    "torchao.affine(group_size=8,quant_min=-128,quant_max=127)",
    "torchao.intx_fake_quantize(dtype='int2',group_size=16)",
    "torchao.intx_fake_quantize(dtype='int8',is_symmetric=False)",
    "torchao.mx(elem_dtype='fp4_e2m1')", "torchao.mx(elem_dtype='fp6_e2m3',scaling_mode='rceil')",
    "torchao.mx(elem_dtype='float8_e5m2',scaling_mode='ceil')",
    "torchao.mx(elem_dtype='fp6_e3m2',block_size=16,scaling_mode='even')",
    "torchao.nvfp4(per_tensor_scale='auto')", "torchao.nvfp4(per_tensor_scale=0.01)",
    "bnb.nf4(blocksize=32)", "bnb.fp4(blocksize=128)",
]
# Data-dependent specs (a scale or threshold from the whole tensor): no ±10, ±1e4 or NaN in
# their grid (a NaN input only makes every output NaN).
NARROW = ("'auto", "MagnitudeAwareSign", "ternary_weight_networks=True", "mode='weights'", "lsq",
          "stochastic_ternary", "torchao.float8", "torchao.affine", "torchao.intx_fake_quantize",
          "bnb.")


# ---------------------------------------------------------------- shared helpers


def fnv1a64(text):
    h = 0xCBF29CE484222325
    for b in text.encode("utf-8"):
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"fnv1a64:{h:016x}"


def seed_of(s):
    return zlib.crc32(s.encode()) & 0x7FFFFFFF


def tokens(values):
    """float32 values as shortest round-trip text, each checked to parse back exactly."""
    import numpy as np
    out = []
    for v in np.asarray(values, dtype=np.float32).reshape(-1):
        if np.isnan(v):
            out.append("nan")
            continue
        t = "inf" if v == np.inf else "-inf" if v == -np.inf else str(v)
        if np.isfinite(v) and v != 0:
            # The nearest float32 to the decimal must be v (ties to the even one).
            r = fractions.Fraction(t)
            near = [np.nextafter(v, np.float32(-np.inf)), v, np.nextafter(v, np.float32(np.inf))]
            d = [abs(r - fractions.Fraction(float(n))) for n in near]
            even = int(v.view(np.uint32)) % 2 == 0
            assert d[1] < min(d[0], d[2]) or (even and d[1] <= min(d[0], d[2])), (t, v)
        out.append(t)
    return out


# ---------------------------------------------------------------- the driver


def qscope(*args):
    p = subprocess.run([QSCOPE, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr.strip()


def catalogue_defaults():
    """Every catalogue entry at its defaults: its qualified name, as `qscope list` prints it."""
    rc, out, err = qscope("list")
    assert rc == 0, err
    return [m.group(1) for m in re.finditer(r"^  (\S+)", out, re.M)]


def snippets(spec):
    """{lang: text} for every language qscope code offers for spec."""
    rc, _, err = qscope("code", spec, "--lang", "cli")
    if rc != 0:
        sys.exit(f"case list: {spec}: {err}")
    out = {}
    for lang in LANGS:
        rc, text, _ = qscope("code", spec, "--lang", lang)
        if rc == 0:
            out[lang] = text[:-1] if text.endswith("\n") else text
    return out


LITERAL = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")


def grid(spec, texts):
    import numpy as np
    f32 = np.float32
    narrow = any(m in spec for m in NARROW)
    v = [k / 128 for k in range(-384, 385)] + [-0.0]
    for lit in {float(m) for t in [spec, *texts] for m in LITERAL.findall(t)}:
        if lit == 0 or lit > 1e4 or (narrow and lit > 3):
            continue
        for s in (f32(lit), f32(-lit)):
            v += [s, np.nextafter(s, f32(-np.inf)), np.nextafter(s, f32(np.inf))]
        if 1 / 1024 < lit < 1 and (lit * 128) % 1:
            n = int(3 / lit)
            v += [k * lit for k in range(-n, n + 1)] + [(k + 0.5) * lit for k in range(-n, n)]
    v += list(np.random.RandomState(seed_of(spec)).randn(16))
    if not narrow:
        v += [10.0, -10.0, 1e4, -1e4]
    keep = {}
    for a in np.asarray(v, dtype=f32):
        keep[int(a.view(np.uint32))] = a
    return sorted(keep.values(), key=lambda a: (float(a), not np.signbit(a)))


def case_text(r):
    lines = ["", *("# " + n for n in r["notes"]), "case " + r["spec"], "lang " + r["lang"],
             "version " + r["version"], "hash " + r["hash"]]
    if r.get("error"):
        return lines + ["error " + r["error"], "end"]
    lines += ["mode " + r["mode"], "kind " + r["kind"]]
    if r["kind"] == "stochastic":
        lines.append(f"samples {r['samples']}")
    lines += ["x " + " ".join(tokens(r["x"])), "y " + " ".join(tokens(r["y"]))]
    if r["kind"] == "stochastic":
        lines.append("yvar " + " ".join(tokens(r["yvar"])))
    lines.append("dydx " + " ".join(tokens(r["dydx"])))
    lines += [f"grad {name} " + " ".join(tokens(vals)) for name, vals in r["grads"]]
    return lines + ["end"]


def output_file(r):
    if r["lang"] == "pytorch":
        return "pytorch-" + ".".join(r["version"].split()[1].split(".")[:2]) + ".txt"
    return r["lang"] + ".txt"


def committed_cases(path):
    """The case blocks of a committed file, keyed by (spec, lang): kept by --only."""
    if not os.path.exists(path):
        return {}
    blocks = {}
    for chunk in open(path).read().split("\n\n")[1:]:
        lines = chunk.strip("\n").split("\n")
        case = next(i for i, ln in enumerate(lines) if ln.startswith("case "))
        blocks[(lines[case][5:], lines[case + 1][5:])] = [""] + lines
    return blocks


def header(versions, samples, n):
    return [
        "# qscope snippet checks: each \"Copy as code\" snippet run unchanged in " + versions,
        "# generator: tests/snippets/generate.py (its docstring says how to re-run and with what)",
        "# y = the snippet's y (or q(x)); dydx = d(sum y)/dx; grad NAME = d(sum y)/dNAME for each",
        "# other leaf tensor with requires_grad (PyTorch) or trainable variable (Keras);",
        "# None gradients written as zeros. hash = FNV-1a 64 of the snippet text.",
        f"# stochastic cases: means over S={samples} draws, yvar the sample variance (ddof=1).",
        f"# {n} cases",
    ]


def run_workers(workers, jobs, samples):
    """Each (interpreter, langs) worker gets its languages' jobs; two run at a time."""
    results, running, queue = [], [], list(workers)
    while queue or running:
        while queue and len(running) < 2:
            py, langs = queue.pop(0)
            mine = [j for j in jobs if j["lang"] in langs]
            p = subprocess.Popen([py, __file__, "--worker", "--samples", str(samples)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            p.stdin.write(json.dumps(mine))
            p.stdin.close()
            running.append(p)
        p = running.pop(0)
        results += [json.loads(ln) for ln in p.stdout]
        if p.wait() != 0:
            sys.exit(f"worker {p.args[0]} failed")
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torch", action="append", default=[], metavar="PYTHON")
    ap.add_argument("--tf", metavar="PYTHON")
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--only", help="regenerate only the specs containing this text")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.samples)
    t0 = time.time()
    specs = list(dict.fromkeys(catalogue_defaults() + CONFIGS))
    jobs = []
    for spec in specs:
        if args.only and args.only not in spec:
            continue
        texts = snippets(spec)
        x = [float(a) for a in grid(spec, texts.values())]
        nan = not any(m in spec for m in NARROW)
        jobs += [dict(spec=spec, lang=lang, text=t, hash=fnv1a64(t), x=x, nan=nan) for lang, t in texts.items()]
    # TensorFlow first: it takes longest (eager Keras, stochastic draws).
    workers = ([(args.tf, ("qkeras", "larq"))] if args.tf else []) + [(py, ("pytorch",)) for py in args.torch]
    results = run_workers(workers, jobs, args.samples)
    files = {}
    for r in results:
        files.setdefault(output_file(r), []).append(r)
    for name, rs in sorted(files.items()):
        path = os.path.join(HERE, name)
        blocks = committed_cases(path) if args.only else {}
        for r in rs:
            blocks[(r["spec"], r["lang"])] = case_text(r)
        body = [ln for key in sorted(blocks, key=lambda k: specs.index(k[0]) if k[0] in specs else 1e9)
                for ln in blocks[key]]
        with open(path, "w") as f:
            f.write("\n".join(header(rs[0]["framework"], args.samples, len(blocks)) + body) + "\n")
        print(f"{name}: {len(blocks)} cases", file=sys.stderr)
    print(f"{len(results)} runs in {time.time() - t0:.0f}s", file=sys.stderr)

if __name__ == "__main__":
    main()
