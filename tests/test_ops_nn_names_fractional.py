"""ops.fractional_max_pool2d/3d (with fixed _random_samples), ops.inv and ops.is_tensor_bool_cond: values, dtypes,
shapes and errors are MindSpore 2.10 (CPU)'s for the same calls; gradients are checked against finite differences."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops, Tensor
from mscustom.testing import check_grad

FX = Tensor(np.arange(2 * 5 * 6, dtype=np.float32).reshape(1, 2, 5, 6) * 7 % 11 + np.arange(60, dtype=np.float32).reshape(1, 2, 5, 6) / 100)
FS = Tensor(np.array([[[0.3, 0.7], [0.9, 0.1]]], np.float32))
FX3 = Tensor(np.arange(1 * 1 * 4 * 5 * 6, dtype=np.float32).reshape(1, 1, 4, 5, 6) * 7 % 13 + np.arange(120, dtype=np.float32).reshape(1, 1, 4, 5, 6) / 1000)
FS3 = Tensor(np.array([[[0.3, 0.7, 0.5]]], np.float32))


from ops_nn_oracle_table import _R, _Raises, _run_table


FRACTIONAL_CASES = [
    ('ops.fractional_max_pool2d(FX, 2, (3, 3), return_indices=True, _random_samples=FS)', lambda: ops.fractional_max_pool2d(FX, 2, (3, 3), return_indices=True, _random_samples=FS),
     (_R([[[[9.06, 10.03, 6.04], [9.06, 10.14, 9.17], [10.25, 8.2, 9.28]], [[10.36, 9.39, 7.34], [10.36, 9.39, 10.47], [6.48, 9.5, 10.58]]]], 'float32', (1, 2, 3, 3)), _R([[[[6, 3, 4], [6, 14, 17], [25, 20, 28]], [[6, 9, 4], [6, 9, 17], [18, 20, 28]]]], 'int64', (1, 2, 3, 3)),)),
    ('ops.fractional_max_pool2d(FX, (2, 3), output_ratio=(0.5, 0.5), _random_samples=FS)', lambda: ops.fractional_max_pool2d(FX, (2, 3), output_ratio=(0.5, 0.5), _random_samples=FS),
     _R([[[[9.06, 10.03, 10.03], [10.25, 10.25, 9.28]], [[10.36, 9.39, 9.39], [9.5, 9.5, 10.58]]]], 'float32', (1, 2, 2, 3))),
    ('ops.fractional_max_pool2d(FX, 2, (4, 5), return_indices=True, _random_samples=FS)', lambda: ops.fractional_max_pool2d(FX, 2, (4, 5), return_indices=True, _random_samples=FS),
     (_R([[[[9.06, 7.01, 10.03, 10.03, 6.04], [9.06, 10.14, 10.14, 8.09, 9.17], [7.12, 10.14, 10.14, 6.15, 9.17], [10.25, 10.25, 8.2, 9.28, 9.28]], [[10.36, 8.31, 9.39, 9.39, 7.34], [10.36, 6.37, 9.39, 9.39, 10.47], [8.42, 9.5, 9.5, 7.45, 10.47], [6.48, 9.5, 9.5, 10.58, 10.58]]]], 'float32', (1, 2, 4, 5)), _R([[[[6, 1, 3, 3, 4], [6, 14, 14, 9, 17], [12, 14, 14, 15, 17], [25, 25, 20, 28, 28]], [[6, 1, 9, 9, 4], [6, 7, 9, 9, 17], [12, 20, 20, 15, 17], [18, 20, 20, 28, 28]]]], 'int64', (1, 2, 4, 5)),)),
    ('ops.fractional_max_pool2d(FX, 3, (2, 2), True, _random_samples=FS) if False else ops.fractional_max_pool2d(FX, 3, (2, 2), None, True, FS)', lambda: ops.fractional_max_pool2d(FX, 3, (2, 2), True, _random_samples=FS) if False else ops.fractional_max_pool2d(FX, 3, (2, 2), None, True, FS),
     (_R([[[[10.14, 10.03], [10.25, 9.28]], [[10.36, 10.47], [9.5, 10.58]]]], 'float32', (1, 2, 2, 2)), _R([[[[14, 3], [25, 28]], [[6, 17], [20, 28]]]], 'int64', (1, 2, 2, 2)),)),
    ('ops.fractional_max_pool2d(FX[0], 2, (3, 3), return_indices=True, _random_samples=FS)', lambda: ops.fractional_max_pool2d(FX[0], 2, (3, 3), return_indices=True, _random_samples=FS),
     (_R([[[9.06, 10.03, 6.04], [9.06, 10.14, 9.17], [10.25, 8.2, 9.28]], [[10.36, 9.39, 7.34], [10.36, 9.39, 10.47], [6.48, 9.5, 10.58]]], 'float32', (2, 3, 3)), _R([[[6, 3, 4], [6, 14, 17], [25, 20, 28]], [[6, 9, 4], [6, 9, 17], [18, 20, 28]]], 'int64', (2, 3, 3)),)),
    ('ops.fractional_max_pool3d(FX3, 2, (2, 3, 3), return_indices=True, _random_samples=FS3)', lambda: ops.fractional_max_pool3d(FX3, 2, (2, 3, 3), return_indices=True, _random_samples=FS3),
     (_R([[[[[12.037, 11.009, 12.011], [12.037, 11.009, 12.011], [12.024, 12.05, 11.022]], [[11.061, 12.063, 11.1], [12.102, 11.074, 12.076], [12.115, 11.087, 12.089]]]]], 'float32', (1, 1, 2, 3, 3)), _R([[[[[37, 9, 11], [37, 9, 11], [24, 50, 22]], [[61, 63, 100], [102, 74, 76], [115, 87, 89]]]]], 'int64', (1, 1, 2, 3, 3)),)),
    ('ops.fractional_max_pool3d(FX3, 2, output_ratio=(0.6, 0.6, 0.6), _random_samples=FS3)', lambda: ops.fractional_max_pool3d(FX3, 2, output_ratio=(0.6, 0.6, 0.6), _random_samples=FS3),
     _R([[[[[12.037, 11.009, 12.011], [12.037, 11.009, 12.011], [12.024, 12.05, 11.022]], [[11.061, 12.063, 11.1], [12.102, 11.074, 12.076], [12.115, 11.087, 12.089]]]]], 'float32', (1, 1, 2, 3, 3))),
    ('ops.inv(Tensor(np.array([2, 0.5, 0, -4], np.float32)))', lambda: ops.inv(Tensor(np.array([2, 0.5, 0, -4], np.float32))),
     _R([0.5, 2, np.inf, -0.25], 'float32', (4,))),
    ('ops.inv(Tensor([2, 3, 0, 1, -1], ms.int32))', lambda: ops.inv(Tensor([2, 3, 0, 1, -1], ms.int32)),
     _R([0, 0, -2147483648, 1, -1], 'int32', (5,))),
    ('Tensor(np.array([4.0], np.float16)).inv()', lambda: Tensor(np.array([4.0], np.float16)).inv(),
     _R([0.25], 'float16', (1,))),
    ('ops.is_tensor_bool_cond(Tensor(1.0))', lambda: ops.is_tensor_bool_cond(Tensor(1.0)),
     True),
    ('ops.is_tensor_bool_cond(Tensor([0]))', lambda: ops.is_tensor_bool_cond(Tensor([0])),
     True),
    ('ops.is_tensor_bool_cond(Tensor([0, 1]))', lambda: ops.is_tensor_bool_cond(Tensor([0, 1])),
     _Raises(ValueError)),
]


def test_fractional_pool_inv():
    _run_table(FRACTIONAL_CASES)
    assert ops.is_tensor_bool_cond(Tensor(1.0)) is True
    with pytest.raises(ValueError):
        ops.is_tensor_bool_cond(Tensor([0, 1]))


def test_fractional_pool_random_and_gradients():
    ms.set_seed(5)
    x = Tensor(np.random.default_rng(0).standard_normal((1, 2, 5, 6)))
    out, idx = ops.fractional_max_pool2d(x, 2, (3, 4), return_indices=True)
    assert out.shape == (1, 2, 3, 4) and idx.dtype == ms.int64
    np.testing.assert_array_equal(np.take_along_axis(x.asnumpy().reshape(1, 2, -1), idx.asnumpy().reshape(1, 2, -1),
                                                     2).reshape(out.shape), out.asnumpy())
    smp = Tensor(np.full((1, 2, 2), 0.4))
    check_grad(lambda t: ops.fractional_max_pool2d(t, 2, (3, 4), _random_samples=smp), x)
    check_grad(ops.inv, Tensor(np.array([2.0, -0.5, 3.0])))
