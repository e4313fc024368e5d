"""``Dataset``: a node of the data pipeline, and the operations that chain new nodes onto it.

A node yields rows, each a tuple of NumPy arrays (one per column), through
``_rows(epoch)``. Operations (``batch``, ``shuffle``, ``map``, ``repeat``,
``take``, ``skip``) return new nodes; iterators run the chain in a background
thread (see ``iterators.py``).

Example::

    import mscustom.dataset as ds
    data = ds.NumpySlicesDataset({"x": np.arange(10.0), "y": np.arange(10)}, shuffle=False)
    data = data.map(lambda x: x * 2, input_columns="x").batch(4, drop_remainder=True)
    for x, y in data.create_tuple_iterator():
        ...
"""

import zlib

import numpy as np

from . import config
from .iterators import DictIterator, TupleIterator

__all__ = ["Dataset"]

def _positive_int(value, what, who, minimum=1):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{who}: {what} must be an int >= {minimum}, got {value!r}")
    return int(value)


def _column_list(value, what, who):
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(isinstance(c, str) for c in value):
        return list(value)
    raise TypeError(f"{who}: {what} must be a column name or a non-empty list of names, got {value!r}")


_STAGES = {}    # pipeline stage name -> Dataset subclass; dataset/ops.py registers them (it imports this module)


def register_stage(name, cls):
    """Make ``Dataset.<name>(...)`` build ``cls(self, ...)`` (used by ``dataset/ops.py``)."""
    _STAGES[name] = cls


class Dataset:
    """Base of every pipeline node: its columns, its size, its operations and its iterators."""

    def __init__(self, children=()):
        self.children = list(children)
        # The node's place in its own pipeline (its type and what lies below it), not a process-wide
        # counter: the same seed gives the same shuffle however many datasets were built before.
        self._id = _pipeline_key(type(self).__name__, self.children)

    # ------------------------------------------------------------------ what a node defines
    def _rows(self, epoch):
        raise TypeError(f"{type(self).__name__} is a Dataset node without _rows(epoch)")

    def get_col_names(self):
        """The column names, in row order."""
        return self.children[0].get_col_names()

    def get_dataset_size(self):
        """Rows (batches, after ``batch``) in one epoch."""
        return self.children[0].get_dataset_size()

    def get_batch_size(self):
        """The batch size (1 before any ``batch``)."""
        return self.children[0].get_batch_size()

    def get_repeat_count(self):
        """How many times ``repeat`` replays the data (1 when it does not)."""
        return self.children[0].get_repeat_count() if self.children else 1

    def output_shapes(self):
        """Shapes of the first row's columns."""
        return [list(a.shape) for a in next(iter(self._rows(0)))]

    def output_types(self):
        """NumPy dtypes of the first row's columns."""
        return [a.dtype for a in next(iter(self._rows(0)))]

    # ------------------------------------------------------------------ operations
    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, **kwargs):
        """Stack ``batch_size`` consecutive rows per column; the last, smaller batch is kept unless
        ``drop_remainder``."""
        return _STAGES["batch"](self, batch_size, drop_remainder, **kwargs)

    def shuffle(self, buffer_size):
        """Shuffle through a buffer of ``buffer_size`` rows (> 1); the whole set when it is at least that big."""
        return _STAGES["shuffle"](self, buffer_size)

    def map(self, operations, input_columns=None, output_columns=None, num_parallel_workers=None,
            python_multiprocessing=False, **kwargs):
        """Apply ``operations`` (a callable or a list, in order) to ``input_columns`` (default: the first)."""
        return _STAGES["map"](self, operations, input_columns, output_columns)

    def repeat(self, count=None):
        """Replay the data ``count`` times (None or -1: without end)."""
        return _STAGES["repeat"](self, count)

    def take(self, count=-1):
        """The first ``count`` rows (-1: all)."""
        return _STAGES["take"](self, count)

    def skip(self, count):
        """All rows after the first ``count``."""
        return _STAGES["skip"](self, count)

    # ------------------------------------------------------------------ iterators
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False, do_copy=True):
        """An iterator of rows as lists (Tensors, or NumPy arrays with ``output_numpy``).

        Each ``for`` loop over it gives one epoch; it serves ``num_epochs``
        epochs (-1: as many as asked). ``columns`` picks and orders columns.
        """
        node = self if columns is None else _Project(self, _column_list(columns, "columns",
                                                                         "create_tuple_iterator"))
        return TupleIterator(node, num_epochs, output_numpy, do_copy)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """An iterator of rows as dicts column name -> Tensor (or NumPy array)."""
        return DictIterator(self, num_epochs, output_numpy, do_copy)

    def __iter__(self):
        return self.create_tuple_iterator(num_epochs=1)


class _Project(Dataset):
    """The chosen columns, in the chosen order."""

    def __init__(self, child, columns):
        super().__init__([child])
        names = child.get_col_names()
        missing = [c for c in columns if c not in names]
        if missing:
            raise ValueError(f"create_tuple_iterator: unknown column(s) {missing}; the dataset has {names}")
        self._columns = columns
        self._index = [names.index(c) for c in columns]

    def get_col_names(self):
        return list(self._columns)

    def _rows(self, epoch):
        for row in self.children[0]._rows(epoch):
            yield tuple(row[i] for i in self._index)


def _pipeline_key(name, children):
    """A stable 32-bit key of a node: its class name and its children's keys (crc32, not ``hash``,
    which changes between interpreter runs)."""
    text = name + "(" + ",".join(str(c._id) for c in children) + ")"
    return zlib.crc32(text.encode())


def rng_for(node, epoch):
    """Random generator of ``node`` in ``epoch`` (seeded by ``dataset.config.set_seed`` when given)."""
    return config.rng_for(node._id, epoch)
