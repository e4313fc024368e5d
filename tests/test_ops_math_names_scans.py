"""ops.cummax, cummin, logcumsumexp, diff, diff_ext, trapz, vecdot, dist, approximate_equal: values, dtypes, errors, gradients, Tensor methods.

Expected values, dtypes and errors are MindSpore 2.10 (CPU)'s for the same expressions."""

from _ops_math_oracle import INF, NAN, check_table  # noqa: F401


SCANS = [
    ('ops.cummax(T([[1.0, 3.0, 2.0, 5.0], [4.0, 1.0, 4.0, 0.0]]), 1)',
     ('tuple', [('float32', [[1.0, 3.0, 3.0, 5.0], [4.0, 4.0, 4.0, 4.0]]), ('int64', [[0, 1, 1, 3], [0, 0, 2, 2]])])),
    ('ops.cummax(T([[1.0, 3.0, 2.0, 5.0], [4.0, 1.0, 4.0, 0.0]]), 0)',
     ('tuple', [('float32', [[1.0, 3.0, 2.0, 5.0], [4.0, 3.0, 4.0, 5.0]]), ('int64', [[0, 0, 0, 0], [1, 0, 1, 0]])])),
    ("ops.cummax(T([[1, 3, 3, 5]], 'int32'), -1)",
     ('tuple', [('int32', [[1, 3, 3, 5]]), ('int64', [[0, 1, 2, 3]])])),
    ('ops.cummax(T([1.0, NAN, 2.0]), 0)',
     ('tuple', [('float32', [1.0, NAN, NAN]), ('int64', [0, 1, 1])])),
    ('T([[1.0, 3.0, 2.0]]).cummax(1)',
     ('tuple', [('float32', [[1.0, 3.0, 3.0]]), ('int64', [[0, 1, 1]])])),
    ('ops.cummin(T([[1.0, 3.0, 0.0, 5.0], [4.0, 1.0, 1.0, 0.0]]), 1)',
     ('tuple', [('float32', [[1.0, 1.0, 0.0, 0.0], [4.0, 1.0, 1.0, 0.0]]), ('int32', [[0, 0, 2, 2], [0, 1, 2, 3]])])),
    ("ops.cummin(T([[1, 3, 0, 5]], 'int64'), 1)",
     ('tuple', [('int64', [[1, 1, 0, 0]]), ('int32', [[0, 0, 2, 2]])])),
    ('T([[4.0, 3.0, 5.0]]).cummin(1)',
     ('tuple', [('float32', [[4.0, 3.0, 3.0]]), ('int32', [[0, 1, 1]])])),
    ('ops.logcumsumexp(T([[1.0, 2.0, 3.0], [0.5, -1.0, 100.0]]), 1)',
     ('float32', [[1.0, 2.3132617473602295, 3.4076058864593506], [0.5, 0.7014132738113403, 100.0]])),
    ('ops.logcumsumexp(T([[1.0, 2.0, 3.0], [0.5, -1.0, 100.0]]), 0)',
     ('float32', [[1.0, 2.0, 3.0], [1.4740769863128662, 2.0485873222351074, 100.0]])),
    ("ops.logcumsumexp(T([1.0, 2.0], 'float64'), 0)",
     ('float64', [1.0, 2.313261687518223])),
    ("ops.logcumsumexp(T([1, 2], 'int32'), 0)",
     ('raises', TypeError)),
    ('T([1.0, 2.0]).logcumsumexp(0)',
     ('float32', [1.0, 2.3132617473602295])),
    ('ops.diff(T([1.0, 3.0, 6.0, 10.0]))',
     ('float32', [2.0, 3.0, 4.0])),
    ('ops.diff(T([[1.0, 3.0], [6.0, 10.0]]), 1, 0)',
     ('float32', [[5.0, 7.0]])),
    ('ops.diff(T([1.0, 3.0]), 1, -1, T([0.0]), T([5.0, 7.0]))',
     ('float32', [1.0, 2.0, 2.0, 2.0])),
    ("ops.diff(T([1, 3, 6], 'int32'))",
     ('int32', [2, 3])),
    ("ops.diff(T([True, False, False], 'bool'))",
     ('bool', [True, False])),
    ('T([1.0, 4.0, 9.0]).diff()',
     ('float32', [3.0, 5.0])),
    ('ops.diff_ext(T([1.0, 3.0, 6.0, 10.0]), 1, 0)',
     ('float32', [2.0, 3.0, 4.0])),
    ('ops.diff_ext(T([1.0, 3.0, 6.0]), 2, -1, T([0.0]))',
     ('float32', [1.0, 1.0])),
    ('ops.trapz(T([1.0, 2.0, 3.0]))',
     ('float32', 4.0)),
    ('ops.trapz(T([1.0, 2.0, 3.0]), dx=0.5)',
     ('float32', 2.0)),
    ('ops.trapz(T([1.0, 2.0, 3.0]), T([0.0, 1.0, 3.0]))',
     ('float32', 6.5)),
    ('ops.trapz(T([[1.0, 2.0, 3.0], [2.0, 2.0, 2.0]]), dim=0)',
     ('float32', [1.5, 2.0, 2.5])),
    ('ops.trapz(T([[1.0, 2.0, 3.0], [2.0, 2.0, 2.0]]), T([[0.0, 1.0, 3.0], [0.0, 2.0, 4.0]]))',
     ('float32', [6.5, 8.0])),
    ("ops.trapz(T([1, 2, 3], 'int32'))",
     ('float32', 4.0)),
    ('ops.vecdot(T([[1.0, 2.0], [3.0, 4.0]]), T([[1.0, 1.0], [2.0, 0.5]]))',
     ('float32', [3.0, 8.0])),
    ('ops.vecdot(T([[1.0, 2.0], [3.0, 4.0]]), T([1.0, -1.0]), axis=0)',
     ('float32', [4.0, -6.0])),
    ("ops.vecdot(T([[1, 2]], 'int32'), T([[3, 4]], 'int32'))",
     ('int64', [11])),
    ('ops.dist(T([1.0, 2.0, 3.0]), T([0.0, 0.0, 0.0]))',
     ('float32', 3.7416574954986572)),
    ('ops.dist(T([1.0, 2.0, 3.0]), T([0.0, 0.0, 0.0]), 1)',
     ('float32', 6.0)),
    ('ops.dist(T([1.0, 2.0, 3.0]), T([0.0, 0.0, 0.0]), 0)',
     ('float32', 3.0)),
    ("ops.dist(T([1, 2], 'int32'), T([0, 0], 'int32'))",
     ('raises', TypeError)),
    ('ops.approximate_equal(T([1.0, 2.0, 3.0]), T([1.0, 2.1, 3.0 + 1e-6]))',
     ('bool', [True, False, True])),
    ('ops.approximate_equal(T([1.0, 2.0, 3.0]), T([1.0, 2.1, 3.1]), 0.2)',
     ('bool', [True, True, True])),
    ("ops.approximate_equal(T([1.0], 'float16'), T([1.0], 'float16'))",
     ('bool', [True])),
    ('T([1.0, 2.0]).approximate_equal(T([1.0, 2.5]), 0.6)',
     ('bool', [True, True])),
    ('grad(lambda a: ops.logcumsumexp(a, 0).sum())(T([1.0, 2.0, 3.0]))',
     ('float32', [1.3589707612991333, 0.9757871031761169, 0.6652405261993408])),
    ('grad(lambda a: (ops.diff(a) * T([1.0, 2.0, 3.0])).sum())(T([1.0, 3.0, 6.0, 10.0]))',
     ('float32', [-1.0, -1.0, -1.0, 3.0])),
    ('grad(lambda a, b: ops.trapz(a, b), (0, 1))(T([1.0, 2.0, 3.0]), T([0.0, 1.0, 3.0]))',
     ('tuple', [('float32', [0.5, 1.5, 1.0]), ('float32', [-1.5, -1.0, 2.5])])),
    ('grad(lambda a, b: ops.vecdot(a, b).sum(), (0, 1))(T([[1.0, 2.0]]), T([[3.0, 4.0]]))',
     ('tuple', [('float32', [[3.0, 4.0]]), ('float32', [[1.0, 2.0]])])),
    ('grad(lambda a: ops.dist(a, T([0.0, 0.0])))(T([3.0, 4.0]))',
     ('float32', [0.6000000238418579, 0.800000011920929])),
    ('grad(lambda a: ops.dist(a, T([0.0, 0.0]), 1))(T([3.0, -4.0]))',
     ('float32', [1.0, -1.0])),
]


def test_scans():
    check_table(SCANS)


def test_beyond_mindspore_cpu():
    # MindSpore 2.10 CPU: diff takes only n=1, dist only an int p and float16/float32, and cummax/cummin
    # have no gradient; mscustom computes these by the documented formulas.
    import numpy as np
    from _ops_math_oracle import T
    from mscustom import ops
    from mscustom.testing import check_grad
    from mscustom import grad as ms_grad
    assert ops.diff(T([1.0, 3.0, 6.0, 10.0]), 2).asnumpy().tolist() == [1.0, 1.0]
    assert ops.diff(T([1.0, 3.0]), 0).asnumpy().tolist() == [1.0, 3.0]
    assert ops.dist(T([1.0, -2.0, 3.0]), T([0.0, 0.0, 0.0]), float("inf")).asnumpy() == 3.0
    np.testing.assert_allclose(ops.dist(T([[1.0, 2.0], [3.0, 4.0]]), T([1.0, 1.0]), 3.0).asnumpy(), 36 ** (1 / 3), 1e-6)
    assert ops.dist(T([3.0, 4.0], "float64"), T([0.0, 0.0], "float64")).asnumpy() == 5.0
    check_grad(lambda a: ops.cummax(a, 1)[0], T([[1.0, 3.0, 2.0, 5.0]]))
    check_grad(lambda a: ops.cummin(a, 0)[0], T([[1.0, 3.0], [0.0, 5.0]]))
    check_grad(lambda a: ops.logcumsumexp(a, 1), T([[1.0, -2.0, 0.5], [3.0, 3.0, -1.0]]))
    check_grad(lambda a: ops.logcumsumexp(a, 0) * T([[1.0, -2.0], [3.0, 0.5], [-1.0, 2.0]]),
               T([[1.0, -2.0], [3.0, 3.0], [0.5, -1.0]]))
    g = ms_grad(lambda a: ops.logcumsumexp(a, 0).sum())
    assert g(T([0.0, 1000.0])).asnumpy().tolist() == [1.0, 1.0]         # no overflow far apart
    assert g(T([1000.0, 0.0])).asnumpy().tolist() == [2.0, 0.0]
