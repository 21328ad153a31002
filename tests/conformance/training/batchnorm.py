#!/usr/bin/env python3
"""Reference vectors for the trainer's batch normalization from the real Keras layer.

qscope's `qscope_nn::batchnorm::BatchNorm` is Keras' `BatchNormalization()` on a rank-2 input
(`batch × units`): momentum 0.99, epsilon 1e-3, statistics per unit over the batch. Each case
builds the Keras layer, sets γ, β and the moving statistics, and records:

- training mode (`layer(z, training=True)` under `tf.GradientTape`): the output `y`, the
  gradients of `L = Σ c·y` (a fixed upstream gradient `c`) with respect to `z`, γ and β — Keras
  differentiates through the batch mean and variance — and the moving mean and variance after
  the call;
- evaluation mode (`layer(z2, training=False)`): the output on another batch, from the moving
  statistics just updated.

`tests/trainer/batchnorm.rs` replays each case through `BatchNorm::forward`/`backward`. TF sums
its reductions in its own order, so the comparison allows a few float32 ulps, not bits.

Output (next to this script): batchnorm.txt. Line format:

    # comment lines
    case <name>
    shape <rows> <units>
    z <v...>          the training batch, row-major
    gamma <v...>      γ, β, moving mean and variance before the call
    beta <v...>
    mean <v...>
    var <v...>
    c <v...>          the upstream gradient ∂L/∂y
    y <v...>          Keras' training-mode output
    dz <v...>         ∂L/∂z, ∂L/∂γ, ∂L/∂β
    dgamma <v...>
    dbeta <v...>
    moving_mean <v...>  after the call
    moving_var <v...>
    z2 <v...>         the evaluation batch and Keras' output on it
    y2 <v...>
    end

Numbers are float32 in numpy's shortest round-trip text.

How to run (versions used for the committed file):

    python3 -m venv .venv/tf && .venv/tf/bin/pip install tensorflow-cpu==2.15.1 larq==0.14.0 numpy==1.26.4
    .venv/tf/bin/python tests/conformance/training/batchnorm.py
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np
import tensorflow as tf

tf.config.threading.set_inter_op_parallelism_threads(1)
tf.config.threading.set_intra_op_parallelism_threads(1)


def f32(v):
    return str(np.float32(v))


def line(name, values):
    return name + " " + " ".join(f32(v) for v in np.asarray(values).reshape(-1))


def case(name, rows, units, seed, loc=0.0, spread=1.0, fresh=True):
    rng = np.random.default_rng(seed)
    r = lambda *shape: rng.standard_normal(shape).astype(np.float32)
    z = (r(rows, units) * spread + loc).astype(np.float32)
    if fresh:
        gamma, beta = np.ones(units, np.float32), np.zeros(units, np.float32)
        mean, var = np.zeros(units, np.float32), np.ones(units, np.float32)
    else:
        gamma, beta = (1 + 0.5 * r(units)).astype(np.float32), (0.3 * r(units)).astype(np.float32)
        mean, var = r(units), (0.5 + rng.random(units)).astype(np.float32)
    c = r(rows, units)
    z2 = (r(3, units) * spread + loc).astype(np.float32)
    layer = tf.keras.layers.BatchNormalization()
    layer.build((None, units))
    layer.set_weights([gamma, beta, mean, var])
    zt = tf.constant(z)
    with tf.GradientTape() as tape:
        tape.watch(zt)
        y = layer(zt, training=True)
        loss = tf.reduce_sum(y * tf.constant(c))
    dz, dgamma, dbeta = tape.gradient(loss, [zt, layer.gamma, layer.beta])
    y2 = layer(tf.constant(z2), training=False)
    return [
        f"case {name}",
        f"shape {rows} {units}",
        line("z", z),
        line("gamma", gamma),
        line("beta", beta),
        line("mean", mean),
        line("var", var),
        line("c", c),
        line("y", y.numpy()),
        line("dz", dz.numpy()),
        line("dgamma", dgamma.numpy()),
        line("dbeta", dbeta.numpy()),
        line("moving_mean", layer.moving_mean.numpy()),
        line("moving_var", layer.moving_variance.numpy()),
        line("z2", z2),
        line("y2", y2.numpy()),
        "end",
    ]


def main():
    lines = [
        "# qscope trainer batch normalization reference vectors: tf.keras.layers.BatchNormalization()",
        f"# tensorflow {tf.__version__}, numpy {np.__version__}",
    ]
    # Keras' starting point, a batch of the trainer's default size.
    lines += case("fresh", 10, 4, 20261208)
    # Trained parameters and statistics, a batch far from zero mean and unit variance.
    lines += case("trained", 32, 6, 20261209, loc=3.0, spread=5.0, fresh=False)
    # A batch of one: zero variance, so ε alone scales.
    lines += case("one_row", 1, 5, 20261210, fresh=False)
    # Tiny pre-activations (as a binary net's first steps can give): ε dominates the variance.
    lines += case("tiny", 16, 3, 20261211, spread=0.01, fresh=False)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "batchnorm.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
