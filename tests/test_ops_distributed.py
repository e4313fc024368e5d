"""MindSpore 2.10's functional communication (ops.init_process_group, ops.all_reduce, ops.send ...):
signatures, one process (a world of one), and 2 ranks under mpiexec."""

import inspect

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.communication import _engine

from _mpi import run_mpi

# MindSpore 2.10's signatures (inspect.signature of mindspore.ops.<name>)
SIGNATURES = {
    "all_gather": "(tensor_list, tensor, group=None, async_op=False)",
    "all_gather_into_tensor": "(output_tensor, input_tensor, group=None, async_op=False)",
    "all_gather_into_tensor_uneven": "(output, input, output_split_sizes=None, group=None, async_op=False)",
    "all_gather_object": "(object_list, obj, group=None)",
    "all_reduce": "(tensor, op='sum', group=None, async_op=False)",
    "all_to_all": "(output_tensor_list, input_tensor_list, group=None, async_op=False)",
    "all_to_all_single": "(output, input, output_split_sizes=None, input_split_sizes=None, group=None, "
                         "async_op=False)",
    "all_to_all_v_c": "(output, input, send_count_matrix, group=None, async_op=False)",
    "barrier": "(group=None, async_op=False, device_ids=None)",
    "batch_isend_irecv": "(p2p_op_list)",
    "broadcast": "(tensor, src, group=None, async_op=False)",
    "broadcast_object_list": "(object_list, src=0, group=None, device=None)",
    "destroy_process_group": "(group=None)",
    "gather_into_tensor": "(output_tensor, input_tensor, dst=0, group=None, async_op=False)",
    "gather_object": "(obj, object_gather_list=None, dst=0, group=None)",
    "get_backend": "(group=None)",
    "get_global_rank": "(group, group_rank)",
    "get_group_rank": "(group, global_rank)",
    "get_process_group_ranks": "(group=None)",
    "get_rank": "(group=None)",
    "get_world_size": "(group=None)",
    "init_process_group": "(backend='hccl', init_method=None, timeout=None, world_size=-1, rank=-1, store=None, "
                          "group_name='', pg_options=None, device_id=None)",
    "irecv": "(tensor, src=0, group=None, tag=0)",
    "is_available": "()",
    "is_initialized": "()",
    "isend": "(tensor, dst=0, group=None, tag=0)",
    "new_group": "(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False, "
                 "group_desc=None)",
    "recv": "(tensor, src=0, group=None, tag=0)",
    "recv_object_list": "(object_list, src=0, group=None, device=None)",
    "reduce": "(tensor, dst, op='sum', group=None, async_op=False)",
    "reduce_scatter": "(output, input_list, op='sum', group=None, async_op=False)",
    "reduce_scatter_tensor": "(output, input, op='sum', group=None, async_op=False)",
    "reduce_scatter_tensor_uneven": "(output, input, input_split_sizes=None, op='sum', group=None, async_op=False)",
    "scatter_object_list": "(scatter_object_output_list, scatter_object_input_list, src=0, group=None)",
    "scatter_tensor": "(output_tensor, input_tensor, src=0, group=None, async_op=False)",
    "send": "(tensor, dst=0, group=None, tag=0)",
    "send_object_list": "(object_list, dst, group=None, device=None)",
    "set_comm_ops_inplace": "(is_enable, func_list=None)",
}


def T(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype))


def _eq(t, expected):
    np.testing.assert_array_equal(t.asnumpy(), np.asarray(expected))


def test_signatures():
    """(tests/test_import_lazy.py checks that ``import mscustom`` still leaves the communication layer unloaded.)"""
    for name, sig in SIGNATURES.items():
        assert str(inspect.signature(getattr(ops, name))) == sig, name


def test_one_process_world_of_one():
    was = _engine.STATE.inited
    try:
        ops.destroy_process_group()
        # before initialization (MindSpore 2.10: is_available True, is_initialized False, get_world_size 1)
        assert ops.is_available() and not ops.is_initialized()
        assert (ops.get_rank(), ops.get_world_size(), ops.get_backend()) == (0, 1, "hccl")
        with pytest.raises(RuntimeError, match="all_reduce: the communication service is not initialized; call "
                                               r"ops.init_process_group\(\)"):
            ops.all_reduce(T([1.0]))
        with pytest.raises(ValueError, match="backend must be one of"):
            ops.init_process_group("gloo")
        with pytest.raises(ValueError, match="init_method and store are not supported"):
            ops.init_process_group(init_method="tcp://127.0.0.1:1234")
        ops.init_process_group()
        with pytest.raises(ValueError, match="world_size must be -1 or the number of processes 1, got 2"):
            ops.init_process_group(world_size=2)
        assert ops.is_initialized() and (ops.get_rank(), ops.get_world_size()) == (0, 1)
        assert ops.get_process_group_ranks() == [0] and ops.get_global_rank(None, 0) == 0
        assert ops.get_group_rank("hccl_world_group", 0) == 0
        # collectives: a world of one
        t = T([1.0, -2.0])
        assert ops.all_reduce(t) is None
        _eq(t, [1.0, -2.0])
        assert ops.all_reduce(t, op="avg", async_op=True).wait() is None
        _eq(t, [1.0, -2.0])
        for call in (lambda o, x: ops.all_gather_into_tensor(o, x), lambda o, x: ops.reduce_scatter_tensor(o, x),
                     lambda o, x: ops.all_gather_into_tensor_uneven(o, x, [2]),
                     lambda o, x: ops.reduce_scatter_tensor_uneven(o, x, [2], op="max"),
                     lambda o, x: ops.reduce_scatter(o, [x]), lambda o, x: ops.scatter_tensor(o, x),
                     lambda o, x: ops.gather_into_tensor(o, x), lambda o, x: ops.all_to_all([o], [x]),
                     lambda o, x: ops.all_to_all_single(o, x), lambda o, x: ops.all_to_all_v_c(o, x, [2]),
                     lambda o, x: ops.all_gather([o], x)):
            o = T(np.zeros(2))
            assert call(o, T([3.0, 4.0])) is None
            _eq(o, [3.0, 4.0])
        t = T([5, 6], np.int32)
        ops.reduce(t, 0, op="prod")
        ops.broadcast(t, 0)
        _eq(t, [5, 6])
        assert t.dtype == ms.int32 and ops.barrier() is None
        got = [None]
        ops.all_gather_object(got, {"a": 1})
        objs = [1, "x"]
        ops.broadcast_object_list(objs)
        gathered, out = [None], [None]
        ops.gather_object((2,), gathered)
        ops.scatter_object_list(out, ["only"])
        assert (got, objs, gathered, out) == ([{"a": 1}], [1, "x"], [(2,)], ["only"])
        # errors name the function
        with pytest.raises(ValueError, match="For 'send', dst must be another rank than this process's"):
            ops.send(T([1.0]), 0)
        with pytest.raises(ValueError, match="For 'broadcast', src=1 is not a rank of group 'hccl_world_group'"):
            ops.broadcast(T([1.0]), 1)
        with pytest.raises(TypeError, match=r"For 'all_reduce', the argument 'op' must be one of \['sum', 'prod', "
                                            r"'min', 'max', 'avg'\], got 'mean'"):
            ops.all_reduce(T([1.0]), op="mean")
        with pytest.raises(TypeError, match="For 'barrier', the argument 'group' must be a str or None, got int"):
            ops.barrier(3)
        with pytest.raises(TypeError, match="For 'all_gather', tensor_list must be a list of 1 Tensors"):
            ops.all_gather([T([0.0]), T([0.0])], T([1.0]))
        with pytest.raises(ValueError, match=r"For 'all_gather_into_tensor', output_tensor must have shape \(2,\)"):
            ops.all_gather_into_tensor(T([0.0]), T([1.0, 2.0]))
        with pytest.raises(ValueError, match="input_split_sizes must be a list of 1 ints"):
            ops.all_to_all_single(T([0.0, 0.0]), T([1.0, 2.0]), None, [1, 1])
        with pytest.raises(NotImplementedError):
            ops.P2POp("isend", T([1.0]), 0, tag=1)
        with pytest.raises(TypeError):
            ops.P2POp("send", T([1.0]), 0)
        # groups
        name = ops.new_group([0])
        assert ops.new_group() == "hccl_world_group" and ops.new_group([0]) == name
        assert ops.get_world_size(name) == 1 and ops.get_process_group_ranks(name) == [0]
        assert ops.get_backend(name) == ops.get_backend() == "hccl"
        assert ops.get_backend(ops.new_group([0], backend="mccl")) == "mccl"
        ops.destroy_process_group(name)
        with pytest.raises(TypeError):
            ops.destroy_process_group(3)
        ops.destroy_process_group()
        assert not ops.is_initialized()
    finally:
        if was:
            ops.init_process_group()


def test_set_comm_ops_inplace_functional_forms():
    ops.init_process_group()
    x = T([1.0, 2.0])
    try:
        ops.set_comm_ops_inplace(False)
        out, h = ops.all_reduce(x, op="avg")
        assert h is None and out is not x
        _eq(out, [1.0, 2.0])
        assert ms.grad(lambda t: (ops.all_reduce(t)[0] * t).sum())(x).asnumpy().tolist() == [2.0, 4.0]
        _eq(ops.all_gather_into_tensor(None, x)[0], [1.0, 2.0])
        _eq(ops.reduce_scatter_tensor(None, x, async_op=True)[0], [1.0, 2.0])
        (a,), _ = ops.all_to_all([(2,)], [x])
        _eq(a, [1.0, 2.0])
        _eq(ops.all_to_all_single((2,), x)[0], [1.0, 2.0])
        with pytest.raises(ValueError, match="For 'broadcast', the non-inplace mode is not supported"):
            ops.broadcast(x, 0)
        ops.set_comm_ops_inplace(True, ["all_reduce"])
        assert ops.all_reduce(x) is None
        with pytest.raises(ValueError, match="unknown function name"):
            ops.set_comm_ops_inplace(True, ["all_reduce_x"])
        with pytest.raises(TypeError):
            ops.set_comm_ops_inplace(1)
    finally:
        ops.set_comm_ops_inplace(True)
    assert ops.all_gather_into_tensor(T([0.0, 0.0]), x) is None


def test_two_ranks_functional_communication():
    res = run_mpi("functional_comm.py", timeout=90)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "rank 0: functional ok" in res.stdout and "rank 1: functional ok" in res.stdout
