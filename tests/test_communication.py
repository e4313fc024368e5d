"""mscustom.communication and the collective ops: alone (no MPI) and on 2 ranks under mpiexec."""

import subprocess
import sys

import pytest

from mscustom import communication as comm
from mscustom import ops
from mscustom.communication import _engine

from _mpi import ROOT, run_mpi


def test_names_and_defaults_match_mindspore():
    import inspect
    assert comm.GlobalComm.WORLD_COMM_GROUP == "hccl_world_group"
    assert (comm.HCCL_WORLD_COMM_GROUP, comm.NCCL_WORLD_COMM_GROUP, comm.MCCL_WORLD_COMM_GROUP) == \
        ("hccl_world_group", "nccl_world_group", "mccl_world_group")
    assert str(inspect.signature(comm.init)) == "(backend_name=None)"
    assert str(inspect.signature(comm.get_rank)) == "(group='hccl_world_group')"
    assert str(inspect.signature(comm.create_group)) == "(group, rank_ids, options=None)"
    assert str(inspect.signature(comm.get_group_rank_from_world_rank)) == "(world_rank_id, group)"
    assert str(inspect.signature(comm.comm_func.all_reduce)) == \
        "(tensor, op='sum', group='hccl_world_group', async_op=False)"
    assert str(inspect.signature(comm.comm_func.broadcast)) == "(tensor, src=0, group='hccl_world_group')"
    assert str(inspect.signature(comm.comm_func.recv)) == "(tensor, src=0, group='hccl_world_group', tag=0)"
    assert {k: getattr(ops.ReduceOp, k) for k in ("SUM", "MAX", "MIN", "PROD")} == \
        {"SUM": "sum", "MAX": "max", "MIN": "min", "PROD": "prod"}


def test_alone_without_mpi():
    """Outside mpiexec: rank 0 of 1 before and after init(), collectives are copies, MPI never imported."""
    code = """
import sys
import numpy as np
import mscustom as ms
from mscustom import ops
from mscustom.communication import init, get_rank, get_group_size, comm_func, GlobalComm
assert (get_rank(), get_group_size(), GlobalComm.INITED) == (0, 1, False)
try:
    ops.AllReduce()(ms.Tensor([1.0]))
except RuntimeError as e:
    assert "AllReduce: the communication service is not initialized; call mscustom.communication.init()" in str(e), e
else:
    raise AssertionError("no error before init")
try:
    comm_func.barrier()
except RuntimeError as e:
    assert "barrier: the communication service is not initialized" in str(e), e
init()
x = ms.Tensor([1.0, 2.0])
assert ops.AllReduce()(x).asnumpy().tolist() == [1.0, 2.0]
assert ops.AllGather()(x).shape == (2,) and ops.ReduceScatter()(x).shape == (2,)
assert comm_func.all_reduce(x)[0].asnumpy().tolist() == [1.0, 2.0]
assert ms.grad(lambda t: (ops.AllReduce()(t) * t).sum())(x).asnumpy().tolist() == [2.0, 4.0]
assert "mpi4py" not in sys.modules
print("ok")
"""
    env = {k: v for k, v in __import__("os").environ.items() if k not in _engine._ENV_MARKERS}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env,
                         cwd=ROOT)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr


def test_bad_arguments_name_the_op():
    with pytest.raises(ValueError, match=r"AllReduce: op must be one of \['sum', 'max', 'min', 'prod'\], got 'avg'"):
        ops.AllReduce("avg")
    with pytest.raises(TypeError, match="AllReduce: group must be a str, got int"):
        ops.AllReduce(group=3)
    with pytest.raises(TypeError, match="Broadcast: root_rank must be an int, got str"):
        ops.Broadcast("0")
    with pytest.raises(ValueError, match=r"init: backend_name must be one of"):
        comm.init("gloo")
    with pytest.raises(ValueError, match="MSCUSTOM_COMM_TIMEOUT must be positive, got '-1'"):
        import os
        os.environ["MSCUSTOM_COMM_TIMEOUT"] = "-1"
        try:
            _engine.timeout()
        finally:
            del os.environ["MSCUSTOM_COMM_TIMEOUT"]


def test_two_ranks_collectives_gradients_groups_graph_mode():
    res = run_mpi("collectives.py", timeout=90)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "rank 0: collectives ok" in res.stdout and "rank 1: collectives ok" in res.stdout


def test_two_ranks_signature_mismatch_names_op_and_ranks():
    res = run_mpi("mismatch.py", timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    for r in (0, 1):
        assert (f"rank {r} caught: AllReduce: the ranks of group 'hccl_world_group' called it with different "
                "inputs (shape, dtype, attributes): rank 0: ((2,), '<f4', 'sum'); rank 1: ((3,), '<f4', 'sum')"
                ) in res.stdout, res.stdout + res.stderr
        assert f"rank {r} recovered" in res.stdout


def test_errors_alone_name_the_function_and_the_fix():
    """After init() in this process (rank 0 of 1): groups and comm_func check their arguments."""
    import mscustom as ms
    comm.init()
    with pytest.raises(ValueError, match=r"create_group: rank_ids must be distinct world ranks in \[0, 1\), "
                                         r"got \[0, 0\]"):
        comm.create_group("g", [0, 0])
    with pytest.raises(TypeError, match="create_group: rank_ids must be a non-empty list of ints, got 'x'"):
        comm.create_group("g", "x")
    with pytest.raises(ValueError, match=r"get_rank: no communication group 'nope'; groups made by create_group: \[\]"):
        comm.get_rank("nope")
    with pytest.raises(ValueError, match="destroy_group: the world group 'hccl_world_group' cannot be destroyed"):
        comm.destroy_group("hccl_world_group")
    with pytest.raises(ValueError, match=r"get_world_rank_from_group_rank: group_rank_id must be an int in \[0, 1\), "
                                         "got 3"):
        comm.get_world_rank_from_group_rank("hccl_world_group", 3)
    with pytest.raises(TypeError, match="For all_reduce, the input tensor must be tensor"):
        comm.comm_func.all_reduce([1.0])
    with pytest.raises(TypeError, match="For all_reduce, the input op value must be one of sum, prod, min, max"):
        comm.comm_func.all_reduce(ms.Tensor([1.0]), op="avg")
    with pytest.raises(TypeError, match="For broadcast, the src must be int, got str"):
        comm.comm_func.broadcast(ms.Tensor([1.0]), src="0")
    with pytest.raises(ValueError, match="send: a group of one rank has nobody to send to"):
        comm.comm_func.send(ms.Tensor([1.0]), dst=0)
    with pytest.raises(ValueError, match=r"ReduceScatter: the input's first dimension must be divisible by the "
                                         r"group's size 1, got shape \[\]"):
        ops.ReduceScatter()(ms.Tensor(1.0))
    with pytest.raises(TypeError, match="Broadcast: the input must be a tuple of Tensors, as in MindSpore"):
        ops.Broadcast(0)(ms.Tensor([1.0]))
    with pytest.raises(ValueError, match="AlltoAll: split_count must equal the group's size 1, got 2"):
        ops.AlltoAll(2, 0, 0)(ms.Tensor([1.0, 2.0]))
    comm.create_group("solo", [0])
    assert comm.get_process_group_ranks("solo") == [0] and comm.get_group_rank_from_world_rank(0, "solo") == 0
    comm.release()
    with pytest.raises(ValueError, match="no communication group 'solo'"):
        comm.get_group_size("solo")
