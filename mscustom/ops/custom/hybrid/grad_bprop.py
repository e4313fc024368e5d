"""A hybrid kernel's derived ``bprop`` for ``ops.Custom``: its gradient kernel per signature, run as a Custom op.

The gradient's DSL text comes from the recomputing generator (``grad``) or,
where it refuses, from the taping one (``grad_tape``); this module is the top
of the hybrid gradient modules and builds on both.

Example::

    bprop = make_bprop(my_kernel, "my_op")       # bprop(*inputs, out, dout) -> gradients
"""

import numpy as np

from ..custom import Custom
from .check import analyse_source
from .dsl import HybridFunction
from .grad import HybridGradError, _Grad
from .grad_tape import tape_gradient_source
from .scalars import is_scalar_value, kernel_params
from .shapes import tensor_meta

__all__ = ["gradient_source", "make_bprop"]

def gradient_source(info, meta, op_name=None, scalar_args=()):
    """DSL text of the gradient kernel of ``info`` for one signature (``meta`` from ``shapes.tensor_meta``).

    The recomputing generator (``_Grad``) first; what it refuses -- values carried and overwritten
    in ways it cannot recompute -- goes to the taping one (``grad_tape.TapeGrad``); the first
    refusal is raised when neither serves."""
    try:
        return _Grad(info, meta, op_name or info.name, scalar_args).source()
    except HybridGradError as refused:
        return tape_gradient_source(info, meta, op_name or info.name, scalar_args, refused)


def _grad_function(info, source):
    """A ``HybridFunction`` for generated gradient source (checked like any kernel)."""
    name = f"{info.name}_grad"
    ginfo = analyse_source(source, f"<gradient of {info.name} ({info.filename})>", 1, name)
    env = {"__builtins__": __builtins__}
    exec(compile(source, f"<gradient of {info.name}>", "exec"), env)   # noqa: S102 - our own generated text
    hf = HybridFunction(env[name])
    hf._info = ginfo
    hf.source = source
    return hf


def make_bprop(func, op_name):
    """``bprop(*inputs, out, dout)`` for ``ops.Custom``: the gradient kernel per signature, run as a Custom op."""
    info = func.info
    n_out = len(info.returns)
    ops_by_key = {}

    def bprop(*args, attrs=None):
        out, dout = args[-2], args[-1]
        inputs = kernel_params(info, args[:-2], attrs, op_name)
        outs = list(out) if n_out > 1 else [out]
        douts = list(dout) if n_out > 1 else [dout]
        scalars = {a for a, x in zip(info.args, inputs) if is_scalar_value(x)}
        shapes = [None if a in scalars else tuple(x.shape) for a, x in zip(info.args, inputs)]
        dtypes = [None if a in scalars else np.dtype(x._data.dtype) for a, x in zip(info.args, inputs)]
        key = tuple((type(x).__name__,) if a in scalars else (len(s), d.name)
                    for a, x, s, d in zip(info.args, inputs, shapes, dtypes))
        op = ops_by_key.get(key)
        if op is None:
            meta = tensor_meta(info, shapes, dtypes, scalars)
            hf = _grad_function(info, gradient_source(info, meta, op_name, scalars))
            op = Custom(hf, func_type="hybrid", name=f"{op_name}_grad")
            ops_by_key[key] = op
        res = op(*inputs, *outs, *douts)
        res = iter(list(res) if isinstance(res, (tuple, list)) else [res])
        # one gradient per tensor input (scalars get none, as the Custom bprop contract asks)
        return tuple(next(res) if d.kind == "f" else (next(res), None)[1]
                     for a, d in zip(info.args, dtypes) if a not in scalars)
    bprop.takes_attrs = True
    return bprop
