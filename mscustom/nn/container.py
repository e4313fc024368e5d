"""``CellDict``: Cells registered under string keys (``SequentialCell``/``CellList`` live in ``cell.py``).

Example::

    heads = nn.CellDict({"cls": nn.Dense(8, 3), "reg": nn.Dense(8, 1)})
    heads["cls"](x)
"""

from collections import OrderedDict

from .cell import Cell

__all__ = ["CellDict"]


class CellDict(Cell):
    """An ordered dict of Cells whose Parameters are registered (``cls.weight`` ...); not callable itself."""

    def __init__(self, args=None, auto_prefix=True):
        super().__init__(auto_prefix=auto_prefix)
        if args is not None:
            self.update(args)

    def _check(self, key, cell):
        if not isinstance(key, str) or not key or "." in key:
            raise ValueError(f"CellDict: keys must be non-empty strings without '.', got {key!r}")
        if not isinstance(cell, Cell):
            raise TypeError(f"CellDict: values must be Cells, got {type(cell).__name__} for key {key!r}")

    def __getitem__(self, key):
        if key not in self._cells:
            raise KeyError(f"CellDict: no cell under key {key!r}; keys are {list(self._cells)}")
        return self._cells[key]

    def __setitem__(self, key, cell):
        self._check(key, cell)
        setattr(self, key, cell)

    def __delitem__(self, key):
        if key not in self._cells:
            raise KeyError(f"CellDict: no cell under key {key!r}")
        delattr(self, key)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def __contains__(self, key):
        return key in self._cells

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def clear(self):
        for key in list(self._cells):
            delattr(self, key)

    def pop(self, key):
        cell = self[key]
        del self[key]
        return cell

    def update(self, cells):
        """Add the (key, Cell) pairs of a dict, an OrderedDict, a CellDict or an iterable of pairs."""
        if isinstance(cells, (dict, OrderedDict, CellDict)):
            pairs = list(cells.items())
        else:
            pairs = []
            for item in cells:
                if not isinstance(item, (tuple, list)) or len(item) != 2:
                    raise TypeError(f"CellDict.update: expects (key, Cell) pairs, got {item!r}")
                pairs.append(tuple(item))
        for key, cell in pairs:
            self[key] = cell

    def construct(self, *inputs):
        raise TypeError("CellDict is a container and cannot be called; call its cells")
