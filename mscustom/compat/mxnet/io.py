"""``mx.io``: ``NDArrayIter``, ``DataBatch``, ``DataDesc``.

``NDArrayIter`` walks arrays in batches as MXNet's does: ``last_batch_handle``
``'pad'`` (default: the last batch is completed from the start and
``batch.pad`` says how many are padding), ``'discard'`` (drop it) or
``'roll_over'`` (its samples start the next epoch); ``shuffle`` permutes once
at construction; data and label may be arrays, lists or dicts of names.

Example::

    it = mx.io.NDArrayIter(x, y, batch_size=32, shuffle=True, label_name="softmax_label")
    for batch in it:
        batch.data[0], batch.label[0], batch.pad
"""

from collections import OrderedDict, namedtuple

import numpy as np

from ...tensor import Tensor
from ._ndarray import wrap
from .base import MXNetError

__all__ = ["DataDesc", "DataBatch", "DataIter", "NDArrayIter"]


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """A named input shape (``dtype`` and ``layout`` as attributes, as in MXNet)."""

    def __new__(cls, name, shape, dtype=np.float32, layout="NCHW"):
        d = super().__new__(cls, name, tuple(shape))
        d.dtype, d.layout = dtype, layout
        return d


class DataBatch:
    """One batch: ``data`` and ``label`` lists of NDArrays, ``pad``, ``index``."""

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None, provide_data=None,
                 provide_label=None):
        self.data, self.label, self.pad, self.index = data, label, pad, index
        self.provide_data, self.provide_label = provide_data, provide_label


class DataIter:
    """Base iterator: ``reset``, ``next``, iteration."""

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def reset(self):
        pass


def _init_data(data, default_name):
    if data is None:
        return []
    if isinstance(data, (np.ndarray, Tensor, list)) and not (isinstance(data, list) and data and
                                                            isinstance(data[0], (np.ndarray, Tensor))):
        data = [data]
    if isinstance(data, (list, tuple)):
        names = [default_name] if len(data) == 1 else [f"_{i}_{default_name}" for i in range(len(data))]
        data = OrderedDict(zip(names, data))
    out = []
    for k, v in data.items():
        arr = v.asnumpy() if isinstance(v, Tensor) else np.asarray(v)
        if arr.dtype == np.float64:
            arr = arr.astype(np.float32)           # MXNet's iterator hands out float32
        out.append((k, arr))
    return out


class NDArrayIter(DataIter):
    """Iterate over arrays in batches (MXNet 1.x's ``NDArrayIter``)."""

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle="pad",
                 data_name="data", label_name="softmax_label"):
        super().__init__(batch_size)
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise ValueError(f"NDArrayIter: last_batch_handle must be 'pad', 'discard' or 'roll_over', "
                             f"got {last_batch_handle!r}")
        if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ValueError(f"NDArrayIter: batch_size must be a positive int, got {batch_size!r}")
        self.data = _init_data(data, data_name)
        self.label = _init_data(label, label_name)
        if not self.data:
            raise ValueError("NDArrayIter: data is empty")
        self.num_data = self.data[0][1].shape[0]
        for k, v in self.data + self.label:
            if v.shape[0] != self.num_data:
                raise ValueError(f"NDArrayIter: '{k}' has {v.shape[0]} samples, '{self.data[0][0]}' has {self.num_data}")
        if last_batch_handle == "discard" and self.num_data < batch_size:
            raise ValueError(f"NDArrayIter: batch_size {batch_size} is larger than the {self.num_data} samples "
                             "and last_batch_handle='discard' would give no batch")
        self.idx = np.arange(self.num_data)
        if shuffle:
            from .random import generator
            self.idx = generator().permutation(self.num_data)
            self.data = [(k, v[self.idx]) for k, v in self.data]
            self.label = [(k, v[self.idx]) for k, v in self.label]
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self._cache = None                    # roll_over: the leftover samples of the last epoch
        self.cursor = -batch_size
        self._leftover = None

    @property
    def provide_data(self):
        return [DataDesc(k, (self.batch_size,) + v.shape[1:], v.dtype) for k, v in self.data]

    @property
    def provide_label(self):
        return [DataDesc(k, (self.batch_size,) + v.shape[1:], v.dtype) for k, v in self.label]

    def reset(self):
        if self.last_batch_handle == "roll_over" and self._leftover is not None:
            self._cache = self._leftover
        self._leftover = None
        self.cursor = -self.batch_size
        if self._cache is not None:
            self.cursor -= len(self._cache[0][0])

    def iter_next(self):
        self.cursor += self.batch_size
        if self.last_batch_handle == "discard":
            return self.cursor + self.batch_size <= self.num_data
        return self.cursor < self.num_data

    def next(self):
        if not self.iter_next():
            raise StopIteration
        start, end = self.cursor, self.cursor + self.batch_size
        if self.last_batch_handle == "roll_over" and end > self.num_data:
            if start >= 0:                     # keep the tail for the next epoch
                self._leftover = ([v[start:] for _, v in self.data], [v[start:] for _, v in self.label])
            raise StopIteration
        pad = max(0, end - self.num_data) if self.last_batch_handle == "pad" else 0
        data = [wrap(self._take(v, i, start, end, True)) for i, (_, v) in enumerate(self.data)]
        label = [wrap(self._take(v, i, start, end, False)) for i, (_, v) in enumerate(self.label)]
        if start < 0:
            self._cache = None
        return DataBatch(data, label, pad=pad, index=self.idx[max(start, 0):min(end, self.num_data)])

    def _take(self, v, i, start, end, is_data):
        if start < 0:                          # roll_over: leftover samples first
            cached = self._cache[0 if is_data else 1][i]
            return np.concatenate([cached, v[:end]])
        if end <= self.num_data:
            return v[start:end]
        return np.concatenate([v[start:], v[:end - self.num_data]])

    def getpad(self):
        return max(0, self.cursor + self.batch_size - self.num_data) if self.last_batch_handle == "pad" else 0



# ------------------------------------------------------------------ MNIST files on disk (see _mnist.py)
class MNISTIter(NDArrayIter):
    """Batches of MNIST IDX files: ``data`` (pixels / 256) and ``softmax_label`` (float32)."""

    def __init__(self, image="./train-images-idx3-ubyte", label="./train-labels-idx1-ubyte", batch_size=128,
                 shuffle=True, flat=False, seed=0, silent=False, num_parts=1, part_index=0, input_shape=None,
                 **kwargs):
        from ._mnist import read_idx
        images = read_idx(image)
        labels = read_idx(label)
        if images.ndim != 3 or labels.ndim != 1 or len(images) != len(labels):
            raise MXNetError(f"MNISTIter: {image} holds images of shape {images.shape} and {label} labels of "
                                   f"shape {labels.shape}; expected (n, rows, cols) and (n,)")
        if not 0 <= part_index < num_parts:
            raise ValueError(f"MNISTIter: part_index must be in [0, {num_parts}), got {part_index}")
        n = len(images)
        lo, hi = n * part_index // num_parts, n * (part_index + 1) // num_parts
        images, labels = images[lo:hi], labels[lo:hi]
        x = images.astype(np.float32) / 256.0
        x = x.reshape(len(x), -1) if flat else x.reshape(len(x), 1, *images.shape[1:])
        y = labels.astype(np.float32)
        if shuffle:
            order = np.random.RandomState(seed).permutation(len(x))
            x, y = x[order], y[order]
        super().__init__(x, y, batch_size=batch_size, shuffle=False, last_batch_handle="discard",
                         data_name="data", label_name="softmax_label")


__all__ += ["MNISTIter"]
