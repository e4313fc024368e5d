"""Sum all-reduce of a flat buffer among the ranks of one machine, through MPI shared memory.

When every rank of a group runs on one host, a gradient bucket's buffer lives in
an MPI shared-memory window (``MPI_Win_allocate_shared``): each rank's segment
holds its buffer (the values it contributes) and its result area (the sums it
reads), and every rank can read and write every segment. An all-reduce is then

1. a barrier (every rank's buffer is written),
2. each rank sums its own slice of the buffers over all ranks, in rank order
   (then scales it, for a mean), and writes that slice of the sums into every
   rank's result area,
3. a barrier (every result area is complete).

No message is copied through MPI's transport, and each element is added once
on one rank, so every rank reads the same bits. A rank rewrites its buffer only
after step 3 (nobody reads it then), and writes into another rank's result area
only after the next all-reduce's first barrier, which that rank reaches once it
is done reading its sums. The barriers are MPI's, watched as every wait is
(``_engine.call_watched``): a lost rank or a hang stops every rank.

On this two-core machine this moves a 940 KB bucket in less time than MPICH's
``MPI_Allreduce`` (figures in docs/distributed.md). ``MSCUSTOM_COMM_SHARED=0``
turns it off (MPI's all-reduce is used, as it is across hosts).
"""

import os

import numpy as np

from . import _engine

ENV = "MSCUSTOM_COMM_SHARED"


def usable(group):
    """True when ``group``'s ranks all run on this host (so they can share memory) and it is allowed."""
    if group.comm is None or os.environ.get(ENV, "1") == "0":
        return False
    peers = _engine.STATE.peers
    host = peers[group.ranks[0]][0]
    return all(peers[r][0] == host for r in group.ranks)


class SharedAllreduce:
    """Buffers of ``n`` elements of ``dtype`` in a shared window over ``group``, summed by a call.

    Making one is collective over the group (every rank, in the same order). Its window stays until
    the process ends (freeing one is collective too, so it cannot follow one rank's garbage
    collector). ``buf`` is this rank's buffer: write the values to sum there, call, read the sums in
    ``result`` (multiplied by ``scale`` after the sum when it is not 1: a mean).
    """

    def __init__(self, n, dtype, group, who, scale=1.0):
        MPI = _engine.STATE.MPI
        self.who, self.group = who, group
        dtype = np.dtype(dtype)
        comm = group.comm
        size, rank = comm.Get_size(), comm.Get_rank()
        nbytes = 2 * n * dtype.itemsize
        try:
            win = _engine.call_watched(lambda: MPI.Win.Allocate_shared(nbytes, dtype.itemsize, comm=comm),
                                       f"{who} (allocating its shared memory)", group)
        except MPI.Exception as exc:
            raise RuntimeError(f"{who}: could not allocate {nbytes} bytes of shared memory for its all-reduce "
                               f"({exc}); a small /dev/shm (a container's) is the usual cause: give it more, "
                               f"or set {ENV}=0 to use MPI's all-reduce instead") from exc
        self.win = win
        segments = [np.frombuffer(win.Shared_query(q)[0], dtype=dtype, count=2 * n) for q in range(size)]
        win.Lock_all()                  # one passive epoch for the window's life: Sync orders the accesses
        self.buf, self.result = segments[rank][:n], segments[rank][n:]
        bounds = [n * q // size for q in range(size + 1)]
        lo, hi = bounds[rank], bounds[rank + 1]
        self._terms = [seg[lo:hi] for seg in segments]                    # this rank's slice of every buffer
        self._sums = self.result[lo:hi]
        self._copies = [seg[n + lo:n + hi] for q, seg in enumerate(segments) if q != rank]
        self._empty = lo == hi
        self._scale = None if scale == 1.0 else dtype.type(scale)
        self._barrier = comm.Barrier
        # two ranks of float32/float64: the sum, the scaling and both writes in one pass, once the
        # loop is loaded (ops/comm/loops.py); NumPy's three passes give the same bits until then
        self._fusable = size == 2 and dtype in (np.dtype(np.float32), np.dtype(np.float64))
        self._one = dtype.type(1)
        _engine.STATE.windows.append(win)

    def __call__(self):
        """Sum ``buf`` over the group's ranks into ``result`` (every rank calls it)."""
        _engine.call_watched(self._run, self.who, self.group)

    def _run(self):                     # both barriers watched by one call_watched
        win, barrier = self.win, self._barrier
        win.Sync()
        barrier()
        if not self._empty:             # a rank with no slice (fewer elements than ranks) only waits
            self._sum_slice()
        win.Sync()
        barrier()

    def _sum_slice(self):
        """This rank's slice of the sums (scaled for a mean), written into every rank's result area."""
        sums, terms = self._sums, self._terms
        scale = self._scale
        if self._fusable and _loops().sum_scale_twice(terms[0], terms[1], self._one if scale is None else scale,
                                                       sums, self._copies[0]):
            return
        np.add(terms[0], terms[1], out=sums)
        for term in terms[2:]:
            np.add(sums, term, out=sums)
        if scale is not None:
            np.multiply(sums, scale, out=sums)
        for dst in self._copies:
            np.copyto(dst, sums)


_LOOPS = []


def _loops():
    """``ops/comm/loops.py`` (imported at the first call: the ops layer imports this package)."""
    if not _LOOPS:
        from ..ops.comm import loops as _comm_loops
        _LOOPS.append(_comm_loops)
    return _LOOPS[0]
