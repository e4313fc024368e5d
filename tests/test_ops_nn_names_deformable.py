"""ops.deformable_conv2d: values, dtypes and shapes are MindSpore 2.10 (CPU)'s for the same calls (groups, deformable
groups, strides, padding, dilations); gradients for input, weight and offsets are checked against finite differences."""

import numpy as np

from mscustom import ops, Tensor
from mscustom.testing import check_grad

_r = np.random.default_rng(3)
DX = Tensor(_r.standard_normal((1, 2, 4, 5)).astype(np.float32))
DW = Tensor(_r.standard_normal((3, 2, 2, 2)).astype(np.float32))
DO = Tensor((_r.standard_normal((1, 12, 3, 4)) * 0.7).astype(np.float32))
DW1 = Tensor(_r.standard_normal((2, 1, 2, 2)).astype(np.float32))
DO2 = Tensor((_r.standard_normal((1, 24, 3, 4)) * 0.7).astype(np.float32))
DO3 = Tensor((_r.standard_normal((1, 12, 4, 3)) * 1.5).astype(np.float32))


from ops_nn_oracle_table import _R, _Raises, _run_table


DEFORMABLE_CASES = [
    ('ops.deformable_conv2d(DX, DW, DO, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0))', lambda: ops.deformable_conv2d(DX, DW, DO, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0)),
     _R([[[[0.3718671, 0.2924761, -0.7723414, -0.343897], [-0.5002637, -0.737299, 0.9270728, 0.6351603], [0.6567307, -1.731555, -0.9079262, 0.9905605]], [[-0.06967746, 0.2756897, -0.7430865, -0.3676115], [0.5937279, -0.2483576, -0.09730545, -0.01479715], [-1.417712, -0.1285555, -1.09748, 0.3661628]], [[0.125604, -0.17847, 1.840105, 0.134638], [-0.6439574, 1.102118, 0.3273819, -0.8242257], [2.611031, 2.870783, 0.6456568, -1.840402]]]], 'float32', (1, 3, 3, 4))),
    ('ops.deformable_conv2d(DX, DW, DO * 0, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0))', lambda: ops.deformable_conv2d(DX, DW, DO * 0, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0)),
     _R([[[[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]]], 'float32', (1, 3, 3, 4))),
    ('ops.deformable_conv2d(DX, DW, DO, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0), Tensor(np.array([1.0, -1.0, 0.5], np.float32)))', lambda: ops.deformable_conv2d(DX, DW, DO, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0), Tensor(np.array([1.0, -1.0, 0.5], np.float32))),
     _R([[[[1.371867, 1.292476, 0.2276586, 0.656103], [0.4997363, 0.262701, 1.927073, 1.63516], [1.656731, -0.7315553, 0.0920738, 1.990561]], [[-1.069677, -0.7243103, -1.743087, -1.367612], [-0.4062721, -1.248358, -1.097305, -1.014797], [-2.417712, -1.128556, -2.09748, -0.6338372]], [[0.625604, 0.32153, 2.340106, 0.634638], [-0.1439574, 1.602118, 0.8273819, -0.3242257], [3.111031, 3.370783, 1.145657, -1.340402]]]], 'float32', (1, 3, 3, 4))),
    ('ops.deformable_conv2d(DX, DW1, DO, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0), None, (1, 1, 1, 1), 2)', lambda: ops.deformable_conv2d(DX, DW1, DO, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0), None, (1, 1, 1, 1), 2),
     _R([[[[-0.1385874, 0.2385932, -0.6129806, -0.3614129], [0.05694794, -0.2736284, 0.4126136, 0.08656573], [-0.4346767, -1.12418, -0.6814446, 0.1041732]], [[-0.1346821, -0.1158161, 0.1937118, 0.01474451], [0.01327433, -0.08228675, -0.2649645, -0.1085851], [-0.1515635, -0.4175496, 0.262053, 0.02015699]]]], 'float32', (1, 2, 3, 4))),
    ('ops.deformable_conv2d(DX, DW, DO2, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0), None, (1, 1, 1, 1), 1, 2)', lambda: ops.deformable_conv2d(DX, DW, DO2, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0), None, (1, 1, 1, 1), 1, 2),
     _R([[[[1.960665, 0.6757982, -0.03673206, 0.2039306], [1.015449, -0.4660546, -0.6768385, 0.6810177], [0.464307, 0.1995041, -0.814701, 0.3519645]], [[-0.1086258, 0.03791879, -0.1681153, -0.1224111], [-0.4956026, -0.4070171, -0.6745913, 0.6994779], [-0.1687405, -0.09579773, -0.2826099, 0.6431157]], [[-0.7758207, -1.775837, -0.08517629, -0.1858786], [0.3504772, 0.2026664, 0.9201145, 0.7399603], [0.293234, 0.02205508, 1.109554, -1.607567]]]], 'float32', (1, 3, 3, 4))),
    ('ops.deformable_conv2d(DX, DW, DO3, (2, 2), (1, 1, 2, 2), (1, 1, 1, 0))', lambda: ops.deformable_conv2d(DX, DW, DO3, (2, 2), (1, 1, 2, 2), (1, 1, 1, 0)),
     _Raises(ValueError)),
    ('ops.deformable_conv2d(DX, DW, DO[:, :, :2, :3], (2, 2), (1, 1, 1, 1), (0, 0, 0, 0), None, (1, 1, 2, 2))', lambda: ops.deformable_conv2d(DX, DW, DO[:, :, :2, :3], (2, 2), (1, 1, 1, 1), (0, 0, 0, 0), None, (1, 1, 2, 2)),
     _R([[[[-0.2921781, 0.4404913, 0.7628626], [-1.007613, -1.264026, 0.1939875]], [[-0.5748676, 0.09303664, 1.470964], [0.7835546, 0.2717527, -0.02990028]], [[1.351994, 0.545597, -2.707796], [-0.8947305, 0.9701194, 0.8873282]]]], 'float32', (1, 3, 2, 3))),
]


def test_deformable_conv2d():
    _run_table(DEFORMABLE_CASES, rtol=5e-5)


def test_deformable_conv2d_gradients():
    r = np.random.default_rng(4)
    x = Tensor(r.standard_normal((1, 1, 3, 3)))
    w = Tensor(r.standard_normal((1, 1, 2, 2)))
    off = Tensor(r.uniform(-0.4, 0.4, (1, 12, 2, 2)) + 0.13)   # away from integer sample positions
    check_grad(lambda a, b, o: ops.deformable_conv2d(a, b, o, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0)), x, w, off)
