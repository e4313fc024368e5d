"""Tensor operators and methods as in MindSpore 2.10: ``//``, ``%``, ``&``, ``|``, ``^``, ``~``, the
methods users reach for first, keyword forms, ``ms.tensor``, ``Tensor.from_numpy``, initializers,
``Parameter.value()``. Expected values come from real MindSpore 2.10 (CPU), see ms_oracle_cases.py.
"""

from math import inf, nan  # noqa: F401  (values MindSpore returns, below)

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.testing import check_grad
from ms_oracle_cases import run

T = ms.Tensor

CASES = [
    ('X // 0.5',
     ('float32', (2, 3), [3.0, -5.0, 1.0, -2.0, 6.0, -3.0])),
    ('T(np.array([-7, 7, 5], np.int32)) // T(np.array([2, -2, 3], np.int32))',
     ('int32', (3,), [-4, -4, 1])),
    ('7 // T(np.array([2, -2, 3], np.int32))',
     ('int32', (3,), [3, -4, 2])),
    ('X % 1.0',
     ('float32', (2, 3), [0.5, 0.75, 0.5, 0.25, 0.0, 0.75])),
    ('T(np.array([-7, 7, 5], np.int32)) % T(np.array([2, -2, 3], np.int32))',
     ('int32', (3,), [1, -1, 2])),
    ('7.0 % P',
     ('float32', (2, 3), [0.0, 0.75, 1.0, 1.0, 0.0, 0.0])),
    ('B & T(np.array([True, True, False]))',
     ('bool', (3,), [True, False, False])),
    ('B | T(np.array([False, True, False]))',
     ('bool', (3,), [True, True, True])),
    ('B ^ T(np.array([True, True, False]))',
     ('bool', (3,), [False, True, True])),
    ('~B',
     ('bool', (3,), [False, True, False])),
    ('I & 6',
     ('int32', (3,), [0, 4, 0])),
    ('I | 8',
     ('int32', (3,), [9, 12, 9])),
    ('I ^ 3',
     ('int32', (3,), [2, 7, 10])),
    ('~I',
     ('bool', (3,), [False, False, False])),
    ('X & X',
     ('err', 'TypeError')),
    ('X.clip(-1.0, 1.0)',
     ('float32', (2, 3), [1.0, -1.0, 0.5, -0.75, 1.0, -1.0])),
    ('X.clamp(min=0.0)',
     ('float32', (2, 3), [1.5, 0.0, 0.5, 0.0, 3.0, 0.0])),
    ('X.permute(1, 0)',
     ('float32', (3, 2), [1.5, -0.75, -2.25, 3.0, 0.5, -1.25])),
    ('X.permute((1, 0))',
     ('float32', (3, 2), [1.5, -0.75, -2.25, 3.0, 0.5, -1.25])),
    ('X.unsqueeze(1).shape',
     [2, 1, 3]),
    ('X.pow(2)',
     ('float32', (2, 3), [2.25, 5.0625, 0.25, 0.5625, 9.0, 1.5625])),
    ('X.neg()',
     ('float32', (2, 3), [-1.5, 2.25, -0.5, 0.75, -3.0, 1.25])),
    ('X.sigmoid()',
     ('float32', (2, 3), [0.8175745, 0.09534942, 0.6224594, 0.3208213, 0.9525741, 0.2227001])),
    ('X.tanh()',
     ('float32', (2, 3), [0.9051483, -0.9780262, 0.4621172, -0.635149, 0.9950557, -0.8482837])),
    ('X.softmax(-1)',
     ('float32', (2, 3), [0.7187024, 0.01690223, 0.2643954, 0.02266151, 0.9635935, 0.01374491])),
    ('X.cumsum(1)',
     ('float32', (2, 3), [1.5, -0.75, -0.25, -0.75, 2.25, 1.0])),
    ('I.cumsum(0)',
     ('int32', (3,), [1, 5, 14])),
    ('X.std()',
     ('float32', (), [1.760386])),
    ('X.std(1)',
     ('float32', (2,), [1.585525, 1.896635])),
    ('X.var()',
     ('float32', (), [3.098958])),
    ('X.var(0, ddof=1)',
     ('float32', (3,), [2.53125, 13.78125, 1.53125])),
    ('X.prod()',
     ('float32', (), [-4.746094])),
    ('X.prod(1)',
     ('float32', (2,), [-1.6875, 2.8125])),
    ('I.prod()',
     ('int64', (), [36])),
    ('X.norm()',
     ('float32', (), [4.322904])),
    ('X.floor()',
     ('float32', (2, 3), [1.0, -3.0, 0.0, -1.0, 3.0, -2.0])),
    ('T(np.array([0.5, 1.5, 2.5, -0.5, 1.26], np.float32)).round()',
     ('float32', (5,), [0.0, 2.0, 2.0, -0.0, 1.0])),
    ('X.sign()',
     ('float32', (2, 3), [1.0, -1.0, 1.0, -1.0, 1.0, -1.0])),
    ('X.tile((2, 1))',
     ('float32', (4, 3), [1.5, -2.25, 0.5, -0.75, 3.0, -1.25, 1.5, -2.25, 0.5, -0.75, 3.0, -1.25])),
    ('T(np.array([1.0, 2.0, 3.0], np.float32)).broadcast_to((2, 3))',
     ('float32', (2, 3), [1.0, 2.0, 3.0, 1.0, 2.0, 3.0])),
    ('T(np.array([1.0, 2.0, 3.0], np.float32)).expand_as(X)',
     ('float32', (2, 3), [1.0, 2.0, 3.0, 1.0, 2.0, 3.0])),
    ('X.sort()',
     [('float32', (2, 3), [-2.25, 0.5, 1.5, -1.25, -0.75, 3.0]), ('int32', (2, 3), [1, 2, 0, 2, 0, 1])]),
    ('X.sort(0, descending=True)',
     [('float32', (2, 3), [1.5, 3.0, 0.5, -0.75, -2.25, -1.25]), ('int32', (2, 3), [0, 1, 0, 1, 0, 1])]),
    ('X.topk(2)',
     [('float32', (2, 2), [1.5, 0.5, 3.0, -0.75]), ('int32', (2, 2), [0, 2, 1, 0])]),
    ('X.masked_fill(X > 0, 0.0)',
     ('float32', (2, 3), [0.0, -2.25, 0.0, -0.75, 0.0, -1.25])),
    ('X.split(2, 1)',
     [('float32', (2, 2), [1.5, -2.25, -0.75, 3.0]), ('float32', (2, 1), [0.5, -1.25])]),
    ('X.chunk(2, 1)',
     [('float32', (2, 2), [1.5, -2.25, -0.75, 3.0]), ('float32', (2, 1), [0.5, -1.25])]),
    ('X.gather(1, T(np.array([[0, 2], [1, 1]], np.int64)))',
     ('float32', (2, 2), [1.5, 0.5, 3.0, 3.0])),
    ('X.matmul(X.T)',
     ('float32', (2, 2), [7.5625, -8.5, -8.5, 11.125])),
    ('X.to(ms.float16)',
     ('float16', (2, 3), [1.5, -2.25, 0.5, -0.75, 3.0, -1.25])),
    ('X.int()',
     ('int32', (2, 3), [1, -2, 0, 0, 3, -1])),
    ('I.float()',
     ('float32', (3,), [1.0, 4.0, 9.0])),
    ('X.where(X > 0, T(np.zeros((2, 3), np.float32)))',
     ('float32', (2, 3), [1.5, 0.0, 0.5, 0.0, 3.0, 0.0])),
    ('X.dim()',
     2),
    ('X.nelement()',
     6),
    ('X.swapaxes(0, 1)',
     ('float32', (3, 2), [1.5, -0.75, -2.25, 3.0, 0.5, -1.25])),
    ('X.ravel()',
     ('float32', (6,), [1.5, -2.25, 0.5, -0.75, 3.0, -1.25])),
    ('T.from_numpy(np.array([1, 2], np.int32))',
     ('int32', (2,), [1, 2])),
    ("ms.Parameter(T(np.array([1.0, 2.0], np.float32)), name='w').value()",
     ('float32', (2,), [1.0, 2.0])),
    ('ms.tensor([1, 2, 3])',
     ('int64', (3,), [1, 2, 3])),
    ('ms.tensor([1.0, 2.0], ms.float16)',
     ('float16', (2,), [1.0, 2.0])),
    ('T(shape=(2, 3), dtype=ms.float32, init=ms.common.initializer.One())',
     ('float32', (2, 3), [1.0, 1.0, 1.0, 1.0, 1.0, 1.0])),
    ('T(shape=(2,), dtype=ms.int32, init=ms.common.initializer.Constant(3))',
     ('int32', (2,), [3, 3])),
    ('I.sum(dtype=ms.float32)',
     ('float32', (), [14.0])),
    ('X.argmax(axis=-1, keepdims=True)',
     ('int64', (2, 1), [0, 1])),
    ('X.argmax()',
     ('int64', (), [4])),
    ('X.max(1)',
     [('float32', (2,), [1.5, 3.0]), ('int64', (2,), [0, 1])]),
    ('X.min(0)',
     [('float32', (3,), [-0.75, -2.25, -1.25]), ('int64', (3,), [1, 0, 1])]),
    ('X.max()',
     ('float32', (), [3.0])),
    ('X.max(axis=1, keepdims=True)',
     ('float32', (2, 1), [1.5, 3.0])),
    ("ops.div(X, 0.5, rounding_mode='floor')",
     ('float32', (2, 3), [3.0, -5.0, 1.0, -2.0, 6.0, -3.0])),
    ("ops.div(X, 0.5, rounding_mode='trunc')",
     ('float32', (2, 3), [3.0, -4.0, 1.0, -1.0, 6.0, -2.0])),
    ("ops.div(T(np.array([-7, 7], np.int32)), 2, rounding_mode='trunc')",
     ('int32', (2,), [-3, 3])),
    ("ops.div(X, 0.5, rounding_mode='round')",
     ('err', 'ValueError')),
    ('ms.grad(lambda x: (x // 0.5).sum())(X)',
     ('float32', (2, 3), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0])),
    ('ms.grad(lambda x: (x % 1.0).sum())(X)',
     ('float32', (2, 3), [1.0, 1.0, 1.0, 1.0, 1.0, 1.0])),
    ('ms.grad(lambda x: (x.cumsum(1) * P).sum())(X)',
     ('float32', (2, 3), [3.75, 3.25, 2.0, 5.0, 2.0, 1.75])),
    ('ms.grad(lambda x: x.prod(1).sum())(X)',
     ('float32', (2, 3), [-1.125, 0.75, -3.375, -3.75, 0.9375, -2.25])),
    ('ms.grad(lambda x: x.std())(X)',
     ('float32', (2, 3), [0.1301798, -0.224856, 0.03550358, -0.08284169, 0.2721941, -0.1301798])),
    ('ms.grad(lambda x: x.norm())(X)',
     ('float32', (2, 3), [0.3469889, -0.5204834, 0.115663, -0.1734945, 0.6939779, -0.2891575])),
    ('ms.grad(lambda x: (x.tile((2, 1)) * T(np.arange(12, dtype=np.float32).reshape(4, 3))).sum())(X)',
     ('float32', (2, 3), [6.0, 8.0, 10.0, 12.0, 14.0, 16.0])),
    ('ms.grad(lambda x: (x.sort()[0] * T(np.array([1.0, 2.0, 3.0], np.float32))).sum())(X)',
     ('float32', (2, 3), [3.0, 1.0, 2.0, 2.0, 3.0, 1.0])),
    ('ms.grad(lambda x: x.topk(2)[0].sum())(X)',
     ('float32', (2, 3), [1.0, 0.0, 1.0, 1.0, 1.0, 0.0])),
    ('ms.grad(lambda x: x.masked_fill(X > 0, 0.0).sum())(X)',
     ('float32', (2, 3), [0.0, 1.0, 0.0, 1.0, 0.0, 1.0])),
    ('ms.grad(lambda x: x.gather(1, T(np.array([[0, 2], [1, 1]], np.int64))).sum())(X)',
     ('float32', (2, 3), [1.0, 0.0, 1.0, 0.0, 2.0, 0.0])),
    ('ms.grad(lambda x: x.max(1)[0].sum())(X)',
     ('float32', (2, 3), [1.0, 0.0, 0.0, 0.0, 1.0, 0.0])),
    # dtypes and edge cases
    ('X.sum(1, True)',
     ('float32', (2, 1), [-0.25, 1.0])),
    ('X.sum(dim=1, keepdim=True)',
     ('float32', (2, 1), [-0.25, 1.0])),
    ('X.mean(dim=1, keepdim=True)',
     ('float32', (2, 1), [-0.08333334, 0.3333333])),
    ('X.max(1, keepdims=True)',
     ('float32', (2, 1), [1.5, 3.0])),
    ('X.max(dim=0)',
     [('float32', (3,), [1.5, 3.0, 0.5]), ('int64', (3,), [0, 1, 0])]),
    ('X.argmin()',
     ('int32', (), [1])),
    ('X.argmax(dim=1, keepdim=True)',
     ('int64', (2, 1), [0, 1])),
    ('X.cumsum()',
     ('float32', (6,), [1.5, -0.75, -0.25, -1.0, 2.0, 0.75])),
    ('X.cumsum(axis=0)',
     ('float32', (2, 3), [1.5, -2.25, 0.5, 0.75, 0.75, -0.75])),
    ('X.prod(dim=1, keepdim=True)',
     ('float32', (2, 1), [-1.6875, 2.8125])),
    ('X.std(dim=1)',
     ('float32', (2,), [1.585525, 1.896635])),
    ('X.norm(1)',
     ('float32', (), [5.25])),
    ('X.norm(2, 1)',
     ('float32', (2,), [2.75, 3.335416])),
    ('X.tile(2)',
     ('float32', (2, 6), [1.5, -2.25, 0.5, 1.5, -2.25, 0.5, -0.75, 3.0, -1.25, -0.75, 3.0, -1.25])),
    ('X.sort(descending=True)',
     [('float32', (2, 3), [1.5, 0.5, -2.25, 3.0, -0.75, -1.25]), ('int32', (2, 3), [0, 2, 1, 1, 0, 2])]),
    ('X.topk(1, dim=0)',
     [('float32', (1, 3), [1.5, 3.0, 0.5]), ('int32', (1, 3), [0, 1, 0])]),
    ('X.topk(2, largest=False)',
     [('float32', (2, 2), [-2.25, 0.5, -1.25, -0.75]), ('int32', (2, 2), [1, 2, 2, 0])]),
    ('X.split([1, 2], 1)',
     [('float32', (2, 1), [1.5, -0.75]), ('float32', (2, 2), [-2.25, 0.5, 3.0, -1.25])]),
    ('X.split(2)',
     [('float32', (2, 3), [1.5, -2.25, 0.5, -0.75, 3.0, -1.25])]),
    ('X.chunk(3)',
     [('float32', (1, 3), [1.5, -2.25, 0.5]), ('float32', (1, 3), [-0.75, 3.0, -1.25])]),
    ('X.to(ms.int32)',
     ('int32', (2, 3), [1, -2, 0, 0, 3, -1])),
    ('X.where(X > 0, 0.0)',
     ('float32', (2, 3), [1.5, 0.0, 0.5, 0.0, 3.0, 0.0])),
    ('X.masked_fill(X > 0, T(5.0))',
     ('float32', (2, 3), [5.0, -2.25, 5.0, -0.75, 5.0, -1.25])),
    ('X.clamp(max=1)',
     ('float32', (2, 3), [1.0, -2.25, 0.5, -0.75, 1.0, -1.25])),
    ('X.unsqueeze(-1).shape',
     [2, 3, 1]),
    ('X.permute(-1, 0).shape',
     [3, 2]),
    ('X.swapaxes(-1, 0).shape',
     [3, 2]),
    ('X.pow(T(np.array(2, np.int32)))',
     ('float32', (2, 3), [2.25, 5.0625, 0.25, 0.5625, 9.0, 1.5625])),
    ('X.softmax(axis=0)',
     ('float32', (2, 3), [0.9046505, 0.005220126, 0.8519527, 0.09534946, 0.9947799, 0.1480472])),
    ('T(np.array([1, 2], np.int64)).int()',
     ('int32', (2,), [1, 2])),
    ('ms.tensor(2.5)',
     ('float32', (), [2.5])),
    ('ms.tensor(np.array([1, 2], np.int32))',
     ('int32', (2,), [1, 2])),
    ('ms.tensor([True])',
     ('bool', (1,), [True])),
    ('T.from_numpy(np.array([1.0, 2.0]))',
     ('float64', (2,), [1.0, 2.0])),
    ('T(shape=(2,), init=ms.common.initializer.One())',
     ('err', 'ValueError')),
    ('X // 0',
     ('float32', (2, 3), [inf, -inf, inf, -inf, inf, -inf])),
    ('X % 0',
     ('float32', (2, 3), [nan, nan, nan, nan, nan, nan])),
    ('T(np.array([True, False])) & 1',
     ('int64', (2,), [1, 0])),
    ('T(np.array([1, 2], np.int32)) & T(np.array([1, 3], np.int64))',
     ('int64', (2,), [1, 2])),
    ("ops.div(X, 2, rounding_mode='floor')",
     ('float32', (2, 3), [0.0, -2.0, 0.0, -1.0, 1.0, -1.0])),
    ('ops.div(T(np.array([-7, 7], np.int32)), T(np.array([2, 2], np.int32)))',
     ('float32', (2,), [-3.5, 3.5])),
    ('X.gather(5, T(np.array([[0]], np.int64)))',
     ('err', 'ValueError')),
    ('X.permute(0)',
     ('err', 'ValueError')),
    ('X.unsqueeze(4)',
     ('err', 'ValueError')),
    ('X.chunk(0)',
     ('err', 'ValueError')),
    ('X.split([1, 1], 1)',
     ('err', 'ValueError')),
    ('T.from_numpy([1, 2])',
     ('err', 'TypeError')),
    ('T(np.arange(24, dtype=np.float32).reshape(2, 3, 4)).flatten(start_dim=1)',
     ('float32', (2, 12), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0])),
    ('X.topk(k=2)',
     [('float32', (2, 2), [1.5, 0.5, 3.0, -0.75]), ('int32', (2, 2), [0, 2, 1, 0])]),
    ('X.sort(axis=0)',
     [('float32', (2, 3), [-0.75, -2.25, -1.25, 1.5, 3.0, 0.5]), ('int32', (2, 3), [1, 0, 1, 0, 1, 0])]),
    ('X.split(split_size_or_sections=2, axis=1)',
     [('float32', (2, 2), [1.5, -2.25, -0.75, 3.0]), ('float32', (2, 1), [0.5, -1.25])]),
    ('X.chunk(chunks=2, axis=1)',
     [('float32', (2, 2), [1.5, -2.25, -0.75, 3.0]), ('float32', (2, 1), [0.5, -1.25])]),
    ('X.gather(input_indices=T(np.array([0, 2])), axis=1)',
     ('float32', (2, 2), [1.5, 0.5, -0.75, -1.25])),
    ('X.gather(dim=1, index=T(np.array([[0], [2]])))',
     ('float32', (2, 1), [1.5, -1.25])),
    ('X.tile(reps=(1, 2))',
     ('float32', (2, 6), [1.5, -2.25, 0.5, 1.5, -2.25, 0.5, -0.75, 3.0, -1.25, -0.75, 3.0, -1.25])),
    ('X.cumsum(axis=1, dtype=ms.float64)',
     ('float64', (2, 3), [1.5, -0.75, -0.25, -0.75, 2.25, 1.0])),
    ('X.std(axis=0, ddof=1, keepdims=True)',
     ('float32', (1, 3), [1.59099, 3.712311, 1.237437])),
    ('X.var(axis=1, keepdims=True)',
     ('float32', (2, 1), [2.513889, 3.597223])),
    ('X.argmax(axis=0)',
     ('int64', (3,), [0, 1, 0])),
    ('X.argmin(axis=1, keepdims=True)',
     ('int32', (2, 1), [1, 2])),
    ('X.softmax(-1, dtype=ms.float64)',
     ('float64', (2, 3), [0.718702, 0.01690225, 0.2643957, 0.02266155, 0.9635935, 0.01374492])),
    ('X.clamp(T(np.float32(0.0)), T(np.float32(1.0)))',
     ('float32', (2, 3), [1.0, 0.0, 0.5, 0.0, 1.0, 0.0])),
    ('X.masked_fill(mask=X > 0, value=1.0)',
     ('float32', (2, 3), [1.0, -2.25, 1.0, -0.75, 1.0, -1.25])),
    ('X.where(condition=X > 0, y=X * 0)',
     ('float32', (2, 3), [1.5, -0.0, 0.5, -0.0, 3.0, -0.0])),
    ('X.permute(dims=(1, 0))',
     ('float32', (3, 2), [1.5, -0.75, -2.25, 3.0, 0.5, -1.25])),
    ('X.unsqueeze(dim=0).shape',
     [1, 2, 3]),
    ('X.to(dtype=ms.float16)',
     ('float16', (2, 3), [1.5, -2.25, 0.5, -0.75, 3.0, -1.25])),
    ('X.sum(axis=(0, 1), keepdims=True)',
     ('float32', (1, 1), [0.75])),
    ('X.pow(exponent=2)',
     ('float32', (2, 3), [2.25, 5.0625, 0.25, 0.5625, 9.0, 1.5625])),
    ('X.matmul(other=X.T)',
     ('float32', (2, 2), [7.5625, -8.5, -8.5, 11.125])),
]


@pytest.mark.parametrize("expr,expected", CASES, ids=[c[0][:40] for c in CASES])
def test_matches_mindspore(expr, expected):
    run(expr, expected)


X = np.array([[1.5, -2.25, 0.5], [-0.75, 3.0, -1.25]], np.float64)


@pytest.mark.parametrize("fn", [
    lambda x: x.cumsum(1), lambda x: x.prod(1), lambda x: x.std(), lambda x: x.var(0, ddof=1),
    lambda x: x.norm(), lambda x: x.tile((2, 1)), lambda x: x.sort()[0], lambda x: x.topk(2)[0],
    lambda x: x.max(1)[0], lambda x: x.min(0)[0], lambda x: x.gather(1, T(np.array([[0, 2], [1, 1]]))),
    lambda x: x.masked_fill(T(X > 0), 0.0), lambda x: x % 0.7, lambda x: x.permute(1, 0) * 2,
    lambda x: x.swapaxes(0, 1).ravel(), lambda x: x.expand_as(T(np.ones((3, 2, 3)))),
], ids=["cumsum", "prod", "std", "var", "norm", "tile", "sort", "topk", "max", "min", "gather", "masked_fill",
        "mod", "permute", "swapaxes", "expand_as"])
def test_gradients_match_finite_differences(fn):
    check_grad(fn, T(X))


def test_initializers_and_constructors():
    from mscustom.common.initializer import Constant, One
    assert T(shape=(2, 2), dtype=ms.float16, init=One()).asnumpy().tolist() == [[1, 1], [1, 1]]
    t = T(shape=(3,), dtype=ms.int32, init=Constant(3)).init_data()
    assert t.dtype == ms.int32 and t.asnumpy().tolist() == [3, 3, 3]
    with pytest.raises(ValueError, match="either input_data or init"):
        T(np.ones(2), init=One())
    a = np.array([1.0, 2.0])
    f = T.from_numpy(a)
    a[0] = 5.0                            # shares memory, keeps float64
    assert f.dtype == ms.float64 and f.asnumpy()[0] == 5.0
    with pytest.raises(TypeError, match="Tensor.from_numpy: array must be a numpy.ndarray"):
        T.from_numpy([1, 2])


def test_parameter_value_is_differentiable():
    w = ms.Parameter(T(np.array([1.0, 2.0], np.float32)), name="w")
    v = w.value()
    assert type(v) is T and v.asnumpy().tolist() == [1.0, 2.0]
    g = ms.grad(lambda x: (w.value() * x).sum(), grad_position=None, weights=[w])(T(np.array([3.0, 4.0], np.float32)))
    assert g[0].asnumpy().tolist() == [3.0, 4.0]


def test_max_overloads_and_errors():
    x = T(X.astype(np.float32))
    values, idx = x.max(1, True)
    assert values.shape == (2, 1) and idx.dtype == ms.int64 and idx.asnumpy().tolist() == [[0], [1]]
    assert x.max(axis=1).shape == (2,) and x.max(1, keepdims=True).shape == (2, 1)    # the older overload
    with pytest.raises(TypeError, match="unexpected keyword"):
        x.max(axes=1)
    with pytest.raises(TypeError, match="op 'bitwise_and': input 0 must be a bool or integer tensor, got float32"):
        x & x
    with pytest.raises(ValueError, match="op 'div': rounding_mode must be None, 'floor' or 'trunc', got 'up'"):
        ops.div(x, 2.0, rounding_mode="up")


def test_methods_replay_in_graph_mode():
    @ms.jit
    def f(x):
        v, i = x.topk(2)
        return (x // 0.5) + x.cumsum(1) * x.std(), v.sum() + x.max(1)[0].sum(), i

    x = T(X.astype(np.float32))
    first = f(x)
    again = f(T(X.astype(np.float32) * 2))
    want = f.__wrapped__(T(X.astype(np.float32) * 2)) if hasattr(f, "__wrapped__") else None
    assert first[2].asnumpy().tolist() == [[0, 2], [1, 0]]
    if want is not None:
        for a, b in zip(again, want):
            np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(again[0].asnumpy(), (X * 2 // 0.5) + np.cumsum(X * 2, 1) * np.std(X * 2), rtol=1e-5)
