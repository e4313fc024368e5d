"""Train a LeNet-style network on scikit-learn's 8x8 handwritten digits with mscustom, in graph mode.

    .venv/bin/python examples/demo.py                 # the full run (make demo)
    .venv/bin/python examples/demo.py --quick         # 3 epochs (target 95%)
    .venv/bin/python examples/demo.py --kind builtin  # the same network from built-in ops only

The data are the 1,797 real 8x8 digit images that ship inside scikit-learn
(no download), split once into 80% training and 20% test images, stratified
by digit, and fed through an ``mscustom.dataset`` pipeline (shuffled
batches). The network is conv 3x3 -> BatchNorm -> SiLU -> max-pool, twice,
then a hidden dense layer with ReLU and a dense head. Its swappable parts
(``Parts``) come from ``custom_layers.py`` for ``--kind custom`` (the
default): the SiLU is a Numba kernel (``func_type="jit"``), the hidden
layer's bias-add + ReLU is the C kernel of ``aot_kernels/nn.c``
(``func_type="aot"``) and the loss is NumPy (``func_type="pyfunc"``), each
with its gradient kernel. ``--kind builtin`` computes the same function
with built-in ops.

Training goes through ``Model.train`` with ``LossMonitor``, a progress bar
when stdout is a terminal, and a callback recording the loss and accuracy
curves; it runs in ``GRAPH_MODE`` (``--mode pynative`` for eager). Then the
script checks the test accuracy (exit status 1 below the target, 97%),
saves a checkpoint and reloads it into a fresh network (the predictions must
match exactly), writes the curves as a PNG (matplotlib), times the same
training step in PYNATIVE_MODE and in GRAPH_MODE (fresh networks, same
batches; their losses must agree to float32 rounding), and ends with the
table of the custom kernels it ran.
"""

import argparse
import contextlib
import os
import statistics
import sys
import time
from dataclasses import dataclass, replace

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
try:
    import mscustom as ms
except ImportError:                     # run from a checkout without an installed package
    sys.path.insert(0, ROOT)
    import mscustom as ms
from mscustom import dataset as ds
from mscustom import nn, ops

if HERE not in sys.path:                 # the demo's own modules: custom_layers, training_curves
    sys.path.insert(0, HERE)
from training_curves import EpochCurves, plot_curves  # noqa: E402

Tensor = ms.Tensor
MODES = {"graph": ms.GRAPH_MODE, "pynative": ms.PYNATIVE_MODE}
MODE_NAMES = {ms.GRAPH_MODE: "GRAPH_MODE", ms.PYNATIVE_MODE: "PYNATIVE_MODE"}
# How far the losses of the same steps may differ between the modes (relative): graph replay may compute
# a product in another order than eager execution (transpose(matmul(a, b)) as matmul(b.T, a.T)), which
# rounds differently in the last bit; anything beyond float32 rounding is a failure.
MODES_RTOL = 1e-5
# Two lines per epoch: LossMonitor's (MindSpore's format) and EpochCurves' summary; what each loss is.
LOSS_LEGEND = ("per epoch: 'loss is' (LossMonitor) is the loss of the epoch's last training step; the next line "
               "has the mean training loss of the epoch's steps, then the accuracy and loss of the train and test "
               "images evaluated after the epoch")


# ================================================================== configuration
@dataclass(frozen=True)
class Config:
    """Everything a run depends on; ``--quick`` and the tests use smaller ones."""

    test_fraction: float = 0.2
    train_limit: int = 0                # use only the first N training images (0: all of them)
    channels: tuple = (16, 32)          # output channels of the two convolutions
    hidden: int = 64
    epochs: int = 10
    batch_size: int = 32
    learning_rate: float = 0.01         # Adam, cosine decay per epoch down to final_lr
    final_lr: float = 0.0005
    seed: int = 0
    target: float = 0.97                # required test accuracy
    timing_warmup: int = 5              # train steps run before timing, per mode
    timing_steps: int = 30              # train steps timed per mode
    blas_threads: int = 1               # BLAS threads during the run (0: leave NumPy's BLAS as it is)


FULL = Config()
QUICK = replace(FULL, epochs=3, target=0.95, timing_warmup=2, timing_steps=5)


# ================================================================== data
def load_digits_split(test_fraction=0.2, seed=0):
    """``(x_train, y_train), (x_test, y_test)`` from scikit-learn's digits, split once, stratified by digit.

    Images are float32 of shape (N, 1, 8, 8) scaled from 0..16 to [0, 1];
    labels are int32 digits 0..9.
    """
    try:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
    except ImportError as exc:
        raise ImportError("the digits demo needs scikit-learn: pip install 'mscustom[demo]' "
                          "(make demo installs it)") from exc
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"load_digits_split: test_fraction must be in (0, 1), got {test_fraction!r}")
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    y = digits.target.astype(np.int32)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=test_fraction, stratify=y,
                                                        random_state=seed)
    return (x_train, y_train), (x_test, y_test)


def make_datasets(train_set, test_set, batch_size, seed=0):
    """The training pipeline (shuffled each epoch, batched) and the test pipeline (in order, batched).

    Sets the pipeline's shuffle seed (``dataset.config.set_seed``) to ``seed``.
    """
    ds.config.set_seed(seed)
    train_ds = ds.NumpySlicesDataset(train_set, column_names=["image", "label"], shuffle=True)
    test_ds = ds.NumpySlicesDataset(test_set, column_names=["image", "label"], shuffle=False)
    return train_ds.batch(batch_size), test_ds.batch(256)


# ================================================================== swappable model parts
@dataclass(frozen=True)
class Parts:
    """Factories for the pieces a kernel kind may replace.

    ``activation()`` -> Cell computing SiLU; ``dense_relu(in_channels,
    out_channels)`` -> Cell computing ``relu(x @ W.T + b)`` with Parameters
    ``weight`` and ``bias``; ``loss()`` -> Cell taking (logits, int labels)
    and returning the mean cross entropy.
    """

    activation: object
    dense_relu: object
    loss: object


def builtin_parts():
    """Parts made of built-in layers and ops."""
    return Parts(
        activation=nn.SiLU,
        dense_relu=lambda n_in, n_out: nn.Dense(n_in, n_out, weight_init="he_uniform", bias_init="zeros",
                                                activation="relu"),
        loss=lambda: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))


def custom_parts():
    """Parts made of ``ops.Custom`` kernels: jit SiLU, aot bias-add + ReLU, pyfunc loss."""
    import custom_layers
    return Parts(activation=custom_layers.SiLU, dense_relu=custom_layers.DenseBiasReLU,
                 loss=custom_layers.SparseSoftmaxCrossEntropy)


KINDS = {"custom": custom_parts, "builtin": builtin_parts}


class LeNetDigits(nn.Cell):
    """(N, 1, 8, 8) -> (N, 10) logits: two conv/BN/SiLU/max-pool blocks, a dense+ReLU, a dense head."""

    def __init__(self, parts, channels=(16, 32), hidden=64, n_classes=10):
        super().__init__()
        c1, c2 = channels
        self.conv1 = nn.Conv2d(1, c1, 3, pad_mode="same", weight_init="he_uniform")
        self.bn1 = nn.BatchNorm2d(c1)
        self.act1 = parts.activation()
        self.pool1 = nn.MaxPool2d(kernel_size=2, stride=2)            # 8x8 -> 4x4
        self.conv2 = nn.Conv2d(c1, c2, 3, pad_mode="same", weight_init="he_uniform")
        self.bn2 = nn.BatchNorm2d(c2)
        self.act2 = parts.activation()
        self.pool2 = nn.MaxPool2d(kernel_size=2, stride=2)            # 4x4 -> 2x2
        self.flatten = nn.Flatten()
        self.fc1 = parts.dense_relu(c2 * 2 * 2, hidden)
        self.fc2 = nn.Dense(hidden, n_classes, weight_init="xavier_uniform", bias_init="zeros")

    def construct(self, x):
        x = self.pool1(self.act1(self.bn1(self.conv1(x))))
        x = self.pool2(self.act2(self.bn2(self.conv2(x))))
        return self.fc2(self.fc1(self.flatten(x)))


def build_model(kind="custom", cfg=FULL):
    """Return ``(network, loss_fn)`` built from the parts of ``kind`` (a key of ``KINDS``).

    Example::

        net, loss_fn = build_model("builtin")
    """
    if kind not in KINDS:
        raise ValueError(f"build_model: unknown kind {kind!r}; expected one of {sorted(KINDS)}")
    parts = KINDS[kind]()
    return LeNetDigits(parts, cfg.channels, cfg.hidden), parts.loss()


def make_optimizer(net, cfg, steps_per_epoch):
    """Adam with a per-epoch cosine decay from ``cfg.learning_rate`` towards ``cfg.final_lr``."""
    lr = nn.cosine_decay_lr(cfg.final_lr, cfg.learning_rate, cfg.epochs * steps_per_epoch, steps_per_epoch,
                            cfg.epochs)
    return nn.Adam(net.trainable_params(), learning_rate=lr)


# ================================================================== training and its checks
def train(cfg, kind, train_ds, test_ds, eval_train_ds):
    """Build a network of ``kind`` and train it with ``Model.train``; return ``(model, net, curves, seconds)``.

    ``LossMonitor`` prints the last step's loss of each epoch ("loss is");
    ``EpochCurves`` records the curves, the mean loss of the epoch's steps and
    the training and test sets evaluated after each epoch, and prints them
    (``LOSS_LEGEND``, printed first, says which is which).
    """
    ms.set_seed(cfg.seed)
    net, loss_fn = build_model(kind, cfg)
    steps = train_ds.get_dataset_size()
    model = ms.Model(net, loss_fn, make_optimizer(net, cfg, steps), metrics={"accuracy", "loss"})
    curves = EpochCurves({"train": lambda: model.eval(eval_train_ds), "test": lambda: model.eval(test_ds)},
                         verbose=True)
    print(LOSS_LEGEND, flush=True)
    start = time.perf_counter()
    model.train(cfg.epochs, train_ds, callbacks=[ms.LossMonitor(per_print_times=steps), curves])
    return model, net, curves, time.perf_counter() - start


def checkpoint_round_trip(net, kind, cfg, images, path):
    """Save ``net``, load the file into a freshly built network, and return both networks' logits on ``images``.

    The fresh network is initialized from another seed, so matching logits
    come from the checkpoint, not from a repeated initialization.
    """
    ms.save_checkpoint(net, path)
    ms.set_seed(cfg.seed + 1)
    fresh, _ = build_model(kind, cfg)
    param_not_load, _ = ms.load_param_into_net(fresh, ms.load_checkpoint(path))
    if param_not_load:
        raise RuntimeError(f"checkpoint {path}: parameters {param_not_load} were not loaded into the fresh network")
    x = Tensor(images)
    return ms.Model(net).predict(x).asnumpy(), ms.Model(fresh).predict(x).asnumpy()


@contextlib.contextmanager
def in_mode(mode):
    """``with in_mode(ms.GRAPH_MODE):`` sets the execution mode for a block and restores the previous one."""
    previous = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        yield
    finally:
        ms.set_context(mode=previous)


class ModeStepper:
    """``Model.train_network`` (one TrainOneStepCell step) of a fresh network, always run in one ``mode``.

    The network is built from ``cfg.seed``, so steppers of two modes start
    from the same weights. ``run(batches)`` switches to the mode for the
    steps and back afterwards, recording each step's loss and wall time.
    """

    def __init__(self, mode, kind, cfg, steps_per_epoch):
        self.mode, self.losses, self.times = mode, [], []
        with in_mode(mode):
            ms.set_seed(cfg.seed)
            net, loss_fn = build_model(kind, cfg)
            self.step = ms.Model(net, loss_fn, make_optimizer(net, cfg, steps_per_epoch)).train_network
            self.step.set_train(True)

    def run(self, batches):
        with in_mode(self.mode):
            for x, y in batches:
                t0 = time.perf_counter()
                loss = float(self.step(x, y).asnumpy())
                self.times.append(time.perf_counter() - t0)
                self.losses.append(loss)


def compare_modes(kind, cfg, train_set, steps_per_epoch, block=5):
    """Time the same training steps eager and in graph mode; a dict of both medians and the loss agreement.

    Both modes run the same random batches from fresh, equal networks, in
    alternating blocks of ``block`` steps (so a change in the machine's load
    hits both); the first ``cfg.timing_warmup`` steps of each are not timed.
    """
    x, y = train_set
    n = cfg.timing_warmup + cfg.timing_steps
    rng = np.random.default_rng(cfg.seed)
    batches = []
    for _ in range(n):
        idx = rng.choice(len(x), cfg.batch_size, replace=False)
        batches.append((Tensor(x[idx]), Tensor(y[idx])))
    eager, graph = (ModeStepper(mode, kind, cfg, steps_per_epoch) for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE))
    for start in range(0, n, block):
        for stepper in (eager, graph):
            stepper.run(batches[start:start + block])
    a, b = np.array(eager.losses), np.array(graph.losses)
    diff = float(np.max(np.abs(a - b) / np.maximum(np.abs(a), 1e-12)))
    return {"eager": statistics.median(eager.times[cfg.timing_warmup:]),
            "graph": statistics.median(graph.times[cfg.timing_warmup:]), "steps": cfg.timing_steps,
            "warmup": cfg.timing_warmup, "identical": bool(np.array_equal(a, b)), "max_rel_diff": diff}


def blas_threads(n):
    """A context limiting NumPy's BLAS to ``n`` threads (``n`` 0: no limit).

    Every matrix product here is small (at most 2048 x 144 by 144 x 32), so
    one thread loses nothing; but on a machine whose cores are busy with
    other processes, threaded OpenBLAS waits at every barrier: measured here
    under a load of 5 on 2 cores, 56-79 ms per training step with NumPy's
    default threads against 11-16 ms with one.
    """
    if not n:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits
    return threadpool_limits(limits=n, user_api="blas")


def run(cfg, kind="custom", mode=ms.GRAPH_MODE, out_dir=None):
    """The whole job: data, training in ``mode``, test accuracy, checkpoint round trip, curves, step timing.

    Returns a dict of results; writes the checkpoint and the PNG into ``out_dir``
    (default ``build/demo`` in the project root).
    """
    with blas_threads(cfg.blas_threads):
        return _run(cfg, kind, mode, out_dir)


def _run(cfg, kind, mode, out_dir):
    out_dir = out_dir or os.path.join(ROOT, "build", "demo")
    started = time.perf_counter()
    train_set, test_set = load_digits_split(cfg.test_fraction, cfg.seed)
    if cfg.train_limit:
        train_set = (train_set[0][:cfg.train_limit], train_set[1][:cfg.train_limit])
    train_ds, test_ds = make_datasets(train_set, test_set, cfg.batch_size, cfg.seed)
    eval_train_ds = ds.NumpySlicesDataset(train_set, column_names=["image", "label"], shuffle=False).batch(256)
    with in_mode(mode), ops.custom_op_usage() as usage:
        model, net, curves, seconds = train(cfg, kind, train_ds, test_ds, eval_train_ds)
        test_accuracy = model.eval(test_ds)["accuracy"]
        ckpt = os.path.join(out_dir, f"lenet_digits_{kind}.ckpt")
        before, after = checkpoint_round_trip(net, kind, cfg, test_set[0], ckpt)
    png = None
    try:
        png = plot_curves(curves.history, os.path.join(out_dir, f"curves_{kind}.png"),
                          title=f"LeNet on 8x8 digits ({kind} kernels, {MODE_NAMES[mode]})", target=cfg.target)
    except ImportError as exc:
        print(f"note: no curves written: {exc}", file=sys.stderr)
    timing = compare_modes(kind, cfg, train_set, train_ds.get_dataset_size())
    used = usage.report()
    return {"kind": kind, "mode": MODE_NAMES[mode], "n_train": len(train_set[0]), "n_test": len(test_set[0]),
            "epochs": cfg.epochs, "train_seconds": seconds, "history": curves.history,
            "test_accuracy": test_accuracy, "checkpoint": ckpt, "predictions": before,
            "reloaded_predictions": after, "predictions_match": bool(np.array_equal(before, after)),
            "curves_png": png, "timing": timing, "custom_ops": usage.report(format="text") if used else "",
            "total_seconds": time.perf_counter() - started}


# ================================================================== command line
def report(r, cfg):
    """Print the results of ``run``; return the exit status (1 when a check failed)."""
    t = r["timing"]
    print(f"\ndata: {r['n_train']} train / {r['n_test']} test images (8x8 digits from scikit-learn), "
          f"kind={r['kind']}, mode={r['mode']}")
    print(f"trained {r['epochs']} epochs in {r['train_seconds']:.1f}s; "
          f"test accuracy={r['test_accuracy']:.4f} (target {cfg.target:.2f})")
    print(f"checkpoint {r['checkpoint']} reloaded into a fresh network: predictions on the "
          f"{len(r['predictions'])} test images {'match exactly' if r['predictions_match'] else 'DIFFER'}")
    if r["curves_png"]:
        print(f"loss and accuracy curves: {r['curves_png']}")
    agree = "identical" if t["identical"] else f"max relative difference {t['max_rel_diff']:.1e}"
    print(f"train step (batch {cfg.batch_size}, median of {t['steps']} after {t['warmup']} warm-up): "
          f"PYNATIVE_MODE {t['eager'] * 1e3:.2f} ms, GRAPH_MODE {t['graph'] * 1e3:.2f} ms, "
          f"eager/graph {t['eager'] / t['graph']:.2f}x; losses in both modes: {agree}")
    if r["custom_ops"]:
        print("\ncustom ops used:")
        print(r["custom_ops"])
        if r["mode"] == "GRAPH_MODE":
            print("(graph mode counts the calls it replays but does not time them: the times are those of "
                  "the calls run eagerly)")
    print(f"\ntotal time {r['total_seconds']:.1f}s")
    failures = []
    if r["test_accuracy"] < cfg.target:
        failures.append(f"test accuracy {r['test_accuracy']:.4f} is below the target {cfg.target:.2f}")
    if not r["predictions_match"]:
        failures.append("the reloaded network's predictions differ from the trained network's")
    if t["max_rel_diff"] > MODES_RTOL:
        failures.append(f"the losses of GRAPH_MODE and PYNATIVE_MODE differ (max relative difference "
                        f"{t['max_rel_diff']:.1e})")
    for failure in failures:
        print(f"FAILED: {failure}", file=sys.stderr)
    return 1 if failures else 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 epochs, fewer timed steps, target 0.95")
    parser.add_argument("--kind", default="custom", choices=sorted(KINDS), help="which model parts to use")
    parser.add_argument("--mode", default="graph", choices=sorted(MODES), help="execution mode for training")
    parser.add_argument("--epochs", type=int, help="override the number of epochs")
    parser.add_argument("--seed", type=int, help="override the seed")
    parser.add_argument("--target", type=float, help="required test accuracy (default 0.97)")
    parser.add_argument("--out", help="folder for the checkpoint and the PNG (default build/demo)")
    parser.add_argument("--ranks", type=int, help="train data-parallel on N ranks instead "
                        "(examples/data_parallel.py through python -m mscustom.run)")
    args = parser.parse_args(argv)
    if args.ranks:
        return _data_parallel(args)
    cfg = QUICK if args.quick else FULL
    overrides = {k: v for k, v in (("epochs", args.epochs), ("seed", args.seed), ("target", args.target))
                 if v is not None}
    cfg = replace(cfg, **overrides)
    try:
        import sklearn  # noqa: F401       (the data come from it; loaded anyway)
    except ImportError:
        print("demo: the digits come from scikit-learn, which is not installed: pip install 'mscustom[demo]' "
              "(make demo installs it)", file=sys.stderr)
        return 2
    return report(run(cfg, args.kind, MODES[args.mode], args.out), cfg)


def _data_parallel(args):
    """``--ranks N``: the data-parallel example on N ranks, with this run's --quick/--kind/--mode/--epochs."""
    import subprocess
    cmd = [sys.executable, "-m", "mscustom.run", "-n", str(args.ranks), os.path.join(HERE, "data_parallel.py"),
           "--kind", args.kind, "--mode", args.mode]
    cmd += ["--quick"] if args.quick else []
    cmd += ["--epochs", str(args.epochs)] if args.epochs else []
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
