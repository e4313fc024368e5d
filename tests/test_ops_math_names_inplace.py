"""ops.inplace_add, inplace_sub, inplace_update, deepcopy (values from MindSpore 2.10); clamp_, tanh_, erfinv_, zero_, fmin, accumulate_n (MindSpore 2.10 CPU cannot run them: checked against its out-of-place results).

Expected values, dtypes and errors are MindSpore 2.10 (CPU)'s for the same expressions."""

from _ops_math_oracle import INF, NAN, check_table  # noqa: F401


INPLACE = [
    ('ops.inplace_add(T([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), T([[0.5, 0.5], [1.0, 1.0]]), (0, 2))',
     ('float32', [[1.5, 2.5], [3.0, 4.0], [6.0, 7.0]])),
    ("ops.inplace_add(T([[1, 2], [3, 4]], 'int32'), T([[5, 5]], 'int32'), 1)",
     ('int32', [[1, 2], [8, 9]])),
    ('ops.inplace_add(T([[1.0, 2.0], [3.0, 4.0]]), T([[1.0, 1.0], [2.0, 2.0]]), (1, 1))',
     ('float32', [[1.0, 2.0], [6.0, 7.0]])),
    ('ops.inplace_add(T([[1.0, 2.0], [3.0, 4.0]]), T([[1.0, 1.0]]), (-1,))',
     ('raises', ValueError)),
    ('ops.inplace_sub(T([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), T([[0.5, 0.5], [1.0, 1.0]]), (0, 2))',
     ('float32', [[0.5, 1.5], [3.0, 4.0], [4.0, 5.0]])),
    ("ops.inplace_sub(T([[1, 2], [3, 4]], 'int32'), T([[5, 5]], 'int32'), 1)",
     ('int32', [[1, 2], [-2, -1]])),
    ('ops.inplace_update(T([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), T([[0.5, 0.5], [1.0, 1.0]]), (0, 2))',
     ('float32', [[0.5, 0.5], [3.0, 4.0], [1.0, 1.0]])),
    ("ops.inplace_update(T([[1, 2], [3, 4]], 'int32'), T([[5, 5]], 'int32'), 1)",
     ('int32', [[1, 2], [5, 5]])),
    ("ops.inplace_update(T([[1.0, 2.0], [3.0, 4.0]]), T([[7.0, 7.0], [8.0, 8.0]]), T([1, 0], 'int32'))",
     ('float32', [[8.0, 8.0], [7.0, 7.0]])),
    ("ops.inplace_update(T([[1.0, 2.0], [3.0, 4.0]]), T([[7.0, 7.0]], 'float64'), (0,))",
     ('raises', TypeError)),
    ('T([[1.0, 2.0], [3.0, 4.0]]).inplace_update(T([[9.0, 9.0]]), (0,))',
     ('float32', [[9.0, 9.0], [3.0, 4.0]])),
    ('(lambda x: (ops.inplace_add(x, T([[1.0, 1.0]]), 0), x)[1])(T([[1.0, 2.0], [3.0, 4.0]]))',
     ('float32', [[1.0, 2.0], [3.0, 4.0]])),
    ('(lambda x: (ops.inplace_update(x, T([[0.0, 0.0]]), 0), x)[1])(T([[1.0, 2.0], [3.0, 4.0]]))',
     ('float32', [[1.0, 2.0], [3.0, 4.0]])),
    ('ops.deepcopy(T([1.0, 2.0]))',
     ('float32', [1.0, 2.0])),
    ("ops.deepcopy(T([1, 2], 'int64'))",
     ('int64', [1, 2])),
]


def test_inplace():
    check_table(INPLACE)


def test_row_update_gradients():
    # MindSpore 2.10 CPU returns zero gradients for inplace_add/sub/update; these are the derivatives.
    from _ops_math_oracle import T
    from mscustom import ops
    from mscustom.testing import check_grad
    x, v = T([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), T([[0.5, 0.5], [1.0, 1.0]])
    check_grad(lambda a, b: ops.inplace_add(a, b, (0, 2)) * x, x, v)
    check_grad(lambda a, b: ops.inplace_sub(a, b, (2, 2)) * x, x, v)
    check_grad(lambda a, b: ops.inplace_update(a, b, (1, 1)) * x, x, v)


def test_in_place_methods():
    # clamp_, tanh_, erfinv_, zero_ are Ascend-only in MindSpore 2.10 ("kernel Inplace... unregistered" on CPU),
    # fmin fails on CPU and accumulate_n too: the values below are MindSpore's clamp, tanh, erfinv, and np.fmin's.
    import numpy as np
    import mscustom as ms
    from _ops_math_oracle import T
    from mscustom import ops
    x = T([1.0, 5.0, -3.0])
    assert x.clamp_(-1.0, 2.0) is x and x.asnumpy().tolist() == [1.0, 2.0, -1.0]
    y = T([0.5, -1.0])
    assert ops.tanh_(y) is y
    np.testing.assert_allclose(y.asnumpy(), [0.46211716532707214, -0.7615941762924194], rtol=1e-6)
    z = T([0.5, -0.25, 0.0])
    z.erfinv_()
    np.testing.assert_allclose(z.asnumpy(), [0.4769362807273865, -0.22531205415725708, 0.0], rtol=1e-5)
    w = T([[1, 2]], "int32")
    assert w.zero_() is w and w.asnumpy().tolist() == [[0, 0]] and str(w.dtype) == "Int32"
    # the write is recorded: the gradient flows to the values before the in-place op
    def f(a):
        b = a * 2
        b.clamp_(-1.0, 2.0)
        return (b * b).sum()
    assert ms.grad(f)(T([1.0, 5.0, -3.0])).asnumpy().tolist() == [8.0, 0.0, 0.0]
    a, b = T([1.0, np.nan, 3.0, np.nan]), T([2.0, 1.0, np.nan, np.nan])
    np.testing.assert_array_equal(ops.fmin(a, b).asnumpy(), np.fmin(a.asnumpy(), b.asnumpy()))
    assert str(ops.fmin(T([1, 5], "int32"), T([2.5, 3.0])).dtype) == "Float32"
    ga, gb = ms.grad(lambda p, q: ops.fmin(p, q).sum(), grad_position=(0, 1))(T([1.0, 5.0, 3.0]), T([2.0, 1.0, 3.0]))
    assert ga.asnumpy().tolist() == [1.0, 0.0, 1.0] and gb.asnumpy().tolist() == [0.0, 1.0, 0.0]
    assert T([1.0, np.nan]).fmin(T([2.0, 0.0])).asnumpy().tolist() == [1.0, 0.0]
    assert ops.accumulate_n([T([1.0, 2.0]), T([3.0, 4.0]), T([5.0, 6.0])]).asnumpy().tolist() == [9.0, 12.0]
