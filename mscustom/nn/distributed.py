"""``nn.DistributedGradReducer``: all-reduce the gradients of data-parallel training, in buckets.

MindSpore's signature: ``DistributedGradReducer(parameters, mean=None,
degree=None, fusion_type=1, group=GlobalComm.WORLD_COMM_GROUP)``. ``mean``
(default: the ``gradients_mean`` of ``set_auto_parallel_context``) divides the
summed gradients by ``degree`` (default: the group's size). Gradients travel
in buckets of about ``bucket_cap_mb`` MB (a keyword of ours, default 25 as in
MindSpore and PyTorch): flat buffers, each all-reduced non-blocking
(``communication/_buckets.py``).

Inside ``with reducer.overlap():`` (``nn.TrainOneStepCell`` does it) the
backward walk tells the reducer when each gradient is final
(``_core.backward.GRAD_READY``), so a bucket's all-reduce starts as soon as its
last gradient exists, while backward goes on; calling the reducer then only
waits for what was started. Outside, the call starts and waits each bucket.
On a single rank the reducer returns the gradients as they are (divided by
``degree`` only when ``mean`` and a ``degree`` above 1 were given).

Example (under ``python -m mscustom.run -n 2``)::

    init()
    reducer = nn.DistributedGradReducer(opt.parameters, mean=True)
    loss, grads = value_and_grad(net_with_loss, None, opt.parameters)(x, y)
    opt(reducer(grads))
"""

import contextlib
import threading

import numpy as np

from .. import ops
from .. import parallel_context as _pctx
from .._core import backward as _backward
from ..communication import GlobalComm, _engine
from ..communication._buckets import Bucket, plan_buckets
from ..tensor import Parameter, Tensor
from .cell import Cell

__all__ = ["DistributedGradReducer"]

DEFAULT_BUCKET_CAP_MB = 25


class DistributedGradReducer(Cell):
    """Sum (or average) gradients over the ranks of ``group``, bucketed and non-blocking."""

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1, group=GlobalComm.WORLD_COMM_GROUP,
                 *, bucket_cap_mb=DEFAULT_BUCKET_CAP_MB):
        super().__init__(auto_prefix=False)
        params = list(parameters)
        if not params or not all(isinstance(p, (Parameter, Tensor)) for p in params):
            raise TypeError("DistributedGradReducer: parameters must be a non-empty list of Parameters, got "
                            f"{[type(p).__name__ for p in params][:4]}")
        g = _engine.group_of(group, "DistributedGradReducer")
        if degree is None:
            degree = _pctx.device_num(g.size) if group in _engine.WORLD_NAMES else g.size
        elif isinstance(degree, bool) or not isinstance(degree, int) or degree <= 0:
            raise ValueError("For 'DistributedGradReducer', parameter 'degree' in DistributedGradReducer "
                             f"should large than 0 and be int, degree: {degree}.")
        if mean is None:
            mean = _pctx.get_auto_parallel_context("gradients_mean")
        if isinstance(bucket_cap_mb, bool) or not isinstance(bucket_cap_mb, (int, float)) or not bucket_cap_mb > 0:
            raise ValueError(f"DistributedGradReducer: bucket_cap_mb must be a positive number, got {bucket_cap_mb!r}")
        self.mean, self.degree, self.fusion_type, self.group = bool(mean), degree, fusion_type, group
        self.bucket_cap_mb = bucket_cap_mb
        self._group = g
        self._n = len(params)
        self._param_list = params
        self._shapes = [tuple(p.shape) for p in params]
        scale = 1.0 / degree if self.mean else 1.0
        self._scale = scale
        self._active = g.size > 1
        self.buckets = []
        if self._active:
            plan = plan_buckets(self._shapes, [p._data.dtype for p in params], int(bucket_cap_mb * (1 << 20)))
            self.buckets = [Bucket(k, idx, [self._shapes[i] for i in idx], dt, g, scale, "DistributedGradReducer")
                            for k, (dt, idx) in enumerate(plan)]
            self.buckets[-1].last = True
        self._pending = {}              # bucket -> (token, the gradients it started on)

    # ------------------------------------------------------------------ overlap with backward
    @contextlib.contextmanager
    def overlap(self):
        """Within this block, backward walks start each bucket's all-reduce as soon as it is complete."""
        if not self._active:
            yield self
            return
        previous = _backward.GRAD_READY[0]
        thread = threading.get_ident()

        def factory(*walk):             # walks of other threads are not this block's backward pass
            return self._ready_factory(*walk) if threading.get_ident() == thread else None

        _backward.GRAD_READY[0] = factory
        try:
            yield self
        finally:
            _backward.GRAD_READY[0] = previous

    def _ready_factory(self, targets, order, needed, grads, node_of, finish=False):
        """The backward walk's hook (``_core.backward.GRAD_READY``) for this reducer's parameters.

        A parameter's gradient is final once its last consumer in the walk is done: the
        consumer that comes first in ``order`` (topological). When a bucket's gradients are all
        final, its all-reduce starts. ``finish=True`` (``DistributedDataParallel``) also waits for
        every bucket at the end of the walk and puts the reduced gradients in the walk's results.
        """
        target_set = set(targets)
        tnodes = [node_of(p) for p in self._param_list]
        index = {tn: i for i, tn in enumerate(tnodes) if tn is not None and tn in target_set}
        if not index:
            return None
        finals = {}                     # consumer node -> parameter indices final once it is walked
        seen = set()
        for node in order:
            if node.op is None or node not in needed:
                continue
            for inp in node.inputs:
                i = index.get(node_of(inp))
                if i is not None and i not in seen:
                    seen.add(i)
                    finals.setdefault(node, []).append(i)
        bucket_of = {i: b for b in self.buckets for i in b.indices}
        missing = {b: len(b.indices) for b in self.buckets}
        done = {}
        prev = [None]

        def ready(node):
            p, prev[0] = prev[0], node
            idxs = finals.get(p) if p is not None else None
            if idxs:
                for i in idxs:
                    slot = grads.get(tnodes[i])
                    g = None if slot is None else slot[0]
                    if g is None:
                        continue
                    done[i] = g
                    b = bucket_of[i]
                    missing[b] -= 1
                    if missing[b] == 0:
                        ins = tuple(done[j] for j in b.indices)
                        self._pending[b] = (b.start(ins), ins)
            if node is None and finish:
                self._finish(tnodes, grads, done)

        return ready

    def _finish(self, tnodes, grads, done):
        """Wait for every bucket (starting those never completed, unused parameters as zeros) and put
        the reduced gradients where the backward walk reads its results."""
        for b in self.buckets:
            started = self._pending.pop(b, None)
            if started is None:
                ins = tuple(done.get(j) if done.get(j) is not None else
                            Tensor._wrap(np.zeros(self._shapes[j], self._param_list[j]._data.dtype)) for j in b.indices)
                started = (b.start(ins), ins)
            for j, g in zip(b.indices, b.wait(started[0])):
                slot = grads.get(tnodes[j])
                if slot is None:
                    grads[tnodes[j]] = [g]
                else:
                    slot[0] = g

    # ------------------------------------------------------------------ reducing
    def construct(self, grads):
        single = isinstance(grads, Tensor)
        seq = (grads,) if single else tuple(grads)
        if len(seq) != self._n:
            raise ValueError(f"DistributedGradReducer: expected {self._n} gradient(s), one per parameter, "
                             f"got {len(seq)}")
        if not self._active:
            self._pending.clear()
            if self.mean and self.degree != 1:
                seq = tuple(ops.mul(g, 1.0 / self.degree) for g in seq)
            return seq[0] if single else seq
        out = list(seq)
        pending = self._pending
        for b in self.buckets:
            ins = tuple(seq[i] for i in b.indices)
            started = pending.pop(b, None)
            if started is not None and all(x is y for x, y in zip(started[1], ins)):
                token = started[0]
            else:
                if started is not None:             # started on other tensors: finish, then redo
                    b.wait(started[0])
                token = b.start(ins)
            for i, g in zip(b.indices, b.wait(token)):
                out[i] = g
        return out[0] if single else tuple(out)

    def extend_repr(self):
        return (f"mean={self.mean}, degree={self.degree}, group={self.group!r}, buckets={len(self.buckets)}, "
                f"bucket_cap_mb={self.bucket_cap_mb}")


def bucket_bytes(reducer):
    """The bytes each bucket moves (for reports and benchmarks)."""
    return [b.nbytes for b in reducer.buckets]




def broadcast_parameters(parameters, root_rank=0, group=GlobalComm.WORLD_COMM_GROUP):
    """Copy world rank ``root_rank``'s values of ``parameters`` into every rank's (in place)."""
    g = _engine.group_of(group, "broadcast_parameters")
    if g.size == 1:
        return
    root = g.ranks.index(root_rank) if root_rank in g.ranks else None
    if root is None:
        raise ValueError(f"broadcast_parameters: root_rank {root_rank} is not in group {group!r} ({g.ranks})")
    for p in parameters:
        p._data[...] = _engine.broadcast(p._data, root, g, "broadcast_parameters")
