"""Point-to-point transfers: ``ops.send`` / ``recv`` (blocking), ``isend`` / ``irecv`` (a handle to wait
on), ``batch_isend_irecv`` of ``P2POp`` s. Ranks are world ranks; ``recv`` fills its tensor in place.

Example (under ``python -m mscustom.run -n 2``)::

    if ops.get_rank() == 0:
        ops.send(ms.Tensor([1.0, 2.0]), dst=1)
    else:
        t = ms.Tensor([0.0, 0.0]); ops.recv(t, src=0)        # t is [1., 2.]
"""

import numpy as np

from ...communication import _engine
from ...communication.comm_func import CommHandle
from ...tensor import Tensor
from ._common import check_int, check_tensor, contiguous, group_of, group_rank, write
from ._mode import inplace, require_inplace

__all__ = ["send", "recv", "isend", "irecv", "batch_isend_irecv", "P2POp"]


class _Work(CommHandle):
    """The handle of started transfers: ``wait()`` waits for them (watched: a lost peer stops every rank),
    then writes received data into the receiving tensors."""

    def __init__(self, group, requests, who):
        super().__init__()
        self._group, self._requests, self._who = group, requests, who

    def wait(self):
        requests, self._requests = self._requests, []
        for req, target, buf in requests:
            _engine.wait(req, self._who, self._group)
            if target is not None:
                write(target, buf, self._who, "tensor")


def _peer(tensor, peer, group, tag, who, name):
    check_tensor(tensor, "tensor", who)
    check_int(tag, "tag", who)
    g = group_of(group, who)
    r = group_rank(g, peer, name, who)
    if r == g.rank:
        raise ValueError(f"For '{who}', {name} must be another rank than this process's ({g.ranks[g.rank]}), "
                         f"got {peer}")
    return g, r


def _start(kind, tensor, peer, group, tag, who):
    """Start one transfer: (request, tensor to fill or None, buffer)."""
    name = "dst" if kind == "isend" else "src"
    g, r = _peer(tensor, peer, group, tag, who, name)
    if kind == "isend":
        buf = contiguous(tensor).copy()
        return g, (g.comm.Isend(buf, dest=r, tag=tag), None, buf)
    buf = np.empty(tuple(tensor.shape), tensor.asnumpy().dtype)
    return g, (g.comm.Irecv(buf, source=r, tag=tag), tensor, buf)


def send(tensor, dst=0, group=None, tag=0):
    """Send ``tensor`` to world rank ``dst``, which calls ``recv`` with the same ``tag``."""
    g, r = _peer(tensor, dst, group, tag, "send", "dst")
    _engine.send(contiguous(tensor), r, g, tag, "send")


def recv(tensor, src=0, group=None, tag=0):
    """Fill ``tensor`` (in place) with what world rank ``src`` sends with ``tag``; returns 0.
    (Functional, see ``set_comm_ops_inplace``: returns a new Tensor of ``tensor``'s shape and dtype.)"""
    g, r = _peer(tensor, src, group, tag, "recv", "src")
    got = _engine.recv(tuple(tensor.shape), tensor.asnumpy().dtype, r, g, tag, "recv")
    if not inplace("recv"):
        return Tensor._wrap(got)
    write(tensor, got, "recv", "tensor")
    return 0


def isend(tensor, dst=0, group=None, tag=0):
    """Start sending ``tensor`` to world rank ``dst``; returns a handle (``wait()`` before reusing ranks' data)."""
    g, item = _start("isend", tensor, dst, group, tag, "isend")
    return _Work(g, [item], "isend")


def irecv(tensor, src=0, group=None, tag=0):
    """Start receiving into ``tensor`` from world rank ``src``; ``tensor`` holds the data after ``wait()``.
    (Functional, see ``set_comm_ops_inplace``: returns ``(new Tensor, handle)``, filled by ``wait()``.)"""
    if not inplace("irecv"):
        check_tensor(tensor, "tensor", "irecv")
        target = Tensor._wrap(np.zeros(tuple(tensor.shape), tensor.asnumpy().dtype))
        g, item = _start("irecv", target, src, group, tag, "irecv")
        return target, _Work(g, [item], "irecv")
    g, item = _start("irecv", tensor, src, group, tag, "irecv")
    return _Work(g, [item], "irecv")


class P2POp:
    """One transfer of ``batch_isend_irecv``: ``op`` "isend" / "irecv" (or ``ops.isend`` / ``ops.irecv``),
    the tensor, the peer's world rank, the group; ``tag`` must be 0 (as in MindSpore)."""

    def __init__(self, op, tensor, peer, group=None, tag=0):
        if op in (isend, irecv):
            op = op.__name__
        if op not in ("isend", "irecv"):
            raise TypeError(f"For 'P2POp', op must be 'isend', 'irecv', ops.isend or ops.irecv, got {op!r}")
        check_tensor(tensor, "tensor", "P2POp")
        if isinstance(peer, bool) or not isinstance(peer, int):
            raise TypeError(f"For 'P2POp', the peer must be an int, got {type(peer).__name__}")
        if tag != 0:
            raise NotImplementedError(f"For 'P2POp', tag is not supported (must be 0), got {tag!r}")
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag


def batch_isend_irecv(p2p_op_list):
    """Start every transfer of ``p2p_op_list`` (``P2POp`` s of one group); returns ``[handle]``, whose
    ``wait()`` waits for all of them and fills the receiving tensors."""
    who = "batch_isend_irecv"
    require_inplace(who)
    if not isinstance(p2p_op_list, (list, tuple)) or not p2p_op_list or \
            not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise TypeError(f"For '{who}', p2p_op_list must be a non-empty list of P2POp, got {p2p_op_list!r}")
    if len({p.group for p in p2p_op_list}) != 1:
        raise TypeError(f"For '{who}', every P2POp must use the same group, got "
                        f"{sorted({str(p.group) for p in p2p_op_list})}")
    items, g = [], None
    for p in p2p_op_list:
        g, item = _start(p.op, p.tensor, p.peer, p.group, p.tag, who)
        items.append(item)
    return [_Work(g, items, who)]
