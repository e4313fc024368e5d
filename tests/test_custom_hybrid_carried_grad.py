"""The automatic gradient of hybrid kernels that carry values across loop iterations.

Tensors written once per element and read only at elements already final (``c[i - 1]``, ``x[j]`` for
``j < i``) are differentiated through their final forward values: recurrences, cumulative products,
triangular solves. A value carried in a scalar and read non-linearly, reads of elements not yet
written, and elements written twice keep the clear refusal. Gradients are checked against central
finite differences.
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops.custom.hybrid.grad import HybridGradError
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


@pytest.mark.parametrize("kernel, name", [
    (hc.running_product, "p"), (hc.reads_ahead, "y"), (hc.squares_twice, "y"),
])
def test_what_stays_undefined_here_is_refused_clearly(kernel, name):
    op = ops.Custom(kernel)
    with pytest.raises(HybridGradError, match=rf"op '{kernel.__name__}': cannot derive the gradient of hybrid kernel "
                                              rf"'{kernel.__name__}' \(.*hybrid_carried_kernels.py:\d+\): '{name}' is "
                                              rf"read non-linearly .*pass bprop= to ops.Custom"):
        ms.grad(lambda t: op(t).sum())(ms.Tensor(np.array([0.5, 2.0, 3.0])))
