#!/usr/bin/env python3
"""Reference vectors for the trainer's `weight_clip` from the real Keras and Larq.

Larq's `larq.constraints.WeightClip(clip_value)` is a Keras kernel constraint: after each
optimizer update of the variable, Keras assigns `constraint(var)`, i.e.
`tf.clip_by_value(var, -clip_value, clip_value)`. Each case here builds one float32 variable with
that constraint, applies a fixed sequence of gradients with a Keras SGD optimizer (plain, and with
momentum: Keras' update `m = momentum*m - lr*g; var += m` is the trainer's, bit for bit), and
records the variable after every step. qscope's `tests/trainer/weight_clip.rs` replays the same
gradients through `qscope_nn`'s optimizer and clip and compares every value bit for bit.

Output (next to this script): weight_clip.txt. Line format:

    # comment lines
    case <name>
    clip <c>
    lr <lr>
    momentum <m>
    w0 <v1> <v2> ...             the variable's starting values
    g <v1> <v2> ...              one line per step: that step's gradient
    w <v1> <v2> ...              one line per step: the variable after the step (and the clip)
    end

Numbers are float32 in numpy's shortest round-trip text (`nan`, `inf`, `-inf`).

How to run (versions used for the committed file):

    python3 -m venv .venv/tf && .venv/tf/bin/pip install tensorflow-cpu==2.15.1 larq==0.14.0 numpy==1.26.4
    .venv/tf/bin/python tests/conformance/training/weight_clip.py
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf
import larq

tf.config.threading.set_inter_op_parallelism_threads(1)
tf.config.threading.set_intra_op_parallelism_threads(1)


def f32(v):
    return str(np.float32(v))


def line(name, values):
    return name + " " + " ".join(f32(v) for v in values)


def case(name, clip, lr, momentum, w0, grads):
    var = tf.Variable(np.array(w0, dtype=np.float32), constraint=larq.constraints.WeightClip(clip))
    opt = tf.keras.optimizers.SGD(learning_rate=lr, momentum=momentum)
    out = [f"case {name}", f"clip {f32(clip)}", f"lr {f32(lr)}", f"momentum {f32(momentum)}", line("w0", w0)]
    for g in grads:
        opt.apply_gradients([(tf.constant(np.array(g, dtype=np.float32)), var)])
        out.append(line("g", g))
        out.append(line("w", var.numpy()))
    out.append("end")
    return out


def main():
    rng = np.random.default_rng(20261207)
    lines = [
        "# qscope trainer weight_clip reference vectors: Keras SGD + larq.constraints.WeightClip",
        f"# tensorflow {tf.__version__}, larq {larq.__version__}, numpy {np.__version__}",
    ]
    # Weights near the bounds, gradients that push some across them and back; exact ties at ±c.
    w0 = np.array([0.9, -0.9, 0.0, 1.0, -1.0, 0.5, -0.25, 0.999], dtype=np.float32)
    pushes = [
        np.array([-2.0, 2.0, 0.5, -1.0, 1.0, 0.0, 3.0, -0.1], dtype=np.float32),
        np.array([1.0, -1.0, -0.5, 2.0, -2.0, -30.0, -3.0, 0.2], dtype=np.float32),
        np.array([-5.0, 5.0, 0.25, 0.0, 0.0, 30.0, 0.5, -0.3], dtype=np.float32),
    ]
    lines += case("sgd_clip1", 1.0, 0.1, 0.0, w0, pushes)
    lines += case("momentum_clip1", 1.0, 0.1, 0.9, w0, pushes)
    # A smaller clip, random weights and gradients over several steps.
    w0 = rng.normal(0.0, 0.6, 32).astype(np.float32)
    grads = [rng.normal(0.0, 2.0, 32).astype(np.float32) for _ in range(6)]
    lines += case("momentum_clip0.5", 0.5, 0.05, 0.5, w0, grads)
    # NaN and infinities in a gradient: what clip_by_value makes of them, and a finite step after
    # (Keras' SGD keeps its velocity even at momentum 0, so 0 · ∞ leaves a NaN behind).
    w0 = np.array([0.5, 0.5, 0.5, 0.5], dtype=np.float32)
    grads = [np.array([np.nan, np.inf, -np.inf, 1.0], dtype=np.float32), np.ones(4, dtype=np.float32)]
    lines += case("nonfinite", 1.0, 0.1, 0.0, w0, grads)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weight_clip.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
