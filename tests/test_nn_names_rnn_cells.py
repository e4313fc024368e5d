"""RNNCell, GRUCell, LSTMCell: outputs and gradients (input and every weight) equal MindSpore 2.10's for the same
weights; parameter names are MindSpore's."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn

RNN_CELLS = {
    'rnn_tanh': ([[[0.1745012, -0.4766465], [0.8769049, 0.0624752]]], [[0.1802165, 0.3822376, 0.4044863], [-0.4256176, -0.19614, 0.1255853]], [[[-0.9887785, -0.6394171, -0.2900555], [-0.6147757, -0.8422071, -1.0696384]], [[0.0681112, -0.1987171], [-0.2540835, -0.1328164]], [0.8734037, -0.5685784], [0.8734037, -0.5685784]]),
    'rnn_relu': ([[[0.1763055, 0.0], [1.3622111, 0.0625566]]], [[0.0, 0.3221088, 0.4927249], [-0.4272854, -0.2998624, -0.0314095]], [[[-1.0832294, -0.8496882, -0.6161469], [-0.1979985, -0.5939955, -0.9899925]], [[-0.0248441, -0.2208073], [-0.2969978, -0.0494996]], [0.5838531, -0.9899925], [0.5838531, -0.9899925]]),
    'rnn_nobias': ([[[-0.3354025, -0.4361024], [0.684218, 0.1132962]]], [[0.1888463, 0.3591594, 0.3605542], [-0.4218007, -0.2349805, 0.0623548]], [[[-0.9317703, -0.6652987, -0.398827], [-0.6330017, -0.8488978, -1.0647938]], [[0.0223527, -0.1885673], [-0.249431, -0.1363732]]]),
    'gru': ([[[-0.2999792, 0.2925612], [-0.3911828, -0.3949844]]], [[-0.1800698, -0.2731959, -0.2378337], [0.0386244, 0.0649605, 0.0607446]], [[[0.0120669, 0.0101897, 0.0083124], [-0.0108389, -0.0155919, -0.0203449], [-0.2367938, -0.1690102, -0.1012266], [0.0253626, -0.0736824, -0.1727274], [-0.1908604, -0.2251112, -0.2593619], [-0.387912, -0.3662694, -0.3446267]], [[0.0007597, 0.0024748], [-0.0049752, -0.0023571], [0.0057234, -0.0479199], [-0.0618029, 0.0032204], [-0.0471537, -0.0249224], [-0.0306307, -0.031971]], [-0.0046931, -0.0118825, 0.169459, -0.2476125, -0.0856269, 0.0541066], [-0.0046931, -0.0118825, 0.169459, -0.2476125, -0.1046762, -0.019438]]),
    'lstm': ([[[-0.0960388, 0.0516964], [-0.3196909, -0.1582444]], [[-0.1848152, 0.0882972], [-0.4627931, -0.2498016]]], [[-0.0496135, -0.2963258, -0.4036714], [0.1940217, 0.2352032, 0.165765]], [[[0.3335907, 0.2303327, 0.1270748], [-0.0461045, 0.0959026, 0.2379098], [-0.1854158, -0.1112495, -0.0370832], [0.0458753, -0.0097099, -0.0652951], [-0.2864754, -0.3404697, -0.394464], [-0.3384197, -0.4318371, -0.5252544], [0.0524992, 0.0481402, 0.0437812], [-0.000463, 0.0262967, 0.0530564]], [[-0.0132402, 0.0673469], [0.0869874, -0.0066466], [0.0185416, -0.0370832], [-0.0294109, 0.0083993], [-0.0837421, -0.0608073], [-0.1186815, -0.0724503], [0.0058439, 0.0108465], [0.0177626, 0.000461]], [-0.2581449, 0.355018, 0.1854158, -0.138963, -0.1349857, -0.2335434, -0.0108974, 0.0668992], [-0.2581449, 0.355018, 0.1854158, -0.138963, -0.1349857, -0.2335434, -0.0108974, 0.0668992]]),
}

CTORS = {"rnn_tanh": lambda: nn.RNNCell(3, 2), "rnn_relu": lambda: nn.RNNCell(3, 2, nonlinearity="relu"),
         "rnn_nobias": lambda: nn.RNNCell(3, 2, has_bias=False), "gru": lambda: nn.GRUCell(3, 2),
         "lstm": lambda: nn.LSTMCell(3, 2)}


@pytest.mark.parametrize("name", list(RNN_CELLS))
def test_rnn_cell(name):
    cell = CTORS[name]()
    for k, (_, p) in enumerate(cell.parameters_and_names()):
        p.set_data(ms.Tensor((np.sin(np.arange(p.size) * 0.7 + k) * 0.5).reshape(p.shape).astype(np.float32)))
    x = ms.Tensor(np.linspace(-1, 1, 6).reshape(2, 3).astype(np.float32))
    h = ms.Tensor(np.array([[0.1, -0.2], [0.3, 0.05]], np.float32))
    c = ms.Tensor(np.array([[0.5, -0.4], [0.0, 0.2]], np.float32))
    hx = (h, c) if name == "lstm" else h
    w = ms.Tensor(np.cos(np.arange(4)).reshape(2, 2).astype(np.float32))
    out = cell(x, hx)
    outs, gx_exp, gw_exp = RNN_CELLS[name]
    for got, exp in zip(out if isinstance(out, tuple) else (out,), outs):
        np.testing.assert_allclose(got.asnumpy(), exp, rtol=1e-5, atol=1e-6)

    def f(a):
        o = cell(a, hx)
        return sum((t * w).sum() for t in (o if isinstance(o, tuple) else (o,)))
    gx, gw = ms.grad(f, grad_position=0, weights=cell.trainable_params())(x)
    np.testing.assert_allclose(gx.asnumpy(), gx_exp, rtol=1e-5, atol=1e-6)
    assert len(gw) == len(gw_exp)
    for got, exp in zip(gw, gw_exp):
        np.testing.assert_allclose(got.asnumpy(), exp, rtol=1e-5, atol=1e-6)


def test_rnn_cell_names_and_errors():
    assert [(n, p.shape) for n, p in nn.LSTMCell(3, 2).parameters_and_names()] == [
        ("weight_ih", (8, 3)), ("weight_hh", (8, 2)), ("bias_ih", (8,)), ("bias_hh", (8,))]
    assert [n for n, _ in nn.GRUCell(3, 2, has_bias=False).parameters_and_names()] == ["weight_ih", "weight_hh"]
    w = nn.RNNCell(3, 4).weight_ih.asnumpy()
    assert np.abs(w).max() <= 0.5 and w.std() > 0.05
    x = ms.Tensor(np.ones((2, 3), np.float32))
    assert nn.GRUCell(3, 2)(x).shape == (2, 2)                 # hx None: zeros
    with pytest.raises(ValueError, match="RNNCell"):
        nn.RNNCell(3, 2)(x, ms.Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="RNNCell"):
        nn.RNNCell(3, 2, nonlinearity="sigmoid")
