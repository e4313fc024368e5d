"""The automatic gradient of hybrid kernels that carry values across loop iterations.

Tensors written once per element and read only at elements already final (``c[i - 1]``, ``x[j]`` for
``j < i``) are differentiated through their final forward values: recurrences, cumulative products,
triangular solves. Scalars carried across iterations and read non-linearly (running products, row
products, Horner's rule) are kept per iteration in a tape. Reads of elements not yet written,
elements written twice, and scalars carried in loops whose extent depends on an enclosing loop go to
the taping generator (``tests/test_custom_hybrid_taped_grad.py``). Gradients are checked against
central finite differences.
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.testing import check_grad

import hybrid_carried_kernels as hc

RNG = np.random.default_rng(23)
A = RNG.uniform(0.5, 1.5, 6)
L = np.tril(RNG.uniform(0.5, 1.5, (4, 4))) + 2 * np.eye(4)
B = RNG.standard_normal(4)


def weighted(op, shape):
    w = ms.Tensor(RNG.standard_normal(shape))
    return lambda *t: (op(*t) * w).sum()


@pytest.mark.parametrize("kernel, args, forward", [
    (hc.running_sum, [A], np.cumsum(A)),
    (hc.cumsum_rec, [A], np.cumsum(A)),
    (hc.cumprod_rec, [A], np.cumprod(A)),
    (hc.lower_solve, [L, B], np.linalg.solve(L, B)),
])
def test_loop_carried_kernels_have_correct_gradients(kernel, args, forward):
    op = ops.Custom(kernel)
    tensors = [ms.Tensor(x) for x in args]
    np.testing.assert_allclose(op(*tensors).asnumpy(), forward, rtol=1e-12)
    check_grad(weighted(op, forward.shape), *tensors, grad_position=tuple(range(len(args))), rtol=1e-6,
               atol=1e-8)


def test_a_first_order_filter_differentiates_in_its_input_and_its_weight():
    w = np.array([0.3])
    op = ops.Custom(hc.decay_filter)
    y = op(ms.Tensor(A), ms.Tensor(w)).asnumpy()
    want = [A[0]]
    for v in A[1:]:
        want.append(0.3 * want[-1] + 0.7 * v)
    np.testing.assert_allclose(y, want, rtol=1e-12)
    check_grad(weighted(op, A.shape), ms.Tensor(A), ms.Tensor(w), grad_position=(0, 1), rtol=1e-6, atol=1e-8)


def test_the_triangular_solve_gradient_is_the_closed_form():
    # d(w . L^-1 b): db = L^-T w, dL = -tril(L^-T w x^T)
    op = ops.Custom(hc.lower_solve)
    w = RNG.standard_normal(4)
    gl, gb = ms.grad(lambda l, b: (op(l, b) * ms.Tensor(w)).sum(), grad_position=(0, 1))(ms.Tensor(L), ms.Tensor(B))
    x = np.linalg.solve(L, B)
    lam = np.linalg.solve(L.T, w)
    np.testing.assert_allclose(gb.asnumpy(), lam, rtol=1e-10)
    np.testing.assert_allclose(gl.asnumpy(), -np.tril(np.outer(lam, x)), rtol=1e-10, atol=1e-14)


def test_scalars_carried_non_linearly_are_taped():
    # a running product (zeros included: no division), products along rows, Horner's rule
    a = np.array([0.5, 0.0, 3.0, 0.7, 1.2])
    prod = ops.Custom(hc.running_product)
    assert prod(ms.Tensor(a)).asnumpy().tolist() == [0.0]
    g = check_grad(lambda t: prod(t).sum(), ms.Tensor(a), rtol=1e-6, atol=1e-9)[0]
    np.testing.assert_allclose(g, [0.0, 0.5 * 3.0 * 0.7 * 1.2, 0.0, 0.0, 0.0], atol=1e-15)
    m = RNG.uniform(0.5, 1.5, (3, 4))
    rows = ops.Custom(hc.row_products)
    np.testing.assert_allclose(rows(ms.Tensor(m)).asnumpy(), m.prod(1), rtol=1e-12)
    check_grad(weighted(rows, (3,)), ms.Tensor(m), rtol=1e-6, atol=1e-9)
    c, x = RNG.standard_normal(4), RNG.standard_normal(5)
    horner = ops.Custom(hc.horner)
    np.testing.assert_allclose(horner(ms.Tensor(c), ms.Tensor(x)).asnumpy(), np.polyval(c, x), rtol=1e-12)
    check_grad(weighted(horner, (5,)), ms.Tensor(c), ms.Tensor(x), grad_position=(0, 1), rtol=1e-6, atol=1e-9)
