"""MindSpore's functional collectives (``mindspore.communication.comm_func``) over MPI.

``all_reduce``, ``all_gather_into_tensor`` and ``reduce_scatter_tensor`` return
``(Tensor, CommHandle)`` as in MindSpore 2.x: the handle is None unless
``async_op=True`` (the work is done already when they return here; ``wait()``
returns at once). ``broadcast`` and ``recv`` return a Tensor, ``send`` and
``barrier`` None. Ranks (``src``, ``dst``) are world ranks. The first three are
the differentiable ops of ``mscustom.ops`` (``AllReduce`` ...).

Example (under ``python -m mscustom.run -n 2``)::

    from mscustom.communication import init, comm_func
    init()
    out, _ = comm_func.all_reduce(ms.Tensor(np.ones([2, 8], np.float32)))     # all 2.0
"""

import numpy as np

from ..tensor import Tensor
from . import _engine
from ._engine import ReduceOp
from . import GlobalComm, get_group_rank_from_world_rank
from . import _ops

__all__ = ["all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "broadcast", "barrier",
           "send", "recv", "CommHandle", "ReduceOp"]


class CommHandle:
    """The handle of an ``async_op=True`` call; ``wait()`` returns once the work is done."""

    def wait(self):
        return None


def _tensor(tensor, who):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"For {who}, the input tensor must be tensor")
    _engine.require(who)
    return tensor


def _str(value, name, who):
    if not isinstance(value, str):
        raise TypeError(f"For {who}, the input {name} type must be str, got {type(value).__name__}")
    return value


def _int(value, name, who):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For {who}, the {name} must be int, got {type(value).__name__}")
    return value


def _handle(async_op):
    return CommHandle() if async_op else None


def all_reduce(tensor, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP, async_op=False):
    """``(all-reduced tensor, handle)``; ``op``: "sum", "prod", "min" or "max"."""
    _tensor(tensor, "all_reduce")
    _str(op, "op", "all_reduce")
    if op not in ("sum", "prod", "min", "max"):
        raise TypeError("For all_reduce, the input op value must be one of sum, prod, min, max")
    _str(group, "group", "all_reduce")
    return _ops._all_reduce(tensor, op, group), _handle(async_op)


def all_gather_into_tensor(tensor, group=GlobalComm.WORLD_COMM_GROUP, async_op=False):
    """``(every rank's tensor concatenated along dimension 0, handle)``."""
    _tensor(tensor, "all_gather_into_tensor")
    _str(group, "group", "all_gather_into_tensor")
    return _ops._all_gather(tensor, group), _handle(async_op)


def reduce_scatter_tensor(tensor, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP, async_op=False):
    """``(this rank's block of the reduced tensor along dimension 0, handle)``."""
    _tensor(tensor, "reduce_scatter_tensor")
    _str(op, "op", "reduce_scatter_tensor")
    if op not in ("sum", "prod", "min", "max"):
        raise TypeError("For reduce_scatter_tensor, the input op value must be one of sum, prod, min, max")
    _str(group, "group", "reduce_scatter_tensor")
    return _ops._reduce_scatter(tensor, op, group), _handle(async_op)


def broadcast(tensor, src=0, group=GlobalComm.WORLD_COMM_GROUP):
    """World rank ``src``'s tensor, on every rank of ``group``."""
    _tensor(tensor, "broadcast")
    _int(src, "src", "broadcast")
    _str(group, "group", "broadcast")
    return _ops._broadcast(tensor, get_group_rank_from_world_rank(src, group), group)


def barrier(group=GlobalComm.WORLD_COMM_GROUP):
    """Return once every rank of ``group`` has called it."""
    _str(group, "group", "barrier")
    _engine.barrier(_engine.group_of(group, "barrier"))


def send(tensor, dst=0, group=GlobalComm.WORLD_COMM_GROUP, tag=0):
    """Send ``tensor`` to world rank ``dst``; the receiver calls ``recv`` with the same ``tag``."""
    _tensor(tensor, "send")
    _int(dst, "dst", "send")
    _int(tag, "tag", "send")
    g = _engine.group_of(_str(group, "group", "send"), "send")
    _engine.send(tensor.asnumpy(), get_group_rank_from_world_rank(dst, group), g, tag)


def recv(tensor, src=0, group=GlobalComm.WORLD_COMM_GROUP, tag=0):
    """A tensor of ``tensor``'s shape and dtype received from world rank ``src`` (its values are unused)."""
    _tensor(tensor, "recv")
    _int(src, "src", "recv")
    _int(tag, "tag", "recv")
    g = _engine.group_of(_str(group, "group", "recv"), "recv")
    arr = tensor.asnumpy()
    out = _engine.recv(arr.shape, arr.dtype, get_group_rank_from_world_rank(src, group), g, tag)
    return Tensor(np.asarray(out))
