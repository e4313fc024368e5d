"""The pipeline operations: batch, shuffle, map, repeat, take, skip."""

import math

import numpy as np

from .engine import Dataset, _column_list, _positive_int, register_stage, rng_for

__all__ = ["BatchDataset", "ShuffleDataset", "MapDataset", "RepeatDataset", "TakeDataset", "SkipDataset"]


class BatchDataset(Dataset):
    """Rows stacked ``batch_size`` at a time along a new first axis, column by column."""

    def __init__(self, child, batch_size, drop_remainder=False, **kwargs):
        super().__init__([child])
        unsupported = sorted(k for k, v in kwargs.items() if v is not None)
        if unsupported:
            raise ValueError(f"batch: argument(s) {unsupported} are not supported here; batch takes "
                             "batch_size, drop_remainder and num_parallel_workers")
        self.batch_size = _positive_int(batch_size, "batch_size", "batch")
        self.drop_remainder = bool(drop_remainder)

    def get_dataset_size(self):
        n = self.children[0].get_dataset_size()
        if n is None:
            return None
        return n // self.batch_size if self.drop_remainder else math.ceil(n / self.batch_size)

    def get_batch_size(self):
        return self.batch_size

    def _stack(self, rows):
        names = self.get_col_names()
        out = []
        for c, name in enumerate(names):
            column = [r[c] for r in rows]
            shapes = {a.shape for a in column}
            if len(shapes) > 1:
                raise ValueError(f"batch: column '{name}' has rows of different shapes {sorted(shapes)}; "
                                 "rows must share a shape to be stacked into a batch")
            out.append(np.stack(column))
        return tuple(out)

    def _rows(self, epoch):
        pending = []
        for row in self.children[0]._rows(epoch):
            pending.append(row)
            if len(pending) == self.batch_size:
                yield self._stack(pending)
                pending = []
        if pending and not self.drop_remainder:
            yield self._stack(pending)


class ShuffleDataset(Dataset):
    """Buffer shuffle: fill ``buffer_size`` rows, emit a random one and refill its slot, then drain."""

    def __init__(self, child, buffer_size):
        super().__init__([child])
        self.buffer_size = _positive_int(buffer_size, "buffer_size", "shuffle", minimum=2)

    def _rows(self, epoch):
        rng = rng_for(self, epoch)
        buffer = []
        for row in self.children[0]._rows(epoch):
            if len(buffer) < self.buffer_size:
                buffer.append(row)
                continue
            k = int(rng.integers(len(buffer)))
            yield buffer[k]
            buffer[k] = row
        order = rng.permutation(len(buffer))
        for k in order:
            yield buffer[k]


class MapDataset(Dataset):
    """``operations`` applied in order to the input columns; their outputs become the output columns.

    With as many outputs as inputs the columns keep their places (renamed to
    ``output_columns`` if given). Otherwise the input columns are removed and
    the outputs inserted where the first input column was.
    """

    def __init__(self, child, operations, input_columns=None, output_columns=None):
        super().__init__([child])
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops or not all(callable(op) for op in ops):
            raise TypeError(f"map: operations must be a callable or a non-empty list of callables, got {operations!r}")
        self.operations = ops
        names = child.get_col_names()
        self.input_columns = [names[0]] if input_columns is None else _column_list(input_columns,
                                                                                   "input_columns", "map")
        missing = [c for c in self.input_columns if c not in names]
        if missing:
            raise ValueError(f"map: input column(s) {missing} not in the dataset's columns {names}")
        self.output_columns = list(self.input_columns) if output_columns is None else \
            _column_list(output_columns, "output_columns", "map")
        self._in_index = [names.index(c) for c in self.input_columns]
        if len(self.output_columns) == len(self.input_columns):
            out_names = list(names)
            for i, name in zip(self._in_index, self.output_columns):
                out_names[i] = name
        else:
            kept = [n for n in names if n not in self.input_columns]
            at = sorted(self._in_index)[0]
            before = [n for n in names[:at] if n not in self.input_columns]
            out_names = before + self.output_columns + kept[len(before):]
        if len(set(out_names)) != len(out_names):
            raise ValueError(f"map: the output columns {self.output_columns} would repeat a column name in {out_names}")
        self._names = out_names

    def get_col_names(self):
        return list(self._names)

    def _apply(self, values):
        for op in self.operations:
            out = op(*values)
            values = tuple(out) if isinstance(out, tuple) else (out,)
        if len(values) != len(self.output_columns):
            raise ValueError(f"map: the operations returned {len(values)} value(s) for output columns "
                             f"{self.output_columns}")
        return tuple(np.asarray(v) for v in values)

    def _rows(self, epoch):
        names_in = self.children[0].get_col_names()
        same = len(self.output_columns) == len(self.input_columns)
        for row in self.children[0]._rows(epoch):
            outs = self._apply(tuple(row[i] for i in self._in_index))
            if same:
                row = list(row)
                for i, v in zip(self._in_index, outs):
                    row[i] = v
                yield tuple(row)
            else:
                by_name = {n: a for n, a in zip(names_in, row)}
                by_name.update(zip(self.output_columns, outs))
                yield tuple(by_name[n] for n in self._names)


class RepeatDataset(Dataset):
    """The child's epoch replayed ``count`` times (each replay is a new child epoch, so shuffles differ)."""

    def __init__(self, child, count=None):
        super().__init__([child])
        if count is None or count == -1:
            self.count = -1
        else:
            self.count = _positive_int(count, "count", "repeat")

    def get_dataset_size(self):
        n = self.children[0].get_dataset_size()
        return None if self.count == -1 or n is None else n * self.count

    def get_repeat_count(self):
        return self.count

    def _rows(self, epoch):
        k = 0
        while self.count == -1 or k < self.count:
            base = epoch * (self.count if self.count > 0 else 1 << 20) + k
            yield from self.children[0]._rows(base)
            k += 1


class TakeDataset(Dataset):
    """At most ``count`` rows (-1: all)."""

    def __init__(self, child, count=-1):
        super().__init__([child])
        self.count = -1 if count == -1 else _positive_int(count, "count", "take")

    def get_dataset_size(self):
        n = self.children[0].get_dataset_size()
        if self.count == -1:
            return n
        return self.count if n is None else min(n, self.count)

    def _rows(self, epoch):
        if self.count == -1:
            yield from self.children[0]._rows(epoch)
            return
        for k, row in enumerate(self.children[0]._rows(epoch)):
            if k >= self.count:
                return
            yield row


class SkipDataset(Dataset):
    """The rows after the first ``count``."""

    def __init__(self, child, count):
        super().__init__([child])
        self.count = _positive_int(count, "count", "skip", minimum=0)

    def get_dataset_size(self):
        n = self.children[0].get_dataset_size()
        return None if n is None else max(n - self.count, 0)

    def _rows(self, epoch):
        for k, row in enumerate(self.children[0]._rows(epoch)):
            if k >= self.count:
                yield row


for _name, _cls in (("batch", BatchDataset), ("shuffle", ShuffleDataset), ("map", MapDataset),
                    ("repeat", RepeatDataset), ("take", TakeDataset), ("skip", SkipDataset)):
    register_stage(_name, _cls)
del _name, _cls
