"""ops.tril, triu, flip, isclose, outer, addmm, lerp, atan2, floor_divide, cdist, masked_select,
hardtanh, clip_by_global_norm: values and gradients are MindSpore 2.10 (CPU)'s for the same calls."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops, Tensor


def _x():
    return Tensor(np.arange(1, 13).reshape(3, 4).astype(np.float32))


def _eq(t, expected, dtype=None):
    np.testing.assert_allclose(t.asnumpy(), np.asarray(expected), rtol=1e-6, atol=1e-6)
    if dtype is not None:
        assert t.dtype == dtype


def test_tril_triu():
    x = _x()
    _eq(ops.tril(x), [[1, 0, 0, 0], [5, 6, 0, 0], [9, 10, 11, 0]], ms.float32)
    _eq(ops.tril(x, 1), [[1, 2, 0, 0], [5, 6, 7, 0], [9, 10, 11, 12]])
    _eq(ops.triu(x, -1), [[1, 2, 3, 4], [5, 6, 7, 8], [0, 10, 11, 12]])
    _eq(ops.tril(Tensor(np.ones((2, 2), np.int32))), [[1, 0], [1, 1]], ms.int32)
    _eq(ops.tril(Tensor(np.ones((2, 2, 3), np.float32))), [[[1, 0, 0], [1, 1, 0]]] * 2)
    _eq(ms.grad(lambda a: (ops.tril(a) * a).sum())(x), [[2, 0, 0, 0], [10, 12, 0, 0], [18, 20, 22, 0]])
    with pytest.raises(ValueError, match="op 'tril'"):
        ops.tril(Tensor(np.ones(3, np.float32)))


def test_flip():
    x = _x()
    _eq(ops.flip(x, (0,)), [[9, 10, 11, 12], [5, 6, 7, 8], [1, 2, 3, 4]])
    _eq(ops.flip(x, (0, 1)), [[12, 11, 10, 9], [8, 7, 6, 5], [4, 3, 2, 1]])
    _eq(ops.flip(x, [-1]), [[4, 3, 2, 1], [8, 7, 6, 5], [12, 11, 10, 9]])
    _eq(ops.flip(x, ()), x.asnumpy())
    w = _x()
    _eq(ms.grad(lambda a: (ops.flip(a, (1,)) * w).sum())(x), [[4, 3, 2, 1], [8, 7, 6, 5], [12, 11, 10, 9]])
    with pytest.raises(TypeError, match="op 'flip'"):
        ops.flip(x, 1)                                  # MindSpore: ReverseV2 wants a list or tuple


def test_isclose():
    a = Tensor(np.array([1.0, 2.0, np.nan, np.inf, 1e-9], np.float32))
    b = Tensor(np.array([1.0 + 1e-6, 2.1, np.nan, np.inf, 0], np.float32))
    _eq(ops.isclose(a, b), [True, False, False, True, True], ms.bool_)
    _eq(ops.isclose(a, b, equal_nan=True), [True, False, True, True, True])
    _eq(ops.isclose(a, b, rtol=0.1, atol=0.0), [True, True, False, True, False])
    _eq(ops.isclose(Tensor([1, 2], ms.int32), Tensor([1, 3], ms.int32)), [True, False])
    _eq(ops.isclose(a, Tensor(np.float32(1.0))), [True, False, False, False, False])


def test_outer():
    v, w = Tensor(np.array([1., 2., 3.], np.float32)), Tensor(np.array([4., 5.], np.float32))
    _eq(ops.outer(v, w), [[4, 5], [8, 10], [12, 15]], ms.float32)
    _eq(ops.outer(Tensor([1, 2], ms.int32), Tensor([3, 4], ms.int32)), [[3, 4], [6, 8]], ms.int32)
    _eq(ops.outer(Tensor([1, 2], ms.int32), w), [[4, 5], [8, 10]], ms.float32)
    gv, gw = ms.grad(lambda a, b: (ops.outer(a, b) ** 2).sum(), grad_position=(0, 1))(v, w)
    _eq(gv, [82, 164, 246])
    _eq(gw, [112, 140])


def test_addmm():
    m1 = Tensor(np.arange(6).reshape(2, 3).astype(np.float32))
    m2 = Tensor(np.arange(12).reshape(3, 4).astype(np.float32) / 3)
    inp = Tensor(np.ones((2, 4), np.float32))
    expected = [[7.6666669845581055, 8.666666030883789, 9.666666030883789, 10.666666984558105],
                [19.666667938232422, 23.66666603088379, 27.66666603088379, 31.666667938232422]]
    _eq(ops.addmm(inp, m1, m2), expected)
    _eq(ops.addmm(Tensor(np.ones((4,), np.float32)), m1, m2), expected)
    _eq(ops.addmm(inp, m1, m2, beta=0.5, alpha=2),
        [[13.833333969116211, 15.833333015441895, 17.833332061767578, 19.83333396911621],
         [37.833335876464844, 45.83333206176758, 53.83333206176758, 61.833335876464844]])
    gi, g1, g2 = ms.grad(lambda i, a, b: (ops.addmm(i, a, b, beta=0.5, alpha=2) ** 2).sum(),
                         grad_position=(0, 1, 2))(inp, m1, m2)
    np.testing.assert_allclose(gi.asnumpy(), [[13.833334, 15.833333, 17.833332, 19.833334],
                                              [37.833336, 45.833332, 53.833332, 61.833336]], rtol=1e-5)
    np.testing.assert_allclose(g1.asnumpy(), [[148., 507.111084, 866.222229], [452., 1515.11108, 2578.22217]],
                               rtol=1e-5)
    np.testing.assert_allclose(g2.asnumpy(), [[454.000031, 550., 646., 742.],
                                              [660.666687, 796.666626, 932.666626, 1068.66675],
                                              [867.333435, 1043.33325, 1219.33325, 1395.33337]], rtol=1e-5)


def test_lerp():
    s, e = Tensor(np.array([1., 2., 3.], np.float32)), Tensor(np.array([10., 20., 30.], np.float32))
    _eq(ops.lerp(s, e, 0.5), [5.5, 11, 16.5], ms.float32)
    _eq(ops.lerp(s, e, Tensor(np.array([0., 0.5, 1.], np.float32))), [1, 11, 30])
    gs, ge, gw = ms.grad(lambda a, b, w: (ops.lerp(a, b, w) ** 2).sum(), grad_position=(0, 1, 2))(
        s, e, Tensor(np.array([0.1, 0.5, 1.], np.float32)))
    np.testing.assert_allclose(gs.asnumpy(), [3.42000008, 11., 0.], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ge.asnumpy(), [0.380000025, 11., 60.], rtol=1e-5)
    np.testing.assert_allclose(gw.asnumpy(), [34.2000008, 396., 1620.], rtol=1e-5)
    gs, ge = ms.grad(lambda a, b: (ops.lerp(a, b, 0.25) ** 2).sum(), grad_position=(0, 1))(s, e)
    _eq(gs, [4.875, 9.75, 14.625])
    _eq(ge, [1.625, 3.25, 4.875])
    with pytest.raises(TypeError, match="op 'lerp'"):
        ops.lerp(Tensor([1, 2], ms.int32), Tensor([1, 2], ms.int32), 0.5)


def test_atan2():
    y, x = Tensor(np.array([1., -1., 0., 2.], np.float32)), Tensor(np.array([1., 1., -1., 0.], np.float32))
    _eq(ops.atan2(y, x), [0.7853981852531433, -0.7853981852531433, 3.1415927410125732, 1.5707963705062866])
    gy, gx = ms.grad(lambda a, b: ops.atan2(a, b).sum(), grad_position=(0, 1))(y, x)
    _eq(gy, [0.5, 0.5, -1, 0])
    _eq(gx, [-0.5, 0.5, -0., -0.5])
    with pytest.raises(TypeError, match="op 'atan2'"):      # MindSpore's CPU kernel refuses int32 too
        ops.atan2(Tensor([1, 2], ms.int32), Tensor([1, 1], ms.int32))


def test_floor_divide():
    _eq(ops.floor_divide(Tensor(np.array([7., -7., 7.5], np.float32)), Tensor(np.array([2., 2., -2.], np.float32))),
        [3, -4, -4], ms.float32)
    _eq(ops.floor_divide(Tensor([7, -7, 5], ms.int32), Tensor([2, 2, -3], ms.int32)), [3, -4, -2], ms.int32)
    _eq(ops.floor_divide(Tensor([7, -7, 5], ms.int32), 2), [3, -4, 2], ms.int32)
    ga, gb = ms.grad(lambda a, b: ops.floor_divide(a, b).sum(), grad_position=(0, 1))(
        Tensor(np.array([7., -7.], np.float32)), Tensor(np.array([2., 2.], np.float32)))
    _eq(ga, [0, 0])
    _eq(gb, [0, 0])


def test_cdist():
    p1 = Tensor(np.array([[[0., 0.], [1., 1.]]], np.float32))
    p2 = Tensor(np.array([[[1., 0.], [0., 2.], [3., 4.]]], np.float32))
    _eq(ops.cdist(p1, p2), [[[1, 2, 5], [1, 1.4142135381698608, 3.605551242828369]]], ms.float32)
    _eq(ops.cdist(p1, p2, 1.0), [[[1, 2, 7], [1, 2, 5]]])
    _eq(ops.cdist(p1, p2, float("inf")), [[[1, 2, 4], [1, 1, 3]]])
    _eq(ops.cdist(p1, p2, 3.0), [[[1, 2, 4.497941493988037], [1, 1.2599210739135742, 3.271066427230835]]])
    a2, b2 = Tensor(np.array([[0., 0.], [1., 1.]], np.float32)), Tensor(np.array([[1., 0.], [3., 4.]], np.float32))
    _eq(ops.cdist(a2, b2), [[1, 5], [1, 3.605551242828369]])
    g1, g2 = ms.grad(lambda a, b: ops.cdist(a, b).sum(), grad_position=(0, 1))(p1, p2)
    _eq(g1, [[[-1.6, -1.8], [0.152406573, -0.539157093]]])
    _eq(g2, [[[1, -1], [-0.707106769, 1.70710683], [1.15470028, 1.63205028]]])
    g1, g2 = ms.grad(lambda a, b: ops.cdist(a, b, 1.0).sum(), grad_position=(0, 1))(p1, p2)
    _eq(g1, [[[-2, -2], [0, -1]]])
    _eq(g2, [[[1, -1], [-1, 2], [2, 2]]])


def test_masked_select():
    x = _x()
    mask = Tensor(np.array([[True, False, True, False], [False, False, True, True], [True, True, True, True]]))
    _eq(ops.masked_select(x, mask), [1, 3, 7, 8, 9, 10, 11, 12], ms.float32)
    _eq(ops.masked_select(x, Tensor(np.array([True, False, False, True]))), [1, 4, 5, 8, 9, 12])
    _eq(ms.grad(lambda a: (ops.masked_select(a, mask) ** 2).sum())(x),
        [[2, 0, 6, 0], [0, 0, 14, 16], [18, 20, 22, 24]])
    _eq(ops.masked_select(Tensor([1, 2, 3], ms.int32), Tensor([True, False, True])), [1, 3], ms.int32)
    with pytest.raises(TypeError, match="op 'masked_select'"):
        ops.masked_select(x, Tensor(np.ones((3, 4), np.int32)))


def test_hardtanh():
    h = Tensor(np.array([-2., -1., -0.5, 0., 0.5, 1., 2.], np.float32))
    _eq(ops.hardtanh(h), [-1, -1, -0.5, 0, 0.5, 1, 1], ms.float32)
    _eq(ops.hardtanh(h, -0.5, 0.6), [-0.5, -0.5, -0.5, 0, 0.5, 0.6000000238418579, 0.6000000238418579])
    _eq(ms.grad(lambda a: ops.hardtanh(a).sum())(h), [0, 0.5, 1, 1, 1, 0.5, 0])
    _eq(ms.grad(lambda a: ops.hardtanh(a, -0.5, 0.6).sum())(Tensor(np.array([-2., -0.5, 0., 0.6, 2.], np.float32))),
        [0, 0.5, 1, 0.5, 0])
    _eq(ops.hardtanh(Tensor([-2, 0, 2], ms.int32)), [-1, 0, 1], ms.int32)


def test_clip_by_global_norm():
    g1, g2 = Tensor(np.array([3., 4.], np.float32)), Tensor(np.array([[12.]], np.float32))
    r = ops.clip_by_global_norm((g1, g2), 1.0)
    assert isinstance(r, tuple) and len(r) == 2
    _eq(r[0], [0.23076923191547394, 0.3076923191547394])
    _eq(r[1], [[0.9230769276618958]])
    r = ops.clip_by_global_norm([g1, g2], 100.0)
    _eq(r[0], [3, 4])
    _eq(r[1], [[12]])
    with pytest.raises(ValueError, match="use_norm"):       # MindSpore 2.10: use_norm only supports None
        ops.clip_by_global_norm([g1, g2], 2.0, 5.0)
    x = Tensor(np.array([[3., 4.], [0., 0.]], np.float32))  # one Tensor: one Tensor back
    r = ops.clip_by_global_norm(x, 1.0)
    assert isinstance(r, Tensor)
    _eq(r, [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]])
    _eq(ops.clip_by_global_norm(x, 10.0), [[3.0, 4.0], [0.0, 0.0]])


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_masked_select_in_graph_mode_follows_the_mask():
    """The result's shape depends on the mask's values: a jit function reads them on every call."""
    @ms.jit
    def f(x, m):
        return ops.masked_select(x, m) * 2

    x = Tensor(np.arange(4).astype(np.float32))
    _eq(f(x, Tensor(np.array([True, False, True, False]))), [0, 4])
    _eq(f(x, Tensor(np.array([False, True, True, True]))), [2, 4, 6])
    _eq(f(x, Tensor(np.array([False, True, False, True]))), [2, 6])


def test_gradients_match_finite_differences():
    from mscustom.testing import check_grad
    rng = np.random.default_rng(0)
    a = Tensor(rng.standard_normal((2, 3)).astype(np.float32))
    b = Tensor(rng.standard_normal((2, 3)).astype(np.float32) + 3)
    check_grad(lambda y, x: ops.atan2(y, x), a, b)
    p1 = Tensor(rng.standard_normal((2, 3, 4)).astype(np.float32))
    p2 = Tensor(rng.standard_normal((2, 5, 4)).astype(np.float32))
    for p in (1.0, 2.0, 3.0, float("inf")):
        check_grad(lambda u, v: ops.cdist(u, v, p), p1, p2)
    check_grad(lambda s, e, w: ops.lerp(s, e, w), a, b, Tensor(rng.random((2, 3)).astype(np.float32)))
    check_grad(lambda x: ops.flip(x, (0, 1)) * b, a)
    check_grad(lambda x: ops.L2Normalize(axis=1)(x), a)
    at = ops.transpose(a, (1, 0))
    check_grad(lambda x: ops.addmm(x, b, at, beta=0.5, alpha=2.0), Tensor(np.ones((2, 2), np.float32)))
