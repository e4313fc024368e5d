"""Run by tests/test_communication.py under ``mpiexec -n 2``: collectives, their gradients, groups."""

import numpy as np

import mscustom as ms
from mscustom import ops
from mscustom.communication import (GlobalComm, comm_func, create_group, get_group_rank_from_world_rank,
                                    get_group_size, get_local_rank, get_local_rank_size, get_rank,
                                    get_world_rank_from_group_rank, init, destroy_group, release)
from mscustom.communication import _engine

init()
rank, size = get_rank(), get_group_size()
assert size == 2 and GlobalComm.INITED
assert get_local_rank() == rank and get_local_rank_size() == 2
T = ms.Tensor

# values
x = T(np.array([1.0, 2.0, 3.0, 4.0]) * (rank + 1))
assert np.array_equal(ops.AllReduce()(x).asnumpy(), [3.0, 6.0, 9.0, 12.0])
assert np.array_equal(ops.AllReduce(ops.ReduceOp.MAX)(x).asnumpy(), [2.0, 4.0, 6.0, 8.0])
assert np.array_equal(ops.AllReduce("min")(x).asnumpy(), [1.0, 2.0, 3.0, 4.0])
assert np.array_equal(ops.AllReduce("prod")(x).asnumpy(), [2.0, 8.0, 18.0, 32.0])
g = ops.AllGather()(T(np.full((1, 2), rank, np.float32)))
assert g.shape == (2, 2) and np.array_equal(g.asnumpy(), [[0, 0], [1, 1]])
assert ops.ReduceScatter()(x).asnumpy().tolist() == ([3.0, 6.0] if rank == 0 else [9.0, 12.0])
(b,) = ops.Broadcast(1)((x,))
assert np.array_equal(b.asnumpy(), [2.0, 4.0, 6.0, 8.0])
a = ops.AlltoAll(2, 0, 1)(T(np.arange(4.0).reshape(2, 2) + 10 * rank))
assert np.array_equal(a.asnumpy(), [[0, 1, 10, 11]] if rank == 0 else [[2, 3, 12, 13]]), a
out, handle = comm_func.all_reduce(T(np.ones([2, 8], np.float32)))
assert handle is None and np.array_equal(out.asnumpy(), np.full((2, 8), 2.0))
out, handle = comm_func.all_gather_into_tensor(T(np.ones([2, 8], np.float32)), async_op=True)
assert out.shape == (4, 8) and handle.wait() is None
out, _ = comm_func.reduce_scatter_tensor(T(np.ones([2, 2], np.float32)))
assert np.array_equal(out.asnumpy(), [[2.0, 2.0]])
assert np.array_equal(comm_func.broadcast(T([float(rank)]), src=1).asnumpy(), [1.0])
comm_func.barrier()
if rank == 0:
    comm_func.send(T(np.array([[0.5, 0.25]], np.float32)), dst=1, tag=3)
else:
    got = comm_func.recv(T(np.zeros((1, 2), np.float32)), src=0, tag=3)
    assert got.dtype == ms.float32 and np.array_equal(got.asnumpy(), [[0.5, 0.25]])

# groups
create_group("pair", [1, 0])
assert get_rank("pair") == 1 - rank and get_group_size("pair") == 2
assert get_world_rank_from_group_rank("pair", 0) == 1 and get_group_rank_from_world_rank(1, "pair") == 0
assert np.array_equal(ops.AllGather("pair")(T([float(rank)])).asnumpy(), [1.0, 0.0])
destroy_group("pair")
try:
    get_rank("pair")
except ValueError as e:
    assert "no communication group 'pair'" in str(e)
else:
    raise AssertionError("destroyed group still answered")
try:
    create_group("other", [1 - rank])
except ValueError as e:
    assert str(e) == (f"create_group: this process (world rank {rank}) is not in rank_ids [{1 - rank}]; "
                      "only the group's members call create_group"), e
else:
    raise AssertionError("create_group accepted a group without this rank")
create_group("me", [rank])
assert get_group_size("me") == 1 and ops.AllReduce(group="me")(x).asnumpy().tolist() == x.asnumpy().tolist()
release()

# gradients against central differences of the total loss (the sum of the ranks' losses)
rng = np.random.default_rng(7 + rank)


def check(name, fn, shape):
    x0 = rng.standard_normal(shape) + 2.0
    w = T(rng.standard_normal(fn(T(x0)).shape))
    loss = lambda t: (fn(t) * w).sum()
    analytic = ms.grad(loss)(T(x0)).asnumpy()
    eps = 1e-6
    for k in range(size):
        for j in range(x0.size):
            vals = []
            for sign in (1, -1):
                xp = x0.copy()
                if rank == k:
                    xp.flat[j] += sign * eps
                vals.append(float(_engine.allreduce(np.array([loss(T(xp)).asnumpy()]), "sum", _engine.STATE.world)[0]))
            numeric = (vals[0] - vals[1]) / (2 * eps)
            mine = float(_engine.broadcast(np.array([analytic.flat[j]]), k, _engine.STATE.world)[0])
            assert abs(numeric - mine) < 1e-5 * max(1.0, abs(numeric)), (name, k, j, numeric, mine)


check("AllReduce sum", ops.AllReduce(), (3,))
check("AllReduce max", ops.AllReduce("max"), (3,))
check("AllReduce prod", ops.AllReduce("prod"), (3,))
check("AllGather", ops.AllGather(), (2, 2))
check("ReduceScatter", ops.ReduceScatter(), (4,))
check("Broadcast", lambda t: ops.Broadcast(0)((t,))[0], (3,))
check("AlltoAll", ops.AlltoAll(2, 0, 1), (2, 3))

# graph mode: a Cell replays its collectives
ms.set_context(mode=ms.GRAPH_MODE)


class Net(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.ar = ops.AllReduce()

    def construct(self, t):
        return self.ar(t * 2.0)


net = Net()
for step in range(3):
    y = net(T(np.full(3, float(step + rank), np.float32)))
    assert np.array_equal(y.asnumpy(), np.full(3, 2.0 * (2 * step + 1))), (step, y)
print(f"rank {rank}: collectives ok", flush=True)
