"""The process group's functional API (``ops.init_process_group``, ``get_rank``, ``new_group`` ...),
over ``mscustom.communication`` (MPI).

One process (no mpiexec) is rank 0 of a world of 1; under ``mpiexec -n N`` (or
``python -m mscustom.run -n N``) the world is MPI's. ``new_group`` names groups after their ranks.

Example::

    ops.init_process_group()
    ops.get_rank(), ops.get_world_size()          # 0, 1 alone
"""

from datetime import timedelta

from ... import communication as _comm
from ...communication import _engine
from ._common import WORLD, check_int, group_name, group_of

__all__ = ["init_process_group", "destroy_process_group", "is_available", "is_initialized", "get_rank",
           "get_world_size", "get_backend", "get_global_rank", "get_group_rank", "get_process_group_ranks",
           "new_group"]

_BACKENDS = ("hccl", "mccl", "nccl", "mpi")


def is_available():
    """True: communication is always available (over MPI, or alone as a world of one)."""
    return True


def is_initialized():
    """Whether ``init_process_group`` (or ``mscustom.communication.init``) has run."""
    return bool(_engine.STATE.inited)


def init_process_group(backend="hccl", init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Join the world group: every rank of ``mpiexec``, or rank 0 of 1 alone.

    ``backend``: "hccl" (MindSpore's default), "mccl", "nccl" or "mpi"; all run on MPI. The processes
    are started by mpiexec, so ``init_method`` and ``store`` (a rendezvous) are refused; ``world_size``
    and ``rank``, when given, must be what mpiexec gave. ``timeout``, ``pg_options``, ``device_id``
    are accepted and unused (a collective's wait is bounded by ``MSCUSTOM_COMM_TIMEOUT``).
    """
    who = "init_process_group"
    if backend not in _BACKENDS:
        raise ValueError(f"For '{who}', backend must be one of {list(_BACKENDS)} (all run on MPI), got {backend!r}")
    if init_method is not None or store is not None:
        raise ValueError(f"For '{who}', init_method and store are not supported: the processes are started and "
                         "connected by mpiexec ('python -m mscustom.run -n N script.py')")
    if timeout is not None and not isinstance(timeout, timedelta):
        raise TypeError(f"For '{who}', timeout must be a datetime.timedelta or None, got {type(timeout).__name__}")
    check_int(world_size, "world_size", who)
    check_int(rank, "rank", who)
    if not isinstance(group_name, str):
        raise TypeError(f"For '{who}', group_name must be a str, got {type(group_name).__name__}")
    _comm.init(backend)
    world = _engine.STATE.world
    if world_size not in (-1, world.size):
        raise ValueError(f"For '{who}', world_size must be -1 or the number of processes {world.size}, "
                         f"got {world_size}")
    if rank not in (-1, world.rank):
        raise ValueError(f"For '{who}', rank must be -1 or this process's rank {world.rank}, got {rank}")


def destroy_process_group(group=None):
    """Free ``group`` (made by ``new_group``); None or the world group: free every group and leave the
    process group (``is_initialized()`` is then False; ``init_process_group`` may be called again)."""
    if group is not None and not isinstance(group, str):
        raise TypeError("For 'destroy_process_group', the argument 'group' must be a str or None, got "
                        f"{type(group).__name__}")
    if group is None or group in _engine.WORLD_NAMES:
        if _engine.STATE.inited:
            _comm.release()
            _engine.STATE.inited = False
            _comm.GlobalComm.INITED = False
        return
    group_of(group, "destroy_process_group")
    _comm.destroy_group(group)


def get_rank(group=None):
    """This process's rank in ``group`` (None: the world); 0 before initialization."""
    name = group_name(group, "get_rank")
    if not _engine.STATE.inited and name in _engine.WORLD_NAMES:
        return 0
    return group_of(name, "get_rank").rank


def get_world_size(group=None):
    """The number of ranks in ``group`` (None: the world); 1 before initialization."""
    name = group_name(group, "get_world_size")
    if not _engine.STATE.inited and name in _engine.WORLD_NAMES:
        return 1
    return group_of(name, "get_world_size").size


def get_backend(group=None):
    """The backend's name, as MindSpore answers it: "hccl" for the world group, else the prefix of a
    ``new_group`` name ("mccl_group_0_1" is "mccl"). Every backend runs on MPI here."""
    name = group_name(group, "get_backend")
    prefix = name.split("_", 1)[0]
    return prefix if prefix in _BACKENDS and name not in _engine.WORLD_NAMES else "hccl"


def get_global_rank(group, group_rank):
    """The world rank of ``group``'s rank ``group_rank``."""
    g = group_of(group, "get_global_rank")
    r = check_int(group_rank, "group_rank", "get_global_rank")
    if not 0 <= r < g.size:
        raise ValueError(f"For 'get_global_rank', group_rank must be in [0, {g.size}), got {r}")
    return g.ranks[r]


def get_group_rank(group, global_rank):
    """``group``'s rank of the world rank ``global_rank``."""
    g = group_of(group, "get_group_rank")
    r = check_int(global_rank, "global_rank", "get_group_rank")
    if r not in g.ranks:
        raise ValueError(f"For 'get_group_rank', world rank {r} is not in group {g.name!r} (its world ranks: "
                         f"{g.ranks})")
    return g.ranks.index(r)


def get_process_group_ranks(group=None):
    """The world ranks in ``group``, in group-rank order."""
    return list(group_of(group, "get_process_group_ranks").ranks)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None):
    """A group of the world ``ranks`` (sorted); returns its name (None: the world group's name).

    Every rank may call it: a rank not in ``ranks`` gets "" (it cannot use the group), as MindSpore
    answers when the group cannot be made. Calling it again with the same ranks returns the same name.
    """
    who = "new_group"
    if ranks is None:
        return WORLD
    if not isinstance(ranks, list):
        raise TypeError(f"For '{who}', ranks must be a list, got {type(ranks).__name__}")
    ranks = sorted(check_int(r, "ranks", who) for r in ranks)
    if len(set(ranks)) != len(ranks):
        raise TypeError(f"For '{who}', ranks must not repeat a rank, got {ranks}")
    if backend is not None and backend not in _BACKENDS:
        raise TypeError(f"For '{who}', backend must be one of {list(_BACKENDS)} or None, got {backend!r}")
    world = group_of(None, who)
    name = f"{backend or 'hccl'}_group_" + "_".join(map(str, ranks))
    if world.rank not in ranks:
        return ""
    if name not in _engine.STATE.groups:
        _comm.create_group(name, ranks)
    return name
