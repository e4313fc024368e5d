"""The collective OpDefs: one per collective, made through the extension surface.

Each has an output rule, a CPU kernel that runs the collective over MPI
(``_engine``), and its gradient built from the collective ops themselves, so
the gradients are differentiable and graph-mode replays repeat every call.
``FRandom`` marks them as ops whose calls a replay must neither compute once
for all replays nor merge (every rank must join every call). The public faces
are ``mscustom.ops.AllReduce`` ... and ``comm_func``.

Gradients (the loss of a data-parallel program is the sum of the ranks' losses):

- AllReduce sum: all-reduce-sum of the output gradient; max/min: the same,
  masked where the input was the extreme; prod: all-reduce-sum(dout * out) / x;
- AllGather <-> ReduceScatter (sum); ReduceScatter of max/min/prod has none;
- Broadcast: the gradients of every rank summed on the root, zero elsewhere;
- AlltoAll: AlltoAll back (split and concat dimensions swapped).
"""


from .. import extend
from .._core.dispatch import call
from . import _engine


def _same(attrs, shapes):
    return [shapes[0]]


def _dtype0(attrs, dtypes):
    return [dtypes[0]]


def _group(attrs, who):
    return _engine.group_of(attrs["group"], who)


# ------------------------------------------------------------------ AllReduce
_ALL_REDUCE = extend.def_op("comm_all_reduce", inputs=("input_x",), doc="AllReduce over a communication group")
_ALL_REDUCE.attrs["FRandom"] = True
extend.def_infer(_ALL_REDUCE, shape=_same, dtype=_dtype0)
extend.def_kernel(_ALL_REDUCE, lambda attrs, ins: _engine.allreduce(ins[0], attrs["op"], _group(attrs, "AllReduce")),
                  target="CPU")


def _all_reduce(x, op, group):
    return call(_ALL_REDUCE, (x,), {"op": op, "group": group})


def _all_reduce_grad(ins, outs, grads, attrs):
    x, out, dout = ins[0], outs[0], grads[0]
    op, group = attrs["op"], attrs["group"]
    if op == "sum":
        return [_all_reduce(dout, "sum", group)]
    if op == "prod":
        return [_all_reduce(dout * out, "sum", group) / x]
    mask = (x == out).astype(x.dtype)
    return [_all_reduce(dout, "sum", group) * mask]


extend.def_gradient(_ALL_REDUCE, _all_reduce_grad)


# ------------------------------------------------------------------ AllGather
def _gather_shape(attrs, shapes):
    s = list(shapes[0]) or [1]
    n = _group(attrs, "AllGather").size
    return [[s[0] * n] + s[1:]]


_ALL_GATHER = extend.def_op("comm_all_gather", inputs=("input_x",), doc="AllGather along the first dimension")
_ALL_GATHER.attrs["FRandom"] = True
extend.def_infer(_ALL_GATHER, shape=_gather_shape, dtype=_dtype0)
extend.def_kernel(_ALL_GATHER, lambda attrs, ins: _engine.allgather(ins[0], _group(attrs, "AllGather")),
                  target="CPU")


def _all_gather(x, group):
    return call(_ALL_GATHER, (x,), {"group": group})


# ------------------------------------------------------------------ ReduceScatter
def _scatter_shape(attrs, shapes):
    s = list(shapes[0])
    n = _group(attrs, "ReduceScatter").size
    if not s or s[0] % n:
        raise ValueError(f"ReduceScatter: the input's first dimension must be divisible by the group's size "
                         f"{n}, got shape {s}")
    return [[s[0] // n] + s[1:]]


_REDUCE_SCATTER = extend.def_op("comm_reduce_scatter", inputs=("input_x",),
                                doc="ReduceScatter along the first dimension")
_REDUCE_SCATTER.attrs["FRandom"] = True
extend.def_infer(_REDUCE_SCATTER, shape=_scatter_shape, dtype=_dtype0)
extend.def_kernel(_REDUCE_SCATTER, lambda attrs, ins: _engine.reduce_scatter(
    ins[0], attrs["op"], _group(attrs, "ReduceScatter")), target="CPU")


def _reduce_scatter(x, op, group):
    return call(_REDUCE_SCATTER, (x,), {"op": op, "group": group})


def _reduce_scatter_grad(ins, outs, grads, attrs):
    if attrs["op"] != "sum":
        raise RuntimeError(f"ReduceScatter: the gradient exists for ReduceOp.SUM only, got op={attrs['op']!r}")
    return [_all_gather(grads[0], attrs["group"])]


def _all_gather_grad(ins, outs, grads, attrs):
    g = _reduce_scatter(grads[0], "sum", attrs["group"])
    return [g.reshape(ins[0].shape) if ins[0].ndim == 0 else g]


extend.def_gradient(_ALL_GATHER, _all_gather_grad)
extend.def_gradient(_REDUCE_SCATTER, _reduce_scatter_grad)


# ------------------------------------------------------------------ Broadcast
_BROADCAST = extend.def_op("comm_broadcast", inputs=("input_x",), doc="Broadcast from the root rank")
_BROADCAST.attrs["FRandom"] = True
extend.def_infer(_BROADCAST, shape=_same, dtype=_dtype0)
extend.def_kernel(_BROADCAST, lambda attrs, ins: _engine.broadcast(
    ins[0], attrs["root"], _group(attrs, "Broadcast")), target="CPU")


def _broadcast(x, root, group):
    """``root``: a rank of ``group``."""
    return call(_BROADCAST, (x,), {"root": root, "group": group})


def _broadcast_grad(ins, outs, grads, attrs):
    g = _all_reduce(grads[0], "sum", attrs["group"])
    if _group(attrs, "Broadcast").rank != attrs["root"]:
        g = g * 0
    return [g]


extend.def_gradient(_BROADCAST, _broadcast_grad)


# ------------------------------------------------------------------ AlltoAll
def _alltoall_shape(attrs, shapes):
    s = list(shapes[0])
    n, sd, cd = attrs["split_count"], attrs["split_dim"], attrs["concat_dim"]
    size = _group(attrs, "AlltoAll").size
    if n != size:
        raise ValueError(f"AlltoAll: split_count must equal the group's size {size}, got {n}")
    for name, d in (("split_dim", sd), ("concat_dim", cd)):
        if not 0 <= d < len(s):
            raise ValueError(f"AlltoAll: {name} must be in [0, {len(s)}) for an input of shape {s}, got {d}")
    if s[sd] % n:
        raise ValueError(f"AlltoAll: dimension {sd} of the input (shape {s}) must be divisible by "
                         f"split_count {n}")
    s[sd] //= n
    s[cd] *= n
    return [s]


_ALLTOALL = extend.def_op("comm_alltoall", inputs=("input_x",), doc="AlltoAll: scatter blocks, gather blocks")
_ALLTOALL.attrs["FRandom"] = True
extend.def_infer(_ALLTOALL, shape=_alltoall_shape, dtype=_dtype0)
extend.def_kernel(_ALLTOALL, lambda attrs, ins: _engine.alltoall(
    ins[0], attrs["split_count"], attrs["split_dim"], attrs["concat_dim"], _group(attrs, "AlltoAll")),
    target="CPU")


def _alltoall(x, split_count, split_dim, concat_dim, group):
    return call(_ALLTOALL, (x,), {"split_count": split_count, "split_dim": split_dim,
                                  "concat_dim": concat_dim, "group": group})


def _alltoall_grad(ins, outs, grads, attrs):
    return [_alltoall(grads[0], attrs["split_count"], attrs["concat_dim"], attrs["split_dim"], attrs["group"])]


extend.def_gradient(_ALLTOALL, _alltoall_grad)
