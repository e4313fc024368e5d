"""``mx.test_utils``: comparisons, default contexts and the numerical gradient check of a symbol.

Example::

    mx.test_utils.assert_almost_equal(mx.nd.array([1.0]), np.array([1.0 + 1e-7]))
    mx.test_utils.check_numeric_gradient(mx.sym.exp(mx.sym.Variable("x")), [np.random.rand(3)])
"""

import numpy as np

from ...tensor import Tensor
from ._ndarray import NDArray, wrap
from .context import Context, cpu

__all__ = ["default_context", "default_device", "set_default_context", "set_default_device", "almost_equal",
           "assert_almost_equal", "same", "check_numeric_gradient", "rand_ndarray", "rand_shape_2d",
           "rand_shape_nd", "is_cd_run", "check_symbolic_forward", "check_symbolic_backward", "get_mnist_ubyte",
           "get_mnist_iterator"]

_DEFAULT = [cpu()]


def default_context():
    """The context tests run on (``cpu()`` unless ``set_default_context`` said otherwise)."""
    return _DEFAULT[0]


def set_default_context(ctx):
    if not isinstance(ctx, Context):
        raise TypeError(f"set_default_context: expected an mx.Context, got {type(ctx).__name__}")
    _DEFAULT[0] = ctx


default_device, set_default_device = default_context, set_default_context


def _np(a):
    if isinstance(a, NDArray):
        return a.asnumpy()
    if isinstance(a, Tensor):
        return np.asarray(a._data)
    return np.asarray(a)


def same(a, b):
    return np.array_equal(_np(a), _np(b))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """True when ``|a - b| <= atol + rtol * |b|`` everywhere (rtol 1e-5, atol 1e-20 by default, as MXNet)."""
    a, b = _np(a), _np(b)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-5 if rtol is None else rtol,
                                                   atol=1e-20 if atol is None else atol, equal_nan=equal_nan))


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False, use_broadcast=True,
                        mismatches=(10, 10)):
    """``almost_equal`` or an AssertionError locating the worst element."""
    a, b = _np(a), _np(b)
    rtol = 1e-5 if rtol is None else rtol
    atol = 1e-20 if atol is None else atol
    if a.shape != b.shape:
        raise AssertionError(f"shapes differ: {names[0]} {a.shape}, {names[1]} {b.shape}")
    if np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    err = np.abs(a - b) / (atol + rtol * np.abs(b))
    idx = tuple(int(i) for i in np.unravel_index(np.nanargmax(err), err.shape)) if err.ndim else ()
    raise AssertionError(f"Items are not equal (rtol={rtol}, atol={atol}): error {float(err[idx]):.3g} exceeds "
                         f"tolerance at {idx}: {names[0]}={a[idx].item()!r}, {names[1]}={b[idx].item()!r}\n{names[0]}: {a}\n"
                         f"{names[1]}: {b}")


def rand_shape_2d(dim0=10, dim1=10):
    return np.random.randint(1, dim0 + 1), np.random.randint(1, dim1 + 1)


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    return tuple(np.random.randint(0 if allow_zero_size else 1, dim + 1, size=num_dim))


def rand_ndarray(shape, stype="default", density=None, dtype=None, ctx=None, **kwargs):
    """A random array; ``stype`` 'csr' / 'row_sparse' gives a sparse one whose entries (csr) or rows
    (row_sparse) are stored with probability ``density`` (random when None), values in [0, 1) as MXNet's."""
    from ._ndarray import check_stype
    if check_stype(stype, "rand_ndarray") != "default":
        from ._sparse import rand_sparse
        return rand_sparse(shape, stype, density, dtype, ctx)
    return wrap(np.random.uniform(-1, 1, shape).astype(dtype or np.float32), ctx=ctx)


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=1e-3, rtol=1e-2, atol=None,
                           grad_nodes=None, use_forward_train=True, ctx=None, grad_stype_dict=None,
                           dtype=np.float32):
    """Compare a symbol's backward with central differences of ``sum(output * random projection)``.

    ``location``: the arguments' values (a list in ``list_arguments`` order or a
    dict). Computed in float64 for the differences, as MXNet's check does.
    """
    names = sym.list_arguments()
    if isinstance(location, dict):
        loc = {k: _np(v).astype(np.float64) for k, v in location.items()}
    else:
        loc = {k: _np(v).astype(np.float64) for k, v in zip(names, location)}
    aux = {}
    if aux_states is not None:
        aux_names = sym.list_auxiliary_states()
        aux = {k: _np(v).astype(np.float64) for k, v in (aux_states.items() if isinstance(aux_states, dict)
                                                         else zip(aux_names, aux_states))}
    grad_nodes = list(grad_nodes or [k for k in names if k in loc])
    rng = np.random.default_rng(0)

    def run(values, train):
        exe = sym.bind(ctx or default_context(), {k: wrap(v.copy()) for k, v in values.items()},
                       args_grad={k: wrap(np.zeros_like(v)) for k, v in values.items() if k in grad_nodes},
                       grad_req={k: ("write" if k in grad_nodes else "null") for k in names},
                       aux_states={k: wrap(v.copy()) for k, v in aux.items()})
        outs = exe.forward(is_train=train)
        return exe, [o.asnumpy() for o in outs]

    exe, outs = run(loc, True)
    projs = [rng.standard_normal(o.shape) for o in outs]
    exe.backward([wrap(p) for p in projs])
    symbolic = {k: exe.grad_dict[k].asnumpy() for k in grad_nodes}
    for k in grad_nodes:
        numeric = np.zeros_like(loc[k])
        flat = loc[k].reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + numeric_eps / 2
            plus = sum(float((o * p).sum()) for o, p in zip(run(loc, use_forward_train)[1], projs))
            flat[i] = old - numeric_eps / 2
            minus = sum(float((o * p).sum()) for o, p in zip(run(loc, use_forward_train)[1], projs))
            flat[i] = old
            numeric.reshape(-1)[i] = (plus - minus) / numeric_eps
        assert_almost_equal(symbolic[k], numeric, rtol=rtol, atol=1e-4 if atol is None else atol,
                            names=(f"symbolic gradient of {k}", f"numeric gradient of {k}"))


def is_cd_run():
    """True when the tests run as part of a continuous-delivery job (``CD_JOB=1``), as in MXNet."""
    import os
    return os.environ.get("CD_JOB", 0) == "1"


def _tolerances(dtype, rtol, atol):
    """MXNet's defaults for the symbolic checks: rtol 1e-4 / atol 1e-3 in float32 (1e-5 / 1e-20 in float64)."""
    wide = np.dtype(dtype) == np.float64
    return (rtol if rtol is not None else (1e-5 if wide else 1e-4)), (atol if atol is not None else
                                                                     (1e-20 if wide else 1e-3))


def _located(sym, location, dtype, names, what):
    if isinstance(location, dict):
        unknown = [k for k in location if k not in names]
        if unknown:
            raise ValueError(f"{what}: {unknown} are not arguments of the symbol; its arguments are {names}")
        return {k: _np(v).astype(dtype) for k, v in location.items()}
    if len(location) != len(names):
        raise ValueError(f"{what}: {len(location)} location values for the symbol's {len(names)} arguments {names}")
    return {k: _np(v).astype(dtype) for k, v in zip(names, location)}


def _aux_located(sym, aux_states, dtype):
    if aux_states is None:
        return {}
    names = sym.list_auxiliary_states()
    items = aux_states.items() if isinstance(aux_states, dict) else zip(names, aux_states)
    return {k: wrap(_np(v).astype(dtype)) for k, v in items}


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None, ctx=None,
                           equal_nan=False, dtype=np.float32):
    """Bind ``sym`` at ``location``, run forward (inference) and compare each output with ``expected``.

    Returns the outputs (NDArrays), as MXNet's check does.
    """
    rtol, atol = _tolerances(dtype, rtol, atol)
    names = sym.list_arguments()
    loc = _located(sym, location, dtype, names, "check_symbolic_forward")
    exe = sym.bind(ctx or default_context(), {k: wrap(v) for k, v in loc.items()},
                   aux_states=_aux_located(sym, aux_states, dtype))
    outputs = exe.forward(is_train=False)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    if len(expected) != len(outputs):
        raise ValueError(f"check_symbolic_forward: {len(expected)} expected values for {len(outputs)} outputs")
    for name, want, got in zip(sym.list_outputs(), expected, outputs):
        assert_almost_equal(want, got, rtol=rtol, atol=atol, names=(f"EXPECTED_{name}", f"FORWARD_{name}"),
                            equal_nan=equal_nan)
    return outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None, aux_states=None,
                            grad_req="write", ctx=None, grad_stypes=None, equal_nan=False, dtype=np.float32):
    """Bind ``sym`` at ``location``, run forward (training) and backward with ``out_grads``, compare gradients.

    ``expected``: gradients in ``list_arguments`` order or by name; ``grad_req``
    one for all or per name ('write', 'add': added to a random initial
    gradient, which the check accounts for, 'null': not checked). Returns the
    gradients by name (NDArrays).
    """
    rtol, atol = _tolerances(dtype, rtol, atol)
    names = sym.list_arguments()
    loc = _located(sym, location, dtype, names, "check_symbolic_backward")
    if isinstance(expected, dict):
        want = {k: _np(v) for k, v in expected.items()}
    else:
        want = {k: _np(v) for k, v in zip(names, expected)}
    reqs = {k: grad_req for k in names} if isinstance(grad_req, str) else \
        ({k: r for k, r in zip(names, grad_req)} if isinstance(grad_req, (list, tuple)) else dict(grad_req))
    rng = np.random.default_rng(0)
    initial = {k: (rng.standard_normal(v.shape).astype(dtype) if reqs.get(k, "null") == "add" else
                   np.zeros(v.shape, dtype)) for k, v in loc.items()}
    grads = {k: wrap(initial[k].copy()) for k in names if reqs.get(k, "null") != "null"}
    exe = sym.bind(ctx or default_context(), {k: wrap(v) for k, v in loc.items()}, args_grad=grads,
                   grad_req={k: reqs.get(k, "null") for k in names}, aux_states=_aux_located(sym, aux_states, dtype))
    exe.forward(is_train=True)
    if isinstance(out_grads, dict):
        out_grads = [out_grads[k] for k in sym.list_outputs()]
    elif not isinstance(out_grads, (list, tuple)):
        out_grads = [out_grads]
    exe.backward([wrap(_np(g).astype(dtype)) for g in out_grads])
    for k in names:
        if reqs.get(k, "null") == "null" or k not in want:
            continue
        target = want[k] + initial[k] if reqs[k] == "add" else want[k]
        assert_almost_equal(target, exe.grad_dict[k], rtol=rtol, atol=atol,
                            names=(f"EXPECTED_{k}", f"BACKWARD_{k}"), equal_nan=equal_nan)
    return dict(exe.grad_dict)


def get_mnist_ubyte():
    """Check that MNIST's ubyte files are on disk (``./data`` or ``~/.mxnet/datasets/mnist``); nothing is
    downloaded here, so a FileNotFoundError says where to put them when they are not."""
    from ._mnist import find_mnist
    return find_mnist()


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """Training and validation ``MNISTIter`` over MNIST files already on disk (``(784,)`` gives flat rows)."""
    from .io import MNISTIter
    paths = get_mnist_ubyte()
    flat = len(input_shape) != 3
    train = MNISTIter(image=paths["train"][0], label=paths["train"][1], input_shape=input_shape,
                      batch_size=batch_size, shuffle=True, flat=flat, num_parts=num_parts, part_index=part_index)
    val = MNISTIter(image=paths["val"][0], label=paths["val"][1], input_shape=input_shape, batch_size=batch_size,
                    flat=flat, num_parts=num_parts, part_index=part_index)
    return train, val
