"""Collectives on tensors in MindSpore 2.10's functional form (``ops.all_reduce``, ``all_gather_into_tensor``,
``reduce_scatter_tensor``, ``broadcast``, ``all_to_all_single`` ...), over ``mscustom.communication`` (MPI).

They work in place, as MindSpore's do by default: the result is written into ``tensor`` / ``output``
and the call returns None, or with ``async_op=True`` a handle whose ``wait()`` returns at once (the
work is done when the call returns). Ranks in arguments (``src``, ``dst``) are world ranks. These
writes are not recorded for gradients; the differentiable collectives are ``ops.AllReduce`` & co.

Example (under ``python -m mscustom.run -n 2``)::

    ops.init_process_group()
    t = ms.Tensor(np.ones(4, np.float32)); ops.all_reduce(t)        # t is all 2.0 on both ranks
"""

import numpy as np

from ...communication import _engine
from ...communication import _ops as _diff
from ...tensor import Tensor
from ._common import (check_int, check_op, check_tensor, contiguous, finish_avg, group_of, group_rank, handle,
                      mpi_reduce_op, write)
from ._mode import inplace, require_inplace

__all__ = ["all_reduce", "all_gather_into_tensor", "all_gather_into_tensor_uneven", "all_gather",
           "reduce_scatter_tensor", "reduce_scatter_tensor_uneven", "reduce_scatter", "reduce", "broadcast",
           "barrier", "scatter_tensor", "gather_into_tensor", "all_to_all", "all_to_all_single", "all_to_all_v_c"]


def _split_sizes(sizes, total, n, who, name):
    """Dim-0 sizes per rank: ``sizes`` checked, or ``total`` split evenly over ``n`` ranks."""
    if sizes is None or (isinstance(sizes, (list, tuple)) and len(sizes) == 0):
        if total % n:
            raise ValueError(f"For '{who}', dimension 0 ({total}) must be divisible by the group's size {n} when "
                             f"{name} is not given")
        return [total // n] * n
    if not isinstance(sizes, (list, tuple)) or len(sizes) != n:
        raise ValueError(f"For '{who}', {name} must be a list of {n} ints (one per rank), got {sizes!r}")
    sizes = [check_int(s, name, who) for s in sizes]
    if any(s < 0 for s in sizes) or sum(sizes) != total:
        raise ValueError(f"For '{who}', {name} must be non-negative and sum to {total}, got {sizes}")
    return sizes


def _row(shape):
    return int(np.prod(shape[1:], dtype=np.int64)) if len(shape) else 1


def _exchange_v(send, send_counts, recv, recv_counts, g, who):
    """All-to-all of ``send`` (flat) in ``send_counts`` pieces; ``recv`` (flat) gets ``recv_counts``."""
    if g.comm is None:
        recv[...] = send
        return
    sd = np.concatenate([[0], np.cumsum(send_counts)[:-1]]).astype(int)
    rd = np.concatenate([[0], np.cumsum(recv_counts)[:-1]]).astype(int)
    _engine.wait(g.comm.Ialltoallv([send, (list(send_counts), list(sd))], [recv, (list(recv_counts), list(rd))]),
                 who, g)


def all_reduce(tensor, op="sum", group=None, async_op=False):
    """Reduce ``tensor`` over ``group`` in place; ``op``: "sum", "prod", "min", "max", "avg" (the sum / size)."""
    who = "all_reduce"
    check_tensor(tensor, "tensor", who)
    check_op(op, who)
    g = group_of(group, who)
    if not inplace(who):                                  # functional: a new, differentiable Tensor
        out = _diff._all_reduce(tensor, "sum" if op == "avg" else op, g.name)
        return (out / g.size if op == "avg" else out), handle(async_op, who)
    out = _engine.allreduce(contiguous(tensor), "sum" if op == "avg" else op, g, who)
    write(tensor, finish_avg(out, op, g.size), who, "tensor")
    return handle(async_op, who)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """``output_tensor`` = every rank's ``input_tensor`` concatenated along dimension 0."""
    who = "all_gather_into_tensor"
    check_tensor(input_tensor, "input_tensor", who)
    g = group_of(group, who)
    if not inplace(who):                                  # functional: output_tensor is not used
        return _diff._all_gather(input_tensor, g.name), handle(async_op, who)
    check_tensor(output_tensor, "output_tensor", who)
    x = contiguous(input_tensor)
    write(output_tensor, _engine.allgather(x if x.ndim else x.reshape(1), g, who), who, "output_tensor")
    return handle(async_op, who)


def all_gather_into_tensor_uneven(output, input, output_split_sizes=None, group=None,  # noqa: A002
                                  async_op=False):
    """``output`` = the ranks' ``input`` (dim 0 of rank ``i``: ``output_split_sizes[i]``) concatenated along
    dimension 0; None splits ``output`` evenly."""
    who = "all_gather_into_tensor_uneven"
    require_inplace(who)
    check_tensor(output, "output", who)
    check_tensor(input, "input", who)
    g = group_of(group, who)
    x = contiguous(input)
    out_shape = tuple(output.shape)
    sizes = _split_sizes(output_split_sizes, out_shape[0] if out_shape else 0, g.size, who, "output_split_sizes")
    if x.ndim == 0 or x.shape[0] != sizes[g.rank] or x.shape[1:] != out_shape[1:]:
        raise ValueError(f"For '{who}', input must have shape ({sizes[g.rank]}, *{out_shape[1:]}) on rank {g.rank}, "
                         f"got {x.shape}")
    out = np.empty(out_shape, x.dtype)
    if g.comm is None:
        out[...] = x
    else:
        counts = [s * _row(out_shape) for s in sizes]
        displs = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(int)
        _engine.wait(g.comm.Iallgatherv(x.reshape(-1), [out.reshape(-1), (counts, list(displs))]), who, g)
    write(output, out, who, "output")
    return handle(async_op, who)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """``tensor_list[i]`` = rank ``i``'s ``tensor`` (a list of one Tensor per rank, each of its shape)."""
    who = "all_gather"
    require_inplace(who)
    check_tensor(tensor, "tensor", who)
    g = group_of(group, who)
    if not isinstance(tensor_list, (list, tuple)) or len(tensor_list) != g.size:
        raise TypeError(f"For '{who}', tensor_list must be a list of {g.size} Tensors (the group's size), got "
                        f"{tensor_list!r}")
    for t in tensor_list:
        check_tensor(t, "tensor_list", who)
        if tuple(t.shape) != tuple(tensor.shape) or t.dtype != tensor.dtype:
            raise TypeError(f"For '{who}', every Tensor of tensor_list must have tensor's shape {tuple(tensor.shape)} "
                            f"and dtype {tensor.dtype}, got {tuple(t.shape)} {t.dtype}")
    got = _engine.allgather(contiguous(tensor)[None], g, who)
    for t, part in zip(tensor_list, got):
        write(t, part, who, "tensor_list")
    return handle(async_op, who)


def reduce_scatter_tensor(output, input, op="sum", group=None, async_op=False):  # noqa: A002
    """Reduce ``input`` over the group; rank ``i``'s ``output`` = block ``i`` of dimension 0."""
    who = "reduce_scatter_tensor"
    check_tensor(input, "input", who)
    check_op(op, who)
    g = group_of(group, who)
    if not inplace(who):                                  # functional: output is not used
        out = _diff._reduce_scatter(input, "sum" if op == "avg" else op, g.name)
        return (out / g.size if op == "avg" else out), handle(async_op, who)
    check_tensor(output, "output", who)
    out = _engine.reduce_scatter(contiguous(input), "sum" if op == "avg" else op, g, who)
    write(output, finish_avg(out, op, g.size), who, "output")
    return handle(async_op, who)


def reduce_scatter_tensor_uneven(output, input, input_split_sizes=None, op="sum", group=None,  # noqa: A002
                                 async_op=False):
    """Reduce ``input`` over the group; rank ``i``'s ``output`` = its block of dimension 0, of
    ``input_split_sizes[i]`` rows (None: even blocks). ``op``: "sum", "min", "max", "avg"."""
    who = "reduce_scatter_tensor_uneven"
    require_inplace(who)
    check_tensor(output, "output", who)
    check_tensor(input, "input", who)
    check_op(op, who, ("sum", "min", "max", "avg"))
    g = group_of(group, who)
    x = contiguous(input)
    sizes = _split_sizes(input_split_sizes, x.shape[0] if x.ndim else 0, g.size, who, "input_split_sizes")
    total = _engine.allreduce(x, "sum" if op == "avg" else op, g, who)
    start = sum(sizes[:g.rank])
    write(output, finish_avg(total[start:start + sizes[g.rank]], op, g.size), who, "output")
    return handle(async_op, who)


def reduce_scatter(output, input_list, op="sum", group=None, async_op=False):
    """Reduce ``input_list`` (one Tensor per rank) over the group; rank ``i``'s ``output`` = the reduced
    ``input_list[i]``."""
    who = "reduce_scatter"
    require_inplace(who)
    check_tensor(output, "output", who)
    check_op(op, who)
    g = group_of(group, who)
    if not isinstance(input_list, (list, tuple)) or len(input_list) != g.size:
        raise TypeError(f"For '{who}', input_list must be a list of {g.size} Tensors (the group's size)")
    for t in input_list:
        check_tensor(t, "input_list", who)
        if tuple(t.shape) != tuple(output.shape) or t.dtype != output.dtype:
            raise TypeError(f"For '{who}', every Tensor of input_list must have output's shape {tuple(output.shape)} "
                            f"and dtype {output.dtype}, got {tuple(t.shape)} {t.dtype}")
    stacked = np.ascontiguousarray(np.stack([t.asnumpy() for t in input_list]))
    out = _engine.reduce_scatter(stacked, "sum" if op == "avg" else op, g, who)[0]
    write(output, finish_avg(out, op, g.size), who, "output")
    return handle(async_op, who)


def reduce(tensor, dst, op="sum", group=None, async_op=False):
    """Reduce ``tensor`` over the group into world rank ``dst``'s ``tensor`` (in place); the other ranks'
    tensors are left as they are."""
    who = "reduce"
    require_inplace(who)
    check_tensor(tensor, "tensor", who)
    check_op(op, who)
    g = group_of(group, who)
    root = group_rank(g, dst, "dst", who)
    x = contiguous(tensor)
    if g.comm is None:
        out = x.copy()
    else:
        _engine.check_signature(g, who, _engine.signature(x, op, root))
        out = np.empty_like(x)
        _engine.wait(g.comm.Ireduce(x, out, mpi_reduce_op(op), root=root), who, g)
    if g.rank == root:
        write(tensor, finish_avg(out, op, g.size), who, "tensor")
    return handle(async_op, who)


def broadcast(tensor, src, group=None, async_op=False):
    """Every rank's ``tensor`` becomes world rank ``src``'s (in place)."""
    who = "broadcast"
    require_inplace(who)
    check_tensor(tensor, "tensor", who)
    g = group_of(group, who)
    root = group_rank(g, src, "src", who)
    write(tensor, _engine.broadcast(contiguous(tensor), root, g, who), who, "tensor")
    return handle(async_op, who)


def barrier(group=None, async_op=False, device_ids=None):
    """Return once every rank of ``group`` has called it (``device_ids`` is unused)."""
    g = group_of(group, "barrier")
    _engine.barrier(g, "barrier")
    return handle(async_op, "barrier")


def scatter_tensor(output_tensor, input_tensor, src=0, group=None, async_op=False):
    """World rank ``src``'s ``input_tensor`` split evenly along dimension 0: rank ``i``'s ``output_tensor``
    = block ``i`` (other ranks' ``input_tensor`` is unused)."""
    who = "scatter_tensor"
    require_inplace(who)
    check_tensor(output_tensor, "output_tensor", who)
    check_tensor(input_tensor, "input_tensor", who)
    g = group_of(group, who)
    root = group_rank(g, src, "src", who)
    out = np.empty(tuple(output_tensor.shape), output_tensor.asnumpy().dtype)
    send = None
    if g.rank == root:
        x = contiguous(input_tensor).astype(out.dtype, copy=False)
        if x.ndim == 0 or x.shape[0] != g.size * (out.shape[0] if out.ndim else 1) or x.shape[1:] != out.shape[1:]:
            raise ValueError(f"For '{who}', input_tensor must have shape ({g.size} * {out.shape[:1]}, "
                             f"*{out.shape[1:]}), got {x.shape}")
        send = x
    if g.comm is None:
        out[...] = send.reshape(out.shape)
    else:
        _engine.wait(g.comm.Iscatter(send, out, root=root), who, g)
    write(output_tensor, out, who, "output_tensor")
    return handle(async_op, who)


def gather_into_tensor(output_tensor, input_tensor, dst=0, group=None, async_op=False):
    """World rank ``dst``'s ``output_tensor`` = every rank's ``input_tensor`` concatenated along dimension
    0 (other ranks' ``output_tensor`` is left as it is)."""
    who = "gather_into_tensor"
    require_inplace(who)
    check_tensor(output_tensor, "output_tensor", who)
    check_tensor(input_tensor, "input_tensor", who)
    g = group_of(group, who)
    root = group_rank(g, dst, "dst", who)
    x = contiguous(input_tensor)
    x = x if x.ndim else x.reshape(1)
    out = np.empty((g.size * x.shape[0],) + x.shape[1:], x.dtype) if g.rank == root else None
    if g.comm is None:
        out[...] = x
    else:
        _engine.check_signature(g, who, _engine.signature(x, root))
        _engine.wait(g.comm.Igather(x, out, root=root), who, g)
    if g.rank == root:
        write(output_tensor, out, who, "output_tensor")
    return handle(async_op, who)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Rank ``r`` sends ``input_tensor_list[i]`` to rank ``i``; ``output_tensor_list[i]`` receives what rank
    ``i`` sent (lists of one Tensor per rank, of one dtype; shapes may differ)."""
    who = "all_to_all"
    g = group_of(group, who)
    functional = not inplace(who)
    for name, lst in (("output_tensor_list", output_tensor_list), ("input_tensor_list", input_tensor_list)):
        if not isinstance(lst, (list, tuple)) or len(lst) != g.size:
            raise TypeError(f"For '{who}', {name} must be a list of {g.size} Tensors (the group's size)")
        for t in lst:
            if not (functional and name == "output_tensor_list" and isinstance(t, (tuple, list))):
                check_tensor(t, name, who)      # functional: outputs may be given by their shapes
    dtypes = {t.dtype for t in list(output_tensor_list) + list(input_tensor_list) if isinstance(t, Tensor)}
    if len(dtypes) != 1:
        raise TypeError(f"For '{who}', every Tensor must have one dtype, got {sorted(map(str, dtypes))}")
    ins = [contiguous(t).reshape(-1) for t in input_tensor_list]
    send = np.ascontiguousarray(np.concatenate(ins))
    shapes = [tuple(t.shape) if isinstance(t, Tensor) else tuple(t) for t in output_tensor_list]
    recv_counts = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    recv = np.empty(sum(recv_counts), send.dtype)
    _exchange_v(send, [a.size for a in ins], recv, recv_counts, g, who)
    parts = np.split(recv, np.cumsum(recv_counts)[:-1])
    if functional:
        return tuple(Tensor._wrap(p.reshape(s).copy()) for p, s in zip(parts, shapes)), handle(async_op, who)
    for t, p, s in zip(output_tensor_list, parts, shapes):
        write(t, p.reshape(s), who, "output_tensor_list")
    return handle(async_op, who)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,  # noqa: A002
                      async_op=False):
    """Rank ``r`` sends block ``i`` of ``input``'s dimension 0 (``input_split_sizes[i]`` rows; None: even)
    to rank ``i``; ``output`` = the blocks received, in rank order (``output_split_sizes``)."""
    who = "all_to_all_single"
    check_tensor(input, "input", who)
    g = group_of(group, who)
    x = contiguous(input)
    functional = not inplace(who)
    if functional:                    # output: a Tensor or a shape; the result's shape follows the splits
        out_shape = tuple(output.shape) if isinstance(output, Tensor) else tuple(output)
        rows = _split_sizes(output_split_sizes, out_shape[0] if out_shape else 0, g.size, who, "output_split_sizes")
        output = Tensor._wrap(np.zeros((sum(rows),) + tuple(x.shape[1:]), x.dtype))
    check_tensor(output, "output", who)
    if x.ndim == 0 or len(output.shape) == 0 or tuple(output.shape[1:]) != x.shape[1:]:
        raise ValueError(f"For '{who}', input and output must be at least 1-D and agree beyond dimension 0, got "
                         f"{x.shape} and {tuple(output.shape)}")
    send_rows = _split_sizes(input_split_sizes, x.shape[0], g.size, who, "input_split_sizes")
    recv_rows = _split_sizes(output_split_sizes, output.shape[0], g.size, who, "output_split_sizes")
    row = _row(x.shape)
    recv = np.empty(tuple(output.shape), x.dtype)
    _exchange_v(x.reshape(-1), [s * row for s in send_rows], recv.reshape(-1), [s * row for s in recv_rows], g, who)
    if functional:
        return Tensor._wrap(recv), handle(async_op, who)
    write(output, recv, who, "output")
    return handle(async_op, who)


def all_to_all_v_c(output, input, send_count_matrix, group=None, async_op=False):  # noqa: A002
    """All-to-all by a count matrix: ``send_count_matrix[i * n + j]`` rows (of dimension 0) go from rank ``i``
    to rank ``j``; ``output`` = the rows received, in rank order."""
    who = "all_to_all_v_c"
    require_inplace(who)
    check_tensor(output, "output", who)
    check_tensor(input, "input", who)
    g = group_of(group, who)
    n = g.size
    if not isinstance(send_count_matrix, (list, tuple)) or len(send_count_matrix) != n * n:
        raise ValueError(f"For '{who}', send_count_matrix must be a list of {n * n} ints (group size squared), got "
                         f"{send_count_matrix!r}")
    counts = [check_int(c, "send_count_matrix", who) for c in send_count_matrix]
    x = contiguous(input)
    x = x if x.ndim else x.reshape(1)
    send_rows = counts[g.rank * n:(g.rank + 1) * n]
    recv_rows = [counts[i * n + g.rank] for i in range(n)]
    if sum(send_rows) != x.shape[0] or len(output.shape) == 0 or sum(recv_rows) != output.shape[0]:
        raise ValueError(f"For '{who}', rank {g.rank} sends {sum(send_rows)} and receives {sum(recv_rows)} rows by "
                         f"send_count_matrix; input has shape {x.shape}, output {tuple(output.shape)}")
    row = _row(x.shape)
    recv = np.empty(tuple(output.shape), x.dtype)
    _exchange_v(x.reshape(-1), [s * row for s in send_rows], recv.reshape(-1), [s * row for s in recv_rows], g, who)
    write(output, recv, who, "output")
    return handle(async_op, who)
