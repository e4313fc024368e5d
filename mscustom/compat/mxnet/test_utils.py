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
           "rand_shape_nd"]

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


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False):
    """True when ``|a - b| <= atol + rtol * |b|`` everywhere (rtol 1e-5, atol 1e-20 by default, as MXNet)."""
    a, b = _np(a), _np(b)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-5 if rtol is None else rtol,
                                                   atol=1e-20 if atol is None else atol, equal_nan=equal_nan))


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False):
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


def rand_shape_nd(num_dim, dim=10):
    return tuple(np.random.randint(1, dim + 1, size=num_dim))


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
