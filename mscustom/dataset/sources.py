"""Source datasets: ``GeneratorDataset`` over Python data, and ``NumpySlicesDataset`` over arrays.

A source is random-access (``__getitem__`` + ``__len__``: shuffling,
sharding and ``num_samples`` work on indices), a generator function (called
once per epoch), or an iterable (``iter()`` once per epoch). As in
MindSpore, a random-access source is shuffled unless ``shuffle=False``;
other sources keep their order, and ``shuffle=True`` or sharding on them is
an error.
"""

import math

import numpy as np

from . import config
from .engine import Dataset, _column_list, _positive_int

__all__ = ["GeneratorDataset", "NumpySlicesDataset"]


class GeneratorDataset(Dataset):
    """Rows from a Python source: each item is a tuple with one value per column (a bare value for one column).

    Example::

        def gen():
            for i in range(8):
                yield np.array([i], np.float32), np.array(i % 2)
        data = ds.GeneratorDataset(gen, column_names=["x", "label"])
    """

    def __init__(self, source, column_names=None, column_types=None, schema=None, num_samples=None,
                 num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None, shard_id=None,
                 python_multiprocessing=True, max_rowsize=None):
        super().__init__()
        who = type(self).__name__
        if column_names is None:
            raise ValueError(f"{who}: column_names is required (a name or a list of names, one per value "
                             "in each row)")
        if sampler is not None or schema is not None:
            raise ValueError(f"{who}: sampler and schema are not supported; use shuffle, num_shards/shard_id "
                             "and column_names")
        self._who = who
        self._names = _column_list(column_names, "column_names", who)
        if len(set(self._names)) != len(self._names):
            raise ValueError(f"{who}: column_names repeat a name: {self._names}")
        self._types = None
        if column_types is not None:
            from ..dtype import to_numpy
            if len(column_types) != len(self._names):
                raise ValueError(f"{who}: column_types has {len(column_types)} entries for "
                                 f"{len(self._names)} columns")
            self._types = [to_numpy(t) for t in column_types]
        self.source = source
        self._random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        self._one_shot = not callable(source) and not self._random_access and iter(source) is source
        if not (self._random_access or callable(source) or hasattr(source, "__iter__")):
            raise TypeError(f"{who}: source must be random-access (__getitem__ and __len__), a generator "
                            f"function or an iterable, got {type(source).__name__}")
        self.num_samples = None if num_samples is None else _positive_int(num_samples, "num_samples", who)
        if (num_shards is None) != (shard_id is None):
            raise ValueError(f"{who}: num_shards and shard_id must be given together, got num_shards="
                             f"{num_shards!r} and shard_id={shard_id!r}")
        if num_shards is not None:
            num_shards = _positive_int(num_shards, "num_shards", who)
            if isinstance(shard_id, bool) or not isinstance(shard_id, (int, np.integer)) \
                    or not 0 <= shard_id < num_shards:
                raise ValueError(f"{who}: shard_id must be an int in [0, {num_shards}), got {shard_id!r}")
        self.num_shards, self.shard_id = num_shards, shard_id
        if not self._random_access and (shuffle or num_shards is not None):
            raise ValueError(f"{who}: shuffle=True and num_shards need a random-access source (__getitem__ "
                             f"and __len__); {type(source).__name__} is not one. Use .shuffle(buffer_size) "
                             "on the dataset instead")
        self.shuffle_flag = self._random_access if shuffle is None else bool(shuffle)
        self._used = False

    # ------------------------------------------------------------------ sizes and names
    def get_col_names(self):
        return list(self._names)

    def get_batch_size(self):
        return 1

    def get_repeat_count(self):
        return 1

    def get_dataset_size(self):
        if self._random_access:
            n = len(self.source)
            if self.num_shards is not None:
                n = math.ceil(n / self.num_shards)
        elif self._one_shot:
            raise ValueError(f"{self._who}: the size of a one-shot iterator source is unknown without using it "
                             "up; pass a generator function or a re-iterable source")
        elif hasattr(self.source, "__len__"):
            n = len(self.source)
        else:
            n = sum(1 for _ in (self.source() if callable(self.source) else iter(self.source)))
        return n if self.num_samples is None else min(n, self.num_samples)

    # ------------------------------------------------------------------ rows
    def _indices(self, epoch):
        n = len(self.source)
        if self.shuffle_flag:
            if self.num_shards is not None:     # every shard must draw the same permutation
                seed = config.get_seed() or 0
                order = np.random.default_rng([seed, epoch]).permutation(n)
            else:
                order = config.rng_for(self._id, epoch).permutation(n)
        else:
            order = np.arange(n)
        if self.num_shards is not None and n:
            per = math.ceil(n / self.num_shards)
            order = order[[(k * self.num_shards + self.shard_id) % n for k in range(per)]]
        if self.num_samples is not None:
            order = order[:self.num_samples]
        return order

    def _row(self, item):
        ncols = len(self._names)
        if isinstance(item, tuple):
            values = item
        elif ncols == 1:
            values = (item,)
        else:
            values = tuple(item) if isinstance(item, list) else (item,)
        if len(values) != ncols:
            raise ValueError(f"{self._who}: the source gave a row of {len(values)} value(s) for "
                             f"{ncols} column(s) {self._names}")
        if self._types is None:
            return tuple(np.asarray(v) for v in values)
        return tuple(np.asarray(v, dtype=t) for v, t in zip(values, self._types))

    def _rows(self, epoch):
        if self._random_access:
            for i in self._indices(epoch):
                yield self._row(self.source[int(i)])
            return
        if self._one_shot:
            if self._used:
                raise ValueError(f"{self._who}: the source is an iterator that the previous epoch used up; "
                                 "pass a generator function or an iterable that can be iterated again")
            self._used = True
        items = self.source() if callable(self.source) else iter(self.source)
        for k, item in enumerate(items):
            if self.num_samples is not None and k >= self.num_samples:
                return
            yield self._row(item)


class _Slices:
    """Random access to row ``i`` of several equally long arrays."""

    def __init__(self, arrays):
        self.arrays = arrays

    def __len__(self):
        return len(self.arrays[0])

    def __getitem__(self, i):
        return tuple(a[i] for a in self.arrays)


class NumpySlicesDataset(GeneratorDataset):
    """Rows sliced along the first axis of arrays: a list or array gives one column, a tuple one column
    per entry, a dict one column per key (named by it); other names default to ``column_0``, ...

    Example::

        data = ds.NumpySlicesDataset((x, y), column_names=["data", "label"], shuffle=False)
    """

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None):
        who = "NumpySlicesDataset"
        if isinstance(data, dict):
            names = list(data)
            arrays = [np.asarray(v) for v in data.values()]
        elif isinstance(data, tuple):
            arrays = [np.asarray(v) for v in data]
            names = [f"column_{i}" for i in range(len(arrays))]
        elif isinstance(data, (list, np.ndarray)):
            arrays = [np.asarray(data)]
            names = ["column_0"]
        else:
            raise TypeError(f"{who}: data must be a list, tuple, dict or NumPy array, got {type(data).__name__}")
        if not arrays or any(a.ndim == 0 for a in arrays):
            raise ValueError(f"{who}: every column needs at least one axis to slice along")
        lengths = {len(a) for a in arrays}
        if len(lengths) != 1:
            raise ValueError(f"{who}: the columns have different lengths {[len(a) for a in arrays]}; "
                             "they must agree along the first axis")
        if column_names is not None:
            names = _column_list(column_names, "column_names", who)
            if len(names) != len(arrays):
                raise ValueError(f"{who}: {len(names)} column name(s) for {len(arrays)} column(s)")
        super().__init__(_Slices(arrays), column_names=names, num_samples=num_samples, shuffle=shuffle,
                         sampler=sampler, num_shards=num_shards, shard_id=shard_id)
        self._who = who
