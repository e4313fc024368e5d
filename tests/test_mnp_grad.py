"""mscustom.numpy is built from differentiable ops: gradients through it match finite differences,
graph mode (ms.jit) records and replays it; the random functions draw the right shapes and dtypes."""

import warnings

import numpy as np
import pytest

import mscustom as ms
import mscustom.numpy as mnp
from mscustom.graph import GraphFallbackWarning
from mscustom.testing import check_grad

rng = np.random.default_rng(0)


def T(*shape, low=-1.0, high=1.0):
    return ms.Tensor(rng.uniform(low, high, shape))


GRAD_CASES = {
    "elementwise": [
        (lambda x: mnp.arcsin(x) + mnp.arccos(x * 0.5) + mnp.arctan(x), (T(5, low=-0.9, high=0.9),)),
        (lambda x: mnp.sinh(x) * mnp.cosh(x) + mnp.arcsinh(x) + mnp.arctanh(x * 0.5), (T(5),)),
        (lambda x: mnp.arccosh(x) + mnp.cbrt(x) + mnp.log10(x) + mnp.exp2(x), (T(5, low=1.2, high=3.0),)),
        (lambda x, y: mnp.logaddexp(x, y) + mnp.logaddexp2(x, y) + mnp.hypot(x, y) + mnp.arctan2(x, y), (T(4), T(4))),
        (lambda x: mnp.deg2rad(x) + mnp.rad2deg(x) + mnp.clip(x, -0.5, 0.5) + mnp.power(mnp.abs(x) + 1, 2.5), (T(6),)),
        (lambda x, y: mnp.divide(x, y + 3) + mnp.true_divide(y, 2) + mnp.float_power(x, 2), (T(3), T(3))),
        (lambda x: mnp.copysign(x, -1.0) + mnp.heaviside(x, 0.5) * x + mnp.tanh(x), (T(4),)),
    ],
    "reductions": [
        (lambda x: mnp.std(x, axis=0) + mnp.var(x, axis=0, ddof=1) + mnp.ptp(x, axis=0), (T(4, 3),)),
        (lambda x, w: mnp.average(x, axis=1, weights=w), (T(2, 3), T(3, low=0.5, high=2.0))),
        (lambda x: mnp.cumsum(x, axis=1) * mnp.cumprod(x, axis=0), (T(3, 2),)),
        (lambda x: mnp.nanmean(x) + mnp.nansum(x, axis=0).sum() + mnp.nanvar(x, axis=1).sum() + mnp.amax(x, axis=1).sum(),
         (T(2, 3),)),
    ],
    "manipulation": [
        (lambda x: mnp.roll(x, 1, axis=1) * mnp.rot90(x, 2) + mnp.flip(x) * mnp.fliplr(x), (T(3, 3),)),
        (lambda x: mnp.pad(x, ((1, 2), (2, 1)), mode="reflect")[:3, :3] * 2 + mnp.pad(x, 1, mode="edge")[:3, :3], (T(3, 3),)),
        (lambda x: mnp.pad(x, 2, mode="linear_ramp", end_values=1.0) + mnp.pad(x, 2, mode="mean"), (T(3, 3),)),
        (lambda x: mnp.take(x, ms.Tensor([0, 2, 2]), axis=1) + mnp.take_along_axis(x, ms.Tensor([[0, 1, 2]] * 3), 1),
         (T(3, 3),)),
        (lambda x, y: mnp.choose(ms.Tensor([0, 1, 0]), [x, y]) + mnp.select([x > 0], [y], default=1.0), (T(3), T(3))),
        (lambda x, y: mnp.concatenate((x, y), axis=None) * 2 + mnp.hstack((x, y)) + mnp.column_stack((x, y))[:, 0].sum(),
         (T(3), T(3))),
        (lambda x: mnp.repeat(x, 2, axis=0)[:2] + mnp.tile(x, (1, 1)) + mnp.moveaxis(x, 0, 1).T, (T(2, 2),)),
        (lambda x: mnp.diag(x, 1) + mnp.diagflat(x).sum() + mnp.vander(x, 3)[0].sum(), (T(3),)),
        (lambda a, b: mnp.meshgrid(a, b)[0] * mnp.meshgrid(a, b)[1] + mnp.linspace(a, b, 3)[1, 0], (T(2), T(2))),
        (lambda x: mnp.where(x > 0, x, 0.1 * x) + mnp.piecewise(x, [x < 0], [lambda v: v * v, lambda v: v]), (T(5),)),
        (lambda x: mnp.apply_along_axis(lambda r: (r * r).sum(), 1, x) + mnp.apply_over_axes(mnp.sum, x, 0)[0, 0],
         (T(2, 3),)),
    ],
    "linalg": [
        (lambda a, b: mnp.dot(a, b).sum() + mnp.tensordot(a, b, 1).sum() + mnp.inner(a, b.T).sum(), (T(2, 3), T(3, 2))),
        (lambda a, b: mnp.kron(a, b) * 1.0, (T(2, 2), T(2, 3))),
        (lambda a, b: mnp.cross(a, b) + mnp.outer(a, b)[0], (T(3), T(3))),
        (lambda a: mnp.norm(a) + mnp.norm(a, 1) + mnp.norm(a, axis=1).sum() + mnp.norm(a[0], 3) + mnp.trace(a),
         (T(3, 3),)),
        (lambda a, b: mnp.multi_dot([a, b, a]) + mnp.matmul(a, b), (T(2, 2), T(2, 2))),
    ],
    "numerical": [
        (lambda x, fp: mnp.interp(x, ms.Tensor([0.0, 1.0, 2.0, 3.0]), fp), (T(5, low=0.1, high=2.9), T(4))),
        (lambda a, v: mnp.convolve(a, v) + mnp.correlate(a, v, "full"), (T(4), T(4))),
        (lambda p, x: mnp.polyval(p, x) + mnp.polyadd(p, x).sum() + mnp.polymul(p, x).sum(), (T(3), T(3))),
        (lambda p: mnp.polyint(p, 2, k=1.0).sum() + mnp.polyder(p).sum(), (T(4),)),
        (lambda m: mnp.cov(m) + mnp.corrcoef(m), (T(2, 5),)),
        (lambda y: mnp.trapz(y, dx=0.5) + mnp.diff(y, 2).sum() + mnp.gradient(y).sum() + mnp.ediff1d(y).sum(), (T(6),)),
        (lambda p: mnp.unwrap(p * 4.0), (T(6),)),
        (lambda y, x: mnp.gradient(y, x), (T(5), ms.Tensor([0.0, 1.0, 2.5, 3.0, 4.5]))),
        (lambda w: mnp.bincount(ms.Tensor([0, 2, 2, 1], ms.int32), weights=w), (T(4),)),
    ],
}


@pytest.mark.parametrize("group", sorted(GRAD_CASES))
def test_mnp_gradients_match_finite_differences(group):
    for fn, inputs in GRAD_CASES[group]:
        check_grad(fn, *inputs, rtol=1e-4, atol=1e-6)


def test_mnp_in_graph_mode_records_and_replays():
    @ms.jit
    def f(x, y):
        z = mnp.concatenate((mnp.sinh(x), mnp.roll(y, 1)), axis=0)
        return mnp.sum(mnp.tensordot(mnp.reshape(z, (2, 3)), mnp.ones((3,)), 1)) + mnp.std(x) + mnp.interp(
            x, mnp.array([0.0, 1.0]), mnp.array([1.0, 3.0]))[0]

    x = ms.Tensor(np.array([0.1, 0.2, 0.3], np.float32))
    y = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    want = np.sinh([0.1, 0.2, 0.3]).sum() + 6.0 + np.std([0.1, 0.2, 0.3]) + 1.2
    first, second = f(x, y), f(x, y)
    assert f.stats["recorded"] == 1 and f.stats["replayed"] == 1, f.stats
    np.testing.assert_allclose(first.asnumpy(), want, rtol=1e-5)
    np.testing.assert_allclose(second.asnumpy(), want, rtol=1e-5)
    x2 = ms.Tensor(np.array([0.5, 0.2, 0.3], np.float32))
    np.testing.assert_allclose(f(x2, y).asnumpy(), np.sinh([0.5, 0.2, 0.3]).sum() + 6.0 + np.std([0.5, 0.2, 0.3]) + 2.0,
                               rtol=1e-5)
    g = ms.grad(lambda t: mnp.sum(mnp.sinh(t) * mnp.arange(3.0)))(x)
    np.testing.assert_allclose(g.asnumpy(), np.cosh([0.1, 0.2, 0.3]) * [0, 1, 2], rtol=1e-6)


JIT_CASES = {
 'roll': lambda x: mnp.roll(x, 2), 'rot90': lambda x: mnp.rot90(x.reshape(2, 3)), 'pad': lambda x: mnp.pad(x, 2, mode='reflect'),
 'pad_ramp': lambda x: mnp.pad(x, 2, mode='linear_ramp'), 'take': lambda x: mnp.take(x, mnp.array([0, 7, -1])),
 'sort_search': lambda x: mnp.searchsorted(mnp.array([0., .5, 1.]), x), 'digitize': lambda x: mnp.digitize(x, mnp.array([.2, .4])),
 'interp': lambda x: mnp.interp(x, mnp.array([0., 1.]), mnp.array([2., 4.])), 'convolve': lambda x: mnp.convolve(x, mnp.array([1., -1.])),
 'cov': lambda x: mnp.cov(x.reshape(2, 3)), 'corrcoef': lambda x: mnp.corrcoef(x.reshape(2, 3)), 'norm': lambda x: mnp.norm(x.reshape(2, 3), 1),
 'nanvar': lambda x: mnp.nanvar(x), 'average': lambda x: mnp.average(x.reshape(2, 3), 1, mnp.array([1., 2., 3.])),
 'gradient': lambda x: mnp.gradient(x), 'unwrap': lambda x: mnp.unwrap(x * 10), 'trapz': lambda x: mnp.trapz(x),
 'cross': lambda x: mnp.cross(x[:3], x[3:]), 'kron': lambda x: mnp.kron(x[:2], x[2:4]), 'choose': lambda x: mnp.choose(mnp.array([0, 1, 0]), [x[:3], x[3:]]),
 'select': lambda x: mnp.select([x > .5], [x], -1.), 'piecewise': lambda x: mnp.piecewise(x, [x < .5], [0., lambda v: v * 2]),
 'isin': lambda x: mnp.isin(mnp.floor(x * 4), mnp.array([1., 2.])), 'polyval': lambda x: mnp.polyval(x, 2.), 'geomspace': lambda x: mnp.geomspace(x[0] + 1, x[1] + 2, 4),
 'linspace': lambda x: mnp.linspace(x[0], x[1], 5), 'diag': lambda x: mnp.diag(x, 1), 'meshgrid': lambda x: mnp.meshgrid(x[:2], x[2:])[1],
 'count': lambda x: mnp.count_nonzero(x > .5), 'heaviside': lambda x: mnp.heaviside(x - .5, .5), 'copysign': lambda x: mnp.copysign(2., x - .5),
 'unravel': lambda x: mnp.unravel_index(mnp.floor(x * 6).astype(mnp.int32), (2, 3))[1], 'ptp': lambda x: mnp.ptp(x),
 'nanmax': lambda x: mnp.nanmax(mnp.where(x > .8, np.nan, x)), 'logaddexp2': lambda x: mnp.logaddexp2(x, 1 - x),
 'apply': lambda x: mnp.apply_along_axis(lambda r: r.max(), 1, x.reshape(2, 3)), 'tensordot': lambda x: mnp.tensordot(x.reshape(2, 3), x.reshape(3, 2), 1),
}


def test_mnp_graph_replays_match_eager():
    """Each function compiled with ms.jit records once and replays (no eager fallback) the values an
    eager call gives, for fresh inputs."""
    data = np.random.default_rng(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphFallbackWarning)
        for name, fn in JIT_CASES.items():
            f = ms.jit(fn)
            for _ in range(3):
                x = ms.Tensor(data.random(6).astype(np.float32))
                np.testing.assert_allclose(f(x).asnumpy(), fn(x).asnumpy(), atol=1e-6, err_msg=name)
            assert f.stats["recorded"] == 1 and f.stats["replayed"] == 2, (name, f.stats)


def test_mnp_gradient_with_coordinates():
    """Uneven sample coordinates (NumPy's second-order formula; MindSpore 2.10 raises
    NotImplementedError): values from NumPy."""
    got = mnp.gradient(mnp.array([1.0, 4.0, 9.0, 3.0]), mnp.array([0.0, 1.0, 3.0, 4.5]))
    np.testing.assert_allclose(got.asnumpy(), [3.0, 2.8333333, -1.2142857, -4.0], rtol=1e-6)
    assert got.dtype == ms.float32


def test_mnp_random_shapes_and_dtypes():
    ms.set_seed(3)
    assert (mnp.rand(2, 3).shape, mnp.rand((2, 3)).dtype, mnp.randn(4).dtype) == ((2, 3), ms.float32, ms.float32)
    assert mnp.rand(2, dtype=mnp.float64).dtype == ms.float64
    r = mnp.randint(0, 5, (200,))
    assert r.dtype == ms.int32 and r.shape == (200,)
    v = r.asnumpy()
    assert v.min() >= 0 and v.max() <= 4 and len(set(v.tolist())) == 5
    u = mnp.rand(1000).asnumpy()
    assert 0.0 <= u.min() and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.05
    assert ms.numpy is mnp      # ``import mscustom`` leaves it unloaded: tests/test_import_lazy.py
