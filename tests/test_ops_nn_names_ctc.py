"""ops.ctc_loss and ctc_greedy_decoder: values, dtypes, shapes (the log alphas too) are MindSpore 2.10 (CPU)'s for the
same calls; the gradient is checked against finite differences and against MindSpore's."""

import numpy as np

import mscustom as ms
from mscustom import ops, Tensor
from mscustom.testing import check_grad

_r = np.random.default_rng(0)
CLP = _r.standard_normal((5, 2, 4)).astype(np.float32)
CLP = Tensor(CLP - np.log(np.exp(CLP).sum(-1, keepdims=True)))
CT = Tensor(np.array([[1, 2, 2], [3, 1, 0]], np.int32))
CIL = Tensor(np.array([5, 4], np.int32))
CTL = Tensor(np.array([3, 2], np.int32))
CX = Tensor(_r.standard_normal((4, 2, 3)).astype(np.float32))


from ops_nn_oracle_table import _R, _run_table


CTC_CASES = [
    ("ops.ctc_loss(CLP, CT, CIL, CTL, 0, 'none')", lambda: ops.ctc_loss(CLP, CT, CIL, CTL, 0, 'none'),
     (_R([5.282315, 2.118215], 'float32', (2,)), _R([[[-1.487323, -1.745158, -np.inf, -np.inf, -np.inf, -np.inf, -np.inf], [-3.047697, -3.036867, -3.305532, -3.225071, -np.inf, -np.inf, -np.inf], [-5.324448, -4.397912, -4.745807, -3.404972, -5.501822, -np.inf, -np.inf], [-5.911633, -5.460999, -4.450845, -5.149251, -3.876294, -7.735977, -np.inf], [-7.726495, -6.082788, -5.955166, -5.270419, -5.444294, -5.296416, -9.550838]], [[-2.649883, -1.167133, -np.inf, -np.inf, -np.inf, -np.inf, -np.inf], [-5.487597, -2.207501, -4.004847, -1.898608, -np.inf, -np.inf, -np.inf], [-7.523632, -3.726557, -4.090181, -1.821245, -3.934642, -np.inf, -np.inf], [-9.098023, -5.03021, -4.773175, -2.492815, -3.28157, -np.inf, -np.inf], [-np.inf, -np.inf, -np.inf, -np.inf, -np.inf, -np.inf, -np.inf]]], 'float32', (2, 5, 7)),)),
    ('ops.ctc_loss(CLP, CT, CIL, CTL)', lambda: ops.ctc_loss(CLP, CT, CIL, CTL),
     (_R(1.40994, 'float32', ()), _R([[[-1.487323, -1.745158, -np.inf, -np.inf, -np.inf, -np.inf, -np.inf], [-3.047697, -3.036867, -3.305532, -3.225071, -np.inf, -np.inf, -np.inf], [-5.324448, -4.397912, -4.745807, -3.404972, -5.501822, -np.inf, -np.inf], [-5.911633, -5.460999, -4.450845, -5.149251, -3.876294, -7.735977, -np.inf], [-7.726495, -6.082788, -5.955166, -5.270419, -5.444294, -5.296416, -9.550838]], [[-2.649883, -1.167133, -np.inf, -np.inf, -np.inf, -np.inf, -np.inf], [-5.487597, -2.207501, -4.004847, -1.898608, -np.inf, -np.inf, -np.inf], [-7.523632, -3.726557, -4.090181, -1.821245, -3.934642, -np.inf, -np.inf], [-9.098023, -5.03021, -4.773175, -2.492815, -3.28157, -np.inf, -np.inf], [-np.inf, -np.inf, -np.inf, -np.inf, -np.inf, -np.inf, -np.inf]]], 'float32', (2, 5, 7)),)),
    ("ops.ctc_loss(CLP, CT, CIL, CTL, 0, 'sum')", lambda: ops.ctc_loss(CLP, CT, CIL, CTL, 0, 'sum'),
     (_R(7.40053, 'float32', ()), _R([[[-1.487323, -1.745158, -np.inf, -np.inf, -np.inf, -np.inf, -np.inf], [-3.047697, -3.036867, -3.305532, -3.225071, -np.inf, -np.inf, -np.inf], [-5.324448, -4.397912, -4.745807, -3.404972, -5.501822, -np.inf, -np.inf], [-5.911633, -5.460999, -4.450845, -5.149251, -3.876294, -7.735977, -np.inf], [-7.726495, -6.082788, -5.955166, -5.270419, -5.444294, -5.296416, -9.550838]], [[-2.649883, -1.167133, -np.inf, -np.inf, -np.inf, -np.inf, -np.inf], [-5.487597, -2.207501, -4.004847, -1.898608, -np.inf, -np.inf, -np.inf], [-7.523632, -3.726557, -4.090181, -1.821245, -3.934642, -np.inf, -np.inf], [-9.098023, -5.03021, -4.773175, -2.492815, -3.28157, -np.inf, -np.inf], [-np.inf, -np.inf, -np.inf, -np.inf, -np.inf, -np.inf, -np.inf]]], 'float32', (2, 5, 7)),)),
    ("ops.ctc_loss(CLP, CT, CIL, CTL, 3, 'none')[0]", lambda: ops.ctc_loss(CLP, CT, CIL, CTL, 3, 'none')[0],
     _R([6.015386, 1.519359], 'float32', (2,))),
    ("ops.ctc_loss(CLP, Tensor(np.array([[1, 1, 1], [2, 2, 2]], np.int32)), Tensor(np.array([3, 5], np.int32)), Tensor(np.array([3, 3], np.int32)), 0, 'none', False)[0]", lambda: ops.ctc_loss(CLP, Tensor(np.array([[1, 1, 1], [2, 2, 2]], np.int32)), Tensor(np.array([3, 5], np.int32)), Tensor(np.array([3, 3], np.int32)), 0, 'none', False)[0],
     _R([np.inf, 9.095591], 'float32', (2,))),
    ("ops.ctc_loss(CLP, Tensor(np.array([[1, 3, 1], [2, 0, 0]], np.int32)), Tensor(np.array([5, 5], np.int32)), Tensor(np.array([3, 1], np.int32)), 0, 'none')", lambda: ops.ctc_loss(CLP, Tensor(np.array([[1, 3, 1], [2, 0, 0]], np.int32)), Tensor(np.array([5, 5], np.int32)), Tensor(np.array([3, 1], np.int32)), 0, 'none'),
     (_R([3.435884, 7.364614], 'float32', (2,)), _R([[[-1.487323, -1.745158, -np.inf, -np.inf, -np.inf, -np.inf, -np.inf], [-3.047697, -3.036867, -3.305532, -2.560471, -np.inf, -np.inf, -np.inf], [-5.324448, -4.397912, -4.745807, -2.510551, -4.837222, -4.609263, -np.inf], [-5.911633, -5.460999, -4.450845, -4.693062, -3.004592, -3.708151, -5.196448], [-7.726495, -6.082788, -5.955166, -4.986084, -4.649878, -3.600814, -5.319454]], [[-2.649883, -0.8102137, -np.inf, -np.inf, -np.inf, -np.inf, -np.inf], [-5.487597, -2.421363, -3.647928, -np.inf, -np.inf, -np.inf, -np.inf], [-7.523632, -4.948514, -4.200201, -np.inf, -np.inf, -np.inf, -np.inf], [-9.098023, -7.001412, -5.38718, -np.inf, -np.inf, -np.inf, -np.inf], [-11.8364, -8.1861, -7.944036, -np.inf, -np.inf, -np.inf, -np.inf]]], 'float32', (2, 5, 7)),)),
    ("ops.ctc_loss(CLP, Tensor(np.array([[1, 3, 1], [2, 0, 0]], np.int32)), Tensor(np.array([5, 2], np.int32)), Tensor(np.array([0, 1], np.int32)), 0, 'mean')[0]", lambda: ops.ctc_loss(CLP, Tensor(np.array([[1, 3, 1], [2, 0, 0]], np.int32)), Tensor(np.array([5, 2], np.int32)), Tensor(np.array([0, 1], np.int32)), 0, 'mean')[0],
     _R(4.945331, 'float32', ())),
    ('ops.ctc_greedy_decoder(CX, Tensor(np.array([4, 3], np.int32)))', lambda: ops.ctc_greedy_decoder(CX, Tensor(np.array([4, 3], np.int32))),
     (_R([[0, 0], [1, 0]], 'int64', (2, 2)), _R([1, 0], 'int64', (2,)), _R([2, 1], 'int64', (2,)), _R([[-3.694222], [-2.792458]], 'float32', (2, 1)),)),
    ('ops.ctc_greedy_decoder(CX, Tensor(np.array([4, 3], np.int32)), False)', lambda: ops.ctc_greedy_decoder(CX, Tensor(np.array([4, 3], np.int32)), False),
     (_R([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], 'int64', (5, 2)), _R([1, 1, 1, 0, 0], 'int64', (5,)), _R([2, 3], 'int64', (2,)), _R([[-3.694222], [-2.792458]], 'float32', (2, 1)),)),
    ('ops.ctc_greedy_decoder(CX, Tensor(np.array([2, 4], np.int32)))', lambda: ops.ctc_greedy_decoder(CX, Tensor(np.array([2, 4], np.int32))),
     (_R([[0, 0], [1, 0], [1, 1]], 'int64', (3, 2)), _R([1, 0, 1], 'int64', (3,)), _R([2, 2], 'int64', (2,)), _R([[-3.474182], [-4.531826]], 'float32', (2, 1)),)),
]


def test_ctc():
    _run_table(CTC_CASES)


def test_ctc_loss_gradient():
    # MindSpore's CTC gradient for log_probs is exp(log_probs) - occupancy, which is the gradient through a
    # log_softmax; here log_probs get the exact derivative, so the two agree through log_softmax
    g = ms.grad(lambda x: ops.ctc_loss(ops.log_softmax(x, -1), CT, CIL, CTL, 0, 'sum')[0])(CLP).asnumpy()
    np.testing.assert_allclose(g[:, 0], [[0.03887348, -0.6382787, 0.37808728, 0.22131844],
                                         [-0.04348044, -0.21189827, -0.18712176, 0.44250068],
                                         [-0.03738105, 0.12889053, -0.59309626, 0.501587],
                                         [-0.40975684, 0.24742611, 0.07272947, 0.0896017],
                                         [0.14885795, 0.32798368, -0.74930114, 0.27245975]], atol=2e-5)
    lp = Tensor(CLP.asnumpy().astype(np.float64))
    check_grad(lambda x: ops.ctc_loss(x, CT, CIL, CTL, 0, 'mean')[0], lp)
    check_grad(lambda x: ops.ctc_loss(x, Tensor(np.array([[1, 1, 2], [2, 0, 0]], np.int32)), CIL,
                                      Tensor(np.array([3, 1], np.int32)), 3, 'none')[0], lp)


def test_ctc_zero_infinity():
    # MindSpore 2.10 CPU returns inf even with zero_infinity=True; its documented behaviour is 0
    t = Tensor(np.array([[1, 1, 1], [2, 2, 2]], np.int32))
    loss = ops.ctc_loss(CLP, t, Tensor(np.array([3, 5], np.int32)), Tensor(np.array([3, 3], np.int32)), 0, 'none',
                        True)[0].asnumpy()
    np.testing.assert_allclose(loss, [0.0, 9.095591], rtol=1e-5)
