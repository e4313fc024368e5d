"""Gluon's ``hybridize()`` (graph-mode records of forward and backward) against the same blocks run op by op.

Two networks, each trained with ``autograd.record()`` / ``backward()`` / ``Trainer.step`` (SGD, batch
32 for the MLP, 16 for the CNN) and asked for an inference forward: an MLP of Dense 64-relu, 64-relu,
10, and a small CNN (Conv2D 8 3x3 relu, BatchNorm, MaxPool2D, Flatten, Dense 32 relu, Dense 10). Each
figure is the hybridized time and its ratio against the same blocks not hybridized, measured in the
same run, interleaved, with BLAS limited to one thread.

Imported by ``bench/run.py`` (``--only gluon``); runnable alone too.
"""


import numpy as np
from threadpoolctl import threadpool_limits

from mscustom.compat import mxnet as mx
from mscustom.compat.mxnet import autograd, gluon, nd
from timing import median_ms


def _net(kind, hybrid):
    mx.random.seed(0)
    net = gluon.nn.HybridSequential()
    rng = np.random.RandomState(0)
    if kind == "mlp":
        net.add(gluon.nn.Dense(64, activation="relu"), gluon.nn.Dense(64, activation="relu"), gluon.nn.Dense(10))
        x = nd.array(rng.normal(size=(32, 20)))
    else:
        net.add(gluon.nn.Conv2D(8, 3, padding=1, activation="relu"), gluon.nn.BatchNorm(), gluon.nn.MaxPool2D(),
                gluon.nn.Flatten(), gluon.nn.Dense(32, activation="relu"), gluon.nn.Dense(10))
        x = nd.array(rng.normal(size=(16, 1, 8, 8)))
    y = nd.array(np.arange(x.shape[0]) % 10)
    net.initialize(mx.init.Xavier())
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.05})

    def step():
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(x.shape[0])

    step()                              # completes the deferred shapes
    if hybrid:
        net.hybridize()
    return net, x, step


def bench_gluon(report):
    nets = {(kind, hybrid): _net(kind, hybrid) for kind in ("mlp", "cnn") for hybrid in (False, True)}
    times = {}
    with threadpool_limits(1):
        for _ in range(3):              # interleaved, so drifts of the shared machine hit both
            for kind, steps in (("mlp", 100), ("cnn", 40)):
                for hybrid in (False, True):
                    net, x, step = nets[kind, hybrid]
                    times.setdefault(("train", kind, hybrid), []).append(median_ms(step, steps))
                    times.setdefault(("infer", kind, hybrid), []).append(median_ms(lambda: net(x), steps * 3))
    t = {k: min(v) for k, v in times.items()}
    for what, label in (("train", "fwd+bwd+step"), ("infer", "inference forward")):
        for kind, batch in (("mlp", 32), ("cnn", 16)):
            h, e = t[what, kind, True], t[what, kind, False]
            report(f"Gluon {kind.upper()} {label} (batch {batch}), hybridized", h * 1e3, "us",
                   "same blocks, not hybridized", e * 1e3, "<= 0.9x", h <= 0.9 * e)
    for kind in ("mlp", "cnn"):
        cached = nets[kind, True][0]._cached
        if cached is None or cached.disabled is not None or cached.stats["backward"]["replayed"] == 0:
            raise RuntimeError(f"bench_gluon: the hybridized {kind} did not replay its backward: "
                               f"{None if cached is None else (cached.disabled, cached.stats)}")


if __name__ == "__main__":
    def _print(name, value, unit, base_name, base, target, ok):
        print(f"{name:<52} {value:>9.3g} {unit:<3} | {base_name:<28} {base:>9.3g} | {target} "
              f"{'ok' if ok else 'MISSED'} ({value / base:.2f}x)")
    bench_gluon(_print)
