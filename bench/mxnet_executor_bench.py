"""MXNet executors replayed by graph mode against the eager executor, on the seed custom-softmax MLP.

The program is ``examples/mxnet_custom_softmax.py`` (FullyConnected/relu MLP 64-128-64-10 ending in
a NumPy ``CustomOp`` softmax, SGD with momentum, batch 32). Each figure is a time with
``execution="replay"`` and the ratio against the same work with ``execution="eager"``, measured in
the same run, interleaved, with BLAS limited to one thread:

- ``Module.fit``, one epoch (metric, iterator and optimizer included);
- one ``forward(is_train=True)`` / ``backward()`` / ``update()`` step through the Module API;
- one ``forward(is_train=False)`` (``Module.predict``'s inner step).

Imported by ``bench/run.py`` (``--only mxexec``); runnable alone too.
"""

import importlib.util
import logging
import os

from threadpoolctl import threadpool_limits

from mscustom.compat import mxnet as mx
from timing import median_ms

_EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "mxnet_custom_softmax.py")
_QUIET = logging.getLogger("mxnet_executor_bench")
_QUIET.setLevel(logging.ERROR)


def _example():
    spec = importlib.util.spec_from_file_location("mxnet_custom_softmax_bench", _EXAMPLE)
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    return ex


def _module(ex, mode, x, y):
    os.environ["MSCUSTOM_MXNET_EXECUTION"] = mode
    try:
        mx.random.seed(0)
        mod = mx.mod.Module(ex.build_mlp(), data_names=["data"], label_names=["softmax_label"], logger=_QUIET)
        it = mx.io.NDArrayIter(x, y, 32, shuffle=True, label_name="softmax_label")
        mod.bind(it.provide_data, it.provide_label)
        mod.init_params(mx.init.Xavier())
        mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-4})
    finally:
        os.environ.pop("MSCUSTOM_MXNET_EXECUTION", None)
    return mod, it


def bench_mxexec(report):
    ex = _example()
    x, y, _, _, source = ex.load_data(seed=0)
    mods = {mode: _module(ex, mode, x, y) for mode in ("eager", "replay")}
    batch = next(iter(mods["eager"][1]))

    def fit(mode):
        mod, it = mods[mode]
        return lambda: mod.fit(it, optimizer="sgd", num_epoch=1, eval_metric="acc")

    def step(mode):
        mod = mods[mode][0]

        def run():
            mod.forward(batch, is_train=True)
            mod.backward()
            mod.update()
        return run

    def infer(mode):
        mod = mods[mode][0]
        return lambda: mod.forward(batch, is_train=False)

    with threadpool_limits(1):
        times = {}
        for _ in range(3):              # interleaved, so drifts of the shared machine hit both
            for what, make, steps in (("fit", fit, 1), ("step", step, 100), ("infer", infer, 300)):
                for mode in ("eager", "replay"):
                    times.setdefault((what, mode), []).append(median_ms(make(mode), steps))
    t = {k: min(v) for k, v in times.items()}
    stats = mods["replay"][0]._exec.stats
    n_batches = -(-len(x) // 32)
    report(f"MXNet Module.fit epoch ({n_batches} batches, {source}), replay", t["fit", "replay"], "ms",
           "same epoch, eager executor", t["fit", "eager"], "<= 0.7x eager",
           t["fit", "replay"] <= 0.7 * t["fit", "eager"])
    report("MXNet fwd+bwd+update step (batch 32), replay", t["step", "replay"] * 1e3, "us",
           "same step, eager executor", t["step", "eager"] * 1e3, "<= 0.7x eager",
           t["step", "replay"] <= 0.7 * t["step", "eager"])
    report("MXNet inference forward (batch 32), replay", t["infer", "replay"] * 1e3, "us",
           "same forward, eager executor", t["infer", "eager"] * 1e3, "<= 0.7x eager",
           t["infer", "replay"] <= 0.7 * t["infer", "eager"])
    if stats["replayed"] < 0.9 * sum(stats.values()):
        raise RuntimeError(f"bench_mxexec: the replay executor did not replay most steps: {stats}")


if __name__ == "__main__":
    def _print(name, value, unit, base_name, base, target, ok):
        print(f"{name:<52} {value:>9.3g} {unit:<3} | {base_name:<28} {base:>9.3g} | {target} "
              f"{'ok' if ok else 'MISSED'} ({value / base:.2f}x)")
    bench_mxexec(_print)
