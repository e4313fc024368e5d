"""Kernel kind "pyfunc": a Python function on NumPy arrays that returns its output(s).

::

    def square(x):
        return x * x

    sq = ops.Custom(square, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="pyfunc")

The function is called as ``func(*call_args, **attrs)``: the call's arguments
in call order (tensors as NumPy arrays, Python scalars as themselves) and the
reg-info attributes as keyword arguments. It returns one array, or a tuple of
arrays for several outputs. The dispatcher checks the result against the
inferred shape and dtype (a same-kind dtype is cast); without ``out_shape``
and ``out_dtype`` the outputs are whatever the function returns.

The arrays are the tensors' own buffers: a function must not write into its
inputs. A result that *is* one of the inputs is copied, so the output never
aliases an input tensor.
"""

import time
from types import SimpleNamespace

import numpy as np

from ..._core.kernel import KernelEntry
from ...tensor import Tensor
from . import _common

__all__ = ["make_kernel"]

_perf = time.perf_counter
_ndarray = np.ndarray


def make_kernel(func, *, op_name, target, rows, attr_specs, n_out, options):
    """Build the KernelEntry for a Python function on ``target`` (any target: it runs on the host).

    Example::

        entry = make_kernel(lambda x: x * x, op_name="square", target="CPU", rows=None,
                            attr_specs=[], n_out=1, options={})
    """
    if not callable(func):
        raise TypeError(f"op '{op_name}': a pyfunc kernel must be a Python callable, got {type(func).__name__}")
    fname = getattr(func, "__name__", type(func).__name__)
    entry = KernelEntry(target=target, fn=None, allocates=True, rows=rows, kind="pyfunc",
                        name=f"pyfunc:{fname}[{target}]")
    kernel = _PyKernel(entry, func, fname, op_name, list(attr_specs or ()), n_out)
    entry.bind = kernel.bind
    entry.fn = kernel.run_unbound
    return entry


class _PyKernel:
    """A pyfunc kernel: builds a runner per signature (a lean one for the plain case)."""

    def __init__(self, entry, func, fname, op_name, attr_specs, n_out):
        self.entry, self.func, self.fname, self.op_name = entry, func, fname, op_name
        self.attr_specs, self.n_out = attr_specs, n_out

    # ------------------------------------------------------------ errors
    def failed(self, exc):
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
            return self._fix_one(res, arrays, out_shapes, out_dtypes, 0, "")
        if not isinstance(res, (tuple, list)) or len(res) != n_out:
            got = f"a {type(res).__name__} of {len(res)}" if isinstance(res, (tuple, list)) \
                else type(res).__name__
            raise TypeError(f"op '{self.op_name}': pyfunc '{self.fname}' must return a tuple of {n_out} "
                            f"NumPy arrays (the op has {n_out} outputs), got {got}")
        return tuple(self._fix_one(r, arrays, out_shapes, out_dtypes, j, f" output {j}")
                     for j, r in enumerate(res))

    def _fix_one(self, r, arrays, out_shapes, out_dtypes, j, label):
        if type(r) is _ndarray or isinstance(r, _ndarray):
            for a in arrays:
                if r is a:
                    return r.copy()
            return r
        if isinstance(r, Tensor):
            return r._data.copy()
        if isinstance(r, np.generic) or (isinstance(r, (int, float, bool)) and out_shapes is not None
                                         and len(out_shapes[j]) == 0):
            return np.asarray(r)
        raise TypeError(f"op '{self.op_name}': pyfunc '{self.fname}'{label} must return "
                        f"{self._expected(out_shapes, out_dtypes, j)}, got "
                        f"{'None' if r is None else type(r).__name__ + ' ' + _short(r)}")

    # ------------------------------------------------------------ runners
    def run_unbound(self, attrs, arrays):
        """Run without a cached plan (slow path): no inferred shapes known."""
        sig = SimpleNamespace(out_shapes=None, out_dtypes=None, attrs=attrs)
        return self.bind(None, sig)(attrs, arrays)

    def bind(self, op, sig):
        """Return the runner for this signature (it depends only on whether attributes or scalars exist)."""
        func, stats, failed, fix = self.func, self.entry.stats, self.failed, self.fix_result
        perf, ndarray = _perf, _ndarray
        out_shapes, out_dtypes = sig.out_shapes, sig.out_dtypes
        attrs0 = sig.attrs or {}
        template = attrs0.get(_common.TEMPLATE_KEY)
        specs = self.attr_specs
        single = self.n_out == 1

        if template is None and not specs and single:
            def run(attrs, arrays):
                try:
                    res = func(*arrays)
                except Exception as exc:
                    failed(exc)
                if type(res) is not ndarray:
                    return fix(res, arrays, out_shapes, out_dtypes)
                for a in arrays:
                    if res is a:
                        return res.copy()
                return res
            return run

        interleave, names = _common.interleave, [s.name for s in specs]

        def run(attrs, arrays):
            args = interleave(attrs.get(_common.TEMPLATE_KEY), arrays)
            kwargs = dict(zip(names, _common.attr_values(attrs, specs))) if names else {}
            try:
                res = func(*args, **kwargs)
            except Exception as exc:
                failed(exc)
            if single and type(res) is ndarray:
                for a in arrays:
                    if res is a:
                        return res.copy()
                return res
            return fix(res, arrays, out_shapes, out_dtypes)
        return run


def _short(value, limit=60):
    text = repr(value)
    return f"({text if len(text) <= limit else text[:limit] + '...'})"
