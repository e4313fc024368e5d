"""Scans, products, sort/topk, gathers, padding, interpolation, norms, statistics and boolean
reductions with MindSpore's names and defaults. Expected values come from real MindSpore 2.10 (CPU),
see ms_oracle_cases.py.
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.testing import check_grad
from ms_oracle_cases import run

T = ms.Tensor

CASES = [
    ('ops.cumsum(X, 1)',
     ('float32', (2, 3), [1.5, -0.75, -0.25, -0.75, 2.25, 1.0])),
    ('ops.cumsum(I, 0, dtype=ms.float32)',
     ('float32', (3,), [1.0, 5.0, 14.0])),
    ('ops.cumprod(X, 1)',
     ('float32', (2, 3), [1.5, -3.375, -1.6875, -0.75, -2.25, 2.8125])),
    ('ms.grad(lambda x: ops.cumprod(x, 1).sum())(X)',
     ('float32', (2, 3), [-2.375, 2.25, -3.375, 0.25, 0.1875, -2.25])),
    ('ops.tile(X, (1, 2))',
     ('float32', (2, 6), [1.5, -2.25, 0.5, 1.5, -2.25, 0.5, -0.75, 3.0, -1.25, -0.75, 3.0, -1.25])),
    ('ops.tile(T(np.array([1.0, 2.0], np.float32)), (2, 2))',
     ('float32', (2, 4), [1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0])),
    ('ops.sort(X)',
     [('float32', (2, 3), [-2.25, 0.5, 1.5, -1.25, -0.75, 3.0]), ('int32', (2, 3), [1, 2, 0, 2, 0, 1])]),
    ('ops.sort(T(np.array([3, 1, 2], np.int32)), descending=True)',
     [('int32', (3,), [3, 2, 1]), ('int32', (3,), [0, 2, 1])]),
    ('ops.topk(X, 2)',
     [('float32', (2, 2), [1.5, 0.5, 3.0, -0.75]), ('int32', (2, 2), [0, 2, 1, 0])]),
    ('ops.topk(X, 1, dim=0, largest=False)',
     [('float32', (1, 3), [-0.75, -2.25, -1.25]), ('int32', (1, 3), [1, 0, 1])]),
    ('ops.argsort(X)',
     ('int32', (2, 3), [1, 2, 0, 2, 0, 1])),
    ('ops.argsort(X, axis=0, descending=True)',
     ('int32', (2, 3), [0, 1, 0, 1, 0, 1])),
    ('ops.gather_nd(X, T(np.array([[0, 1], [1, 2]], np.int32)))',
     ('float32', (2,), [-2.25, -1.25])),
    ('ops.gather_nd(X, T(np.array([[1], [0]], np.int32)))',
     ('float32', (2, 3), [-0.75, 3.0, -1.25, 1.5, -2.25, 0.5])),
    ('ms.grad(lambda x: ops.gather_nd(x, T(np.array([[0, 1], [0, 1]], np.int32))).sum())(X)',
     ('float32', (2, 3), [0.0, 2.0, 0.0, 0.0, 0.0, 0.0])),
    ('ops.all(X > -1)',
     ('bool', (), [False])),
    ('ops.all(X > 0, axis=1)',
     ('bool', (2,), [False, False])),
    ('ops.any(X > 2, axis=0, keep_dims=True)',
     ('bool', (1, 3), [False, True, False])),
    ('ops.any(X)',
     ('bool', (), [True])),
    ('ops.count_nonzero(T(np.array([[0, 1, 2], [0, 0, 3]], np.int32)))',
     ('int32', (), [3])),
    ('ops.count_nonzero(T(np.array([[0, 1, 2], [0, 0, 3]], np.int32)), axis=1)',
     ('int32', (2,), [2, 1])),
    ('ops.flatten(T(np.ones((2, 3, 4), np.float32))).shape',
     [2, 12]),
    ('ops.flatten(T(np.ones((2, 3, 4), np.float32)), start_dim=0).shape',
     [24]),
    ('ops.pad(X, (1, 2))',
     ('float32', (2, 6), [0.0, 1.5, -2.25, 0.5, 0.0, 0.0, 0.0, -0.75, 3.0, -1.25, 0.0, 0.0])),
    ('ops.pad(X, (1, 0, 0, 1), value=9.0)',
     ('float32', (3, 4), [9.0, 1.5, -2.25, 0.5, 9.0, -0.75, 3.0, -1.25, 9.0, 9.0, 9.0, 9.0])),
    ("ops.pad(X, (2, 1), mode='reflect')",
     ('float32', (2, 6), [0.5, -2.25, 1.5, -2.25, 0.5, -2.25, -1.25, 3.0, -0.75, 3.0, -1.25, 3.0])),
    ("ops.pad(X.reshape(1, 2, 3), (1, 2), mode='replicate')",
     ('float32', (1, 2, 6), [1.5, 1.5, -2.25, 0.5, 0.5, 0.5, -0.75, -0.75, 3.0, -1.25, -1.25, -1.25])),
    ("ops.pad(T(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)), (1, 1, 1, 0), mode='reflect')",
     ('float32', (1, 1, 3, 6), [5.0, 4.0, 5.0, 6.0, 7.0, 6.0, 1.0, 0.0, 1.0, 2.0, 3.0, 2.0, 5.0, 4.0, 5.0, 6.0, 7.0, 6.0])),
    ("ms.grad(lambda x: (ops.pad(x, (2, 1), mode='reflect') * T(np.arange(12, dtype=np.float32).reshape(2, 6))).sum())(X)",
     ('float32', (2, 3), [2.0, 9.0, 4.0, 8.0, 27.0, 16.0])),
    ('ops.interpolate(T(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)), size=(4, 6))',
     ('float32', (1, 1, 4, 6), [0.0, 0.0, 1.0, 2.0, 2.0, 3.0, 0.0, 0.0, 1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 5.0, 6.0, 6.0, 7.0, 4.0, 4.0, 5.0, 6.0, 6.0, 7.0])),
    ('ops.interpolate(T(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)), scale_factor=(2.0, 2.0), recompute_scale_factor=True)',
     ('float32', (1, 1, 4, 8), [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0, 5.0, 5.0, 6.0, 6.0, 7.0, 7.0, 4.0, 4.0, 5.0, 5.0, 6.0, 6.0, 7.0, 7.0])),
    ("ops.interpolate(T(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)), size=(3, 5), mode='bilinear', align_corners=True)",
     ('float32', (1, 1, 3, 5), [0.0, 0.75, 1.5, 2.25, 3.0, 2.0, 2.75, 3.5, 4.25, 5.0, 4.0, 4.75, 5.5, 6.25, 7.0])),
    ("ops.interpolate(T(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)), size=(3, 5), mode='bilinear', align_corners=False)",
     ('float32', (1, 1, 3, 5), [0.0, 0.7, 1.5, 2.3, 3.0, 2.0, 2.7, 3.5, 4.3, 5.0, 4.0, 4.7, 5.5, 6.3, 7.0])),
    ('ms.grad(lambda x: (ops.interpolate(x, size=(4, 6)) * T(np.arange(24, dtype=np.float32).reshape(1, 1, 4, 6))).sum())(T(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)))',
     ('float32', (1, 1, 2, 4), [14.0, 10.0, 26.0, 16.0, 62.0, 34.0, 74.0, 40.0])),
    ('ops.norm(X)',
     ('float32', (), [4.322904])),
    ('ops.norm(X, dim=1)',
     ('float32', (2,), [2.75, 3.335416])),
    ('ops.norm(X, 1, dim=1)',
     ('float32', (2,), [4.25, 5.0])),
    ("ops.norm(X, float('inf'), dim=0)",
     ('float32', (3,), [1.5, 3.0, 1.25])),
    ("ops.norm(X, 'fro')",
     ('float32', (), [4.322904])),
    ('ops.logsumexp(X, 1)',
     ('float32', (2,), [1.830308, 3.037086])),
    ('ops.logsumexp(X, 0, keepdim=True)',
     ('float32', (1, 3), [1.600206, 3.005234, 0.6602239])),
    ('ms.grad(lambda x: ops.logsumexp(x, 1).sum())(X)',
     ('float32', (2, 3), [0.7187024, 0.01690223, 0.2643954, 0.02266151, 0.9635936, 0.01374491])),
    ('ops.prod(X)',
     ('float32', (), [-4.746094])),
    ('ops.prod(X, 0, keep_dims=True)',
     ('float32', (1, 3), [-1.125, -6.75, -0.625])),
    ('ops.prod(I)',
     ('int64', (), [36])),
    ('ms.grad(lambda x: ops.prod(x, 1).sum())(T(np.array([[0.0, 2.0, 3.0], [1.0, 0.0, 0.0]], np.float32)))',
     ('float32', (2, 3), [6.0, 0.0, 0.0, 0.0, 0.0, 0.0])),
    ('ops.std(X)',
     ('float32', (), [1.760386])),
    ('ops.std(X, axis=1, ddof=1, keepdims=True)',
     ('float32', (2, 1), [1.941863, 2.322893])),
    ('ops.var(X, axis=0)',
     ('float32', (3,), [1.265625, 6.890625, 0.765625])),
    ('ms.grad(lambda x: ops.var(x, axis=1).sum())(X)',
     ('float32', (2, 3), [1.055556, -1.444445, 0.3888889, -0.7222223, 1.777778, -1.055556])),
    ('ops.shape(X)',
     [2, 3]),
    ('ops.depend(X, X + 1)',
     ('float32', (2, 3), [1.5, -2.25, 0.5, -0.75, 3.0, -1.25])),
    ('ops.gather(T(np.arange(12, dtype=np.float32).reshape(2, 2, 3)), T(np.array([[0, 2], [1, 1]], np.int32)), 2, batch_dims=1)',
     ('float32', (2, 2, 2), [0.0, 2.0, 3.0, 5.0, 7.0, 7.0, 10.0, 10.0])),
    ('ms.grad(lambda x: ops.gather(x, T(np.array([[0, 2], [1, 1]], np.int32)), 1, batch_dims=1).sum())(X)',
     ('float32', (2, 3), [1.0, 0.0, 1.0, 0.0, 2.0, 0.0])),
    ('ops.transpose(T(np.array(2.0, np.float32)), ())',
     ('float32', (), [2.0])),
    ('ops.transpose(X, (1, 0))',
     ('float32', (3, 2), [1.5, -0.75, -2.25, 3.0, 0.5, -1.25])),
    ('ops.cumsum(X, 3)',
     ('err', 'ValueError')),
    ('ops.topk(X, 5)',
     ('err', 'ValueError')),
    # dtypes and edge cases
    ('ops.cumsum(T(np.array([[1, 2], [3, 4]], np.int64)), 0)',
     ('int64', (2, 2), [1, 2, 4, 6])),
    ('ops.cumsum(X, -1)',
     ('float32', (2, 3), [1.5, -0.75, -0.25, -0.75, 2.25, 1.0])),
    ('ops.cumprod(I, 0)',
     ('int64', (3,), [1, 4, 36])),
    ('ops.sort(T(np.array([3, -1, 2, -1], np.int64)))',
     [('int64', (4,), [-1, -1, 2, 3]), ('int32', (4,), [1, 3, 2, 0])]),
    ('ops.sort(T(np.array([1.0, 2.0, 1.0, 2.0], np.float32)), descending=True)',
     [('float32', (4,), [2.0, 2.0, 1.0, 1.0]), ('int32', (4,), [1, 3, 0, 2])]),
    ('ops.topk(T(np.array([1.0, 5.0, 3.0, 5.0], np.float32)), 2)',
     [('float32', (2,), [5.0, 5.0]), ('int32', (2,), [1, 3])]),
    ('ops.topk(I, 2)',
     [('int32', (2,), [9, 4]), ('int32', (2,), [2, 1])]),
    ('ops.argsort(T(np.array([3, 1, 2], np.int32)))',
     ('int32', (3,), [1, 2, 0])),
    ('ops.tile(X, (2,))',
     ('float32', (2, 6), [1.5, -2.25, 0.5, 1.5, -2.25, 0.5, -0.75, 3.0, -1.25, -0.75, 3.0, -1.25])),
    ('ops.tile(I, (2,))',
     ('int32', (6,), [1, 4, 9, 1, 4, 9])),
    ('ops.pad(I, (1, 1), value=7)',
     ('int32', (5,), [7, 1, 4, 9, 7])),
    ("ops.pad(X.reshape(1, 2, 3), (1, 2), mode='circular')",
     ('float32', (1, 2, 6), [0.5, 1.5, -2.25, 0.5, 1.5, -2.25, -1.25, -0.75, 3.0, -1.25, -0.75, 3.0])),
    ("ops.interpolate(T(np.arange(4, dtype=np.float32).reshape(1, 1, 4)), size=6, mode='linear')",
     ('float32', (1, 1, 6), [0.0, 0.5, 1.166667, 1.833333, 2.5, 3.0])),
    ('ops.interpolate(T(np.arange(4, dtype=np.float32).reshape(1, 1, 4)), size=7)',
     ('float32', (1, 1, 7), [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0])),
    ("ops.interpolate(T(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)), size=(2, 3), mode='bilinear')",
     ('float32', (1, 1, 2, 3), [2.166667, 3.5, 4.833333, 10.16667, 11.5, 12.83333])),
    ('ops.norm(X, dim=1, keepdim=True)',
     ('float32', (2, 1), [2.75, 3.335416])),
    ('ops.norm(X, 3, dim=0)',
     ('float32', (3,), [1.560063, 3.373456, 1.276117])),
    ('ops.norm(X, 1)',
     ('float32', (), [5.25])),
    ("ops.norm(X, float('inf'))",
     ('float32', (), [5.0])),
    ('ops.norm(T(np.array([0.0, 2.0, -1.0], np.float32)), 0)',
     ('float32', (), [2.0])),
    ('ops.std(X, keepdims=True)',
     ('float32', (1, 1), [1.760386])),
    ('ops.var(X, axis=(0, 1), ddof=1)',
     ('float32', (), [3.71875])),
    ('ops.logsumexp(X, (0, 1))',
     ('float32', (), [3.298803])),
    ('ops.prod(X.astype(ms.float16), 1)',
     ('float16', (2,), [-1.6875, 2.8125])),
    ('ops.count_nonzero(X, axis=0, keep_dims=True)',
     ('int32', (1, 3), [2, 2, 2])),
    ('ops.count_nonzero(X, dtype=ms.float32)',
     ('float32', (), [6.0])),
    ('ops.all(I)',
     ('bool', (), [True])),
    ('ops.any(X > 1, axis=(0, 1))',
     ('bool', (), [True])),
    ('ops.flatten(T(np.ones((2, 3), np.float32)))',
     ('float32', (2, 3), [1.0, 1.0, 1.0, 1.0, 1.0, 1.0])),
    ('ops.flatten(T(np.ones((2, 3, 4, 5), np.float32)), start_dim=1, end_dim=2).shape',
     [2, 12, 5]),
    ('ops.gather_nd(T(np.arange(6, dtype=np.int32).reshape(2, 3)), T(np.array([[1, 0]], np.int64)))',
     ('int32', (1,), [3])),
    ('ops.gather(T(np.arange(24, dtype=np.float32).reshape(2, 3, 4)), T(np.array([[0, 3], [1, 2]], np.int32)), 2, batch_dims=1)',
     ('float32', (2, 3, 2), [0.0, 3.0, 4.0, 7.0, 8.0, 11.0, 13.0, 14.0, 17.0, 18.0, 21.0, 22.0])),
    ('ops.masked_fill(I, I > 3, 0)',
     ('int32', (3,), [1, 0, 0])),
    ('ms.grad(lambda x: (ops.tile(x, (2, 1, 2)) * T(np.arange(24, dtype=np.float32).reshape(2, 2, 6))).sum())(X)',
     ('float32', (2, 3), [30.0, 34.0, 38.0, 54.0, 58.0, 62.0])),
    ('ms.grad(lambda x: (ops.sort(x, 0, True)[0] * P).sum())(X)',
     ('float32', (2, 3), [0.5, 0.25, 2.0, 3.0, 1.25, 1.75])),
    ('ms.grad(lambda x: ops.norm(x, dim=1).sum())(X)',
     ('float32', (2, 3), [0.5454546, -0.8181819, 0.1818182, -0.2248595, 0.899438, -0.3747658])),
    ("ms.grad(lambda x: (ops.interpolate(x, size=(3, 5), mode='bilinear', align_corners=False) * T(np.arange(15, dtype=np.float32).reshape(1, 1, 3, 5))).sum())(T(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)))",
     ('float32', (1, 1, 2, 4), [3.7, 5.55, 7.65, 10.6, 16.7, 17.55, 19.65, 23.6])),
    ("ops.interpolate(T(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4)), size=(3, 5), mode='bicubic')",
     ('float32', (1, 1, 3, 5), [-0.3066792, 0.3847708, 1.236445, 2.088118, 2.779568, 1.956876, 2.648326, 3.5, 4.351674, 5.043124, 4.220431, 4.911881, 5.763555, 6.615228, 7.306679])),
    ("ops.interpolate(T(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4) ** 2 / 10), size=(3, 6), mode='bicubic', align_corners=True)",
     ('float32', (1, 1, 3, 6), [0.0, 0.02876721, 0.1504422, 0.3015227, 0.6266062, 0.9, 3.4, 4.033089, 5.048281, 5.803684, 7.022284, 7.900001, 14.4, 15.63741, 17.54612, 18.90584, 21.01796, 22.5])),
    ("ops.interpolate(T(np.arange(36, dtype=np.float32).reshape(1, 1, 6, 6) ** 2 / 10), size=(4, 3), mode='bicubic')",
     ('float32', (1, 1, 4, 3), [0.5590812, 1.575365, 3.488708, 11.91912, 16.9, 22.77794, 39.6603, 48.4, 58.03677, 86.81998, 99.52428, 113.1256])),
    ("ops.interpolate(T(np.arange(30, dtype=np.float32).reshape(1, 1, 5, 6)), size=(3, 4), mode='area')",
     ('float32', (1, 1, 3, 4), [3.5, 4.5, 6.5, 7.5, 12.5, 13.5, 15.5, 16.5, 21.5, 22.5, 24.5, 25.5])),
    ("ops.interpolate(T(np.arange(7, dtype=np.float32).reshape(1, 1, 7)), size=3, mode='area')",
     ('err', 'ValueError')),
    ("ms.grad(lambda x: (ops.interpolate(x, size=(3, 4), mode='area') * T(np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4))).sum())(T(np.arange(30, dtype=np.float32).reshape(1, 1, 5, 6)))",
     ('float32', (1, 1, 5, 6), [0.0, 0.25, 0.25, 0.5, 1.25, 0.75, 0.6666667, 1.75, 1.083333, 1.5, 3.416667, 1.916667, 0.6666667, 1.5, 0.8333333, 1.0, 2.166667, 1.166667, 2.666667, 5.75, 3.083333, 3.5, 7.416667, 3.916667, 2.0, 4.25, 2.25, 2.5, 5.25, 2.75])),
    ('ops.sort(X, axis=2)',
     ('err', 'ValueError')),
    ('ops.tile(X, (-1, 1))',
     ('err', 'ValueError')),
    ('ops.cumsum(X, 1.5)',
     ('err', 'TypeError')),
    ('ops.topk(X, 0)',
     ('err', 'ValueError')),
    ('ops.pad(X, (1,))',
     ('err', 'ValueError')),
    ("ops.pad(X, (1, 1), mode='edge')",
     ('float32', (2, 5), [1.5, 1.5, -2.25, 0.5, 0.5, -0.75, -0.75, 3.0, -1.25, -1.25])),
    ("ops.pad(X, (1, 1), mode='wrap')",
     ('err', 'ValueError')),
    ('ops.masked_fill(X, I.reshape(1, 3), 0.0)',
     ('err', 'TypeError')),
    ('ops.gather_nd(X, T(np.array([[0.0, 1.0]], np.float32)))',
     ('err', 'TypeError')),
    ('ops.logsumexp(I, 0)',
     ('err', 'TypeError')),
    ('ops.std(I)',
     ('err', 'TypeError')),
    ("ops.interpolate(T(np.ones((1, 1, 2, 2), np.float32)), size=(3, 3), mode='cubic')",
     ('err', 'ValueError')),
    ('ops.interpolate(T(np.ones((1, 1, 2, 2), np.float32)), size=(3, 3), scale_factor=2.0)',
     ('err', 'ValueError')),
    ("ops.norm(X, 'nuc')",
     ('float32', (), [5.057845])),
    ('ops.norm(X, 2)',
     ('float32', (), [4.245985])),
    ('ops.norm(X, -2, dim=(1, 0), keepdim=True)',
     ('float32', (1, 1), [0.8118601])),
    ("ms.grad(lambda x: ops.norm(x, 'nuc'))(X)",
     ('float32', (2, 3), [0.8880474, -0.4179681, -0.1915058, 0.2576847, 0.7974671, -0.5455686])),
    ('ms.grad(lambda x: ops.norm(x, 2))(X)',
     ('float32', (2, 3), [0.2268496, -0.5563772, 0.1908713, -0.2793154, 0.6850563, -0.2350162])),
    ('ops.norm(X, 3)',
     ('err', 'ValueError')),
    ("ops.flatten(T(np.arange(24, dtype=np.float32).reshape(2, 3, 4)), 'F')",
     ('float32', (4, 6), [0.0, 12.0, 4.0, 16.0, 8.0, 20.0, 1.0, 13.0, 5.0, 17.0, 9.0, 21.0, 2.0, 14.0, 6.0, 18.0, 10.0, 22.0, 3.0, 15.0, 7.0, 19.0, 11.0, 23.0])),
    ('ops.flatten(T(np.arange(24, dtype=np.float32).reshape(2, 3, 4)), start_dim=-2)',
     ('float32', (2, 12), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0])),
    ('ops.flatten(T(np.float32(3)))',
     ('float32', (1,), [3.0])),
]


@pytest.mark.parametrize("expr,expected", CASES, ids=[c[0][:40] for c in CASES])
def test_matches_mindspore(expr, expected):
    run(expr, expected)


X = T(np.array([[1.5, -2.25, 0.5], [-0.75, 3.0, -1.25]]))       # float64: exact finite differences
Z = T(np.array([[0.0, 2.0, 3.0], [1.0, 0.0, 0.0], [2.0, -1.0, 0.5]]))
IMG = T(np.arange(8, dtype=np.float64).reshape(1, 1, 2, 4) / 3)


@pytest.mark.parametrize("fn,x", [
    (lambda x: ops.cumsum(x, 1), X), (lambda x: ops.cumprod(x, 1), Z), (lambda x: ops.cumprod(x, 0), Z),
    (lambda x: ops.prod(x, 1), Z), (lambda x: ops.prod(x), Z), (lambda x: ops.prod(x, (0, 1), True), X),
    (lambda x: ops.tile(x, (2, 1, 2)), X), (lambda x: ops.sort(x, 0, True)[0], X),
    (lambda x: ops.topk(x, 2, dim=0, largest=False)[0], Z),
    (lambda x: ops.gather_nd(x, T(np.array([[0, 1], [0, 1], [1, 2]], np.int64))), X),
    (lambda x: ops.gather(x, T(np.array([[0, 2], [1, 1]])), 1, batch_dims=1), X),
    (lambda x: ops.pad(x, (2, 1), mode="reflect"), X), (lambda x: ops.pad(x, (1, 2, 0, 1), mode="replicate"), X),
    (lambda x: ops.pad(x, (1, 1), mode="circular"), X), (lambda x: ops.pad(x, (1, 0, 2, 1), value=3.0), X),
    (lambda x: ops.interpolate(x, size=(3, 5)), IMG),
    (lambda x: ops.interpolate(x, size=(3, 7), mode="bilinear", align_corners=True), IMG),
    (lambda x: ops.interpolate(x, size=(5, 3), mode="bilinear"), IMG),
    (lambda x: ops.interpolate(x, size=(3, 6), mode="bicubic"), IMG),
    (lambda x: ops.interpolate(x, size=(1, 3), mode="area"), IMG),
    (lambda x: ops.norm(x), X), (lambda x: ops.norm(x, 1, dim=1), X), (lambda x: ops.norm(x, 3, dim=0), X),
    (lambda x: ops.norm(x, float("inf")), X), (lambda x: ops.logsumexp(x, 1), X),
    (lambda x: ops.norm(x, "nuc"), X), (lambda x: ops.norm(x, 2), X), (lambda x: ops.norm(x, -2), X),
    (lambda x: ops.std(x, 1, ddof=1), X), (lambda x: ops.var(x, (0, 1)), X),
    (lambda x: ops.argmax_with_value(x, 1)[1], X),
])
def test_gradients_match_finite_differences(fn, x):
    check_grad(fn, x)


def test_adjoint_ops_are_differentiable_again():
    # the gradient of a pad / gather_nd / resize is an op whose own gradient is the forward op
    idx = T(np.array([[0, 1], [0, 1], [1, 2]], np.int64))
    for f in (lambda x: ops.pad(x, (2, 1), mode="reflect"), lambda x: ops.gather_nd(x, idx),
              lambda x: ops.interpolate(x.reshape(1, 1, 2, 3), size=(3, 4), mode="bilinear")):
        w = T(np.random.default_rng(0).standard_normal(f(X).shape))
        check_grad(lambda x: ms.grad(lambda y: (f(y) * w * y.sum()).sum())(x), X)


def test_errors_name_the_op():
    x = T(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"op 'topk': k must be in \(0, 3\] \(the size of axis 1\), got 5"):
        ops.topk(x, 5)
    with pytest.raises(ValueError, match="op 'cumsum': axis 3 is out of range"):
        ops.cumsum(x, 3)
    with pytest.raises(ValueError, match="op 'pad': reflect padding \\(3, 0\\) must be less than the size"):
        ops.pad(x, (3, 0), mode="reflect")
    with pytest.raises(ValueError, match="op 'pad': mode must be one of"):
        ops.pad(x, (1, 1), mode="wrap")
    with pytest.raises(IndexError, match="op 'gather_nd': index 5 is out of range for dim 1 of size 3"):
        ops.gather_nd(x, T(np.array([[0, 5]], np.int32)))
    with pytest.raises(ValueError, match="op 'interpolate': mode must be one of"):
        ops.interpolate(x.reshape(1, 1, 2, 3), size=(2, 2), mode="cubic")
    with pytest.raises(ValueError, match="op 'interpolate': mode 'bicubic' needs a 4-D input, got 3-D"):
        ops.interpolate(x.reshape(1, 2, 3), size=2, mode="bicubic")
    with pytest.raises(ValueError, match="op 'norm': the matrix norm ord=3 is not supported"):
        ops.norm(x, 3)
    with pytest.raises(RuntimeError, match="op 'cumprod_grad' has no gradient"):     # second order: refused
        ms.grad(lambda y: ms.grad(lambda z: ops.cumprod(z, 0).sum())(y).sum())(T(np.array([1.0, 2.0])))


def test_array_ops_replay_in_graph_mode():
    @ms.jit
    def f(x):
        v, i = ops.sort(x, 1, descending=True)
        return ops.pad(ops.cumsum(v, 1), (1, 1), mode="replicate") + ops.prod(x, 1, True), i

    a = np.array([[0.5, -1.0, 2.0], [3.0, 1.5, -0.5]], np.float32)
    f(T(a))
    b = a[:, ::-1].copy()
    out, idx = f(T(b))
    v = -np.sort(-b, 1)
    np.testing.assert_allclose(out.asnumpy(), np.pad(np.cumsum(v, 1), ((0, 0), (1, 1)), mode="edge") +
                               np.prod(b, 1, keepdims=True), rtol=1e-6)
    assert idx.asnumpy().tolist() == np.argsort(-b, 1, kind="stable").tolist()
