"""A Cell's declared input signature (``Cell.set_inputs``), checked when the Cell is called.

MindSpore compiles a network once for the signature given to ``set_inputs``:
placeholders such as ``Tensor(shape=[None, 3], dtype=ms.float32)`` (an
unknown dimension) or ``Tensor(shape=None, dtype=...)`` (an unknown rank), or
real Tensors (their shape and dtype). Later inputs must match it: the same
number of inputs, rank, dtype and every fixed dimension. ``check_inputs``
raises a ValueError/TypeError naming the Cell, the input, what was declared
and what was given.

Inside the network the inputs declared with unknown dimensions are seen with
them by ``ops.Custom`` shape inference (a ``DynamicTensor`` view of the same
data), as MindSpore's graph is compiled with the declared dynamic dimensions.
"""

import numpy as np

from ..ops._dynamic import UNKNOWN_DIM, UNKNOWN_RANK, view_unchecked
from ..tensor import Tensor, _ms_dtype_name, is_placeholder

__all__ = ["declare", "check_inputs"]


class Signature:
    """What ``set_inputs`` declared, prepared for a cheap check per call.

    ``specs``: per input, None (not checked) or ``(shape, dtype, np_dtype, fixed, seen)``: the declared
    shape (-1 unknown, ``(-2,)`` unknown rank), its dtype, the dims that must match as ``(index,
    size)`` pairs, and the shape Custom inference is shown (None when nothing is unknown).
    """

    __slots__ = ("inputs", "specs")

    def __init__(self, inputs, specs):
        self.inputs = inputs
        self.specs = specs


def _describe(shape, dtype):
    return f"Tensor(shape={list(shape)}, dtype={_ms_dtype_name(dtype)})"


def declare(cell_name, inputs):
    """Check ``set_inputs``' arguments; the Signature to keep on the Cell."""
    specs = []
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor):
            shape, dtype = tuple(t.shape), t.dtype
            fixed = tuple((k, d) for k, d in enumerate(shape) if d >= 0)
            unknown = shape == (UNKNOWN_RANK,) or UNKNOWN_DIM in shape
            specs.append((shape, dtype, dtype.np_dtype, fixed, shape if unknown else None))
        elif t is None or isinstance(t, (bool, int, float, str, tuple, list)):
            specs.append(None)              # a non-tensor input: not part of the checked signature
        else:
            raise TypeError(f"For '{cell_name}.set_inputs', input {i} must be a Tensor (a placeholder such as "
                            f"Tensor(shape=[None, 3], dtype=ms.float32), or a real one) or a Python value, "
                            f"got {type(t).__name__}")
    return Signature(tuple(inputs), specs)


def check_inputs(cell, args, sig):
    """``args`` checked against ``sig``; inputs declared with unknown dimensions come back as dynamic views."""
    specs = sig.specs
    if len(args) != len(specs):
        raise TypeError(f"For '{type(cell).__name__}', set_inputs declared {len(specs)} input(s), but the Cell "
                        f"was called with {len(args)}")
    out = None
    for i, a in enumerate(args):
        spec = specs[i]
        if spec is None:
            continue
        shape, dtype, np_dtype, fixed, seen = spec
        data = getattr(a, "_data", None)
        if type(data) is not np.ndarray:
            _fail_kind(cell, i, a, shape, dtype)
        real = data.shape
        if data.dtype != np_dtype:
            raise TypeError(f"For '{type(cell).__name__}', input {i} was declared by set_inputs as "
                            f"{_describe(shape, dtype)}, but got dtype {_ms_dtype_name(a.dtype)} "
                            f"(shape {list(real)})")
        if shape != (UNKNOWN_RANK,):
            if len(real) != len(shape):
                raise ValueError(f"For '{type(cell).__name__}', input {i} was declared by set_inputs as "
                                 f"{_describe(shape, dtype)} (rank {len(shape)}), but got shape {list(real)} "
                                 f"(rank {len(real)})")
            for k, d in fixed:
                if real[k] != d:
                    raise ValueError(f"For '{type(cell).__name__}', input {i} was declared by set_inputs as "
                                     f"{_describe(shape, dtype)}, but got shape {list(real)}: dimension {k} "
                                     f"must be {d}")
        if seen is not None:
            if out is None:
                out = list(args)
            out[i] = view_unchecked(a, seen)
    return args if out is None else tuple(out)


def _fail_kind(cell, i, a, shape, dtype):
    what = "a placeholder without data" if is_placeholder(a) else type(a).__name__
    raise TypeError(f"For '{type(cell).__name__}', input {i} was declared by set_inputs as "
                    f"{_describe(shape, dtype)}, but the Cell was called with {what}")
