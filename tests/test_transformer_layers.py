"""nn.MultiheadAttention and the Transformer layers against MindSpore 2.10.

Every case of ``transformer_cases.py`` (weights set to the same fixed values in both, eval mode)
gives MindSpore's outputs, written into ``transformer_expected.py`` by
``bench/ms_transformer_oracle.py``; two cases pin MindSpore's gradients as well. Parameter names
and shapes are MindSpore's, a checkpoint MindSpore saved loads and computes MindSpore's output,
the gradient checker covers masks, packed and split projections and the layers, and graph mode
replays give the eager values.
"""

import os

import numpy as np
import pytest

import mscustom as ms
import transformer_cases as tc
from mscustom import nn, ops
from mscustom.testing import check_grad
from transformer_expected import CHECKPOINT_OUTPUT, EXPECTED, EXPECTED_GRADS

T = ms.Tensor
DATA = os.path.join(os.path.dirname(__file__), "data")


def _net(name):
    net = tc.build(nn, name)
    for i, p in enumerate(net.get_parameters()):
        p.set_data(T(tc.weight(p.shape, i)))
    return net


def _compare(got, expected, what):
    got = got if isinstance(got, (tuple, list)) else (got,)
    assert len(got) == len(expected), f"{what}: {len(got)} outputs, MindSpore gives {len(expected)}"
    for g, (shape, values) in zip(got, expected):
        assert tuple(g.shape) == shape, f"{what}: shape {tuple(g.shape)}, MindSpore gives {shape}"
        np.testing.assert_allclose(g.asnumpy().reshape(-1), values, rtol=1e-5, atol=1e-5, err_msg=what)


# ------------------------------------------------------------------ MindSpore's values
@pytest.mark.parametrize("name", list(tc.CASES))
def test_outputs_match_mindspore(name):
    net = _net(name)
    args, kwargs, _ = tc.inputs(T, name)
    _compare(net(*args, **kwargs), EXPECTED[name], name)


@pytest.mark.parametrize("name", list(tc.GRAD_CASES))
def test_gradients_match_mindspore(name):
    net = _net(name)
    args, kwargs, made = tc.inputs(T, name)
    keys = tc.GRAD_CASES[name]
    positional = [k for k in tc.CASES[name][2] if not k.startswith("kw:")]
    out = net(*args, **kwargs)
    first = out[0] if isinstance(out, tuple) else out
    seed = T(tc.weight(first.shape, 99))

    def fn(*xs):
        a, kw = list(args), dict(kwargs)
        for key, x in zip(keys, xs):
            if key.startswith("kw:"):
                kw[key[3:]] = x
            else:
                a[positional.index(key)] = x
        o = net(*a, **kw)
        return ((o[0] if isinstance(o, tuple) else o) * seed).sum()

    params = list(net.get_parameters())
    g_in, g_w = ms.grad(fn, grad_position=tuple(range(len(keys))), weights=params)(*[made[k] for k in keys])
    want_in, want_w = EXPECTED_GRADS[name]
    _compare(g_in, want_in, f"{name} input gradients")
    _compare(g_w, want_w, f"{name} parameter gradients")


def test_parameter_names_and_shapes_are_mindspores():
    def names(cell):
        return [(p.name, tuple(p.shape)) for p in cell.get_parameters()]
    assert names(nn.MultiheadAttention(8, 2)) == [("in_proj_weight", (24, 8)), ("in_proj_bias", (24,)),
                                                  ("out_proj.weight", (8, 8)), ("out_proj.bias", (8,))]
    assert names(nn.MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True, has_bias=False)) == [
        ("q_proj_weight", (8, 8)), ("k_proj_weight", (8, 4)), ("v_proj_weight", (8, 6)), ("bias_k", (1, 1, 8)),
        ("bias_v", (1, 1, 8)), ("out_proj.weight", (8, 8))]
    attn = [("self_attn.in_proj_weight", (24, 8)), ("self_attn.in_proj_bias", (24,)),
            ("self_attn.out_proj.weight", (8, 8)), ("self_attn.out_proj.bias", (8,))]
    ff = [("dense1.weight", (16, 8)), ("dense1.bias", (16,)), ("dense2.weight", (8, 16)), ("dense2.bias", (8,))]
    norms = [(f"norm{i}.{w}", (8,)) for i in (1, 2, 3) for w in ("gamma", "beta")]
    enc = attn + ff + norms[:4]
    dec = attn + [(n.replace("self_attn", "multihead_attn"), s) for n, s in attn] + ff + norms
    assert names(nn.TransformerEncoderLayer(8, 2, 16)) == enc
    assert names(nn.TransformerDecoderLayer(8, 2, 16)) == dec
    stack = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, nn.LayerNorm((8,)))
    assert names(stack) == [(f"layers.{i}.{n}", s) for i in (0, 1) for n, s in enc] + \
        [("norm.gamma", (8,)), ("norm.beta", (8,))]
    model = nn.Transformer(8, 2, 1, 1, 16)
    assert names(model) == [(f"encoder.layers.0.{n}", s) for n, s in enc] + \
        [("encoder.norm.gamma", (8,)), ("encoder.norm.beta", (8,))] + \
        [(f"decoder.layers.0.{n}", s) for n, s in dec] + [("decoder.norm.gamma", (8,)), ("decoder.norm.beta", (8,))]


def test_checkpoint_saved_by_mindspore_loads_and_computes_its_output():
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    params = ms.load_checkpoint(os.path.join(DATA, "ms210_transformer_encoder_layer.ckpt"))
    assert ms.load_param_into_net(layer, params) == ([], [])
    args, kwargs, _ = tc.inputs(T, "encoder_layer_masks")
    _compare(layer(*args, **kwargs), CHECKPOINT_OUTPUT, "checkpoint")


# ------------------------------------------------------------------ gradient checks (float64 layers)
def _float64(cell, seed=0):
    rng = np.random.default_rng(seed)
    for p in cell.get_parameters():
        p.set_data(T((rng.standard_normal(p.shape) * 0.4).astype(np.float64)))
    return cell


def test_attention_gradients_with_masks_and_per_head_weights(rng):
    mha = _float64(nn.MultiheadAttention(4, 2, batch_first=True, dtype=ms.float64))
    q, kv = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4))
    am, kpm = rng.standard_normal((4, 3, 5)), rng.standard_normal((2, 5))
    check_grad(lambda a, b, m, k: mha(a, b, b, attn_mask=m, key_padding_mask=k, average_attn_weights=False),
               T(q), T(kv), T(am), T(kpm))
    boolmask = T(np.array([[0, 1, 0, 0, 1], [0, 0, 0, 1, 0], [1, 0, 0, 0, 0]], bool))
    check_grad(lambda a: mha(a, a, a, attn_mask=boolmask[:, :3])[0], T(q))


def test_attention_gradients_bias_kv_zero_attn_and_separate_projections(rng):
    mha = _float64(nn.MultiheadAttention(4, 2, add_bias_kv=True, add_zero_attn=True, dtype=ms.float64), 1)
    q, k, v = rng.standard_normal((3, 2, 4)), rng.standard_normal((5, 2, 4)), rng.standard_normal((5, 2, 4))
    kpm = T(np.array([[0, 0, 1, 0, 0], [1, 0, 0, 0, 0]], bool))
    check_grad(lambda a, b, c: mha(a, b, c, key_padding_mask=kpm), T(q), T(k), T(v))
    apart = _float64(nn.MultiheadAttention(4, 2, kdim=3, vdim=5, dtype=ms.float64), 2)
    check_grad(lambda a, b, c: apart(a, b, c)[0], T(q[:, 0]), T(k[:, 0, :3]), T(rng.standard_normal((5, 5))))


def test_layer_gradients(rng):
    enc = _float64(nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, activation="gelu", norm_first=True,
                                              dtype=ms.float64), 3)
    src = rng.standard_normal((3, 2, 4))
    causal = T(np.triu(np.ones((3, 3), bool), 1))
    check_grad(lambda s: enc(s, src_mask=causal), T(src))
    dec = _float64(nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0, batch_first=True, dtype=ms.float64), 4)
    tgt, mem = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4))
    mkpm = T(np.array([[0, 0, 0, 0, 1], [0, 1, 0, 0, 0]], bool))
    check_grad(lambda t, m: dec(t, m, tgt_mask=causal, memory_key_padding_mask=mkpm), T(tgt), T(mem))


# ------------------------------------------------------------------ graph mode, training
def _train_steps(jit, steps=3):
    ms.set_seed(0)
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    layer.set_train()
    opt = nn.AdamW(layer.trainable_params(), 1e-2)
    tgt = T(tc.make(("x", (2, 3, 8), 0.0)))
    mem = T(tc.make(("x", (2, 4, 8), 1.0)))
    mask = T(np.array(tc.BOOL_LL))
    kpm = T(np.array(tc.BOOL_NS))

    def forward(t, m):
        y = layer(t, m, tgt_mask=mask, memory_key_padding_mask=kpm)
        return (y * y).mean()
    grad_fn = ms.value_and_grad(forward, None, opt.parameters)

    def step(t, m):
        loss, grads = grad_fn(t, m)
        opt(grads)
        return loss
    run = ms.jit(step) if jit else step
    losses = [float(run(tgt, mem).asnumpy()) for _ in range(steps)]
    return losses, [p.asnumpy().copy() for p in layer.trainable_params()], run


def test_graph_mode_training_steps_give_the_eager_values():
    eager_losses, eager_weights, _ = _train_steps(False)
    graph_losses, graph_weights, run = _train_steps(True)
    assert run.stats == {"recorded": 1, "replayed": 2, "eager": 0}
    assert graph_losses == eager_losses
    for g, e in zip(graph_weights, eager_weights):
        np.testing.assert_array_equal(g, e)


def test_graph_mode_context_and_dropout_draws_per_replay():
    net = _net("encoder_layer_masks")
    args, kwargs, _ = tc.inputs(T, "encoder_layer_masks")
    eager = net(*args, **kwargs).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        for _ in range(2):
            np.testing.assert_array_equal(net(*args, **kwargs).asnumpy(), eager)
        mha = nn.MultiheadAttention(8, 2, dropout=0.5)
        mha.set_train()
        x = args[0]
        first = mha(x, x, x)[1].asnumpy()
        second = mha(x, x, x)[1].asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not np.array_equal(first, second)


# ------------------------------------------------------------------ behaviour and errors
def test_dropout_in_training_mode_only():
    ms.set_seed(1)
    mha = nn.MultiheadAttention(8, 2, dropout=0.5)
    x = T(tc.make(("x", (5, 2, 8), 0.0)))
    _, w_eval = mha(x, x, x, average_attn_weights=False)
    np.testing.assert_allclose(w_eval.asnumpy().sum(-1), 1.0, rtol=1e-5)
    mha.set_train()
    _, w_train = mha(x, x, x, average_attn_weights=False)
    kept = w_train.asnumpy() != 0
    assert 0.2 < kept.mean() < 0.8
    np.testing.assert_allclose(w_train.asnumpy()[kept], 2 * w_eval.asnumpy()[kept], rtol=1e-5)


def test_stacks_copy_one_fresh_layer():
    given = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu", norm_first=True)
    stack = nn.TransformerEncoder(given, 3)
    assert len(stack.layers) == 3 and stack.norm is None
    w = [layer.self_attn.in_proj_weight for layer in stack.layers]
    assert w[0] is not w[1] and np.array_equal(w[0].asnumpy(), w[2].asnumpy())
    assert not np.array_equal(w[0].asnumpy(), given.self_attn.in_proj_weight.asnumpy())
    assert all(layer.norm_first and layer.activation is ops.gelu for layer in stack.layers)


def test_transformer_initializes_matrices_xavier_uniform():
    model = nn.Transformer(8, 2, 1, 1, 16)
    w = model.encoder.layers[0].dense1.weight.asnumpy()
    assert np.abs(w).max() <= np.sqrt(6 / (8 + 16)) + 1e-7
    assert np.array_equal(model.decoder.norm.gamma.asnumpy(), np.ones(8, np.float32))


def test_activation_choices():
    assert nn.TransformerEncoderLayer(8, 2, 16, activation=ops.relu).activation is ops.relu
    assert nn.TransformerEncoderLayer(8, 2, 16, activation="gelu").activation is ops.gelu
    assert isinstance(nn.TransformerDecoderLayer(8, 2, 16, activation=nn.GELU()).activation, nn.GELU)
    for bad, match in (("tanh", "relu/gelu"), (nn.Tanh(), "nn.ReLU or nn.GELU"), (ops.tanh, "ops.relu or ops.gelu"),
                       (3, "str, callable or Cell")):
        with pytest.raises(ValueError, match=match):
            nn.TransformerEncoderLayer(8, 2, 16, activation=bad)


def test_errors():
    x = T(tc.make(("x", (3, 2, 8), 0.0)))
    with pytest.raises(ValueError, match="divisible by 'num_heads'"):
        nn.MultiheadAttention(8, 3)
    mha = nn.MultiheadAttention(8, 2)
    with pytest.raises(ValueError, match="only bool and floating types of key_padding_mask"):
        mha(x, x, x, key_padding_mask=T(np.zeros((2, 3), np.int32)))
    with pytest.raises(AssertionError, match="only bool and floating types of key_padding_mask"):
        nn.TransformerEncoderLayer(8, 2, 16)(x, src_key_padding_mask=T(np.zeros((2, 3), np.int32)))
    with pytest.raises(ValueError, match="only support float, byte, and bool"):
        mha(x, x, x, attn_mask=T(np.zeros((3, 3), np.int32)))
    with pytest.raises(ValueError, match=r"should be \(3, 3\)"):
        mha(x, x, x, attn_mask=T(np.zeros((3, 4), bool)))
    with pytest.raises(ValueError, match=r"should be \(4, 3, 3\)"):
        mha(x, x, x, attn_mask=T(np.zeros((2, 3, 3), bool)))
    with pytest.raises(ValueError, match="unbatched 2D or batched 3D"):
        mha(T(np.zeros((1, 3, 2, 8), np.float32)), x, x)
    with pytest.raises(ValueError, match=r"`key_padding_mask` should be \(2, 3\)"):
        mha(x, x, x, key_padding_mask=T(np.zeros((2, 4), bool)))
    with pytest.raises(ValueError, match="embed_dim` should be 8"):
        mha(T(np.zeros((3, 2, 4), np.float32)), x, x)
    with pytest.raises(ValueError, match=r"must to be \(2, 3, 3\)"):
        mha(x[:, 0], x[:, 0], x[:, 0], attn_mask=T(np.zeros((4, 3, 3), bool)))
    with pytest.raises(TypeError, match="without"):
        nn.TransformerEncoder(nn.Dense(8, 8), 2)
    with pytest.raises(ValueError, match="equal to `d_model`"):
        nn.Transformer(8, 2, 1, 1, 16)(x, T(np.zeros((3, 2, 4), np.float32)))


# ------------------------------------------------------------------ the fused LayerNorm of the layers
def test_fused_layer_norm_equals_nn_layer_norm_and_its_gradients(rng):
    from mscustom.ops.nn.layer_norm_last import layer_norm_last
    x = rng.standard_normal((3, 2, 8))
    ln = nn.LayerNorm((8,), epsilon=1e-5, dtype=ms.float64)
    ln.gamma.set_data(T(rng.standard_normal(8)))
    ln.beta.set_data(T(rng.standard_normal(8)))
    np.testing.assert_allclose(layer_norm_last(T(x), ln.gamma, ln.beta, 1e-5).asnumpy(), ln(T(x)).asnumpy(),
                               rtol=1e-12, atol=1e-12)
    seed = T(rng.standard_normal((3, 2, 8)))
    check_grad(lambda a, g, b: layer_norm_last(a, g, b, 1e-5) * seed, T(x), T(ln.gamma.asnumpy()),
               T(ln.beta.asnumpy()))
    composed = ms.grad(lambda a: (ln(a) * seed).sum(), 0, ln.trainable_params())(T(x))
    fused = ms.grad(lambda a: (layer_norm_last(a, ln.gamma, ln.beta, 1e-5) * seed).sum(), 0,
                    ln.trainable_params())(T(x))
    np.testing.assert_allclose(fused[0].asnumpy(), composed[0].asnumpy(), rtol=1e-10, atol=1e-12)
    for f, c in zip(fused[1], composed[1]):
        np.testing.assert_allclose(f.asnumpy(), c.asnumpy(), rtol=1e-10, atol=1e-12)


def test_layers_call_other_norms_as_they_are():
    class Scaled(nn.LayerNorm):
        def construct(self, x):
            return super().construct(x) * 2.0
    net = _net("encoder_layer_unbatched")
    args, _, _ = tc.inputs(T, "encoder_layer_unbatched")
    base = net(*args).asnumpy()
    net.norm2 = Scaled((8,), epsilon=1e-5)
    for i, p in enumerate(net.get_parameters()):
        p.set_data(T(tc.weight(p.shape, i)))
    got = net(*args).asnumpy()
    np.testing.assert_allclose(got, 2 * base, rtol=1e-5, atol=1e-5)
