"""Run by tests/test_data_parallel.py under ``mpiexec -n 2`` (argument: pynative or graph).

Each rank trains on its shard of the global batch, data-parallel, and also trains a
reference copy alone on the whole global batch (stand-alone mode); the parameters and
the losses must agree, and the ranks' parameters must be bit-identical.
"""

import sys

import numpy as np

import mscustom as ms
from mscustom import nn
from mscustom.communication import get_group_size, get_rank, init
from mscustom.communication import _engine
from mscustom.dataset import NumpySlicesDataset

init()
rank, size = get_rank(), get_group_size()
mode = sys.argv[1]
ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
STEPS, LOCAL = 4, 4
rng = np.random.default_rng(0)                  # every rank draws the same data and initial weights
X = rng.standard_normal((STEPS, size * LOCAL, 8)).astype(np.float32)
Y = rng.integers(0, 4, (STEPS, size * LOCAL)).astype(np.int32)
W0 = [rng.standard_normal(s).astype(np.float32) * 0.3 for s in ((16, 8), (16,), (4, 16), (4,))]


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(8, 16)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(16, 4)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def fresh():
    net = Net()
    for p, w in zip(net.trainable_params(), W0):
        p.set_data(ms.Tensor(w.copy()))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return net, loss, nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)


def params(net):
    return [p.asnumpy().copy() for p in net.trainable_params()]


def shard(a):                                  # samples rank, rank + size, ... as the dataset shards
    return a[rank::size]


def global_loss(local):
    return float(_engine.allreduce(np.array([local], np.float64), "sum", _engine.STATE.world)[0]) / size


def reference():
    ms.reset_auto_parallel_context()
    net, loss_fn, opt = fresh()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    assert step.reducer_flag is False and isinstance(step.grad_reducer, nn.Identity)
    losses = [float(step(ms.Tensor(X[i]), ms.Tensor(Y[i])).asnumpy()) for i in range(STEPS)]
    return params(net), losses


def check(name, got_params, got_losses, ref_params, ref_losses):
    for a, b in zip(got_params, ref_params):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6, err_msg=f"{name}: parameters differ")
    np.testing.assert_allclose(got_losses, ref_losses, rtol=2e-5, err_msg=f"{name}: losses differ")
    flat = np.concatenate([p.ravel() for p in got_params]).view(np.uint32)
    every = _engine.allgather(flat[None], _engine.STATE.world)
    assert all(np.array_equal(every[0], r) for r in every), f"{name}: ranks' parameters are not bit-identical"
    print(f"rank {rank}: {name} ok ({mode})", flush=True)


ref_params, ref_losses = reference()
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)

# 1. value_and_grad + DistributedGradReducer, by hand (small buckets: several of them)
net, loss_fn, opt = fresh()
body = nn.WithLossCell(net, loss_fn)
reducer = nn.DistributedGradReducer(opt.parameters, bucket_cap_mb=0.0005)
assert reducer.mean is True and reducer.degree == 2 and len(reducer.buckets) > 1
vg = ms.value_and_grad(body, None, opt.parameters)


class HandStep(nn.Cell):
    def __init__(self):
        super().__init__(auto_prefix=False)
        self.body, self.opt = body, opt

    def construct(self, x, y):
        loss, grads = vg(x, y)
        self.opt(reducer(grads))
        return loss


hand = HandStep()
losses = [global_loss(float(hand(ms.Tensor(shard(X[i])), ms.Tensor(shard(Y[i]))).asnumpy())) for i in range(STEPS)]
check("value_and_grad + DistributedGradReducer", params(net), losses, ref_params, ref_losses)

# 2. TrainOneStepCell inserts the reducer itself (gradients start during backward)
net, loss_fn, opt = fresh()
step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
assert isinstance(step.grad_reducer, nn.DistributedGradReducer)
losses = [global_loss(float(step(ms.Tensor(shard(X[i])), ms.Tensor(shard(Y[i]))).asnumpy())) for i in range(STEPS)]
check("TrainOneStepCell", params(net), losses, ref_params, ref_losses)

# 3. Model.train on a dataset sharded with num_shards=get_group_size(), shard_id=get_rank()
net, loss_fn, opt = fresh()
flat_x, flat_y = X.reshape(-1, 8), Y.reshape(-1)
ds = NumpySlicesDataset({"x": flat_x, "y": flat_y}, shuffle=False, num_shards=size, shard_id=rank).batch(LOCAL)
model = ms.Model(net, loss_fn, opt)


class Record(ms.Callback):
    def __init__(self):
        self.losses = []

    def on_train_step_end(self, run_context):
        self.losses.append(float(np.asarray(run_context.original_args().net_outputs.asnumpy())))


rec = Record()
model.train(1, ds, callbacks=[rec])
check("Model.train", params(net), [global_loss(v) for v in rec.losses], ref_params, ref_losses)

# 4. sharding covers every sample exactly once per epoch, also shuffled
idx = np.arange(24, dtype=np.int64)
mine = [int(v) for (v,) in NumpySlicesDataset({"i": idx}, shuffle=True, num_shards=size, shard_id=rank)
        .create_tuple_iterator(output_numpy=True)]
every = _engine.allgather(np.array(mine, np.int64)[None], _engine.STATE.world).ravel()
assert sorted(every.tolist()) == list(range(24)), every
print(f"rank {rank}: sharding ok ({mode})", flush=True)

# 5. DistributedDataParallel (PyNative only, as in MindSpore): value_and_grad returns averaged gradients
if mode == "pynative":
    from mscustom.parallel.distributed import DistributedDataParallel
    net, loss_fn, opt = fresh()
    if rank == 1:                                   # init_sync copies rank 0's parameters
        for p in net.trainable_params():
            p.set_data(ms.Tensor(p.asnumpy() + 1.0))
    ddp = DistributedDataParallel(net, bucket_cap_mb=0.0005)
    assert len(ddp.reducer.buckets) > 1
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(ddp(x), y), None, opt.parameters)
    losses = []
    for i in range(STEPS):
        loss, grads = grad_fn(ms.Tensor(shard(X[i])), ms.Tensor(shard(Y[i])))
        opt(grads)
        ddp.zero_grad()
        losses.append(global_loss(float(loss.asnumpy())))
    check("DistributedDataParallel", params(net), losses, ref_params, ref_losses)
    with ddp.no_sync():
        _, own = grad_fn(ms.Tensor(shard(X[0])), ms.Tensor(shard(Y[0])))
    every = _engine.allgather(own[0].asnumpy()[None], _engine.STATE.world)
    assert not np.array_equal(every[0], every[1]), "no_sync still reduced"

# 6. the bucketed all-reduce is part of the step: replays start and wait for every bucket without the
#    reducer's Python (graph mode); eager steps walk the hook every step
net, loss_fn, opt = fresh()
step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
from mscustom.communication import _buckets                         # noqa: E402
from mscustom.nn.distributed import DistributedGradReducer          # noqa: E402
counts = {"hook": 0, "start": 0, "in_place": 0}
real_factory, real_start = DistributedGradReducer._ready_factory, _buckets.Bucket._start


def counting_factory(self, *walk, **kw):
    counts["hook"] += 1
    return real_factory(self, *walk, **kw)


def counting_start(self, attrs, ins):
    counts["start"] += 1
    # written into the bucket, and for a mean scaled there unless the all-reduce scales after the sum
    counts["in_place"] += all(g is v for g, v in zip(ins, self.views)) and (all(self._landed) or not self._prescale)
    return real_start(self, attrs, ins)


DistributedGradReducer._ready_factory, _buckets.Bucket._start = counting_factory, counting_start
step.grad_reducer = DistributedGradReducer(step.weights, bucket_cap_mb=0.0005)    # its kernels: the counting start
losses = [global_loss(float(step(ms.Tensor(shard(X[i])), ms.Tensor(shard(Y[i]))).asnumpy())) for i in range(STEPS)]
n_buckets = len(step.grad_reducer.buckets)
assert counts["start"] == STEPS * n_buckets, counts
assert counts["hook"] == (1 if mode == "graph" else STEPS), counts
# replays write every gradient straight into its bucket (nothing to pack); eager steps copy
assert counts["in_place"] == ((STEPS - 1) * n_buckets if mode == "graph" else 0), counts
check("replayed buckets (values)", params(net), losses, ref_params, ref_losses)
print(f"rank {rank}: replayed buckets ok ({mode})", flush=True)
