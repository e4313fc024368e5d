"""Primitive classes generated from the op table for the newer ops and the layers' ops
(ArgMaxWithValue, Conv2D, MaxPool/AvgPool, BatchNorm, LayerNorm, BiasAdd, GeLU, Split, StridedSlice,
Slice, Tile, CumSum, TopK, Sort, ReduceProd, AddN, Pad, MirrorPad, ResizeNearestNeighbor, Depend,
Print ...), with MindSpore 2.10's constructor arguments. Expected values come from real MindSpore
2.10 (CPU), see ms_oracle_cases.py.
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.testing import check_grad
from ms_oracle_cases import run

T = ms.Tensor

CASES = [
    ('ops.ArgMaxWithValue(axis=1)(X)',
     [('int64', (2,), [0, 1]), ('float32', (2,), [1.5, 3.0])]),
    ('ops.ArgMinWithValue(axis=0, keep_dims=True)(X)',
     [('int64', (1, 3), [1, 0, 1]), ('float32', (1, 3), [-0.75, -2.25, -1.25])]),
    ('ops.Conv2D(2, 2)(T(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)), T(np.ones((2, 2, 2, 2), np.float32)))',
     ('float32', (1, 2, 3, 3), [84.0, 92.0, 100.0, 116.0, 124.0, 132.0, 148.0, 156.0, 164.0, 84.0, 92.0, 100.0, 116.0, 124.0, 132.0, 148.0, 156.0, 164.0])),
    ("ops.Conv2D(1, 3, pad_mode='pad', pad=1, stride=2)(T(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)), T(np.ones((1, 2, 3, 3), np.float32)))",
     ('float32', (1, 1, 2, 2), [84.0, 144.0, 198.0, 324.0])),
    ('ops.MaxPool(2, 2)(T(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)))',
     ('float32', (1, 2, 2, 2), [5.0, 7.0, 13.0, 15.0, 21.0, 23.0, 29.0, 31.0])),
    ("ops.AvgPool(2, 1, 'same')(T(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)))",
     ('float32', (1, 1, 4, 4), [2.5, 3.5, 4.5, 5.0, 6.5, 7.5, 8.5, 9.0, 10.5, 11.5, 12.5, 13.0, 12.5, 13.5, 14.5, 15.0])),
    ('ops.BatchNorm()(T(np.arange(8, dtype=np.float32).reshape(2, 2, 2, 1)), T(np.ones(2, np.float32)), T(np.zeros(2, np.float32)), T(np.array([1.0, 2.0], np.float32)), T(np.array([2.0, 4.0], np.float32)))[0]',
     ('float32', (2, 2, 2, 1), [-0.707105, 0.0, 0.0, 0.4999994, 2.121315, 2.82842, 1.999998, 2.499997])),
    ("ops.BatchNorm(is_training=True)(T(np.arange(8, dtype=np.float32).reshape(2, 2, 2, 1)), T(np.ones(2, np.float32)), T(np.zeros(2, np.float32)), ms.Parameter(T(np.array([1.0, 2.0], np.float32)), name='m'), ms.Parameter(T(np.array([2.0, 4.0], np.float32)), name='v'))[0]",
     ('float32', (2, 2, 2, 1), [-1.212677, -0.7276061, -1.212677, -0.7276061, 0.7276061, 1.212677, 0.7276061, 1.212677])),
    ('ops.LayerNorm()(X, T(np.ones(3, np.float32)), T(np.zeros(3, np.float32)))',
     [('float32', (2, 3), [0.9986178, -1.36653, 0.3679118, -0.5711872, 1.405999, -0.8348121]), ('float32', (2, 1), [-0.08333334, 0.3333333]), ('float32', (2, 1), [2.513889, 3.597222])]),
    ('ops.LayerNorm(begin_norm_axis=0, begin_params_axis=0, epsilon=1e-5)(X, T(np.ones((2, 3), np.float32)), T(np.zeros((2, 3), np.float32)))[0]',
     ('float32', (2, 3), [0.7810776, -1.349134, 0.2130211, -0.4970493, 1.633162, -0.7810776])),
    ('ops.BiasAdd()(X, T(np.array([1.0, 2.0, 3.0], np.float32)))',
     ('float32', (2, 3), [2.5, -0.25, 3.5, 0.25, 5.0, 1.75])),
    ('ops.BiasAdd()(T(np.ones((1, 2, 2, 2), np.float32)), T(np.array([1.0, 2.0], np.float32)))',
     ('float32', (1, 2, 2, 2), [2.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 3.0])),
    ('ops.GeLU()(X)',
     ('float32', (2, 3), [1.399572, -0.02720135, 0.345714, -0.1700395, 2.996363, -0.1322858])),
    ('ops.Split(1, 3)(X)',
     [('float32', (2, 1), [1.5, -0.75]), ('float32', (2, 1), [-2.25, 3.0]), ('float32', (2, 1), [0.5, -1.25])]),
    ('ops.Split(1, 2)(X)',
     ('err', 'ValueError')),
    ('ops.StridedSlice()(X, (0, 0), (2, 3), (1, 2))',
     ('float32', (2, 2), [1.5, 0.5, -0.75, -1.25])),
    ('ops.StridedSlice(shrink_axis_mask=1)(X, (1, 0), (2, 3), (1, 1))',
     ('float32', (3,), [-0.75, 3.0, -1.25])),
    ('ops.Slice()(X, (0, 1), (2, 2))',
     ('float32', (2, 2), [-2.25, 0.5, 3.0, -1.25])),
    ('ops.Slice()(X, (1, 1), (-1, -1))',
     ('float32', (1, 2), [3.0, -1.25])),
    ('ops.Tile()(X, (2, 1))',
     ('float32', (4, 3), [1.5, -2.25, 0.5, -0.75, 3.0, -1.25, 1.5, -2.25, 0.5, -0.75, 3.0, -1.25])),
    ('ops.CumSum()(X, 1)',
     ('float32', (2, 3), [1.5, -0.75, -0.25, -0.75, 2.25, 1.0])),
    ('ops.CumSum(exclusive=True, reverse=True)(X, 1)',
     ('float32', (2, 3), [-1.75, 0.5, 0.0, 1.75, -1.25, 0.0])),
    ('ops.CumProd()(X, 1)',
     ('float32', (2, 3), [1.5, -3.375, -1.6875, -0.75, -2.25, 2.8125])),
    ('ops.TopK()(X, 2)',
     [('float32', (2, 2), [1.5, 0.5, 3.0, -0.75]), ('int32', (2, 2), [0, 2, 1, 0])]),
    ('ops.Sort(axis=0, descending=True)(X)',
     [('float32', (2, 3), [1.5, 3.0, 0.5, -0.75, -2.25, -1.25]), ('int32', (2, 3), [0, 1, 0, 1, 0, 1])]),
    ('ops.ReduceProd(keep_dims=True)(X, 1)',
     ('float32', (2, 1), [-1.6875, 2.8125])),
    ('ops.AddN()([X, X, P])',
     ('float32', (2, 3), [3.5, -3.25, 3.0, 1.5, 6.25, -0.75])),
    ('ops.Pad(((1, 0), (0, 2)))(X)',
     ('float32', (3, 5), [0.0, 0.0, 0.0, 0.0, 0.0, 1.5, -2.25, 0.5, 0.0, 0.0, -0.75, 3.0, -1.25, 0.0, 0.0])),
    ('ops.ResizeNearestNeighbor((4, 6))(T(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)))',
     ('float32', (1, 1, 4, 6), [0.0, 0.0, 1.0, 2.0, 2.0, 3.0, 0.0, 0.0, 1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 5.0, 6.0, 6.0, 7.0, 4.0, 4.0, 5.0, 6.0, 6.0, 7.0])),
    ('ops.ResizeNearestNeighbor((3, 5), align_corners=True)(T(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)))',
     ('float32', (1, 1, 3, 5), [0.0, 1.0, 2.0, 2.0, 3.0, 4.0, 5.0, 6.0, 6.0, 7.0, 4.0, 5.0, 6.0, 6.0, 7.0])),
    ('ops.Depend()(X, P)',
     ('float32', (2, 3), [1.5, -2.25, 0.5, -0.75, 3.0, -1.25])),
    ('ops.Floor()(X)',
     ('float32', (2, 3), [1.0, -3.0, 0.0, -1.0, 3.0, -2.0])),
    ('ops.Ceil()(X)',
     ('float32', (2, 3), [2.0, -2.0, 1.0, -0.0, 3.0, -1.0])),
    ('ops.Round()(X)',
     ('float32', (2, 3), [2.0, -2.0, 0.0, -1.0, 3.0, -1.0])),
    ('ops.Sin()(X)',
     ('float32', (2, 3), [0.997495, -0.7780732, 0.4794255, -0.6816388, 0.14112, -0.9489846])),
    ('ops.Cos()(X)',
     ('float32', (2, 3), [0.0707372, -0.6281736, 0.8775826, 0.7316889, -0.9899925, 0.3153224])),
    ('ops.Tan()(X)',
     ('float32', (2, 3), [14.10142, 1.238628, 0.5463025, -0.9315965, -0.1425465, -3.00957])),
    ('ops.Log1p()(P)',
     ('float32', (2, 3), [0.4054651, 0.8109302, 1.098612, 1.386294, 0.2231435, 1.011601])),
    ('ops.Expm1()(X)',
     ('float32', (2, 3), [3.481689, -0.8946007, 0.6487212, -0.5276334, 19.08554, -0.7134952])),
    ('ops.Softplus()(X)',
     ('float32', (2, 3), [1.701413, 0.1002065, 0.9740769, 0.386871, 3.048588, 0.251929])),
    ('ops.Elu()(X)',
     ('float32', (2, 3), [1.5, -0.8946009, 0.5, -0.5276335, 3.0, -0.7134952])),
    ('ops.HSwish()(X)',
     ('float32', (2, 3), [1.125, -0.28125, 0.2916667, -0.28125, 3.0, -0.3645833])),
    ('ops.Mish()(X)',
     ('float32', (2, 3), [1.403378, -0.2247129, 0.3752452, -0.2764947, 2.986535, -0.3084139])),
    ('ops.SeLU()(X)',
     ('float32', (2, 3), [1.576051, -1.572797, 0.5253505, -0.927632, 3.152103, -1.254395])),
    ('ops.Erfc()(X)',
     ('float32', (2, 3), [0.03389485, 1.998537, 0.4795001, 1.711156, 2.20905e-05, 1.9229])),
    ('ops.Erf()(X)',
     ('float32', (2, 3), [0.9661052, -0.9985373, 0.5204999, -0.7111557, 0.9999779, -0.9229001])),
    ('ops.IsNan()(T(np.array([1.0, np.nan], np.float32)))',
     ('bool', (2,), [False, True])),
    ('ops.IsInf()(T(np.array([1.0, np.inf], np.float32)))',
     ('bool', (2,), [False, True])),
    ('ops.LogicalAnd()(B, T(np.array([True, True, False])))',
     ('bool', (3,), [True, False, False])),
    ('ops.LogicalOr()(B, T(np.array([False, True, False])))',
     ('bool', (3,), [True, True, True])),
    ('ops.LogicalNot()(B)',
     ('bool', (3,), [False, True, False])),
    ('ops.LogicalXor()(B, T(np.array([True, True, False])))',
     ('bool', (3,), [False, True, True])),
    ('ops.ReduceAll()(X > 0, 1)',
     ('bool', (2,), [False, False])),
    ('ops.ReduceAny(keep_dims=True)(X > 0)',
     ('bool', (1, 1), [True])),
    ('ops.GatherNd()(X, T(np.array([[0, 1], [1, 2]], np.int32)))',
     ('float32', (2,), [-2.25, -1.25])),
    ('ops.FloorDiv()(X, T(np.array(0.5, np.float32)))',
     ('float32', (2, 3), [3.0, -5.0, 1.0, -2.0, 6.0, -3.0])),
    ('ops.FloorMod()(X, T(np.array(1.0, np.float32)))',
     ('float32', (2, 3), [0.5, 0.75, 0.5, 0.25, 0.0, 0.75])),
    ('ops.Mod()(X, T(np.array(1.0, np.float32)))',
     ('float32', (2, 3), [0.5, -0.25, 0.5, -0.75, 0.0, -0.25])),
    ('ops.Log2()(P)',
     ('err', 'AttributeError')),
    ('ops.Trunc()(X)',
     ('float32', (2, 3), [1.0, -2.0, 0.0, -0.0, 3.0, -1.0])),
    ('ops.Sqrt()(I)',
     ('float32', (3,), [1.0, 2.0, 3.0])),
    ('ops.Flatten()(T(np.ones((2, 3, 4), np.float32))).shape',
     [2, 12]),
    ("ops.MirrorPad(mode='REFLECT')(X, T(np.array([[0, 0], [2, 1]], np.int64)))",
     ('float32', (2, 6), [0.5, -2.25, 1.5, -2.25, 0.5, -2.25, -1.25, 3.0, -0.75, 3.0, -1.25, 3.0])),
    ('ops.ReduceLogSumExp()(X, 1)',
     ('err', 'AttributeError')),
    ('ops.Transpose()(T(np.array(2.0, np.float32)), ())',
     ('float32', (), [2.0])),
    ('ms.grad(lambda x: ops.GeLU()(x).sum())(X)',
     ('float32', (2, 3), [1.127711, -0.05991462, 0.8673699, 0.001061738, 1.011584, -0.1224926])),
    ('ms.grad(lambda x: ops.AddN()([x, x * x]).sum())(X)',
     ('float32', (2, 3), [4.0, -3.5, 2.0, -0.5, 7.0, -1.5])),
    ('ms.grad(lambda w: ops.Conv2D(2, 2)(T(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)), w).sum())(T(np.ones((2, 2, 2, 2), np.float32)))',
     ('float32', (2, 2, 2, 2), [45.0, 54.0, 81.0, 90.0, 189.0, 198.0, 225.0, 234.0, 45.0, 54.0, 81.0, 90.0, 189.0, 198.0, 225.0, 234.0])),
    ('ms.grad(lambda x: ops.StridedSlice()(x, (0, 0), (2, 3), (1, 2)).sum())(X)',
     ('float32', (2, 3), [1.0, 0.0, 1.0, 1.0, 0.0, 1.0])),
    ('ms.grad(lambda b: (ops.BiasAdd()(X, b) * X).sum())(T(np.array([1.0, 2.0, 3.0], np.float32)))',
     ('float32', (3,), [0.75, 0.75, -0.75])),
    ('ms.grad(lambda x: (ops.LayerNorm()(x, T(np.ones(3, np.float32)), T(np.zeros(3, np.float32)))[0] * P).sum())(X)',
     ('float32', (2, 3), [-0.3737194, -0.135898, 0.5096174, 0.4196113, -0.04936594, -0.3702455])),
    ('ms.grad(lambda x: ops.ArgMaxWithValue(axis=1)(x)[1].sum())(X)',
     ('float32', (2, 3), [1.0, 0.0, 0.0, 0.0, 1.0, 0.0])),
    # dtypes and edge cases
    ('ops.CumSum()(I, 0)',
     ('int32', (3,), [1, 5, 14])),
    ('ops.ReduceAll(keep_dims=True)(X > -3, (0, 1))',
     ('bool', (1, 1), [True])),
    ('ops.Argmax()(X)',
     ('int32', (2,), [0, 1])),
    ('ops.Argmax(axis=0, output_type=ms.int64)(X)',
     ('int64', (3,), [0, 1, 0])),
    ('ops.Argmin()(X)',
     ('int32', (2,), [1, 2])),
    ('ops.Gather(batch_dims=1)(X, T(np.array([[0, 2], [1, 1]], np.int32)), 1)',
     ('float32', (2, 2), [1.5, 0.5, 3.0, 3.0])),
    ('ops.Rsqrt()(P)',
     ('float32', (2, 3), [1.414214, 0.8944272, 0.7071068, 0.5773503, 2.0, 0.755929])),
    ('ops.Reciprocal()(I)',
     ('float32', (3,), [1.0, 0.25, 0.1111111])),
    ('ops.IsFinite()(T(np.array([1.0, np.inf, np.nan], np.float32)))',
     ('bool', (3,), [True, False, False])),
    ('ops.GatherD()(X, 1, T(np.array([[0, 2], [1, 1]], np.int32)))',
     ('float32', (2, 2), [1.5, 0.5, 3.0, 3.0])),
    ('ops.BitwiseXor()(I, T(np.array([3, 3, 3], np.int32)))',
     ('int32', (3,), [2, 7, 10])),
    ("ops.MaxPool(3, 2, 'same')(T(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)))",
     ('float32', (1, 2, 2, 2), [10.0, 11.0, 14.0, 15.0, 26.0, 27.0, 30.0, 31.0])),
    ("ops.AvgPool(3, 2, 'same')(T(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)))",
     ('float32', (1, 2, 2, 2), [5.0, 6.5, 11.0, 12.5, 21.0, 22.5, 27.0, 28.5])),
    ('ops.Conv2D(2, 2, group=2)(T(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)), T(np.ones((2, 1, 2, 2), np.float32)))',
     ('float32', (1, 2, 3, 3), [10.0, 14.0, 18.0, 26.0, 30.0, 34.0, 42.0, 46.0, 50.0, 74.0, 78.0, 82.0, 90.0, 94.0, 98.0, 106.0, 110.0, 114.0])),
    ('ops.StridedSlice()(X, (1, 2), (-3, -4), (-1, -1))',
     ('float32', (2, 3), [-1.25, 3.0, -0.75, 0.5, -2.25, 1.5])),
    ('ops.StridedSlice(ellipsis_mask=1)(X, (0, 1), (1, 2), (1, 1))',
     ('float32', (2, 1), [-2.25, 3.0])),
    ('ops.StridedSlice(new_axis_mask=1)(X, (0, 0), (1, 2), (1, 1)).shape',
     [1, 2, 3]),
    ("ops.MirrorPad(mode='SYMMETRIC')(X, T(np.array([[0, 0], [2, 1]], np.int64)))",
     ('float32', (2, 6), [-2.25, 1.5, 1.5, -2.25, 0.5, 0.5, 3.0, -0.75, -0.75, 3.0, -1.25, -1.25])),
    ('ops.LayerNorm()(X, T(np.ones(3, np.float32)), T(np.zeros(3, np.float32)))[1:]',
     [('float32', (2, 1), [-0.08333334, 0.3333333]), ('float32', (2, 1), [2.513889, 3.597222])]),
    ("ops.BatchNorm(is_training=True)(T(np.arange(8, dtype=np.float32).reshape(2, 2, 2, 1)), T(np.ones(2, np.float32)), T(np.zeros(2, np.float32)), ms.Parameter(T(np.array([1.0, 2.0], np.float32)), name='m'), ms.Parameter(T(np.array([2.0, 4.0], np.float32)), name='v'))[1:]",
     [('float32', (2,), [0.0, 0.0]), ('float32', (2,), [0.0, 0.0]), ('float32', (2,), [2.5, 4.5]), ('float32', (2,), [4.25, 4.25])]),
    ('ops.Elu(alpha=1.0)(X)',
     ('float32', (2, 3), [1.5, -0.8946009, 0.5, -0.5276335, 3.0, -0.7134952])),
    ('ops.Softplus()(T(np.array([30.0, -30.0], np.float32)))',
     ('float32', (2,), [30.00001, 9.357551e-14])),
    ('ops.TopK(sorted=False)(X, 2)',
     [('float32', (2, 2), [1.5, 0.5, 3.0, -0.75]), ('int32', (2, 2), [0, 2, 1, 0])]),
    ('ops.ReduceProd()(X)',
     ('float32', (), [-4.746094])),
    ('ops.Pad(((1, 1),))(I)',
     ('int32', (5,), [0, 1, 4, 9, 0])),
    ('ops.GeLU()(I)',
     ('err', 'TypeError')),
    ('ops.Split(0, 2)(X)',
     [('float32', (1, 3), [1.5, -2.25, 0.5]), ('float32', (1, 3), [-0.75, 3.0, -1.25])]),
    ('ms.grad(lambda x: ops.Depend()(x * 2, x).sum())(X)',
     ('float32', (2, 3), [2.0, 2.0, 2.0, 2.0, 2.0, 2.0])),
    ('ms.grad(lambda x: ops.CumProd(exclusive=True, reverse=True)(x, 1).sum())(X)',
     ('float32', (2, 3), [0.0, 0.5, -1.25, -0.0, -1.25, 4.0])),
    ('ms.grad(lambda x: (ops.Slice()(x, (0, 1), (2, 2)) * P[:, :2]).sum())(X)',
     ('float32', (2, 3), [0.0, 0.5, 1.25, 0.0, 3.0, 0.25])),
    ('ms.grad(lambda x: (ops.MaxPool(2, 2)(x) * 2).sum())(T(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)))',
     ('float32', (1, 2, 4, 4), [0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 2.0])),
    ('ms.grad(lambda x: (ops.ResizeNearestNeighbor((4, 6))(x) * T(np.arange(24, dtype=np.float32).reshape(1, 1, 4, 6))).sum())(T(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)))',
     ('float32', (1, 1, 2, 4), [14.0, 10.0, 26.0, 16.0, 62.0, 34.0, 74.0, 40.0])),
    ('ops.MaskedFill()(X, X > 0, T(0.0))',
     ('float32', (2, 3), [0.0, -2.25, 0.0, -0.75, 0.0, -1.25])),
    ('ops.ResizeBilinearV2()(T(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)), (3, 5))',
     ('float32', (1, 1, 3, 5), [0.0, 0.8, 1.6, 2.4, 3.0, 2.666667, 3.466667, 4.266667, 5.066667, 5.666667, 4.0, 4.8, 5.6, 6.4, 7.0])),
    ('ops.ResizeBilinearV2(half_pixel_centers=True)(T(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)), (3, 5))',
     ('float32', (1, 1, 3, 5), [0.0, 0.7, 1.5, 2.3, 3.0, 2.0, 2.7, 3.5, 4.3, 5.0, 4.0, 4.7, 5.5, 6.3, 7.0])),
    ('ops.ResizeBilinearV2(align_corners=True)(T(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)), (3, 5))',
     ('float32', (1, 1, 3, 5), [0.0, 0.75, 1.5, 2.25, 3.0, 2.0, 2.75, 3.5, 4.25, 5.0, 4.0, 4.75, 5.5, 6.25, 7.0])),
    ('ms.grad(lambda x: (ops.ResizeBilinearV2()(x, (3, 5)) * T(np.arange(15, dtype=np.float32).reshape(1, 1, 3, 5))).sum())(T(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)))',
     ('float32', (1, 1, 2, 4), [2.266666, 4.133333, 5.999999, 9.266667, 16.33333, 18.66667, 21.0, 27.33333])),
    ('ops.LpNorm(1)(X)',
     ('float32', (2,), [2.75, 3.335416])),
    ('ops.LpNorm((0, 1), p=1, keep_dims=True)(X)',
     ('float32', (1, 1), [9.25])),
    ('ms.grad(lambda x: ops.LpNorm(0, p=3)(x).sum())(X)',
     ('float32', (2, 3), [0.9244817, -0.4448513, 0.1535179, -0.2311204, 0.7908468, -0.9594866])),
    ('ops.ReduceStd()(X)',
     [('float32', (), [1.928406]), ('float32', (), [0.125])]),
    ('ops.ReduceStd(axis=1, unbiased=False, keep_dims=True)(X)',
     [('float32', (2, 1), [1.585525, 1.896634]), ('float32', (2, 1), [-0.08333334, 0.3333333])]),
    ('ops.Conv2D(2)',
     ('err', 'TypeError')),
    ('ops.Slice()(X, (1, 0), (3, 1))',
     ('err', 'ValueError')),
    ('ops.StridedSlice()(X, (0, 0), (1,), (1, 1))',
     ('err', 'ValueError')),
    ('ops.TopK()(X, 4)',
     ('err', 'ValueError')),
    ('ops.BiasAdd()(X, T(np.ones(2, np.float32)))',
     ('err', 'ValueError')),
    ('ops.LayerNorm()(X, T(np.ones(2, np.float32)), T(np.zeros(3, np.float32)))',
     ('err', 'ValueError')),
    ('ops.AddN()([X, T(np.ones(3, np.float32))])',
     ('err', 'ValueError')),
    ("ops.MirrorPad(mode='EDGE')(X, T(np.array([[0, 0], [1, 1]], np.int64)))",
     ('err', 'ValueError')),
]


@pytest.mark.parametrize("expr,expected", CASES, ids=[c[0][:40] for c in CASES])
def test_matches_mindspore(expr, expected):
    run(expr, expected)


X = T(np.array([[1.5, -2.25, 0.5], [-0.75, 3.0, -1.25]]))
IMG = T(np.arange(32, dtype=np.float64).reshape(1, 2, 4, 4) / 7)


@pytest.mark.parametrize("fn,x", [
    (lambda x: ops.StridedSlice(begin_mask=1, shrink_axis_mask=2)(x, (1, 1), (2, 2), (1, 1)), X),
    (lambda x: ops.StridedSlice()(x, (1, 2), (-3, -4), (-1, -1)), X),
    (lambda x: ops.Slice()(x, (0, 1), (-1, 2)), X), (lambda x: ops.Split(1, 3)(x)[1], X),
    (lambda x: ops.CumSum(exclusive=True, reverse=True)(x, 1), X),
    (lambda x: ops.CumProd(exclusive=True)(x, 1), X), (lambda x: ops.CumProd(reverse=True)(x, 0), X),
    (lambda x: ops.LayerNorm(begin_norm_axis=0, begin_params_axis=1)(x, T(np.ones(3) * 2), T(np.ones(3)))[0], X),
    (lambda x: ops.BiasAdd()(X, x), T(np.array([1.0, 2.0, 3.0]))),
    (lambda x: ops.MirrorPad("SYMMETRIC")(x, T(np.array([[1, 0], [2, 3]]))), X),
    (lambda x: ops.Conv2D(3, 2, pad_mode="same", group=1)(x, T(np.ones((3, 2, 2, 2)))), IMG),
    (lambda x: ops.MaxPool(2, 2)(x), IMG), (lambda x: ops.AvgPool(3, 2, "same")(x), IMG),
    (lambda x: ops.ResizeNearestNeighbor((5, 3), align_corners=True)(x), IMG),
    (lambda x: ops.BatchNorm(is_training=True)(x, T(np.ones(2)), T(np.zeros(2)), T(np.zeros(2)), T(np.ones(2)))[0],
     IMG),
    (lambda x: ops.GeLU()(x) + ops.Elu()(x) * ops.HSwish()(x), X * 1.1),
    (lambda x: ops.ArgMinWithValue(axis=1, keep_dims=True)(x)[1], X),
])
def test_gradients_match_finite_differences(fn, x):
    check_grad(fn, x)


def test_batch_norm_updates_running_statistics_as_mindspore():
    x = T(np.arange(8, dtype=np.float32).reshape(2, 2, 2, 1))
    m = ms.Parameter(T(np.array([1.0, 2.0], np.float32)), name="m")
    v = ms.Parameter(T(np.array([2.0, 4.0], np.float32)), name="v")
    out = ops.BatchNorm(is_training=True)(x, T(np.ones(2, np.float32)), T(np.zeros(2, np.float32)), m, v)
    np.testing.assert_allclose(m.asnumpy(), [1.15, 2.25], rtol=1e-6)            # MindSpore 2.10's values
    np.testing.assert_allclose(v.asnumpy(), [2.3666668, 4.1666665], rtol=1e-6)
    np.testing.assert_allclose(out[3].asnumpy(), [2.5, 4.5])
    np.testing.assert_allclose(out[4].asnumpy(), [4.25, 4.25])
    assert out[1].asnumpy().tolist() == [0.0, 0.0]


def test_constructor_and_call_errors_name_the_primitive():
    with pytest.raises(TypeError, match=r"primitive 'Conv2D' is missing the constructor argument\(s\) \['kernel_size'\]"):
        ops.Conv2D(2)
    with pytest.raises(ValueError, match="primitive 'Conv2D': the weight must have shape \\[2, C/group, 3, 3\\]"):
        ops.Conv2D(2, 3)(T(np.ones((1, 2, 4, 4), np.float32)), T(np.ones((2, 2, 2, 2), np.float32)))
    with pytest.raises(ValueError, match="primitive 'Split': dim 1 of size 3 must be divisible by output_num = 2"):
        ops.Split(1, 2)(T(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="primitive 'Pad': paddings must hold one \\(before, after\\) pair per dim"):
        ops.Pad(((1, 0),))(T(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="primitive 'BiasAdd': bias must have shape \\[3\\]"):
        ops.BiasAdd()(T(np.ones((2, 3), np.float32)), T(np.ones(2, np.float32)))
    with pytest.raises(ValueError, match="primitive 'Slice': begin 1 and size 3 do not fit dim 0 of size 2"):
        ops.Slice()(T(np.ones((2, 3), np.float32)), (1, 0), (3, 1))
    assert "Conv2D(out_channel, kernel_size, mode=1" in ops.Conv2D.__doc__


def test_print_writes_now_and_on_every_replay(capsys):
    @ms.jit
    def f(x):
        y = x * 2
        ops.Print()("y:", y)
        return y + 1

    f(T(np.array([1.0, 2.0], np.float32)))
    f(T(np.array([3.0, 4.0], np.float32)))
    out = capsys.readouterr().out
    assert out.count("y:") == 2 and "value= [2., 4.]" in out and "value= [6., 8.]" in out     # the replay prints too


def test_primitives_replay_in_graph_mode():
    split, cumsum, topk = ops.Split(1, 3), ops.CumSum(exclusive=True), ops.TopK()

    @ms.jit
    def f(x):
        a, b, c = split(x)
        v, i = topk(cumsum(x, 1), 2)
        return ops.AddN()([a, b, c]) + v.sum(), i

    x = np.array([[1.5, -2.25, 0.5], [-0.75, 3.0, -1.25]], np.float32)
    f(T(x))
    y = x[::-1].copy()
    out, idx = f(T(y))
    cs = np.concatenate([np.zeros((2, 1), np.float32), np.cumsum(y, 1)[:, :2]], 1)
    top = -np.sort(-cs, 1)[:, :2]
    np.testing.assert_allclose(out.asnumpy(), y.sum(1, keepdims=True) + top.sum(), rtol=1e-6)
    assert idx.asnumpy().tolist() == np.argsort(-cs, 1, kind="stable")[:, :2].tolist()
