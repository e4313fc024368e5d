"""Row updates and in-place variants with MindSpore's names: ``inplace_add``, ``inplace_sub``,
``inplace_update`` (functional: a new tensor with rows of ``x`` at ``indices`` changed by ``v``),
``clamp_``, ``tanh_``, ``erfinv_``, ``zero_`` (write into the tensor and return it), and
``fmin``, ``accumulate_n``, ``deepcopy``.

The in-place forms write through ``Tensor.__setitem__``: while a gradient is recorded the write is
an op of the graph (the old values pass no gradient, the new values carry theirs), a Parameter is
written off the graph -- the rule every mscustom in-place write follows. ``inplace_add``/``_sub``/
``_update`` have gradients (MindSpore 2.10 CPU returns zeros for them; mscustom gives the
derivatives: ``g`` for ``x`` outside the updated rows, the rows of ``g`` for ``v``).

Example::

    y = ops.inplace_add(x, v, (0, 2)); x.clamp_(0.0, 1.0); w.zero_()
"""

import numpy as np

from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import broadcast_shape, defop, result_dtype, tensor_arg
from .._builtin import functional as _functional
from ._rules import back_to, quiet, run


def _rows(indices, n, name):
    if isinstance(indices, Tensor):
        indices = indices.asnumpy().tolist()
    if isinstance(indices, (int, np.integer)) and not isinstance(indices, bool):
        indices = (int(indices),)
    if not isinstance(indices, (tuple, list)) or not all(isinstance(i, (int, np.integer)) for i in indices):
        raise TypeError(f"op '{name}': indices must be an int, a tuple of ints or an int Tensor, got {indices!r}")
    out = []
    for i in indices:
        if not 0 <= i < n:                      # MindSpore refuses negative indices too
            raise ValueError(f"op '{name}': index {i} is out of range [0, {n}) for {n} rows")
        out.append(int(i))
    return np.asarray(out, np.int64)


def _rowwise(name, mode):
    def kernel(a, i):
        x, v = i
        out = x.copy()
        rows = np.asarray(a["rows"])
        if mode == "update":
            out[rows] = v
        else:
            np.add.at(out, rows, v if mode == "add" else -v)
        return out

    def shape(a, s):
        x, v = s
        if len(v) != len(x) or list(v[1:]) != list(x[1:]) or v[0] != len(a["rows"]):
            raise ValueError(f"op '{name}': v must have shape [{len(a['rows'])}] + {list(x[1:])} (one row per "
                             f"index), got {list(v)}")
        return s, [list(x)]

    def dtype(a, d):
        if d[0] != d[1]:
            raise TypeError(f"op '{name}': x and v must have one dtype, got {d[0].name} and {d[1].name}")
        return d, [d[0]]

    def grad(ins, outs, g, a):
        rows = Tensor._wrap(np.asarray(a["rows"]))
        gv = F.getitem(g[0], rows)
        gx = g[0]
        if mode == "update":
            keep = np.ones(ins[0].shape[0], bool)
            keep[np.asarray(a["rows"])] = False
            shape = (-1,) + (1,) * (ins[0].ndim - 1)
            gx = F.mul(g[0], F.reshape(Tensor._wrap(keep.astype(ins[0]._data.dtype)), shape))
            last = {r: k for k, r in enumerate(a["rows"])}        # repeated rows: the last write wins
            used = np.zeros(len(a["rows"]), ins[1]._data.dtype)
            used[list(last.values())] = 1
            gv = F.mul(gv, F.reshape(Tensor._wrap(used), shape))
        elif mode == "sub":
            gv = F.neg(gv)
        return [back_to(gx, ins[0]), back_to(gv, ins[1])]

    op = defop(name, 2, kernel, shape, dtype, grad, doc=f"rows of x at indices: {mode} v", arg_names=("x", "v"))

    def function(x, v, indices):
        t, u = tensor_arg(x, name), tensor_arg(v, name)
        if t.ndim == 0:
            raise ValueError(f"op '{name}': x must have at least 1 dimension")
        if u.ndim == t.ndim - 1:                 # one row given without its axis
            u = F.expand_dims(u, 0)
        return run(op, t, u, attrs={"rows": tuple(_rows(indices, t.shape[0], name).tolist())})
    function.__name__ = function.__qualname__ = name
    return function


inplace_add = _rowwise("inplace_add", "add")
inplace_add.__doc__ = "A copy of ``x`` with ``v``'s rows added to its rows at ``indices`` (repeats add up)."
inplace_sub = _rowwise("inplace_sub", "sub")
inplace_sub.__doc__ = "A copy of ``x`` with ``v``'s rows subtracted from its rows at ``indices``."
inplace_update = _rowwise("inplace_update", "update")
inplace_update.__doc__ = "A copy of ``x`` with its rows at ``indices`` replaced by ``v``'s rows (repeats: the last)."


# ------------------------------------------------------------------ in-place methods
def _write(target, value, name):
    if not isinstance(target, Tensor):
        raise TypeError(f"op '{name}': input must be a Tensor, got {type(target).__name__}")
    target[...] = value
    return target


def clamp_(input, min=None, max=None):  # noqa: A002 - MindSpore's names
    """``input`` limited to ``[min, max]`` in place; returns ``input``."""
    from ..array.creation import clamp
    return _write(input, clamp(input, min, max), "clamp_")


def tanh_(input):  # noqa: A002
    """``tanh(input)`` written into ``input``; returns it."""
    return _write(input, F.tanh(input), "tanh_")


def erfinv_(input):  # noqa: A002
    """``erfinv(input)`` written into ``input``; returns it."""
    from ._gamma_functions import erfinv
    return _write(input, erfinv(input), "erfinv_")


def zero_(input):  # noqa: A002
    """``input`` filled with zeros in place; returns it."""
    return _write(input, F.zeros_like(input), "zero_")


# ------------------------------------------------------------------ fmin / accumulate_n / deepcopy
def _fmin_grad(ins, outs, g, a):
    from .elementwise_more import isnan, logical_or
    x, y = ins
    take_x = logical_or(F.less_equal(x, y), isnan(y))
    zero = F.zeros_like(outs[0])
    return [back_to(F.where(take_x, g[0], zero), x), back_to(F.where(take_x, zero, g[0]), y)]


def _fmin_type(attrs, dtypes):
    from ... import dtype as _dt
    for i, d in enumerate(dtypes):
        if d.name == "bool":
            raise TypeError(f"op 'fmin': input {i} must be a number type, got bool")
    return dtypes, [_dt.from_numpy(result_dtype([d.np_dtype for d in dtypes]))]


_FMIN = defop("fmin", 2, quiet(lambda a, i: np.fmin(*(v.astype(result_dtype([i[0].dtype, i[1].dtype]), copy=False)
                                                      for v in i))),
              broadcast_shape("fmin"), _fmin_type, _fmin_grad, doc="elementwise minimum ignoring NaN",
              arg_names=("input", "other"))
fmin = _functional(_FMIN, "Elementwise minimum where a NaN loses to a number (NaN only where both are NaN); "
                   "broadcasting, number tensors (not bool).", arg_names=("input", "other"))


def accumulate_n(x):
    """The elementwise sum of a list or tuple of tensors of one shape and dtype (``ops.addn``)."""
    from ..array.shape_more import addn
    if not isinstance(x, (list, tuple)) or not x:
        raise TypeError(f"op 'accumulate_n': x must be a non-empty list or tuple of Tensors, got {x!r}")
    return addn(list(x))


_COPY = defop("deepcopy", 1, lambda a, i: i[0].copy(), lambda a, s: (s, [list(s[0])]), lambda a, d: (d, [d[0]]),
              lambda ins, outs, g, a: [g[0] if ins[0]._data.dtype.kind == "f" else None],
              doc="a copy of x", arg_names=("input_x",))


def deepcopy(input_x):
    """A copy of the tensor (its own memory); the gradient passes through."""
    return run(_COPY, tensor_arg(input_x, "deepcopy"))


_METHODS = ["inplace_update", "clamp_", "tanh_", "erfinv_", "zero_", "fmin"]
__all__ = _METHODS + ["inplace_add", "inplace_sub", "accumulate_n", "deepcopy"]

for _name in _METHODS:
    register_function(_name, globals()[_name], method=True)
del _name
