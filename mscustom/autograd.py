"""``grad``, ``value_and_grad`` and ``GradOperation`` with MindSpore's semantics.

All three run the function once while recording the tape
(``_core.autodiff``) and walk it backwards. A function whose output is not a
scalar is differentiated with an all-ones sensitivity; with several outputs
(and no ``has_aux``) every output gets one.
"""

import numpy as np

from . import context as _context
from ._core import autodiff as _ad
from ._core.backward import GRAD_READY as _GRAD_READY, WALKER as _WALKER, backward as _backward
from ._core.dispatch import PROFILER as _PROFILER, TIMING as _TIMING
from ._core.tape import STATE as _STATE
from ._core.tape import new_leaf as _new_leaf
from ._core.tape import LEAF_ATTRS, Node as _Node
from .formats import DEFAULT_FORMAT as _DEFAULT_FORMAT
from .graph import GraphFunction
from .tensor import Parameter, Tensor

_settings = _context._settings
_empty = np.empty
_new_tensor = object.__new__
_GRAPH_MODE = _context.GRAPH_MODE


def _fn_name(fn):
    return getattr(fn, "__name__", None) or type(fn).__name__


def _check_positions(fn, grad_position, n_args):
    if grad_position is None:
        return ()
    single = isinstance(grad_position, int) and not isinstance(grad_position, bool)
    positions = (grad_position,) if single else grad_position
    if not isinstance(positions, tuple) or not positions or \
            not all(isinstance(p, int) and not isinstance(p, bool) for p in positions):
        raise TypeError(f"grad of '{_fn_name(fn)}': grad_position must be an int, a non-empty tuple "
                        f"of ints or None, got {grad_position!r}")
    for p in positions:
        if not -n_args <= p < n_args:
            raise ValueError(f"grad of '{_fn_name(fn)}': grad_position {p} is out of range for a "
                             f"call with {n_args} positional argument(s)")
    return tuple(p % n_args for p in positions)


def _positions_cache(fn, grad_position):
    """``positions_for(n_args)``: the checked positions, worked out once per argument count."""
    known = {}

    def positions_for(n_args):
        positions = known.get(n_args)
        if positions is None:
            positions = known[n_args] = _check_positions(fn, grad_position, n_args)
        return positions
    return positions_for


def _check_weights(fn, weights):
    if weights is None:
        return ()
    if isinstance(weights, Parameter):
        weights = (weights,)
    if not isinstance(weights, (list, tuple)):
        raise TypeError(f"grad of '{_fn_name(fn)}': weights must be a Parameter or a list/tuple of "
                        f"Parameters, got {type(weights).__name__}")
    for i, w in enumerate(weights):
        if not isinstance(w, Parameter):
            raise TypeError(f"grad of '{_fn_name(fn)}': weights[{i}] must be a Parameter, "
                            f"got {type(w).__name__}")
    return tuple(weights)


def _outputs_to_differentiate(fn, out, has_aux):
    """Split the function's result into the tensors to differentiate and the aux outputs."""
    if has_aux:
        if not isinstance(out, tuple) or len(out) < 1:
            raise TypeError(f"grad of '{_fn_name(fn)}' with has_aux=True: the function must return a "
                            f"tuple (output, aux...), got {type(out).__name__}")
        main, aux = [out[0]], out[1:]
    else:
        main, aux = (list(out) if isinstance(out, tuple) else [out]), ()
    for i, t in enumerate(main):
        if not isinstance(t, Tensor):
            where = "" if len(main) == 1 else f" (output {i})"
            raise TypeError(f"grad of '{_fn_name(fn)}': the function must return a Tensor{where} to be "
                            f"differentiated, got {type(t).__name__}")
    return main, aux


def _ones_like(t):
    ones = _empty(t._data.shape, t._data.dtype)
    ones.fill(1)
    return Tensor._wrap(ones)


def _sens_for(fn, main, sens):
    if sens is None:
        return [_ones_like(t) for t in main]
    sens = list(sens) if isinstance(sens, (tuple, list)) else [sens]
    if len(sens) != len(main):
        raise ValueError(f"grad of '{_fn_name(fn)}': got {len(sens)} sensitivity value(s) for "
                         f"{len(main)} output(s)")
    out = []
    for t, s in zip(main, sens):
        s = s if isinstance(s, Tensor) else Tensor(s, dtype=t.dtype)
        if s.shape != t.shape:
            raise ValueError(f"grad of '{_fn_name(fn)}': sensitivity shape {list(s.shape)} does not "
                             f"match output shape {list(t.shape)}")
        out.append(s)
    return out


def _detach(value):
    if isinstance(value, Tensor):
        value._node = None
    elif isinstance(value, (tuple, list)):
        for v in value:
            _detach(v)
    return value


def _run(fn, args, positions, weights, has_aux, sens=None):
    """Run ``fn`` on this thread's tape; return (output, position grads, weight grads).

    Arguments to differentiate are replaced by fresh leaf tensors; weights (often
    Parameters shared with other threads) become leaves of this thread only.
    """
    if len(positions) == 1 and not weights:
        return _run_one(fn, args, positions[0], has_aux, sens)
    args = list(args)
    leaf_tensors, targets = [], []
    for p in positions:
        x = args[p]
        if not isinstance(x, Tensor):
            raise TypeError(f"grad of '{_fn_name(fn)}': argument {p} must be a Tensor to be "
                            f"differentiated, got {type(x).__name__}")
        leaf = Tensor._wrap(x._data, x._format)
        leaf._node, leaf._oidx = _ad.slot_of(x)
        targets.append(_ad.make_leaf(leaf))
        leaf_tensors.append(leaf)
        args[p] = leaf
    if weights:
        with _ad.thread_leaf(weights) as weight_nodes:
            out, grads = _record_and_backward(fn, args, has_aux, sens, targets + weight_nodes)
        tensors = leaf_tensors + list(weights)
    else:
        out, grads = _record_and_backward(fn, args, has_aux, sens, targets)
        tensors = leaf_tensors
    for i, g in enumerate(grads):
        if g is None:                   # no path from the output: a zero gradient
            t = tensors[i]
            grads[i] = Tensor._wrap(np.zeros(t._data.shape, t._data.dtype))
    if not _STATE.depth:
        _detach(out)
        for g in grads:
            g._node = None
    n = len(leaf_tensors)
    return out, grads[:n], tuple(grads[n:])


def _run_one(fn, args, p, has_aux, sens):
    """``_run`` for one argument to differentiate and no weights: ``(output, [gradient], ())``."""
    out, g = _grad_one(fn, args, p, has_aux, sens)
    return out, [g], ()


def _grad_one(fn, args, p, has_aux=False, sens=None):
    """``(output, gradient)`` of ``fn(*args)`` for argument ``p`` alone (``ms.grad(fn)``'s default).

    ``_run`` without its lists for this case: the argument's leaf comes from
    ``tape.new_leaf`` in one step.
    """
    x = args[p]
    if not isinstance(x, Tensor):
        raise TypeError(f"grad of '{_fn_name(fn)}': argument {p} must be a Tensor to be "
                        f"differentiated, got {type(x).__name__}")
    leaf, target = _new_leaf(x)
    args = (leaf,) if len(args) == 1 else args[:p] + (leaf,) + args[p + 1:]
    out, (g,) = _record_and_backward(fn, args, has_aux, sens, [target])
    release = not _STATE.depth          # no outer tape reads this graph: backward freed it
    if g is None:                       # no path from the output: a zero gradient
        g = Tensor._wrap(np.zeros(x._data.shape, x._data.dtype))
    if release:
        if type(out) is Tensor:
            out._node = None
        else:
            _detach(out)
        g._node = None
    return out, g


def _record_and_backward(fn, args, has_aux, sens, targets):
    state = _STATE
    state.depth += 1                    # recording (tape.recording(), without a generator per call)
    try:
        out = fn(*args)
    finally:
        state.depth -= 1
    return out, _backward_of(fn, out, has_aux, sens, targets)


def _backward_of(fn, out, has_aux, sens, targets):
    """The targets' gradients of ``fn``'s result ``out``, just recorded on this thread's tape."""
    state = _STATE
    if type(out) is Tensor and sens is None and not has_aux:     # one output, all-ones sensitivity
        d = out._data
        ones = _empty(d.shape, d.dtype)
        ones.fill(1)
        seed = _new_tensor(Tensor)      # Tensor._wrap(ones), inline
        seed._data = ones
        seed._format = _DEFAULT_FORMAT
        seed._node = None
        seed._oidx = 0
        # release: no outer tape reads this graph, so backward frees it by reference counting
        return _backward([(out, seed)], targets, not state.depth)
    main, _ = _outputs_to_differentiate(fn, out, has_aux)
    roots = list(zip(main, _sens_for(fn, main, sens)))
    return _ad.backward(roots, targets, not state.depth)


def _shape_result(grad_position, pos_grads, weight_grads, has_weights):
    if grad_position is None:
        return weight_grads
    pos = pos_grads[0] if isinstance(grad_position, int) else tuple(pos_grads)
    return (pos, weight_grads) if has_weights else pos


def grad(fn, grad_position=0, weights=None, has_aux=False):
    """Return a function computing the gradient of ``fn`` (MindSpore's ``ops.grad``).

    ``grad_position``: an int, a tuple of ints, or None (then ``weights`` is
    required). ``weights``: Parameters to differentiate too; the result is then
    ``(input_grads, weight_grads)``, or just ``weight_grads`` when
    ``grad_position`` is None. ``has_aux``: ``fn`` returns ``(out, aux...)``; only
    ``out`` is differentiated and the result is ``(grads, aux)``.

    Example::

        dx = ms.grad(lambda x: (x * x).sum())(ms.Tensor([1.0, 2.0]))   # [2, 4]
    """
    if grad_position is None and weights is None:
        raise ValueError(f"grad of '{_fn_name(fn)}': grad_position and weights cannot both be None")
    wts = _check_weights(fn, weights)

    positions_for = _positions_cache(fn, grad_position)

    if type(grad_position) is int and weights is None and not has_aux:
        def grad_fn(*args):             # the common form, ms.grad(fn): one input's gradient
            return _grad_one(fn, args, positions_for(len(args))[0])[1]

        in_graph = _graph_aware(grad_fn)
        state = _STATE

        def outermost_grad_fn(*args):
            """``grad_fn`` when nothing else records (no tape, no capture) and the argument is on no
            tape: ``_grad_one`` and ``_record_and_backward`` inline, their frames saved per call."""
            if state.capture is not None or state.depth or _settings["mode"] == _GRAPH_MODE:
                return in_graph(*args)
            p = grad_position if 0 <= grad_position < len(args) else positions_for(len(args))[0]
            x = args[p]
            if type(x) is not Tensor or x._node is not None or state.leaves:
                return in_graph(*args)
            leaf = _new_tensor(Tensor)          # tape.new_leaf(x) for a tensor on no tape, inline
            d = leaf._data = x._data
            fmt = leaf._format = x._format
            leaf._oidx = 0
            target = _new_tensor(_Node)         # tape._plain_leaf(leaf), inline
            target.op = None
            target.attrs = LEAF_ATTRS
            target.inputs = ()
            target.outputs = (leaf,)
            target.out_meta = [(d.shape, d.dtype, fmt)]
            leaf._node = target
            state.depth = 1
            try:
                out = fn(*((leaf,) if len(args) == 1 else args[:p] + (leaf,) + args[p + 1:]))
            finally:
                state.depth = 0
            if type(out) is Tensor:
                d = out._data
                ones = _empty(d.shape, d.dtype)
                ones.fill(1)
                seed = _new_tensor(Tensor)
                seed._data = ones
                seed._format = _DEFAULT_FORMAT
                seed._node = None
                seed._oidx = 0
                walker = _WALKER[0]
                grads = NotImplemented
                if walker is not None and _GRAD_READY[0] is None:      # backward's compiled walk, direct
                    grads = walker([(out, seed)], [target], True, state.leaves,
                                   _PROFILER[0] is None and not _TIMING[0])
                if grads is NotImplemented:
                    grads = _backward([(out, seed)], [target], True)
                (g,) = grads
                out._node = None
            else:
                (g,) = _backward_of(fn, out, False, None, [target])
                _detach(out)
            if g is None:                       # no path from the output: a zero gradient
                return Tensor._wrap(np.zeros(x._data.shape, x._data.dtype))
            g._node = None
            return g

        outermost_grad_fn.__name__ = outermost_grad_fn.__qualname__ = f"grad_{_fn_name(fn)}"
        outermost_grad_fn.__wrapped__ = grad_fn
        return outermost_grad_fn
    else:
        def grad_fn(*args):
            positions = positions_for(len(args))
            out, pg, wg = _run(fn, args, positions, wts, has_aux)
            result = _shape_result(grad_position, pg, wg, weights is not None)
            if has_aux:
                return result, tuple(out[1:])
            return result

    grad_fn.__name__ = f"grad_{_fn_name(fn)}"
    return _graph_aware(grad_fn)


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False):
    """Like ``grad``, but return ``(value, grads)``; ``value`` is ``fn``'s whole output.

    Example::

        step = ms.value_and_grad(forward, grad_position=None, weights=opt.parameters)
        loss, grads = step(x, y)
    """
    if grad_position is None and weights is None:
        raise ValueError(f"value_and_grad of '{_fn_name(fn)}': grad_position and weights cannot both be None")
    wts = _check_weights(fn, weights)

    positions_for = _positions_cache(fn, grad_position)

    def value_and_grad_fn(*args):
        positions = positions_for(len(args))
        out, pg, wg = _run(fn, args, positions, wts, has_aux)
        return out, _shape_result(grad_position, pg, wg, weights is not None)

    value_and_grad_fn.__name__ = f"value_and_grad_{_fn_name(fn)}"
    return _graph_aware(value_and_grad_fn)


class GradOperation:
    """MindSpore's ``ops.GradOperation(get_all, get_by_list, sens_param)``.

    ``GradOperation()(net)(x, y)`` is the gradient for the first input;
    ``get_all=True`` gives all inputs' gradients; ``get_by_list=True`` is called
    as ``GradOperation(get_by_list=True)(net, weights)`` and gives the weights'
    gradients; both together give ``(input_grads, weight_grads)``.
    ``sens_param=True``: the last call argument is the sensitivity.
    """

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        self.get_all = bool(get_all)
        self.get_by_list = bool(get_by_list)
        self.sens_param = bool(sens_param)

    def __call__(self, fn, weights=None):
        if self.get_by_list:
            if weights is None:
                raise ValueError(f"GradOperation(get_by_list=True) of '{_fn_name(fn)}' needs weights")
            wts = _check_weights(fn, weights)
        else:
            wts = ()

        def grad_fn(*args):
            sens = None
            if self.sens_param:
                if not args:
                    raise ValueError(f"GradOperation(sens_param=True) of '{_fn_name(fn)}': the last "
                                     "argument must be the sensitivity")
                args, sens = args[:-1], args[-1]
            if self.get_all:
                positions = tuple(range(len(args)))
            elif self.get_by_list:
                positions = ()
            else:
                if not args:
                    raise ValueError(f"GradOperation of '{_fn_name(fn)}': no input to differentiate")
                positions = (0,)
            _, pg, wg = _run(fn, args, positions, wts, False, sens)
            if self.get_all and self.get_by_list:
                return tuple(pg), wg
            if self.get_by_list:
                return wg
            return tuple(pg) if self.get_all else pg[0]

        grad_fn.__name__ = f"grad_{_fn_name(fn)}"
        return _graph_aware(grad_fn)


def _graph_aware(fn):
    """``fn`` that, called in GRAPH_MODE outside any capture or tape, is captured and replayed
    (forward, backward and anything else it runs), as MindSpore compiles gradients in graph mode."""
    compiled = []

    def call(*args):
        if _settings["mode"] == _context.GRAPH_MODE and _STATE.capture is None and not _STATE.depth:
            if not compiled:
                compiled.append(GraphFunction(fn))
            return compiled[0](*args)
        return fn(*args)

    call.__name__ = call.__qualname__ = fn.__name__
    call.__wrapped__ = fn
    return call
