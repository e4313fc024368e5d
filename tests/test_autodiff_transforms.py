"""ops.vjp / jvp / linearize / jacrev / jacfwd / derivative / jet / vmap and nn.Jvp / nn.Vjp
(values from MindSpore 2.10 CPU)."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops, Tensor


def T(a):
    return Tensor(np.array(a, np.float32))


def close(t, want, rtol=1e-6):
    np.testing.assert_allclose(t.asnumpy(), np.array(want, np.float32), rtol=rtol, atol=1e-7)


X, Y, V = [1.0, 2.0], [3.0, 4.0], [1.0, 1.0]
SIN, COS = [0.841470957, 0.909297407], [0.540302277, -0.416146845]


def f(x, y):
    return x ** 3 + y * x


def g(x):
    return ops.sin(x), x * 2


def aux1(x):
    return x * x, x + 1


def aux2(x):
    return x * x, x + 1, x * 3


def test_exported_names():
    for name in ["vjp", "jvp", "vmap", "jacfwd", "jacrev"]:
        assert getattr(ms, name) is getattr(ops, name)
    for name in ["derivative", "jet", "linearize"]:
        assert hasattr(ops, name) and not hasattr(ms, name)
    assert nn.Jvp and nn.Vjp


def test_vjp():
    out, fn = ops.vjp(f, T(X), T(Y))
    close(out, [4, 16])
    gx, gy = fn(T(V))
    close(gx, [6, 16]), close(gy, [1, 2])
    out, fn = ops.vjp(ops.sin, T(X))
    (gx,) = fn(T(V))
    close(out, SIN), close(gx, COS)
    out, fn = ops.vjp(g, T(X))
    (gx,) = fn((T(V), T(V)))
    close(out[1], [2, 4]), close(gx, [2.54030228, 1.58385313])
    out, fn, aux = ops.vjp(aux1, T(X), has_aux=True)
    close(out, [1, 4]), close(fn(T(V))[0], [2, 4]), close(aux, [2, 3])
    out, fn, aux = ops.vjp(aux2, T(X), has_aux=True)
    assert isinstance(aux, tuple) and len(aux) == 2
    close(aux[1], [3, 6])

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(T([2.0, 3.0]), name="w")

        def construct(self, x):
            return x * self.w

    net = Net()
    out, fn = ops.vjp(net, T(X), weights=net.trainable_params())
    (gx,), (gw,) = fn(T(V))
    close(out, [2, 6]), close(gx, [2, 3]), close(gw, [1, 2])
    with pytest.raises(ValueError):
        ops.vjp(f, T(X), T(X))[1](T([1.0, 2.0, 3.0]))


def test_jvp_and_linearize():
    out, jv = ops.jvp(f, (T(X), T(Y)), (T(V), T(V)))
    close(out, [4, 16]), close(jv, [7, 18])
    out, jv = ops.jvp(f, [T(X), T(Y)], [T(V), T(V)])
    close(jv, [7, 18])
    out, jv = ops.jvp(ops.sin, T(X), T(V))
    close(jv, COS)
    out, jv = ops.jvp(g, T(X), T(V))
    close(jv[0], COS), close(jv[1], [2, 2])
    out, jv, aux = ops.jvp(aux1, T(X), T(V), has_aux=True)
    close(out, [1, 4]), close(jv, [2, 4]), close(aux, [2, 3])
    out, jv, aux = ops.jvp(aux2, T(X), T(V), has_aux=True)
    assert len(aux) == 2
    with pytest.raises(ValueError, match="should be 2, but got 1"):
        ops.jvp(f, (T(X), T(X)), T(V))
    out, lin = ops.linearize(lambda a: a * a * a, T(X))
    close(out, [1, 8]), close(lin(T([2.0, 3.0])), [6, 36])
    out, lin = ops.linearize(lambda a, b: a * b, (T(X), T([5.0, 6.0])))
    close(out, [5, 12]), close(lin((T([2.0, 3.0]), T([1.0, 1.0]))), [11, 20])


def test_jacrev_jacfwd():
    for jac in (ops.jacrev, ops.jacfwd):
        close(jac(f)(T(X), T(Y)), [[6, 0], [0, 16]])
        j0, j1 = jac(f, grad_position=(0, 1))(T(X), T(Y))
        close(j0, [[6, 0], [0, 16]]), close(j1, [[1, 0], [0, 2]])
        close(jac(f, grad_position=1)(T(X), T([3.0, 4.0])), [[1, 0], [0, 2]])
        j, aux = jac(aux1, has_aux=True)(T(X))
        close(j, [[2, 0], [0, 4]]), close(aux, [2, 3])
        j, aux = jac(aux2, has_aux=True)(T(X))
        assert len(aux) == 2
        js, jd = jac(g)(T(X))
        close(js, [[COS[0], 0], [0, COS[1]]]), close(jd, [[2, 0], [0, 2]])
        close(jac(lambda a: (a * a).sum())(T(X)), [2, 4])
        assert jac(lambda a: a.sum(axis=1))(T([[1.0, 2, 3], [4, 5, 6]])).shape == (2, 2, 3)
        (a, b), (c, d) = jac(lambda x, y: (x * y, x.sum()), grad_position=(0, 1))(T(X), T([3.0, 4.0]))
        close(a, [[3, 0], [0, 4]]), close(b, [[1, 0], [0, 2]]), close(c, [1, 1]), close(d, [0, 0])
    # a Jacobian of a Jacobian: the Hessian of sum(x^3) is diag(6x)
    close(ops.jacfwd(ops.jacrev(lambda a: (a ** 3).sum()))(T(X)), [[6, 0], [0, 12]])
    rng = np.random.default_rng(0)
    w = Tensor(rng.standard_normal((3, 4)).astype(np.float32))
    x = Tensor(rng.standard_normal((2, 3)).astype(np.float32))
    fn = lambda a: ops.softmax(ops.matmul(a, w), -1)     # noqa: E731
    np.testing.assert_allclose(ops.jacfwd(fn)(x).asnumpy(), ops.jacrev(fn)(x).asnumpy(), atol=1e-6)


def test_derivative_and_jet():
    out, d = ops.derivative(ops.sin, T(X), 2)
    close(out, SIN), close(d, [-SIN[0], -SIN[1]])
    out, d = ops.derivative(ops.sin, T(X), 1)
    close(d, COS)
    out, d = ops.derivative(ops.exp, T(X), 3)
    close(d, [2.71827984, 7.38906002], 1e-5)
    out, d = ops.derivative(lambda a: a * a * a, T(X), 3)
    close(out, [1, 8]), close(d, [6, 6])
    out, d = ops.derivative(lambda a, b: a * b, (T(X), T([5.0, 6.0])), 2)
    close(out, [5, 12]), close(d, [2, 2])
    out, s = ops.jet(ops.sin, T(X), T([[1.0, 1.0], [0, 0]]))
    close(s, [COS, [-SIN[0], -SIN[1]]])
    out, s = ops.jet(ops.exp, T(X), T([[1.0, 0.5], [0.5, 0], [1, 1]]))
    close(s, [[2.71827984, 3.69453001], [4.07741976, 1.84726501], [9.51397896, 8.31269169]], 1e-5)
    out, s = ops.jet(lambda a: a * a * a, T(X), T([[1.0, 0.5], [0.5, 0], [1, 1]]))
    close(s, [[3, 6], [7.5, 3], [18, 12.75]])
    out, s = ops.jet(lambda a, b: a * b, (T(X), T([5.0, 6.0])), (T([[1.0, 1.0]]), T([[1.0, 0]])))
    assert s.shape == (1, 2)
    close(s, [[6, 6]])


def mb(a, b):
    return a * b.sum()


def test_vmap():
    m = T([[1.0, 2.0], [3, 4]])
    close(ops.vmap(mb, in_axes=(0, None))(m, T([1.0, 2.0])), [[3, 6], [9, 12]])
    close(ops.vmap(lambda a: a * 2, in_axes=1, out_axes=1)(T([[1.0, 2, 5], [3, 4, 6]])), [[2, 4, 10], [6, 8, 12]])
    close(ops.vmap(lambda a: a * 2, in_axes=1, out_axes=0)(T([[1.0, 2, 5], [3, 4, 6]])), [[2, 6], [4, 8], [10, 12]])
    a, b = ops.vmap(lambda a: (a * 2, a.sum()), in_axes=0, out_axes=(1, 0))(m)
    close(a, [[2, 6], [4, 8]]), close(b, [3, 7])
    close(ops.vmap(lambda a: a.sum())(m), [3, 7])
    close(ops.vmap(lambda a: a.sum(), in_axes=-1)(m), [4, 6])
    close(ops.vmap(lambda p: p[0] + p[1], in_axes=((0, None),))((m, T([1.0, 2.0]))), [[2, 4], [4, 6]])
    close(ops.vmap(lambda a, b: a * b, in_axes=(1, 0), out_axes=1)(m, m), [[1, 6], [6, 16]])
    inner = ops.vmap(lambda a, b: a * b, in_axes=(0, None))
    close(ops.vmap(inner, in_axes=(None, 0))(T([1.0, 2.0]), T([3.0, 4, 5])), [[3, 6], [4, 8], [5, 10]])
    r = ops.vmap(lambda a: a * 2)(Tensor(np.array([[1, 2], [3, 4]], np.int32)))
    assert r.dtype == ms.int32 and r.asnumpy().tolist() == [[2, 4], [6, 8]]
    with pytest.raises(RuntimeError, match="should be equal, but got 2 and 3"):
        ops.vmap(mb, in_axes=(0, 0))(m, T([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError):
        ops.vmap(mb, in_axes=None)(m, T([1.0, 2.0]))
    # the mapped function differentiates
    gm = ms.grad(lambda t: ops.vmap(lambda r: (r * r).sum())(t).sum())(m)
    close(gm, [[2, 4], [6, 8]])


def test_nn_jvp_vjp_cells():
    out, g1 = nn.Vjp(nn.ReLU())(T(X), T(V))
    close(out, [1, 2]), close(g1, [1, 1])
    out, j1 = nn.Jvp(nn.ReLU())(T(X), T(V))
    close(j1, [1, 1])
    out, (ga, gb) = nn.Vjp(lambda a, b: a * b)(T(X), T([3.0, 4.0]), T(V))
    close(out, [3, 8]), close(ga, [3, 4]), close(gb, [1, 2])
    out, jv = nn.Jvp(lambda a, b: a * b)(T(X), T([3.0, 4.0]), (T(V), T(V)))
    close(jv, [4, 6])


def test_integer_inputs_refused():
    i = Tensor(np.array([1, 2], np.int32))
    for call in (lambda: ops.jvp(lambda a: a * 2, i, i), lambda: ops.vjp(lambda a: a * 2, i),
                 lambda: ops.jacrev(lambda a: a * 2)(i), lambda: ops.jacfwd(lambda a: a * 2)(i)):
        with pytest.raises(TypeError, match="floating-point"):
            call()
    assert ops.jacrev(lambda a: a * 2)(Tensor(np.array([1.0, 2.0]))).dtype == ms.float64


def test_transforms_in_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        _, jv = ops.jvp(ops.sin, T(X), T(V))
        close(jv, COS)
        close(ops.derivative(ops.sin, T(X), 2)[1], [-SIN[0], -SIN[1]])
        close(ops.jacfwd(lambda a: a * a)(T(X)), [[2, 0], [0, 4]])

        @ms.jit
        def f(a):
            return ops.jvp(ops.sin, a, T(V))[1]
        close(f(T(X)), COS)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
