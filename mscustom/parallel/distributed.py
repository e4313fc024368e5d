"""``DistributedDataParallel``: MindSpore's PyTorch-style data-parallel wrapper, over MPI.

``DistributedDataParallel(module, init_sync=True, process_group=None,
bucket_cap_mb=None, find_unused_parameters=False, average_in_collective=False,
static_graph=False, reducer_mode="CppReducer")`` (MindSpore's signature). Calling
it runs ``module`` and arms the backward walk that follows: each bucket of
gradients (``bucket_cap_mb``, default 25) starts its all-reduce as soon as its
gradients are final, and at the end of the walk the gradients that
``value_and_grad`` returns are the averages over the group's ranks. ``init_sync``
copies the group's rank 0 parameters to every rank first.

Example (under ``python -m mscustom.run -n 2``)::

    init()
    net = DistributedDataParallel(net)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, net.trainable_params())
    loss, grads = grad_fn(x, y)           # grads: averaged over the ranks
    optimizer(grads)

Differences (docs/distributed.md): gradients are not accumulated across
steps, so ``zero_grad`` has nothing to clear and ``no_sync`` returns each rank's
own gradients; ``find_unused_parameters``, ``static_graph`` and ``reducer_mode``
are checked and recorded (unused parameters count as zero gradients); both
``average_in_collective`` settings average the same way (the reducer's: after the sum on one host,
each rank's share before it across hosts).
"""

import contextlib
import threading

from .. import nn
from .._core import backward as _backward
from ..communication import GlobalComm, _engine

__all__ = ["DistributedDataParallel"]

_REDUCER_MODES = ("CppReducer", "PythonReducer")


class DistributedDataParallel(nn.Cell):
    """Wrap ``module``: gradients taken through it come back averaged over the process group."""

    def __init__(self, module, init_sync=True, process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 average_in_collective=False, static_graph=False, reducer_mode="CppReducer"):
        super().__init__(auto_prefix=False)
        if not isinstance(module, nn.Cell):
            raise TypeError(f"DistributedDataParallel: module must be an nn.Cell, got {type(module).__name__}")
        for name, value in (("init_sync", init_sync), ("find_unused_parameters", find_unused_parameters),
                            ("average_in_collective", average_in_collective), ("static_graph", static_graph)):
            if not isinstance(value, bool):
                raise TypeError(f"DistributedDataParallel: {name} must be a bool, got {type(value).__name__}")
        if reducer_mode not in _REDUCER_MODES:
            raise ValueError(f"DistributedDataParallel: reducer_mode must be one of {list(_REDUCER_MODES)}, "
                             f"got {reducer_mode!r}")
        if bucket_cap_mb is not None and (isinstance(bucket_cap_mb, bool) or
                                          not isinstance(bucket_cap_mb, (int, float)) or bucket_cap_mb <= 0):
            raise ValueError(f"DistributedDataParallel: bucket_cap_mb must be a positive number or None, "
                             f"got {bucket_cap_mb!r}")
        group = GlobalComm.WORLD_COMM_GROUP if process_group is None else process_group
        g = _engine.group_of(group, "DistributedDataParallel")
        self.module = module
        self.process_group, self.init_sync, self.static_graph = group, init_sync, static_graph
        self.find_unused_parameters, self.average_in_collective = find_unused_parameters, average_in_collective
        self.reducer_mode = reducer_mode
        params = list(module.trainable_params())
        if init_sync and g.size > 1:
            nn.distributed.broadcast_parameters(params, g.ranks[0], group)
        self.reducer = nn.DistributedGradReducer(params, mean=True, degree=g.size, group=group,
                                                 bucket_cap_mb=bucket_cap_mb or nn.distributed.DEFAULT_BUCKET_CAP_MB)
        self._sync = g.size > 1
        self._thread = None

    def construct(self, *inputs, **kwargs):
        out = self.module(*inputs, **kwargs)
        if self._sync:
            self._thread = threading.get_ident()
            _backward.GRAD_READY[0] = self._factory     # the next backward walk of this thread
        elif _backward.GRAD_READY[0] == self._factory:
            _backward.GRAD_READY[0] = None
        return out

    def _factory(self, targets, order, needed, grads, node_of):
        if threading.get_ident() != self._thread:
            return None
        ready = self.reducer._ready_factory(targets, order, needed, grads, node_of, finish=True)
        if ready is not None and _backward.GRAD_READY[0] == self._factory:
            _backward.GRAD_READY[0] = None              # one walk per forward
        return ready

    def zero_grad(self):
        """Nothing to clear: gradients are not accumulated between steps here."""
        return None

    @contextlib.contextmanager
    def no_sync(self):
        """Inside: gradients stay each rank's own (no all-reduce)."""
        previous, self._sync = self._sync, False
        try:
            yield
        finally:
            self._sync = previous
