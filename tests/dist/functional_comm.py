"""Run by tests/test_ops_distributed.py under ``mpiexec -n 2``: MindSpore 2.10's functional communication
(ops.all_reduce, all_gather_into_tensor, ..., send/recv, the *_object functions) on 2 ranks."""

import numpy as np

import mscustom as ms
from mscustom import ops

ops.init_process_group()
r = ops.get_rank()
assert ops.get_world_size() == 2 and ops.is_initialized() and ops.get_process_group_ranks() == [0, 1]
assert ops.get_global_rank(None, 1) == 1 and ops.get_group_rank(None, 1) == 1


def T(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype))


def eq(t, expected):
    assert np.array_equal(t.asnumpy(), np.asarray(expected)), (t.asnumpy(), expected)


t = T(np.arange(4) + 10 * r)
assert ops.all_reduce(t) is None
eq(t, [10, 12, 14, 16])
t = T(np.arange(4) + 10 * r)
ops.all_reduce(t, op="avg")
eq(t, [5, 6, 7, 8])                                  # MindSpore 2.10 (CPU, msrun) gives the same
t = T([1, 5]) * (1 - 2 * r)
assert ops.all_reduce(t, op="max", async_op=True).wait() is None
eq(t, [1, 5])
o = T(np.zeros(8))
ops.all_gather_into_tensor(o, T(np.arange(4) + 10 * r))
eq(o, [0, 1, 2, 3, 10, 11, 12, 13])
o = T(np.zeros(3))
ops.all_gather_into_tensor_uneven(o, T(np.ones(1 + r) * (r + 1)), [1, 2])
eq(o, [1, 2, 2])
lst = [T(np.zeros(2)), T(np.zeros(2))]
ops.all_gather(lst, T(np.ones(2) * (r + 1)))
eq(lst[0], [1, 1])
eq(lst[1], [2, 2])
o = T(np.zeros(2))
ops.reduce_scatter_tensor(o, T(np.arange(4) + 10 * r))
eq(o, [10, 12] if r == 0 else [14, 16])
o = T(np.zeros(1 + r))
ops.reduce_scatter_tensor_uneven(o, T([1, 2, 3]) * (r + 1), [1, 2])
eq(o, [3] if r == 0 else [6, 9])
o = T(np.zeros(2))
ops.reduce_scatter(o, [T([1, 2]) * (r + 1), T([3, 4]) * (r + 1)], op="prod")
eq(o, [2, 8] if r == 0 else [18, 32])
t = T(np.arange(4) + 10 * r)
ops.reduce(t, 1)
eq(t, [10, 12, 14, 16] if r == 1 else [0, 1, 2, 3])
t = T(np.arange(3) + 10 * r)
ops.broadcast(t, 1)
eq(t, [10, 11, 12])
ops.barrier()
o = T(np.zeros(2))
ops.scatter_tensor(o, T([1, 2, 3, 4]) * (r + 1), src=1)
eq(o, [2, 4] if r == 0 else [6, 8])
o = T(np.zeros(4))
ops.gather_into_tensor(o, T([1, 2]) * (r + 1), dst=1)
eq(o, [1, 2, 2, 4] if r == 1 else [0, 0, 0, 0])
outs = [T(np.zeros(2)), T(np.zeros(2 - r))]             # rank 1 sends rank 1 one value
ops.all_to_all(outs, [T([1, 2]) + 10 * r, T(np.arange(2 - r) + 5) + 10 * r])
eq(outs[0], [1, 2] if r == 0 else [5, 6])
eq(outs[1], [11, 12] if r == 0 else [15])
o = T(np.zeros((4, 2)))
ops.all_to_all_single(o, T(np.arange(8).reshape(4, 2) + 10 * r))
eq(o, [[0, 1], [2, 3], [10, 11], [12, 13]] if r == 0 else [[4, 5], [6, 7], [14, 15], [16, 17]])
o = T(np.zeros(3 if r == 0 else 2))
ops.all_to_all_single(o, T(np.arange(3 if r == 0 else 2) + 10 * r), [2, 1] if r == 0 else [1, 1],
                      [2, 1] if r == 0 else [1, 1])
eq(o, [0, 1, 10] if r == 0 else [2, 11])
o = T(np.zeros(3 if r == 0 else 3))
ops.all_to_all_v_c(o, T([1, 2, 3]) + 10 * r, [1, 2, 2, 1])
eq(o, [1, 11, 12] if r == 0 else [2, 3, 13])
# point to point
if r == 0:
    assert ops.send(T([[0.5, 0.25]]), dst=1, tag=3) is None
    h = ops.isend(T([7, 8, 9], np.int32), dst=1)
    h.wait()
else:
    t = T(np.zeros((1, 2)))
    assert ops.recv(t, src=0, tag=3) == 0
    eq(t, [[0.5, 0.25]])
    t = T(np.zeros(3), np.int32)
    ops.irecv(t, src=0).wait()
    eq(t, [7, 8, 9])
send_buf, recv_buf = T([float(r)] * 3), T(np.zeros(3))
peer = 1 - r
works = ops.batch_isend_irecv([ops.P2POp("isend", send_buf, peer), ops.P2POp(ops.irecv, recv_buf, peer)])
assert len(works) == 1
works[0].wait()
eq(recv_buf, [float(peer)] * 3)
# Python objects
got = [None, None]
ops.all_gather_object(got, {"rank": r})
assert got == [{"rank": 0}, {"rank": 1}], got
objs = ["a", r] if r == 1 else [None, None]
ops.broadcast_object_list(objs, src=1)
assert objs == ["a", 1], objs
gathered = [None, None] if r == 0 else None
ops.gather_object((r, "x"), gathered, dst=0)
assert r == 1 or gathered == [(0, "x"), (1, "x")], gathered
out = [None]
ops.scatter_object_list(out, [{"to": 0}, {"to": 1}] if r == 0 else None, src=0)
assert out == [{"to": r}], out
if r == 0:
    ops.send_object_list([1, "two", (3,)], dst=1)
else:
    lst = [None, None, None]
    assert ops.recv_object_list(lst, src=0) == 0 and lst == [1, "two", (3,)], lst
# functional forms (MindSpore's set_comm_ops_inplace(False)): new tensors, differentiable collectives
ops.set_comm_ops_inplace(False)
x = T([1.0, 2.0]) * (r + 1)
out, _ = ops.all_reduce(x)
eq(out, [3.0, 6.0])
eq(x, [1.0 + r, 2.0 + 2 * r])
eq(ms.grad(lambda t: (ops.all_reduce(t)[0] * t).sum())(x), [6.0, 12.0])   # the backward all-reduces too
eq(ops.all_gather_into_tensor(None, x)[0], [1, 2, 2, 4])
eq(ops.reduce_scatter_tensor(None, x, op="max")[0], [2] if r == 0 else [4])
if r == 0:
    ops.send(T([4.0, 5.0]), dst=1)
else:
    eq(ops.recv(T(np.zeros(2)), src=0), [4.0, 5.0])
ops.set_comm_ops_inplace(True)
# groups
name = ops.new_group([1, 0])
assert name and ops.get_world_size(name) == 2 and ops.get_process_group_ranks(name) == [0, 1]
t = T([1.0 + r])
ops.all_reduce(t, group=name)
eq(t, [3.0])
assert ops.new_group([0, 1]) == name
ops.destroy_process_group(name)
solo = ops.new_group([r])
assert ops.get_world_size(solo) == 1 and ops.get_rank(solo) == 0 and ops.get_global_rank(solo, 0) == r
assert ops.new_group([1 - r]) == ""                    # not a member
ops.destroy_process_group(solo)
ops.barrier()
print(f"rank {r}: functional ok", flush=True)
