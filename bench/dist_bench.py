"""Data parallel over MPI: the figures of docs/distributed.md, each a ratio against a baseline of the same run.

``python bench/dist_bench.py`` (the driver) starts this file under the venv's
``mpiexec`` on 1 and on 2 ranks, alternating, one BLAS/OpenMP thread per rank,
for the MLP 784-256-128-10 and the demo network (``examples/demo.py``'s
LeNetDigits, built-in parts), both trained in graph mode, and prints:

1. bucketed all-reduce of the model's gradients (``nn.DistributedGradReducer``,
   two ops per bucket, recorded once in graph mode and its record run as a
   training step's replay runs it, on gradients lying in their buckets, where a
   replayed step's backward writes them) / a bare mpi4py ``Allreduce`` of the
   same bytes (target <= 1.1); beside it the same with the mean's scaling done
   by the reducer, called as a graph function of its own, on gradients
   elsewhere (copied in), and called eagerly;
2. weak scaling: samples per second of 2 ranks, each with the single process's
   batch, / the single process's samples per second (target >= 1.8);
3. the data-parallel graph step / (the stand-alone graph step on the same rank,
   the other rank equally busy, + the bare all-reduce) (target <= 1.05).

Times are wall-clock (ranks wait for each other), the best of alternating
rounds, every rank starting each batch of steps together (a barrier).
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ one rank
def _model(name):
    import mscustom as ms
    from mscustom import nn
    if name == "mlp":
        net = nn.SequentialCell([nn.Dense(784, 256, activation="relu"), nn.Dense(256, 128, activation="relu"),
                                 nn.Dense(128, 10)])
        shape, batch = (784,), 64
    else:
        sys.path.insert(0, str(ROOT / "examples"))
        from demo import build_model
        net, _ = build_model("builtin")
        shape, batch = (1, 8, 8), 32
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((batch,) + shape).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 10, batch).astype(np.int32))
    return net, loss, x, y, batch


def _timed(fn, steps, barrier):
    barrier()
    t0 = time.perf_counter()
    for _ in range(steps):
        fn()
    barrier()
    return (time.perf_counter() - t0) / steps


def worker(name, rounds, steps):
    import mscustom as ms
    from mscustom import nn
    from mscustom.communication import get_group_size, get_rank, init
    from mscustom.communication import _engine
    init()
    size, rank = get_group_size(), get_rank()
    comm = _engine.STATE.world.comm
    barrier = comm.Barrier if comm is not None else (lambda: None)
    ms.set_context(mode=ms.GRAPH_MODE)
    out = {"model": name, "ranks": size}

    def make_step(parallel):
        ms.reset_auto_parallel_context()
        if parallel:
            ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
        net, loss, x, y, batch = _model(name)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9))
        return (lambda: step(x, y)), step, batch

    best = {}

    def keep(key, value):
        best[key] = min(best.get(key, float("inf")), value)

    if size == 1:
        run, _, batch = make_step(False)
        run()
        for _ in range(rounds):
            keep("step", _timed(run, steps, barrier))
        out["samples_per_s"] = batch / best["step"]
    else:
        dp_run, dp_step, batch = make_step(True)
        sa_run, sa_step, _ = make_step(False)
        reducer = dp_step.grad_reducer
        grads = tuple(ms.Tensor(p.asnumpy()) for p in dp_step.weights)
        flat = np.concatenate([g.asnumpy().ravel() for g in grads])
        mpi = _engine.STATE.MPI
        bare = lambda: comm.Allreduce(mpi.IN_PLACE, flat, op=mpi.SUM)
        sum_reducer = nn.DistributedGradReducer(dp_step.weights, mean=False)

        def in_buckets(red):                            # the gradients where a replayed step's backward
            red(grads)                                  # writes them: in their buckets (as they are after
            placed = [None] * len(grads)                # the first all-reduce, which may move them)
            for b in red.buckets:
                for i, view in zip(b.indices, b.views):
                    placed[i] = ms.Tensor._wrap(view)
                    view[...] = grads[i].asnumpy()
            return tuple(placed)

        def replay_of(red, args):                       # the reducer's record, run as a step's replay runs
            red(args); red(args)                        # its steps (no graph-call dispatch of its own)
            rec = next(r for v in red.__dict__["_graph_fn"].records.values() for r in v)
            arrays = [t._data for t in args]
            return lambda: rec.run(arrays)

        placed_sum, placed_mean = in_buckets(sum_reducer), in_buckets(reducer)
        ms.set_context(mode=ms.GRAPH_MODE)
        bucketed = replay_of(sum_reducer, placed_sum)   # the all-reduce: a sum
        bucketed_mean = replay_of(reducer, placed_mean)  # with gradients_mean's scaling, in the reducer
        bucketed_call = lambda: sum_reducer(placed_sum)  # called as a graph function of its own
        packed = lambda: reducer(grads)                 # gradients elsewhere: copied into the buckets
        world = _engine.STATE.world
        no_pack = lambda: [_engine.wait(_engine.iallreduce(b.buf, "sum", world, "bench"), "bench", world)
                           for b in reducer.buckets]    # the buckets' all-reduces alone, buffers packed
        ms.set_context(mode=ms.PYNATIVE_MODE)           # the reducer alone, called eagerly
        packed(); bare()
        ms.set_context(mode=ms.GRAPH_MODE)
        bucketed(); packed(); bucketed_call(); dp_run(); sa_run()
        for _ in range(rounds * 3):                     # short alternating rounds: the pair sees the same load
            keep("bare_allreduce", _timed(bare, steps * 2, barrier))
            keep("bucketed_allreduce", _timed(bucketed, steps * 2, barrier))
            keep("bucket_allreduce_only", _timed(no_pack, steps * 2, barrier))
            keep("bucketed_allreduce_mean", _timed(bucketed_mean, steps * 2, barrier))
            keep("bucketed_allreduce_call", _timed(bucketed_call, steps * 2, barrier))
            keep("bucketed_allreduce_packed", _timed(packed, steps * 2, barrier))
            ms.set_context(mode=ms.PYNATIVE_MODE)
            keep("bucketed_allreduce_eager", _timed(packed, steps * 2, barrier))
            ms.set_context(mode=ms.GRAPH_MODE)
        for _ in range(rounds):
            keep("dp_step", _timed(dp_run, steps, barrier))
            keep("standalone_step", _timed(sa_run, steps, barrier))
        out.update(best)
        out["buckets"] = len(reducer.buckets)
        out["grad_bytes"] = int(flat.nbytes)
        out["samples_per_s"] = size * batch / best["dp_step"]
    if rank == 0:
        print("RESULT " + json.dumps(out), flush=True)


# ------------------------------------------------------------------ driver
def _launch(n, name, rounds, steps):
    exe = Path(sys.executable).with_name("mpiexec")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               NUMBA_NUM_THREADS="1", PYTHONPATH=str(ROOT),
               MSCUSTOM_LOOPS="now")   # the steady state: no background load of the Numba loops while timing
    cmd = [str(exe), "-n", str(n), sys.executable, str(Path(__file__).resolve()), "--worker", name,
           "--rounds", str(rounds), "--steps", str(steps)]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    for line in res.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"dist_bench worker failed on {n} rank(s):\n{res.stdout}\n{res.stderr}")


def main(argv=None):
    p = argparse.ArgumentParser(description="data-parallel figures (ratios in one run)")
    p.add_argument("--worker", default=None)
    p.add_argument("--models", default="mlp,demo")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--repeat", type=int, default=2, help="alternating 1-rank / 2-rank launches")
    args = p.parse_args(argv)
    if args.worker:
        worker(args.worker, args.rounds, args.steps)
        return 0
    print(f"load average before: {os.getloadavg()[0]:.1f} (the machine's other work shares its cores)")
    for name in args.models.split(","):
        one, two = [], []
        for _ in range(args.repeat):
            one.append(_launch(1, name, args.rounds, args.steps))
            two.append(_launch(2, name, args.rounds, args.steps))

        def median_run(key):
            runs = sorted(two, key=key)
            return runs[len(runs) // 2]

        r = median_run(lambda r: r["bucketed_allreduce"] / r["bare_allreduce"])
        print(f"{name}: gradients {r['grad_bytes']} bytes in {r['buckets']} bucket(s); median of {args.repeat} "
              f"runs, each the best of {args.rounds} alternating rounds")
        print(f"  bucketed all-reduce (the reducer's two ops per bucket as a replayed step runs them, on the "
              f"gradients in their buckets, where a replayed step's backward writes them) / bare mpi4py Allreduce "
              f"of the same bytes: {r['bucketed_allreduce'] / r['bare_allreduce']:.2f}x "
              f"({r['bucketed_allreduce'] * 1e3:.3f} ms / {r['bare_allreduce'] * 1e3:.3f} ms; target <= 1.1)")
        r = median_run(lambda r: r["bucketed_allreduce_mean"] / r["bare_allreduce"])
        print(f"  the same with gradients_mean's scaling done by the reducer (a replayed step scales each gradient "
              f"as it is written): {r['bucketed_allreduce_mean'] / r['bare_allreduce']:.2f}x; the reducer called "
              f"as a graph function of its own: {r['bucketed_allreduce_call'] / r['bare_allreduce']:.2f}x; the "
              f"buckets' non-blocking all-reduces alone: {r['bucket_allreduce_only'] / r['bare_allreduce']:.2f}x")
        r = median_run(lambda r: r["bucketed_allreduce_packed"] / r["bare_allreduce"])
        print(f"  on gradients elsewhere, copied (and scaled) into the buckets: graph call "
              f"{r['bucketed_allreduce_packed'] / r['bare_allreduce']:.2f}x, called eagerly "
              f"{r['bucketed_allreduce_eager'] / r['bare_allreduce']:.2f}x")
        pairs = sorted(zip(one, two), key=lambda p: p[1]["samples_per_s"] / p[0]["samples_per_s"])
        o, t = pairs[len(pairs) // 2]
        alone = 2 * t["samples_per_s"] / t["ranks"] * t["dp_step"] / t["standalone_step"]
        print(f"  weak scaling, 2 ranks / 1 process, samples per second: "
              f"{t['samples_per_s'] / o['samples_per_s']:.2f}x ({t['samples_per_s']:.0f} / "
              f"{o['samples_per_s']:.0f}; target >= 1.8); the machine's ceiling, two stand-alone processes "
              f"side by side / 1 process: {alone / o['samples_per_s']:.2f}x")
        r = median_run(lambda r: r["dp_step"] / (r["standalone_step"] + r["bare_allreduce"]))
        print(f"  data-parallel graph step / (stand-alone graph step + bare all-reduce): "
              f"{r['dp_step'] / (r['standalone_step'] + r['bare_allreduce']):.3f}x ({r['dp_step'] * 1e3:.3f} ms / "
              f"({r['standalone_step'] * 1e3:.3f} + {r['bare_allreduce'] * 1e3:.3f}) ms; target <= 1.05)")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
