"""MindSpore layers against NumPy oracles: parameters, names, defaults, train/eval behaviour, training."""

from collections import OrderedDict

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops

RNG = np.random.default_rng(5)


def T(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype))


def np_conv(x, w, stride=1, pad=(0, 0, 0, 0)):
    """Plain cross-correlation with an einsum over the sliding windows (the oracle)."""
    xp = np.pad(x, ((0, 0), (0, 0), pad[:2], pad[2:]))
    win = np.lib.stride_tricks.sliding_window_view(xp, w.shape[2:], axis=(2, 3))[:, :, ::stride, ::stride]
    return np.einsum("nchwkl,ockl->nohw", win, w)


# ------------------------------------------------------------------ convolution
def test_conv2d_defaults_names_and_values():
    conv = nn.Conv2d(3, 4, 3)
    assert conv.pad_mode == "same" and conv.bias is None and conv.weight.shape == (4, 3, 3, 3)
    x = RNG.normal(size=(2, 3, 5, 5)).astype(np.float32)
    y = conv(T(x))
    np.testing.assert_allclose(y.asnumpy(), np_conv(x, conv.weight.asnumpy(), pad=(1, 1, 1, 1)), rtol=1e-5,
                               atol=1e-5)
    conv = nn.Conv2d(3, 4, (3, 2), stride=2, pad_mode="pad", padding=(1, 0, 0, 1), has_bias=True)
    y = conv(T(x)).asnumpy()
    ref = np_conv(x, conv.weight.asnumpy(), 2, (1, 0, 0, 1)) + conv.bias.asnumpy()[None, :, None, None]
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 2, 3, has_bias=True)

        def construct(self, x):
            return self.conv1(x)

    assert [p.name for p in Net().trainable_params()] == ["conv1.weight", "conv1.bias"]


def test_conv_group_conv1d_transpose_shapes():
    assert nn.Conv2d(4, 6, 3, group=2).weight.shape == (6, 2, 3, 3)
    assert nn.Conv2d(4, 6, 3, group=2, pad_mode="valid")(T(np.ones((1, 4, 5, 5)))).shape == (1, 6, 3, 3)
    c1 = nn.Conv1d(3, 5, 3, stride=2, has_bias=True)
    assert c1.weight.shape == (5, 3, 1, 3) and c1(T(np.ones((2, 3, 9)))).shape == (2, 5, 5)
    x = RNG.normal(size=(2, 3, 8)).astype(np.float32)
    c1 = nn.Conv1d(3, 2, 3, pad_mode="valid")
    ref = np_conv(x[:, :, None], c1.weight.asnumpy())[:, :, 0]          # weight (out, in, 1, k)
    np.testing.assert_allclose(c1(T(x)).asnumpy(), ref, rtol=1e-5, atol=1e-5)
    tr = nn.Conv2dTranspose(4, 2, 3, stride=2, has_bias=True)
    assert tr.weight.shape == (4, 2, 3, 3) and tr(T(np.ones((1, 4, 5, 5)))).shape == (1, 2, 10, 10)
    assert nn.Conv2dTranspose(4, 2, 3, stride=2, pad_mode="valid")(T(np.ones((1, 4, 5, 5)))).shape == \
        (1, 2, 11, 11)


def test_conv_layer_errors():
    with pytest.raises(ValueError, match="Conv2d: in_channels .* must be divisible by group"):
        nn.Conv2d(3, 4, 3, group=2)
    with pytest.raises(ValueError, match="Conv2d: padding must be 0 when pad_mode is 'same'"):
        nn.Conv2d(3, 4, 3, padding=1)
    with pytest.raises(ValueError, match=r"Conv2d\(in_channels=3\): expects an input of rank 4 with 3 channels"):
        nn.Conv2d(3, 4, 3)(T(np.ones((1, 2, 5, 5))))


# ------------------------------------------------------------------ pooling
def test_pooling_layers():
    x = RNG.normal(size=(2, 3, 6, 6)).astype(np.float32)
    win = np.lib.stride_tricks.sliding_window_view(x, (2, 2), axis=(2, 3))[:, :, ::2, ::2]
    np.testing.assert_array_equal(nn.MaxPool2d(2, 2)(T(x)).asnumpy(), win.max(axis=(-1, -2)))
    np.testing.assert_allclose(nn.AvgPool2d(2, 2)(T(x)).asnumpy(), win.mean(axis=(-1, -2)), rtol=1e-6)
    np.testing.assert_array_equal(nn.MaxPool2d()(T(x)).asnumpy(), x)       # MindSpore's defaults: k=1, s=1
    assert nn.MaxPool2d(3, 2, pad_mode="same")(T(x)).shape == (2, 3, 3, 3)
    assert nn.MaxPool2d(2, 2)(T(x[0])).shape == (3, 3, 3)                   # unbatched (C, H, W)
    np.testing.assert_allclose(nn.AdaptiveAvgPool2d(1)(T(x)).asnumpy()[..., 0, 0], x.mean(axis=(2, 3)),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="can not be set to non-default value when pad_mode is not 'pad'"):
        nn.MaxPool2d(2, ceil_mode=True)         # MindSpore's rule: ceil_mode needs pad_mode="pad"


# ------------------------------------------------------------------ normalization
def test_batchnorm2d_train_and_eval():
    bn = nn.BatchNorm2d(3)
    names = [n for n, _ in bn.parameters_and_names()]
    assert names == ["moving_mean", "moving_variance", "gamma", "beta"]         # MindSpore 2.10's order
    assert [p.name for p in bn.trainable_params()] == ["gamma", "beta"]
    assert not bn.moving_mean.requires_grad and not bn.moving_variance.requires_grad
    x = RNG.normal(3.0, 2.0, size=(4, 3, 5, 5)).astype(np.float32)
    bn.set_train()
    y = bn(T(x)).asnumpy()
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    ref = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)
    # moving = momentum * moving + (1 - momentum) * batch, momentum 0.9 (unbiased batch variance)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.1 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), 0.9 + 0.1 * x.var(axis=(0, 2, 3), ddof=1),
                               rtol=1e-5)
    bn.set_train(False)
    mm, mv = bn.moving_mean.asnumpy(), bn.moving_variance.asnumpy()
    y = bn(T(x)).asnumpy()
    np.testing.assert_allclose(y, (x - mm[None, :, None, None]) / np.sqrt(mv[None, :, None, None] + 1e-5),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(bn.moving_mean.asnumpy(), mm)             # eval leaves them alone
    forced = nn.BatchNorm2d(3, use_batch_statistics=True)                   # batch stats even in eval
    np.testing.assert_allclose(forced(T(x)).asnumpy(), ref, rtol=1e-4, atol=1e-4)


def test_batchnorm1d_and_errors():
    bn = nn.BatchNorm1d(4, momentum=0.5, affine=False).set_train()
    x = RNG.normal(size=(8, 4)).astype(np.float32)
    y = bn(T(x)).asnumpy()
    np.testing.assert_allclose(y, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.5 * x.mean(0), rtol=1e-5)
    assert bn.trainable_params() == []
    with pytest.raises(ValueError, match=r"BatchNorm1d\(num_features=4\): expects an input of rank 2 or 3"):
        bn(T(np.ones((2, 3))))


def test_layernorm_and_groupnorm():
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    ln = nn.LayerNorm((4,))
    assert ln.epsilon == 1e-7
    np.testing.assert_allclose(ln(T(x)).asnumpy(), (x - x.mean(-1, keepdims=True)) /
                               np.sqrt(x.var(-1, keepdims=True) + 1e-7), rtol=1e-4, atol=1e-4)
    ln = nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1, gamma_init=2.0)
    ref = (x - x.mean((1, 2), keepdims=True)) / np.sqrt(x.var((1, 2), keepdims=True) + 1e-7) * 2.0
    np.testing.assert_allclose(ln(T(x)).asnumpy(), ref, rtol=1e-4, atol=1e-4)
    assert [n for n, _ in ln.parameters_and_names()] == ["gamma", "beta"]
    gn = nn.GroupNorm(2, 4)
    gx = RNG.normal(size=(2, 4, 3)).astype(np.float32)
    g = gx.reshape(2, 2, -1)
    ref = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(gx.shape)
    np.testing.assert_allclose(gn(T(gx)).asnumpy(), ref, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="LayerNorm: normalized_shape \\[5\\] must equal"):
        nn.LayerNorm((5,))(T(x))


# ------------------------------------------------------------------ dropout, embedding, basic
def test_dropout_p_keep_prob_and_modes():
    assert nn.Dropout(keep_prob=0.8).p == pytest.approx(0.2)
    assert nn.Dropout(keep_prob=0.8, p=0.5).p == 0.5                       # p wins
    x = T(np.ones((100, 100)))
    drop = nn.Dropout(p=0.25)
    assert drop(x) is x                                                    # new Cells start in eval mode
    drop.set_train()
    a, b = drop(x).asnumpy(), drop(x).asnumpy()
    assert not np.array_equal(a, b) and abs((a == 0).mean() - 0.25) < 0.03
    assert np.allclose(a[a != 0], 1 / 0.75)
    with pytest.raises(ValueError, match=r"Dropout: p .* must be in \[0, 1\)"):
        nn.Dropout(p=1.0)


def test_embedding_lookup_gradient_and_padding():
    emb = nn.Embedding(10, 4, padding_idx=0)
    assert emb.embedding_table.shape == (10, 4) and emb.embedding_table.asnumpy()[0].sum() == 0
    ids = ms.Tensor(np.array([[1, 2], [2, 9]], np.int32))
    np.testing.assert_array_equal(emb(ids).asnumpy(), emb.embedding_table.asnumpy()[ids.asnumpy()])
    onehot = nn.Embedding(10, 4, use_one_hot=True)
    onehot.embedding_table.set_data(emb.embedding_table)
    np.testing.assert_allclose(onehot(ids).asnumpy(), emb(ids).asnumpy())
    fn = ms.value_and_grad(lambda i: emb(i).sum(), None, emb.trainable_params())
    _, (g,) = fn(ids)
    np.testing.assert_array_equal(g.asnumpy()[:, 0], [0, 1, 2, 0, 0, 0, 0, 0, 0, 1])
    with pytest.raises(TypeError, match="Embedding: the input must be an integer Tensor"):
        emb(T([1.0]))
    with pytest.raises(IndexError, match="index 10 is out of range"):
        emb(ms.Tensor(np.array([10], np.int32)))


def test_flatten_identity_activations():
    x = T(RNG.normal(size=(2, 3, 4, 5)))
    assert nn.Flatten()(x).shape == (2, 60)
    assert nn.Flatten(start_dim=2)(x).shape == (2, 3, 20)
    assert nn.Flatten(0, 1)(x).shape == (6, 4, 5)
    assert nn.Identity()(x) is x
    v = np.array([-2.0, 0.5, 7.0], np.float32)
    np.testing.assert_allclose(nn.ReLU6()(T(v)).asnumpy(), [0, 0.5, 6])
    np.testing.assert_allclose(nn.LeakyReLU()(T(v)).asnumpy(), [-0.4, 0.5, 7.0])
    np.testing.assert_allclose(nn.SiLU()(T(v)).asnumpy(), v / (1 + np.exp(-v)), rtol=1e-6)
    assert not np.allclose(nn.GELU()(T(v)).asnumpy(), nn.GELU(approximate=False)(T(v)).asnumpy(), atol=1e-7)
    np.testing.assert_allclose(nn.GELU()(T(v)).asnumpy(), nn.GELU(False)(T(v)).asnumpy(), atol=1e-3)
    assert isinstance(nn.get_activation("gelu"), nn.GELU)


def test_containers():
    seq = nn.SequentialCell(OrderedDict([("fc", nn.Dense(3, 4)), ("act", nn.ReLU())]))
    assert [p.name for p in seq.trainable_params()] == ["fc.weight", "fc.bias"]
    seq.append(nn.Dense(4, 2))
    assert isinstance(seq[2], nn.Dense) and len(seq) == 3
    assert seq(T(np.ones((5, 3)))).shape == (5, 2)
    cl = nn.CellList([nn.Dense(2, 2), nn.Dense(2, 2)])
    assert [n for n, _ in cl.parameters_and_names()] == ["0.weight", "0.bias", "1.weight", "1.bias"]
    cd = nn.CellDict({"cls": nn.Dense(4, 3), "bn": nn.BatchNorm1d(4)})
    assert "cls" in cd and list(cd.keys()) == ["cls", "bn"] and len(cd) == 2
    assert [n for n, _ in cd.parameters_and_names()][:3] == ["cls.weight", "cls.bias", "bn.moving_mean"]
    cd.pop("bn")
    assert list(cd) == ["cls"]
    with pytest.raises(TypeError, match="CellDict: values must be Cells"):
        cd["x"] = 3
    with pytest.raises(TypeError, match="CellDict is a container and cannot be called"):
        cd(T([1.0]))


# ------------------------------------------------------------------ training
class LeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.bn1 = nn.BatchNorm2d(6)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.conv2 = nn.Conv2d(6, 8, 3, pad_mode="valid", has_bias=True)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(8 * 2 * 2, 3)

    def construct(self, x):
        x = self.pool(self.relu(self.bn1(self.conv1(x))))
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc(self.flatten(x))


def test_lenet_trains_on_random_data():
    ms.set_seed(0)
    x = T(RNG.normal(size=(32, 1, 16, 16)))
    y = ms.Tensor(RNG.integers(0, 3, size=32).astype(np.int32))
    net = LeNet()
    net.set_train()
    names = [p.name for p in net.trainable_params()]
    assert names == ["conv1.weight", "bn1.gamma", "bn1.beta", "conv2.weight", "conv2.bias", "fc.weight",
                     "fc.bias"]
    loss_fn = nn.CrossEntropyLoss()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    step = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)
    losses = []
    for _ in range(15):
        loss, grads = step(x, y)
        opt(grads)
        losses.append(loss.item())
    assert losses[-1] < 0.7 * losses[0], losses
    assert np.abs(net.bn1.moving_mean.asnumpy()).sum() > 0                 # moving statistics followed
    net.set_train(False)
    assert net(x).shape == (32, 3)


def test_layers_doc_runs():
    import re
    from pathlib import Path
    doc = Path(__file__).resolve().parents[1] / "docs" / "layers.md"
    blocks = re.findall(r"```python\n(.*?)```", doc.read_text(), flags=re.S)
    assert blocks
    ns = {}
    for i, block in enumerate(blocks):
        exec(compile(block, f"layers.md[block {i}]", "exec"), ns)
    assert np.isfinite(ns["loss"].item())
