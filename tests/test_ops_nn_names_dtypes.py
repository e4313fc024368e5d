"""ops nn, linalg and special-function names on float16 and float64 inputs: result dtypes and values are MindSpore 2.10
(CPU)'s for the same calls (float16 to within an ulp)."""

import numpy as np

from mscustom import ops, Tensor

H = Tensor(np.array([[0.3, -1.2, 2.0], [1.0, 0.5, -0.4]], np.float16))
D = Tensor(np.array([[0.3, -1.2, 2.0], [1.0, 0.5, -0.4]], np.float64))
DQ = Tensor(np.array([[4.0, 1.0], [1.0, 3.0]], np.float64))


from ops_nn_oracle_table import _R, _Raises, _run_table


DTYPE_CASES = [
    ('ops.celu(H)', lambda: ops.celu(H),
     _R([[0.3000488, -0.6987305, 2], [1, 0.5, -0.3295898]], 'float16', (2, 3))),
    ('ops.hardsigmoid(H)', lambda: ops.hardsigmoid(H),
     _R([[0.5498047, 0.3000488, 0.8334961], [0.6665039, 0.5834961, 0.4333496]], 'float16', (2, 3))),
    ('ops.softmin(D)', lambda: ops.softmin(D),
     _R([[0.1765421, 0.7912066, 0.03225133], [0.1491664, 0.2459339, 0.6048997]], 'float64', (2, 3))),
    ('ops.glu(D)', lambda: ops.glu(D),
     _Raises(ValueError)),
    ('ops.fast_gelu(H)', lambda: ops.fast_gelu(H),
     _R([[0.1876221, -0.1376953, 1.935547], [0.8457031, 0.3503418, -0.1345215]], 'float16', (2, 3))),
    ('ops.logsigmoid(D)', lambda: ops.logsigmoid(D),
     _R([[-0.5543552, -1.463282, -0.126928], [-0.3132617, -0.474077, -0.9130153]], 'float64', (2, 3))),
    ('ops.huber_loss(D, D * 2)', lambda: ops.huber_loss(D, D * 2),
     _R(0.4916667, 'float64', ())),
    ('ops.cosine_embedding_loss(D, D * 2 + 1, Tensor(np.array([1, -1], np.float64)))', lambda: ops.cosine_embedding_loss(D, D * 2 + 1, Tensor(np.array([1, -1], np.float64))),
     _R(0.4812323, 'float64', ())),
    ('ops.hinge_embedding_loss(H, Tensor(np.array([[1, -1, 1], [-1, -1, 1]], np.float16)))', lambda: ops.hinge_embedding_loss(H, Tensor(np.array([[1, -1, 1], [-1, -1, 1]], np.float16))),
     _R(0.7666016, 'float16', ())),
    ('ops.gaussian_nll_loss(D, D, Tensor(np.ones((2, 1), np.float64)))', lambda: ops.gaussian_nll_loss(D, D, Tensor(np.ones((2, 1), np.float64))),
     _R(0, 'float64', ())),
    ('ops.det(DQ)', lambda: ops.det(DQ),
     _R(11, 'float64', ())),
    ('ops.inverse(DQ)', lambda: ops.inverse(DQ),
     _R([[0.2727273, -0.09090909], [-0.09090909, 0.3636364]], 'float64', (2, 2))),
    ('ops.cholesky(DQ)', lambda: ops.cholesky(DQ),
     _R([[2, 0], [0.5, 1.658312]], 'float64', (2, 2))),
    ('ops.svd(DQ)[0]', lambda: ops.svd(DQ)[0],
     _R([4.618034, 2.381966], 'float64', (2,))),
    ('ops.matrix_solve(DQ, DQ)', lambda: ops.matrix_solve(DQ, DQ),
     _R([[1, 0], [0, 1]], 'float64', (2, 2))),
    ('ops.slogdet(DQ)', lambda: ops.slogdet(DQ),
     (_R(1, 'float64', ()), _R(2.397895, 'float64', ()),)),
    ('ops.vector_norm(D)', lambda: ops.vector_norm(D),
     _R(2.634388, 'float64', ())),
    ('ops.matrix_norm(D)', lambda: ops.matrix_norm(D),
     _R(2.634388, 'float64', ())),
    ('ops.pdist(D)', lambda: ops.pdist(D),
     _R([3.023243], 'float64', (1,))),
    ('ops.lgamma(D)', lambda: ops.lgamma(D),
     _R([[1.095798, 1.579176, 0], [0, 0.5723649, 1.314525]], 'float64', (2, 3))),
    ('ops.digamma(H)', lambda: ops.digamma(H),
     _R([[-3.501953, 4.863281, 0.4228516], [-0.5771484, -1.963867, 0.9604492]], 'float16', (2, 3))),
    ('ops.erfinv(H * 0.1)', lambda: ops.erfinv(H * 0.1),
     _R([[0.02659607, -0.1067505, 0.1790771], [0.08880615, 0.04434204, -0.03543091]], 'float16', (2, 3))),
    ('ops.mm(D, D.T)', lambda: ops.mm(D, D.T),
     _R([[5.53, -1.1], [-1.1, 1.41]], 'float64', (2, 2))),
    ('ops.kron(H, H)', lambda: ops.kron(H, H),
     _R([[0.09002686, -0.3601074, 0.6000977, -0.3601074, 1.44043, -2.400391, 0.6000977, -2.400391, 4], [0.3000488, 0.1500244, -0.1199951, -1.200195, -0.6000977, 0.4799805, 2, 1, -0.7998047], [0.3000488, -1.200195, 2, 0.1500244, -0.6000977, 1, -0.1199951, 0.4799805, -0.7998047], [1, 0.5, -0.3999023, 0.5, 0.25, -0.1999512, -0.3999023, -0.1999512, 0.1599121]], 'float16', (4, 9))),
    ('ops.cross(D, D + 1)', lambda: ops.cross(D, D + 1),
     _R([[-3.2, 1.7, 1.5], [0.9, -1.4, 0.5]], 'float64', (2, 3))),
    ('ops.vander(Tensor(np.array([1.0, 2.0], np.float64)))', lambda: ops.vander(Tensor(np.array([1.0, 2.0], np.float64))),
     _R([[1, 1], [2, 1]], 'float64', (2, 2))),
    ('ops.cov(D)', lambda: ops.cov(D),
     _R([[2.563333, -0.7516667], [-0.7516667, 0.5033333]], 'float64', (2, 2))),
    ('ops.avg_pool1d(Tensor(np.ones((1, 2, 4), np.float16)), 2, 2)', lambda: ops.avg_pool1d(Tensor(np.ones((1, 2, 4), np.float16)), 2, 2),
     _R([[[1, 1], [1, 1]]], 'float16', (1, 2, 2))),
    ('ops.max_pool3d(Tensor(np.ones((1, 1, 2, 2, 2), np.float64)), 2)', lambda: ops.max_pool3d(Tensor(np.ones((1, 1, 2, 2, 2), np.float64)), 2),
     _R([[[[[1]]]]], 'float64', (1, 1, 1, 1, 1))),
    ('ops.adaptive_avg_pool3d(Tensor(np.ones((1, 1, 2, 2, 2), np.float16)), 1)', lambda: ops.adaptive_avg_pool3d(Tensor(np.ones((1, 1, 2, 2, 2), np.float16)), 1),
     _R([[[[[1]]]]], 'float16', (1, 1, 1, 1, 1))),
    ('ops.lp_pool1d(Tensor(np.ones((1, 2, 4), np.float64)), 2, 2)', lambda: ops.lp_pool1d(Tensor(np.ones((1, 2, 4), np.float64)), 2, 2),
     _R([[[1.414214, 1.414214], [1.414214, 1.414214]]], 'float64', (1, 2, 2))),
    ('ops.pixel_shuffle(Tensor(np.ones((1, 4, 1, 1), np.float16)), 2)', lambda: ops.pixel_shuffle(Tensor(np.ones((1, 4, 1, 1), np.float16)), 2),
     _R([[[[1, 1], [1, 1]]]], 'float16', (1, 1, 2, 2))),
    ('ops.lrn(Tensor(np.ones((1, 3, 2, 2), np.float16)))', lambda: ops.lrn(Tensor(np.ones((1, 3, 2, 2), np.float16))),
     _R([[[[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.5], [0.5, 0.5]]]], 'float16', (1, 3, 2, 2))),
    ('ops.grid_sample(Tensor(np.ones((1, 1, 2, 2), np.float64)), Tensor(np.zeros((1, 1, 1, 2), np.float64)))', lambda: ops.grid_sample(Tensor(np.ones((1, 1, 2, 2), np.float64)), Tensor(np.zeros((1, 1, 1, 2), np.float64))),
     _R([[[[1]]]], 'float64', (1, 1, 1, 1))),
    ('ops.iou(Tensor(np.array([[0, 0, 4, 4]], np.float16)), Tensor(np.array([[1, 1, 5, 5]], np.float16)))', lambda: ops.iou(Tensor(np.array([[0, 0, 4, 4]], np.float16)), Tensor(np.array([[1, 1, 5, 5]], np.float16))),
     _R([[0.4707031]], 'float16', (1, 1))),
    ('ops.conv3d(Tensor(np.ones((1, 1, 2, 2, 2), np.float16)), Tensor(np.ones((1, 1, 1, 1, 1), np.float16)))', lambda: ops.conv3d(Tensor(np.ones((1, 1, 2, 2, 2), np.float16)), Tensor(np.ones((1, 1, 1, 1, 1), np.float16))),
     _R([[[[[1, 1], [1, 1]], [[1, 1], [1, 1]]]]], 'float16', (1, 1, 2, 2, 2))),
]


def test_float16_and_float64():
    _run_table(DTYPE_CASES, rtol=2e-3)
