"""Data parallel: the auto-parallel context, DistributedGradReducer, TrainOneStepCell / Model.train on 2 ranks."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn

from _mpi import run_mpi


@pytest.fixture(autouse=True)
def _reset_context():
    ms.reset_auto_parallel_context()
    yield
    ms.reset_auto_parallel_context()


def test_auto_parallel_context_matches_mindspore():
    assert ms.ParallelMode.DATA_PARALLEL == "data_parallel" and ms.ParallelMode.STAND_ALONE == "stand_alone"
    assert ms.ParallelMode.MODE_LIST == ["stand_alone", "data_parallel", "hybrid_parallel", "semi_auto_parallel",
                                         "auto_parallel"]
    assert [ms.get_auto_parallel_context(k) for k in
            ("parallel_mode", "gradients_mean", "device_num", "global_rank", "parameter_broadcast")] == \
        ["stand_alone", False, 1, 0, False]
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    assert ms.get_auto_parallel_context("parallel_mode") == "data_parallel"
    assert ms.get_auto_parallel_context("gradients_mean") is True
    ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
    with pytest.raises(ValueError, match="The context configuration parameter 'parallel_mode' only support "
                                         "'stand_alone', 'data_parallel', 'hybrid_parallel', 'semi_auto_parallel' "
                                         "and 'auto_parallel', but got the value : bogus."):
        ms.set_auto_parallel_context(parallel_mode="bogus")
    with pytest.raises(TypeError, match="The parameter 'gradients_mean' must be <class 'bool'>, but got <class 'int'>"):
        ms.set_auto_parallel_context(gradients_mean=1)
    with pytest.raises(ValueError, match="The context configuration parameter 'device_num' must be a positive "
                                         "integer, but got the value of device_num : 0."):
        ms.set_auto_parallel_context(device_num=0)
    with pytest.raises(ValueError, match="Set context keyword foo is not recognized!"):
        ms.set_auto_parallel_context(foo=1)
    with pytest.raises(ValueError, match="Get context keyword foo is not recognized!"):
        ms.get_auto_parallel_context("foo")


def test_reducer_alone_is_identity_and_single_rank_step_has_none():
    from mscustom.communication import init
    init()
    net = nn.Dense(3, 2)
    reducer = nn.DistributedGradReducer(net.trainable_params())
    g = (ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones(2, np.float32)))
    out = reducer(g)
    assert out[0] is g[0] and out[1] is g[1] and reducer.buckets == []
    halves = nn.DistributedGradReducer(net.trainable_params(), mean=True, degree=2)(g)
    assert halves[0].asnumpy().tolist() == [[0.5] * 3] * 2
    with pytest.raises(ValueError, match="parameter 'degree' in DistributedGradReducer should large than 0 and be "
                                         "int, degree: 0."):
        nn.DistributedGradReducer(net.trainable_params(), degree=0)
    with pytest.raises(ValueError, match="DistributedGradReducer: expected 2 gradient"):
        reducer(g[:1])
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()))
    assert step.reducer_flag is False and isinstance(step.grad_reducer, nn.Identity)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()))
    assert step.reducer_flag is True and isinstance(step.grad_reducer, nn.DistributedGradReducer)
    assert step.grad_reducer.buckets == []


def test_bucket_plan_reverse_order_by_dtype_and_cap():
    from mscustom.communication._buckets import plan_buckets
    plan = plan_buckets([(4,), (100,), (4,), (4,)], ["float32", "float32", "float64", "float32"], 64)
    assert [(str(dt), idx) for dt, idx in plan] == [("float32", [3]), ("float64", [2]), ("float32", [1]),
                                                    ("float32", [0])]
    plan = plan_buckets([(2,), (2,), (2,)], ["float32"] * 3, 1 << 20)
    assert [idx for _, idx in plan] == [[2, 1, 0]]


@pytest.mark.parametrize("shared", ["1", "0"])           # the buckets' all-reduce in shared memory, or MPI's
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_two_ranks_match_one_process_on_the_global_batch(mode, shared):
    res = run_mpi("data_parallel.py", extra=(mode,), timeout=120, env={"MSCUSTOM_COMM_SHARED": shared})
    assert res.returncode == 0, res.stdout + res.stderr
    for r in (0, 1):
        names = ["value_and_grad + DistributedGradReducer", "TrainOneStepCell", "Model.train", "sharding",
                 "replayed buckets", "replayed buckets (values)"]
        for what in names + (["DistributedDataParallel"] if mode == "pynative" else []):
            assert f"rank {r}: {what} ok ({mode})" in res.stdout, res.stdout + res.stderr


def test_signatures_match_mindspore():
    import inspect
    from mscustom.parallel.distributed import DistributedDataParallel
    assert str(inspect.signature(DistributedDataParallel.__init__)) == (
        "(self, module, init_sync=True, process_group=None, bucket_cap_mb=None, find_unused_parameters=False, "
        "average_in_collective=False, static_graph=False, reducer_mode='CppReducer')")
    # MindSpore: (self, parameters, mean=None, degree=None, fusion_type=1, group='hccl_world_group');
    # bucket_cap_mb is a keyword of ours (docs/distributed.md)
    assert str(inspect.signature(nn.DistributedGradReducer.__init__)) == (
        "(self, parameters, mean=None, degree=None, fusion_type=1, group='hccl_world_group', *, bucket_cap_mb=25)")
    from mscustom.communication import init
    init()
    with pytest.raises(ValueError, match=r"DistributedDataParallel: reducer_mode must be one of \['CppReducer', "
                                         r"'PythonReducer'\], got 'x'"):
        DistributedDataParallel(nn.Dense(2, 2), reducer_mode="x")
    with pytest.raises(TypeError, match="DistributedDataParallel: module must be an nn.Cell, got int"):
        DistributedDataParallel(3)


def test_reducer_rejects_bad_arguments():
    from mscustom.communication import init
    init()
    with pytest.raises(TypeError, match="DistributedGradReducer: parameters must be a non-empty list of Parameters"):
        nn.DistributedGradReducer([])
    with pytest.raises(ValueError, match="DistributedGradReducer: bucket_cap_mb must be a positive number, got 0"):
        nn.DistributedGradReducer(nn.Dense(2, 2).trainable_params(), bucket_cap_mb=0)
    with pytest.raises(ValueError, match=r"DistributedGradReducer: no communication group 'g'"):
        nn.DistributedGradReducer(nn.Dense(2, 2).trainable_params(), group="g")
