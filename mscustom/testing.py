"""Numerical gradient checking: compare ``ms.grad`` with central finite differences.

``check_grad(fn, *inputs)`` differentiates ``fn`` with the tape (``ms.grad``)
and with central differences of ``sum(fn(*inputs))``, and raises an
AssertionError naming every input whose gradients disagree. The numeric side
runs in float64 when ``fn`` accepts float64 inputs, so its error is far below
the tolerance; otherwise it runs in the inputs' own dtype with a larger step.

Example::

    from mscustom.testing import check_grad
    check_grad(lambda x, y: ops.sigmoid(x) * y, ms.Tensor([0.5, -1.0]), ms.Tensor([2.0, 3.0]))
"""

import numpy as np

from ._core import autodiff as _ad
from .autograd import grad as _grad
from .tensor import Tensor

__all__ = ["check_grad", "numeric_grad"]

_EPS_FLOAT64 = 1e-6
_EPS_LOW_PRECISION = 1e-3
_SHOWN = 5              # differing elements listed per input


def _fn_name(fn):
    return getattr(fn, "__name__", None) or type(fn).__name__


def _as_inputs(inputs):
    return [Tensor._wrap(np.array(x)) if isinstance(x, np.ndarray) else x for x in inputs]


def _float_positions(fn, inputs, grad_position):
    if grad_position is None:
        positions = tuple(i for i, x in enumerate(inputs)
                          if isinstance(x, Tensor) and x._data.dtype.kind == "f")
        if not positions:
            raise ValueError(f"check_grad of '{_fn_name(fn)}': no floating-point Tensor input to "
                             "differentiate; pass float inputs or grad_position")
        return positions
    positions = (grad_position,) if isinstance(grad_position, int) else tuple(grad_position)
    for p in positions:
        if not -len(inputs) <= p < len(inputs) or not isinstance(inputs[p], Tensor):
            raise ValueError(f"check_grad of '{_fn_name(fn)}': grad_position {p} does not name a "
                             f"Tensor among the {len(inputs)} input(s)")
    return tuple(p % len(inputs) for p in positions)


def _total(fn, out):
    """``sum`` of every floating-point element of ``fn``'s output(s), in float64."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    total = 0.0
    for i, t in enumerate(outs):
        if not isinstance(t, Tensor):
            raise TypeError(f"check_grad of '{_fn_name(fn)}': output {i} must be a Tensor, "
                            f"got {type(t).__name__}")
        if t._data.dtype.kind == "f":
            total += float(np.sum(t._data, dtype=np.float64))
    return total


def numeric_grad(fn, *inputs, eps=None, grad_position=None):
    """Central finite differences of ``sum(fn(*inputs))`` for each differentiated input.

    ``eps`` defaults to 1e-6 for float64 inputs and 1e-3 otherwise.
    ``grad_position`` (an int or tuple) selects the inputs; by default every
    floating-point Tensor input. Returns a list of float64 arrays, one per
    selected input, in the inputs' shapes.

    Example::

        numeric_grad(lambda x: x * x, ms.Tensor(np.array([3.0])))    # [array([6.])]
    """
    inputs = _as_inputs(inputs)
    positions = _float_positions(fn, inputs, grad_position)
    result = []
    with _ad.paused():
        for p in positions:
            base = inputs[p]._data
            step = eps if eps is not None else (_EPS_FLOAT64 if base.dtype == np.float64
                                                else _EPS_LOW_PRECISION)
            work = base.copy()
            args = list(inputs)
            args[p] = Tensor._wrap(work, inputs[p]._format)
            g = np.zeros(base.shape, np.float64)
            flat, gflat = work.reshape(-1), g.reshape(-1)
            for k in range(flat.size):
                orig = flat[k]
                flat[k] = orig + step
                up = _total(fn, fn(*args))
                flat[k] = orig - step
                down = _total(fn, fn(*args))
                flat[k] = orig
                # the step actually taken in the input's dtype (float32 rounds it)
                hi, lo = orig + base.dtype.type(step), orig - base.dtype.type(step)
                taken = float(np.float64(hi) - np.float64(lo))
                gflat[k] = (up - down) / taken
            result.append(g)
    return result


def _to_float64(x):
    if isinstance(x, Tensor) and x._data.dtype.kind == "f":
        return Tensor._wrap(x._data.astype(np.float64), x._format)
    return x


def check_grad(fn, *inputs, rtol=1e-3, atol=1e-4, eps=None, grad_position=None):
    """Assert that ``ms.grad(fn)`` matches central finite differences.

    ``fn`` may return a non-scalar Tensor (or a tuple): like ``ms.grad``, the
    check uses an all-ones sensitivity, i.e. differentiates the sum of the
    outputs. Every floating-point Tensor input is differentiated unless
    ``grad_position`` (an int or a tuple of ints) says otherwise. The numeric
    side runs in float64 when ``fn`` accepts float64 inputs; if it does not
    (for example a custom op with float32 kernels only), in the inputs' own
    dtype with ``eps`` 1e-3. Elements pass when
    ``|analytic - numeric| <= atol + rtol * |numeric|``.

    Returns the analytic gradients (a tuple of NumPy arrays). Raises
    AssertionError listing, per input, the largest difference and the
    analytic and numeric values where they differ.

    Example::

        check_grad(ops.tanh, ms.Tensor([0.1, -0.7, 2.0]))
        check_grad(lambda a, b: ops.matmul(a, b), a, b, grad_position=1)
    """
    inputs = _as_inputs(inputs)
    positions = _float_positions(fn, inputs, grad_position)
    analytic = _grad(fn, grad_position=positions)(*inputs)
    analytic = [np.asarray(g._data) for g in analytic]

    note = "numeric side in float64"
    from .ops.custom.select import no_casts      # a custom op that would cast float64 to float32 rejects it
    try:
        with no_casts():
            numeric = numeric_grad(fn, *[_to_float64(x) for x in inputs], eps=eps, grad_position=positions)
    except (TypeError, ValueError, RuntimeError) as exc:
        note = f"numeric side in the inputs' dtypes (fn rejected float64: {exc})"
        numeric = numeric_grad(fn, *inputs, eps=eps, grad_position=positions)

    lines = []
    for p, a, n in zip(positions, analytic, numeric):
        x = inputs[p]
        label = f"input {p} (shape {list(x.shape)}, {x.dtype.name})"
        if a.shape != n.shape:
            lines.append(f"  {label}: analytic gradient has shape {list(a.shape)}, expected {list(n.shape)}")
            continue
        a64 = a.astype(np.float64)
        diff = np.abs(a64 - n)
        bad = ~(diff <= atol + rtol * np.abs(n))        # NaN counts as bad
        worst = float(np.nanmax(diff)) if diff.size and not np.all(np.isnan(diff)) else float("nan")
        if not bad.any():
            continue
        lines.append(f"  {label}: {int(bad.sum())} of {a.size} element(s) differ, max abs diff {worst:.6g}")
        shown = [i for i in np.ndindex(bad.shape) if bad[i]][:_SHOWN]
        for where in shown:
            lines.append(f"    at {where}: analytic {a64[where]:.8g}, numeric {n[where]:.8g}")
    if lines:
        raise AssertionError(f"check_grad of '{_fn_name(fn)}': analytic and numeric gradients differ "
                             f"(rtol={rtol}, atol={atol}; {note})\n" + "\n".join(lines))
    return tuple(analytic)
