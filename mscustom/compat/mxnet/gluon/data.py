"""``gluon.data``: ``Dataset``, ``ArrayDataset``, ``SimpleDataset``, samplers and ``DataLoader``.

As MXNet 1.9.1: ``ArrayDataset(*arrays)`` gives the i-th element of each
array (a tuple when there are several; 1-D NDArrays are turned into NumPy
arrays first); ``DataLoader(dataset, batch_size, shuffle=False,
last_batch='keep')`` stacks samples into NDArrays (``'discard'`` drops an
incomplete last batch, ``'rollover'`` carries it into the next epoch);
shuffling draws from NumPy's global generator (``np.random.seed`` makes it
repeatable, and equal to MXNet's order for the same seed). Batches are made in
the calling process: ``num_workers`` is accepted and has no effect.

Example::

    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(x, y), batch_size=32, shuffle=True)
    for data, label in loader:
        ...
"""

import numpy as np

from .. import ndarray as _nd
from .._ndarray import NDArray

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "Sampler", "SequentialSampler", "RandomSampler",
           "BatchSampler", "DataLoader", "default_batchify_fn"]

_LAST_BATCH = ("keep", "discard", "rollover")


class Dataset:
    """Abstract: ``__getitem__`` and ``__len__``."""

    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__")

    def transform(self, fn, lazy=True):
        return SimpleDataset([fn(*s) if isinstance(s, tuple) else fn(s) for s in self])

    def transform_first(self, fn, lazy=True):
        return SimpleDataset([((fn(s[0]),) + tuple(s[1:])) if isinstance(s, tuple) else fn(s) for s in self])


class SimpleDataset(Dataset):
    """A Dataset over a list (or anything with ``len`` and indexing)."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class ArrayDataset(Dataset):
    """Samples that are the i-th elements of each of ``args`` (arrays, lists, NDArrays of equal length)."""

    def __init__(self, *args):
        if not args:
            raise AssertionError("ArrayDataset: needs at least 1 array")
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            if len(data) != self._length:
                raise AssertionError(f"ArrayDataset: all arrays must have the same length; array 0 has length "
                                     f"{self._length} while array {i} has {len(data)}.")
            if isinstance(data, NDArray) and len(data.shape) == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length


class Sampler:
    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., length - 1."""

    def __init__(self, length, start=0):
        self._length, self._start = length, start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """A permutation of 0 .. length - 1 per epoch, from ``np.random``."""

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        indices = np.arange(self._length)
        np.random.shuffle(indices)
        return iter(indices)

    def __len__(self):
        return self._length


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler``; ``last_batch`` 'keep', 'discard' or 'rollover'."""

    def __init__(self, sampler, batch_size, last_batch="keep"):
        if last_batch not in _LAST_BATCH:
            raise ValueError(f"last_batch must be one of 'keep', 'discard', or 'rollover', but got {last_batch}")
        self._sampler, self._batch_size, self._last_batch = sampler, batch_size, last_batch
        self._prev = []

    def __iter__(self):
        batch, self._prev = self._prev, []
        for i in self._sampler:
            batch.append(i)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            if self._last_batch == "keep":
                yield batch
            elif self._last_batch == "rollover":
                self._prev = batch

    def __len__(self):
        if self._last_batch == "keep":
            return (len(self._sampler) + self._batch_size - 1) // self._batch_size
        if self._last_batch == "discard":
            return len(self._sampler) // self._batch_size
        return (len(self._prev) + len(self._sampler)) // self._batch_size


def default_batchify_fn(data):
    """Stack NDArrays; zip tuples and batch each field; anything else through ``np.asarray``."""
    if isinstance(data[0], NDArray):
        return _nd.stack(*data)
    if isinstance(data[0], tuple):
        return [default_batchify_fn(list(field)) for field in zip(*data)]
    arr = np.asarray(data)
    return _nd.array(arr, dtype=arr.dtype)


class DataLoader:
    """Batches of a Dataset: ``batch_size``, ``shuffle``, ``sampler``, ``last_batch``, ``batch_sampler``."""

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None, batch_sampler=None,
                 batchify_fn=None, num_workers=0, pin_memory=False, pin_device_id=0, prefetch=None,
                 thread_pool=False, timeout=120, try_nopython=None):
        self._dataset = dataset
        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("batch_size must be specified unless batch_sampler is specified")
            if sampler is None:
                sampler = RandomSampler(len(dataset)) if shuffle else SequentialSampler(len(dataset))
            elif shuffle:
                raise ValueError("shuffle must not be specified if sampler is specified")
            batch_sampler = BatchSampler(sampler, batch_size, last_batch if last_batch else "keep")
        elif batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise ValueError("batch_size, shuffle, sampler and last_batch must not be specified if batch_sampler "
                             "is specified.")
        self._batch_sampler = batch_sampler
        self._batchify_fn = batchify_fn or default_batchify_fn

    def __iter__(self):
        for batch in self._batch_sampler:
            yield self._batchify_fn([self._dataset[int(i)] for i in batch])

    def __len__(self):
        return len(self._batch_sampler)
