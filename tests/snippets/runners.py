"""The workers of tests/snippets/generate.py: run snippets in PyTorch or TensorFlow.

`worker()` reads the jobs (JSON: spec, lang, text, hash, x) from stdin and writes one JSON
result per line: forward y, dydx, parameter gradients (means and variance over the draws for
a stochastic snippet), or the error the snippet raised.  It runs in the interpreter that has
the framework: PyTorch for lang pytorch, TensorFlow with QKeras and Larq for qkeras and larq.
Single-threaded, seeded from crc32 of the spec.
"""

import json
import os
import platform
import sys
import warnings
import zlib

import numpy as np

F32 = np.float32


def seed_of(s):
    return zlib.crc32(s.encode()) & 0x7FFFFFFF


class Torch:
    """Runs a snippet after `x = torch.tensor(grid, dtype=torch.float32, requires_grad=True)`."""

    def __init__(self):
        import torch
        torch.set_num_threads(1)
        self.torch = torch
        self.version = f"torch {torch.__version__}"

    def label(self, lang):
        return self.version

    def seed(self, s):
        self.torch.manual_seed(s)

    def phases(self):
        return ["train"]  # PyTorch snippets have no learning phase

    def run(self, code, x_np, phase):
        torch = self.torch
        x = torch.tensor(x_np, dtype=torch.float32, requires_grad=True)
        ns = {"x": x}
        exec(code, ns)  # noqa: S102  (the snippet, unchanged)
        y = ns["y"] if "y" in ns else ns["q"](x)
        params = {k: v for k, v in ns.items()
                  if torch.is_tensor(v) and v is not x and v.requires_grad and v.is_leaf}
        for v in list(ns.values()):
            if isinstance(v, torch.nn.Module):
                params.update(dict(v.named_parameters()))
        if y.requires_grad:
            y.sum().backward()
        grad = lambda t: np.zeros(tuple(t.shape), F32) if t.grad is None else t.grad.numpy()  # noqa: E731
        return (y.detach().numpy().reshape(-1), grad(x).reshape(-1),
                [(k, grad(p).reshape(-1)) for k, p in sorted(params.items())], x.grad is None)


class TensorFlow:
    """Runs a snippet with `x = tf.constant(grid.reshape(-1, 1))` watched by a GradientTape."""

    def __init__(self):
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
        warnings.filterwarnings("ignore")
        sys.path.insert(0, os.environ.get("QKERAS_SRC", ".venv/qkeras-src"))
        import tensorflow as tf
        tf.config.threading.set_intra_op_parallelism_threads(1)
        tf.config.threading.set_inter_op_parallelism_threads(1)
        tf.get_logger().setLevel("ERROR")
        import qkeras
        from importlib.metadata import version
        self.tf = tf
        self.labels = {"qkeras": f"qkeras {qkeras.__version__} (commit {qkeras_commit()}), tensorflow {tf.__version__}",
                       "larq": f"larq {version('larq')}, tensorflow {tf.__version__}"}
        self.version = f"tensorflow {tf.__version__}, keras {version('keras')}, " + ", ".join(
            self.labels[k].split(",")[0] for k in self.labels)

    def label(self, lang):
        return self.labels[lang]

    def seed(self, s):
        self.tf.random.set_seed(s)
        np.random.seed(s % 2**32)

    def phases(self):
        return ["train", "infer"]  # Keras learning phase 1, else (the snippet raised) 0

    def run(self, code, x_np, phase):
        tf = self.tf
        tf.keras.backend.set_learning_phase(1 if phase == "train" else 0)
        x = tf.constant(np.asarray(x_np, F32).reshape(-1, 1))
        with tf.GradientTape() as tape:
            tape.watch(x)
            ns = {"x": x}
            exec(code, ns)  # noqa: S102  (the snippet, unchanged)
            y = ns["y"] if "y" in ns else ns["q"](x)
            loss = tf.reduce_sum(y)
        params = {k: v for k, v in ns.items() if isinstance(v, tf.Variable) and v.trainable}
        for v in getattr(ns.get("q"), "trainable_variables", []):
            params[v.name.split("/")[-1].split(":")[0]] = v
        names = sorted(params)
        grads = tape.gradient(loss, [x] + [params[k] for k in names])
        as_np = lambda g, t: np.zeros(tuple(t.shape), F32) if g is None else np.asarray(g, F32)  # noqa: E731
        return (np.asarray(y, F32).reshape(-1), as_np(grads[0], x).reshape(-1),
                [(k, as_np(g, params[k]).reshape(-1)) for k, g in zip(names, grads[1:])],
                grads[0] is None)


def qkeras_commit():
    if os.environ.get("QKERAS_COMMIT"):
        return os.environ["QKERAS_COMMIT"]
    import subprocess
    try:
        return subprocess.check_output(["git", "-C", os.environ.get("QKERAS_SRC", ".venv/qkeras-src"),
                                        "rev-parse", "HEAD"], stderr=subprocess.DEVNULL, text=True).strip()
    except Exception:  # noqa: BLE001
        return "unknown"


def same(a, b):
    """The same bits, NaN matching NaN."""
    bits = lambda u: np.where(np.isnan(u), 0x7FC00000, np.asarray(u, F32).view(np.uint32))  # noqa: E731
    return all(np.array_equal(bits(u), bits(v)) for u, v in zip(a, b))


def flat(run):
    y, g, params, none = run
    return [y, g] + [v for _, v in params], [k for k, _ in params], none


def first_run(fw, code, x, seed):
    """The first phase the snippet runs in: (phase, outputs, names, None grad, notes)."""
    notes = []
    for phase in fw.phases():
        try:
            fw.seed(seed)
            outs, names, none = flat(fw.run(code, x, phase))
            return phase, outs, names, none, notes
        except Exception as e:  # noqa: BLE001
            notes.append(f"{phase}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    raise RuntimeError("; ".join(notes))


def evaluate(fw, job, samples):
    """One job's result: exact (the same bits for two seeds) or the moments over the draws."""
    code = compile(job["text"], f"<{job['spec']} ({job['lang']})>", "exec")
    seed = seed_of(job["spec"])
    x = np.array(job["x"] + [np.nan], F32)  # NaN at its end: left out if it poisons others
    out = dict(spec=job["spec"], lang=job["lang"], hash=job["hash"], version=fw.label(job["lang"]), notes=[])
    if "import bitsandbytes" in job["text"]:
        out["notes"].append(library_version("bitsandbytes"))
    try:
        phase, outs, names, none = run_nan_or_not(fw, code, x, seed, out, job["nan"])
    except Exception as e:  # noqa: BLE001
        out["error"] = str(e)
        return out
    x = out.pop("x_used")
    fw.seed(seed + 1)
    again, _, _ = flat(fw.run(code, x, phase))
    out.update(mode=phase, x=x.tolist())
    if none:
        out["notes"].append("gradient is None: written as zeros")
    if same(outs, again):
        out.update(kind="exact", y=outs[0].tolist(), dydx=outs[1].tolist(),
                   grads=[(k, v.tolist()) for k, v in zip(names, outs[2:])])
        return out
    fw.seed(seed)
    draws = [flat(fw.run(code, x, phase))[0] for _ in range(samples)]
    mean = [np.mean([d[i] for d in draws], axis=0, dtype=np.float64).astype(F32) for i in range(len(outs))]
    var = np.var([d[0] for d in draws], axis=0, ddof=1, dtype=np.float64).astype(F32)
    out.update(kind="stochastic", samples=samples, y=mean[0].tolist(), yvar=var.tolist(),
               dydx=mean[1].tolist(), grads=[(k, v.tolist()) for k, v in zip(names, mean[2:])])
    return out


def library_version(name):
    """`name X.Y.Z`, or that it is missing (the snippet then raises and says so)."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return f"{name} {version(name)}"
    except PackageNotFoundError:
        return f"{name} not installed"


def run_nan_or_not(fw, code, x, seed, out, job_nan):
    """Runs on the grid with NaN at its end; without it when NaN turns other outputs to NaN."""
    plain = first_run(fw, code, x[:-1], seed)
    if not job_nan:
        out["x_used"] = x[:-1]
        return plain[:4]
    with_nan = first_run(fw, code, x, seed)
    masks = [[np.isnan(o[:len(x) - 1]) for o in r[1]] for r in (plain, with_nan)]
    if with_nan[0] != plain[0] or any((m != n).any() for m, n in zip(*masks)):
        out["notes"].append("NaN left out: it turns other outputs into NaN")
        x, with_nan = x[:-1], plain
    phase, outs, names, none, notes = with_nan
    out["notes"] += [f"raised in {n}" for n in notes]
    out["x_used"] = x
    return phase, outs, names, none


def worker(samples):
    jobs = json.load(sys.stdin)
    if not jobs:
        return
    fw = Torch() if jobs[0]["lang"] == "pytorch" else TensorFlow()
    env = f"{fw.version}; python {platform.python_version()}, numpy {np.__version__}, CPU, one thread"
    for i, job in enumerate(jobs):
        r = evaluate(fw, job, samples)
        r["framework"] = env
        print(json.dumps(r), flush=True)
        print(f"[{fw.version.split(',')[0]} {i + 1}/{len(jobs)}] {job['spec']} ({job['lang']})"
              f" {r.get('kind', 'error')}", file=sys.stderr)
