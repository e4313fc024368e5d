"""Function transforms of MindSpore's ``ops``: ``vjp``, ``jvp``, ``linearize``, ``jacrev``,
``jacfwd``, ``derivative``, ``jet`` and ``vmap``.

All are built on the reverse-mode tape of ``mscustom.autograd``:

- ``vjp`` runs the function once for its outputs; the returned function
  differentiates it (with the given cotangent as sensitivity) on each call.
- ``jvp`` is forward mode computed as the transpose of a vjp: ``J^T u`` is
  linear in the cotangent ``u``, so its gradient with respect to ``u``
  (taken at ``u = 0``, seeded by the tangent ``v``) is exactly ``J v``.
- ``jacrev`` builds the Jacobian row by row (one vjp per output element),
  ``jacfwd`` column by column (one jvp per input element).
- ``derivative`` / ``jet``: Taylor-mode derivatives, as nested jvps of
  ``t -> fn(x + s1 t + s2 t^2/2! + ...)`` with respect to the scalar ``t``.
- ``vmap`` calls the function once per index of the mapped axis and stacks
  the results (the slicing and the stacking are ops: it differentiates).

All results are differentiable again (a Jacobian of a Jacobian is a Hessian).
"""

import math

import numpy as np

from . import dtype as _dt
from ._core.functions import functions as _fn   # the published functional ops (the ops layer imports this module)
from ._core import autodiff as _ad
from ._core.tape import STATE as _STATE
from .autograd import _detach, _run, _check_weights, _fn_name, grad as _grad
from .tensor import Tensor

__all__ = ["vjp", "jvp", "linearize", "jacrev", "jacfwd", "derivative", "jet", "vmap"]


# ---------------------------------------------------------------- helpers

def _check_tensor(op, x, what):
    if not isinstance(x, Tensor):
        raise TypeError(f"op '{op}': {what} must be a Tensor, got {type(x).__name__}")
    return x


def _check_float(op, x, what):
    """An input to differentiate: a floating-point Tensor (integer inputs have no gradient here)."""
    _check_tensor(op, x, what)
    if not _dt.is_floating(x.dtype):
        raise TypeError(f"op '{op}': {what} must be a floating-point Tensor to be differentiated, got {x.dtype}")
    return x


def _split_aux(op, fn, out, has_aux):
    """``(main, aux)`` of the function's result; one aux value is given alone, several as a tuple."""
    if not has_aux:
        return out, None
    if not isinstance(out, tuple) or len(out) < 2:
        raise TypeError(f"op '{op}' of '{_fn_name(fn)}' with has_aux=True: the function must return a "
                        f"tuple (output, aux, ...), got {type(out).__name__}")
    return out[0], (out[1] if len(out) == 2 else out[1:])


def _as_list(main):
    return list(main) if isinstance(main, (tuple, list)) else [main]


def _zeros(t):
    return Tensor._wrap(np.zeros(t._data.shape, t._data.dtype))


def _inputs_tuple(op, inputs, name="inputs"):
    if isinstance(inputs, Tensor):
        return (inputs,), True
    if isinstance(inputs, (tuple, list)) and inputs:
        for i, x in enumerate(inputs):
            _check_tensor(op, x, f"{name}[{i}]")
        return tuple(inputs), False
    raise TypeError(f"op '{op}': {name} must be a Tensor or a non-empty tuple of Tensors, got "
                    f"{type(inputs).__name__}")


def _record(fn, args, positions):
    """Run ``fn`` once on the tape with fresh leaves at ``positions``: ``(output, leaf nodes)``, for
    several backward passes over the one recording (``jacrev``'s rows)."""
    args = list(args)
    targets = []
    for p in positions:
        x = args[p]
        leaf = Tensor._wrap(x._data, x._format)
        leaf._node, leaf._oidx = _ad.slot_of(x)
        targets.append(_ad.make_leaf(leaf))
        args[p] = leaf
    _STATE.depth += 1
    try:
        out = fn(*args)
    finally:
        _STATE.depth -= 1
    return out, targets


def _vjp_call(fn, args, positions, weights, has_aux, cotangent):
    """``(position grads, weight grads)`` of ``fn(*args)`` for the sensitivity ``cotangent``."""
    _, pg, wg = _run(fn, args, positions, weights, has_aux, sens=cotangent)
    return tuple(pg), wg


# ---------------------------------------------------------------- vjp / jvp / linearize

def vjp(fn, *inputs, weights=None, has_aux=False):
    """``(outputs, vjp_fn)`` (``(outputs, vjp_fn, aux)`` with ``has_aux``): ``vjp_fn(v)`` is the
    tuple of the inputs' gradients for the cotangent ``v`` (a Tensor, or a tuple of them when
    ``fn`` returns a tuple), or ``(input_grads, weight_grads)`` with ``weights``."""
    if not inputs:
        raise ValueError(f"op 'vjp' of '{_fn_name(fn)}': no input given")
    for i, x in enumerate(inputs):
        _check_float("vjp", x, f"inputs[{i}]")
    wts = _check_weights(fn, weights)
    main, aux = _split_aux("vjp", fn, fn(*inputs), has_aux)
    positions = tuple(range(len(inputs)))

    def vjp_fn(*v):
        cot = v[0] if len(v) == 1 else v
        pg, wg = _vjp_call(fn, inputs, positions, wts, has_aux, cot)
        return (pg, wg) if weights is not None else pg

    vjp_fn.__name__ = f"vjp_{_fn_name(fn)}"
    return (main, vjp_fn, aux) if has_aux else (main, vjp_fn)


def _jvp_values(fn, inputs, tangents, has_aux, outputs):
    """``J v`` for every output of ``fn`` at ``inputs`` (the transpose of a vjp)."""
    positions = tuple(range(len(inputs)))
    outs = _as_list(outputs)
    for i, o in enumerate(outs):
        _check_tensor("jvp", o, f"the function's output {i}")
    single = not isinstance(outputs, (tuple, list))

    def contracted(*us):
        pg, _ = _vjp_call(fn, inputs, positions, (), has_aux, us[0] if single else us)
        total = None
        for g, v in zip(pg, tangents):
            term = _fn.sum(_fn.mul(g, _fn.cast(v, g.dtype)))
            total = term if total is None else _fn.add(total, term)
        return total

    u0 = tuple(_zeros(o) for o in outs)
    # the plain gradient function (not its graph-mode wrapper: a new closure per call would compile each time)
    jv = _grad(contracted, grad_position=tuple(range(len(outs)))).__wrapped__(*u0)
    return jv[0] if single else tuple(jv)


def _check_tangents(op, inputs, v):
    tangents, _ = _inputs_tuple(op, v, "v")
    if len(tangents) != len(inputs):
        raise ValueError(f"v has invalid length: should be {len(inputs)}, but got {len(tangents)}")
    for i, (x, t) in enumerate(zip(inputs, tangents)):
        if t.shape != x.shape:
            raise ValueError(f"op '{op}': v[{i}] has shape {list(t.shape)}, the input has shape "
                             f"{list(x.shape)}")
    return tangents


def jvp(fn, inputs, v, has_aux=False):
    """``(outputs, J v)`` (``(outputs, J v, aux)`` with ``has_aux``): the Jacobian-vector product
    of ``fn`` at ``inputs`` (a Tensor or a tuple) for the tangent ``v`` (the same structure)."""
    args, _ = _inputs_tuple("jvp", inputs)
    for i, x in enumerate(args):
        _check_float("jvp", x, f"inputs[{i}]")
    tangents = _check_tangents("jvp", args, v)
    main, aux = _split_aux("jvp", fn, fn(*args), has_aux)
    jv = _jvp_values(fn, args, tangents, has_aux, main)
    return (main, jv, aux) if has_aux else (main, jv)


def linearize(fn, inputs):
    """``(outputs, jvp_fn)``: ``jvp_fn(v)`` is ``J v`` of ``fn`` at ``inputs``."""
    args, _ = _inputs_tuple("linearize", inputs)
    out = fn(*args)

    def jvp_fn(v):
        return _jvp_values(fn, args, _check_tangents("linearize", args, v), False, out)

    jvp_fn.__name__ = f"linearize_{_fn_name(fn)}"
    return out, jvp_fn


# ---------------------------------------------------------------- Jacobians

def _positions(op, fn, grad_position, n):
    single = isinstance(grad_position, int) and not isinstance(grad_position, bool)
    pos = (grad_position,) if single else grad_position
    if not isinstance(pos, tuple) or not pos or not all(isinstance(p, int) and not isinstance(p, bool)
                                                        for p in pos):
        raise TypeError(f"op '{op}' of '{_fn_name(fn)}': grad_position must be an int or a non-empty tuple "
                        f"of ints, got {grad_position!r}")
    for p in pos:
        if not -n <= p < n:
            raise ValueError(f"op '{op}' of '{_fn_name(fn)}': grad_position {p} is out of range for "
                             f"{n} input(s)")
    return tuple(p % n for p in pos), single


def _shape_jacobian(blocks, multi_out, single_pos, aux, has_aux):
    """``blocks[o][p]`` arranged as MindSpore returns them: outputs outside, positions inside."""
    per_out = [b[0] if single_pos else tuple(b) for b in blocks]
    jac = tuple(per_out) if multi_out else per_out[0]
    return (jac, aux) if has_aux else jac


def jacrev(fn, grad_position=0, has_aux=False):
    """A function giving the Jacobian of ``fn`` (reverse mode: one vjp per output element).

    The block for output ``o`` and input ``p`` has shape ``o.shape + p.shape``; with several
    outputs the result is a tuple over outputs, with a tuple ``grad_position`` each is a tuple
    over the positions."""

    def jac_fn(*args):
        positions, single_pos = _positions("jacrev", fn, grad_position, len(args))
        for p in positions:
            _check_float("jacrev", args[p], f"input {p}")
        out, targets = _record(fn, args, positions)          # one forward, one backward per row
        main, aux = _split_aux("jacrev", fn, out, has_aux)
        outs = _as_list(main)
        multi = isinstance(main, (tuple, list))
        blocks = []
        for oi, o in enumerate(outs):
            _check_tensor("jacrev", o, f"the function's output {oi}")
        for oi, o in enumerate(outs):
            n = int(np.prod(o.shape, dtype=np.int64))
            rows = [[] for _ in positions]
            for k in range(n):
                onehot = np.zeros(n, o._data.dtype)
                onehot[k] = 1
                cot = [(Tensor._wrap(onehot.reshape(o.shape)) if j == oi else _zeros(t))
                       for j, t in enumerate(outs)]
                grads = _ad.backward(list(zip(outs, cot)), targets, False)
                for r, g, p in zip(rows, grads, positions):
                    r.append(g if g is not None else _zeros(args[p]))
            block = []
            for p, r in zip(positions, rows):
                shape = tuple(o.shape) + tuple(args[p].shape)
                block.append(_fn.reshape(_fn.stack(r, 0), shape) if r else
                             Tensor._wrap(np.zeros(shape, args[p]._data.dtype)))
            blocks.append(block)
        result = _shape_jacobian(blocks, multi, single_pos, aux, has_aux)
        if not _STATE.depth:                    # nothing outside reads this recording: free it
            _detach(out)
            _detach(result)
        return result

    jac_fn.__name__ = f"jacrev_{_fn_name(fn)}"
    return jac_fn


def jacfwd(fn, grad_position=0, has_aux=False):
    """A function giving the Jacobian of ``fn`` (forward mode: one jvp per input element);
    arranged as ``jacrev``'s."""

    def jac_fn(*args):
        positions, single_pos = _positions("jacfwd", fn, grad_position, len(args))
        for p in positions:
            _check_float("jacfwd", args[p], f"input {p}")
        main, aux = _split_aux("jacfwd", fn, fn(*args), has_aux)
        outs = _as_list(main)
        multi = isinstance(main, (tuple, list))
        cols = [[[] for _ in positions] for _ in outs]
        for pi, p in enumerate(positions):
            x = args[p]
            n = int(np.prod(x.shape, dtype=np.int64))
            for k in range(n):
                onehot = np.zeros(n, x._data.dtype)
                onehot[k] = 1
                tangents = [Tensor._wrap(onehot.reshape(x.shape)) if j == p else _zeros(a)
                            for j, a in enumerate(args)]
                jv = _as_list(_jvp_values(fn, args, tangents, has_aux, main))
                for oi, c in enumerate(jv):
                    cols[oi][pi].append(c)
        blocks = []
        for o, per_pos in zip(outs, cols):
            block = []
            for p, c in zip(positions, per_pos):
                shape = tuple(o.shape) + tuple(args[p].shape)
                block.append(_fn.reshape(_fn.stack(c, -1), shape) if c else
                             Tensor._wrap(np.zeros(shape, o._data.dtype)))
            blocks.append(block)
        return _shape_jacobian(blocks, multi, single_pos, aux, has_aux)

    jac_fn.__name__ = f"jacfwd_{_fn_name(fn)}"
    return jac_fn


# ---------------------------------------------------------------- Taylor mode

def _taylor_derivatives(op, fn, primals, series_list, order):
    """``fn(primals)`` and the derivatives 1..order of ``t -> fn(x(t))`` at 0, where
    ``x_i(t) = primal_i + sum_k series_i[k] t^(k+1) / (k+1)!``."""
    dtype = primals[0].dtype

    def path(t):
        xs = []
        for x, s in zip(primals, series_list):
            acc, power = x, None
            for k in range(s.shape[0]):
                power = t if power is None else _fn.mul(power, t)
                coef = _fn.cast(_fn.mul(s[k], 1.0 / math.factorial(k + 1)), x.dtype)
                acc = _fn.add(acc, _fn.mul(coef, _fn.cast(power, x.dtype)))
            xs.append(acc)
        out = fn(*xs)
        _check_tensor(op, out, "the function's output")
        return out

    derivs = []
    level = path
    for _ in range(order):
        level = (lambda g: (lambda t: _jvp_values(g, (t,), (Tensor(np.array(1, dtype.np_dtype)),),
                                                  False, g(t))))(level)
        derivs.append(level)
    t0 = Tensor(np.array(0, dtype.np_dtype))
    return fn(*primals), [d(t0) for d in derivs]


def _series(op, primals, series, single):
    if single:
        series = (series,)
    elif not isinstance(series, (tuple, list)) or len(series) != len(primals):
        raise ValueError(f"op '{op}': series must hold one Tensor per primal ({len(primals)})")
    out = []
    for i, (x, s) in enumerate(zip(primals, series)):
        _check_tensor(op, s, f"series[{i}]")
        if tuple(s.shape[1:]) != tuple(x.shape):
            raise ValueError(f"op '{op}': series[{i}] must have shape [order] + {list(x.shape)}, got "
                             f"{list(s.shape)}")
        out.append(s)
    if len({s.shape[0] for s in out}) != 1:
        raise ValueError(f"op '{op}': every series must have the same order (first dimension)")
    return out


def jet(fn, primals, series):
    """``(fn(primals), derivatives)``: ``derivatives[k]`` is the (k+1)-th derivative at ``t = 0`` of
    ``fn(x(t))`` for the path whose derivatives at 0 are ``primals`` and ``series[0], series[1], ...``
    (each series has shape ``[order] + primal.shape``)."""
    args, single = _inputs_tuple("jet", primals, "primals")
    ser = _series("jet", args, series, single)
    out, derivs = _taylor_derivatives("jet", fn, args, ser, int(ser[0].shape[0]))
    return out, _fn.stack(derivs, 0)


def derivative(fn, primals, order):
    """``(fn(primals), d)``: ``d`` is the ``order``-th derivative of ``fn`` along the all-ones
    direction (every primal moving at unit speed)."""
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order < 1:
        raise ValueError(f"op 'derivative': order must be a positive int, got {order!r}")
    args, _ = _inputs_tuple("derivative", primals, "primals")
    ser = []
    for x in args:
        s = np.zeros((int(order),) + tuple(x.shape), x._data.dtype)
        s[0] = 1
        ser.append(Tensor._wrap(s))
    out, derivs = _taylor_derivatives("derivative", fn, args, ser, int(order))
    return out, derivs[-1]


# ---------------------------------------------------------------- vmap

def _axis_tree(arg, axis, where):
    """``(leaf, axis)`` pairs of one argument under its ``in_axes`` entry (nested for tuples)."""
    if isinstance(axis, (tuple, list)):
        if not isinstance(arg, (tuple, list)) or len(arg) != len(axis):
            raise ValueError(f"op 'vmap': in_axes{where} is a tuple of {len(axis)} but the argument is "
                             f"{type(arg).__name__}")
        pairs = []
        for i, (a, ax) in enumerate(zip(arg, axis)):
            pairs += _axis_tree(a, ax, f"{where}[{i}]")
        return pairs
    if isinstance(arg, (tuple, list)):
        return [p for i, a in enumerate(arg) for p in _axis_tree(a, axis, f"{where}[{i}]")]
    if axis is not None:
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"op 'vmap': in_axes{where} must be an int or None, got {axis!r}")
        if not isinstance(arg, Tensor):
            raise ValueError(f"op 'vmap': the argument at in_axes{where} is mapped (axis {axis}) but is "
                             f"{type(arg).__name__}, not a Tensor")
        if not -arg.ndim <= axis < arg.ndim:
            raise ValueError(f"op 'vmap': in_axes{where} = {axis} is out of range for a Tensor of rank "
                             f"{arg.ndim}")
    return [(arg, axis)]


def _slice_tree(arg, axis, i):
    if isinstance(arg, (tuple, list)):
        axes = axis if isinstance(axis, (tuple, list)) else [axis] * len(arg)
        return type(arg)(_slice_tree(a, ax, i) for a, ax in zip(arg, axes))
    if axis is None:
        return arg
    return _fn.moveaxis(arg, axis, 0)[i] if axis % arg.ndim else arg[i]


def _stack_tree(results, axes, where="out_axes"):
    first = results[0]
    if isinstance(first, (tuple, list)):
        ax = axes if isinstance(axes, (tuple, list)) else [axes] * len(first)
        if len(ax) != len(first):
            raise ValueError(f"op 'vmap': {where} has {len(ax)} entries for {len(first)} outputs")
        return type(first)(_stack_tree([r[j] for r in results], ax[j], f"{where}[{j}]")
                           for j in range(len(first)))
    vals = [r if isinstance(r, Tensor) else Tensor(r) for r in results]
    if axes is None:
        if any(not np.array_equal(v._data, vals[0]._data) for v in vals[1:]):
            raise RuntimeError(f"op 'vmap': {where} is None but the output depends on the mapped axis")
        return vals[0]
    if isinstance(axes, bool) or not isinstance(axes, int):
        raise TypeError(f"op 'vmap': {where} must be an int or None, got {axes!r}")
    rank = vals[0].ndim + 1
    if not -rank <= axes < rank:
        raise ValueError(f"op 'vmap': {where} = {axes} is out of range for an output of rank {rank}")
    return _fn.stack(vals, axes % rank)


def vmap(fn, in_axes=0, out_axes=0):
    """``fn`` mapped over an axis of its arguments: ``in_axes`` (an int, None, or a tuple with one
    entry per argument, nested for tuple arguments) names each argument's mapped axis (None: not
    mapped); ``out_axes`` (an int or a tuple per output) where the mapped axis goes in the results."""

    def mapped(*args):
        if in_axes is None:
            raise RuntimeError("The 'in_axes' of 'vmap' cannot be a single None while 'fn' is not a "
                               "'CellList'.")
        if isinstance(in_axes, (tuple, list)):
            if len(in_axes) != len(args):
                raise ValueError(f"op 'vmap': in_axes has {len(in_axes)} entries for {len(args)} arguments")
            axes = list(in_axes)
        else:
            axes = [in_axes] * len(args)
        sizes = []
        for i, (a, ax) in enumerate(zip(args, axes)):
            for leaf, lax in _axis_tree(a, ax, f"[{i}]"):
                if lax is not None:
                    sizes.append(leaf.shape[lax])
        if not sizes:
            raise RuntimeError("op 'vmap': no argument is mapped (every in_axes entry is None)")
        for s in sizes[1:]:
            if s != sizes[0]:
                raise RuntimeError(f"The 'axis_size' of each argument in the scope of 'vmap' should be equal, "
                                   f"but got {sizes[0]} and {s}.")
        results = [fn(*[_slice_tree(a, ax, i) for a, ax in zip(args, axes)]) for i in range(sizes[0])]
        if not results:
            raise ValueError("op 'vmap': the mapped axis has size 0")
        return _stack_tree(results, out_axes)

    mapped.__name__ = f"vmap_{_fn_name(fn)}"
    return mapped

