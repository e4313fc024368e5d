"""Kernel kind "pyfunc": a Python function on NumPy arrays that returns its output(s).

::

    def square(x):
        return x * x

    sq = ops.Custom(square, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="pyfunc")

The function is called as ``func(*call_args, **attrs)``: the call's arguments
in call order (tensors as NumPy arrays, 0-d tensors and Python scalars as
Python scalars, as MindSpore passes them) and the reg-info attributes as
keyword arguments. It returns one array, or a tuple of arrays for several
outputs. The dispatcher checks the result against the inferred shape and
dtype (a same-kind dtype is cast); without ``out_shape`` and ``out_dtype`` the
outputs are whatever the function returns.

The arrays are the tensors' own buffers: a function must not write into its
inputs. A result that shares memory with an input (the input itself or a view
of it, such as ``x[::2]`` or ``x.reshape(...)``) is copied, so an output never
aliases an input tensor.
"""

import numpy as np

from ...tensor import Tensor
from . import _common
from ._arity import function_arity
from .reginfo import LIST2D_TYPES, as_python_list
from .kind import make_entry, register_kind

__all__ = ["PyfuncKind", "make_kernel"]

_ndarray = np.ndarray
_shares = np.may_share_memory


class PyfuncKind:
    """The "pyfunc" kind: runs on the host for any target; the runner returns the outputs."""

    name = "pyfunc"
    options = ()
    default_targets = ("CPU", "GPU")
    allocates = True

    def check(self, func, op_name, options):
        if not callable(func):
            raise TypeError(f"op '{op_name}': a pyfunc kernel must be a Python callable, got {type(func).__name__}")
        return func

    def arity(self, func, attr_specs, n_out, pending):
        """Call arguments: the function's positional parameters that are not attributes."""
        return function_arity(func, attr_specs)

    def bind(self, func, *, op_name, target, attr_specs, n_out, options, sig):
        return _Runner(func, op_name, list(attr_specs or ()), n_out).make(sig)


KIND = register_kind(PyfuncKind())


def make_kernel(func, *, op_name, target, rows, attr_specs, n_out, options):
    """The KernelEntry of a Python function on ``target`` (until the dispatcher takes kinds directly).

    Example::

        entry = make_kernel(lambda x: x * x, op_name="square", target="CPU", rows=None,
                            attr_specs=[], n_out=1, options={})
    """
    func = KIND.check(func, op_name, options)
    return make_entry(KIND, func, op_name=op_name, target=target, rows=rows, attr_specs=attr_specs,
                      n_out=n_out, options=options)


def _unshare(res, arrays):
    """``res``, or a copy of it when it shares memory with one of the input arrays."""
    if res.base is None:
        for a in arrays:
            if a is res or a.base is res:
                return res.copy()
        return res
    for a in arrays:
        if _shares(res, a):
            return res.copy()
    return res


class _Runner:
    """Builds the per-signature runner of one pyfunc (a lean one for the plain case)."""

    def __init__(self, func, op_name, attr_specs, n_out):
        self.func, self.op_name, self.attr_specs, self.n_out = func, op_name, attr_specs, n_out
        self.fname = getattr(func, "__name__", type(func).__name__)

    # ------------------------------------------------------------ errors
    def failed(self, exc):
        if isinstance(exc, _common.ResultError):
            raise exc
        raise RuntimeError(f"op '{self.op_name}': pyfunc '{self.fname}' raised "
                           f"{type(exc).__name__}: {exc}") from exc

    def _expected(self, out_shapes, out_dtypes, j):
        if out_shapes is None:
            return "a NumPy array"
        return f"a NumPy array of shape {list(out_shapes[j])} and dtype {np.dtype(out_dtypes[j]).name}"

    def fix_result(self, res, arrays, out_shapes, out_dtypes):
        """Turn an unusual result into array(s), or raise naming the op, what was expected and what came."""
        n_out = self.n_out
        if n_out == 1:
            if isinstance(res, (tuple, list)) and len(res) == 1:    # a 1-tuple result for a 1-tuple op
                res = res[0]
            return self._fix_one(res, arrays, out_shapes, out_dtypes, 0, "")
        if not isinstance(res, (tuple, list)) or len(res) != n_out:
            got = f"a {type(res).__name__} of {len(res)}" if isinstance(res, (tuple, list)) \
                else type(res).__name__
            raise TypeError(f"op '{self.op_name}': pyfunc '{self.fname}' must return a tuple of {n_out} "
                            f"NumPy arrays (the op has {n_out} outputs), got {got}")
        return tuple(self._fix_one(r, arrays, out_shapes, out_dtypes, j, f" output {j}")
                     for j, r in enumerate(res))

    def _fix_one(self, r, arrays, out_shapes, out_dtypes, j, label):
        if isinstance(r, _ndarray):
            return _unshare(r, arrays)
        if isinstance(r, Tensor):
            return r._data.copy()
        if isinstance(r, np.generic) or (isinstance(r, (int, float, bool)) and out_shapes is not None
                                         and len(out_shapes[j]) == 0):
            return np.asarray(r)
        raise TypeError(f"op '{self.op_name}': pyfunc '{self.fname}'{label} must return "
                        f"{self._expected(out_shapes, out_dtypes, j)}, got "
                        f"{'None' if r is None else type(r).__name__ + ' ' + _short(r)}")

    # ------------------------------------------------------------ runners
    def make(self, sig):
        """The runner for this signature (it depends on attributes, scalars and 0-d inputs)."""
        func, failed, fix, ndarray = self.func, self.failed, self.fix_result, _ndarray
        out_shapes, out_dtypes = sig.out_shapes, sig.out_dtypes
        attrs0 = sig.attrs or {}
        template = attrs0.get(_common.TEMPLATE_KEY)
        specs = self.attr_specs
        single = self.n_out == 1
        scalar_in = [i for i, s in enumerate(sig.in_shapes) if len(s) == 0]

        def settle(res, arrays):            # the output for what func returned (the compiled call path's too)
            if type(res) is not ndarray:
                return fix(res, arrays, out_shapes, out_dtypes)
            return _unshare(res, arrays)

        if template is None and not specs and single and len(sig.in_shapes) == 1 and not scalar_in:
            def run(attrs, arrays):
                x = arrays[0]
                try:
                    res = func(x)
                except Exception as exc:
                    failed(exc)
                if type(res) is not ndarray:
                    return fix(res, arrays, out_shapes, out_dtypes)
                if res.base is None:
                    return res.copy() if res is x or x.base is res else res
                return _unshare(res, arrays)
            run.fast_spec = ("returns", func, failed, settle)     # mscustom/_core/fastcall.py
            return run

        if template is None and not specs and single and not scalar_in:
            def run(attrs, arrays):
                try:
                    res = func(*arrays)
                except Exception as exc:
                    failed(exc)
                if type(res) is not ndarray:
                    return fix(res, arrays, out_shapes, out_dtypes)
                if res.base is None:
                    for a in arrays:
                        if res is a or a.base is res:
                            return res.copy()
                    return res
                return _unshare(res, arrays)
            run.fast_spec = ("returns", func, failed, settle)
            return run

        interleave, names = _common.interleave, [s.name for s in specs]
        # 2-D list attributes reach the function as Python lists of lists (1-D lists stay tuples)
        lists = [s.name for s in specs if s.value_type in LIST2D_TYPES]

        def run(attrs, arrays):
            given = arrays
            if scalar_in:                       # 0-d tensors reach the function as Python scalars
                given = list(arrays)
                for i in scalar_in:
                    given[i] = given[i].item()
            args = interleave(attrs.get(_common.TEMPLATE_KEY), given)
            kwargs = dict(zip(names, _common.attr_values(attrs, specs))) if names else {}
            for name in lists:
                kwargs[name] = as_python_list(kwargs[name])
            try:
                res = func(*args, **kwargs)
            except Exception as exc:
                failed(exc)
            if single and type(res) is ndarray:
                return _unshare(res, arrays)
            return fix(res, arrays, out_shapes, out_dtypes)
        return run


def _short(value, limit=60):
    text = repr(value)
    return f"({text if len(text) <= limit else text[:limit] + '...'})"
