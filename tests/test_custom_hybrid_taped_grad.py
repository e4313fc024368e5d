"""Derived gradients of hybrid kernels that overwrite values the gradient needs (``grad_tape``).

The recomputing generator refuses these; the taping one saves every overwritten value in the
forward pass and restores it in the reverse sweep. Each gradient is checked against its closed form
or central finite differences (``check_grad``), in float64 and float32.
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops.custom.hybrid.grad import HybridGradError
from mscustom.testing import check_grad

import hybrid_carried_kernels as hc
import hybrid_kernels as hk
import hybrid_taped_kernels as tk

RNG = np.random.default_rng(5)


def _softmax(x):
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


@pytest.mark.parametrize("kernel", [tk.row_softmax, tk.row_softmax_scalars])
@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-12), (np.float32, 2e-6)])
def test_row_softmax_with_running_max_and_sum(kernel, dtype, tol):
    x = RNG.standard_normal((3, 5)).astype(dtype)
    w = RNG.standard_normal((3, 5)).astype(dtype)
    op = ops.Custom(kernel)
    s = _softmax(x.astype(np.float64))
    np.testing.assert_allclose(op(ms.Tensor(x)).asnumpy(), s, rtol=tol, atol=tol)
    g = ms.grad(lambda t: (op(t) * ms.Tensor(w)).sum())(ms.Tensor(x))
    assert g.dtype == ms.Tensor(x).dtype
    want = s * (w - (w * s).sum(1, keepdims=True))
    np.testing.assert_allclose(g.asnumpy(), want, rtol=10 * tol, atol=10 * tol)


def test_unit_lower_solve_in_l_and_b():
    n = 5
    l = np.tril(RNG.uniform(0.5, 1.5, (n, n)), -1) + np.eye(n)
    b, w = RNG.standard_normal(n), RNG.standard_normal(n)
    op = ops.Custom(tk.unit_lower_solve)
    x = np.linalg.solve(l, b)
    np.testing.assert_allclose(op(ms.Tensor(l), ms.Tensor(b)).asnumpy(), x, rtol=1e-12)
    gl, gb = ms.grad(lambda a, c: (op(a, c) * ms.Tensor(w)).sum(), grad_position=(0, 1))(ms.Tensor(l), ms.Tensor(b))
    lam = np.linalg.solve(l.T, w)                    # db = L^-T w, dL = -tril(lam x^T, -1) (the diagonal is not read)
    np.testing.assert_allclose(gb.asnumpy(), lam, rtol=1e-10)
    np.testing.assert_allclose(gl.asnumpy(), -np.tril(np.outer(lam, x), -1), rtol=1e-10, atol=1e-14)


def test_a_branch_on_a_carried_state_and_nested_carried_loops():
    a = np.array([0.3, 0.4, 0.5, -0.9, 0.2, 0.35])
    op = ops.Custom(tk.clipped_decay)
    w = np.array([0.8])
    s, want = 0.0, []
    for v in a:
        s = min(0.8 * s + v, 1.0)
        want.append(s * s)
    np.testing.assert_allclose(op(ms.Tensor(a), ms.Tensor(w)).asnumpy(), want, rtol=1e-12)
    check_grad(lambda x, y: op(x, y).sum(), ms.Tensor(a), ms.Tensor(w), grad_position=(0, 1), rtol=1e-6, atol=1e-9)
    m = RNG.uniform(0.1, 1.0, (4, 4))
    v0 = RNG.uniform(0.5, 1.0, 4)
    pw = ops.Custom(tk.power_iteration)
    v = v0
    for _ in range(3):
        v = m @ v / np.linalg.norm(m @ v)
    np.testing.assert_allclose(pw(ms.Tensor(m), ms.Tensor(v0)).asnumpy(), v, rtol=1e-12)
    weights = ms.Tensor(RNG.standard_normal(4))
    check_grad(lambda x, y: (pw(x, y) * weights).sum(), ms.Tensor(m), ms.Tensor(v0), grad_position=(0, 1),
               rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("kernel, arg", [
    (hc.reads_ahead, np.array([0.5, 2.0, 3.0])),        # reads an element written later (still zero then)
    (hc.squares_twice, np.array([0.5, 2.0, 3.0])),      # every element written twice
    (hc.triangle_products, np.full((3, 3), 1.3)),       # carried in a loop whose extent is the outer variable
])
def test_kernels_the_recomputing_generator_refuses(kernel, arg):
    op = ops.Custom(kernel)
    check_grad(lambda t: (op(t) * op(t)).sum(), ms.Tensor(arg), rtol=1e-6, atol=1e-9)


def test_a_data_dependent_store_sends_each_gradient_to_the_last_writer():
    op = ops.Custom(hk.scatter)
    x = ms.Tensor(np.array([1.0, 2.0, 3.0, 4.0]))
    idx = ms.Tensor(np.array([2, 0, 2, 1], np.int64))     # element 2 is written twice: the second write wins
    np.testing.assert_array_equal(op(x, idx).asnumpy(), [2.0, 4.0, 3.0, 0.0])
    w = ms.Tensor(np.array([10.0, 20.0, 30.0, 40.0]))
    g = ms.grad(lambda t: (op(t, idx) * w).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), [0.0, 10.0, 30.0, 20.0])


def test_what_taping_cannot_serve_keeps_the_first_refusal():
    op = ops.Custom(tk.every_other_square)
    with pytest.raises(HybridGradError, match=r"op 'every_other_square': cannot derive the gradient of hybrid kernel "
                                              r"'every_other_square' \(.*hybrid_taped_kernels.py:\d+\): loops with a "
                                              r"step cannot be reversed; pass bprop= to ops.Custom"):
        ms.grad(lambda t: op(t).sum())(ms.Tensor(np.arange(4.0)))


def test_a_loop_sized_under_a_data_dependent_branch_is_refused_not_mis_taped():
    op = ops.Custom(tk.branch_sized_loop)
    x = ms.Tensor(np.array([-1.0, 2.0, 3.0]))
    np.testing.assert_allclose(op(x).asnumpy(), [1.0, 4.0, 9.0])
    with pytest.raises(HybridGradError, match=r"op 'branch_sized_loop': cannot derive the gradient"):
        ms.grad(lambda t: op(t).sum())(x)
