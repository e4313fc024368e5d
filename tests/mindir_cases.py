"""The networks of tests/test_export_mindir.py, with fixed weights and inputs, as both sides build them.

Each case is ``build() -> (net, inputs)``: an mscustom network in inference
mode whose every Parameter (in ``parameters_and_names()`` order) is set to
``weight(name, shape, index)``, and its NumPy inputs. ``bench/check_mindir.py``
exports them with mscustom (``ms.export(..., file_format="MINDIR")``) and runs
the files in real MindSpore 2.10 (``mindspore.load`` + ``nn.GraphCell``); the
outputs MindSpore gave are the literals of ``test_export_mindir.py``.
"""

import numpy as np

import mscustom as ms
from mscustom import nn, ops

__all__ = ["CASES", "weight", "build"]


def weight(name, shape, index):
    """The value of the ``index``-th Parameter (float32); variances are kept positive."""
    n = int(np.prod(shape)) if shape else 1
    w = 0.4 * np.sin(0.37 * np.arange(n) + 0.9 * index + 0.3)
    if "variance" in name:
        w = 0.6 + np.abs(w)
    return w.astype(np.float32).reshape(shape)


def pattern(shape, seed, scale=1.0):
    """A float32 input: a ``sin`` pattern of ``shape``."""
    n = int(np.prod(shape))
    return (scale * np.sin(0.9 * np.arange(n) + seed)).astype(np.float32).reshape(shape)


def _fixed(net):
    for k, (name, p) in enumerate(net.parameters_and_names()):
        p.set_data(ms.Tensor(weight(name, tuple(p.shape), k)))
    net.set_train(False)
    return net


class _Seq(nn.Cell):
    """Layers applied one after another (a Cell of its own, so the parameter names are stable)."""

    def __init__(self, *layers):
        super().__init__()
        self.layers = nn.SequentialCell(list(layers))

    def construct(self, x):
        return self.layers(x)


def dense_relu():
    return _fixed(_Seq(nn.Dense(4, 3), nn.ReLU())), [pattern((2, 4), 0.1)]


def activations():
    class Acts(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(5, 6)
            self.acts = [nn.ReLU(), nn.Sigmoid(), nn.Tanh(), nn.GELU(), nn.GELU(approximate=False), nn.SiLU(),
                         nn.LeakyReLU(0.2), nn.ELU(), nn.ReLU6(), nn.HSwish(), nn.HSigmoid(), nn.Softsign()]
            self.softmax = nn.Softmax()
            self.log_softmax = nn.LogSoftmax()

        def construct(self, x):
            y = self.fc(x) * 3.0
            outs = [act(y) for act in self.acts]
            return ops.stack(outs, 0), self.softmax(y), self.log_softmax(y)

    return _fixed(Acts()), [pattern((2, 5), 0.3)]


def conv2d_bn_pool():
    net = _Seq(nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1, has_bias=True), nn.BatchNorm2d(4), nn.ReLU(),
               nn.MaxPool2d(2, 2), nn.Conv2d(4, 5, 3, stride=2, pad_mode="same", group=1), nn.BatchNorm2d(5),
               nn.Tanh(), nn.AvgPool2d(2, 1), nn.Flatten(), nn.Dense(5, 3))
    return _fixed(net), [pattern((2, 3, 8, 8), 0.5)]


def pool_padding():
    class Pools(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 3, (3, 2), stride=(1, 2), pad_mode="pad", padding=(1, 0, 1, 1), dilation=(2, 1),
                                  has_bias=False)
            self.max = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1, ceil_mode=True)
            self.avg = nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, ceil_mode=True, count_include_pad=False)
            self.avg_same = nn.AvgPool2d(2, 2, pad_mode="same")

        def construct(self, x):
            y = self.conv(x)
            return self.max(y), self.avg(y), self.avg_same(y)

    return _fixed(Pools()), [pattern((1, 2, 7, 9), 0.7)]


def conv1d_bn():
    net = _Seq(nn.Conv1d(3, 4, 3, pad_mode="pad", padding=1, has_bias=True), nn.BatchNorm1d(4), nn.ReLU(),
               nn.Dropout(p=0.5), nn.Conv1d(4, 2, 2, stride=2, has_bias=True, pad_mode="valid"), nn.Flatten(),
               nn.Dense(8, 2))
    return _fixed(net), [pattern((2, 3, 8), 0.9)]


def embedding_layernorm():
    class Tagger(nn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 6)
            self.ln = nn.LayerNorm((6,))
            self.fc = nn.Dense(6, 3)

        def construct(self, ids):
            return self.fc(self.ln(self.emb(ids)))

    return _fixed(Tagger()), [np.array([[1, 4, 9], [0, 7, 2]], np.int32)]


def recurrent():
    class Recurrent(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True)
            self.gru = nn.GRU(3, 4)
            self.rnn = nn.RNN(3, 2, nonlinearity="relu")
            self.fc = nn.Dense(8, 2)

        def construct(self, x, z):
            out, (h, c) = self.lstm(x)
            g, hg = self.gru(z)
            r, hr = self.rnn(z)
            return self.fc(out[:, -1]), ops.concat([h, c], 0)[:, :, 1:3], g[-1] + hg[0], r[1:3], hr

    return _fixed(Recurrent()), [pattern((2, 5, 3), 1.1), pattern((4, 2, 3), 1.3)]


def recurrent_lengths():
    class Lengths(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(3, 4, bidirectional=True)
            self.gru = nn.GRU(3, 3, batch_first=True, bidirectional=True)

        def construct(self, x, h0, c0, lens, z):
            out, (h, c) = self.lstm(x, (h0, c0), lens)
            g, hg = self.gru(z, seq_length=lens)
            return out[:, :, 2:5], h + c, g[:, 1:], hg

    return _fixed(Lengths()), [pattern((4, 3, 3), 1.5), pattern((2, 3, 4), 0.2, 0.5), pattern((2, 3, 4), 0.4, 0.5),
                               np.array([4, 2, 3], np.int32), pattern((3, 4, 3), 1.9)]


def more_layers():
    class Layers(nn.Cell):
        def __init__(self):
            super().__init__()
            self.front = nn.SequentialCell([nn.ZeroPad2d((1, 0, 2, 1)),
                                            nn.Conv2d(2, 4, 3, group=2, dilation=2, pad_mode="valid"),
                                            nn.GroupNorm(2, 4), nn.PReLU(4), nn.Mish(), nn.Upsample(size=(5, 8))])
            self.up = nn.Conv2dTranspose(4, 3, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
            self.avg = nn.AdaptiveAvgPool2d((2, 3))
            self.max = nn.AdaptiveMaxPool2d((2, 2))
            self.hardtanh = nn.Hardtanh(-0.5, 0.5)
            self.shrink = nn.Tanhshrink()
            self.pool1d = nn.SequentialCell([nn.MaxPool1d(2, 2), nn.AvgPool1d(2, 1), nn.Identity()])
            self.onehot = nn.Embedding(6, 3, use_one_hot=True)
            self.softmax0 = nn.Softmax(0)

        def construct(self, x, ids):
            y = self.up(self.front(x))
            seq = self.pool1d(ops.reshape(y[:, :, 0], (1, 3, -1)))
            return (self.hardtanh(self.avg(y)), self.shrink(self.max(y)), seq[:, :, :6], self.onehot(ids),
                    self.softmax0(y[0, :, 2, :3]))

    return _fixed(Layers()), [pattern((1, 2, 7, 9), 0.7), np.array([[5, 0, 2]], np.int32)]


def resample():
    class Resample(nn.Cell):
        def __init__(self):
            super().__init__()
            self.up = nn.Upsample(size=(5, 7), mode="bilinear", align_corners=True)

        def construct(self, x):
            return (self.up(x), ops.interpolate(x, size=(4, 3), mode="bicubic"),
                    ops.interpolate(x, scale_factor=(1.5, 2.0), mode="nearest"),
                    ops.interpolate(x, size=(2, 2), mode="area"),
                    ops.pad(x, (1, 2, 0, 1), mode="reflect"), ops.pad(x, (2, 1), value=0.5),
                    ops.pad(x, (1, 1, 2, 0), mode="replicate"), ops.tile(x[:, :, 0], (2, 1, 3)))

    return _fixed(Resample()), [pattern((1, 1, 3, 4), 0.8)]


def transformer():
    class Attention(nn.Cell):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(8, 2, kdim=6, vdim=4)
            self.enc = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation="gelu")
            self.dec = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True)
            self.causal = ms.Tensor(np.triu(np.ones((3, 3), np.bool_), 1))

        def construct(self, q, k, v, pad, bias, src, memory):
            out, weights = self.mha(q, k, v, key_padding_mask=pad, attn_mask=bias)
            return (out, weights, self.enc(src, src_key_padding_mask=pad)[:, :, :3],
                    self.dec(q, memory, tgt_mask=self.causal)[:, :, 5:])

    pad = np.array([[False, False, True, False], [False, False, False, True]])
    return _fixed(Attention()), [pattern((3, 2, 8), 0.1), pattern((4, 2, 6), 0.2), pattern((4, 2, 4), 0.3), pad,
                                 pattern((3, 4), 0.4, 0.5), pattern((2, 4, 8), 0.5), pattern((4, 2, 8), 0.6)]


def passthrough():
    class Passthrough(nn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(5, 2)
            self.max = nn.AdaptiveMaxPool2d((2, 2), return_indices=True)

        def construct(self, x, ids):
            values, indices = self.max(x)
            shared = self.emb(ids) + self.emb.embedding_table[1]
            return x, self.emb.embedding_table, shared, values, indices

    return _fixed(Passthrough()), [pattern((1, 2, 3, 5), 0.6), np.array([4, 0, 3], np.int64)]


def more_math():
    class Maths(nn.Cell):
        def construct(self, x, k):
            flags = ops.logical_xor(x > 0.2, ops.isnan(x))
            return (ops.tan(x * 0.5), ops.trunc(x * 3.0), ops.erfc(x), ops.expm1(x), ops.hardswish(x * 4.0),
                    ops.mish(x), ops.selu(x), ops.elu(x, 0.5), ops.softplus(x), ops.floor_div(k, 3),
                    ops.floor_mod(k, 3), ops.floor_div(x, 0.3), ops.isinf(x / ops.abs(x)), flags,
                    ops.reduce_prod(x + 1.5, 1), ops.ReduceAll()(flags, 0), ops.ReduceAny(keep_dims=True)(flags, 1))

    return _fixed(Maths()), [pattern((2, 5), 0.4), np.array([[7, -5, 3], [-1, 0, 11]], np.int32)]


def elementwise():
    class Elementwise(nn.Cell):
        def construct(self, x):
            up, low = x > 0.0, x < 0.5
            return (ops.ceil(x * 3.0), ops.floor(x * 3.0), ops.sin(x), ops.cos(x), ops.log1p(ops.abs(x)),
                    ops.reciprocal(x + 2.0), ops.rsqrt(x + 2.0), ops.sign(x), ops.maximum(x, 0.1),
                    ops.ReduceMin()(x, 1), ops.logical_and(up, low), ops.logical_or(up, low), ops.logical_not(up),
                    x != x[0, 1])

    return _fixed(Elementwise()), [pattern((2, 3), 0.9)]


def tensor_ops():
    class Misc(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.zeros((1, 4, 2), np.float32)), name="w")

        def construct(self, x, m):
            a = ops.matmul(x, self.w)                              # (2, 3, 2)
            b = ops.reduce_sum(a, 1) - ops.reduce_max(x, (1, 2))[:, None]
            c = ops.transpose(x, (0, 2, 1))[:, ::-1, 1]
            d = ops.where(m > 0, x, ops.zeros_like(x) - 1.0).mean(axis=-1, keep_dims=True)
            e = ops.concat([x[0], x[1, 1:]], 0).reshape(-1)[::3]
            return b * 2.0 / (1.0 + ops.exp(-b)), c.astype(ms.float64) ** 2, d, ops.sqrt(ops.abs(e)), x[:, [2, 0]]

    return _fixed(Misc()), [pattern((2, 3, 4), 1.7), pattern((2, 3, 4), 2.3)]


CASES = {f.__name__: f for f in (dense_relu, activations, conv2d_bn_pool, pool_padding, conv1d_bn,
                                  embedding_layernorm, recurrent, recurrent_lengths, more_layers, resample,
                                  transformer, passthrough, more_math, elementwise, tensor_ops)}


def build(name):
    """``(net, inputs)`` of the case ``name`` (inputs as NumPy arrays)."""
    return CASES[name]()
