"""The fused attention op (ops/nn/attention.py) and ops.bmm / ops.baddbmm.

The op is checked against attention written out in NumPy (every layout, masks of both modes,
broadcast batch dimensions, dropout), its gradients with the gradient checker (sources, float
masks, the weights output, dropout with a fixed draw). bmm / baddbmm are pinned to MindSpore 2.10's
values (written out below) and errors.
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops.nn.attention import attention
from mscustom.testing import check_grad

T = ms.Tensor


def _softmax(s):
    s = s - s.max(-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(-1, keepdims=True)


def _reference(q, k, v, masks=(), scale=None):
    """Attention in NumPy, float64: masks are (array, mode) broadcasting to the scores."""
    s = (q @ np.swapaxes(k, -1, -2)) * (scale if scale is not None else 1 / np.sqrt(q.shape[-1]))
    for m, mode in masks:
        s = s + m if mode == "add" else np.where(m != 0, -np.inf, s)
    p = _softmax(s)
    return p @ v, p


def _heads(a, layout, h):
    if layout == "lne":
        return a.reshape(a.shape[0], a.shape[1], h, -1).transpose(1, 2, 0, 3)
    return a.reshape(a.shape[0], a.shape[1], h, -1).transpose(0, 2, 1, 3)


def _merge(o, layout):
    n, h, lq, d = o.shape
    return o.transpose(2, 0, 1, 3).reshape(lq, n, h * d) if layout == "lne" else \
        o.transpose(0, 2, 1, 3).reshape(n, lq, h * d)


# ------------------------------------------------------------------ forward
def test_plain_layout_matches_numpy_with_broadcast_batches(rng):
    q = rng.standard_normal((2, 1, 4, 6))
    k = rng.standard_normal((1, 3, 5, 6))
    v = rng.standard_normal((2, 3, 5, 7))
    mask = rng.standard_normal((4, 5))
    out, w = ops.scaled_dot_product_attention(T(q), T(k), T(v), attn_mask=T(mask), scale=0.3, return_weights=True)
    ro, rw = _reference(q, k, v, [(mask, "add")], 0.3)
    assert out.shape == (2, 3, 4, 7) and w.shape == (2, 3, 4, 5)
    np.testing.assert_allclose(out.asnumpy(), ro, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w.asnumpy(), rw, rtol=1e-12, atol=1e-12)


def test_bool_masks_key_padding_and_causal(rng):
    x = rng.standard_normal((2, 4, 6)).astype(np.float32)
    am = np.array([[0, 0, 1, 0]] * 4, bool)
    kpm = np.array([[0, 0, 0, 1], [0, 1, 0, 0]], bool)
    out, w = ops.scaled_dot_product_attention(T(x), T(x), T(x), attn_mask=T(am), key_padding_mask=T(kpm),
                                              is_causal=True, return_weights=True)
    causal = np.triu(np.ones((4, 4), bool), 1)
    full = am[None] | kpm[:, None, :] | causal[None]
    ro, rw = _reference(x.astype(np.float64), x, x, [(full, "fill")])
    np.testing.assert_allclose(w.asnumpy(), rw, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), ro, rtol=1e-5, atol=1e-6)
    assert out.dtype == ms.float32
    assert np.all(w.asnumpy()[full] == 0)


def test_fully_masked_row_is_nan_without_warnings(rng):
    x = T(rng.standard_normal((1, 2, 3)).astype(np.float32))
    mask = T(np.array([[1, 1], [0, 1]], bool))
    with np.errstate(all="raise"):
        out = ops.scaled_dot_product_attention(x, x, x, attn_mask=mask)
    assert np.all(np.isnan(out.asnumpy()[0, 0])) and not np.any(np.isnan(out.asnumpy()[0, 1]))


@pytest.mark.parametrize("layout", ["lne", "nle"])
def test_packed_layouts_read_heads_as_views(rng, layout):
    lq, n, e, h = 5, 3, 8, 2
    shape = (lq, n, 3 * e) if layout == "lne" else (n, lq, 3 * e)
    qkv = rng.standard_normal(shape)
    kpm = rng.standard_normal((n, lq))
    out, w = attention((T(qkv),), ((0, 0, e), (0, e, 2 * e), (0, 2 * e, 3 * e)), h, layout,
                       [(T(kpm), "add", (n, 1, 1, lq))])
    q, k, v = (_heads(qkv[..., i * e:(i + 1) * e], layout, h) for i in range(3))
    ro, rw = _reference(q, k, v, [(kpm[:, None, None, :], "add")])
    np.testing.assert_allclose(out.asnumpy(), _merge(ro, layout), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w.asnumpy(), rw, rtol=1e-12, atol=1e-12)
    assert out.shape == shape[:2] + (e,) and w.shape == (n, h, lq, lq)


def test_dropout_scales_kept_weights_and_redraws(rng):
    x = T(rng.standard_normal((2, 16, 8)).astype(np.float32))
    ms.set_seed(3)
    out, w = ops.scaled_dot_product_attention(x, x, x, dropout_p=0.5, return_weights=True)
    _, p = _reference(x.asnumpy().astype(np.float64), x.asnumpy(), x.asnumpy())
    got = w.asnumpy()
    kept = got != 0
    assert 0.3 < kept.mean() < 0.7
    np.testing.assert_allclose(got[kept], 2 * p[kept], rtol=1e-5)
    np.testing.assert_allclose(out.asnumpy(), got @ x.asnumpy(), rtol=1e-5, atol=1e-6)
    _, w2 = ops.scaled_dot_product_attention(x, x, x, dropout_p=0.5, return_weights=True)
    assert not np.array_equal(w2.asnumpy() != 0, kept)


# ------------------------------------------------------------------ gradients
def test_gradients_of_sources_masks_and_weights(rng):
    q, k, v = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4)), rng.standard_normal((2, 5, 3))
    am, kpm = rng.standard_normal((3, 5)), rng.standard_normal((2, 5))

    def fn(q, k, v, am, kpm):
        out, w = ops.scaled_dot_product_attention(q, k, v, attn_mask=am, key_padding_mask=kpm, return_weights=True)
        return out, w * w
    check_grad(fn, T(q), T(k), T(v), T(am), T(kpm))


def test_gradient_with_bool_masks_and_one_source(rng):
    x = rng.standard_normal((2, 4, 6))
    kpm = T(np.array([[0, 0, 0, 1], [0, 1, 0, 0]], bool))
    check_grad(lambda t: ops.scaled_dot_product_attention(t, t, t, key_padding_mask=kpm, is_causal=True), T(x))


@pytest.mark.parametrize("layout", ["lne", "nle"])
def test_gradients_of_packed_and_split_sources(rng, layout):
    lq, s, n, e, h = 3, 4, 2, 4, 2
    qkv = rng.standard_normal((lq, n, 3 * e) if layout == "lne" else (n, lq, 3 * e))
    kv = rng.standard_normal((s, n, 2 * e) if layout == "lne" else (n, s, 2 * e))
    q = rng.standard_normal((lq, n, e) if layout == "lne" else (n, lq, e))
    am = rng.standard_normal((n * h, lq, s))
    check_grad(lambda t: attention((t,), ((0, 0, e), (0, e, 2 * e), (0, 2 * e, 3 * e)), h, layout), T(qkv))
    check_grad(lambda a, b, m: attention((a, b), ((0, 0, e), (1, 0, e), (1, e, 2 * e)), h, layout,
                                         [(m, "add", (n, h, lq, s))])[0], T(q), T(kv), T(am))


def test_dropout_gradient_with_a_fixed_draw(rng):
    x = rng.standard_normal((2, 4, 3))

    def fn(t):
        ms.set_seed(5)                  # the same mask on every call of the check
        out, w = ops.scaled_dot_product_attention(t, t, t, dropout_p=0.4, return_weights=True)
        return out, w
    check_grad(fn, T(x))


def test_second_derivative_names_the_backward_op(rng):
    x = T(rng.standard_normal((1, 2, 3)).astype(np.float32))
    inner = ms.grad(lambda t: ops.scaled_dot_product_attention(t, t, t).sum())
    with pytest.raises(RuntimeError, match="attention_grad_1"):
        ms.grad(lambda t: inner(t).sum())(x)


def test_graph_replay_gives_eager_values(rng):
    x = T(rng.standard_normal((2, 5, 4)).astype(np.float32))
    m = T(rng.standard_normal((5, 5)).astype(np.float32))
    fn = ms.value_and_grad(lambda t, mm: (ops.scaled_dot_product_attention(t, t, t, attn_mask=mm) ** 2).sum(),
                           grad_position=(0, 1))
    eager = fn(x, m)
    jitted = ms.jit(fn)
    for _ in range(3):
        got = jitted(x, m)
        np.testing.assert_array_equal(got[0].asnumpy(), eager[0].asnumpy())
        for g, e in zip(got[1], eager[1]):
            np.testing.assert_array_equal(g.asnumpy(), e.asnumpy())
    assert jitted.stats["replayed"] == 2


def test_errors_name_the_op(rng):
    x = T(rng.standard_normal((2, 3, 4)).astype(np.float32))
    with pytest.raises(ValueError, match="op 'attention'.*feature size"):
        ops.scaled_dot_product_attention(x, T(np.ones((2, 3, 5), np.float32)), x)
    with pytest.raises(TypeError, match="op 'attention'.*one dtype"):
        ops.scaled_dot_product_attention(x, x, T(np.ones((2, 3, 4))))
    with pytest.raises(ValueError, match="op 'attention'.*does not broadcast"):
        ops.scaled_dot_product_attention(x, x, x, attn_mask=T(np.ones((4, 3), bool)))
    with pytest.raises(TypeError, match="attn_mask must be bool, uint8 or float"):
        ops.scaled_dot_product_attention(x, x, x, attn_mask=T(np.ones((3, 3), np.int32)))
    with pytest.raises(TypeError, match="float16, float32 or float64"):
        ops.scaled_dot_product_attention(T(np.ones((2, 3), np.int32)), T(np.ones((2, 3), np.int32)),
                                         T(np.ones((2, 3), np.int32)))


# ------------------------------------------------------------------ bmm / baddbmm (MindSpore 2.10's values)
A = np.sin(np.arange(24) * 0.7).astype(np.float32).reshape(2, 3, 4)
B = np.cos(np.arange(40) * 0.3).astype(np.float32).reshape(2, 4, 5)
C = np.sin(np.arange(30) * 0.2 + 1).astype(np.float32).reshape(2, 3, 5)
BMM = [-1.1119787, -1.0439492, -0.88266724, -0.64253902, -0.34501475, 1.3801252, 1.1744249, 0.86381686, 0.47604665,
       0.045752585, -1.4887908, -1.1691895, -0.74514794, -0.25454462, 0.25879657, 1.6834092, 1.4062762, 1.0035248,
       0.51113129, -0.026919901, -1.5034857, -1.1758702, -0.74321783, -0.24417597, 0.27667737, 1.1498263,
       0.80958617, 0.39702815, -0.050995231, -0.49446326]
BADDBMM = [2.0887036, 2.0319436, 1.8167257, 1.4635954, 1.0044459, -1.6155391, -1.3573891, -0.95799375, -0.45631927,
           0.098865196, 2.3037462, 1.7245971, 0.98995137, 0.1605567, -0.6941238, -2.9035151, -2.5452023, -1.9810882,
           -1.2635424, -0.45770246, 1.7757664, 1.322078, 0.72844446, 0.050630629, -0.64731717, -1.8644471,
           -1.255924, -0.53726757, 0.23226352, 0.98875159]
BADDBMM_BCAST = [0.57096326, 0.82012892, 1.0882323, 1.3566082, 1.6026804, 3.063067, 3.0385032, 2.8347163, 2.4751937,
                 1.9934478, 0.19415116, 0.69488871, 1.2257515, 1.7446026, 2.2064919, 3.3663511, 3.2703543, 2.9744244,
                 2.5102785, 1.9207754, 0.17945623, 0.68820798, 1.2276816, 1.7549713, 2.2243726, 2.8327682, 2.6736643,
                 2.3679276, 1.9481519, 1.453232]
BADDBMM_INT = [0, 1, 8, 9, -2, 11, 4, 3, 8, 1, 2, 17, -4, -1, 14, 17, -6, 1, 14, 3, 0, 5, 4, 9, 2, 5, 6, 7, 2, 3]
BADDBMM_GRAD_A = [-5.2791519, 3.4008691, 5.7602882, -2.5859358, -4.0214906, 1.7150353, 4.2641239, -1.1117707,
                  0.93351114, -1.5475944, -1.152456, 1.3845513, 5.8784275, -1.7762764, -6.1297255, 0.90907711,
                  5.003922, -0.72565579, -5.1065836, 0.0032049895, -0.47116703, 0.99212915, 0.61152798, -0.90561372]


def test_bmm_and_baddbmm_match_mindspore():
    np.testing.assert_allclose(ops.bmm(T(A), T(B)).asnumpy().reshape(-1), BMM, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(T(A).bmm(T(B)).asnumpy().reshape(-1), BMM, rtol=1e-5, atol=1e-6)
    got = ops.baddbmm(T(C), T(A), T(B), beta=0.5, alpha=-1.5)
    np.testing.assert_allclose(got.asnumpy().reshape(-1), BADDBMM, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(T(C).baddbmm(T(A), T(B), beta=0.5, alpha=-1.5).asnumpy().reshape(-1), BADDBMM,
                               rtol=1e-5, atol=1e-6)
    got = ops.baddbmm(T(C[0, 0]), T(A), T(B), beta=2, alpha=1)
    assert got.shape == (2, 3, 5)
    np.testing.assert_allclose(got.asnumpy().reshape(-1), BADDBMM_BCAST, rtol=1e-5, atol=1e-6)
    ai = (np.arange(24) % 5 - 2).astype(np.int32).reshape(2, 3, 4)
    bi = (np.arange(40) % 3 - 1).astype(np.int32).reshape(2, 4, 5)
    ci = (np.arange(30) % 4).astype(np.int32).reshape(2, 3, 5)
    got = ops.baddbmm(T(ci), T(ai), T(bi), beta=3, alpha=-2)
    assert got.dtype == ms.int32 and got.asnumpy().reshape(-1).tolist() == BADDBMM_INT
    g = ms.grad(lambda x, y, z: (ops.baddbmm(z, x, y, beta=0.5, alpha=-1.5) * T(C)).sum(),
                grad_position=(0, 1, 2))(T(A), T(B), T(C))
    np.testing.assert_allclose(g[0].asnumpy().reshape(-1), BADDBMM_GRAD_A, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g[2].asnumpy(), 0.5 * C, rtol=1e-6)


def test_bmm_baddbmm_gradients_and_nan_input(rng):
    a, b, c = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5)), rng.standard_normal((3, 5))
    check_grad(ops.bmm, T(a), T(b))
    check_grad(lambda x, y, z: ops.baddbmm(z, x, y, beta=0.25, alpha=3.0), T(a), T(b), T(c))
    nan = T(np.full((2, 3, 5), np.nan, np.float32))
    assert np.all(np.isnan(ops.baddbmm(nan, T(a.astype(np.float32)), T(b.astype(np.float32)), beta=0).asnumpy()))


def test_bmm_baddbmm_errors():
    f = np.ones
    with pytest.raises(ValueError, match="batch dimensions must be equal"):
        ops.bmm(T(f((2, 3, 4), np.float32)), T(f((1, 4, 5), np.float32)))
    with pytest.raises(ValueError, match="rows of 'mat2'"):
        ops.bmm(T(f((2, 3, 4), np.float32)), T(f((2, 3, 5), np.float32)))
    with pytest.raises(TypeError, match="should be same"):
        ops.bmm(T(f((2, 3, 4), np.int32)), T(f((2, 4, 5), np.float32)))
    with pytest.raises(ValueError, match="2-D or higher"):
        ops.bmm(T(f(4, np.float32)), T(f((4, 5), np.float32)))
    with pytest.raises(TypeError, match="same dtype"):
        ops.baddbmm(T(f((2, 3, 5))), T(f((2, 3, 4), np.float32)), T(f((2, 4, 5), np.float32)))
    with pytest.raises(TypeError, match="integer beta and alpha"):
        ops.baddbmm(T(f((2, 3, 5), np.int32)), T(f((2, 3, 4), np.int32)), T(f((2, 4, 5), np.int32)), beta=0.5)
    with pytest.raises(TypeError, match="real number"):
        ops.baddbmm(T(f((2, 3, 5), np.float32)), T(f((2, 3, 4), np.float32)), T(f((2, 4, 5), np.float32)),
                    beta=T(2.0))
    with pytest.raises(ValueError, match="does not broadcast"):
        ops.baddbmm(T(f((2, 4, 5), np.float32)), T(f((2, 3, 4), np.float32)), T(f((2, 4, 5), np.float32)))
