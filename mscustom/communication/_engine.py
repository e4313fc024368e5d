"""The process group over MPI: ranks, groups, collectives on NumPy arrays, and the fault rules.

Outside ``mpiexec`` a process is rank 0 of 1 and MPI is never imported; under
``mpiexec`` (``init()`` sees the process manager's environment) the world is
mpi4py's ``COMM_WORLD``. Every collective here is started non-blocking and
waited for by ``wait`` (MPI's own ``Wait``), which never waits forever: a
watchdog thread checks that the peers on this host are still alive (a rank
killed by a signal is named within a fraction of a second) and gives up after
``timeout()`` seconds (``MSCUSTOM_COMM_TIMEOUT``, default 300); either way it
prints the op and the ranks and stops every rank. ``check_signature`` compares the ranks' shapes and dtypes the
first time each signature is used. An uncaught exception on one rank prints
its rank and traceback and aborts every rank (``MPI_Abort``), so no rank is
left waiting in its next collective.
"""

import os
import socket
import sys
import threading
import time
import traceback

import numpy as np

WORLD_NAMES = ("hccl_world_group", "nccl_world_group", "mccl_world_group")
BACKENDS = (None, "hccl", "nccl", "mccl", "mpi")
_ENV_MARKERS = ("PMI_RANK", "PMI_SIZE", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS")
REDUCE_OPS = ("sum", "max", "min", "prod")
DEFAULT_TIMEOUT = 300.0


class ReduceOp:
    """The reductions of ``AllReduce`` / ``ReduceScatter`` (MindSpore's string values)."""

    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


class Group:
    """One communication group: its name, the world ranks in it, and its MPI communicator (None alone)."""

    __slots__ = ("name", "ranks", "comm", "rank")

    def __init__(self, name, ranks, comm, rank):
        self.name, self.ranks, self.comm, self.rank = name, list(ranks), comm, rank

    @property
    def size(self):
        return len(self.ranks)


class _State:
    inited = False
    backend = None
    MPI = None                  # the mpi4py.MPI module once used
    world = None                # Group of every rank
    groups = {}                 # name -> Group (the world under each of its names too)
    local_rank = 0
    local_size = 1
    peers = []                  # (hostname, pid) per world rank
    checked = set()             # signatures already compared across the ranks
    hook_installed = False
    windows = []                # shared-memory windows (_shared.py): kept, so their memory stays valid


STATE = _State()


def under_mpi():
    """True when a process manager (mpiexec / mpirun) started this process."""
    return any(k in os.environ for k in _ENV_MARKERS)


def timeout():
    """Seconds a collective may wait for its peers (``MSCUSTOM_COMM_TIMEOUT``, default 300)."""
    raw = os.environ.get("MSCUSTOM_COMM_TIMEOUT")
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"MSCUSTOM_COMM_TIMEOUT must be a number of seconds, got {raw!r}") from None
    if not value > 0:
        raise ValueError(f"MSCUSTOM_COMM_TIMEOUT must be positive, got {raw!r}")
    return value


def init(backend_name=None):
    """Start the process group (once; later calls return at once)."""
    if backend_name not in BACKENDS:
        raise ValueError(f"init: backend_name must be one of {list(BACKENDS)} (every one runs on MPI here), "
                         f"got {backend_name!r}")
    if STATE.inited:
        return
    if under_mpi():
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        comm.Set_errhandler(MPI.ERRORS_RETURN)
        STATE.MPI = MPI
        rank, size = comm.Get_rank(), comm.Get_size()
        node = comm.Split_type(MPI.COMM_TYPE_SHARED, key=rank)
        STATE.local_rank, STATE.local_size = node.Get_rank(), node.Get_size()
        node.Free()
        STATE.peers = comm.allgather((socket.gethostname(), os.getpid()))
        _register_with_launcher(rank)
        world = Group(WORLD_NAMES[0], range(size), comm, rank)
        _install_abort_hook()
        if size > 1:
            timeout()                       # a bad MSCUSTOM_COMM_TIMEOUT fails here, not in the thread
            _WATCH.start()
    else:
        world = Group(WORLD_NAMES[0], [0], None, 0)
        STATE.local_rank, STATE.local_size = 0, 1
        STATE.peers = [(socket.gethostname(), os.getpid())]
    STATE.world = world
    STATE.groups = {name: world for name in WORLD_NAMES}
    STATE.backend = backend_name or "mpi"
    STATE.checked = set()
    STATE.inited = True


def _register_with_launcher(rank):
    """Under ``python -m mscustom.run``: leave this rank's process id where the launcher finds it, so
    that it can name a rank that the process manager reports by process id only."""
    folder = os.environ.get("MSCUSTOM_RUN_DIR")
    if folder and os.path.isdir(folder):
        with open(os.path.join(folder, f"rank{rank}"), "w") as f:
            f.write(f"{rank} {os.getpid()} {socket.gethostname()}\n")


def release():
    """Free the groups made by ``create_group``; the world stays usable until the process exits."""
    if not STATE.inited:
        return
    for name in list(STATE.groups):
        if name not in WORLD_NAMES:
            destroy_group(name)
    STATE.checked = set()


def require(who):
    """The world group, or a clear error when ``init()`` has not been called."""
    if not STATE.inited:
        raise RuntimeError(f"{who}: the communication service is not initialized; call "
                           "mscustom.communication.init() first (and start several processes with "
                           "'python -m mscustom.run -n N script.py' or the venv's mpiexec)")
    return STATE.world


def group_of(group, who):
    """The Group called ``group``, or an error naming ``who`` and the groups that exist."""
    require(who)
    if not isinstance(group, str):
        raise TypeError(f"{who}: group must be a str, got {type(group).__name__}")
    g = STATE.groups.get(group)
    if g is None:
        names = sorted(n for n in STATE.groups if n not in WORLD_NAMES)
        raise ValueError(f"{who}: no communication group {group!r}; groups made by create_group: {names}")
    return g


def create_group(group, rank_ids):
    """A group of the world ranks ``rank_ids``, called only by those ranks (MPI_Comm_create_group)."""
    world = require("create_group")
    if not isinstance(group, str) or not group:
        raise TypeError(f"create_group: group must be a non-empty str, got {group!r}")
    if group in STATE.groups:
        raise ValueError(f"create_group: the group {group!r} exists already")
    if not isinstance(rank_ids, (list, tuple)) or not rank_ids or \
            any(isinstance(r, bool) or not isinstance(r, (int, np.integer)) for r in rank_ids):
        raise TypeError(f"create_group: rank_ids must be a non-empty list of ints, got {rank_ids!r}")
    ranks = [int(r) for r in rank_ids]
    if len(set(ranks)) != len(ranks) or any(not 0 <= r < world.size for r in ranks):
        raise ValueError(f"create_group: rank_ids must be distinct world ranks in [0, {world.size}), "
                         f"got {list(rank_ids)!r}")
    if world.rank not in ranks:
        raise ValueError(f"create_group: this process (world rank {world.rank}) is not in rank_ids "
                         f"{ranks}; only the group's members call create_group")
    if world.comm is None:
        comm = None
    else:
        mpi_group = world.comm.Get_group().Incl(ranks)
        comm = world.comm.Create_group(mpi_group, tag=_tag_of(group))
        mpi_group.Free()
        comm.Set_errhandler(STATE.MPI.ERRORS_RETURN)
    STATE.groups[group] = Group(group, ranks, comm, ranks.index(world.rank))


def _tag_of(name):
    return sum(name.encode()) % 30000


def destroy_group(group):
    """Free a group made by ``create_group``."""
    require("destroy_group")
    if group in WORLD_NAMES:
        raise ValueError(f"destroy_group: the world group {group!r} cannot be destroyed")
    g = STATE.groups.pop(group, None)
    if g is None:
        raise ValueError(f"destroy_group: no communication group {group!r}")
    if g.comm is not None:
        g.comm.Free()


# --- waiting without hanging ---------------------------------------------------------------------

def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:                                            # a killed child not yet reaped is a zombie
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def lost_ranks(group):
    """The world ranks of ``group`` on this host whose process is gone."""
    host = socket.gethostname()
    return [r for r in group.ranks if STATE.peers[r][0] == host and not _alive(STATE.peers[r][1])]


def wait(req, what, group):
    """Wait for an MPI request, watched: past the timeout, or once a peer rank is gone, the watchdog
    thread prints which op waited for which ranks and stops every rank (``MPI_Abort``).

    The wait itself is MPI's own blocking ``Wait`` (the GIL released): a loop of ``Test`` calls
    from Python moved a 1 MB all-reduce 50 times slower on this machine.
    """
    if group.comm is None:
        return
    _WATCH.waiting = (what, group, time.monotonic())
    try:
        req.Wait()
    finally:
        _WATCH.waiting = None


def call_watched(blocking, what, group):
    """Run a blocking MPI call (``blocking()``, which releases the GIL) watched as ``wait`` watches a
    request: past the timeout, or once a peer rank is gone, the watchdog stops every rank."""
    _WATCH.waiting = (what, group, time.monotonic())
    try:
        return blocking()
    finally:
        _WATCH.waiting = None


class _Watchdog:
    """One daemon thread per rank that looks at the collective being waited for, five times a second."""

    PERIOD = 0.2

    def __init__(self):
        self.waiting = None
        self.thread = None

    def start(self):
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="mscustom-comm-watchdog", daemon=True)
            self.thread.start()

    def _run(self):
        limit = timeout()
        while True:
            time.sleep(self.PERIOD)
            w = self.waiting
            if w is None:
                continue
            what, group, since = w
            problem = _problem(what, group, time.monotonic() - since, limit)
            if problem and self.waiting is w:
                world = STATE.world
                text = (f"mscustom.communication: rank {world.rank} of {world.size} stops every rank: "
                        f"{problem}\n")
                abort_with_message(world, text, 1, raw=True)


def _problem(what, group, waited, limit):
    """Why waiting longer is pointless, or None."""
    gone = lost_ranks(group)
    if gone:
        return (f"{what}: lost rank(s) {gone} of group {group.name!r}: "
                f"{'their processes are' if len(gone) > 1 else 'its process is'} gone (killed?)")
    if waited > limit:
        return (f"{what}: waited {limit:g} s for the other ranks of group {group.name!r} "
                f"(MSCUSTOM_COMM_TIMEOUT); a rank is hung, dead on another host, or called a different "
                f"collective")
    return None


_WATCH = _Watchdog()


# --- signatures ---------------------------------------------------------------------------------

_SIG_BYTES = 240


def check_signature(group, who, sig):
    """Compare ``sig`` (a short tuple) across the ranks of ``group`` the first time it is used."""
    key = (group.name, who, sig)
    if key in STATE.checked or group.comm is None:
        return
    text = repr(sig).encode()[:_SIG_BYTES].ljust(_SIG_BYTES)
    mine = np.frombuffer(text, dtype=np.uint8).copy()
    every = np.empty((group.size, _SIG_BYTES), dtype=np.uint8)
    wait(group.comm.Iallgather(mine, every), f"{who} (checking the ranks' signatures)", group)
    rows = [bytes(r).rstrip().decode(errors="replace") for r in every]
    if any(r != rows[0] for r in rows):
        listing = "; ".join(f"rank {group.ranks[i]}: {r}" for i, r in enumerate(rows))
        raise ValueError(f"{who}: the ranks of group {group.name!r} called it with different inputs "
                         f"(shape, dtype, attributes): {listing}")
    STATE.checked.add(key)


def signature(arr, *extra):
    return (tuple(arr.shape), arr.dtype.str) + extra


# --- collectives on arrays ----------------------------------------------------------------------

def mpi_op(op):
    MPI = STATE.MPI
    return {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "prod": MPI.PROD}[op]


def allreduce(x, op, group, who="AllReduce"):
    x = np.ascontiguousarray(x)
    if group.comm is None:
        return x.copy()
    check_signature(group, who, signature(x, op))
    out = np.empty_like(x)
    wait(group.comm.Iallreduce(x, out, mpi_op(op)), who, group)
    return out


def iallreduce(buf, op, group, who):
    """Start an in-place all-reduce of the contiguous ``buf``; returns the request (None alone)."""
    if group.comm is None:
        return None
    check_signature(group, who, signature(buf, op))
    return group.comm.Iallreduce(STATE.MPI.IN_PLACE, buf, mpi_op(op))


def allgather(x, group, who="AllGather"):
    x = np.ascontiguousarray(x)
    if group.comm is None:
        return x.copy().reshape((x.shape[0],) + x.shape[1:]) if x.ndim else x.reshape(1)
    check_signature(group, who, signature(x))
    lead = x.shape[0] if x.ndim else 1
    out = np.empty((group.size * lead,) + x.shape[1:], dtype=x.dtype)
    wait(group.comm.Iallgather(x, out), who, group)
    return out


def reduce_scatter(x, op, group, who="ReduceScatter"):
    x = np.ascontiguousarray(x)
    if x.ndim == 0 or x.shape[0] % group.size:
        raise ValueError(f"{who}: the input's first dimension must be divisible by the group's size "
                         f"{group.size}, got shape {list(x.shape)}")
    if group.comm is None:
        return x.copy()
    check_signature(group, who, signature(x, op))
    out = np.empty((x.shape[0] // group.size,) + x.shape[1:], dtype=x.dtype)
    wait(group.comm.Ireduce_scatter_block(x, out, mpi_op(op)), who, group)
    return out


def broadcast(x, root, group, who="Broadcast"):
    """``root`` is a rank of ``group``."""
    out = np.array(x, copy=True, order="C")
    if group.comm is None:
        return out
    check_signature(group, who, signature(out, root))
    wait(group.comm.Ibcast(out, root=root), who, group)
    return out


def alltoall(x, split_count, split_dim, concat_dim, group, who="AlltoAll"):
    n = group.size
    if split_count != n:
        raise ValueError(f"{who}: split_count must equal the group's size {n}, got {split_count}")
    if x.ndim == 0 or x.shape[split_dim] % n:
        raise ValueError(f"{who}: dimension {split_dim} of the input must be divisible by split_count {n}, "
                         f"got shape {list(x.shape)}")
    blocks = np.ascontiguousarray(np.stack(np.split(x, n, axis=split_dim)))
    if group.comm is None:
        got = blocks.copy()
    else:
        check_signature(group, who, signature(blocks, split_dim, concat_dim))
        got = np.empty_like(blocks)
        wait(group.comm.Ialltoall(blocks, got), who, group)
    return np.concatenate(list(got), axis=concat_dim)


def barrier(group, who="barrier"):
    if group.comm is not None:
        wait(group.comm.Ibarrier(), who, group)


def send(x, dst, group, tag, who="send"):
    x = np.ascontiguousarray(x)
    if group.comm is None:
        raise ValueError(f"{who}: a group of one rank has nobody to send to")
    wait(group.comm.Isend(x, dest=dst, tag=tag), who, group)


def recv(shape, dtype, src, group, tag, who="recv"):
    out = np.empty(shape, dtype=dtype)
    if group.comm is None:
        raise ValueError(f"{who}: a group of one rank has nobody to receive from")
    wait(group.comm.Irecv(out, source=src, tag=tag), who, group)
    return out


# --- one rank's failure stops every rank ---------------------------------------------------------

def abort_with_message(world, text, status, raw=False):
    """Write ``text`` to stderr and stop every rank with ``status`` (``MPI_Abort``).

    ``raw``: straight to file descriptor 2 (the watchdog thread), not through ``sys.stderr`` (which
    ``mscustom.run`` prefixes with the rank). The pause before Abort lets mpiexec's output forwarding
    deliver the message: Abort tears the ranks down at once, and on a loaded machine a message
    written just before it was lost.
    """
    try:
        sys.stdout.flush()
        if not raw:
            sys.stderr.write(text)
            sys.stderr.flush()
    except Exception:       # a closed or broken stream must not keep the message from being written
        raw = True
    if raw:
        os.write(2, text.encode())
    time.sleep(0.2)
    world.comm.Abort(status)


def _install_abort_hook():
    if STATE.hook_installed:
        return
    previous = sys.excepthook

    def abort_all(kind, value, tb):
        if STATE.world is None or STATE.world.size == 1 or issubclass(kind, SystemExit):
            return previous(kind, value, tb)
        rank, size = STATE.world.rank, STATE.world.size
        text = "".join(traceback.format_exception(kind, value, tb))
        sys.stderr.flush()
        abort_with_message(STATE.world, f"mscustom.communication: rank {rank} of {size} failed; stopping every "
                                        f"rank.\nTraceback of rank {rank}:\n{text}", 1)

    sys.excepthook = abort_all
    STATE.hook_installed = True
