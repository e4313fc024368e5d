"""``nn.Jvp`` and ``nn.Vjp``: a function's Jacobian-vector and vector-Jacobian products as Cells.

Both are called with the function's inputs followed by one last argument,
the tangent (``Jvp``: a Tensor, or a tuple with one per input) or the
cotangent (``Vjp``: shaped like the function's output), and return
``(output, product)``.

Example::

    out, jv = nn.Jvp(net)(x, v)          # J v
    out, g = nn.Vjp(net)(x, v)           # v^T J (a tuple when net takes several inputs)
"""

from .cell import Cell

__all__ = ["Jvp", "Vjp"]


def _split(name, args):
    if len(args) < 2:
        raise TypeError(f"{name}: expected the function's inputs and then the vector, got {len(args)} "
                        f"argument(s)")
    return args[:-1], args[-1]


class Jvp(Cell):
    """``Jvp(fn)(*inputs, v)``: ``(fn(*inputs), J v)``."""

    def __init__(self, fn):
        super().__init__(auto_prefix=False)
        self.fn = fn

    def construct(self, *args):
        from ..autograd_transforms import jvp
        inputs, v = _split("Jvp", args)
        return jvp(self.fn, inputs[0] if len(inputs) == 1 else inputs, v)


class Vjp(Cell):
    """``Vjp(fn)(*inputs, v)``: ``(fn(*inputs), v^T J)``; the gradient alone for one input, a
    tuple for several."""

    def __init__(self, fn):
        super().__init__(auto_prefix=False)
        self.fn = fn

    def construct(self, *args):
        from ..autograd_transforms import vjp
        inputs, v = _split("Vjp", args)
        out, vjp_fn = vjp(self.fn, *inputs)
        grads = vjp_fn(v)
        return out, (grads[0] if len(inputs) == 1 else grads)
