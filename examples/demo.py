"""Train an MLP on three interleaved spirals with mscustom, and check it generalizes.

    .venv/bin/python examples/demo.py            # the full run (a few thousand points)
    .venv/bin/python examples/demo.py --quick    # a smaller, faster run

The model is built from swappable parts (``Parts``): the activation, a fused
"dense + relu" layer and the loss. ``build_model(kind)`` assembles the parts
registered under ``kind`` in ``KINDS``: "custom" (the default) plugs in
``ops.Custom`` kernels of all three kinds from ``custom_layers.py`` (a Numba
jit SiLU, the C bias-add + ReLU kernel, a NumPy loss), "builtin" uses the
built-in ops; the training loop is the same. Training uses ``ms.value_and_grad`` over the optimizer's parameters and
Adam on shuffled mini-batches, with a cosine learning-rate decay.

The script exits with status 1 when the test accuracy is below the target
(95% by default), so ``make demo`` doubles as an end-to-end check. With
custom parts it ends with the table of the custom ops it ran: kind, kernel
chosen, calls and total time.
"""

import argparse
import math
import os
import sys
import time
from dataclasses import dataclass, replace

import numpy as np

try:
    import mscustom as ms
except ImportError:                     # run from a checkout without an installed package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import mscustom as ms
from mscustom import nn, ops
from mscustom.datasets import minibatches, spirals, train_test_split

Tensor = ms.Tensor


# ================================================================== configuration
@dataclass(frozen=True)
class Config:
    """Everything a run depends on; ``--quick`` and the tests use smaller ones."""

    n_per_class: int = 1000             # points per spiral arm (3 arms)
    noise: float = 0.03                 # Gaussian noise on each coordinate (arms are 1/3 apart)
    test_fraction: float = 0.2
    hidden: int = 64
    epochs: int = 60
    batch_size: int = 64
    learning_rate: float = 0.01
    final_lr_fraction: float = 0.05     # cosine decay down to this fraction of the rate
    seed: int = 0
    target: float = 0.95                # required test accuracy


FULL = Config()
QUICK = replace(FULL, n_per_class=400, epochs=40)


# ================================================================== swappable model parts
@dataclass(frozen=True)
class Parts:
    """Factories for the pieces a kernel kind may replace.

    ``activation()`` -> Cell; ``dense_relu(in_channels, out_channels)`` -> Cell
    computing ``relu(x @ W.T + b)``; ``loss()`` -> Cell taking (logits, int labels)
    and returning the mean cross entropy.
    """

    activation: object
    dense_relu: object
    loss: object


def builtin_parts():
    """Parts made of built-in layers and ops."""
    return Parts(
        activation=nn.ReLU,
        dense_relu=lambda n_in, n_out: nn.Dense(n_in, n_out, weight_init="he_uniform", bias_init="zeros",
                                                activation="relu"),
        loss=lambda: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))


def custom_parts():
    """Parts made of ``ops.Custom`` kernels: jit activation, aot dense+relu, pyfunc loss."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import custom_layers
    return Parts(activation=custom_layers.SiLU, dense_relu=custom_layers.DenseBiasReLU,
                 loss=custom_layers.SparseSoftmaxCrossEntropy)


KINDS = {"custom": custom_parts, "builtin": builtin_parts}


class SpiralNet(nn.Cell):
    """2 -> hidden -> hidden -> classes: a fused dense+relu, a dense with a separate activation, a head."""

    def __init__(self, parts, hidden=64, n_classes=3):
        super().__init__()
        self.layer1 = parts.dense_relu(2, hidden)
        self.dense2 = nn.Dense(hidden, hidden, weight_init="he_uniform", bias_init="zeros")
        self.act2 = parts.activation()
        self.head = nn.Dense(hidden, n_classes, weight_init="xavier_uniform", bias_init="zeros")

    def construct(self, x):
        return self.head(self.act2(self.dense2(self.layer1(x))))


def build_model(kind="custom", hidden=64, n_classes=3):
    """Return ``(network, loss_fn)`` built from the parts of ``kind`` (a key of ``KINDS``).

    Example::

        net, loss_fn = build_model("builtin")
    """
    if kind not in KINDS:
        raise ValueError(f"build_model: unknown kind {kind!r}; expected one of {sorted(KINDS)}")
    parts = KINDS[kind]()
    return SpiralNet(parts, hidden, n_classes), parts.loss()


# ================================================================== data, training, evaluation
def make_data(cfg):
    """The train and test splits of the spirals for ``cfg``."""
    x, y = spirals(cfg.n_per_class, n_classes=3, noise=cfg.noise, seed=cfg.seed)
    return train_test_split(x, y, test_fraction=cfg.test_fraction, seed=cfg.seed)


def accuracy(net, x, y):
    """Fraction of ``x`` that ``net`` classifies as ``y`` (in inference mode)."""
    net.set_train(False)
    logits = net(Tensor(x)).asnumpy()
    return float(np.mean(logits.argmax(axis=1) == y))


def train(net, loss_fn, train_set, test_set, cfg, progress=True):
    """Train ``net`` with Adam on mini-batches; return a dict of results.

    The bar shows the running loss and accuracy of the epoch's batches and the
    test accuracy after each epoch.
    """
    from tqdm import tqdm

    x_train, y_train = train_set
    opt = nn.Adam(net.trainable_params(), learning_rate=cfg.learning_rate)

    def forward(x, y):
        logits = net(x)
        return loss_fn(logits, y), logits

    step = ms.value_and_grad(forward, None, weights=opt.parameters, has_aux=True)
    rng = np.random.default_rng(cfg.seed)
    start = time.perf_counter()
    bar = tqdm(range(cfg.epochs), desc="train", unit="epoch", disable=not progress, leave=True)
    test_acc = 0.0
    for epoch in bar:
        progress_frac = epoch / max(cfg.epochs - 1, 1)
        cosine = 0.5 * (1 + math.cos(math.pi * progress_frac))
        opt.learning_rate = cfg.learning_rate * (cfg.final_lr_fraction + (1 - cfg.final_lr_fraction) * cosine)
        net.set_train(True)
        loss_sum, correct, seen = 0.0, 0, 0
        for xb, yb in minibatches(x_train, y_train, cfg.batch_size, rng):
            (loss, logits), grads = step(Tensor._wrap(xb), Tensor._wrap(yb))
            opt(grads)
            loss_sum += float(loss.asnumpy()) * len(yb)
            correct += int(np.sum(logits.asnumpy().argmax(axis=1) == yb))
            seen += len(yb)
        test_acc = accuracy(net, *test_set)
        bar.set_postfix(loss=f"{loss_sum / seen:.4f}", acc=f"{correct / seen:.3f}", test_acc=f"{test_acc:.3f}",
                        refresh=False)
    seconds = time.perf_counter() - start
    return {"epochs": cfg.epochs, "seconds": seconds, "train_loss": loss_sum / seen,
            "train_accuracy": accuracy(net, x_train, y_train), "test_accuracy": test_acc}


def run(cfg, kind="custom", progress=True):
    """Build the data and the model of ``kind``, train, and return the results dict."""
    ms.set_seed(cfg.seed)
    train_set, test_set = make_data(cfg)
    net, loss_fn = build_model(kind, cfg.hidden, n_classes=3)
    with ops.custom_op_usage() as usage:
        result = train(net, loss_fn, train_set, test_set, cfg, progress)
    used = usage.report()
    result.update(kind=kind, n_train=len(train_set[0]), n_test=len(test_set[0]),
                  custom_ops=usage.report(format="text") if used else "")
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smaller data set and fewer epochs")
    parser.add_argument("--kind", default="custom", choices=sorted(KINDS), help="which model parts to use")
    parser.add_argument("--epochs", type=int, help="override the number of epochs")
    parser.add_argument("--seed", type=int, help="override the seed")
    parser.add_argument("--target", type=float, help="required test accuracy (default 0.95)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    overrides = {k: v for k, v in (("epochs", args.epochs), ("seed", args.seed), ("target", args.target))
                 if v is not None}
    cfg = replace(cfg, **overrides)

    r = run(cfg, args.kind, progress=not args.no_progress)
    print(f"kind={r['kind']}  data: {r['n_train']} train / {r['n_test']} test points, 3 spirals")
    print(f"epochs={r['epochs']}  time={r['seconds']:.1f}s  final loss={r['train_loss']:.4f}")
    print(f"train accuracy={r['train_accuracy']:.4f}  test accuracy={r['test_accuracy']:.4f}  "
          f"(target {cfg.target:.2f})")
    if r["custom_ops"]:
        print("\ncustom ops used:")
        print(r["custom_ops"])
    if r["test_accuracy"] < cfg.target:
        print(f"FAILED: test accuracy {r['test_accuracy']:.4f} is below the target {cfg.target:.2f}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
