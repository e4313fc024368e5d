"""ops pooling functions with MindSpore 2.10's names (avg/max/lp/adaptive pooling in 1-D and 3-D, max unpooling):
values, dtypes, shapes and errors are MindSpore 2.10 (CPU)'s for the same call; gradients are checked against finite
differences."""

import numpy as np
import pytest

from mscustom import ops, Tensor
from mscustom.testing import check_grad

QX1 = Tensor(np.arange(14, dtype=np.float32).reshape(1, 2, 7) - 5)
QX3 = Tensor((np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(1, 2, 3, 4, 5) * 7 % 11) - 5 + np.arange(120, dtype=np.float32).reshape(1, 2, 3, 4, 5) / 100)
QX2 = Tensor((np.arange(2 * 4 * 5, dtype=np.float32).reshape(1, 2, 4, 5) * 7 % 11) - 5)
QP = Tensor(np.abs(np.arange(2 * 4 * 6, dtype=np.float32).reshape(1, 2, 4, 6) * 7 % 11 - 5) + 0.5)


class _R:
    """An expected result: values (MindSpore 2.10 CPU's, to float32 print precision), dtype, shape."""

    def __init__(self, values, dtype, shape):
        self.values, self.dtype, self.shape = values, dtype, shape

    def check(self, got, rtol):
        assert isinstance(got, Tensor), f"expected a Tensor, got {type(got).__name__}"
        assert str(got.dtype).lower() == self.dtype and tuple(got.shape) == self.shape, (got.dtype, got.shape)
        want = np.asarray(self.values, dtype=np.float64)
        np.testing.assert_allclose(np.asarray(got.asnumpy(), np.float64), want, rtol=rtol, atol=rtol)


class _Raises:
    def __init__(self, exc):
        self.exc = exc


def _check(expected, fn, rtol):
    if isinstance(expected, _Raises):
        with pytest.raises(expected.exc):
            fn()
        return
    got = fn()
    if isinstance(expected, tuple):
        assert isinstance(got, (tuple, list)) and len(got) == len(expected)
        for e, g in zip(expected, got):
            if e is None:
                assert g is None, f"expected None, got {g!r}"
            else:
                e.check(g, rtol)
    else:
        expected.check(got, rtol)


def _run_table(cases, rtol=2e-5):
    failed = []
    for text, fn, expected in cases:
        try:
            _check(expected, fn, rtol)
        except Exception as exc:  # noqa: BLE001 - collect every failing case
            failed.append(f"{text}: {type(exc).__name__}: {str(exc)[:300]}")
    assert not failed, "\n".join(failed)


POOL_CASES = [
    ('ops.avg_pool1d(QX1, 3, 2)', lambda: ops.avg_pool1d(QX1, 3, 2),
     _R([[[-4, -2, 0], [3, 5, 7]]], 'float32', (1, 2, 3))),
    ('ops.avg_pool1d(QX1, 3, 2, 1)', lambda: ops.avg_pool1d(QX1, 3, 2, 1),
     _R([[[-3, -3, -1, 0.3333333], [1.666667, 4, 6, 5]]], 'float32', (1, 2, 4))),
    ('ops.avg_pool1d(QX1, 3, 2, 1, True)', lambda: ops.avg_pool1d(QX1, 3, 2, 1, True),
     _R([[[-3, -3, -1, 0.3333333], [1.666667, 4, 6, 5]]], 'float32', (1, 2, 4))),
    ('ops.avg_pool1d(QX1, 3, 2, 1, True, False)', lambda: ops.avg_pool1d(QX1, 3, 2, 1, True, False),
     _R([[[-4.5, -3, -1, 0.5], [2.5, 4, 6, 7.5]]], 'float32', (1, 2, 4))),
    ('ops.avg_pool1d(QX1, 2, 2, 0, True)', lambda: ops.avg_pool1d(QX1, 2, 2, 0, True),
     _R([[[-4.5, -2.5, -0.5, 1], [2.5, 4.5, 6.5, 8]]], 'float32', (1, 2, 4))),
    ('ops.avg_pool1d(QX1, 4, 3, 2, True, False)', lambda: ops.avg_pool1d(QX1, 4, 3, 2, True, False),
     _R([[[-4.5, -2.5, 0], [2.5, 4.5, 7]]], 'float32', (1, 2, 3))),
    ('ops.avg_pool1d(QX1)', lambda: ops.avg_pool1d(QX1),
     _R([[[-5, -4, -3, -2, -1, 0, 1], [2, 3, 4, 5, 6, 7, 8]]], 'float32', (1, 2, 7))),
    ('ops.avg_pool1d(Tensor(np.ones((2, 7), np.float32)), 3)', lambda: ops.avg_pool1d(Tensor(np.ones((2, 7), np.float32)), 3),
     _Raises(ValueError)),
    ('ops.avg_pool3d(QX3, 2, 1)', lambda: ops.avg_pool3d(QX3, 2, 1),
     _R([[[[[0.88, -0.36, -0.225, 1.285], [0.18, 0.315, -0.9250001, 0.5849999], [-0.5199999, 0.99, -0.25, -0.1149999]], [[0.8299999, -0.41, 1.1, -0.14], [1.505, 0.2649999, 0.4, 0.535], [0.805, 0.9399999, -0.3000001, 1.21]]], [[[0.73, 0.865, -0.375, 1.135], [0.02999997, 1.54, 0.3000001, 0.435], [0.705, 0.84, 0.975, -0.265]], [[2.055, 0.8150001, 0.95, 1.085], [1.355, 1.49, 0.2500001, 1.76], [0.655, 2.165, 0.925, 1.06]]]]], 'float32', (1, 2, 2, 3, 4))),
    ('ops.avg_pool3d(QX3, 2, 2, 1, True, False)', lambda: ops.avg_pool3d(QX3, 2, 2, 1, True, False),
     _R([[[[[-5, 0.01499999, 3.035], [-1.925, 0.34, 0.6099999], [1.15, 0.6650001, -1.815]], [[1.8, -1.435, -1.165], [2.125, 0.2649999, 0.535], [-3.05, 1.965, 2.235]]], [[[-2.4, 2.615, 0.135], [0.675, 0.1900001, 0.46], [3.75, -2.235, 0.785]], [[4.4, 1.165, 1.435], [-0.775, 1.49, 1.76], [-0.45, 1.815, -0.6650001]]]]], 'float32', (1, 2, 2, 3, 3))),
    ('ops.avg_pool3d(QX3, 2, 2, 1, True, True)', lambda: ops.avg_pool3d(QX3, 2, 2, 1, True, True),
     _R([[[[[-0.625, 0.003749996, 0.75875], [-0.48125, 0.17, 0.3049999], [0.14375, 0.16625, -0.45375]], [[0.45, -0.7175, -0.5825], [1.0625, 0.2649999, 0.535], [-0.7625, 0.9825, 1.1175]]], [[[-0.3, 0.65375, 0.03375], [0.16875, 0.09500003, 0.23], [0.46875, -0.55875, 0.19625]], [[1.1, 0.5825, 0.7175], [-0.3875, 1.49, 1.76], [-0.1125, 0.9075, -0.3325]]]]], 'float32', (1, 2, 2, 3, 3))),
    ('ops.avg_pool3d(QX3, (1, 2, 2), 2, (0, 0, 1, 1, 1, 1))', lambda: ops.avg_pool3d(QX3, (1, 2, 2), 2, (0, 0, 1, 1, 1, 1)),
     _R([[[[[-1.25, 0.007499993, 1.5175], [-0.9625, 0.34, 0.6099999], [0.2875, 0.3325, -0.9075]], [[0.1, -0.04249996, -1.2825], [1.7375, 0.2399999, 0.51], [-1.1125, 0.2825, 1.7925]]], [[[-0.6, 1.3075, 0.0675], [0.3375, 0.1900001, 0.46], [0.9375, -1.1175, 0.3925]], [[0.75, 1.2575, 0.01749998], [0.2875, 0.09000006, 3.11], [-0.4625, 1.5825, 0.3425]]]]], 'float32', (1, 2, 2, 3, 3))),
    ('ops.avg_pool3d(QX3, 2, 1, divisor_override=3)', lambda: ops.avg_pool3d(QX3, 2, 1, divisor_override=3),
     _R([[[[[2.346667, -0.96, -0.5999999, 3.426666], [0.48, 0.84, -2.466667, 1.56], [-1.386666, 2.64, -0.6666667, -0.3066665]], [[2.213333, -1.093333, 2.933333, -0.3733334], [4.013333, 0.7066665, 1.066667, 1.426667], [2.146667, 2.506666, -0.8000002, 3.226667]]], [[[1.946667, 2.306667, -1, 3.026667], [0.07999992, 4.106667, 0.8000003, 1.16], [1.88, 2.24, 2.6, -0.7066667]], [[5.48, 2.173334, 2.533333, 2.893333], [3.613333, 3.973333, 0.6666668, 4.693333], [1.746667, 5.773334, 2.466667, 2.826667]]]]], 'float32', (1, 2, 2, 3, 4))),
    ('ops.avg_pool3d(QX3, (3, 2, 3), (1, 2, 2), 1, True, False)', lambda: ops.avg_pool3d(QX3, (3, 2, 3), (1, 2, 2), 1, True, False),
     _R([[[[[-0.145, 0.2866667, 1.635], [0.18, -0.305, 0.5849999], [0.5050001, 0.9366668, -0.465]], [[-0.6283333, 0.1088889, 0.235], [0.6133334, 0.1283333, 0.5599999], [0.02166673, 1.37, 0.8849999]], [[-0.1949999, -0.6800001, -1.165], [1.505, 0.5616667, 0.535], [0.455, 1.803333, 2.235]]], [[[2.455, 1.053333, 1.485], [0.02999997, 0.4616667, 0.435], [0.355, -0.1300001, -0.6150001]], [[1.971667, 1.486667, 1.001667], [0.4633333, 0.895, 1.326667], [0.7883334, 0.3033332, -0.1816668]], [[2.405, 1.92, 1.435], [1.355, 1.328333, 1.76], [0.3049999, 0.7366666, -0.6650001]]]]], 'float32', (1, 2, 3, 3, 3))),
    ('ops.max_pool3d(QX3, 2)', lambda: ops.max_pool3d(QX3, 2),
     _R([[[[[5.25, 5.03], [5.36, 4.17]]], [[[5.8, 4.83], [5.91, 4.72]]]]], 'float32', (1, 2, 1, 2, 2))),
    ('ops.max_pool3d(QX3, 2, 2, 1, 1, True, True)', lambda: ops.max_pool3d(QX3, 2, 2, 1, 1, True, True),
     (_R([[[[[-5, 2.01, 5.03], [-0.9, 4.06, 5.14], [1.15, 4.17, 0.18]], [[3.2, 3.42, 2.23], [5.25, 5.47, 4.28], [-1.65, 5.36, 5.58]]], [[[-2.4, 4.61, 3.64], [1.7, 4.72, 5.69], [3.75, -0.24, 2.78]], [[5.8, 6.02, 4.83], [5.05, 5.91, 6.13], [0.95, 5.16, 4.19]]]]], 'float32', (1, 2, 2, 3, 3)), _R([[[[[0, 1, 3], [10, 6, 14], [15, 17, 18]], [[20, 42, 23], [25, 47, 28], [35, 36, 58]]], [[[0, 1, 4], [10, 12, 9], [15, 16, 18]], [[20, 42, 23], [45, 31, 53], [35, 56, 59]]]]], 'int64', (1, 2, 2, 3, 3)),)),
    ('ops.max_pool3d(QX3, 2, 1, 0, 2)', lambda: ops.max_pool3d(QX3, 2, 1, 0, 2),
     _R([[[[[4.5, 5.03, 5.14], [5.47, 5.58, 5.47]]], [[[6.02, 6.13, 6.02], [5.05, 5.16, 5.69]]]]], 'float32', (1, 2, 1, 2, 3))),
    ('ops.max_pool3d(QX3, (3, 2, 2), (1, 1, 2), 1, 1, False, True)', lambda: ops.max_pool3d(QX3, (3, 2, 2), (1, 1, 2), 1, 1, False, True),
     (_R([[[[[3.2, 2.01, 5.03], [5.25, 4.06, 5.03], [5.25, 4.06, 5.14], [1.15, 5.36, 5.14], [1.15, 5.36, 4.39]], [[3.2, 3.42, 5.03], [5.25, 5.47, 5.03], [5.25, 5.47, 5.14], [4.5, 5.36, 5.58], [1.15, 5.36, 5.58]], [[3.2, 3.42, 2.23], [5.25, 5.47, 4.28], [5.25, 5.47, 4.28], [4.5, 5.36, 5.58], [-1.65, 5.36, 5.58]]], [[[5.8, 4.61, 4.83], [5.8, 4.61, 5.69], [1.7, 5.91, 5.69], [3.75, 5.91, 4.94], [3.75, 3.97, 2.78]], [[5.8, 6.02, 4.83], [5.8, 6.02, 5.69], [5.05, 5.91, 6.13], [3.75, 5.91, 6.13], [3.75, 5.16, 4.19]], [[5.8, 6.02, 4.83], [5.8, 6.02, 4.83], [5.05, 5.91, 6.13], [0.95, 5.91, 6.13], [0.95, 5.16, 4.19]]]]], 'float32', (1, 2, 3, 5, 3)), _R([[[[[20, 1, 3], [25, 6, 3], [25, 6, 14], [15, 36, 14], [15, 36, 39]], [[20, 42, 3], [25, 47, 3], [25, 47, 14], [50, 36, 58], [15, 36, 58]], [[20, 42, 23], [25, 47, 28], [25, 47, 28], [50, 36, 58], [35, 36, 58]]], [[[20, 1, 23], [20, 1, 9], [10, 31, 9], [15, 31, 34], [15, 37, 18]], [[20, 42, 23], [20, 42, 9], [45, 31, 53], [15, 31, 53], [15, 56, 59]], [[20, 42, 23], [20, 42, 23], [45, 31, 53], [35, 31, 53], [35, 56, 59]]]]], 'int64', (1, 2, 3, 5, 3)),)),
    ('ops.max_pool3d(QX3, 3, 2, 1, 1, True, True)', lambda: ops.max_pool3d(QX3, 3, 2, 1, 1, True, True),
     (_R([[[[[5.25, 5.03, 5.03], [5.36, 5.36, 5.14], [5.36, 5.36, 4.39]], [[5.25, 5.47, 4.28], [5.36, 5.58, 5.58], [5.36, 5.58, 5.58]]], [[[5.8, 4.83, 5.69], [5.91, 5.91, 5.69], [3.75, 3.97, 2.78]], [[5.8, 6.02, 4.83], [5.91, 6.13, 6.13], [5.16, 5.16, 4.19]]]]], 'float32', (1, 2, 2, 3, 3)), _R([[[[[25, 3, 3], [36, 36, 14], [36, 36, 39]], [[25, 47, 28], [36, 58, 58], [36, 58, 58]]], [[[20, 23, 9], [31, 31, 9], [15, 37, 18]], [[20, 42, 23], [31, 53, 53], [56, 56, 59]]]]], 'int64', (1, 2, 2, 3, 3)),)),
    ('ops.lp_pool1d(QX1, 2, 3)', lambda: ops.lp_pool1d(QX1, 2, 3),
     _R([[[7.071068, 2.236068], [5.385165, 10.48809]]], 'float32', (1, 2, 2))),
    ('ops.lp_pool1d(QX1, 1, 3, 2, True)', lambda: ops.lp_pool1d(QX1, 1, 3, 2, True),
     _R([[[-12, -6, 0], [9, 15, 21]]], 'float32', (1, 2, 3))),
    ('ops.lp_pool1d(QX1[0], 2, 2, 3, True)', lambda: ops.lp_pool1d(QX1[0], 2, 2, 3, True),
     _R([[6.403124, 2.236068, 1.414214], [3.605551, 7.81025, 11.31371]], 'float32', (2, 3))),
    ('ops.lp_pool2d(QX2, 2, 2)', lambda: ops.lp_pool2d(QX2, 2, 2),
     _R([[[[7.348469, 6.708204], [6, 4.89898]], [[6, 7.348469], [7.348469, 6]]]], 'float32', (1, 2, 2, 2))),
    ('ops.lp_pool2d(QP, 3, (2, 3), 1)', lambda: ops.lp_pool2d(QP, 3, (2, 3), 1),
     _R([[[[7.243156, 6.922617, 6.859442, 7.519948], [7.243156, 6.83634, 7.047299, 7.047299], [6.922617, 6.859442, 7.519948, 6.859442]], [[6.859442, 7.519948, 6.859442, 6.922617], [7.047299, 7.047299, 6.83634, 7.243156], [7.519948, 6.859442, 6.922617, 7.243156]]]], 'float32', (1, 2, 3, 4))),
    ('ops.lp_pool2d(QP, 1.5, 3, 2, True)', lambda: ops.lp_pool2d(QP, 1.5, 3, 2, True),
     _R([[[[15.50517, 14.96702, 15.12491], [14.61589, 15.97516, 17.64619]], [[14.96702, 14.12157, 11.99765], [15.97515, 14.61589, 15.35848]]]], 'float32', (1, 2, 2, 3))),
    ('ops.adaptive_avg_pool1d(QX1, 7)', lambda: ops.adaptive_avg_pool1d(QX1, 7),
     _R([[[-5, -4, -3, -2, -1, 0, 1], [2, 3, 4, 5, 6, 7, 8]]], 'float32', (1, 2, 7))),
    ('ops.adaptive_avg_pool1d(Tensor(np.arange(12, dtype=np.float32).reshape(1, 2, 6)), 3)', lambda: ops.adaptive_avg_pool1d(Tensor(np.arange(12, dtype=np.float32).reshape(1, 2, 6)), 3),
     _R([[[0.5, 2.5, 4.5], [6.5, 8.5, 10.5]]], 'float32', (1, 2, 3))),
    ('ops.adaptive_avg_pool1d(QX1, 3)', lambda: ops.adaptive_avg_pool1d(QX1, 3),
     _Raises(ValueError)),
    ('ops.adaptive_max_pool1d(Tensor(np.arange(12, dtype=np.float32).reshape(1, 2, 6) % 5), 2)', lambda: ops.adaptive_max_pool1d(Tensor(np.arange(12, dtype=np.float32).reshape(1, 2, 6) % 5), 2),
     _R([[[2, 4], [3, 4]]], 'float32', (1, 2, 2))),
    ('ops.adaptive_max_pool1d(QX1, 3)', lambda: ops.adaptive_max_pool1d(QX1, 3),
     _Raises(ValueError)),
    ('ops.adaptive_avg_pool3d(QX3, (2, 3, 3))', lambda: ops.adaptive_avg_pool3d(QX3, (2, 3, 3)),
     _R([[[[[0.88, 0.395, 1.285], [0.18, -0.305, 0.585], [-0.52, -0.08833331, -0.115]], [[0.83, 0.345, -0.14], [1.505, 0.5616667, 0.535], [0.805, 0.7783333, 1.21]]], [[[0.73, 0.245, 1.135], [0.02999997, 0.4616667, 0.435], [0.705, 0.6783333, -0.265]], [[2.055, 1.111667, 1.085], [1.355, 1.328333, 1.76], [0.655, 1.545, 1.06]]]]], 'float32', (1, 2, 2, 3, 3))),
    ('ops.adaptive_avg_pool3d(QX3, 2)', lambda: ops.adaptive_avg_pool3d(QX3, 2),
     _R([[[[[-0.1983334, 0.07166667], [0.235, 0.505]], [[0.6683333, 0.02166666], [0.185, 0.455]]], [[[0.5683333, 0.8383333], [1.001667, 0.355]], [[1.435, 0.7883333], [0.9516667, 1.221667]]]]], 'float32', (1, 2, 2, 2, 2))),
    ('ops.adaptive_avg_pool3d(QX3, (None, 2, 2))', lambda: ops.adaptive_avg_pool3d(QX3, (None, 2, 2)),
     _R([[[[[-0.6316667, 0.555], [-0.1983333, 0.9883333]], [[0.235, -0.4116667], [0.6683334, 0.02166664]], [[1.101667, 0.455], [-0.2983333, 0.8883333]]], [[[0.135, 1.321667], [0.5683334, -0.0783333]], [[1.001667, 0.355], [1.435, 0.7883334]], [[1.868333, 1.221667], [0.4683333, 1.655]]]]], 'float32', (1, 2, 3, 2, 2))),
    ('ops.adaptive_avg_pool3d(QX3[0], (2, 3, 4))', lambda: ops.adaptive_avg_pool3d(QX3[0], (2, 3, 4)),
     _R([[[[0.88, -0.36, -0.225, 1.285], [0.18, 0.315, -0.925, 0.585], [-0.52, 0.99, -0.25, -0.115]], [[0.83, -0.41, 1.1, -0.14], [1.505, 0.265, 0.4, 0.535], [0.805, 0.94, -0.3, 1.21]]], [[[0.73, 0.865, -0.375, 1.135], [0.02999997, 1.54, 0.3000001, 0.435], [0.705, 0.84, 0.975, -0.265]], [[2.055, 0.815, 0.95, 1.085], [1.355, 1.49, 0.2500001, 1.76], [0.655, 2.165, 0.925, 1.06]]]], 'float32', (2, 2, 3, 4))),
    ('ops.adaptive_max_pool3d(QX3, (2, 3, 3))', lambda: ops.adaptive_max_pool3d(QX3, (2, 3, 3)),
     _R([[[[[5.25, 5.03, 5.03], [5.25, 4.28, 5.14], [5.36, 5.36, 5.14]], [[5.25, 5.47, 4.28], [5.25, 5.47, 4.28], [5.36, 5.58, 5.58]]], [[[5.8, 4.83, 5.69], [5.91, 5.91, 5.69], [5.91, 5.91, 4.94]], [[5.8, 6.02, 4.83], [5.91, 6.13, 6.13], [5.91, 6.13, 6.13]]]]], 'float32', (1, 2, 2, 3, 3))),
    ('ops.adaptive_max_pool3d(QX3, 2, True)', lambda: ops.adaptive_max_pool3d(QX3, 2, True),
     (_R([[[[[5.25, 5.03], [5.36, 5.14]], [[5.47, 5.47], [5.36, 5.58]]], [[[5.8, 5.69], [5.91, 4.94]], [[6.02, 6.02], [5.91, 6.13]]]]], 'float32', (1, 2, 2, 2, 2)), _R([[[[[25, 3], [36, 14]], [[47, 47], [36, 58]]], [[[20, 9], [31, 34]], [[42, 42], [31, 53]]]]], 'int32', (1, 2, 2, 2, 2)),)),
    ('ops.adaptive_max_pool3d(QX3[0], (1, 3, 2), True)', lambda: ops.adaptive_max_pool3d(QX3[0], (1, 3, 2), True),
     (_R([[[[5.47, 5.47], [5.47, 5.47], [5.36, 5.58]]], [[[6.02, 6.02], [5.91, 6.13], [5.91, 6.13]]]], 'float32', (2, 1, 3, 2)), _R([[[[47, 47], [47, 47], [36, 58]]], [[[42, 42], [31, 53], [31, 53]]]], 'int32', (2, 1, 3, 2)),)),
    ('ops.max_unpool1d(Tensor(np.array([[[1.0, 2.0]]], np.float32)), Tensor(np.array([[[1, 3]]], np.int64)), 2)', lambda: ops.max_unpool1d(Tensor(np.array([[[1.0, 2.0]]], np.float32)), Tensor(np.array([[[1, 3]]], np.int64)), 2),
     _R([[[0, 1, 0, 2]]], 'float32', (1, 1, 4))),
    ('ops.max_unpool1d(Tensor(np.array([[[1.0, 2.0]]], np.float32)), Tensor(np.array([[[0, 4]]], np.int64)), 2, 2, 0, (1, 1, 5))', lambda: ops.max_unpool1d(Tensor(np.array([[[1.0, 2.0]]], np.float32)), Tensor(np.array([[[0, 4]]], np.int64)), 2, 2, 0, (1, 1, 5)),
     _R([[[1, 0, 0, 0, 2]]], 'float32', (1, 1, 5))),
    ('ops.max_unpool2d(Tensor(np.array([[[[1.0, 2.0], [3.0, 4.0]]]], np.float32)), Tensor(np.array([[[[1, 2], [9, 15]]]], np.int64)), 2)', lambda: ops.max_unpool2d(Tensor(np.array([[[[1.0, 2.0], [3.0, 4.0]]]], np.float32)), Tensor(np.array([[[[1, 2], [9, 15]]]], np.int64)), 2),
     _R([[[[0, 1, 2, 0], [0, 0, 0, 0], [0, 3, 0, 0], [0, 0, 0, 4]]]], 'float32', (1, 1, 4, 4))),
    ('ops.max_unpool2d(Tensor(np.array([[[1.0, 2.0], [3.0, 4.0]]], np.float32)), Tensor(np.array([[[0, 3], [5, 8]]], np.int64)), 2, 1, 0)', lambda: ops.max_unpool2d(Tensor(np.array([[[1.0, 2.0], [3.0, 4.0]]], np.float32)), Tensor(np.array([[[0, 3], [5, 8]]], np.int64)), 2, 1, 0),
     _R([[[1, 0, 0], [2, 0, 3], [0, 0, 4]]], 'float32', (1, 3, 3))),
    ('ops.max_unpool3d(*ops.max_pool3d(QX3, 2, return_indices=True), 2)', lambda: ops.max_unpool3d(*ops.max_pool3d(QX3, 2, return_indices=True), 2),
     _Raises(Exception)),
    ('ops.max_unpool3d(*ops.max_pool3d(QX3, 2, 2, 1, return_indices=True), 2, 2, 1)', lambda: ops.max_unpool3d(*ops.max_pool3d(QX3, 2, 2, 1, return_indices=True), 2, 2, 1),
     _Raises(Exception)),
    ('ops.max_unpool3d(*ops.max_pool3d(QX3, 2, return_indices=True), 2, output_size=(1, 2, 3, 4, 5))', lambda: ops.max_unpool3d(*ops.max_pool3d(QX3, 2, return_indices=True), 2, output_size=(1, 2, 3, 4, 5)),
     _R([[[[[0, 0, 0, 5.03, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 4.17, 0, 0]], [[0, 0, 0, 0, 0], [5.25, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 5.36, 0, 0, 0]], [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]], [[[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 4.72, 0, 0], [0, 0, 0, 0, 0]], [[5.8, 0, 0, 4.83, 0], [0, 0, 0, 0, 0], [0, 5.91, 0, 0, 0], [0, 0, 0, 0, 0]], [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]]]], 'float32', (1, 2, 3, 4, 5))),
]


def test_pooling():
    _run_table(POOL_CASES)


def test_pooling_gradients():
    rng = np.random.default_rng(1)
    x1 = Tensor(rng.standard_normal((1, 2, 7)))
    x3 = Tensor(rng.standard_normal((1, 1, 3, 3, 4)))
    x2 = Tensor(rng.uniform(0.5, 2.0, (1, 1, 4, 6)))
    check_grad(lambda t: ops.avg_pool1d(t, 3, 2, 1, True, False), x1)
    check_grad(lambda t: ops.avg_pool3d(t, 2, 2, 1, True, True), x3)
    check_grad(lambda t: ops.avg_pool3d(t, 2, 1, divisor_override=3), x3)
    check_grad(lambda t: ops.max_pool3d(t, 2, 2, 1, 1, True), x3)
    check_grad(lambda t: ops.lp_pool1d(t, 2, 3, 2, True), x1)
    check_grad(lambda t: ops.lp_pool2d(t, 1.5, (2, 3), 1), x2)
    check_grad(lambda t: ops.adaptive_avg_pool1d(t[..., :6], 3), x1)
    check_grad(lambda t: ops.adaptive_max_pool1d(t[..., :6], 2), x1)
    check_grad(lambda t: ops.adaptive_avg_pool3d(t, (2, 3, 3)), x3)
    check_grad(lambda t: ops.adaptive_max_pool3d(t, (2, 2, 3)), x3)
    out, idx = ops.max_pool3d(x3, 2, return_indices=True)
    check_grad(lambda t: ops.max_unpool3d(t, idx, 2, output_size=(3, 3, 4)), out)
    check_grad(lambda t: ops.max_unpool1d(t, Tensor(np.array([[[1, 3]]])), 2),
               Tensor(np.array([[[1.0, 2.0]]])))
