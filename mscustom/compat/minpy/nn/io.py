"""``minpy.nn.io.NDArrayIter``: batches of NumPy data for minpy's Solver.

Like MXNet's ``NDArrayIter`` (``last_batch_handle='pad'`` by default), with
minpy's ``getnumiterations()`` and ``getsubiter(num_samples)``. Batches hold
NumPy arrays (``batch.data[0]``, ``batch.label[0]``); labels keep their dtype
so integer labels index directly.

Example::

    it = NDArrayIter(x, y, batch_size=64, shuffle=True)
    for batch in it:
        batch.data[0], batch.label[0], batch.pad
"""

import numpy as np

from ....tensor import Tensor

__all__ = ["NDArrayIter", "DataBatch"]


class DataBatch:
    def __init__(self, data, label, pad=0, index=None):
        self.data, self.label, self.pad, self.index = data, label, pad, index


def _np(a):
    return a.asnumpy() if isinstance(a, Tensor) else np.asarray(a)


class NDArrayIter:
    """Iterate over ``data`` / ``label`` in batches of ``batch_size``."""

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle="pad"):
        if last_batch_handle not in ("pad", "discard"):
            raise ValueError(f"NDArrayIter: last_batch_handle must be 'pad' or 'discard', got {last_batch_handle!r}")
        if batch_size < 1:
            raise ValueError(f"NDArrayIter: batch_size must be positive, got {batch_size}")
        self.data = _np(data)
        self.label = None if label is None else _np(label)
        self.num_data = self.data.shape[0]
        if self.label is not None and self.label.shape[0] != self.num_data:
            raise ValueError(f"NDArrayIter: {self.label.shape[0]} labels for {self.num_data} samples")
        if shuffle:
            order = np.random.permutation(self.num_data)
            self.data = self.data[order]
            self.label = None if self.label is None else self.label[order]
        self.batch_size = int(batch_size)
        self.last_batch_handle = last_batch_handle
        self.cursor = 0

    def reset(self):
        self.cursor = 0

    def getnumiterations(self):
        full, rest = divmod(self.num_data, self.batch_size)
        return full + (1 if rest and self.last_batch_handle == "pad" else 0)

    def getsubiter(self, num_samples):
        """An iterator over a random subset of ``num_samples`` samples."""
        idx = np.random.choice(self.num_data, num_samples, replace=False)
        return NDArrayIter(self.data[idx], None if self.label is None else self.label[idx], self.batch_size,
                           last_batch_handle=self.last_batch_handle)

    def __iter__(self):
        return self

    def __next__(self):
        start, end = self.cursor, self.cursor + self.batch_size
        if start >= self.num_data or (self.last_batch_handle == "discard" and end > self.num_data):
            raise StopIteration
        self.cursor = end
        idx = np.arange(start, end) % self.num_data
        pad = max(0, end - self.num_data)
        label = [] if self.label is None else [self.label[idx]]
        return DataBatch([self.data[idx]], label, pad, idx)

    next = __next__
