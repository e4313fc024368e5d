"""What the functional communication ops share: the group argument (None is the world), world-rank
to group-rank mapping, argument checks, the async handle, in-place writes, element-wise reductions."""

import numpy as np

from ...communication import _engine
from ...communication._engine import WORLD_NAMES
from ...communication.comm_func import CommHandle
from ...tensor import Tensor

WORLD = WORLD_NAMES[0]
REDUCE_OPS = ("sum", "prod", "min", "max", "avg")


def group_name(group, who):
    """``group`` (None: the world group) checked to be a str."""
    if group is None:
        return WORLD
    if not isinstance(group, str):
        raise TypeError(f"For '{who}', the argument 'group' must be a str or None, got {type(group).__name__}")
    return group


def group_of(group, who):
    """The engine's Group for ``group``; a RuntimeError naming the fix before initialization."""
    name = group_name(group, who)
    if not _engine.STATE.inited:
        raise RuntimeError(f"{who}: the communication service is not initialized; call "
                           "ops.init_process_group() (or mscustom.communication.init()) first, and start several "
                           "processes with 'python -m mscustom.run -n N script.py' or the venv's mpiexec")
    return _engine.group_of(name, who)


def check_int(value, name, who):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{who}', the argument '{name}' must be an int, got {type(value).__name__}")
    return int(value)


def check_bool(value, name, who):
    if not isinstance(value, bool):
        raise TypeError(f"For '{who}', the argument '{name}' must be a bool, got {type(value).__name__}")
    return value


def check_tensor(value, name, who):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{who}', the argument '{name}' must be a Tensor, got {type(value).__name__}")
    return value


def check_op(op, who, allowed=REDUCE_OPS):
    if not isinstance(op, str) or op not in allowed:
        raise TypeError(f"For '{who}', the argument 'op' must be one of {list(allowed)}, got {op!r}")
    return op


def group_rank(g, world_rank, name, who):
    """``g``'s rank of the world rank ``world_rank`` (a ValueError when it is not in the group)."""
    world_rank = check_int(world_rank, name, who)
    if world_rank not in g.ranks:
        raise ValueError(f"For '{who}', {name}={world_rank} is not a rank of group {g.name!r} (its world ranks: "
                         f"{g.ranks})")
    return g.ranks.index(world_rank)


def handle(async_op, who):
    """None, or a handle whose ``wait()`` returns at once (the work is done when the call returns)."""
    return CommHandle() if check_bool(async_op, "async_op", who) else None


def write(tensor, array, who, what):
    """Write ``array`` into ``tensor`` in place (its shape must match; cast to its dtype)."""
    array = np.asarray(array)
    if tuple(array.shape) != tuple(tensor.shape):
        raise ValueError(f"For '{who}', {what} must have shape {tuple(array.shape)}, got {tuple(tensor.shape)}")
    tensor.copy_(Tensor._wrap(np.ascontiguousarray(array, dtype=tensor.asnumpy().dtype)))


def mpi_reduce_op(op):
    """MPI's reduction for ``op`` ("avg" sums, then divides)."""
    return _engine.mpi_op("sum" if op == "avg" else op)


def finish_avg(array, op, size):
    """The sum divided by the group's size when ``op`` is "avg" (ints truncated), else ``array``."""
    if op != "avg":
        return array
    return (array / size).astype(array.dtype) if array.dtype.kind in "iub" else array / np.asarray(size, array.dtype)


def contiguous(tensor):
    return np.ascontiguousarray(tensor.asnumpy())
