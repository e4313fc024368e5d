"""Collectives on picklable Python objects: ``ops.all_gather_object``, ``broadcast_object_list``,
``gather_object``, ``scatter_object_list``, ``send_object_list`` / ``recv_object_list``.

Objects travel pickled, so, as with MindSpore's, only exchange data between ranks of one trusted job:
unpickling can run code. Ranks in arguments are world ranks.

Example (under ``python -m mscustom.run -n 2``)::

    got = [None, None]; ops.all_gather_object(got, {"rank": ops.get_rank()})
"""

import pickle

import numpy as np

from ...communication import _engine
from ._common import check_int, group_of, group_rank
from ._mode import require_inplace

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list",
           "send_object_list", "recv_object_list"]


def _dumps(obj):
    return np.frombuffer(pickle.dumps(obj), np.uint8)


def _loads(buf):
    return pickle.loads(np.ascontiguousarray(buf, np.uint8).tobytes())


def _list(value, name, who, size=None):
    if not isinstance(value, list) or (size is not None and len(value) != size):
        need = f"a list of {size} items (the group's size)" if size is not None else "a list"
        raise TypeError(f"For '{who}', {name} must be {need}, got {value!r}")
    return value


def _gather_bytes(payload, g, who, root=None):
    """Every rank's bytes (root None: to every rank; else to ``root`` only, others get None)."""
    if g.comm is None:
        return [payload]
    sizes = _engine.allgather(np.array([payload.size], np.int64), g, who)
    if root is not None and g.rank != root:
        _engine.wait(g.comm.Igatherv(payload, None, root=root), who, g)
        return None
    out = np.empty(int(sizes.sum()), np.uint8)
    displs = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
    spec = [out, (list(map(int, sizes)), list(displs))]
    req = g.comm.Iallgatherv(payload, spec) if root is None else g.comm.Igatherv(payload, spec, root=root)
    _engine.wait(req, who, g)
    return [out[d:d + s] for d, s in zip(displs, sizes)]


def _broadcast_bytes(payload, root, g, who):
    if g.comm is None:
        return payload
    size = _engine.broadcast(np.array([payload.size if g.rank == root else 0], np.int64), root, g, who)
    buf = payload if g.rank == root else np.empty(int(size[0]), np.uint8)
    _engine.wait(g.comm.Ibcast(buf, root=root), who, g)
    return buf


def all_gather_object(object_list, obj, group=None):
    """``object_list[i]`` = rank ``i``'s ``obj`` (``object_list`` has one item per rank)."""
    who = "all_gather_object"
    require_inplace(who)
    g = group_of(group, who)
    _list(object_list, "object_list", who, g.size)
    for i, part in enumerate(_gather_bytes(_dumps(obj), g, who)):
        object_list[i] = _loads(part)


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """Every rank's ``object_list`` items become world rank ``src``'s (lists of the same length)."""
    who = "broadcast_object_list"
    require_inplace(who)
    g = group_of(group, who)
    root = group_rank(g, src, "src", who)
    _list(object_list, "object_list", who)
    got = _loads(_broadcast_bytes(_dumps(list(object_list)) if g.rank == root else None, root, g, who))
    if len(got) != len(object_list):
        raise ValueError(f"For '{who}', object_list has {len(object_list)} items on rank {g.ranks[g.rank]}, "
                         f"{len(got)} on the source rank {src}")
    object_list[:] = got


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    """World rank ``dst``'s ``object_gather_list[i]`` = rank ``i``'s ``obj`` (None on the other ranks)."""
    who = "gather_object"
    require_inplace(who)
    g = group_of(group, who)
    root = group_rank(g, dst, "dst", who)
    if g.rank == root:
        _list(object_gather_list, "object_gather_list", who, g.size)
    parts = _gather_bytes(_dumps(obj), g, who, root=root)
    if g.rank == root:
        for i, part in enumerate(parts):
            object_gather_list[i] = _loads(part)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0, group=None):
    """``scatter_object_output_list[0]`` = world rank ``src``'s ``scatter_object_input_list[i]`` on rank ``i``."""
    who = "scatter_object_list"
    require_inplace(who)
    g = group_of(group, who)
    root = group_rank(g, src, "src", who)
    out = _list(scatter_object_output_list, "scatter_object_output_list", who)
    if not out:
        raise TypeError(f"For '{who}', scatter_object_output_list must not be empty")
    if g.rank == root:
        _list(scatter_object_input_list, "scatter_object_input_list", who, g.size)
        payload = _dumps(list(scatter_object_input_list))
    else:
        payload = None
    out[0] = _loads(_broadcast_bytes(payload, root, g, who))[g.rank]


def send_object_list(object_list, dst, group=None, device=None):
    """Send ``object_list``'s items to world rank ``dst`` (which calls ``recv_object_list``)."""
    who = "send_object_list"
    require_inplace(who)
    g = group_of(group, who)
    r = group_rank(g, check_int(dst, "dst", who), "dst", who)
    if r == g.rank:
        raise ValueError(f"For '{who}', dst must be another rank than this process's, got {dst}")
    payload = _dumps(list(_list(object_list, "object_list", who)))
    _engine.send(np.array([payload.size], np.int64), r, g, 0, who)
    _engine.send(payload, r, g, 0, who)


def recv_object_list(object_list, src=0, group=None, device=None):
    """Fill ``object_list`` with the items world rank ``src`` sends by ``send_object_list``; returns 0."""
    who = "recv_object_list"
    require_inplace(who)
    g = group_of(group, who)
    r = group_rank(g, check_int(src, "src", who), "src", who)
    if r == g.rank:
        raise ValueError(f"For '{who}', src must be another rank than this process's, got {src}")
    _list(object_list, "object_list", who)
    size = _engine.recv((1,), np.int64, r, g, 0, who)
    got = _loads(_engine.recv((int(size[0]),), np.uint8, r, g, 0, who))
    if len(got) != len(object_list):
        raise ValueError(f"For '{who}', object_list has {len(object_list)} items, rank {src} sent {len(got)}")
    object_list[:] = got
    return 0
