#!/usr/bin/env python3
"""Reference vectors for the trainer's `optimizer=bop` from the real Keras and Larq.

qscope's Bop is Larq's recipe for binary nets:

    larq.optimizers.CaseOptimizer(
        (larq.optimizers.Bop.is_binary_variable, larq.optimizers.Bop(threshold, gamma)),
        default_optimizer=tf.keras.optimizers.legacy.Adam(lr),
    )

Bop trains the variables whose `precision` is 1 (the kernels of QuantDense layers with a 1-bit
kernel quantizer, here `ste_sign`), Adam with Keras' defaults everything else (biases, a float
kernel). Each case builds a tiny Keras model with larq QuantDense layers as qscope's trainer
builds it (`z = x·q_w(W) + b`, a hidden activation `ste_sign(z)` — Larq's `input_quantizer` of
the next layer —, the output `z` scored as qscope's `mse`: the mean of `½(tanh z − t)²` over the
batch), sets fixed initial weights, takes a fixed sequence of batches with `tf.GradientTape` and
the CaseOptimizer, and records after every step each variable's gradient (as Keras computed
it), its value, and Bop's moving average `m` of each Bop variable. qscope's
`tests/trainer/bop.rs` replays the gradients through `qscope_nn`'s optimizer (Bop bit for bit)
and the batches through its trainer.

Output (next to this script): bop.txt. Line format:

    # comment lines
    case <name>
    threshold <τ>
    gamma <γ>
    lr <lr>
    widths <inputs> <hidden...> <outputs>
    binary <0|1 per layer>           whether the layer's kernel is a Bop variable
    init <layer> <w|b> <v1> ...      the starting kernel (row-major inputs × outputs) and bias
    step
    x <v1> ...                       the batch, row-major rows × inputs
    t <v1> ...                       its labels (±1)
    loss <l>                         the batch's loss before the step
    g <layer> <w|b> <v1> ...         Keras' gradient of each variable
    v <layer> <w|b> <v1> ...         each variable after the step
    m <layer> <v1> ...               Bop's m of each binary kernel after the step
    end

Numbers are float32 in numpy's shortest round-trip text.

How to run (versions used for the committed file):

    python3 -m venv .venv/tf && .venv/tf/bin/pip install tensorflow-cpu==2.15.1 larq==0.14.0 numpy==1.26.4
    .venv/tf/bin/python tests/conformance/training/bop.py
"""

import logging
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np
import tensorflow as tf
import larq

# Larq warns that a binary kernel without a WeightClip may starve: Bop keeps it at ±1.
logging.getLogger("larq").setLevel(logging.ERROR)
tf.config.threading.set_inter_op_parallelism_threads(1)
tf.config.threading.set_intra_op_parallelism_threads(1)


def f32(v):
    return str(np.float32(v))


def line(name, values):
    return name + " " + " ".join(f32(v) for v in np.asarray(values).reshape(-1))


def build(widths, binary):
    """QuantDense layers: ste_sign kernels where `binary`, ste_sign on every hidden output."""
    layers = [tf.keras.Input((widths[0],))]
    for i, n in enumerate(widths[1:]):
        layers.append(
            larq.layers.QuantDense(
                n,
                input_quantizer="ste_sign" if i > 0 else None,
                kernel_quantizer="ste_sign" if binary[i] else None,
                kernel_constraint=None,
            )
        )
    return tf.keras.Sequential(layers)


def case(name, threshold, gamma, lr, widths, binary, steps, batch, seed):
    rng = np.random.default_rng(seed)
    model = build(widths, binary)
    init = []
    for layer, (n_in, n_out) in zip(model.layers, zip(widths, widths[1:])):
        w = rng.normal(0.0, 0.5, (n_in, n_out)).astype(np.float32)
        b = rng.normal(0.0, 0.1, n_out).astype(np.float32)
        layer.set_weights([w, b])
        init.append((w, b))
    bop = larq.optimizers.Bop(threshold=threshold, gamma=gamma)
    opt = larq.optimizers.CaseOptimizer(
        (larq.optimizers.Bop.is_binary_variable, bop),
        default_optimizer=tf.keras.optimizers.legacy.Adam(lr),
    )
    variables = model.trainable_variables  # kernel, bias of each layer, in order
    claimed = [larq.optimizers.Bop.is_binary_variable(v) for v in variables]
    assert claimed == [c for b in binary for c in (bool(b), False)], claimed
    out = [
        f"case {name}",
        f"threshold {f32(threshold)}",
        f"gamma {f32(gamma)}",
        f"lr {f32(lr)}",
        "widths " + " ".join(str(w) for w in widths),
        "binary " + " ".join(str(int(b)) for b in binary),
    ]
    for i, (w, b) in enumerate(init):
        out += [line(f"init {i} w", w), line(f"init {i} b", b)]
    names = [(i, k) for i in range(len(binary)) for k in ("w", "b")]
    for _ in range(steps):
        x = rng.normal(0.0, 1.0, (batch, widths[0])).astype(np.float32)
        t = np.where(x[:, 0] * x[:, 1] >= 0, 1.0, -1.0).astype(np.float32)  # xor's labels
        with tf.GradientTape() as tape:
            z = model(tf.constant(x), training=True)
            loss = tf.reduce_mean(0.5 * tf.square(tf.tanh(z[:, 0]) - tf.constant(t)))
        grads = tape.gradient(loss, variables)
        opt.apply_gradients(zip(grads, variables))
        out += ["step", line("x", x), line("t", t), line("loss", [loss.numpy()])]
        out += [line(f"g {i} {k}", g.numpy()) for (i, k), g in zip(names, grads)]
        out += [line(f"v {i} {k}", v.numpy()) for (i, k), v in zip(names, variables)]
        for (i, k), v, c in zip(names, variables, claimed):
            if c:
                out.append(line(f"m {i}", bop.get_slot(v, "m").numpy()))
    out.append("end")
    return out


def main():
    lines = [
        "# qscope trainer Bop reference vectors: larq CaseOptimizer(Bop on binary kernels, Keras Adam)",
        f"# tensorflow {tf.__version__}, larq {larq.__version__}, numpy {np.__version__}",
    ]
    # Larq's defaults (τ 1e-8, γ 1e-4): nearly every weight whose gradient agrees with it flips.
    lines += case("defaults", 1e-8, 1e-4, 0.01, [2, 8, 8, 1], [1, 1, 0], 20, 4, 20261208)
    # A threshold that holds most weights until their gradients agree for a while.
    lines += case("threshold", 2e-4, 1e-2, 0.01, [2, 8, 8, 1], [1, 1, 0], 30, 8, 20261209)
    # Every kernel binary (the output layer's too): Adam trains the biases only.
    lines += case("all_binary", 1e-6, 1e-3, 0.05, [2, 6, 1], [1, 1], 20, 5, 20261210)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bop.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
