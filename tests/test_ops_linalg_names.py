"""ops linear algebra functions with MindSpore 2.10's names: each table's values, dtypes, shapes and errors
are MindSpore 2.10 (CPU)'s for the same call; gradients are checked against finite differences."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops, Tensor
from mscustom.testing import check_grad

PA = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, -3.0, 2.0]], np.float32))
PB = Tensor(np.array([[2.0, 0.0], [1.0, -1.0], [0.5, 4.0]], np.float32))
PV3 = Tensor(np.array([1.0, -2.0, 0.5], np.float32))
PV2 = Tensor(np.array([3.0, -1.0], np.float32))
PB1 = Tensor(np.arange(12, dtype=np.float32).reshape(2, 2, 3) / 4)
PB2 = Tensor(np.arange(18, dtype=np.float32).reshape(2, 3, 3) / 5 - 1)
PI = Tensor(np.array([[1, 2], [3, 4]], np.int32))
DA = Tensor(np.array([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 5.0]], np.float32))
DN = Tensor(np.array([[1.0, 2.0, 0.0], [3.0, -1.0, 2.0], [0.5, 0.0, -2.0]], np.float32))
DB = Tensor(np.array([[1.0, 2.0], [0.0, 1.0], [3.0, -1.0]], np.float32))
DS = Tensor(np.stack([np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([[1.0, -2.0], [0.5, 1.0]])]).astype(np.float32))
DP = Tensor(np.array([2, 2, 3], np.int32))


from ops_nn_oracle_table import _R, _Raises, _run_table


PRODUCT_CASES = [
    ('ops.mm(PA, PB)', lambda: ops.mm(PA, PB),
     _R([[3.5, -6], [-1, 11]], 'float32', (2, 2))),
    ('PA.mm(PB)', lambda: PA.mm(PB),
     _R([[3.5, -6], [-1, 11]], 'float32', (2, 2))),
    ('ops.mm(PI, PI)', lambda: ops.mm(PI, PI),
     _R([[7, 10], [15, 22]], 'int32', (2, 2))),
    ('ops.mm(PA, PA)', lambda: ops.mm(PA, PA),
     _Raises(ValueError)),
    ('ops.mv(PA, PV3)', lambda: ops.mv(PA, PV3),
     _R([-3.5, 7.5], 'float32', (2,))),
    ('ops.addmv(PV2, PA, PV3)', lambda: ops.addmv(PV2, PA, PV3),
     _R([-0.5, 6.5], 'float32', (2,))),
    ('ops.addmv(PV2, PA, PV3, beta=0.5, alpha=2)', lambda: ops.addmv(PV2, PA, PV3, beta=0.5, alpha=2),
     _R([-5.5, 14.5], 'float32', (2,))),
    ('PV2.addmv(PA, PV3, beta=2)', lambda: PV2.addmv(PA, PV3, beta=2),
     _R([2.5, 5.5], 'float32', (2,))),
    ('ops.addr(PA, PV2, PV3)', lambda: ops.addr(PA, PV2, PV3),
     _R([[4, -4, 0.5], [-0.5, -1, 1.5]], 'float32', (2, 3))),
    ('ops.addr(PA, PV2, PV3, beta=0.5, alpha=-1)', lambda: ops.addr(PA, PV2, PV3, beta=0.5, alpha=-1),
     _R([[-2.5, 7, -2], [1.25, -3.5, 1.5]], 'float32', (2, 3))),
    ('PA.addr(PV2, PV3)', lambda: PA.addr(PV2, PV3),
     _R([[4, -4, 0.5], [-0.5, -1, 1.5]], 'float32', (2, 3))),
    ('ops.addbmm(PB1[0, :, :2], PB1, PB2[:, :, :2])', lambda: ops.addbmm(PB1[0, :, :2], PB1, PB2[:, :, :2]),
     _R([[7.65, 9.099999], [10.65, 13]], 'float32', (2, 2))),
    ('ops.addbmm(PB1[0, :, :2], PB1, PB2[:, :, :2], beta=2, alpha=0.5)', lambda: ops.addbmm(PB1[0, :, :2], PB1, PB2[:, :, :2], beta=2, alpha=0.5),
     _R([[3.825, 4.925], [6.45, 8]], 'float32', (2, 2))),
    ('ops.batch_dot(PB1, PB2)', lambda: ops.batch_dot(PB1, PB2),
     _R([[[2.980232e-08, 0.15, 0.3], [-0.8999999, -0.3, 0.3]], [[7.65, 8.7, 9.75], [10.8, 12.3, 13.8]]], 'float32', (2, 2, 3))),
    ('ops.batch_dot(PB1, PB2, (2, 1))', lambda: ops.batch_dot(PB1, PB2, (2, 1)),
     _R([[[2.980232e-08, 0.15, 0.3], [-0.8999999, -0.3, 0.3]], [[7.65, 8.7, 9.75], [10.8, 12.3, 13.8]]], 'float32', (2, 2, 3))),
    ('ops.batch_dot(PB2, PB2, 1)', lambda: ops.batch_dot(PB2, PB2, 1),
     _R([[[1.2, 0.96, 0.72], [0.96, 0.84, 0.72], [0.72, 0.72, 0.72]], [[6.6, 7.44, 8.280001], [7.44, 8.4, 9.360001], [8.280001, 9.360001, 10.44]]], 'float32', (2, 3, 3))),
    ('ops.batch_dot(PA, PA)', lambda: ops.batch_dot(PA, PA),
     _R([[6], [13.25]], 'float32', (2, 1))),
    ('ops.batch_dot(PA, PB.T[:, :3] if False else PA, (1, 1))', lambda: ops.batch_dot(PA, PB.T[:, :3] if False else PA, (1, 1)),
     _R([[6], [13.25]], 'float32', (2, 1))),
    ('ops.inner(PA, PB.T)', lambda: ops.inner(PA, PB.T),
     _R([[3.5, -6], [-1, 11]], 'float32', (2, 2))),
    ('ops.inner(PV3, PV3)', lambda: ops.inner(PV3, PV3),
     _R(5.25, 'float32', ())),
    ('ops.inner(PA, Tensor(np.float32(2.0)))', lambda: ops.inner(PA, Tensor(np.float32(2.0))),
     _R([[2, 4, -2], [1, -6, 4]], 'float32', (2, 3))),
    ('PA.inner(PA)', lambda: PA.inner(PA),
     _R([[6, -7.5], [-7.5, 13.25]], 'float32', (2, 2))),
    ('ops.ger(PV2, PV3)', lambda: ops.ger(PV2, PV3),
     _R([[3, -6, 1.5], [-1, 2, -0.5]], 'float32', (2, 3))),
    ('PV2.ger(PV3)', lambda: PV2.ger(PV3),
     _R([[3, -6, 1.5], [-1, 2, -0.5]], 'float32', (2, 3))),
    ('ops.ger(Tensor([1, 2], ms.int32), Tensor([3, 4], ms.int32))', lambda: ops.ger(Tensor([1, 2], ms.int32), Tensor([3, 4], ms.int32)),
     _Raises(TypeError)),
    ('ops.kron(PA, PB)', lambda: ops.kron(PA, PB),
     _R([[2, 0, 4, 0, -2, -0], [1, -1, 2, -2, -1, 1], [0.5, 4, 1, 8, -0.5, -4], [1, 0, -6, -0, 4, 0], [0.5, -0.5, -3, 3, 2, -2], [0.25, 2, -1.5, -12, 1, 8]], 'float32', (6, 6))),
    ('ops.kron(PV2, PA)', lambda: ops.kron(PV2, PA),
     _R([[3, 6, -3, -1, -2, 1], [1.5, -9, 6, -0.5, 3, -2]], 'float32', (2, 6))),
    ('ops.kron(PI, PI)', lambda: ops.kron(PI, PI),
     _R([[1, 2, 2, 4], [3, 4, 6, 8], [3, 6, 4, 8], [9, 12, 12, 16]], 'int32', (4, 4))),
    ('ops.cross(PA, PB.T)', lambda: ops.cross(PA, PB.T),
     _R([[2, -2.5, -3], [-10, -2, -0.5]], 'float32', (2, 3))),
    ('ops.cross(PA, PB.T, 1)', lambda: ops.cross(PA, PB.T, 1),
     _R([[2, -2.5, -3], [-10, -2, -0.5]], 'float32', (2, 3))),
    ('ops.cross(PB, PB * 2 + 1, 0)', lambda: ops.cross(PB, PB * 2 + 1, 0),
     _R([[0.5, -5], [-1.5, 4], [1, 1]], 'float32', (3, 2))),
    ('PA.cross(PB.T)', lambda: PA.cross(PB.T),
     _R([[2, -2.5, -3], [-10, -2, -0.5]], 'float32', (2, 3))),
    ('ops.cross(PV3, PV3[::-1])', lambda: ops.cross(PV3, PV3[::-1]),
     _R([-1, -0.75, -1], 'float32', (3,))),
    ('ops.tensor_dot(PA, PB, 1)', lambda: ops.tensor_dot(PA, PB, 1),
     _R([[3.5, -6], [-1, 11]], 'float32', (2, 2))),
    ('ops.tensor_dot(PA, PB, ((1,), (0,)))', lambda: ops.tensor_dot(PA, PB, ((1,), (0,))),
     _R([[3.5, -6], [-1, 11]], 'float32', (2, 2))),
    ('ops.tensor_dot(PB1, PB2, ((1, 2), (0, 1)))', lambda: ops.tensor_dot(PB1, PB2, ((1, 2), (0, 1))),
     _R([[4.5, 5.25, 6], [9, 11.55, 14.1]], 'float32', (2, 3))),
    ('ops.tensor_dot(PA, PA, ((0, 1), (0, 1)))', lambda: ops.tensor_dot(PA, PA, ((0, 1), (0, 1))),
     _R(19.25, 'float32', ())),
    ('ops.tensor_dot(PA, PA, 0)', lambda: ops.tensor_dot(PA, PA, 0),
     _R([[[[1, 2, -1], [0.5, -3, 2]], [[2, 4, -2], [1, -6, 4]], [[-1, -2, 1], [-0.5, 3, -2]]], [[[0.5, 1, -0.5], [0.25, -1.5, 1]], [[-3, -6, 3], [-1.5, 9, -6]], [[2, 4, -2], [1, -6, 4]]]], 'float32', (2, 3, 2, 3))),
    ('ops.block_diag(PA, PB)', lambda: ops.block_diag(PA, PB),
     _R([[1, 2, -1, 0, 0], [0.5, -3, 2, 0, 0], [0, 0, 0, 2, 0], [0, 0, 0, 1, -1], [0, 0, 0, 0.5, 4]], 'float32', (5, 5))),
    ('ops.block_diag(PV2, PA, Tensor(np.float32(7)))', lambda: ops.block_diag(PV2, PA, Tensor(np.float32(7))),
     _R([[3, -1, 0, 0, 0, 0], [0, 0, 1, 2, -1, 0], [0, 0, 0.5, -3, 2, 0], [0, 0, 0, 0, 0, 7]], 'float32', (4, 6))),
    ('ops.block_diag(PI, PI)', lambda: ops.block_diag(PI, PI),
     _R([[1, 2, 0, 0], [3, 4, 0, 0], [0, 0, 1, 2], [0, 0, 3, 4]], 'int32', (4, 4))),
    ('ops.vander(PV3)', lambda: ops.vander(PV3),
     _R([[1, 1, 1], [4, -2, 1], [0.25, 0.5, 1]], 'float32', (3, 3))),
    ('ops.vander(PV3, 5)', lambda: ops.vander(PV3, 5),
     _R([[1, 1, 1, 1, 1], [16, -8, 4, -2, 1], [0.0625, 0.125, 0.25, 0.5, 1]], 'float32', (3, 5))),
    ('ops.vander(Tensor([1, 2, 3], ms.int32), 2)', lambda: ops.vander(Tensor([1, 2, 3], ms.int32), 2),
     _R([[1, 1], [2, 1], [3, 1]], 'int64', (3, 2))),
    ('ops.cov(PA)', lambda: ops.cov(PA),
     _R([[2.333333, -3.583333], [-3.583333, 6.583333]], 'float32', (2, 2))),
    ('ops.cov(PA, correction=0)', lambda: ops.cov(PA, correction=0),
     _R([[1.555556, -2.388889], [-2.388889, 4.388889]], 'float32', (2, 2))),
    ('PA.cov()', lambda: PA.cov(),
     _R([[2.333333, -3.583333], [-3.583333, 6.583333]], 'float32', (2, 2))),
    ('ops.cov(PV3)', lambda: ops.cov(PV3),
     _R(2.583333, 'float32', ())),
    ('ops.cov(PA, fweights=Tensor([1, 2, 1], ms.int32))', lambda: ops.cov(PA, fweights=Tensor([1, 2, 1], ms.int32)),
     _R([[2, -3.333333], [-3.333333, 6.395833]], 'float32', (2, 2))),
    ('ops.cov(PA, aweights=Tensor(np.array([0.5, 1.0, 2.0], np.float32)))', lambda: ops.cov(PA, aweights=Tensor(np.array([0.5, 1.0, 2.0], np.float32))),
     _R([[3.214286, -4.964286], [-4.964286, 8.339286]], 'float32', (2, 2))),
    ('ops.cov(PA, fweights=Tensor([1, 2, 1], ms.int32), aweights=Tensor(np.array([0.5, 1.0, 2.0], np.float32)))', lambda: ops.cov(PA, fweights=Tensor([1, 2, 1], ms.int32), aweights=Tensor(np.array([0.5, 1.0, 2.0], np.float32))),
     _R([[2.928571, -4.75], [-4.75, 8.178572]], 'float32', (2, 2))),
    ('ops.cov(PA, correction=2, aweights=Tensor(np.array([0.5, 1.0, 2.0], np.float32)))', lambda: ops.cov(PA, correction=2, aweights=Tensor(np.array([0.5, 1.0, 2.0], np.float32))),
     _R([[12.85714, -19.85714], [-19.85714, 33.35714]], 'float32', (2, 2))),
    ('ops.cov(PI)', lambda: ops.cov(PI),
     _R([[0.5, 0.5], [0.5, 0.5]], 'float32', (2, 2))),
    ('ops.adjoint(PA)', lambda: ops.adjoint(PA),
     _R([[1, 0.5], [2, -3], [-1, 2]], 'float32', (3, 2))),
    ('PA.adjoint()', lambda: PA.adjoint(),
     _R([[1, 0.5], [2, -3], [-1, 2]], 'float32', (3, 2))),
    ('ops.adjoint(PB1)', lambda: ops.adjoint(PB1),
     _R([[[0, 0.75], [0.25, 1], [0.5, 1.25]], [[1.5, 2.25], [1.75, 2.5], [2, 2.75]]], 'float32', (2, 3, 2))),
    ('ops.mv(PA, PV2)', lambda: ops.mv(PA, PV2),
     _Raises(ValueError)),
    ('ops.cross(PA, PA[:, :2])', lambda: ops.cross(PA, PA[:, :2]),
     _Raises(ValueError)),
]

DECOMPOSITION_CASES = [
    ('ops.det(DA)', lambda: ops.det(DA),
     _R(44, 'float32', ())),
    ('ops.det(DN)', lambda: ops.det(DN),
     _R(16, 'float32', ())),
    ('ops.det(DS)', lambda: ops.det(DS),
     _R([5, 2], 'float32', (2,))),
    ('DN.det()', lambda: DN.det(),
     _R(16, 'float32', ())),
    ('ops.matrix_determinant(DN)', lambda: ops.matrix_determinant(DN),
     _R(16, 'float32', ())),
    ('DN.matrix_determinant()', lambda: DN.matrix_determinant(),
     _R(16, 'float32', ())),
    ('ops.det(Tensor(np.ones((2, 3), np.float32)))', lambda: ops.det(Tensor(np.ones((2, 3), np.float32))),
     _Raises(ValueError)),
    ('ops.det(Tensor([[1, 2], [3, 4]], ms.int32))', lambda: ops.det(Tensor([[1, 2], [3, 4]], ms.int32)),
     _Raises(TypeError)),
    ('ops.slogdet(DN)', lambda: ops.slogdet(DN),
     (_R(1, 'float32', ()), _R(2.772589, 'float32', ()),)),
    ('ops.slogdet(DS)', lambda: ops.slogdet(DS),
     (_R([1, 1], 'float32', (2,)), _R([1.609438, 0.6931472], 'float32', (2,)),)),
    ('DN.slogdet()', lambda: DN.slogdet(),
     (_R(1, 'float32', ()), _R(2.772589, 'float32', ()),)),
    ('ops.log_matrix_determinant(DN)', lambda: ops.log_matrix_determinant(DN),
     (_R(1, 'float32', ()), _R(2.772589, 'float32', ()),)),
    ('DA.log_matrix_determinant()', lambda: DA.log_matrix_determinant(),
     (_R(1, 'float32', ()), _R(3.78419, 'float32', ()),)),
    ('ops.logdet(DA)', lambda: ops.logdet(DA),
     _R(3.78419, 'float32', ())),
    ('ops.logdet(DN)', lambda: ops.logdet(DN),
     _R(2.772589, 'float32', ())),
    ('DA.logdet()', lambda: DA.logdet(),
     _R(3.78419, 'float32', ())),
    ('ops.inverse(DN)', lambda: ops.inverse(DN),
     _R([[0.125, 0.25, 0.25], [0.4375, -0.125, -0.125], [0.03125, 0.06250001, -0.4375]], 'float32', (3, 3))),
    ('ops.inverse(DS)', lambda: ops.inverse(DS),
     _R([[[0.6, -0.2], [-0.2, 0.4]], [[0.5, 1], [-0.25, 0.5]]], 'float32', (2, 2, 2))),
    ('ops.inverse(Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float64)))', lambda: ops.inverse(Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float64))),
     _R([[-2, 1], [1.5, -0.5]], 'float64', (2, 2))),
    ('ops.cholesky(DA)', lambda: ops.cholesky(DA),
     _R([[2, 0, 0], [0.5, 1.658312, 0], [1, 0, 2]], 'float32', (3, 3))),
    ('ops.cholesky(DA, upper=True)', lambda: ops.cholesky(DA, upper=True),
     _R([[2, 0.5, 1], [0, 1.658312, 0], [0, 0, 2]], 'float32', (3, 3))),
    ('DA.cholesky()', lambda: DA.cholesky(),
     _R([[2, 0, 0], [0.5, 1.658312, 0], [1, 0, 2]], 'float32', (3, 3))),
    ('DA.cholesky(True)', lambda: DA.cholesky(True),
     _R([[2, 0.5, 1], [0, 1.658312, 0], [0, 0, 2]], 'float32', (3, 3))),
    ('ops.qr(DB)', lambda: ops.qr(DB),
     (_R([[-0.3162278, -0.8645564], [0, -0.4116935], [-0.9486833, 0.2881855]], 'float32', (3, 2)), _R([[-3.162278, 0.3162277], [0, -2.428992]], 'float32', (2, 2)),)),
    ("ops.qr(DB, 'complete')", lambda: ops.qr(DB, 'complete'),
     (_R([[-0.3162278, -0.8645564, -0.3905666], [0, -0.4116935, 0.9113224], [-0.9486833, 0.2881855, 0.1301889]], 'float32', (3, 3)), _R([[-3.162278, 0.3162277], [0, -2.428992], [0, 0]], 'float32', (3, 2)),)),
    ('ops.qr(DN)', lambda: ops.qr(DN),
     (_R([[-0.3123474, 0.9473459, -0.07053455], [-0.9370425, -0.3194538, -0.1410691], [-0.1561738, 0.02203131, 0.9874839]], 'float32', (3, 3)), _R([[-3.201562, 0.3123478, -1.561738], [0, 2.214145, -0.6829703], [0, 0, -2.257106]], 'float32', (3, 3)),)),
    ('ops.qr(DB.T)', lambda: ops.qr(DB.T),
     (_R([[-0.4472135, -0.8944272], [-0.8944272, 0.4472136]], 'float32', (2, 2)), _R([[-2.236068, -0.8944272, -0.4472136], [0, 0.4472136, -3.130495]], 'float32', (2, 3)),)),
    ('DB.qr()', lambda: DB.qr(),
     (_R([[-0.3162278, -0.8645564], [0, -0.4116935], [-0.9486833, 0.2881855]], 'float32', (3, 2)), _R([[-3.162278, 0.3162277], [0, -2.428992]], 'float32', (2, 2)),)),
    ('DB.qr(False)', lambda: DB.qr(False),
     (_R([[-0.3162278, -0.8645564, -0.3905666], [0, -0.4116935, 0.9113224], [-0.9486833, 0.2881855, 0.1301889]], 'float32', (3, 3)), _R([[-3.162278, 0.3162277], [0, -2.428992], [0, 0]], 'float32', (3, 2)),)),
    ('ops.svd(DA)[0]', lambda: ops.svd(DA)[0],
     _R([6.831259, 3.072224, 2.096522], 'float32', (3,))),
    ('ops.svd(DA, compute_uv=False)', lambda: ops.svd(DA, compute_uv=False),
     _R([6.831259, 3.072224, 2.096522], 'float32', (3,))),
    ('DB.svd()[0]', lambda: DB.svd()[0],
     _R([3.199385, 2.400819], 'float32', (2,))),
    ('ops.svd(DS)[0]', lambda: ops.svd(DS)[0],
     _R([[3.618034, 1.381966], [2.350781, 0.8507811]], 'float32', (2, 2))),
    ('ops.pinv(DB)', lambda: ops.pinv(DB),
     _R([[0.1355932, 0.01694916, 0.2881356], [0.3559322, 0.1694916, -0.1186441]], 'float32', (2, 3))),
    ('ops.pinv(DB.T)', lambda: ops.pinv(DB.T),
     _R([[0.1355932, 0.3559322], [0.01694916, 0.1694915], [0.2881356, -0.1186441]], 'float32', (3, 2))),
    ('ops.pinv(DN)', lambda: ops.pinv(DN),
     _R([[0.125, 0.25, 0.2500001], [0.4375, -0.125, -0.125], [0.03125001, 0.06250001, -0.4375]], 'float32', (3, 3))),
    ('ops.pinv(Tensor(np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)))', lambda: ops.pinv(Tensor(np.array([[1.0, 2.0], [2.0, 4.0]], np.float32))),
     _R([[0.04, 0.08000001], [0.08000001, 0.16]], 'float32', (2, 2))),
    ('ops.pinv(DB, atol=2.0)', lambda: ops.pinv(DB, atol=2.0),
     _R([[0.1355932, 0.01694916, 0.2881356], [0.3559322, 0.1694916, -0.1186441]], 'float32', (2, 3))),
    ('ops.pinv(DB, rtol=0.5)', lambda: ops.pinv(DB, rtol=0.5),
     _R([[0.1355932, 0.01694916, 0.2881356], [0.3559322, 0.1694916, -0.1186441]], 'float32', (2, 3))),
    ('Tensor(np.sort(ops.eigvals(DA).asnumpy().real))', lambda: Tensor(np.sort(ops.eigvals(DA).asnumpy().real)),
     _R([2.096522, 3.072224, 6.831254], 'float32', (3,))),
    ('ops.geqrf(DA)', lambda: ops.geqrf(DA),
     (_R([[-4.582576, -1.745743, -4.037031], [0.1165151, -2.683725, 0.3903599], [0.2330303, -0.02607128, 3.577709]], 'float32', (3, 3)), _R([1.872872, 1.998641, 0], 'float32', (3,)),)),
    ('ops.geqrf(DB)', lambda: ops.geqrf(DB),
     (_R([[-3.162278, 0.3162277], [0, -2.428992], [0.7207592, -0.6455526]], 'float32', (3, 2)), _R([1.316228, 1.411693], 'float32', (2,)),)),
    ('DB.geqrf()', lambda: DB.geqrf(),
     (_R([[-3.162278, 0.3162277], [0, -2.428992], [0.7207592, -0.6455526]], 'float32', (3, 2)), _R([1.316228, 1.411693], 'float32', (2,)),)),
    ('ops.orgqr(*ops.geqrf(DA))', lambda: ops.orgqr(*ops.geqrf(DA)),
     _R([[-0.8728715, 0.19518, -0.4472136], [-0.2182179, -0.9759002, -3.72529e-09], [-0.4364358, 0.09758998, 0.8944272]], 'float32', (3, 3))),
    ('ops.orgqr(*ops.geqrf(DB))', lambda: ops.orgqr(*ops.geqrf(DB)),
     _R([[-0.3162278, -0.8645564], [0, -0.4116935], [-0.9486833, 0.2881854]], 'float32', (3, 2))),
    ('ops.matrix_solve(DA, DB)', lambda: ops.matrix_solve(DA, DB),
     _R([[-0.03977272, 0.7045454], [-0.09090909, 0.1818182], [0.625, -0.5]], 'float32', (3, 2))),
    ('ops.matrix_solve(DN, DB, True)', lambda: ops.matrix_solve(DN, DB, True),
     _R([[0.21875, 0.65625], [0.4375, 0.3125], [-1.0625, 0.8125]], 'float32', (3, 2))),
    ('ops.matrix_solve(DS, DS)', lambda: ops.matrix_solve(DS, DS),
     _R([[[1, 0], [0, 1]], [[1, 0], [0, 1]]], 'float32', (2, 2, 2))),
    ('ops.cholesky_solve(DB, ops.cholesky(DA))', lambda: ops.cholesky_solve(DB, ops.cholesky(DA)),
     _R([[-0.03977272, 0.7045454], [-0.09090909, 0.1818182], [0.625, -0.5]], 'float32', (3, 2))),
    ('ops.cholesky_solve(DB, ops.cholesky(DA, True), True)', lambda: ops.cholesky_solve(DB, ops.cholesky(DA, True), True),
     _R([[-0.03977272, 0.7045454], [-0.09090909, 0.1818182], [0.625, -0.5]], 'float32', (3, 2))),
    ('DB.cholesky_solve(ops.cholesky(DA))', lambda: DB.cholesky_solve(ops.cholesky(DA)),
     _R([[-0.03977272, 0.7045454], [-0.09090909, 0.1818182], [0.625, -0.5]], 'float32', (3, 2))),
    ('ops.cholesky_inverse(ops.cholesky(DA))', lambda: ops.cholesky_inverse(ops.cholesky(DA)),
     _R([[0.3352273, -0.09090909, -0.125], [-0.09090909, 0.3636363, 0], [-0.125, 0, 0.25]], 'float32', (3, 3))),
    ('ops.cholesky_inverse(ops.cholesky(DA, True), True)', lambda: ops.cholesky_inverse(ops.cholesky(DA, True), True),
     _R([[0.3352273, -0.09090909, -0.125], [-0.09090909, 0.3636363, 0], [-0.125, 0, 0.25]], 'float32', (3, 3))),
    ('ops.cholesky(DA).cholesky_inverse()', lambda: ops.cholesky(DA).cholesky_inverse(),
     _R([[0.3352273, -0.09090909, -0.125], [-0.09090909, 0.3636363, 0], [-0.125, 0, 0.25]], 'float32', (3, 3))),
    ('ops.lu_unpack(DA, DP)', lambda: ops.lu_unpack(DA, DP),
     (_R([[0, 1, 0], [1, 0, 0], [0, 0, 1]], 'float32', (3, 3)), _R([[1, 0, 0], [1, 1, 0], [2, 0.5, 1]], 'float32', (3, 3)), _R([[4, 1, 2], [0, 3, 0.5], [0, 0, 5]], 'float32', (3, 3)),)),
    ('ops.lu_unpack(DN, Tensor(np.array([3, 3, 3], np.int32)))', lambda: ops.lu_unpack(DN, Tensor(np.array([3, 3, 3], np.int32))),
     (_R([[0, 1, 0], [0, 0, 1], [1, 0, 0]], 'float32', (3, 3)), _R([[1, 0, 0], [3, 1, 0], [0.5, 0, 1]], 'float32', (3, 3)), _R([[1, 2, 0], [0, -1, 2], [0, 0, -2]], 'float32', (3, 3)),)),
    ('ops.lu_unpack(DA, DP, unpack_pivots=False)', lambda: ops.lu_unpack(DA, DP, unpack_pivots=False),
     (None, _R([[1, 0, 0], [1, 1, 0], [2, 0.5, 1]], 'float32', (3, 3)), _R([[4, 1, 2], [0, 3, 0.5], [0, 0, 5]], 'float32', (3, 3)),)),
    ('ops.lu_solve(DB, DA, DP)', lambda: ops.lu_solve(DB, DA, DP),
     _R([[-0.3125, 0.4875], [0.25, 0.45], [0.5, -0.7]], 'float32', (3, 2))),
    ('DB.lu_solve(DN, Tensor(np.array([3, 3, 3], np.int32)))', lambda: DB.lu_solve(DN, Tensor(np.array([3, 3, 3], np.int32))),
     _R([[-16, 12], [9.5, -6.5], [0.75, -0.75]], 'float32', (3, 2))),
    ('ops.lstsq(DA, DB)', lambda: ops.lstsq(DA, DB),
     _R([[-0.03977279, 0.7045456], [-0.09090908, 0.1818182], [0.625, -0.5000001]], 'float32', (3, 2))),
    ('ops.lstsq(DB, DA)', lambda: ops.lstsq(DB, DA),
     _R([[1.135593, 0.3305084, 1.720339], [1.355932, 0.8050847, 0.2033899]], 'float32', (2, 3))),
    ('DB.lstsq(DA)', lambda: DB.lstsq(DA),
     _R([[1.135593, 0.3305084, 1.720339], [1.355932, 0.8050847, 0.2033899]], 'float32', (2, 3))),
    ('ops.matrix_power(DN, 3)', lambda: ops.matrix_power(DN, 3),
     _R([[9, 14, -8], [19, -5, 26], [4.5, -2, -6]], 'float32', (3, 3))),
    ('ops.matrix_power(DN, 0)', lambda: ops.matrix_power(DN, 0),
     _R([[1, 0, 0], [0, 1, 0], [0, 0, 1]], 'float32', (3, 3))),
    ('ops.matrix_power(DN, -2)', lambda: ops.matrix_power(DN, -2),
     _R([[0.1328125, 0.015625, -0.109375], [-0.003906251, 0.1171875, 0.1796875], [0.01757813, -0.02734376, 0.1914063]], 'float32', (3, 3))),
    ('DN.matrix_power(2)', lambda: DN.matrix_power(2),
     _R([[7, 0, 4], [1, 7, -6], [-0.5, 1, 4]], 'float32', (3, 3))),
    ('ops.matrix_power(DS, 5)', lambda: ops.matrix_power(DS, 5),
     _R([[[175, 275], [275, 450]], [[-4, 8], [-2, -4]]], 'float32', (2, 2, 2))),
    ('ops.matrix_power(Tensor([[1, 2], [3, 4]], ms.int32), 2)', lambda: ops.matrix_power(Tensor([[1, 2], [3, 4]], ms.int32), 2),
     _R([[7, 10], [15, 22]], 'int32', (2, 2))),
    ('ops.cond(DA)', lambda: ops.cond(DA),
     _R(3.258378, 'float32', ())),
    ('ops.cond(DN)', lambda: ops.cond(DN),
     _R(2.101495, 'float32', ())),
    ("ops.cond(DN, 'fro')", lambda: ops.cond(DN, 'fro'),
     _R(3.606939, 'float32', ())),
    ("ops.cond(DN, 'nuc')", lambda: ops.cond(DN, 'nuc'),
     _R(9.900192, 'float32', ())),
    ("ops.cond(DN, float('inf'))", lambda: ops.cond(DN, float('inf')),
     _R(4.125, 'float32', ())),
    ('ops.cond(DN, 1)', lambda: ops.cond(DN, 1),
     _R(3.65625, 'float32', ())),
    ('ops.cond(DN, -1)', lambda: ops.cond(DN, -1),
     _R(1.3125, 'float32', ())),
    ('ops.cond(DN, -2)', lambda: ops.cond(DN, -2),
     _R(0.4758521, 'float32', ())),
    ('ops.cond(DB)', lambda: ops.cond(DB),
     _Raises(ValueError)),
    ('ops.matrix_band_part(DN, 0, 1)', lambda: ops.matrix_band_part(DN, 0, 1),
     _R([[1, 2, 0], [0, -1, 2], [0, 0, -2]], 'float32', (3, 3))),
    ('ops.matrix_band_part(DN, -1, 0)', lambda: ops.matrix_band_part(DN, -1, 0),
     _R([[1, 0, 0], [3, -1, 0], [0.5, 0, -2]], 'float32', (3, 3))),
    ('ops.matrix_band_part(DN, 1, -1)', lambda: ops.matrix_band_part(DN, 1, -1),
     _R([[1, 2, 0], [3, -1, 2], [0, 0, -2]], 'float32', (3, 3))),
    ('ops.matrix_band_part(DB, 1, 0)', lambda: ops.matrix_band_part(DB, 1, 0),
     _R([[1, 0], [0, 1], [0, -1]], 'float32', (3, 2))),
    ('ops.matrix_band_part(Tensor([[1, 2], [3, 4]], ms.int32), 0, 0)', lambda: ops.matrix_band_part(Tensor([[1, 2], [3, 4]], ms.int32), 0, 0),
     _R([[1, 0], [0, 4]], 'int32', (2, 2))),
    ('ops.matrix_diag(Tensor(np.array([1.0, 2.0], np.float32)))', lambda: ops.matrix_diag(Tensor(np.array([1.0, 2.0], np.float32))),
     _R([[1, 0], [0, 2]], 'float32', (2, 2))),
    ('ops.matrix_diag(Tensor(np.array([1.0, 2.0], np.float32)), 1)', lambda: ops.matrix_diag(Tensor(np.array([1.0, 2.0], np.float32)), 1),
     _R([[0, 1, 0], [0, 0, 2], [0, 0, 0]], 'float32', (3, 3))),
    ('ops.matrix_diag(Tensor(np.array([1.0, 2.0], np.float32)), -1, padding_value=9)', lambda: ops.matrix_diag(Tensor(np.array([1.0, 2.0], np.float32)), -1, padding_value=9),
     _R([[9, 9, 9], [1, 9, 9], [9, 2, 9]], 'float32', (3, 3))),
    ('ops.matrix_diag(Tensor(np.array([1.0, 2.0], np.float32)), 0, 3, 4)', lambda: ops.matrix_diag(Tensor(np.array([1.0, 2.0], np.float32)), 0, 3, 4),
     _Raises(ValueError)),
    ('ops.matrix_diag(Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)), Tensor(np.array([0, 1], np.int32)))', lambda: ops.matrix_diag(Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)), Tensor(np.array([0, 1], np.int32))),
     _R([[3, 2], [0, 4]], 'float32', (2, 2))),
    ("ops.matrix_diag(Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)), Tensor(np.array([-1, 0], np.int32)), align='LEFT_RIGHT')", lambda: ops.matrix_diag(Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)), Tensor(np.array([-1, 0], np.int32)), align='LEFT_RIGHT'),
     _R([[1, 0, 0], [5, 2, 0], [0, 6, 3]], 'float32', (3, 3))),
    ("ops.matrix_diag(Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)), Tensor(np.array([-1, 0], np.int32)), 3, 3, 7, 'LEFT_LEFT')", lambda: ops.matrix_diag(Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)), Tensor(np.array([-1, 0], np.int32)), 3, 3, 7, 'LEFT_LEFT'),
     _R([[1, 7, 7], [4, 2, 7], [7, 5, 3]], 'float32', (3, 3))),
    ("ops.matrix_diag(Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)), Tensor(np.array([0, 1], np.int32)), align='RIGHT_RIGHT')", lambda: ops.matrix_diag(Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)), Tensor(np.array([0, 1], np.int32)), align='RIGHT_RIGHT'),
     _R([[4, 2, 0], [0, 5, 3], [0, 0, 6]], 'float32', (3, 3))),
    ('ops.matrix_diag(Tensor(np.array([[1, 2], [3, 4]], np.int32)))', lambda: ops.matrix_diag(Tensor(np.array([[1, 2], [3, 4]], np.int32))),
     _R([[[1, 0], [0, 2]], [[3, 0], [0, 4]]], 'int32', (2, 2, 2))),
    ('ops.matrix_diag_part(DN, Tensor(0, ms.int32), Tensor(0.0, ms.float32))', lambda: ops.matrix_diag_part(DN, Tensor(0, ms.int32), Tensor(0.0, ms.float32)),
     _R([1, -1, -2], 'float32', (3,))),
    ('ops.matrix_diag_part(DN, Tensor(1, ms.int32), Tensor(9.0, ms.float32))', lambda: ops.matrix_diag_part(DN, Tensor(1, ms.int32), Tensor(9.0, ms.float32)),
     _R([2, 2], 'float32', (2,))),
    ('ops.matrix_diag_part(DN, Tensor(np.array([-1, 1], np.int32)), Tensor(9.0, ms.float32))', lambda: ops.matrix_diag_part(DN, Tensor(np.array([-1, 1], np.int32)), Tensor(9.0, ms.float32)),
     _R([[9, 2, 2], [1, -1, -2], [3, 0, 9]], 'float32', (3, 3))),
    ("ops.matrix_diag_part(DN, Tensor(np.array([-1, 1], np.int32)), Tensor(9.0, ms.float32), 'LEFT_RIGHT')", lambda: ops.matrix_diag_part(DN, Tensor(np.array([-1, 1], np.int32)), Tensor(9.0, ms.float32), 'LEFT_RIGHT'),
     _R([[2, 2, 9], [1, -1, -2], [9, 3, 0]], 'float32', (3, 3))),
    ("ops.matrix_diag_part(DB, Tensor(np.array([-2, 0], np.int32)), Tensor(0.0, ms.float32), 'LEFT_LEFT')", lambda: ops.matrix_diag_part(DB, Tensor(np.array([-2, 0], np.int32)), Tensor(0.0, ms.float32), 'LEFT_LEFT'),
     _R([[1, 1], [0, -1], [3, 0]], 'float32', (3, 2))),
    ("ops.matrix_diag_part(DB, Tensor(np.array([-1, 1], np.int32)), Tensor(0.0, ms.float32), 'RIGHT_RIGHT')", lambda: ops.matrix_diag_part(DB, Tensor(np.array([-1, 1], np.int32)), Tensor(0.0, ms.float32), 'RIGHT_RIGHT'),
     _R([[0, 2], [1, 1], [0, -1]], 'float32', (3, 2))),
    ('ops.matrix_diag_part(DS, Tensor(0, ms.int32), Tensor(0.0, ms.float32))', lambda: ops.matrix_diag_part(DS, Tensor(0, ms.int32), Tensor(0.0, ms.float32)),
     _R([[2, 3], [1, 1]], 'float32', (2, 2))),
    ('ops.matrix_set_diag(DN, Tensor(np.array([7.0, 8.0, 9.0], np.float32)))', lambda: ops.matrix_set_diag(DN, Tensor(np.array([7.0, 8.0, 9.0], np.float32))),
     _R([[7, 2, 0], [3, 8, 2], [0.5, 0, 9]], 'float32', (3, 3))),
    ('ops.matrix_set_diag(DN, Tensor(np.array([7.0, 8.0], np.float32)), 1)', lambda: ops.matrix_set_diag(DN, Tensor(np.array([7.0, 8.0], np.float32)), 1),
     _R([[1, 7, 0], [3, -1, 8], [0.5, 0, -2]], 'float32', (3, 3))),
    ('ops.matrix_set_diag(DN, Tensor(np.array([[7.0, 8.0, 0.0], [1.0, 2.0, 3.0], [4.0, 5.0, 0.0]], np.float32)), Tensor(np.array([-1, 1], np.int32)))', lambda: ops.matrix_set_diag(DN, Tensor(np.array([[7.0, 8.0, 0.0], [1.0, 2.0, 3.0], [4.0, 5.0, 0.0]], np.float32)), Tensor(np.array([-1, 1], np.int32))),
     _R([[1, 8, 0], [4, 2, 0], [0.5, 5, 3]], 'float32', (3, 3))),
    ("ops.matrix_set_diag(DN, Tensor(np.array([[0.0, 7.0, 8.0], [1.0, 2.0, 3.0], [4.0, 5.0, 0.0]], np.float32)), Tensor(np.array([-1, 1], np.int32)), 'LEFT_LEFT')", lambda: ops.matrix_set_diag(DN, Tensor(np.array([[0.0, 7.0, 8.0], [1.0, 2.0, 3.0], [4.0, 5.0, 0.0]], np.float32)), Tensor(np.array([-1, 1], np.int32)), 'LEFT_LEFT'),
     _R([[1, 0, 0], [4, 2, 7], [0.5, 5, 3]], 'float32', (3, 3))),
    ('ops.matrix_set_diag(DB, Tensor(np.array([5.0, 6.0], np.float32)))', lambda: ops.matrix_set_diag(DB, Tensor(np.array([5.0, 6.0], np.float32))),
     _R([[5, 2], [0, 6], [3, -1]], 'float32', (3, 2))),
    ('ops.renorm(DB, 2, 0, 1.0)', lambda: ops.renorm(DB, 2, 0, 1.0),
     _R([[0.4472136, 0.8944272], [0, 1], [0.9486833, -0.3162278]], 'float32', (3, 2))),
    ('ops.renorm(DB, 1, 1, 3.0)', lambda: ops.renorm(DB, 1, 1, 3.0),
     _R([[0.75, 1.5], [0, 0.75], [2.25, -0.75]], 'float32', (3, 2))),
    ('DB.renorm(2, 1, 2.5)', lambda: DB.renorm(2, 1, 2.5),
     _R([[0.7905694, 2], [0, 1], [2.371708, -1]], 'float32', (3, 2))),
    ('ops.renorm(DS, 3, 0, 2.0)', lambda: ops.renorm(DS, 3, 0, 2.0),
     _R([[[1.2004, 0.6002002], [0.6002002, 1.8006]], [[0.9244817, -1.848963], [0.4622408, 0.9244817]]], 'float32', (2, 2, 2))),
    ('ops.vector_norm(DN)', lambda: ops.vector_norm(DN),
     _R(4.821826, 'float32', ())),
    ('ops.vector_norm(DN, 1)', lambda: ops.vector_norm(DN, 1),
     _R(11.5, 'float32', ())),
    ("ops.vector_norm(DN, float('inf'))", lambda: ops.vector_norm(DN, float('inf')),
     _R(3, 'float32', ())),
    ("ops.vector_norm(DN, -float('inf'), 0)", lambda: ops.vector_norm(DN, -float('inf'), 0),
     _R([0.5, 0, 0], 'float32', (3,))),
    ('ops.vector_norm(DN, 0)', lambda: ops.vector_norm(DN, 0),
     _R(7, 'float32', ())),
    ('ops.vector_norm(DN, 3, (0, 1), True)', lambda: ops.vector_norm(DN, 3, (0, 1), True),
     _R([[3.759237]], 'float32', (1, 1))),
    ('ops.vector_norm(DN, 2, 1, keepdims=True)', lambda: ops.vector_norm(DN, 2, 1, keepdims=True),
     _R([[2.236068], [3.741657], [2.061553]], 'float32', (3, 1))),
    ('ops.vector_norm(DN, 0.5, -1)', lambda: ops.vector_norm(DN, 0.5, -1),
     _R([5.828428, 17.19151, 4.5], 'float32', (3,))),
    ('ops.vector_norm(Tensor([1, 2], ms.int32))', lambda: ops.vector_norm(Tensor([1, 2], ms.int32)),
     _R(2.236068, 'float32', ())),
    ('ops.vector_norm(DN, dtype=ms.float64)', lambda: ops.vector_norm(DN, dtype=ms.float64),
     _R(4.821825, 'float64', ())),
    ('ops.matrix_norm(DN)', lambda: ops.matrix_norm(DN),
     _R(4.821826, 'float32', ())),
    ("ops.matrix_norm(DN, 'nuc')", lambda: ops.matrix_norm(DN, 'nuc'),
     _R(7.94509, 'float32', ())),
    ("ops.matrix_norm(DN, float('inf'))", lambda: ops.matrix_norm(DN, float('inf')),
     _R(6, 'float32', ())),
    ("ops.matrix_norm(DN, -float('inf'))", lambda: ops.matrix_norm(DN, -float('inf')),
     _R(2.5, 'float32', ())),
    ('ops.matrix_norm(DN, 1)', lambda: ops.matrix_norm(DN, 1),
     _R(4.5, 'float32', ())),
    ('ops.matrix_norm(DN, -1)', lambda: ops.matrix_norm(DN, -1),
     _R(3, 'float32', ())),
    ('ops.matrix_norm(DN, 2)', lambda: ops.matrix_norm(DN, 2),
     _R(3.831383, 'float32', ())),
    ('ops.matrix_norm(DN, -2)', lambda: ops.matrix_norm(DN, -2),
     _R(1.82317, 'float32', ())),
    ('ops.matrix_norm(DS, 1, keepdims=True)', lambda: ops.matrix_norm(DS, 1, keepdims=True),
     _R([[[4]], [[3]]], 'float32', (2, 1, 1))),
    ("ops.matrix_norm(DS, 'fro', (0, 2))", lambda: ops.matrix_norm(DS, 'fro', (0, 2)),
     _R([3.162278, 3.354102], 'float32', (2,))),
    ("ops.matrix_norm(DS, 'nuc', (2, 1), True)", lambda: ops.matrix_norm(DS, 'nuc', (2, 1), True),
     _R([[[5]], [[3.201562]]], 'float32', (2, 1, 1))),
    ('ops.matrix_norm(DN, 3)', lambda: ops.matrix_norm(DN, 3),
     _Raises(ValueError)),
]


def test_products():
    _run_table(PRODUCT_CASES)


def test_decompositions_solves_norms():
    _run_table(DECOMPOSITION_CASES, rtol=1e-4)


def test_tensor_addr_addmv_positional_scales():
    # MindSpore 2.10: Tensor.addr / Tensor.addmv take beta and alpha by position too
    a = Tensor(np.ones((2, 3), np.float32))
    v2, v3 = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([1.0, 0.0, 2.0], np.float32))
    np.testing.assert_allclose(a.addr(v2, v3, 0.5, 2).asnumpy(), [[2.5, 0.5, 4.5], [4.5, 0.5, 8.5]])
    np.testing.assert_allclose(v2.addmv(a, v3, 2, 3).asnumpy(), [11.0, 13.0])
    np.testing.assert_allclose(v2.addmv(a, v3, beta=2).asnumpy(), [5.0, 7.0])


def test_einsum_matches_numpy():
    # MindSpore 2.10 CPU has no Einsum kernel ("Unsupported op [Einsum] on CPU"): NumPy's einsum is the reference
    a, b = PA.asnumpy(), PB.asnumpy()
    b1, b2, v3 = PB1.asnumpy(), PB2.asnumpy(), PV3.asnumpy()
    for eq, xs in [("ij,jk->ik", (a, b)), ("ij->ji", (a,)), ("ii->i", (a[:, :2],)), ("ii", (a[:, :2],)),
                   ("bij,bjk->bik", (b1, b2)), ("...j,j->...", (b1, v3)), ("i,j->ij", (v3, v3)),
                   ("ij,ij->", (a, a)), ("ij,kj", (a, a)), ("ij,jk,kl->il", (a, b, a[:, :2]))]:
        got = ops.einsum(eq, *[Tensor(x) for x in xs])
        np.testing.assert_allclose(got.asnumpy(), np.einsum(eq, *xs), rtol=1e-5, atol=1e-6)
        assert got.dtype == ms.float32
    with pytest.raises(ValueError, match="einsum"):
        ops.einsum("ij,jk->ik", PA, PA)
    x = Tensor(np.linspace(-1, 1, 6).reshape(2, 3))
    y = Tensor(np.linspace(0.5, 2, 9).reshape(3, 3))
    for eq, args in [("ij,jk->ik", (x, y)), ("ii->i", (y,)), ("ij->", (x,)), ("ij,kj->ik", (x, x)),
                     ("ii", (y,)), ("i,i->i", (y[0], y[1]))]:
        check_grad(lambda *t, eq=eq: ops.einsum(eq, *t), *args)


def test_svd_eig_up_to_signs():
    # singular vectors and eigenvectors are unique up to sign (and LAPACK's order for eig): MindSpore 2.10 CPU
    # picks other signs than NumPy's LAPACK, so the factors are checked by what defines them
    for a in (DA, DB, DS, DN):
        s, u, v = ops.svd(a)
        rebuilt = np.matmul(u.asnumpy() * s.asnumpy()[..., None, :], np.swapaxes(v.asnumpy(), -1, -2))
        np.testing.assert_allclose(rebuilt, a.asnumpy(), atol=1e-5)
    s, u, v = ops.svd(DA)
    np.testing.assert_allclose(np.abs(u.asnumpy()), np.abs([[0.6165673, 0.3257671, -0.7167434],
                                                             [0.2580044, 0.7765022, 0.5748724],
                                                             [0.7438273, -0.5393702, 0.3947164]]), atol=1e-5)
    s, u, v = ops.svd(DB, full_matrices=True)
    assert (s.shape, u.shape, v.shape) == ((2,), (3, 3), (2, 2))
    w, vec = ops.eig(DN)
    assert w.dtype == ms.dtype.complex64 and vec.dtype == ms.dtype.complex64 and w.shape == (3,) and vec.shape == (3, 3)
    np.testing.assert_allclose(DN.asnumpy() @ vec.asnumpy(), vec.asnumpy() * w.asnumpy(), atol=1e-5)
    np.testing.assert_allclose(np.sort(ops.eigvals(DA).asnumpy().real), [2.096522, 3.072224, 6.831254], rtol=1e-5)
    np.testing.assert_allclose(np.sort(DA.eigvals().asnumpy().real), [2.096522, 3.072224, 6.831254], rtol=1e-5)
    assert ops.eigvals(Tensor(np.eye(2))).dtype == ms.dtype.complex128


def test_linalg_gradients():
    rng = np.random.default_rng(0)
    a = Tensor(rng.standard_normal((3, 3)) + 3 * np.eye(3))
    spd = Tensor(DA.asnumpy().astype(np.float64))
    tall = Tensor(rng.standard_normal((4, 3)))
    b = Tensor(rng.standard_normal((3, 2)))
    batch = Tensor(rng.standard_normal((2, 3, 3)) + 3 * np.eye(3))
    check_grad(ops.det, a)
    check_grad(ops.det, batch)
    check_grad(lambda t: ops.slogdet(t)[1], a)
    check_grad(ops.logdet, spd)
    check_grad(ops.inverse, batch)
    check_grad(lambda t: ops.cholesky((t + t.T) / 2), spd)
    check_grad(lambda t: ops.cholesky((t + t.T) / 2, upper=True), spd)
    check_grad(lambda t: ops.qr(t)[0] * 2 + ops.qr(t)[1].sum(), tall)
    check_grad(lambda t: ops.svd(t, compute_uv=False), tall)
    def svd_invariant(t):                  # sign-invariant functions of U and V
        s, u, v = ops.svd(t)
        return s * 1.5, (u * u * Tensor(np.arange(1.0, u.size + 1).reshape(u.shape))).sum(), \
            (v * v * Tensor(np.arange(1.0, v.size + 1).reshape(v.shape))).sum()
    check_grad(svd_invariant, tall)
    check_grad(svd_invariant, tall.T)
    check_grad(ops.pinv, tall)
    check_grad(ops.matrix_solve, a, b)
    check_grad(lambda m, r: ops.matrix_solve(m, r, True), a, b)
    check_grad(lambda r, l: ops.cholesky_solve(r, l), b, Tensor(np.linalg.cholesky(spd.asnumpy())))
    check_grad(lambda l: ops.cholesky_inverse(l), Tensor(np.linalg.cholesky(spd.asnumpy())))
    check_grad(lambda r, lu: ops.lu_solve(r, lu, Tensor(np.array([2, 2, 3], np.int32))), b, spd)
    check_grad(ops.lstsq, tall, Tensor(rng.standard_normal((4, 2))))
    check_grad(lambda t: ops.matrix_power(t, 3), a)
    check_grad(lambda t: ops.matrix_power(t, -2), a)
    check_grad(ops.cond, a)
    check_grad(lambda t: ops.cond(t, 'fro'), a)
    check_grad(lambda t: ops.matrix_band_part(t, 0, 1), a)
    check_grad(lambda t: ops.matrix_diag_part(t, Tensor(np.array([-1, 1], np.int32)), Tensor(0.0, ms.float64)), a)
    check_grad(lambda t: ops.matrix_diag(t, Tensor(np.array([0, 1], np.int32))), b.T)
    check_grad(lambda t, d: ops.matrix_set_diag(t, d), a, Tensor(rng.standard_normal(3)))
    check_grad(lambda t: ops.renorm(t, 2, 0, 1.0), b)
    for o in (2, 1, 3, float('inf'), 0.5):
        check_grad(lambda t, o=o: ops.vector_norm(t, o, 1), b)
    for o in ('fro', 'nuc', 1, -1, float('inf'), 2, -2):
        check_grad(lambda t, o=o: ops.matrix_norm(t, o), a)
    x, y, v3, v2 = Tensor(rng.standard_normal((2, 3))), Tensor(rng.standard_normal((3, 2))), \
        Tensor(rng.standard_normal(3)), Tensor(rng.standard_normal(2))
    check_grad(ops.mm, x, y)
    check_grad(ops.mv, x, v3)
    check_grad(lambda p, q, r: ops.addmv(p, q, r, beta=0.5, alpha=2), v2, x, v3)
    check_grad(lambda p, q, r: ops.addr(p, q, r, beta=0.5, alpha=2), x, v2, v3)
    check_grad(lambda p, q, r: ops.addbmm(p, q, r, beta=2), Tensor(np.ones((2, 2))), Tensor(rng.standard_normal((2, 2, 3))),
               Tensor(rng.standard_normal((2, 3, 2))))
    check_grad(lambda p, q: ops.batch_dot(p, q, (2, 1)), Tensor(rng.standard_normal((2, 2, 3))),
               Tensor(rng.standard_normal((2, 3, 2))))
    check_grad(ops.inner, x, x)
    check_grad(ops.ger, v2, v3)
    check_grad(ops.kron, x, y)
    check_grad(ops.cross, x, x[::-1] * 2)
    check_grad(lambda p, q: ops.tensor_dot(p, q, ((1,), (0,))), x, y)
    check_grad(ops.block_diag, x, y)
    check_grad(lambda t: ops.vander(t, 4), v3)
    check_grad(ops.cov, x)
    check_grad(lambda t: ops.cov(t, aweights=Tensor(np.array([0.5, 1.0, 2.0]))), x)
    check_grad(ops.adjoint, x)
