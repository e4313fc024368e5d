"""``mindspore.communication`` over MPI: the process group, its ranks and groups.

Start several processes with ``python -m mscustom.run -n 2 train.py`` (or the
venv's ``mpiexec -n 2 python train.py``), then in each::

    from mscustom.communication import init, get_rank, get_group_size
    init()
    print(get_rank(), "of", get_group_size())

Outside ``mpiexec`` a process is rank 0 of 1 and MPI is never imported, so the
same script also runs alone. Collectives: ``mscustom.ops.AllReduce`` and its
siblings (differentiable ops), and the functional forms in ``comm_func``.
See docs/distributed.md.
"""

from . import _engine
from ._engine import STATE as _STATE, WORLD_NAMES as _WORLD_NAMES

__all__ = ["init", "release", "get_rank", "get_group_size", "get_local_rank", "get_local_rank_size",
           "create_group", "destroy_group", "get_world_rank_from_group_rank",
           "get_group_rank_from_world_rank", "get_process_group_ranks", "GlobalComm",
           "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP",
           "comm_func"]

HCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP = _WORLD_NAMES


class GlobalComm:
    """MindSpore's global communication settings: the backend, the world group's name, and whether init() ran."""

    BACKEND = "hccl"
    WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
    INITED = False
    CHECK_ENVS = True


def init(backend_name=None):
    """Join the process group: under mpiexec every rank of MPI's world, alone rank 0 of 1 (no MPI needed).

    ``backend_name``: None, "hccl", "nccl", "mccl" or "mpi"; they all run on MPI here.

    Example::

        from mscustom.communication import init, get_rank
        init()
        get_rank()          # 0 alone; 0..N-1 under 'python -m mscustom.run -n N'
    """
    _engine.init(backend_name)
    GlobalComm.BACKEND = _STATE.backend
    GlobalComm.INITED = True


def release():
    """Release the groups made by ``create_group`` (MindSpore's ``release``)."""
    _engine.release()


def _group(group, who):
    if not _STATE.inited:               # MindSpore answers rank 0 of 1 before init()
        if group not in _WORLD_NAMES:
            _engine.require(who)
        return None
    return _engine.group_of(group, who)


def get_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank in ``group`` (0 before ``init()``, as MindSpore)."""
    g = _group(group, "get_rank")
    return 0 if g is None else g.rank


def get_group_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of ranks in ``group`` (1 before ``init()``, as MindSpore)."""
    g = _group(group, "get_group_size")
    return 1 if g is None else g.size


def _world_only(group, who):
    """``_group(group)`` for the calls that know only the world group (None before ``init()``)."""
    g = _group(group, who)
    if g is not None and g is not _STATE.world:
        raise ValueError(f"{who}: only the world group is supported, got {group!r}")
    return g


def get_local_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank among the world ranks on its own host."""
    g = _world_only(group, "get_local_rank")
    return 0 if g is None else _STATE.local_rank


def get_local_rank_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of world ranks on this process's host."""
    g = _world_only(group, "get_local_rank_size")
    return 1 if g is None else _STATE.local_size


def get_process_group_ranks(group=GlobalComm.WORLD_COMM_GROUP):
    """The world ranks in ``group``, in group-rank order."""
    g = _group(group, "get_process_group_ranks")
    return [0] if g is None else list(g.ranks)


def create_group(group, rank_ids, options=None):
    """A new group ``group`` of the world ranks ``rank_ids``; called by every rank in ``rank_ids``.

    Example::

        if get_rank() in (0, 1):
            create_group("pair", [0, 1])
    """
    if options is not None:
        raise ValueError(f"create_group: options are not supported over MPI, got {options!r}")
    _engine.create_group(group, rank_ids)


def destroy_group(group):
    """Free a group made by ``create_group``."""
    _engine.destroy_group(group)


def get_world_rank_from_group_rank(group, group_rank_id):
    """The world rank of ``group``'s rank ``group_rank_id``."""
    g = _engine.group_of(group, "get_world_rank_from_group_rank")
    if isinstance(group_rank_id, bool) or not isinstance(group_rank_id, int) or \
            not 0 <= group_rank_id < g.size:
        raise ValueError(f"get_world_rank_from_group_rank: group_rank_id must be an int in [0, {g.size}), "
                         f"got {group_rank_id!r}")
    return g.ranks[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id, group):
    """``group``'s rank of the world rank ``world_rank_id``."""
    g = _engine.group_of(group, "get_group_rank_from_world_rank")
    if isinstance(world_rank_id, bool) or not isinstance(world_rank_id, int) or world_rank_id not in g.ranks:
        raise ValueError(f"get_group_rank_from_world_rank: world rank {world_rank_id!r} is not in group "
                         f"{group!r} (its world ranks: {g.ranks})")
    return g.ranks.index(world_rank_id)


from .._lazy import lazy_attrs as _lazy_attrs  # noqa: E402
# the functional forms (all_reduce, broadcast ...), built on the names above: imported on first use
__getattr__, __dir__ = _lazy_attrs(__name__, globals(), {"comm_func": ".comm_func"})
