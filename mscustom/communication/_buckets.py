"""Gradient buckets: flat buffers all-reduced non-blocking, as two ops per bucket.

A bucket holds the gradients of a few parameters of one dtype (about
``bucket_cap_mb`` MB together), in one contiguous buffer. Two OpDefs per bucket
(made through the extension surface, one instance per bucket as ``ops.Custom``
does) move them:

- ``start(*grads) -> token``: packs the gradients into the buffer, multiplied
  by ``scale`` on the way (1/degree for a mean: each rank's share is scaled
  before the sum, as MindSpore's DistributedDataParallel does by default, so no
  second pass over the buffer), and starts an in-place ``MPI_Iallreduce`` (sum)
  on it; the token (a 0-d array) carries the order to ``wait``;
- ``wait(token) -> reduced grads``: waits for that all-reduce (never forever:
  ``_engine.wait``) and returns the gradients as views of the buffer, valid
  until the bucket's next ``start`` (the optimizer reads them in the same step).

Being ops, both are recorded by graph mode: a replayed training step starts and
waits for each bucket where the traced step did, with no Python of the reducer
in between. ``FRandom`` keeps replays from folding or merging them.
"""

import numpy as np

from .. import extend
from .._core.dispatch import call
from . import _engine

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
        self.buf = np.zeros(self.offsets[-1], self.dtype)
        self.views = [self.buf[a:b].reshape(s) for a, b, s in zip(self.offsets, self.offsets[1:], self.shapes)]
        self.group = group
        self.scale = scale
        self.who = f"{who} (bucket {number}: {len(sizes)} gradient(s), {self.buf.nbytes} bytes)"
        self.req = None
        n = len(self.indices)
        self.start_op = extend.def_op(f"dist_bucket{number}_start", inputs=None, register=False,
                                      doc="pack a bucket of gradients and start its all-reduce")
        self.start_op.attrs["FRandom"] = True
        extend.def_infer(self.start_op, shape=self._start_shape, dtype=lambda attrs, dts: [dts[0]])
        extend.def_kernel(self.start_op, self._start, target="CPU")
        self.wait_op = extend.def_op(f"dist_bucket{number}_wait", inputs=("token",), outputs=n, register=False,
                                     doc="wait for a bucket's all-reduce; its gradients, reduced")
        self.wait_op.attrs["FRandom"] = True
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

    def _start(self, attrs, ins):
        if self.req is not None:            # a start never waited for: finish it first
            _engine.wait(self.req, self.who, self.group)
            self.req = None
        if self.scale == 1.0:
            for view, g in zip(self.views, ins):
                np.copyto(view, g, casting="same_kind")
        else:                               # packed already scaled: no second pass over the buffer
            scale = self.dtype.type(self.scale)
            for view, g in zip(self.views, ins):
                np.multiply(g, scale, out=view, casting="same_kind")
        self.req = _engine.iallreduce(self.buf, "sum", self.group, self.who)
        return np.zeros((), self.dtype)

    def _wait(self, attrs, ins):
        req, self.req = self.req, None
        if req is not None:
            _engine.wait(req, self.who, self.group)
        return tuple(self.views)

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
