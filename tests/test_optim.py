"""Optimizers against hand-written NumPy references, their errors, and the training wrappers."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn

STEPS = 3


def make_params(rng, names=("w", "b")):
    shapes = {"w": (3, 2), "b": (2,), "gamma": (2,), "beta": (2,)}
    return [ms.Parameter(ms.Tensor(rng.normal(size=shapes[n]).astype(np.float32)), name=n) for n in names]


def grad_sequence(rng, params):
    return [[rng.normal(size=p.shape).astype(np.float32) for p in params] for _ in range(STEPS)]


def run(opt, params, grads):
    for gs in grads:
        assert opt(tuple(ms.Tensor(g) for g in gs)) is True
    return [p.asnumpy().astype(np.float64) for p in params]


def check(opt_factory, reference, rng, names=("w", "b"), rtol=1e-5):
    params = make_params(rng, names)
    start = [p.asnumpy().astype(np.float64) for p in params]
    grads = grad_sequence(rng, params)
    got = run(opt_factory(params), params, grads)
    want = reference(start, [[g.astype(np.float64) for g in gs] for gs in grads])
    for p, g, w in zip(params, got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-6, err_msg=p.name)


# ================================================================== update rules
def test_sgd_plain(rng):
    def ref(ps, grads):
        for gs in grads:
            ps = [p - 0.1 * g for p, g in zip(ps, gs)]
        return ps
    check(lambda ps: nn.SGD(ps), ref, rng)                      # default learning_rate 0.1


@pytest.mark.parametrize("nesterov,dampening", [(False, 0.0), (True, 0.0), (False, 0.3)])
def test_sgd_momentum(nesterov, dampening, rng):
    lr, mu = 0.05, 0.9

    def ref(ps, grads):
        vs = [np.zeros_like(p) for p in ps]
        for t, gs in enumerate(grads):
            damp = 0.0 if t == 0 else dampening     # MindSpore: the first step is not dampened
            vs = [mu * v + (1 - damp) * g for v, g in zip(vs, gs)]
            if nesterov:
                ps = [p - lr * (g + mu * v) for p, g, v in zip(ps, gs, vs)]
            else:
                ps = [p - lr * v for p, v in zip(ps, vs)]
        return ps
    check(lambda ps: nn.SGD(ps, learning_rate=lr, momentum=mu, dampening=dampening, nesterov=nesterov), ref, rng)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum(nesterov, rng):
    lr, mu = 0.02, 0.8

    def ref(ps, grads):
        vs = [np.zeros_like(p) for p in ps]
        for gs in grads:
            vs = [mu * v + g for v, g in zip(vs, gs)]
            ps = [p - lr * ((g + mu * v) if nesterov else v) for p, g, v in zip(ps, gs, vs)]
        return ps
    check(lambda ps: nn.Momentum(ps, lr, mu, use_nesterov=nesterov), ref, rng)


@pytest.mark.parametrize("nesterov", [False, True])
def test_adam(nesterov, rng):
    lr, b1, b2, eps = 0.01, 0.8, 0.95, 1e-6

    def ref(ps, grads):
        ms_, vs = [np.zeros_like(p) for p in ps], [np.zeros_like(p) for p in ps]
        for t, gs in enumerate(grads, start=1):
            ms_ = [b1 * m + (1 - b1) * g for m, g in zip(ms_, gs)]
            vs = [b2 * v + (1 - b2) * g * g for v, g in zip(vs, gs)]
            lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
            num = [(b1 * m + (1 - b1) * g) if nesterov else m for m, g in zip(ms_, gs)]
            ps = [p - lr_t * n / (np.sqrt(v) + eps) for p, n, v in zip(ps, num, vs)]
        return ps
    check(lambda ps: nn.Adam(ps, lr, b1, b2, eps, use_nesterov=nesterov), ref, rng)


def test_adam_defaults(rng):
    def ref(ps, grads):
        ms_, vs = [np.zeros_like(p) for p in ps], [np.zeros_like(p) for p in ps]
        for t, gs in enumerate(grads, start=1):
            ms_ = [0.9 * m + 0.1 * g for m, g in zip(ms_, gs)]
            vs = [0.999 * v + 0.001 * g * g for v, g in zip(vs, gs)]
            lr_t = 1e-3 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
            ps = [p - lr_t * m / (np.sqrt(v) + 1e-8) for p, m, v in zip(ps, ms_, vs)]
        return ps
    check(nn.Adam, ref, rng)


def test_weight_decay_skips_beta_and_gamma_unless_grouped(rng):
    lr, wd = 0.1, 0.01

    def ref(ps, grads):
        decays = [wd, 0.0, 0.0]                                   # w, gamma, beta
        for gs in grads:
            ps = [p - lr * (g + d * p) for p, g, d in zip(ps, gs, decays)]
        return ps
    check(lambda ps: nn.SGD(ps, learning_rate=lr, weight_decay=wd), ref, rng, names=("w", "gamma", "beta"))

    def ref_grouped(ps, grads):
        for gs in grads:
            ps = [p - lr * (g + wd * p) for p, g in zip(ps, gs)]
        return ps
    check(lambda ps: nn.SGD([{"params": ps, "weight_decay": wd}], learning_rate=lr), ref_grouped, rng,
          names=("w", "gamma", "beta"))


def test_group_learning_rates_and_loss_scale(rng):
    def ref(ps, grads):
        for gs in grads:
            ps = [ps[0] - 0.1 * gs[0] / 4, ps[1] - 0.5 * gs[1] / 4]
        return ps
    check(lambda ps: nn.SGD([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.5}], learning_rate=0.1,
                            loss_scale=4.0), ref, rng)


def test_learning_rate_can_change_between_steps(rng):
    params = make_params(rng)
    start = [p.asnumpy().copy() for p in params]
    opt = nn.SGD(params, learning_rate=0.1)
    g = [np.ones(p.shape, np.float32) for p in params]
    opt(tuple(ms.Tensor(x) for x in g))
    opt.learning_rate = 0.01
    assert opt.get_lr().shape == () and opt.get_lr().item() == pytest.approx(0.01)
    opt(tuple(ms.Tensor(x) for x in g))
    np.testing.assert_allclose(params[0].asnumpy(), start[0] - 0.11, rtol=1e-6)
    opt.learning_rate = ms.Tensor(np.float32(0.5))      # a one-element Tensor is read as a float
    assert opt.learning_rate == 0.5
    with pytest.raises(ValueError, match=r"SGD: learning_rate must be in \[0, inf\), got -1.0"):
        opt.learning_rate = -1.0


def test_update_is_in_place_and_state_is_named(rng):
    params = make_params(rng)
    arrays = [p._data for p in params]
    opt = nn.Adam(params)
    assert isinstance(opt.parameters, ms.ParameterTuple) and opt.parameters[0] is params[0]
    assert [m.name for m in opt.moment1] == ["moment1.w", "moment1.b"]
    assert not opt.moment2[0].requires_grad
    opt(tuple(ms.Tensor(np.ones(p.shape, np.float32)) for p in params))
    assert all(p._data is a for p, a in zip(params, arrays))
    assert opt.global_step == 1
    assert opt.trainable_params() == []                 # the optimizer owns no trainable weights
    np.testing.assert_allclose(opt.moment1[0].asnumpy(), 0.1)


def test_float64_gradients_update_float32_parameters(rng):
    params = make_params(rng, ("w",))
    before = params[0].asnumpy().copy()
    nn.SGD(params, learning_rate=1.0)((ms.Tensor(np.full((3, 2), 0.5)),))
    assert params[0].dtype == ms.float32
    np.testing.assert_allclose(params[0].asnumpy(), before - 0.5, rtol=1e-6)


# ================================================================== errors
def test_optimizer_gradient_errors(rng):
    params = make_params(rng)
    opt = nn.Adam(params)
    with pytest.raises(ValueError, match=r"Adam: expected a tuple of 2 gradient\(s\) aligned with its "
                                         r"parameters, got 1 gradient\(s\)"):
        opt((ms.Tensor(np.zeros((3, 2), np.float32)),))
    with pytest.raises(ValueError, match=r"Momentum: the gradient for parameter 'b' has shape \[3\], expected \[2\]"):
        nn.Momentum(params, 0.1, 0.9)((ms.Tensor(np.zeros((3, 2), np.float32)), ms.Tensor(np.zeros(3, np.float32))))
    with pytest.raises(ValueError, match="SGD: expected a tuple of 2 gradient.*got a Tensor"):
        nn.SGD(params)(ms.Tensor(np.zeros(2, np.float32)))


def test_optimizer_argument_errors(rng):
    params = make_params(rng)
    with pytest.raises(ValueError, match=r"SGD: learning_rate must be in \[0, inf\), got -0.1"):
        nn.SGD(params, learning_rate=-0.1)
    with pytest.raises(TypeError, match="Adam: learning_rate must be a number, got str"):
        nn.Adam(params, learning_rate="fast")
    with pytest.raises(ValueError, match=r"Adam: beta1 must be in \[0, 1\), got 1.0"):
        nn.Adam(params, beta1=1.0)
    with pytest.raises(ValueError, match=r"Adam: eps must be in \(0, inf\), got 0.0"):
        nn.Adam(params, eps=0.0)
    with pytest.raises(ValueError, match="SGD: params is empty"):
        nn.SGD([])
    with pytest.raises(TypeError, match="Momentum: every parameter must be a Parameter, got Tensor"):
        nn.Momentum([ms.Tensor([1.0])], 0.1, 0.9)
    with pytest.raises(ValueError, match="Adam: parameter 'w' is given more than once"):
        nn.Adam([params[0], params[0]])
    with pytest.raises(ValueError, match="SGD: nesterov=True needs momentum > 0"):
        nn.SGD(params, nesterov=True)
    with pytest.raises(ValueError, match=r"SGD: unknown key\(s\) \['momentum'\] in a parameter group"):
        nn.SGD([{"params": params, "momentum": 0.9}])
    with pytest.raises(ValueError, match=r"Momentum: momentum must be in \[0, inf\), got -0.5"):
        nn.Momentum(params, 0.1, -0.5)


# ================================================================== training wrappers
class Regressor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(3, 16, weight_init="he_uniform", activation="tanh")
        self.fc2 = nn.Dense(16, 1, weight_init="xavier_uniform")

    def construct(self, x):
        return self.fc2(self.fc1(x))


def regression_data(rng):
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = (np.sin(x[:, :1]) + 0.5 * x[:, 1:2] * x[:, 2:3]).astype(np.float32)
    return ms.Tensor(x), ms.Tensor(y)


@pytest.mark.parametrize("make_opt", [
    lambda ps: nn.SGD(ps, learning_rate=0.05, momentum=0.9),
    lambda ps: nn.Momentum(ps, 0.05, 0.9),
    lambda ps: nn.Adam(ps, learning_rate=0.01),
])
def test_train_one_step_cell_decreases_the_loss(make_opt, rng):
    ms.set_seed(0)
    net = Regressor()
    x, y = regression_data(rng)
    loss_net = nn.WithLossCell(net, nn.MSELoss())
    step = nn.TrainOneStepCell(loss_net, make_opt(net.trainable_params()))
    assert net.training and net.fc1.training
    first = float(loss_net(x, y).asnumpy())
    losses = [float(step(x, y).asnumpy()) for _ in range(60)]
    assert losses[0] == pytest.approx(first, rel=1e-6)     # the returned loss is before the update
    assert losses[-1] < 0.5 * first
    assert [p.name for p in step.trainable_params()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


def test_train_one_step_cell_sens_scales_the_gradients(rng):
    x, y = regression_data(rng)
    results = []
    for sens, lr in ((1.0, 0.02), (4.0, 0.005)):
        ms.set_seed(1)
        net = Regressor()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), lr), sens=sens)
        for _ in range(3):
            step(x, y)
        results.append([p.asnumpy().copy() for p in net.trainable_params()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def test_train_one_step_cell_errors(rng):
    net = Regressor()
    with pytest.raises(TypeError, match="TrainOneStepCell: optimizer must be an nn optimizer.*got function"):
        nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), lambda grads: None)
    with pytest.raises(TypeError, match="TrainOneStepCell: network must be a Cell, got function"):
        nn.TrainOneStepCell(lambda x: x, nn.SGD(net.trainable_params()))
    with pytest.raises(TypeError, match="WithLossCell: backbone must be a Cell, got int"):
        nn.WithLossCell(3, nn.MSELoss())


def test_one_pass_sgd_update_is_bit_identical_to_the_two_numpy_passes():
    from mscustom.nn.optim._one_pass import MIN_SIZE, sub_scaled
    from mscustom.ops import _loop_loader
    _loop_loader.load()                 # loaded in the background otherwise (NumPy's passes until then)
    rng = np.random.default_rng(7)
    for dt in (np.float32, np.float64):
        for lr in (0.01, 0.3333333, 7, 1e-7):
            p = (rng.standard_normal(MIN_SIZE + 5) * 1e3).astype(dt)
            g = (rng.standard_normal(MIN_SIZE + 5) * 1e-3).astype(dt)
            want = p.copy()
            work = np.empty_like(g)
            np.multiply(g, lr, out=work)
            np.subtract(want, work, out=want)
            assert sub_scaled(p, g, lr)
            np.testing.assert_array_equal(p, want)
    big = np.ones(MIN_SIZE, np.float32)
    # not done where NumPy would round differently (a NumPy float64 scale, float16) or for small arrays
    assert not sub_scaled(big, big.copy(), np.float64(0.1))
    assert not sub_scaled(big.astype(np.float16), big.astype(np.float16), 0.1)
    assert not sub_scaled(big[:10], big[:10].copy(), 0.1)
    strided = np.ones(2 * MIN_SIZE, np.float32).reshape(64, -1)[:, ::2]
    assert not sub_scaled(strided, np.ones(strided.shape, np.float32), 0.1)
    np.testing.assert_array_equal(big, 1.0)


def test_plain_sgd_on_a_large_parameter_equals_the_two_pass_numpy_update():
    from mscustom.nn.optim._one_pass import MIN_SIZE
    rng = np.random.default_rng(8)
    w0 = rng.standard_normal((4, MIN_SIZE // 4)).astype(np.float32)
    g = rng.standard_normal(w0.shape).astype(np.float32)
    w = ms.Parameter(ms.Tensor(w0.copy()), name="w")
    opt = nn.SGD([w], learning_rate=0.05)
    want = w0.copy()
    for _ in range(2):
        opt((ms.Tensor(g),))
        want -= g * 0.05
    np.testing.assert_array_equal(w.asnumpy(), want)


def test_plain_sgd_updates_every_parameter_in_one_pass_once_one_is_large(monkeypatch):
    """sub_scaled_all: the two-pass NumPy values for every parameter, small ones included; nothing done
    (False) when one pair does not fit, or when no parameter is large and the loop is not loaded."""
    from mscustom.nn.optim import _one_pass
    from mscustom.ops import _loop_loader
    _loop_loader.load()
    rng = np.random.default_rng(9)
    shapes = [(64, _one_pass.MIN_SIZE // 64), (64,), (3, 5), (2, 2, 3)]
    for dt in (np.float32, np.float64):
        p0 = [(rng.standard_normal(s) * 1e2).astype(dt) for s in shapes]
        grads = [(rng.standard_normal(s) * 1e-2).astype(dt) for s in shapes]
        params = [ms.Parameter(ms.Tensor(p.copy()), name=f"p{i}") for i, p in enumerate(p0)]
        assert _one_pass.sub_scaled_all(params, grads, 0.0333)
        for prm, p, g in zip(params, p0, grads):
            np.testing.assert_array_equal(prm.asnumpy(), p - g * 0.0333)
    params = [ms.Parameter(ms.Tensor(np.ones(s, np.float32)), name=f"q{i}") for i, s in enumerate(shapes)]
    ones = [np.ones(s, np.float32) for s in shapes]
    strided = np.ones((3, 10), np.float32)[:, ::2]
    assert not _one_pass.sub_scaled_all(params, ones[:3] + [np.ones((2, 2, 3), np.float16)], 0.1)
    assert not _one_pass.sub_scaled_all(params[2:3], [strided], 0.1)
    assert not _one_pass.sub_scaled_all(params, ones, np.float64(0.1))
    monkeypatch.setattr(_one_pass, "_KERNEL", [])
    assert not _one_pass.sub_scaled_all(params[1:], ones[1:], 0.1)      # all small: NumPy's two passes
    for prm in params:
        np.testing.assert_array_equal(prm.asnumpy(), 1.0)


def test_gemm_update_subtracts_the_scaled_product_to_rounding():
    from mscustom.nn.optim import _gemm_update
    if not _gemm_update.available():
        pytest.skip("NumPy's BLAS is not OpenBLAS with 64-bit CBLAS entry points")
    rng = np.random.default_rng(10)
    for dt in (np.float32, np.float64):
        for ta in (False, True):
            for tb in (False, True):
                a = rng.standard_normal((16, 40) if ta else (40, 16)).astype(dt)
                b = rng.standard_normal((30, 16) if tb else (16, 30)).astype(dt)
                p0 = rng.standard_normal((40, 30)).astype(dt)
                g = np.matmul(a.T if ta else a, b.T if tb else b)
                p = p0.copy()
                assert _gemm_update.sub_product(p, a, b, ta, tb, 0.05)
                np.testing.assert_allclose(p, p0 - g * dt(0.05), rtol=4 * np.finfo(dt).eps,
                                           atol=4 * np.finfo(dt).eps)
    p = np.zeros((40, 30), np.float32)
    a, b = np.ones((40, 16), np.float32), np.ones((16, 30), np.float32)
    assert not _gemm_update.sub_product(p, a.astype(np.float64), b, False, False, 0.1)   # mixed dtypes
    assert not _gemm_update.sub_product(p, np.ones((16, 80), np.float32)[:, ::2], b, True, False, 0.1)
    assert not _gemm_update.sub_product(p, a, b, True, False, 0.1)                     # shapes disagree
    assert not _gemm_update.sub_product(p, a, b, False, False, np.float64(0.1))
    np.testing.assert_array_equal(p, 0.0)
    # graph mode takes products for large parameters only, after checking the BLAS on the shapes
    assert not _gemm_update.fits(p, a, b, False, False)
    big = np.zeros((128, 256), np.float32)
    assert _gemm_update.fits(big, np.ones((64, 128), np.float32), np.ones((64, 256), np.float32), True, False)


def test_sgd_given_a_product_it_cannot_take_by_gemm_computes_it_first():
    """Optimizer._apply's products: where the GEMM update does not apply, the product is computed into
    the work buffer and the update is the ordinary one (bit-identical)."""
    rng = np.random.default_rng(11)
    w0 = rng.standard_normal((6, 5)).astype(np.float32)
    a = rng.standard_normal((4, 12)).astype(np.float32)[:, ::2]      # strided: no GEMM update
    b = rng.standard_normal((4, 5)).astype(np.float32)
    for opt_cls, kw in ((nn.SGD, {}), (nn.Momentum, {"momentum": 0.9})):
        w1, w2 = (ms.Parameter(ms.Tensor(w0.copy()), name="w") for _ in range(2))
        with_products, plain = opt_cls([w1], 0.1, **kw), opt_cls([w2], 0.1, **kw)
        for _ in range(2):
            with_products._apply(None, scratch=(False,), products=((0, a, b, True, False),))
            plain._apply(a.T @ b)
        np.testing.assert_array_equal(w1.asnumpy(), w2.asnumpy())
