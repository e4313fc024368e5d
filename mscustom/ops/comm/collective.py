"""Collective ops (``ops.AllReduce``, ``AllGather``, ``ReduceScatter``, ``Broadcast``, ``AlltoAll``).

MindSpore's primitive classes over the collective OpDefs of
``mscustom.communication._ops`` (one OpDef each, made through the extension
surface, with their gradients; see that module). They run eagerly, under
``ms.grad`` and inside graph-mode replays like any op.

Example (under ``python -m mscustom.run -n 2``)::

    from mscustom.communication import init
    init()
    y = ops.AllReduce()(ms.Tensor([1.0, 2.0]))       # [2., 4.] on both ranks
"""

import numpy as np

from ...communication import _engine, GlobalComm
from ...communication._engine import ReduceOp
from ...communication._ops import _all_gather, _all_reduce, _alltoall, _broadcast, _reduce_scatter
from ...tensor import Tensor
from . import loops as _comm_loops  # noqa: F401 - registers the shared all-reduce's loop with the loop loader
from ..operations import Primitive

__all__ = ["ReduceOp", "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "AlltoAll"]


# ------------------------------------------------------------------ primitives
def _check_group(group, who):
    if not isinstance(group, str):
        raise TypeError(f"{who}: group must be a str, got {type(group).__name__}")
    return group


def _check_int(value, name, who):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{who}: {name} must be an int, got {type(value).__name__}")
    return int(value)


def _tensor(x, who):
    if not isinstance(x, Tensor):
        raise TypeError(f"{who}: the input must be a Tensor, got {type(x).__name__}")
    if x.dtype is not None and np.dtype(x._data.dtype).kind == "b":
        raise TypeError(f"{who}: bool tensors are not supported, got dtype {x.dtype}")
    _engine.require(who)
    return x


def _check_reduce_op(op, who):
    """``op`` as a reduction name (``ReduceOp.SUM`` ...), or the error naming ``who``."""
    if not isinstance(op, str):
        raise TypeError(f"{who}: op must be a str, got {type(op).__name__}")
    if op not in _engine.REDUCE_OPS:
        raise ValueError(f"{who}: op must be one of {list(_engine.REDUCE_OPS)}, got {op!r}")
    return op


class AllReduce(Primitive):
    """All-reduce ``input_x`` over ``group`` (``op``: "sum", "max", "min", "prod"); differentiable.

    Example::

        ops.AllReduce()(ms.Tensor([1.0, 2.0]))          # [2., 4.] on each of 2 ranks
    """

    def __init__(self, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__("AllReduce")
        self.add_prim_attr("op", _check_reduce_op(op, "AllReduce"))
        self.add_prim_attr("group", _check_group(group, "AllReduce"))

    def __call__(self, input_x):
        return _all_reduce(_tensor(input_x, "AllReduce"), self.op, self.group)


class AllGather(Primitive):
    """Concatenate every rank's ``input_x`` along the first dimension: ``(N*x1, x2, ...)``."""

    def __init__(self, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__("AllGather")
        self.add_prim_attr("group", _check_group(group, "AllGather"))

    def __call__(self, input_x):
        return _all_gather(_tensor(input_x, "AllGather"), self.group)


class ReduceScatter(Primitive):
    """Reduce over ``group``, then rank ``i`` keeps block ``i`` of the first dimension: ``(x1/N, x2, ...)``."""

    def __init__(self, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__("ReduceScatter")
        self.add_prim_attr("op", _check_reduce_op(op, "ReduceScatter"))
        self.add_prim_attr("group", _check_group(group, "ReduceScatter"))

    def __call__(self, input_x):
        return _reduce_scatter(_tensor(input_x, "ReduceScatter"), self.op, self.group)


class Broadcast(Primitive):
    """Every rank receives ``root_rank``'s tensors (a world rank); takes and returns a tuple of Tensors.

    Example::

        (y,) = ops.Broadcast(0)((x,))
    """

    def __init__(self, root_rank, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__("Broadcast")
        self.add_prim_attr("root_rank", _check_int(root_rank, "root_rank", "Broadcast"))
        self.add_prim_attr("group", _check_group(group, "Broadcast"))

    def __call__(self, input_x):
        if isinstance(input_x, Tensor):
            raise TypeError("Broadcast: the input must be a tuple of Tensors, as in MindSpore "
                            "(write ops.Broadcast(root)((x,))), got a Tensor")
        if not isinstance(input_x, (tuple, list)):
            raise TypeError(f"Broadcast: the input must be a tuple of Tensors, got {type(input_x).__name__}")
        from ...communication import get_group_rank_from_world_rank
        xs = [_tensor(x, "Broadcast") for x in input_x]
        root = get_group_rank_from_world_rank(self.root_rank, self.group)
        return tuple(_broadcast(x, root, self.group) for x in xs)


class AlltoAll(Primitive):
    """Split ``input_x`` into ``split_count`` blocks along ``split_dim``, send block ``i`` to rank ``i``,
    concatenate the received blocks along ``concat_dim``."""

    def __init__(self, split_count, split_dim, concat_dim, group=GlobalComm.WORLD_COMM_GROUP):
        super().__init__("AlltoAll")
        self.add_prim_attr("split_count", _check_int(split_count, "split_count", "AlltoAll"))
        self.add_prim_attr("split_dim", _check_int(split_dim, "split_dim", "AlltoAll"))
        self.add_prim_attr("concat_dim", _check_int(concat_dim, "concat_dim", "AlltoAll"))
        self.add_prim_attr("group", _check_group(group, "AlltoAll"))

    def __call__(self, input_x):
        x = _tensor(input_x, "AlltoAll")
        nd = x.ndim
        sd = self.split_dim + nd if self.split_dim < 0 else self.split_dim
        cd = self.concat_dim + nd if self.concat_dim < 0 else self.concat_dim
        return _alltoall(x, self.split_count, sd, cd, self.group)
