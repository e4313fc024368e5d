"""The kernels graph-mode replays use write exactly what the eager kernels return."""

import numpy as np
import pytest

import mscustom as ms  # noqa: F401 - registers the built-in ops
from mscustom import dtype as mstype
from mscustom.ops import get_op

RNG = np.random.default_rng(0)


def _f(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


CASES = [
    ("relu", [_f(4, 5)], {}),
    ("relu_grad", [_f(4, 5), _f(4, 5)], {}),
    ("reduce_sum", [_f(3, 4, 5)], {"axis": (0, 2), "keep_dims": False}),
    ("reduce_sum", [_f(3, 4)], {"axis": None, "keep_dims": True}),
    ("reduce_sum", [RNG.integers(0, 2, (3, 4)).astype(bool)], {"axis": (1,), "keep_dims": False}),
    ("reduce_mean", [_f(3, 4, 5)], {"axis": (1,), "keep_dims": True}),
    ("reduce_mean", [_f(0, 3)], {"axis": (0,), "keep_dims": False}),
    ("reduce_mean", [RNG.integers(0, 9, (3, 4)).astype(np.int32)], {"axis": None, "keep_dims": False}),
    ("cast", [_f(3, 4)], {"dtype": mstype.float16}),
    ("cast", [_f(3, 4) * 10], {"dtype": mstype.int32}),
    ("broadcast_to", [_f(1, 4)], {"shape": (3, 4)}),
    ("log_softmax", [_f(6, 10) * 5], {"axis": -1}),
    ("log_softmax", [_f(6, 10)], {"axis": 0}),
    ("softmax", [_f(6, 10) * 5], {"axis": 1}),
    ("one_hot", [RNG.integers(-1, 5, (7,)).astype(np.int32)],
     {"depth": 5, "on": 1.0, "off": 0.0, "axis": -1, "dtype": mstype.float32}),
    ("one_hot", [RNG.integers(0, 5, (2, 3)).astype(np.int64)],
     {"depth": 5, "on": 2.5, "off": -1.0, "axis": -1, "dtype": mstype.float32}),
    ("matmul", [_f(3, 4), _f(4, 2)], {}),
    ("one_hot", [RNG.integers(0, 5, (4,)).astype(np.int32)],
     {"depth": 5, "on": 1.0, "off": 0.0, "axis": 0, "dtype": mstype.float32}),
    ("sparse_softmax_cross_entropy", [_f(6, 5) * 4, RNG.integers(0, 5, (6,)).astype(np.int32)],
     {"reduction": "none", "ignore_index": None}),
    ("sparse_softmax_cross_entropy", [_f(2, 3, 5), RNG.integers(0, 5, (2, 3)).astype(np.int64)],
     {"reduction": "mean", "ignore_index": None}),
    ("sparse_softmax_cross_entropy", [_f(6, 5), np.array([0, 1, -100, 4, 2, -100], np.int32)],
     {"reduction": "sum", "ignore_index": -100}),
    ("sparse_softmax_cross_entropy_grad", [_f(6, 5), RNG.integers(0, 5, (6,)).astype(np.int32), _f(6)],
     {"reduction": "none", "ignore_index": None}),
    ("sparse_softmax_cross_entropy_grad", [_f(6, 5), np.array([0, 1, -100, 4, 2, -100], np.int32),
                                           np.asarray(1.5, np.float32)],
     {"reduction": "mean", "ignore_index": -100}),
    ("dense", [_f(4, 3), _f(5, 3), _f(5)], {}),
    ("dense", [_f(2, 4, 3), _f(5, 3), _f()], {}),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")        # the mean of an empty slice
@pytest.mark.parametrize("name,ins,attrs", CASES, ids=[c[0] for c in CASES])
def test_write_into_kernel_equals_the_eager_kernel(name, ins, attrs):
    op = get_op(name)
    expected = np.asarray(op.attrs["FComputeAlloc<cpu>"](attrs, ins))
    out = np.full(expected.shape, 123, expected.dtype)      # garbage the kernel must overwrite
    op.attrs["FComputeInto"](attrs, ins, [out])
    np.testing.assert_array_equal(out, expected)


UFUNC_CASES = [
    ("add", [_f(3, 4), _f(4)]), ("sub", [_f(3, 4), _f(3, 1)]), ("mul", [_f(2, 3), _f(2, 3)]),
    ("div", [_f(3), _f(3)]), ("neg", [_f(5)]), ("square", [_f(5)]), ("exp", [_f(5)]),
    ("log", [np.abs(_f(5)) + 0.1]), ("sqrt", [np.abs(_f(5))]), ("matmul", [_f(3, 4), _f(4, 2)]),
    ("maximum", [_f(4), _f(4)]), ("minimum", [_f(4), _f(4)]), ("tanh", [_f(4)]),
    ("accumulate", [_f(4), _f(4)]), ("greater", [_f(4), _f(4)]), ("equal", [_f(4), _f(4)]),
]


@pytest.mark.parametrize("name,ins", UFUNC_CASES, ids=[c[0] for c in UFUNC_CASES])
def test_ufunc_attribute_is_the_eager_kernel(name, ins):
    op = get_op(name)
    expected = np.asarray(op.attrs["FComputeAlloc<cpu>"]({}, ins))
    out = np.empty(expected.shape, expected.dtype)
    op.attrs["FUfunc"](*ins, out=out)
    np.testing.assert_array_equal(out, expected)


def test_transpose_view_has_the_eager_values():
    x = _f(3, 4, 5)
    op = get_op("transpose")
    for perm in (None, (2, 0, 1)):
        view = op.attrs["FView"]({"perm": perm}, [x])
        assert np.shares_memory(view, x)
        np.testing.assert_array_equal(view, op.attrs["FComputeAlloc<cpu>"]({"perm": perm}, [x]))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("ignore_index", [None, 2])
@pytest.mark.parametrize("shape", [(6, 5), (2, 3, 4), (0, 3)])
def test_fused_loss_and_gradient_equal_the_two_eager_kernels(reduction, ignore_index, shape):
    loss_op, grad_op = get_op("sparse_softmax_cross_entropy"), get_op("sparse_softmax_cross_entropy_grad")
    partner, n_shared, fused = loss_op.attrs["FFuseInto"]
    assert (partner, n_shared) == ("sparse_softmax_cross_entropy_grad", 2)
    attrs = {"reduction": reduction, "ignore_index": ignore_index}
    x = _f(*shape) * 4
    y = RNG.integers(0, shape[-1], shape[:-1]).astype(np.int32)
    d = np.asarray(RNG.standard_normal(y.shape if reduction == "none" else ()), np.float32)
    loss = np.asarray(loss_op.attrs["FComputeAlloc<cpu>"](attrs, [x, y]))
    grad = grad_op.attrs["FComputeAlloc<cpu>"](attrs, [x, y, d])
    outs = [np.full(loss.shape, 123, np.float32), np.full(x.shape, 123, np.float32)]
    with np.errstate(all="ignore"):
        fused(attrs, [x, y, d], outs)
    np.testing.assert_array_equal(outs[0], loss)
    np.testing.assert_array_equal(outs[1], grad)
