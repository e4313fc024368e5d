"""Gradient buckets: flat buffers all-reduced non-blocking, as two ops per bucket.

A bucket holds the gradients of a few parameters of one dtype (about
``bucket_cap_mb`` MB together), in one contiguous buffer. Two OpDefs per bucket
(made through the extension surface, one instance per bucket as ``ops.Custom``
does) move them:

- ``start(*grads) -> token``: packs the gradients into the buffer, multiplied
  by ``scale`` on the way (1/degree for a mean: each rank's share is scaled
  before the sum, as MindSpore's DistributedDataParallel does by default, so no
  second pass over the buffer), and starts an in-place ``MPI_Iallreduce`` (sum)
  on it; the token (a 0-d array) carries the order to ``wait``. A gradient
  that already is its view of the buffer is not copied (scaled in place);
- ``wait(token) -> reduced grads``: waits for that all-reduce (never forever:
  ``_engine.wait``) and returns the gradients as views of the buffer, valid
  until the bucket's next ``start`` (in a replayed step, until the next step's
  backward writes into the buffer; the optimizer reads them in the same step).

Being ops, both are recorded by graph mode: a replayed training step starts and
waits for each bucket where the traced step did, with no Python of the reducer
in between. ``FRandom`` keeps replays from folding or merging them. The start
op's ``FInputDestinations`` lets a replay write each gradient straight into its
view of the buffer (the kernel making it writes there; for a mean the view is
scaled at once, while in cache, and marked so), so a replayed step copies no
gradient; the wait op's ``FScratchOutputs`` lets the optimizer, their last
reader, use the reduced gradients as its work space (the next start rewrites
them anyway); ``FReplayDirect`` has the replay call both kernels without
checking their results.
"""

import functools
import operator

import numpy as np

from .. import extend
from .._core.dispatch import call
from . import _engine, _shared

_NO_ATTRS = {}


class Bucket:
    """One bucket: which parameters (indices into the reducer's list), their shapes, the buffer, the ops."""

    def __init__(self, number, indices, shapes, dtype, group, scale, who):
        self.number = number
        self.indices = list(indices)
        self.shapes = [tuple(s) for s in shapes]
        self.dtype = np.dtype(dtype)
        sizes = [int(np.prod(s)) for s in self.shapes]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int).tolist()
        self._use_buffer(np.zeros(self.offsets[-1], self.dtype))
        self.group = group
        self.scale = scale
        self._scale = self.dtype.type(scale)
        self._prescale = scale != 1.0               # each rank's share scaled before the sum
        self.who = f"{who} (bucket {number}: {len(sizes)} gradient(s), {self.buf.nbytes} bytes)"
        self.req = None
        self._token = np.zeros((), self.dtype)     # the start's output: only orders the wait after it
        self._token.flags.writeable = False
        self._iallreduce = None                     # bound once the ranks' signatures were compared
        self._allreduce = None
        # the bucket started last in a step (set by its reducer): nothing is left to overlap its
        # all-reduce with, so it runs MPI's blocking Allreduce at its start (watched), cheaper than a
        # non-blocking one waited for at once
        self.last = False
        self._landed = [False] * len(self.views)    # scaled in place since the last start (replays)
        n = len(self.indices)
        self.start_op = extend.def_op(f"dist_bucket{number}_start", inputs=None, register=False,
                                      doc="pack a bucket of gradients and start its all-reduce")
        self.start_op.attrs["FRandom"] = True
        self.start_op.attrs["FReplayDirect"] = True         # its kernel returns its token as inferred
        self.start_op.attrs["FInputDestinations"] = self._destinations      # replays produce into them
        extend.def_infer(self.start_op, shape=self._start_shape, dtype=lambda attrs, dts: [dts[0]])
        extend.def_kernel(self.start_op, self._start, target="CPU")
        self.wait_op = extend.def_op(f"dist_bucket{number}_wait", inputs=("token",), outputs=n, register=False,
                                     doc="wait for a bucket's all-reduce; its gradients, reduced")
        self.wait_op.attrs["FRandom"] = True
        self.wait_op.attrs["FReplayDirect"] = True          # and this one its views of the buffer
        self.wait_op.attrs["FScratchOutputs"] = True        # rewritten next step: their last reader may too
        extend.def_infer(self.wait_op, shape=lambda attrs, shapes: [list(s) for s in self.shapes],
                         dtype=lambda attrs, dts: [dts[0]] * n)
        extend.def_kernel(self.wait_op, self._wait, target="CPU")

    @property
    def nbytes(self):
        return self.buf.nbytes

    def _start_shape(self, attrs, shapes):
        got = [tuple(s) for s in shapes]
        if got != self.shapes:
            raise ValueError(f"{self.who}: expected gradients of shapes {[list(s) for s in self.shapes]}, "
                             f"got {[list(s) for s in got]}")
        return [[]]

    def _destinations(self, attrs):
        """``FInputDestinations``: a replay writes each gradient straight into its view of the buffer
        (and, for a mean, scales it there at once, while it is in cache)."""
        if not self._prescale:
            return list(self.views)
        return [(view, functools.partial(self._land, k)) for k, view in enumerate(self.views)]

    def _land(self, k, view):
        np.multiply(view, self._scale, out=view)
        self._landed[k] = True

    def _start(self, attrs, ins):
        if self.req is not None:            # a start never waited for: finish it first
            _engine.wait(self.req, self.who, self.group)
            self.req = None
        views, landed = self.views, self._landed
        if not self._prescale:
            if not all(map(operator.is_, ins, views)):      # a replay's gradients lie in their views
                for view, g in zip(views, ins):
                    if g is not view:       # not produced in the buffer: pack it
                        np.copyto(view, g, casting="same_kind")
        elif not all(landed) or any(g is not v for g, v in zip(ins, views)):
            for k, (view, g) in enumerate(zip(views, ins)):
                if g is not view or not landed[k]:      # scaled on the way: no second pass over the buffer
                    np.multiply(g, self._scale, out=view, casting="same_kind")
                landed[k] = False
        else:
            landed[:] = [False] * len(landed)
        buf = self.buf
        if self._allreduce is not None:
            self._allreduce()
            return self._token
        start = self._iallreduce
        if start is not None:
            self.req = start()
        else:                               # the first start compares the ranks' signatures
            self.req = _engine.iallreduce(buf, "sum", self.group, self.who)
            if self.req is not None:
                self._bind_allreduce()
        return self._token

    def _bind_allreduce(self):
        """After the first all-reduce was started: how the next ones run. On one host, in shared memory
        (``_shared.py``): the first one is finished, its sums moved into the shared result area, and
        the views made anew (a replay recorded after this call writes into them). Otherwise MPI's
        non-blocking all-reduce, or for the bucket started last its blocking one (watched)."""
        MPI, group, who = _engine.STATE.MPI, self.group, self.who
        if _shared.usable(group):
            _engine.wait(self.req, who, group)
            self.req = None
            # the mean is taken after the sum, on each rank's slice (as MindSpore's reducer documents)
            shared = _shared.SharedAllreduce(self.buf.size, self.dtype, group, who, self.scale)
            np.copyto(shared.result, self.buf)          # this all-reduce's sums, where the wait reads them
            self._use_buffer(shared.buf, shared.result)
            self._prescale = False
            self._allreduce = shared
            return
        buf = self.buf
        self._iallreduce = functools.partial(group.comm.Iallreduce, MPI.IN_PLACE, buf, MPI.SUM)
        if self.last:
            blocking = functools.partial(group.comm.Allreduce, MPI.IN_PLACE, buf, MPI.SUM)
            self._allreduce = functools.partial(_engine.call_watched, blocking, who, group)

    def _use_buffer(self, buf, result=None):
        """The gradients are packed into (or written straight into) ``buf``'s views; the reduced ones
        are read from ``result``'s (``buf`` itself when the all-reduce is in place)."""
        self.buf = buf
        self.views = self._split(buf)
        outs = self.views if result is None else self._split(result)
        self._outs = tuple(outs) if len(outs) > 1 else outs[0]

    def _split(self, flat):
        return [flat[a:b].reshape(s) for a, b, s in zip(self.offsets, self.offsets[1:], self.shapes)]

    def _wait(self, attrs, ins):
        req, self.req = self.req, None
        if req is not None:
            _engine.wait(req, self.who, self.group)
        return self._outs

    def start(self, grads):
        """Start this bucket's all-reduce on ``grads`` (Tensors, in the bucket's order); returns the token."""
        return call(self.start_op, tuple(grads), _NO_ATTRS)

    def wait(self, token):
        """The bucket's reduced gradients (a tuple of Tensors), once its all-reduce is done."""
        out = call(self.wait_op, (token,), _NO_ATTRS)
        return out if isinstance(out, tuple) else (out,)


def plan_buckets(shapes, dtypes, cap_bytes):
    """Group parameter indices into buckets: reverse order (the order backward produces gradients),
    one dtype per bucket, up to ``cap_bytes`` each (a larger gradient gets a bucket of its own)."""
    buckets = []
    open_by_dtype = {}
    for i in reversed(range(len(shapes))):
        dt = np.dtype(dtypes[i])
        nbytes = int(np.prod(shapes[i])) * dt.itemsize
        cur = open_by_dtype.get(dt)
        if cur is not None and cur[1] + nbytes > cap_bytes:
            buckets.append((dt, cur[0]))
            cur = None
        if cur is None:
            cur = open_by_dtype[dt] = [[], 0]
        cur[0].append(i)
        cur[1] += nbytes
    for dt, cur in open_by_dtype.items():
        if cur[0] and all(cur[0] is not b[1] for b in buckets):
            buckets.append((dt, cur[0]))
    buckets.sort(key=lambda b: -max(b[1]))       # the bucket holding the last parameters first
    return buckets
