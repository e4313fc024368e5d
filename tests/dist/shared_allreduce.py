"""Run by tests/test_shared_allreduce.py under ``mpiexec -n 2`` (any number of ranks for ``values``): the shared-memory all-reduce of buckets.

argv[1]: ``values`` (sums equal the rank-order sum of every rank's values, bit for bit, on every rank,
through many rounds with random delays on either side), ``bucket`` (a reducer's bucket uses it on one
host, and MSCUSTOM_COMM_SHARED=0 turns it off) or ``hang`` (rank 1 stops between two steps: rank 0's
barrier is stopped by the timeout, naming the bucket).
"""

import os
import sys
import time

import numpy as np

import mscustom as ms
from mscustom import nn
from mscustom.communication import _engine, _shared, get_rank, init

what = sys.argv[1]
init()
rank = get_rank()
world = _engine.STATE.world
comm = world.comm


def every_ranks(a):
    out = np.empty((world.size,) + a.shape, a.dtype)
    comm.Allgather(a.view(np.uint8), out.view(np.uint8).reshape(world.size, -1))
    return out


if what == "values":
    assert _shared.usable(world)
    rng = np.random.default_rng(100 + rank)
    for dtype in (np.float32, np.float64, np.float16):
        for n in (1, 3, 1000, 250001):
            scale = 0.5 if n == 1000 else 1.0                   # a mean of two ranks' values
            sa = _shared.SharedAllreduce(n, dtype, world, f"test {np.dtype(dtype).name} {n}", scale)
            for round_ in range(25):
                values = (rng.standard_normal(n) * 100).astype(dtype)
                if rng.random() < 0.3:
                    time.sleep(rng.random() * 0.003)            # one side late: writes, reads, copies
                sa.buf[...] = values
                sa()
                got = sa.result.copy()                          # read at once, before any other sync
                terms = every_ranks(values)
                want = terms[0] + terms[1]                       # the rank-order sum, in the dtype
                for term in terms[2:]:
                    want = want + term
                if scale != 1.0:
                    want = want * want.dtype.type(scale)
                assert got.dtype == want.dtype
                assert np.array_equal(got, want, equal_nan=True), (dtype, n, round_)
                assert np.array_equal(sa.buf, values)           # the contribution is left as it was
                every = every_ranks(got)
                assert all(np.array_equal(every[0], e, equal_nan=True) for e in every[1:])
    from mscustom.ops.comm import loops as _comm_loops
    assert bool(_comm_loops._KERNEL) == (os.environ.get("MSCUSTOM_LOOPS") == "now"), _comm_loops._KERNEL
    print(f"rank {rank}: values ok", flush=True)
elif what in ("bucket", "hang"):
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    ms.set_seed(0)                      # the same initial weights on both ranks
    net = nn.Dense(4, 3)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    x = ms.Tensor(np.random.default_rng(rank).standard_normal((8, 4)).astype(np.float32))
    y = ms.Tensor(np.zeros((8, 3), np.float32))
    for i in range(3):
        if what == "hang" and rank == 1 and i == 2:
            time.sleep(120)
        step(x, y)
    bucket = step.grad_reducer.buckets[0]
    shared = isinstance(bucket._allreduce, _shared.SharedAllreduce)
    assert shared == (os.environ.get(_shared.ENV, "1") != "0"), shared
    w = every_ranks(net.weight.asnumpy())
    assert np.array_equal(w[0], w[1])
    print(f"rank {rank}: bucket ok (shared {shared})", flush=True)
