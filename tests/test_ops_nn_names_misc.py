"""ops nn functions with MindSpore 2.10's names (distances, bias_add, bidense, lrn, masks, clipping, padding, top-k,
boxes, sampling grids, crops): values, dtypes, shapes and errors are MindSpore 2.10 (CPU)'s for the same call;
gradients are checked against finite differences."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops, Tensor
from mscustom.testing import check_grad

MX = Tensor(np.array([[0.3, -1.2, 2.0], [1.0, 0.5, -0.4]], np.float32))
MY = Tensor(np.array([[0.1, -0.2, 1.0], [1.5, 0.2, 0.4]], np.float32))
MX4 = Tensor(np.arange(2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4) % 7 - 3)
MR = Tensor(np.array([[0.0, 1.0], [2.0, -1.0], [0.5, 0.5], [3.0, 2.0]], np.float32))
BA = Tensor(np.array([[0, 0, 4, 4], [1, 1, 3, 5], [2, 3, 6, 9]], np.float32))
BD = Tensor(np.array([[0.1, 0.2, 0.1, -0.2], [-0.3, 0.1, 0.5, 0.0], [0.0, 0.0, -1.0, 2.0]], np.float32))
BG = Tensor(np.array([[1, 1, 5, 5], [0, 0, 2, 2], [2, 2, 4, 4]], np.float32))
GX = Tensor(np.arange(2 * 2 * 3 * 4, dtype=np.float32).reshape(2, 2, 3, 4))
GG = Tensor(np.array([[[[-1, -1], [0.5, 0.2]], [[1.2, 0.3], [0, 0]]], [[[0.3, -0.7], [-1.1, 0.9]], [[0.9, 0.9], [-0.25, 0.5]]]], np.float32))
GG2 = Tensor(np.array([[[[-2.3, 0.4], [1.7, -1.4]], [[2.9, 0.3], [-0.6, 3.2]]], [[[0.3, -0.7], [-1.1, 0.9]], [[0.9, 0.9], [-0.25, 0.5]]]], np.float32))
IM = Tensor(np.arange(2 * 4 * 5 * 2, dtype=np.float32).reshape(2, 4, 5, 2))


from ops_nn_oracle_table import _R, _Raises, _run_table


MISC_CASES = [
    ('ops.cosine_similarity(MX, MY)', lambda: ops.cosine_similarity(MX, MY),
     _R([0.9420385, 0.7747648], 'float32', (2,))),
    ('ops.cosine_similarity(MX, MY, 0)', lambda: ops.cosine_similarity(MX, MY, 0),
     _R([0.9748189, 0.924678, 0.8376107], 'float32', (3,))),
    ('ops.cosine_similarity(MX, MY * 0, 1)', lambda: ops.cosine_similarity(MX, MY * 0, 1),
     _R([0, 0], 'float32', (2,))),
    ('ops.cosine_similarity(MX, MY[:1], -1, 0.5)', lambda: ops.cosine_similarity(MX, MY[:1], -1, 0.5),
     _R([0.9420385, -0.3287425], 'float32', (2,))),
    ('ops.pdist(MR)', lambda: ops.pdist(MR),
     _R([2.828427, 0.7071068, 3.162278, 2.12132, 3.162278, 2.915476], 'float32', (6,))),
    ('ops.pdist(MR, 1.0)', lambda: ops.pdist(MR, 1.0),
     _R([4, 1, 4, 3, 4, 4], 'float32', (6,))),
    ('ops.pdist(MR, 3.0)', lambda: ops.pdist(MR, 3.0),
     _R([2.519842, 0.6299605, 3.036589, 1.889882, 3.036589, 2.668402], 'float32', (6,))),
    ('ops.pdist(MR, 0.0)', lambda: ops.pdist(MR, 0.0),
     _R([2, 2, 2, 2, 2, 2], 'float32', (6,))),
    ("ops.pdist(MR, float('inf'))", lambda: ops.pdist(MR, float('inf')),
     _R([2, 0.5, 3, 1.5, 3, 2.5], 'float32', (6,))),
    ('ops.pdist(Tensor(np.stack([MR.asnumpy(), MR.asnumpy() * 2])))', lambda: ops.pdist(Tensor(np.stack([MR.asnumpy(), MR.asnumpy() * 2]))),
     _Raises(ValueError)),
    ('ops.bias_add(MX, Tensor(np.array([1.0, 2.0, 3.0], np.float32)))', lambda: ops.bias_add(MX, Tensor(np.array([1.0, 2.0, 3.0], np.float32))),
     _R([[1.3, 0.8, 5], [2, 2.5, 2.6]], 'float32', (2, 3))),
    ('ops.bias_add(MX4, Tensor(np.array([1.0, -2.0, 3.0], np.float32)))', lambda: ops.bias_add(MX4, Tensor(np.array([1.0, -2.0, 3.0], np.float32))),
     _R([[[[-2, -1, 0, 1], [2, 3, 4, -2], [-1, 0, 1, 2], [3, 4, -2, -1]], [[-3, -2, -1, 0], [1, -5, -4, -3], [-2, -1, 0, 1], [-5, -4, -3, -2]], [[4, 5, 6, 0], [1, 2, 3, 4], [5, 6, 0, 1], [2, 3, 4, 5]]], [[[4, -2, -1, 0], [1, 2, 3, 4], [-2, -1, 0, 1], [2, 3, 4, -2]], [[-4, -3, -2, -1], [0, 1, -5, -4], [-3, -2, -1, 0], [1, -5, -4, -3]], [[3, 4, 5, 6], [0, 1, 2, 3], [4, 5, 6, 0], [1, 2, 3, 4]]]], 'float32', (2, 3, 4, 4))),
    ('ops.bias_add(MX, Tensor(np.array([1.0, 2.0], np.float32)))', lambda: ops.bias_add(MX, Tensor(np.array([1.0, 2.0], np.float32))),
     _Raises(ValueError)),
    ('ops.bidense(MX, MY, Tensor(np.arange(36, dtype=np.float32).reshape(4, 3, 3) / 10 - 1))', lambda: ops.bidense(MX, MY, Tensor(np.arange(36, dtype=np.float32).reshape(4, 3, 3) / 10 - 1)),
     _R([[-0.03599995, 0.8550001, 1.746, 2.637], [-2.389, -0.31, 1.769, 3.848]], 'float32', (2, 4))),
    ('ops.bidense(MX, MY[:, :2], Tensor(np.arange(12, dtype=np.float32).reshape(2, 3, 2) / 10 - 0.5), Tensor(np.array([1.0, -1.0], np.float32)))', lambda: ops.bidense(MX, MY[:, :2], Tensor(np.arange(12, dtype=np.float32).reshape(2, 3, 2) / 10 - 0.5), Tensor(np.array([1.0, -1.0], np.float32))),
     _R([[0.977, -1.089], [-0.01499999, -0.8929999]], 'float32', (2, 2))),
    ('ops.bidense(Tensor(np.ones((2, 2, 3), np.float32)), Tensor(np.ones((2, 2, 3), np.float32)), Tensor(np.ones((1, 3, 3), np.float32)))', lambda: ops.bidense(Tensor(np.ones((2, 2, 3), np.float32)), Tensor(np.ones((2, 2, 3), np.float32)), Tensor(np.ones((1, 3, 3), np.float32))),
     _R([[[9], [9]], [[9], [9]]], 'float32', (2, 2, 1))),
    ('ops.lrn(MX4)', lambda: ops.lrn(MX4),
     _R([[[[-0.8660254, -0.6666667, -0.2886751, 0], [0.2581989, 0.5163978, 0.8017837, -0.8660254], [-0.6666667, -0.2886751, 0, 0.2581989], [0.5163978, 0.8017837, -0.8660254, -0.6666667]], [[-0.2886751, 0, 0.2886751, 0.5345225], [0.7745967, -0.7745967, -0.5345225, -0.2886751], [0, 0.2886751, 0.5345225, 0.7745967], [-0.7745967, -0.5345225, -0.2886751, 0]], [[0.2886751, 0.6666667, 0.8660254, -0.8017837], [-0.5163978, -0.2581989, 0, 0.2886751], [0.6666667, 0.8660254, -0.8017837, -0.5163978], [-0.2581989, 0, 0.2886751, 0.6666667]]], [[[0.8017837, -0.8660254, -0.6666667, -0.2886751], [0, 0.2581989, 0.5163978, 0.8017837], [-0.8660254, -0.6666667, -0.2886751, 0], [0.2581989, 0.5163978, 0.8017837, -0.8660254]], [[-0.5345225, -0.2886751, 0, 0.2886751], [0.5345225, 0.7745967, -0.7745967, -0.5345225], [-0.2886751, 0, 0.2886751, 0.5345225], [0.7745967, -0.7745967, -0.5345225, -0.2886751]], [[0, 0.2886751, 0.6666667, 0.8660254], [-0.8017837, -0.5163978, -0.2581989, 0], [0.2886751, 0.6666667, 0.8660254, -0.8017837], [-0.5163978, -0.2581989, 0, 0.2886751]]]], 'float32', (2, 3, 4, 4))),
    ('ops.lrn(MX4, 1, 2.0, 0.5, 0.75)', lambda: ops.lrn(MX4, 1, 2.0, 0.5, 0.75),
     _R([[[[-0.6971042, -0.7071068, -0.4386913, 0], [0.2323681, 0.4017592, 0.6026388, -0.6971042], [-0.7071068, -0.4386913, 0, 0.2323681], [0.4017592, 0.6026388, -0.6971042, -0.7071068]], [[-0.2206501, 0, 0.2206501, 0.4017592], [0.5773503, -0.5773503, -0.4017592, -0.2206501], [0, 0.2206501, 0.4017592, 0.5773503], [-0.5773503, -0.4017592, -0.2206501, 0]], [[0.4386913, 0.7071068, 0.6971042, -0.6026388], [-0.4017592, -0.2323681, 0, 0.4386913], [0.7071068, 0.6971042, -0.6026388, -0.4017592], [-0.2323681, 0, 0.4386913, 0.7071068]]], [[[0.6026388, -0.6971042, -0.7071068, -0.4386913], [0, 0.2323681, 0.4017592, 0.6026388], [-0.6971042, -0.7071068, -0.4386913, 0], [0.2323681, 0.4017592, 0.6026388, -0.6971042]], [[-0.4017592, -0.2206501, 0, 0.2206501], [0.4017592, 0.5773503, -0.5773503, -0.4017592], [-0.2206501, 0, 0.2206501, 0.4017592], [0.5773503, -0.5773503, -0.4017592, -0.2206501]], [[0, 0.4386913, 0.7071068, 0.6971042], [-0.6026388, -0.4017592, -0.2323681, 0], [0.4386913, 0.7071068, 0.6971042, -0.6026388], [-0.4017592, -0.2323681, 0, 0.4386913]]]], 'float32', (2, 3, 4, 4))),
    ('ops.lrn(MX4, 0, 1.0, 1.0, 1.0)', lambda: ops.lrn(MX4, 0, 1.0, 1.0, 1.0),
     _R([[[[-0.3, -0.4, -0.5, 0], [0.5, 0.4, 0.3, -0.3], [-0.4, -0.5, 0, 0.5], [0.4, 0.3, -0.3, -0.4]], [[-0.5, 0, 0.5, 0.4], [0.3, -0.3, -0.4, -0.5], [0, 0.5, 0.4, 0.3], [-0.3, -0.4, -0.5, 0]], [[0.5, 0.4, 0.3, -0.3], [-0.4, -0.5, 0, 0.5], [0.4, 0.3, -0.3, -0.4], [-0.5, 0, 0.5, 0.4]]], [[[0.3, -0.3, -0.4, -0.5], [0, 0.5, 0.4, 0.3], [-0.3, -0.4, -0.5, 0], [0.5, 0.4, 0.3, -0.3]], [[-0.4, -0.5, 0, 0.5], [0.4, 0.3, -0.3, -0.4], [-0.5, 0, 0.5, 0.4], [0.3, -0.3, -0.4, -0.5]], [[0, 0.5, 0.4, 0.3], [-0.3, -0.4, -0.5, 0], [0.5, 0.4, 0.3, -0.3], [-0.4, -0.5, 0, 0.5]]]], 'float32', (2, 3, 4, 4))),
    ('ops.sequence_mask(Tensor([1, 3], ms.int32), 4)', lambda: ops.sequence_mask(Tensor([1, 3], ms.int32), 4),
     _R([[True, False, False, False], [True, True, True, False]], 'bool', (2, 4))),
    ('ops.sequence_mask(Tensor([[1, 3], [0, 2]], ms.int64))', lambda: ops.sequence_mask(Tensor([[1, 3], [0, 2]], ms.int64)),
     _R([[[True, False, False], [True, True, True]], [[False, False, False], [True, True, False]]], 'bool', (2, 2, 3))),
    ('ops.sequence_mask(Tensor([2, 5], ms.int32), 3)', lambda: ops.sequence_mask(Tensor([2, 5], ms.int32), 3),
     _R([[True, True, False], [True, True, True]], 'bool', (2, 3))),
    ('ops.clip_by_norm(MX, 1.0)', lambda: ops.clip_by_norm(MX, 1.0),
     _R([[0.1138784, -0.4555136, 0.7591894], [0.3795947, 0.1897973, -0.1518379]], 'float32', (2, 3))),
    ('ops.clip_by_norm(MX, 10.0)', lambda: ops.clip_by_norm(MX, 10.0),
     _R([[0.3, -1.2, 2], [1, 0.5, -0.4]], 'float32', (2, 3))),
    ("ops.clip_by_norm(MX, 1.0, float('inf'))", lambda: ops.clip_by_norm(MX, 1.0, float('inf')),
     _R([[0.1499999, -0.5999997, 0.9999995], [0.4999998, 0.2499999, -0.1999999]], 'float32', (2, 3))),
    ('ops.clip_by_norm([MX, MY], 1.0)', lambda: ops.clip_by_norm([MX, MY], 1.0),
     (_R([[0.09284765, -0.3713906, 0.6189843], [0.3094921, 0.1547461, -0.1237969]], 'float32', (2, 3)), _R([[0.03094921, -0.06189843, 0.3094921], [0.4642382, 0.06189843, 0.1237969]], 'float32', (2, 3)),)),
    ("ops.mirror_pad(MX, Tensor([[1, 1], [2, 2]], ms.int64), 'REFLECT')", lambda: ops.mirror_pad(MX, Tensor([[1, 1], [2, 2]], ms.int64), 'REFLECT'),
     _R([[-0.4, 0.5, 1, 0.5, -0.4, 0.5, 1], [2, -1.2, 0.3, -1.2, 2, -1.2, 0.3], [-0.4, 0.5, 1, 0.5, -0.4, 0.5, 1], [2, -1.2, 0.3, -1.2, 2, -1.2, 0.3]], 'float32', (4, 7))),
    ("ops.mirror_pad(MX, Tensor([[1, 0], [0, 3]], ms.int64), 'SYMMETRIC')", lambda: ops.mirror_pad(MX, Tensor([[1, 0], [0, 3]], ms.int64), 'SYMMETRIC'),
     _R([[0.3, -1.2, 2, 2, -1.2, 0.3], [0.3, -1.2, 2, 2, -1.2, 0.3], [1, 0.5, -0.4, -0.4, 0.5, 1]], 'float32', (3, 6))),
    ("ops.mirror_pad(MX4[0], Tensor([[0, 0], [1, 2], [2, 1]], ms.int64), 'REFLECT')", lambda: ops.mirror_pad(MX4[0], Tensor([[0, 0], [1, 2], [2, 1]], ms.int64), 'REFLECT'),
     _R([[[3, 2, 1, 2, 3, -3, 3], [-1, -2, -3, -2, -1, 0, -1], [3, 2, 1, 2, 3, -3, 3], [0, -1, -2, -1, 0, 1, 0], [-3, 3, 2, 3, -3, -2, -3], [0, -1, -2, -1, 0, 1, 0], [3, 2, 1, 2, 3, -3, 3]], [[-2, -3, 3, -3, -2, -1, -2], [1, 0, -1, 0, 1, 2, 1], [-2, -3, 3, -3, -2, -1, -2], [2, 1, 0, 1, 2, 3, 2], [-1, -2, -3, -2, -1, 0, -1], [2, 1, 0, 1, 2, 3, 2], [-2, -3, 3, -3, -2, -1, -2]], [[0, -1, -2, -1, 0, 1, 0], [3, 2, 1, 2, 3, -3, 3], [0, -1, -2, -1, 0, 1, 0], [-3, 3, 2, 3, -3, -2, -3], [1, 0, -1, 0, 1, 2, 1], [-3, 3, 2, 3, -3, -2, -3], [0, -1, -2, -1, 0, 1, 0]]], 'float32', (3, 7, 7))),
    ('ops.padding(Tensor(np.array([[1.0], [2.0]], np.float32)), 4)', lambda: ops.padding(Tensor(np.array([[1.0], [2.0]], np.float32)), 4),
     _R([[1, 0, 0, 0], [2, 0, 0, 0]], 'float32', (2, 4))),
    ('ops.padding(Tensor(np.array([[[1.0], [2.0]]], np.float32)))', lambda: ops.padding(Tensor(np.array([[[1.0], [2.0]]], np.float32))),
     _R([[[1, 0, 0, 0, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0, 0, 0]]], 'float32', (1, 2, 8))),
    ('ops.upsample(MX4, size=(6, 5))', lambda: ops.upsample(MX4, size=(6, 5)),
     _R([[[[-3, -3, -2, -1, 0], [-3, -3, -2, -1, 0], [1, 1, 2, 3, -3], [-2, -2, -1, 0, 1], [-2, -2, -1, 0, 1], [2, 2, 3, -3, -2]], [[-1, -1, 0, 1, 2], [-1, -1, 0, 1, 2], [3, 3, -3, -2, -1], [0, 0, 1, 2, 3], [0, 0, 1, 2, 3], [-3, -3, -2, -1, 0]], [[1, 1, 2, 3, -3], [1, 1, 2, 3, -3], [-2, -2, -1, 0, 1], [2, 2, 3, -3, -2], [2, 2, 3, -3, -2], [-1, -1, 0, 1, 2]]], [[[3, 3, -3, -2, -1], [3, 3, -3, -2, -1], [0, 0, 1, 2, 3], [-3, -3, -2, -1, 0], [-3, -3, -2, -1, 0], [1, 1, 2, 3, -3]], [[-2, -2, -1, 0, 1], [-2, -2, -1, 0, 1], [2, 2, 3, -3, -2], [-1, -1, 0, 1, 2], [-1, -1, 0, 1, 2], [3, 3, -3, -2, -1]], [[0, 0, 1, 2, 3], [0, 0, 1, 2, 3], [-3, -3, -2, -1, 0], [1, 1, 2, 3, -3], [1, 1, 2, 3, -3], [-2, -2, -1, 0, 1]]]], 'float32', (2, 3, 6, 5))),
    ("ops.upsample(MX4, size=(6, 5), mode='bilinear', align_corners=True)", lambda: ops.upsample(MX4, size=(6, 5), mode='bilinear', align_corners=True),
     _R([[[[-3, -2.25, -1.5, -0.75, 0], [-0.5999999, 0.1500001, 0.9000001, 0.6, -1.8], [0.3999999, 1.15, 1.9, 1.25, -2.2], [-1.4, -0.6500001, 0.0999999, 0.4999999, 0.2000003], [-0.3999996, 0.3500004, -0.3, -0.9500003, -0.2000003], [2, 2.75, 0, -2.75, -2]], [[-1, -0.25, 0.5, 1.25, 2], [1.4, -1, -1.3, -0.5500001, 0.1999999], [2.4, -1.05, -1.7, -0.9499998, -0.1999998], [0.5999999, 0.3000002, 0.7000003, 1.45, 2.2], [-1.2, -0.4500003, 0.2999997, 1.05, 1.8], [-3, -2.25, -1.5, -0.75, 0]], [[1, 1.75, 2.5, 1.5, -3], [-0.8000001, -0.05000007, 0.6999999, 0.75, -0.5999999], [-1.2, -0.4499998, -0.4, -0.3500001, 0.3999999], [1.2, 1.95, -0.09999996, -2.15, -1.4], [0.7999997, 1.55, 0.2, -1.15, -0.3999996], [-1, -0.25, 0.5, 1.25, 2]]], [[[3, -1.5, -2.5, -1.75, -1], [1.2, -0.15, -0.0999999, 0.6500001, 1.4], [-0.6000001, 0.1499999, 0.8999999, 1.65, 2.4], [-2.4, -1.65, -0.9000001, -0.1500001, 0.5999999], [-1.4, -0.6499996, 0.1000004, 0.1500002, -1.2], [1, 1.75, 2.5, 1.5, -3]], [[-2, -1.25, -0.5, 0.25, 1], [0.4000001, 1.15, -0.2, -1.55, -0.8000001], [1.4, 2.15, 0.1, -1.95, -1.2], [-0.4000001, 0.3499999, 0.4, 0.4500003, 1.2], [0.6000004, -0.7500001, -0.7000003, 0.04999971, 0.7999997], [3, -1.5, -2.5, -1.75, -1]], [[0, 0.75, 1.5, 2.25, 3], [-1.8, -1.05, -0.3000001, 0.4499999, 1.2], [-2.2, -1.45, -0.6999998, -0.2999999, -0.6000001], [0.2000003, 0.9500003, 1.7, 1.05, -2.4], [-0.2000003, 0.5499997, 1.3, 0.9999999, -1.4], [-2, -1.25, -0.5, 0.25, 1]]]], 'float32', (2, 3, 6, 5))),
    ('ops.top_k(MX, 2)', lambda: ops.top_k(MX, 2),
     (_R([[2, 0.3], [1, 0.5]], 'float32', (2, 2)), _R([[2, 0], [0, 1]], 'int32', (2, 2)),)),
    ('ops.top_k(MX4[0, 0], 3)', lambda: ops.top_k(MX4[0, 0], 3),
     (_R([[0, -1, -2], [3, 2, 1], [1, 0, -1], [3, 2, -2]], 'float32', (4, 3)), _R([[3, 2, 1], [2, 1, 0], [3, 2, 1], [1, 0, 3]], 'int32', (4, 3)),)),
    ('MX.top_k(1)', lambda: MX.top_k(1),
     (_R([[2], [1]], 'float32', (2, 1)), _R([[2], [0]], 'int32', (2, 1)),)),
    ('ops.intopk(MX, Tensor([2, 0], ms.int32), 1)', lambda: ops.intopk(MX, Tensor([2, 0], ms.int32), 1),
     _R([True, True], 'bool', (2,))),
    ('ops.intopk(MX, Tensor([1, 2], ms.int32), 2)', lambda: ops.intopk(MX, Tensor([1, 2], ms.int32), 2),
     _R([False, False], 'bool', (2,))),
    ('ops.intopk(Tensor(np.array([[1.0, 1.0, 0.5], [0.1, 0.2, 0.2]], np.float32)), Tensor([1, 1], ms.int32), 1)', lambda: ops.intopk(Tensor(np.array([[1.0, 1.0, 0.5], [0.1, 0.2, 0.2]], np.float32)), Tensor([1, 1], ms.int32), 1),
     _R([True, True], 'bool', (2,))),
    ('ops.unique_with_pad(Tensor([1, 2, 2, 5], ms.int32), 0)', lambda: ops.unique_with_pad(Tensor([1, 2, 2, 5], ms.int32), 0),
     (_R([1, 2, 5, 0], 'int32', (4,)), _R([0, 1, 1, 2], 'int32', (4,)),)),
    ('ops.unique_with_pad(Tensor([3, 1, 3, 2, 1], ms.int64), -1)', lambda: ops.unique_with_pad(Tensor([3, 1, 3, 2, 1], ms.int64), -1),
     (_R([3, 1, 2, -1, -1], 'int64', (5,)), _R([0, 1, 0, 2, 1], 'int64', (5,)),)),
    ('Tensor([3, 1, 3, 2, 1], ms.int32).unique_with_pad(9)', lambda: Tensor([3, 1, 3, 2, 1], ms.int32).unique_with_pad(9),
     (_R([3, 1, 2, 9, 9], 'int32', (5,)), _R([0, 1, 0, 2, 1], 'int32', (5,)),)),
]

BOX_CASES = [
    ('ops.iou(BA, BG)', lambda: ops.iou(BA, BG),
     _R([[0.4705882, 0.6, 0.25], [0.36, 0.2, 0], [0.36, 0.3333333, 0.1578947]], 'float32', (3, 3))),
    ("ops.iou(BA, BG, 'iof')", lambda: ops.iou(BA, BG, 'iof'),
     _R([[0.64, 0.6, 0.48], [1, 0.4444444, 0], [1, 0.6666667, 0.6666667]], 'float32', (3, 3))),
    ("ops.iou(BA, BA[:2] + 0.5, 'iof')", lambda: ops.iou(BA, BA[:2] + 0.5, 'iof'),
     _R([[0.81, 0.54, 0.35], [0.7, 0.75, 0.5833333]], 'float32', (2, 3))),
    ('ops.iou(BG, BA)', lambda: ops.iou(BG, BA),
     _R([[0.4705882, 0.36, 0.36], [0.6, 0.2, 0.3333333], [0.25, 0, 0.1578947]], 'float32', (3, 3))),
    ('ops.bounding_box_encode(BA, BG)', lambda: ops.bounding_box_encode(BA, BG),
     _R([[0.2, 0.2, 0, 0], [-0.3333333, -0.4, 0, -0.5108256], [-0.2, -0.4285714, -0.5108256, -0.8472978]], 'float32', (3, 4))),
    ('ops.bounding_box_encode(BA, BA[::-1] + 1, (0.1, 0.0, 0.0, 0.2), (1.0, 2.0, 1.0, 0.5))', lambda: ops.bounding_box_encode(BA, BA[::-1] + 1, (0.1, 0.0, 0.0, 0.2), (1.0, 2.0, 1.0, 0.5)),
     _R([[0.5, 0.5, 0, 0.2729444], [0.2333333, 0.1, 0, -0.4], [-0.3, -0.2142857, 0, -1.072944]], 'float32', (3, 4))),
    ('ops.bounding_box_decode(BA, BD, (8, 7))', lambda: ops.bounding_box_decode(BA, BD, (8, 7)),
     _R([[0.2370725, 1.453173, 4.762928, 4.546827], [0, 1.5, 3.073082, 5.5], [3.580301, 0, 4.419699, 8]], 'float32', (3, 4))),
    ('ops.bounding_box_decode(BA, BD, (8, 7), (0.1, 0.0, 0.0, 0.2), (1.0, 2.0, 1.0, 0.5), 0.5)', lambda: ops.bounding_box_decode(BA, BD, (8, 7), (0.1, 0.0, 0.0, 0.2), (1.0, 2.0, 1.0, 0.5), 0.5),
     _R([[0.7370725, 1.737072, 5.262928, 6.262928], [0, 1.446493, 3.373082, 6.553507], [3.75, 0, 5.25, 8]], 'float32', (3, 4))),
    ('ops.bounding_box_decode(BA, BG, (10, 10))', lambda: ops.bounding_box_decode(BA, BG, (10, 10)),
     _R([[0, 0, 10, 10], [0, 0, 10, 10], [0, 0, 10, 10]], 'float32', (3, 4))),
    ('ops.check_valid(BA, Tensor(np.array([6, 5, 1.5], np.float32)))', lambda: ops.check_valid(BA, Tensor(np.array([6, 5, 1.5], np.float32))),
     _R([True, True, False], 'bool', (3,))),
    ('ops.check_valid(Tensor(np.array([[0, 0, 3, 3], [-1, 0, 1, 1], [0, 0, 4, 5], [0, 0, 4, 4.5]], np.float32)), Tensor(np.array([6, 5, 1], np.float32)))', lambda: ops.check_valid(Tensor(np.array([[0, 0, 3, 3], [-1, 0, 1, 1], [0, 0, 4, 5], [0, 0, 4, 4.5]], np.float32)), Tensor(np.array([6, 5, 1], np.float32))),
     _R([True, False, True, True], 'bool', (4,))),
    ('ops.affine_grid(Tensor(np.array([[[1, 0.5, 0.1], [0.2, 1, 0]]], np.float32)), (1, 1, 2, 3), True)', lambda: ops.affine_grid(Tensor(np.array([[[1, 0.5, 0.1], [0.2, 1, 0]]], np.float32)), (1, 1, 2, 3), True),
     _R([[[[-1.4, -1.2], [-0.4, -1], [0.6, -0.8]], [[-0.4, 0.8], [0.6, 1], [1.6, 1.2]]]], 'float32', (1, 2, 3, 2))),
    ('ops.affine_grid(Tensor(np.array([[[1, 0.5, 0.1], [0.2, 1, 0]]], np.float32)), (1, 1, 2, 3), False)', lambda: ops.affine_grid(Tensor(np.array([[[1, 0.5, 0.1], [0.2, 1, 0]]], np.float32)), (1, 1, 2, 3), False),
     _R([[[[-0.8166667, -0.6333333], [-0.15, -0.5], [0.5166667, -0.3666667]], [[-0.3166667, 0.3666667], [0.35, 0.5], [1.016667, 0.6333333]]]], 'float32', (1, 2, 3, 2))),
    ('ops.affine_grid(Tensor(np.array([[[1, 0, 0], [0, 1, 0]]] * 2, np.float32)), (2, 3, 2, 2))', lambda: ops.affine_grid(Tensor(np.array([[[1, 0, 0], [0, 1, 0]]] * 2, np.float32)), (2, 3, 2, 2)),
     _R([[[[-0.5, -0.5], [0.5, -0.5]], [[-0.5, 0.5], [0.5, 0.5]]], [[[-0.5, -0.5], [0.5, -0.5]], [[-0.5, 0.5], [0.5, 0.5]]]], 'float32', (2, 2, 2, 2))),
    ('ops.affine_grid(Tensor(np.array([[[1, 0.5, 0.1, 0.0], [0.2, 1, 0, 0.3], [0.0, 0.1, 0.9, -0.2]]], np.float32)), (1, 1, 2, 2, 3), False)', lambda: ops.affine_grid(Tensor(np.array([[[1, 0.5, 0.1, 0.0], [0.2, 1, 0, 0.3], [0.0, 0.1, 0.9, -0.2]]], np.float32)), (1, 1, 2, 2, 3), False),
     _R([[[[[-0.9666667, -0.3333333, -0.7], [-0.3, -0.2, -0.7], [0.3666667, -0.06666666, -0.7]], [[-0.4666667, 0.6666667, -0.6], [0.2, 0.8, -0.6], [0.8666667, 0.9333333, -0.6]]], [[[-0.8666667, -0.3333333, 0.2], [-0.2, -0.2, 0.2], [0.4666667, -0.06666666, 0.2]], [[-0.3666667, 0.6666667, 0.3], [0.3, 0.8, 0.3], [0.9666667, 0.9333333, 0.3]]]]], 'float32', (1, 2, 2, 3, 3))),
    ('ops.grid_sample(GX, GG)', lambda: ops.grid_sample(GX, GG),
     _R([[[[0, 7.700001], [0.8799992, 5.5]], [[3, 19.7], [2.079998, 17.5]]], [[[24.795, 6.24], [15.925, 32]], [[36.195, 8.58], [21.385, 44]]]], 'float32', (2, 2, 2, 2))),
    ("ops.grid_sample(GX, GG, 'bilinear', 'zeros', True)", lambda: ops.grid_sample(GX, GG, 'bilinear', 'zeros', True),
     _R([[[[0, 7.050001], [5.739998, 5.5]], [[12, 19.05], [14.14, 17.5]]], [[[27.15, 26.86], [34.45, 31.125]], [[39.15, 37.06], [46.45, 43.125]]]], 'float32', (2, 2, 2, 2))),
    ("ops.grid_sample(GX, GG, 'bilinear', 'border', False)", lambda: ops.grid_sample(GX, GG, 'bilinear', 'border', False),
     _R([[[[0, 7.700001], [8.799999, 5.5]], [[12, 19.7], [20.8, 17.5]]], [[[26.1, 32], [35, 32]], [[38.1, 44], [47, 44]]]], 'float32', (2, 2, 2, 2))),
    ("ops.grid_sample(GX, GG, 'bilinear', 'border', True)", lambda: ops.grid_sample(GX, GG, 'bilinear', 'border', True),
     _R([[[[0, 7.050001], [8.2, 5.5]], [[12, 19.05], [20.2, 17.5]]], [[[27.15, 31.6], [34.45, 31.125]], [[39.15, 43.6], [46.45, 43.125]]]], 'float32', (2, 2, 2, 2))),
    ("ops.grid_sample(GX, GG, 'bilinear', 'reflection', False)", lambda: ops.grid_sample(GX, GG, 'bilinear', 'reflection', False),
     _R([[[[0, 7.700001], [8.799999, 5.5]], [[12, 19.7], [20.8, 17.5]]], [[[26.1, 32], [35, 32]], [[38.1, 44], [47, 44]]]], 'float32', (2, 2, 2, 2))),
    ("ops.grid_sample(GX, GG, 'bilinear', 'reflection', True)", lambda: ops.grid_sample(GX, GG, 'bilinear', 'reflection', True),
     _R([[[[0, 7.050001], [7.9, 5.5]], [[12, 19.05], [19.9, 17.5]]], [[[27.15, 31.75], [34.45, 31.125]], [[39.15, 43.75], [46.45, 43.125]]]], 'float32', (2, 2, 2, 2))),
    ("ops.grid_sample(GX, GG, 'nearest', 'zeros', False)", lambda: ops.grid_sample(GX, GG, 'nearest', 'zeros', False),
     _R([[[[0, 7], [0, 6]], [[0, 19], [0, 18]]], [[[26, 0], [35, 33]], [[38, 0], [47, 45]]]], 'float32', (2, 2, 2, 2))),
    ("ops.grid_sample(GX, GG, 'nearest', 'zeros', True)", lambda: ops.grid_sample(GX, GG, 'nearest', 'zeros', True),
     _R([[[[0, 6], [7, 6]], [[12, 18], [19, 18]]], [[[26, 32], [35, 33]], [[38, 44], [47, 45]]]], 'float32', (2, 2, 2, 2))),
    ("ops.grid_sample(GX, GG, 'nearest', 'border', False)", lambda: ops.grid_sample(GX, GG, 'nearest', 'border', False),
     _R([[[[0, 7], [7, 6]], [[12, 19], [19, 18]]], [[[26, 32], [35, 33]], [[38, 44], [47, 45]]]], 'float32', (2, 2, 2, 2))),
    ("ops.grid_sample(GX, GG, 'nearest', 'reflection', True)", lambda: ops.grid_sample(GX, GG, 'nearest', 'reflection', True),
     _R([[[[0, 6], [7, 6]], [[12, 18], [19, 18]]], [[[26, 32], [35, 33]], [[38, 44], [47, 45]]]], 'float32', (2, 2, 2, 2))),
    ("ops.grid_sample(GX, GG2, 'bilinear', 'reflection', False)", lambda: ops.grid_sample(GX, GG2, 'bilinear', 'reflection', False),
     _R([[[[8.499999, 2.5], [5.8, 0.3]], [[20.5, 14.5], [17.8, 12.3]]], [[[26.1, 32], [35, 32]], [[38.1, 44], [47, 44]]]], 'float32', (2, 2, 2, 2))),
    ("ops.grid_sample(GX, GG2, 'bilinear', 'reflection', True)", lambda: ops.grid_sample(GX, GG2, 'bilinear', 'reflection', True),
     _R([[[[7.55, 3.55], [5.349999, 1.399999]], [[19.55, 15.55], [17.35, 13.4]]], [[[27.15, 31.75], [34.45, 31.125]], [[39.15, 43.75], [46.45, 43.125]]]], 'float32', (2, 2, 2, 2))),
    ("ops.grid_sample(GX, GG2, 'bilinear', 'zeros', False)", lambda: ops.grid_sample(GX, GG2, 'bilinear', 'zeros', False),
     _R([[[[0, 0], [0, 0]], [[0, 0], [0, 0]]], [[[24.795, 6.24], [15.925, 32]], [[36.195, 8.58], [21.385, 44]]]], 'float32', (2, 2, 2, 2))),
    ("ops.grid_sample(GX, GG2, 'nearest', 'reflection', False)", lambda: ops.grid_sample(GX, GG2, 'nearest', 'reflection', False),
     _R([[[[10, 2], [4, 0]], [[22, 14], [16, 12]]], [[[26, 32], [35, 33]], [[38, 44], [47, 45]]]], 'float32', (2, 2, 2, 2))),
    ('ops.crop_and_resize(IM, Tensor(np.array([[0, 0, 1, 1], [0.2, 0.1, 0.7, 0.9]], np.float32)), Tensor([0, 1], ms.int32), (3, 2))', lambda: ops.crop_and_resize(IM, Tensor(np.array([[0, 0, 1, 1], [0.2, 0.1, 0.7, 0.9]], np.float32)), Tensor([0, 1], ms.int32), (3, 2)),
     _R([[[[0, 1], [8, 9]], [[15, 16], [23, 24]], [[30, 31], [38, 39]]], [[[46.8, 47.8], [53.2, 54.2]], [[54.3, 55.3], [60.7, 61.7]], [[61.8, 62.8], [68.2, 69.2]]]], 'float32', (2, 3, 2, 2))),
    ("ops.crop_and_resize(IM, Tensor(np.array([[-0.2, 0.1, 1.3, 0.8], [0.5, 0.5, 0.5, 0.5]], np.float32)), Tensor([1, 0], ms.int32), (2, 3), 'bilinear', 7.0)", lambda: ops.crop_and_resize(IM, Tensor(np.array([[-0.2, 0.1, 1.3, 0.8], [0.5, 0.5, 0.5, 0.5]], np.float32)), Tensor([1, 0], ms.int32), (2, 3), 'bilinear', 7.0),
     _R([[[[7, 7], [7, 7], [7, 7]], [[7, 7], [7, 7], [7, 7]]], [[[19, 20], [19, 20], [19, 20]], [[19, 20], [19, 20], [19, 20]]]], 'float32', (2, 2, 3, 2))),
    ("ops.crop_and_resize(IM, Tensor(np.array([[0, 0, 1, 1], [0.2, 0.1, 0.7, 0.9]], np.float32)), Tensor([0, 1], ms.int32), (3, 2), 'nearest')", lambda: ops.crop_and_resize(IM, Tensor(np.array([[0, 0, 1, 1], [0.2, 0.1, 0.7, 0.9]], np.float32)), Tensor([0, 1], ms.int32), (3, 2), 'nearest'),
     _R([[[[0, 1], [8, 9]], [[20, 21], [28, 29]], [[30, 31], [38, 39]]], [[[50, 51], [58, 59]], [[50, 51], [58, 59]], [[60, 61], [68, 69]]]], 'float32', (2, 3, 2, 2))),
    ('ops.crop_and_resize(IM, Tensor(np.array([[0.1, 0.2, 0.6, 0.9]], np.float32)), Tensor([1], ms.int32), (1, 1))', lambda: ops.crop_and_resize(IM, Tensor(np.array([[0.1, 0.2, 0.6, 0.9]], np.float32)), Tensor([1], ms.int32), (1, 1)),
     _R([[[[54.9, 55.9]]]], 'float32', (1, 1, 1, 2))),
]


def test_misc():
    _run_table(MISC_CASES)


def test_boxes_and_grids():
    _run_table(BOX_CASES)


def test_clip_by_norm_odd_norms_use_absolute_values():
    # MindSpore 2.10 CPU sums x (not |x|) for norm_type=1 (and x^3 for 3): 2 / 2.2 here; the norm is 5.4
    got = ops.clip_by_norm(MX, 2.0, 1.0).asnumpy()
    np.testing.assert_allclose(got, MX.asnumpy() * 2.0 / (5.4 + 1e-6), rtol=1e-5)


def test_channel_dropout():
    ms.set_seed(0)
    x = Tensor(np.ones((40, 50, 3, 2), np.float32))
    out = ops.dropout2d(x, 0.3).asnumpy()
    per_channel = out.reshape(40, 50, -1)
    assert ((per_channel == 0).all(-1) | np.isclose(per_channel, 1 / 0.7).all(-1)).all()  # whole channels
    assert abs((per_channel[..., 0] == 0).mean() - 0.3) < 0.03
    np.testing.assert_array_equal(ops.dropout2d(x, 0.3, False).asnumpy(), x.asnumpy())
    assert ops.dropout1d(Tensor(np.ones((4, 5, 6), np.float32))).shape == (4, 5, 6)
    assert ops.dropout1d(Tensor(np.ones((5, 6), np.float32)), 0.5).shape == (5, 6)
    d3 = ops.dropout3d(Tensor(np.ones((2, 30, 2, 2, 2), np.float32)), 1.0).asnumpy()
    assert (d3 == 0).all()
    with pytest.raises(ValueError):
        ops.dropout2d(Tensor(np.ones((2, 3), np.float32)))
    g = ms.grad(lambda t: ops.dropout3d(t, 0.5).sum())(Tensor(np.ones((1, 8, 1, 1, 1), np.float32))).asnumpy()
    assert set(np.unique(g)) <= {0.0, 2.0}


def test_misc_gradients():
    rng = np.random.default_rng(3)
    x, y = Tensor(rng.standard_normal((2, 3))), Tensor(rng.standard_normal((2, 3)))
    check_grad(ops.cosine_similarity, x, y)
    check_grad(lambda t: ops.pdist(t), Tensor(rng.standard_normal((4, 2))))
    check_grad(ops.bias_add, x, Tensor(rng.standard_normal(3)))
    check_grad(ops.bidense, x, y, Tensor(rng.standard_normal((2, 3, 3))), Tensor(rng.standard_normal(2)))
    check_grad(lambda t: ops.lrn(t, 1, 2.0, 0.5, 0.75), Tensor(rng.standard_normal((1, 3, 2, 2))))
    check_grad(lambda t: ops.clip_by_norm(t, 1.0), x)
    check_grad(lambda t: ops.mirror_pad(t, Tensor([[1, 1], [2, 2]], ms.int64), "REFLECT"), x)
    check_grad(lambda t: ops.mirror_pad(t, Tensor([[1, 0], [0, 3]], ms.int64), "SYMMETRIC"), x)
    check_grad(lambda t: ops.padding(t, 3), Tensor(rng.standard_normal((2, 1))))
    check_grad(lambda t: ops.top_k(t, 2)[0], x)
    boxes = Tensor(np.array([[0, 0, 4, 4], [1, 1, 3, 5.5]]))
    gt = Tensor(np.array([[1, 1, 5, 5], [0.5, 0, 2, 2]]))
    check_grad(ops.iou, boxes, gt)
    check_grad(ops.bounding_box_encode, boxes, gt)
    check_grad(lambda a, d: ops.bounding_box_decode(a, d, (8, 7)), boxes,
               Tensor(np.array([[0.1, 0.2, 0.1, -0.2], [-0.3, 0.1, 0.5, 0.0]])))
    theta = Tensor(np.array([[[1, 0.5, 0.1], [0.2, 1, 0]]]))
    check_grad(lambda t: ops.affine_grid(t, (1, 1, 2, 3)), theta)
    img = Tensor(rng.standard_normal((1, 1, 3, 4)))
    grid = Tensor(np.array([[[[-0.9, -0.8], [0.45, 0.2]], [[1.1, 0.3], [0.05, 0.1]]]]))
    for pm in ("zeros", "border", "reflection"):
        check_grad(lambda a, g, pm=pm: ops.grid_sample(a, g, "bilinear", pm, False), img, grid)
    check_grad(lambda a: ops.crop_and_resize(a, Tensor(np.array([[0.1, 0.2, 0.8, 0.9]], np.float32)),
                                             Tensor([0], ms.int32), (2, 3)),
               Tensor(rng.standard_normal((1, 3, 3, 1)), ms.float32), rtol=1e-2, atol=1e-3, eps=1e-2)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_sequence_mask_in_graph_mode_follows_each_calls_lengths():
    import mscustom as ms
    f = ms.jit(lambda n: ops.sequence_mask(n, 4))
    for v in ([1, 2], [3, 0], [4, 1], [2, 2]):
        assert f(Tensor(np.array(v, np.int32))).asnumpy().sum(1).tolist() == v
    g = ms.jit(lambda n: ops.sequence_mask(n))      # the shape comes from the data: runs eagerly
    assert [g(Tensor(np.array(v, np.int32))).shape for v in ([1, 2], [3, 1], [5, 2])] == [(2, 2), (2, 3), (2, 5)]


def test_value_checks_are_repeated_by_graph_replays():
    import mscustom as ms
    from mscustom import nn
    clip = ms.jit(lambda x: ops.clip_by_norm(x, 1.0, error_if_nonfinite=True))
    mvl = ms.jit(lambda x: ops.mvlgamma(x, 3))
    loss = nn.GaussianNLLLoss()
    nll = ms.jit(lambda a, v: loss(a, a, v))
    one = Tensor(np.ones((2, 3), np.float32))
    for _ in range(3):                          # recorded, then replayed
        clip(one), mvl(Tensor(np.array([3.0, 4.0]))), nll(one, one)
    with pytest.raises(RuntimeError, match="op 'clip_by_norm': the total norm is not finite"):
        clip(Tensor(np.array([1.0, np.inf], np.float32)))
    with pytest.raises(ValueError, match="op 'mvlgamma': all elements of input must be greater"):
        mvl(Tensor(np.array([0.5, 4.0])))
    with pytest.raises(ValueError, match="GaussianNLLLoss: var must be non-negative"):
        nll(one, -one)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_index_computing_ops_follow_new_values_under_jit():
    # pinv's cutoff and crop_and_resize's sample positions come from the values: the capture runs them eagerly
    import mscustom as ms
    rng = np.random.default_rng(0)
    img = Tensor(rng.standard_normal((1, 6, 6, 2)).astype(np.float32))
    idx = Tensor(np.array([0], np.int32))
    f = ms.jit(lambda a: ops.pinv(a))
    g = ms.jit(lambda b: ops.crop_and_resize(img, b, idx, (3, 3)))
    for _ in range(4):
        a = Tensor(rng.standard_normal((3, 3)))
        np.testing.assert_allclose(f(a).asnumpy(), np.linalg.pinv(a.asnumpy()), rtol=1e-8, atol=1e-10)
        b = Tensor(rng.uniform(0, 1, (1, 4)).astype(np.float32))
        np.testing.assert_allclose(g(b).asnumpy(), ops.crop_and_resize(img, b, idx, (3, 3)).asnumpy())


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_value_computed_results_follow_new_values_under_jit():
    import mscustom as ms
    top = ms.jit(lambda s, t: ops.intopk(s, t, 1))
    inv = ms.jit(lambda t: ops.inv(t))
    scores = Tensor(np.array([[0.1, 0.9, 0.0], [0.8, 0.1, 0.1]], np.float32))
    for k in range(3):
        want = [k == 1, k == 0]
        assert top(scores, Tensor(np.array([k, k], np.int32))).asnumpy().tolist() == want
        assert inv(Tensor(np.array([k + 1], np.int32))).asnumpy().tolist() == [1 if k == 0 else 0]
