"""Iterators over a pipeline, fed by a background thread through a bounded queue.

The loader thread runs the pipeline epoch after epoch, up to
``prefetch_size`` items ahead of the consumer, so data preparation overlaps
the training step. It holds no reference to the iterator object: when the
iterator is closed or garbage collected, a stop event ends the thread at its
next queue operation. An exception in the pipeline (in the user's source or
a map operation) is passed through the queue and raised again, the same
exception object, in the consumer.
"""

import queue
import threading
import weakref

import numpy as np

from .._core import trace as _trace
from ..tensor import Tensor
from . import config

__all__ = ["TupleIterator", "DictIterator"]

_EPOCH_END = object()
_DONE = object()
_POLL_S = 0.05


class _Failure:
    __slots__ = ("exc",)

    def __init__(self, exc):
        self.exc = exc


def _put(q, stop, item):
    """Put ``item`` unless ``stop`` is set first; False when the consumer has gone."""
    while not stop.is_set():
        try:
            q.put(item, timeout=_POLL_S)
            return True
        except queue.Full:
            continue
    return False


def _produce(dataset, num_epochs, q, stop):
    try:
        epoch = 0
        while num_epochs < 0 or epoch < num_epochs:
            for row in dataset._rows(epoch):
                if not _put(q, stop, row):
                    return
            if not _put(q, stop, _EPOCH_END):
                return
            epoch += 1
        _put(q, stop, _DONE)
    except BaseException as exc:                 # noqa: BLE001 - handed to the consumer
        _put(q, stop, _Failure(exc))


def _stop(stop, q):
    stop.set()
    try:                                         # unblock a producer waiting on a full queue
        while True:
            q.get_nowait()
    except queue.Empty:
        pass


class _Iterator:
    """Yields one epoch of rows per ``for`` loop, ``num_epochs`` times (-1: without end)."""

    def __init__(self, dataset, num_epochs=-1, output_numpy=False, do_copy=True):
        if isinstance(num_epochs, bool) or not isinstance(num_epochs, (int, np.integer)) \
                or (num_epochs < 1 and num_epochs != -1):
            raise ValueError(f"{type(self).__name__}: num_epochs must be a positive int or -1, got {num_epochs!r}")
        self._columns = dataset.get_col_names()
        self._output_numpy = bool(output_numpy)
        self._queue = queue.Queue(maxsize=config.get_prefetch_size())
        self._stop = threading.Event()
        self._finished = False
        self._thread = threading.Thread(target=_produce, args=(dataset, int(num_epochs), self._queue, self._stop),
                                        name="mscustom-dataset-loader", daemon=True)
        self._finalizer = weakref.finalize(self, _stop, self._stop, self._queue)
        self._thread.start()

    def __iter__(self):
        return self

    def __next__(self):
        t0 = _trace.now() if _trace.ACTIVE[0] is not None else None     # a profiler records: time the row
        if self._finished:
            raise StopIteration
        item = self._queue.get()
        if item is _EPOCH_END:
            raise StopIteration
        if item is _DONE:
            self._finished = True
            self.stop()
            raise StopIteration
        if isinstance(item, _Failure):
            self._finished = True
            self.stop()
            raise item.exc
        row = self._convert(item)
        if t0 is not None:
            _trace.add("GetNext", "data", t0, {"columns": list(self._columns)})
        return row

    def _value(self, array):
        if self._output_numpy:
            return array
        return Tensor._wrap(array if array.flags.c_contiguous else array.copy(order="C"))   # 0-d stays 0-d

    def stop(self):
        """End the loader thread now (also done when the iterator is garbage collected)."""
        self._finalizer()

    def __del__(self):
        self._finalizer()


class TupleIterator(_Iterator):
    """Rows as lists of Tensors (NumPy arrays with ``output_numpy=True``), one entry per column."""

    def _convert(self, row):
        return [self._value(a) for a in row]


class DictIterator(_Iterator):
    """Rows as dicts column name -> Tensor (NumPy array with ``output_numpy=True``)."""

    def _convert(self, row):
        return {name: self._value(a) for name, a in zip(self._columns, row)}
