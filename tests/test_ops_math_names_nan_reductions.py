"""ops.nansum, nanmean, median, nanmedian, var_mean, std_mean, aminmax: values, dtypes, errors, gradients, Tensor methods.

Expected values, dtypes and errors are MindSpore 2.10 (CPU)'s for the same expressions."""

from _ops_math_oracle import INF, NAN, check_table  # noqa: F401


NANRED = [
    ('ops.nansum(T([[1.0, NAN, 3.0], [NAN, NAN, 2.0]]))',
     ('float32', 6.0)),
    ('ops.nansum(T([[1.0, NAN, 3.0], [NAN, NAN, 2.0]]), 0)',
     ('float32', [1.0, 0.0, 5.0])),
    ('ops.nansum(T([[1.0, NAN, 3.0], [NAN, NAN, 2.0]]), axis=1, keepdims=True)',
     ('float32', [[4.0], [2.0]])),
    ('ops.nansum(T([[1.0, NAN, 3.0], [NAN, NAN, 2.0]]), (0, 1))',
     ('float32', 6.0)),
    ("ops.nansum(T([[1, 2], [3, 4]], 'int32'), 0)",
     ('int32', [4, 6])),
    ("ops.nansum(T([[1, 2], [3, 4]], 'int32'), 0, dtype=ms.float32)",
     ('float32', [4.0, 6.0])),
    ("ops.nansum(T([1.0, NAN], 'float16'))",
     ('float16', 1.0)),
    ("ops.nansum(T([True, True], 'bool'))",
     ('int64', 2)),
    ('T([[1.0, NAN], [2.0, 3.0]]).nansum(1)',
     ('float32', [1.0, 5.0])),
    ('ops.nanmean(T([[1.0, NAN, 3.0], [NAN, NAN, 2.0]]))',
     ('float32', 2.0)),
    ('ops.nanmean(T([[1.0, NAN, 3.0], [NAN, NAN, 2.0]]), 0)',
     ('float32', [1.0, NAN, 2.5])),
    ('ops.nanmean(T([[1.0, NAN, 3.0], [NAN, NAN, 2.0]]), 1, keepdims=True)',
     ('float32', [[2.0], [2.0]])),
    ("ops.nanmean(T([[1.0, 2.0]], 'float64'), dtype=ms.float32)",
     ('float32', 1.5)),
    ("ops.nanmean(T([[1, 2]], 'int32'))",
     ('raises', TypeError)),
    ('T([[1.0, NAN], [2.0, 3.0]]).nanmean(1)',
     ('float32', [1.0, 2.5])),
    ('ops.nanmedian(T([[1.0, NAN, 3.0, 4.0], [NAN, NAN, 2.0, 1.0]]))',
     ('tuple', [('float32', [3.0, 1.0]), ('int64', [2, 3])])),
    ('ops.nanmedian(T([[1.0, NAN, 3.0, 4.0], [NAN, NAN, 2.0, 1.0]]), 0)',
     ('tuple', [('float32', [1.0, NAN, 2.0, 1.0]), ('int64', [0, 0, 1, 1])])),
    ('ops.nanmedian(T([[1.0, NAN, 3.0, 4.0], [NAN, NAN, 2.0, 1.0]]), 1, True)',
     ('tuple', [('float32', [[3.0], [1.0]]), ('int64', [[2], [3]])])),
    ("ops.nanmedian(T([[5, 1, 3, 4]], 'int32'), -1)",
     ('tuple', [('int32', [3]), ('int64', [2])])),
    ('T([[1.0, NAN, 3.0, 4.0]]).nanmedian()',
     ('tuple', [('float32', [3.0]), ('int64', [2])])),
    ('ops.median(T([[1.0, 5.0, 3.0, 4.0], [2.0, 0.0, 2.0, 1.0]]))',
     ('tuple', [('float32', [3.0, 1.0]), ('int64', [2, 3])])),
    ('ops.median(T([[1.0, 5.0, 3.0, 4.0], [2.0, 0.0, 2.0, 1.0]]), 0)',
     ('tuple', [('float32', [1.0, 0.0, 2.0, 1.0]), ('int64', [0, 1, 1, 1])])),
    ('ops.median(T([[1.0, 5.0, 3.0, 4.0], [2.0, 0.0, 2.0, 1.0]]), 1, True)',
     ('tuple', [('float32', [[3.0], [1.0]]), ('int64', [[2], [3]])])),
    ('ops.median(T([[1.0, NAN, 3.0]]), 1)',
     ('tuple', [('float32', [NAN]), ('int64', [1])])),
    ("ops.median(T([[5, 1, 3, 4]], 'int32'))",
     ('tuple', [('int32', [3]), ('int64', [2])])),
    ("ops.median(T([[5, 1, 3, 4]], 'int64'), 1)",
     ('tuple', [('int64', [3]), ('int64', [2])])),
    ('T([[1.0, 5.0, 3.0]]).median()',
     ('tuple', [('float32', [3.0]), ('int64', [2])])),
    ('T([[1.0, 5.0, 3.0]]).median(axis=0)',
     ('tuple', [('float32', [1.0, 5.0, 3.0]), ('int64', [0, 0, 0])])),
    ('ops.var_mean(T([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]]))',
     ('tuple', [('float32', 6.666666030883789), ('float32', 4.0)])),
    ('ops.var_mean(T([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]]), 1)',
     ('tuple', [('float32', [1.5555554628372192, 6.222221851348877]), ('float32', [2.3333332538604736, 5.666666507720947])])),
    ('ops.var_mean(T([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]]), 0, ddof=1, keepdims=True)',
     ('tuple', [('float32', [[1.9999998807907104, 4.499999523162842, 12.5]]), ('float32', [[2.0, 3.5, 6.5]])])),
    ('ops.var_mean(T([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]]), (0, 1), ddof=True)',
     ('tuple', [('float32', 7.999999523162842), ('float32', 4.0)])),
    ("ops.var_mean(T([[1.0, 2.0]], 'float64'), 1)",
     ('tuple', [('float64', [0.25]), ('float64', [1.5])])),
    ("ops.var_mean(T([[1, 2]], 'int32'), 1)",
     ('raises', TypeError)),
    ('ops.std_mean(T([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]]))',
     ('tuple', [('float32', 2.58198881149292), ('float32', 4.0)])),
    ('ops.std_mean(T([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]]), 1, ddof=1)',
     ('tuple', [('float32', [1.5275251865386963, 3.0550503730773926]), ('float32', [2.3333332538604736, 5.666666507720947])])),
    ('ops.std_mean(T([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]]), -1, keepdims=True)',
     ('tuple', [('float32', [[1.2472190856933594], [2.4944381713867188]]), ('float32', [[2.3333332538604736], [5.666666507720947]])])),
    ('ops.aminmax(T([[1.0, 5.0, 3.0], [2.0, 0.0, 7.0]]))',
     ('tuple', [('float32', [1.0, 0.0, 3.0]), ('float32', [2.0, 5.0, 7.0])])),
    ('ops.aminmax(T([[1.0, 5.0, 3.0], [2.0, 0.0, 7.0]]), axis=1)',
     ('tuple', [('float32', [1.0, 0.0]), ('float32', [5.0, 7.0])])),
    ('ops.aminmax(T([[1.0, 5.0, 3.0], [2.0, 0.0, 7.0]]), axis=1, keepdims=True)',
     ('tuple', [('float32', [[1.0], [0.0]]), ('float32', [[5.0], [7.0]])])),
    ("ops.aminmax(T([[1, 5, 3], [2, 0, 7]], 'int32'), axis=-1)",
     ('tuple', [('int32', [1, 0]), ('int32', [5, 7])])),
    ('ops.aminmax(T([[1.0, 5.0, 3.0], [2.0, 0.0, 7.0]]), axis=None)',
     ('tuple', [('float32', 0.0), ('float32', 7.0)])),
    ('ops.aminmax(T([[1.0, 5.0, 3.0], [2.0, 0.0, 7.0]]), axis=None, keepdims=True)',
     ('tuple', [('float32', [[0.0]]), ('float32', [[7.0]])])),
    ('T([[1.0, 5.0, 3.0]]).aminmax(axis=1)',
     ('tuple', [('float32', [1.0]), ('float32', [5.0])])),
    ('grad(lambda a: ops.nansum(a))(T([1.0, NAN, 2.0]))',
     ('float32', [1.0, 0.0, 1.0])),
    ('grad(lambda a: ops.nanmean(a, 0).sum())(T([[1.0, NAN], [2.0, 3.0]]))',
     ('float32', [[0.5, 0.0], [0.5, 1.0]])),
    ('grad(lambda a: ops.median(a, 1)[0].sum())(T([[1.0, 5.0, 3.0, 4.0], [2.0, 0.0, 2.0, 1.0]]))',
     ('float32', [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])),
    ('grad(lambda a: ops.nanmedian(a, 1)[0].sum())(T([[1.0, NAN, 3.0, 4.0]]))',
     ('float32', [[0.0, 0.0, 1.0, 0.0]])),
    ('grad(lambda a: ops.var_mean(a, 1)[0].sum() + ops.var_mean(a, 1)[1].sum())(T([[1.0, 2.0, 4.0]]))',
     ('float32', [[-0.5555554628372192, 0.11111117899417877, 1.4444445371627808]])),
    ('grad(lambda a: ops.std_mean(a, 1, ddof=1)[0].sum())(T([[1.0, 2.0, 4.0]]))',
     ('float32', [[-0.4364357590675354, -0.10910892486572266, 0.5455447435379028]])),
    ('grad(lambda a: ops.aminmax(a, axis=1)[0].sum() + 2 * ops.aminmax(a, axis=1)[1].sum())(T([[1.0, 5.0, 3.0]]))',
     ('float32', [[1.0, 2.0, 0.0]])),
    ('T([[1.0, NAN], [2.0, 3.0]]).nansum(0, True)',
     ('float32', [[3.0, 3.0]])),
]


def test_nanred():
    check_table(NANRED)


def test_graph_replays_see_new_values():
    # the NaN masks are ops, not constants taken while tracing: a compiled function sees each call's NaNs
    import numpy as np
    import mscustom as ms
    from _ops_math_oracle import T
    from mscustom import ops
    for fn, a, b in [(ops.nansum, 3.0, 7.0), (ops.nanmean, 1.5, 3.5)]:
        f = ms.jit(lambda x, fn=fn: fn(x))
        assert f(T([1.0, NAN, 2.0])).asnumpy() == a and f(T([NAN, 5.0, 2.0])).asnumpy() == b
    f = ms.jit(lambda x: ops.nan_to_num(x, 0.5, 9.0, -9.0))
    f(T([1.0, NAN, INF]))
    np.testing.assert_array_equal(f(T([NAN, -INF, 2.0])).asnumpy(), [0.5, -9.0, 2.0])
