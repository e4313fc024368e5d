"""Kernel selection for ``ops.Custom`` as MindSpore 2.10 selects on CPU, casts included.

The dispatcher asks ``select`` (installed as the op's ``FSelectKernel``) for
the kernel and reg-info row of a call. The rules, each checked on MindSpore
2.10 (``tests/test_custom_select_casts.py`` pins them):

1. Rows whose inputs match the input dtypes exactly (formats as in
   ``match_row``, fewest layout conversions first). Among them the first row
   whose outputs also match the inferred output dtypes; when none does, the
   last of them.
2. Otherwise a catch-all kernel (no rows), as before.
3. Otherwise rows that match once inputs are cast the way MindSpore casts:
   float64 and float16 to float32, int64 and int16 to int32 (nothing else: not
   to a wider type, not between ints and floats, not from int8, unsigned or
   bool). The same choice as in 1 among them. Only for kernels MindSpore runs
   as CPU kernels (pyfunc, aot, and here jit); hybrid and akg kernels, which
   MindSpore compiles with AKG, get no casts there and none here.
4. Otherwise the TypeError that lists every row.

Output dtypes are always the ones ``out_dtype`` gives for the original input
dtypes (MindSpore returns a Float64 result for float64 inputs to an F32 row).
A row whose output dtype differs from that has the kernel compute in the row's
dtype and the result cast to ``out_dtype``'s. Every cast is announced by one
``UserWarning`` per op and signature naming the op, the cast and whether
precision is lost.

Example::

    op = ops.Custom(f, out_shape=..., out_dtype=..., reg_info=f32_only_info)
    op(ms.Tensor(np.ones(3)))       # warns once: float64 -> float32, result float64
"""

import contextlib
import dataclasses
import os
import sys
import threading
import warnings

import numpy as np

from ..._core.kernel import match_row, select_kernel
from ...log import logger as _log
from ._common import GROUPS_KEY

__all__ = ["CASTS", "select", "KernelCasts", "no_casts"]

# input dtype -> the dtype MindSpore's CPU selection casts it to when no row takes it as it is
CASTS = {"float64": "float32", "float16": "float32", "int64": "int32", "int16": "int32"}
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
# kinds MindSpore compiles with AKG: its selection casts nothing for them (checked on MindSpore 2.10)
NO_CASTS = frozenset(("hybrid", "akg"))


def _row_dtypes(row, start, n):
    return [row[start + j][0] if start + j < len(row) else None for j in range(n)]


def _outputs_match(row, n_in, out_dtypes):
    return all(d is None or d == np.dtype(o).name for d, o in zip(_row_dtypes(row, n_in, len(out_dtypes)),
                                                                   out_dtypes))


def _candidates(kernels, dtypes, in_formats, in_ndims):
    found = []
    for entry in kernels:
        if entry.rows is None:
            continue
        for row in entry.rows:
            if len(row) < len(dtypes):
                continue
            m = match_row(row, dtypes, in_formats, in_ndims)
            if m is not None:
                found.append((m[0], entry, row, m[1]))
    if not found:
        return []
    least = min(f[0] for f in found)
    return [f for f in found if f[0] == least]


def _choose(found, n_in, infer):
    """MindSpore's pick among matching rows: the first whose outputs match too, else the last."""
    out_shapes, out_dtypes = infer(found[0][1])
    if out_dtypes is not None:
        for f in found:
            if _outputs_match(f[2], n_in, out_dtypes):
                return f, out_shapes, out_dtypes
    last = found[-1]
    if last[1] is not found[0][1]:
        out_shapes, out_dtypes = infer(last[1])
    return last, out_shapes, out_dtypes


def _cast_dtypes(in_dtypes, row):
    """Each input's dtype after MindSpore's cast for ``row`` (None when a column cannot take it)."""
    out = []
    for d, (rd, _) in zip(in_dtypes, row):
        name = np.dtype(d).name
        if rd is None or rd == name:
            out.append(np.dtype(d))
        elif CASTS.get(name) == rd:
            out.append(np.dtype(rd))
        else:
            return None
    return out


def _expand(row, groups):
    """A row whose dynamic-input columns are repeated once per tensor of the call's lists."""
    out = []
    for k, n in enumerate(groups):
        if k < len(row):
            out.extend([row[k]] * (n if n is not None else 1))
    return tuple(out) + tuple(row[len(groups):])


def _expanded(entry, groups):
    """A copy of ``entry`` with its rows expanded for a call with dynamic inputs."""
    return dataclasses.replace(entry, rows=None if entry.rows is None else [_expand(r, groups) for r in entry.rows])


def select(op, target, in_dtypes, in_formats, in_ndims, infer, attrs=None):
    """``(entry, row, conversions, casts, out_shapes, out_dtypes)`` for one call signature.

    ``infer(entry) -> (out_shapes, out_dtypes)`` infers the outputs for the
    original input dtypes. ``casts`` is None or a ``KernelCasts``. A call with
    dynamic inputs (lists, ``attrs["__groups__"]``) matches each list's tensors
    against the list's one column.
    """
    groups = (attrs or {}).get(GROUPS_KEY)
    if groups is not None:
        own = {}
        for k in op.kernels:
            if k.target == target:
                view = _expanded(k, groups)
                own[id(view)] = (view, k)
        views = [v for v, _ in own.values()]
        found = select(_View(op, views), target, in_dtypes, in_formats, in_ndims,
                       lambda e: infer(own[id(e)][1]))
        return (own[id(found[0])][1],) + tuple(found[1:])
    n_in = len(in_dtypes)
    on_target = [k for k in op.kernels if k.target == target]
    found = _candidates(on_target, in_dtypes, in_formats, in_ndims)
    if not found:
        catch_all = next((k for k in on_target if k.rows is None), None)
        if catch_all is not None:
            out_shapes, out_dtypes = infer(catch_all)
            return catch_all, None, [], None, out_shapes, out_dtypes
        cast = []
        for entry in on_target:
            if entry.kind in NO_CASTS:
                continue
            for row in entry.rows or ():
                if len(row) < n_in:
                    continue
                dtypes = _cast_dtypes(in_dtypes, row)
                if dtypes is None:
                    continue
                m = match_row(row, dtypes, in_formats, in_ndims)
                if m is not None:
                    cast.append((m[0], entry, row, m[1]))
        if cast:
            least = min(f[0] for f in cast)
            found = [f for f in cast if f[0] == least]
    if not found:
        select_kernel(op, target, in_dtypes, in_formats, in_ndims)      # raises the error listing the rows
        raise AssertionError("select_kernel found a row that select did not")     # pragma: no cover
    (_, entry, row, conversions), out_shapes, out_dtypes = _choose(found, n_in, infer)
    kernel_in = _cast_dtypes(in_dtypes, row)
    kernel_out = None
    if out_dtypes is not None:
        kernel_out = [np.dtype(rd) if rd is not None else np.dtype(o)
                      for rd, o in zip(_row_dtypes(row, n_in, len(out_dtypes)), out_dtypes)]
    widen16 = entry.kind == "jit" and target == "CPU"
    if widen16:         # Numba has no float16 on the CPU: a float16 row's columns are float32 inside
        kernel_in = [_F32 if d == _F16 else d for d in kernel_in]
        kernel_out = None if kernel_out is None else [_F32 if d == _F16 else d for d in kernel_out]
    casts = KernelCasts.make(op.name, in_dtypes, kernel_in, out_dtypes, kernel_out)
    if casts is not None:
        casts.widen16 = widen16
        if getattr(_STRICT, "on", False):       # before the plan exists: nothing is cached or announced
            raise TypeError(f"op '{op.name}': casts are refused inside no_casts(): {casts.message()}")
    return entry, row, conversions, casts, out_shapes, out_dtypes


class _View:
    """An op seen with expanded kernels (its name for messages)."""

    def __init__(self, op, kernels):
        self.name, self.kernels = op.name, kernels


_STRICT = threading.local()


@contextlib.contextmanager
def no_casts():
    """Within this block (this thread), a call that needs a cast raises TypeError instead of casting.

    ``mscustom.testing.check_grad`` uses it to learn whether a function really computes in float64.

    Example::

        with no_casts():
            op(ms.Tensor(np.ones(3)))        # TypeError if op has only float32 rows
    """
    before = getattr(_STRICT, "on", False)
    _STRICT.on = True
    try:
        yield
    finally:
        _STRICT.on = before


_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _caller_level():
    """The ``stacklevel`` that points a warning at the first frame outside mscustom (the user's call)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE + os.sep):
        frame, level = frame.f_back, level + 1
    return level


def _loses(src, dst):
    """Whether converting ``src`` values to ``dst`` can lose precision or range."""
    return not np.can_cast(src, dst, "safe")


class KernelCasts:
    """The casts of one call signature: inputs to the row's dtypes, outputs from them."""

    def __init__(self, op_name, in_from, in_to, out_from, out_to):
        self.op_name = op_name
        self.widen16 = False
        self.inputs = [(i, np.dtype(t)) for i, (f, t) in enumerate(zip(in_from, in_to)) if np.dtype(f) != t]
        self.outputs = [(j, np.dtype(f), np.dtype(t)) for j, (f, t) in enumerate(zip(out_from, out_to))
                        if np.dtype(f) != np.dtype(t)] if out_from is not None else []
        self.kernel_in = [np.dtype(t) for t in in_to]
        self.kernel_out = [np.dtype(f) for f in out_from] if out_from is not None else None
        self.in_from = [np.dtype(f) for f in in_from]
        self.out_to = [np.dtype(t) for t in out_to] if out_to is not None else None

    @classmethod
    def make(cls, op_name, in_dtypes, kernel_in, out_dtypes, kernel_out):
        casts = cls(op_name, in_dtypes, kernel_in, kernel_out, out_dtypes)
        return casts if casts.inputs or casts.outputs else None

    def message(self):
        parts = []
        for i, t in self.inputs:
            f = self.in_from[i]
            lost = "precision lost" if _loses(f, t) else "no precision lost"
            parts.append(f"input {i} {f.name} -> {t.name} ({lost})")
        for j, f, t in self.outputs:
            lost = "precision lost" if _loses(f, t) or _loses(self.out_to[j], f) else "no precision lost"
            parts.append(f"output {j} computed in {f.name} (the selected row's dtype), returned as "
                         f"{t.name} ({lost})")
        return (f"op '{self.op_name}': no reg-info row takes these dtypes as they are; as MindSpore does, "
                f"the kernel runs on its row with casts: {'; '.join(parts)}")

    def warn(self):
        """Warn, unless every cast is a float16 computed in float32 (a jit kernel's float16 row on the CPU)."""
        widened = self.widen16 and all(self.in_from[i] == _F16 and t == _F32 for i, t in self.inputs) and \
            all(f == _F32 and t == _F16 for _, f, t in self.outputs)
        _log.info("%s", self.message())          # widened float16 too, which warns nobody
        if not widened:
            warnings.warn(self.message(), UserWarning, stacklevel=_caller_level())

    def wrap(self, runner, allocates):
        """``runner`` with the inputs cast before it and the outputs cast after it (refused inside
        ``no_casts()``)."""
        ins = self.inputs
        outs = self.outputs
        strict, op_name, message = _STRICT, self.op_name, self.message

        def cast_inputs(arrays):
            if getattr(strict, "on", False):
                raise TypeError(f"op '{op_name}': casts are refused inside no_casts(): {message()}")
            if not ins:
                return arrays
            arrays = list(arrays)
            for i, t in ins:
                arrays[i] = arrays[i].astype(t)
            return arrays

        if allocates:
            def run(attrs, arrays):
                res = runner(attrs, cast_inputs(arrays))
                if not outs:
                    return res
                single = not isinstance(res, (tuple, list))
                res = [res] if single else list(res)
                for j, f, t in outs:
                    if j < len(res):
                        res[j] = np.asarray(res[j]).astype(f).astype(t)
                return res[0] if single else res
            return run

        def run(attrs, arrays, req, outputs):
            if not outs:
                return runner(attrs, cast_inputs(arrays), req, outputs)
            kernel_outs = list(outputs)
            for j, f, _ in outs:
                kernel_outs[j] = np.empty(outputs[j].shape, f)
            res = runner(attrs, cast_inputs(arrays), req, kernel_outs)
            for j, _, _ in outs:
                np.copyto(outputs[j], kernel_outs[j], casting="unsafe")
            return res
        return run
