"""Basic layers: ``Embedding`` and ``Identity``.

Example::

    emb = nn.Embedding(100, 16)
    emb(ms.Tensor([[1, 2], [3, 4]], ms.int32)).shape          # (2, 2, 16)
"""

import numpy as np

from .._core import capture as _capture
from .. import dtype as _dt
from .. import ops
from ..tensor import Parameter, Tensor
from . import init as _init
from .cell import Cell

__all__ = ["Embedding", "Identity"]


class Identity(Cell):
    """Returns its input unchanged."""

    def construct(self, x):
        return x


class Embedding(Cell):
    """A lookup table of ``vocab_size`` vectors of ``embedding_size``; the input holds integer ids.

    ``embedding_table`` (an initializer, default "normal" as in MindSpore) fills
    the Parameter ``embedding_table``; the row ``padding_idx`` (if given)
    starts at zero. ``use_one_hot=True`` computes ``one_hot(ids) @ table``
    instead of a gather (same result). The gradient is a scatter-add into the
    rows that were looked up. Ids outside ``[0, vocab_size)`` raise an
    IndexError (MindSpore returns zero vectors for them; here a bad id is
    reported rather than silently embedded as zeros). ``dtype`` is accepted
    as in MindSpore (its documented default is float32) and not used: the
    table is float32 and ids may be any integer type.
    """

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=_dt.float32, padding_idx=None):
        super().__init__()
        for what, v in (("vocab_size", vocab_size), ("embedding_size", embedding_size)):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
                raise ValueError(f"Embedding: {what} must be a positive int, got {v!r}")
        self.vocab_size, self.embedding_size = int(vocab_size), int(embedding_size)
        self.use_one_hot = bool(use_one_hot)
        self.dtype = _dt.dtype_from_any(dtype)
        if padding_idx is not None and not -vocab_size <= padding_idx < vocab_size:
            raise ValueError(f"Embedding: padding_idx must be in [-{vocab_size}, {vocab_size}), got {padding_idx!r}")
        self.padding_idx = padding_idx
        table = _init.initializer(embedding_table, (self.vocab_size, self.embedding_size), _dt.float32)
        if padding_idx is not None:
            table._data[padding_idx] = 0
        self.embedding_table = Parameter(table)

    def _check_ids(self, ids):
        if ids.size and (ids.min() < 0 or ids.max() >= self.vocab_size):
            raise IndexError(f"Embedding: ids must lie in [0, {self.vocab_size}), got values from "
                             f"{int(ids.min())} to {int(ids.max())}")

    def construct(self, ids):
        if not isinstance(ids, Tensor) or ids._data.dtype.kind not in "iu":
            got = ids.dtype.name if isinstance(ids, Tensor) else type(ids).__name__
            raise TypeError(f"Embedding: the input must be an integer Tensor of ids, got {got}")
        if self.use_one_hot:
            hot = ops.one_hot(ids, self.vocab_size, 1.0, 0.0)
            _capture.check(self._check_ids, ids)       # repeated by graph-mode replays
            return ops.matmul(hot, self.embedding_table)
        return ops.gather(self.embedding_table, ids, 0)

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, embedding_table={self.embedding_table}")
