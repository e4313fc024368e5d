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

from ..ops._dynamic import UNKNOWN_DIM, UNKNOWN_RANK, dynamic_view
from ..tensor import Tensor, _ms_dtype_name, is_placeholder

__all__ = ["declare", "check_inputs"]


class Signature:
    """What ``set_inputs`` declared: per input, ``(shape, dtype)`` for Tensors (None for other values)."""

    __slots__ = ("inputs", "specs", "dynamic")

    def __init__(self, inputs, specs):
        self.inputs = inputs
        self.specs = specs
        self.dynamic = any(s is not None and any(d < 0 for d in s[0]) for s in specs)


def _describe(shape, dtype):
    return f"Tensor(shape={list(shape)}, dtype={_ms_dtype_name(dtype)})"


def declare(cell_name, inputs):
    """Check ``set_inputs``' arguments; the Signature to keep on the Cell."""
    specs = []
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor):
            specs.append((tuple(t.shape), t.dtype))
        elif t is None or isinstance(t, (bool, int, float, str, tuple, list)):
            specs.append(None)              # a non-tensor input: not part of the checked signature
        else:
            raise TypeError(f"For '{cell_name}.set_inputs', input {i} must be a Tensor (a placeholder such as "
                            f"Tensor(shape=[None, 3], dtype=ms.float32), or a real one) or a Python value, "
                            f"got {type(t).__name__}")
    return Signature(tuple(inputs), specs)


def check_inputs(cell, args, sig):
    """``args`` checked against ``sig``; inputs declared with unknown dimensions come back as dynamic views."""
    name = type(cell).__name__
    if len(args) != len(sig.specs):
        raise TypeError(f"For '{name}', set_inputs declared {len(sig.specs)} input(s), but the Cell was called "
                        f"with {len(args)}")
    out = None
    for i, (a, spec) in enumerate(zip(args, sig.specs)):
        if spec is None:
            continue
        shape, dtype = spec
        if not isinstance(a, Tensor) or is_placeholder(a):
            what = "a placeholder without data" if isinstance(a, Tensor) else type(a).__name__
            raise TypeError(f"For '{name}', input {i} was declared by set_inputs as {_describe(shape, dtype)}, "
                            f"but the Cell was called with {what}")
        real = a.shape
        if a.dtype != dtype:
            raise TypeError(f"For '{name}', input {i} was declared by set_inputs as {_describe(shape, dtype)}, "
                            f"but got dtype {_ms_dtype_name(a.dtype)} (shape {list(real)})")
        if shape == (UNKNOWN_RANK,):
            seen = (UNKNOWN_RANK,)
        else:
            if len(real) != len(shape):
                raise ValueError(f"For '{name}', input {i} was declared by set_inputs as "
                                 f"{_describe(shape, dtype)} (rank {len(shape)}), but got shape {list(real)} "
                                 f"(rank {len(real)})")
            bad = [k for k, (d, r) in enumerate(zip(shape, real)) if d != UNKNOWN_DIM and d != r]
            if bad:
                raise ValueError(f"For '{name}', input {i} was declared by set_inputs as "
                                 f"{_describe(shape, dtype)}, but got shape {list(real)}: dimension {bad[0]} "
                                 f"must be {shape[bad[0]]}")
            if UNKNOWN_DIM not in shape:
                continue
            seen = shape
        if out is None:
            out = list(args)
        out[i] = dynamic_view(a, seen)
    return args if out is None else tuple(out)
