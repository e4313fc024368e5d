"""Call lists: an into-kernel spelled as direct calls, so a graph replay skips the kernel's Python frame.

A kernel that writes into given buffers (``FComputeInto``, or a fused kernel
of ``FFuseInto`` / ``FFuseConsumer``) may carry an ``as_calls`` attribute::

    fn.as_calls(attrs, inputs, outputs) -> [(callable, args[, kwargs]), ...] or None

called once, when a record is built, with the recorded arrays (their shapes
and dtypes are those of every replay of the record). It returns the calls
that do exactly what ``fn(attrs, inputs, outputs)`` does for arrays of these
shapes and dtypes, or None to keep the call of ``fn``. In ``args`` and the
values of ``kwargs``, ``IN(k)`` and ``OUT(k)`` stand for the k-th input and
output, ``IN_T(k)`` for the transpose (``.T``) of a 2-D input; anything else
is passed as is. The replay (``_core/replay.py``) then writes one line per
call, e.g. ``np.maximum(v4, Z, out=v5)`` for a ReLU. (Give ufuncs their
output as ``out=``: NumPy deprecates a positional output for some ufuncs,
and takes the keyword faster.)

Decisions that depend on memory layout (contiguity) must stay in ``fn``:
a record's inputs keep their shapes and dtypes from call to call, but
not their strides.
"""

__all__ = ["IN", "OUT", "IN_T", "Ref"]


class Ref:
    """A reference to one input or output of the kernel call (see the module docstring)."""

    __slots__ = ("side", "index", "transposed")

    def __init__(self, side, index, transposed=False):
        self.side = side                # "in" or "out"
        self.index = index
        self.transposed = transposed

    def __repr__(self):
        name = {"in": "IN_T" if self.transposed else "IN", "out": "OUT"}[self.side]
        return f"{name}({self.index})"


def IN(k):  # noqa: N802 (reads like a placeholder in call lists)
    """The k-th input of the kernel call."""
    return Ref("in", k)


def OUT(k):  # noqa: N802
    """The k-th output of the kernel call."""
    return Ref("out", k)


def IN_T(k):  # noqa: N802
    """The transpose of the k-th input, a 2-D array (a view: ``.T``)."""
    return Ref("in", k, transposed=True)
