"""The extension surface: define an operator once, in four small typed steps.

Every operator style (built-in ops, ``ops.Custom``, the MXNet / minpy / NNVM
front ends, hybrid kernels) ends up as one ``OpDef``: an attribute table the
one dispatcher runs and the one tape differentiates. This module is the
documented way to build one:

- ``def_op(name, inputs, outputs)``: the op and its input names;
- ``def_infer(op, shape=, dtype=)``: output shapes and dtypes from the inputs';
- ``def_kernel(op, fn, target=, dtypes=, formats=)``: an implementation for a
  device target, optionally restricted to reg-info rows of dtypes/formats;
- ``def_gradient(op, fn)``: the input gradients, built from ops (so they are
  differentiable too);
- ``def_function(op)``: the functional form users call (``ops.add`` is one).

The front ends build their OpDefs here too, and say who they are
(``def_op(..., frontend=...)``; ``frontend_of(op)`` reads it back): the MXNet
``CustomOpProp`` bridge ("mxnet"), minpy's ``@customop`` ("minpy") and NNVM's
``ops.register_op`` ("nnvm", through ``register_op`` below).

Example::

    import numpy as np
    import mscustom as ms
    from mscustom import extend

    cube = extend.def_op("cube", inputs=("x",))
    extend.def_infer(cube, shape=lambda attrs, shapes: [shapes[0]], dtype=lambda attrs, dtypes: [dtypes[0]])
    extend.def_kernel(cube, lambda attrs, ins: ins[0] ** 3)
    extend.def_gradient(cube, lambda ins, outs, grads, attrs: [grads[0] * 3 * ins[0] * ins[0]])
    cube_fn = extend.def_function(cube)
    ms.grad(lambda t: cube_fn(t).sum())(ms.Tensor([1.0, 2.0]))      # [3., 12.]
"""

import inspect
from typing import Callable, Iterable, Optional, Sequence, Union

from . import context as _context
from ._core.dispatch import call, convert_args
from ._core.functions import register_function
from ._core.kernel import KernelEntry
from ._core.opdef import OpDef
from ._core.registry import register_op as register_op_core
from .tensor import Tensor

__all__ = ["OpDef", "KernelEntry", "def_op", "def_infer", "def_kernel", "def_gradient", "def_function",
           "frontend_of", "register_op"]

ShapeRule = Callable[[dict, list], Sequence[Sequence[int]]]
DtypeRule = Callable[[dict, list], Sequence[object]]
Kernel = Callable[..., object]
Gradient = Callable[[list, list, list, dict], Sequence[Optional[Tensor]]]


def def_op(name: str, inputs: Union[None, int, Sequence[str]] = ("x",), outputs: int = 1, doc: str = "",
           register: bool = True, *, frontend: str = "extend") -> OpDef:
    """A new op called ``name`` with these inputs: their names, only their number, or ``None`` (any number).

    ``register=False`` keeps it out of the by-name registry (ops that belong to
    one object, such as each ``ops.Custom`` instance). ``frontend`` records
    which front end defined the op (read back by ``frontend_of``).
    """
    if inputs is None or isinstance(inputs, int):
        n_in, names = inputs, None
    else:
        names = list(inputs)
        n_in = len(names)
    if n_in is not None and (isinstance(n_in, bool) or n_in < 0):
        raise ValueError(f"def_op of op '{name}': inputs must be names, a non-negative int or None, got {inputs!r}")
    op = register_op_core(name, num_inputs=n_in, num_outputs=outputs) if register else \
        OpDef(name, num_inputs=n_in, num_outputs=outputs)
    op.describe(doc)
    if names:
        op.input_names = names
    op.frontend = frontend
    return op


def frontend_of(op: OpDef) -> Optional[str]:
    """Which front end defined ``op`` through ``def_op`` ("extend", "mxnet", "minpy", "nnvm", ...); None otherwise.

    Example::

        extend.frontend_of(mx.operator.opdefs("softmax")[0])      # "mxnet"
    """
    return getattr(op, "frontend", None)


def register_op(name: str, num_inputs: Optional[int] = None, num_outputs: int = 1) -> OpDef:
    """NNVM's registration (``ops.register_op``): a registered op whose attributes you then set yourself.

    Returns the OpDef for chained ``describe`` / ``set_num_inputs`` /
    ``add_argument`` / ``set_attr`` calls, as NNVM's ``NNVM_REGISTER_OP``
    does; registering a name twice replaces the earlier op.

    Example::

        op = ops.register_op("my_abs").set_num_inputs(1)
        op.set_attr("FCompute<cpu>", lambda attrs, ins, req, outs: np.abs(ins[0], out=outs[0]))
    """
    return def_op(name, inputs=num_inputs, outputs=num_outputs, frontend="nnvm")


def def_infer(op: OpDef, shape: Optional[ShapeRule] = None, dtype: Optional[DtypeRule] = None) -> OpDef:
    """Output inference: ``shape(attrs, in_shapes)`` and ``dtype(attrs, in_dtypes)`` return one entry per output.

    They run once per input signature (the dispatcher caches the result), so
    they are also where an op validates its inputs, with errors naming the op.
    """
    if shape is not None:
        op.set_attr("FInferShape", lambda attrs, shapes: (shapes, shape(attrs, shapes)))
    if dtype is not None:
        op.set_attr("FInferType", lambda attrs, dtypes: (dtypes, dtype(attrs, dtypes)))
    return op


def def_kernel(op: OpDef, fn: Kernel, target: Union[str, Iterable[str]] = "all",
               dtypes: Optional[Sequence[Sequence[Optional[str]]]] = None,
               formats: Optional[Sequence[Sequence[str]]] = None, *, allocates: bool = True,
               kind: str = "builtin", bind: Optional[Callable] = None, name: str = "",
               label: str = "", nnvm_key: bool = False,
               rows: Optional[Sequence[tuple]] = None) -> OpDef:
    """Add an implementation of ``op``.

    ``fn(attrs, inputs)`` returns the output array(s) when ``allocates``;
    otherwise ``fn(attrs, inputs, req, outputs)`` writes into preallocated
    outputs. ``target``: "CPU", "GPU", "Ascend", several, or "all".
    ``dtypes``: rows of dtype names (inputs then outputs; ``None`` = any) this
    kernel accepts, with ``formats`` the matching rows of format names; without
    rows it accepts any input. ``bind(op, signature) -> runner`` is called once
    per input signature (compile, load, init) when given. Kinds other than
    "builtin" are timed for the usage report. ``rows`` gives the rows already
    paired, one tuple of ``(dtype, format)`` per input and output (what a parsed
    reg info holds), instead of ``dtypes``/``formats``.

    ``nnvm_key=True`` also files the kernel under NNVM's attribute name for
    its target (``FCompute<cpu>``, or ``FComputeAlloc<cpu>`` when it
    allocates), replacing the kernel filed there before, as
    ``op.set_attr("FCompute<cpu>", fn)`` does (the MXNet and minpy front ends
    use it, so their ops read like NNVM ops).
    """
    targets = _context.TARGETS if target == "all" else (target,) if isinstance(target, str) else tuple(target)
    for t in targets:
        if t not in _context.TARGETS:
            raise ValueError(f"def_kernel of op '{op.name}': target must be one of {list(_context.TARGETS)} "
                             f"or 'all', got {t!r}")
    if bind is None and not callable(fn):
        raise TypeError(f"def_kernel of op '{op.name}': the kernel must be callable, got {type(fn).__name__}")
    if rows is not None and dtypes is not None:
        raise ValueError(f"def_kernel of op '{op.name}': give rows or dtypes (with formats), not both")
    rows = list(rows) if rows is not None else None
    if dtypes is not None:
        formats = formats or [["DefaultFormat"] * len(r) for r in dtypes]
        if len(formats) != len(dtypes) or any(len(f) != len(d) for f, d in zip(formats, dtypes)):
            raise ValueError(f"def_kernel of op '{op.name}': formats must have one row per dtype row, "
                             "each of the same length")
        rows = [tuple(zip(d, f)) for d, f in zip(dtypes, formats)]
    for t in targets:
        key = None
        if nnvm_key:
            key = ("FComputeAlloc" if allocates else "FCompute") + _context.target_suffix(t)
            op.kernels = [k for k in op.kernels if k.key != key]
            op.attrs[key] = fn
        entry_name = name or (f"{op.name}:{key}" if key else f"{op.name}[{t}]")
        op.add_kernel(KernelEntry(target=t, fn=fn, allocates=allocates, rows=rows, kind=kind, bind=bind,
                                  name=entry_name, label=label, key=key))
    return op


def def_gradient(op: OpDef, fn: Gradient) -> OpDef:
    """The gradient: ``fn(inputs, outputs, output_grads, attrs)`` returns one Tensor (or None) per input."""
    op.set_attr("FGradient", fn)
    return op


def def_function(op: OpDef, name: Optional[str] = None, doc: Optional[str] = None,
                 publish: bool = True, convert: Optional[Callable[[tuple], tuple]] = None,
                 arg_names: Optional[Sequence[str]] = None) -> Callable:
    """The functional form of ``op``: arrays and Python numbers become Tensors, then one dispatch.

    A Python number next to a tensor takes that tensor's dtype (MindSpore's
    rule), unless ``convert(args) -> tuple of Tensors`` says otherwise; it is
    only called when some argument is not already a Tensor. ``publish`` also
    makes the function what ``Tensor`` methods of that name call.
    ``arg_names`` names the parameters of a one- or two-input op's function
    (default ``x`` and ``y``), so keyword calls and ``help()`` read as
    documented (MindSpore's ``ops.erf(input)``, say).
    """
    fname = name or op.name
    n_in = op.num_inputs
    empty = {}

    def convert_default(args):
        return convert_args(op, args, fname)

    convert = convert or convert_default

    if n_in == 1:
        def function(x):
            if type(x) is not Tensor:
                (x,) = convert((x,))
            return call(op, (x,), empty)
    elif n_in == 2:
        def function(x, y):
            if type(x) is not Tensor or type(y) is not Tensor:
                x, y = convert((x, y))
            return call(op, (x, y), empty)
    else:
        def function(*args):
            if n_in is not None and len(args) != n_in:
                raise TypeError(f"op '{fname}' takes {n_in} input(s) ({', '.join(op.arg_names())}), "
                                f"got {len(args)}")
            return call(op, convert(args), empty)

    if arg_names is not None:
        _rename_parameters(function, tuple(arg_names), fname)
    function.__name__ = function.__qualname__ = fname
    function.__doc__ = doc if doc is not None else (op.description or f"The op '{op.name}'.")
    function.op = op
    if publish:
        register_function(fname, function)
    return function


def _rename_parameters(function, names, fname):
    """Give a generated one- or two-input function these parameter names.

    Renaming the code object's local names keeps the call as it is (no wrapper
    frame on the hot path) while keyword calls and signatures use the names.
    """
    code = function.__code__
    n = code.co_argcount
    taken = set(code.co_varnames[n:] + code.co_freevars + code.co_cellvars)     # the body's other names
    fits = (not code.co_flags & inspect.CO_VARARGS and len(names) == n and len(set(names)) == n
            and all(isinstance(a, str) and a.isidentifier() for a in names) and not set(names) & taken)
    if not fits:
        raise ValueError(f"def_function of op '{fname}': arg_names must be {n} distinct identifiers "
                         f"(one per input), got {list(names)!r}")
    function.__code__ = code.replace(co_varnames=names + code.co_varnames[n:])
