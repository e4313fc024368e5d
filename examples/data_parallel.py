"""The digits demo trained data-parallel: ``python -m mscustom.run -n 2 examples/data_parallel.py``.

Every rank builds the same network (the demo's LeNetDigits, same seed), reads its
shard of the training set (``num_shards=get_group_size(), shard_id=get_rank()``)
with the single process's batch size, and trains with ``Model.train`` in
DATA_PARALLEL mode: ``TrainOneStepCell`` all-reduces the gradients (mean) in
buckets during backward. Each rank prints its median step time; rank 0 prints the
combined throughput and the test accuracy (every rank holds the same
parameters). ``make demo ARGS="--ranks 2"`` runs it through the launcher.
"""

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import mscustom as ms  # noqa: E402
from mscustom import dataset as ds  # noqa: E402
from mscustom.communication import _engine, get_group_size, get_rank, init  # noqa: E402

from demo import FULL, QUICK, KINDS, MODES, build_model, load_digits_split, make_optimizer  # noqa: E402


class StepTimes(ms.Callback):
    """Wall time of every training step."""

    def __init__(self):
        self.times, self._t = [], None

    def on_train_step_begin(self, run_context):
        self._t = time.perf_counter()

    def on_train_step_end(self, run_context):
        self.times.append(time.perf_counter() - self._t)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="3 epochs (target 0.95)")
    p.add_argument("--epochs", type=int, default=None)
    p.add_argument("--kind", default="builtin", choices=sorted(KINDS))
    p.add_argument("--mode", default="graph", choices=sorted(MODES))
    args = p.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    epochs = args.epochs or cfg.epochs

    init()
    rank, size = get_rank(), get_group_size()
    ms.set_context(mode=MODES[args.mode])
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    ms.set_seed(cfg.seed)
    ds.config.set_seed(cfg.seed)

    (x_train, y_train), (x_test, y_test) = load_digits_split(cfg.test_fraction, cfg.seed)
    train_ds = ds.NumpySlicesDataset((x_train, y_train), column_names=["image", "label"], shuffle=True,
                                     num_shards=size, shard_id=rank).batch(cfg.batch_size)
    test_ds = ds.NumpySlicesDataset((x_test, y_test), column_names=["image", "label"], shuffle=False).batch(256)

    net, loss_fn = build_model(args.kind, cfg)
    steps = train_ds.get_dataset_size()
    model = ms.Model(net, loss_fn, make_optimizer(net, cfg, steps), metrics={"accuracy"})
    timer = StepTimes()
    start = time.perf_counter()
    model.train(epochs, train_ds, callbacks=[timer])
    seconds = time.perf_counter() - start

    step_ms = float(np.median(timer.times[steps:] or timer.times)) * 1e3      # the first epoch traces
    print(f"rank {rank} of {size}: {len(timer.times)} steps of {cfg.batch_size} samples, "
          f"median step {step_ms:.2f} ms", flush=True)
    world = _engine.STATE.world
    samples = _engine.allreduce(np.array([len(timer.times) * cfg.batch_size], np.float64), "sum", world)[0]
    slowest = _engine.allreduce(np.array([seconds]), "max", world)[0]
    accuracy = model.eval(test_ds)["accuracy"]
    if rank == 0:
        print(f"combined: {samples / slowest:.0f} samples/s over {size} rank(s) "
              f"({samples:.0f} samples in {slowest:.1f} s, tracing included); test accuracy {accuracy:.4f}",
              flush=True)
    _engine.barrier(world)          # no rank exits (a non-zero status stops every rank) before rank 0 printed
    return 0 if accuracy >= cfg.target else 1


if __name__ == "__main__":
    sys.exit(main())
