"""The recurrent sequence ops (``ops/nn/rnn.py``) and nn.LSTM / GRU / RNN built on them.

Pinned three ways: a NumPy reference of MindSpore's equations (itself pinned to values printed by
MindSpore 2.10), the per-step composition of ops the layers were built from before (values and
gradients of every input and parameter), and central finite differences on the ops in float64.
The Numba step loops are compared bit for bit with the NumPy forms they replace.
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops
from mscustom.ops.nn import rnn as _rnn, rnn_loops as _rnn_loops
from mscustom.testing import check_grad

# ------------------------------------------------------------------ NumPy reference of MindSpore's equations
def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _ref_direction(mode, x, w_ih, w_hh, b_ih, b_hh, h, c, lens, reverse):
    """One direction over x (T, N, in) in float64: outputs (T, N, H) and the final (h, c)."""
    steps, n = x.shape[:2]
    hid = w_hh.shape[1]
    out = np.zeros((steps, n, hid))
    lens = np.full(n, steps) if lens is None else lens
    for b in range(n):
        hb, cb = h[b].copy(), c[b].copy()
        order = range(lens[b] - 1, -1, -1) if reverse else range(lens[b])
        for t in order:
            gi, gh = w_ih @ x[t, b] + b_ih, w_hh @ hb + b_hh
            if mode == "LSTM":
                i, f, g, o = np.split(gi + gh, 4)
                cb = _sigmoid(f) * cb + _sigmoid(i) * np.tanh(g)
                hb = _sigmoid(o) * np.tanh(cb)
            elif mode == "GRU":
                r = _sigmoid(gi[:hid] + gh[:hid])
                z = _sigmoid(gi[hid:2 * hid] + gh[hid:2 * hid])
                nn_ = np.tanh(gi[2 * hid:] + r * gh[2 * hid:])
                hb = (1 - z) * nn_ + z * hb
            elif mode == "RNN_TANH":
                hb = np.tanh(gi + gh)
            else:
                hb = np.maximum(gi + gh, 0)
            out[t, b] = hb
        h[b], c[b] = hb, cb
    return out, h, c


def reference(cell, x, hx=None, seq_length=None):
    """What MindSpore's nn.LSTM / GRU / RNN compute, in float64 NumPy, with the cell's parameters."""
    mode = cell.mode
    p = {q.name.split(".")[-1]: q.asnumpy().astype(np.float64) for q in cell.get_parameters()}
    x = x.asnumpy().astype(np.float64)
    if cell.batch_first:
        x = x.transpose(1, 0, 2)
    dirs = 2 if cell.bidirectional else 1
    n, hid = x.shape[1], cell.hidden_size
    if hx is None:
        h0 = c0 = np.zeros((cell.num_layers * dirs, n, hid))
    elif mode == "LSTM":
        h0, c0 = (t.asnumpy().astype(np.float64) for t in hx)
    else:
        h0 = hx.asnumpy().astype(np.float64)
        c0 = np.zeros_like(h0)
    lens = None if seq_length is None else np.asarray(seq_length.asnumpy(), np.int64)
    finals_h, finals_c = [], []
    for layer in range(cell.num_layers):
        outs = []
        for d in range(dirs):
            s = f"l{layer}" + ("_reverse" if d else "")
            k = layer * dirs + d
            zero = np.zeros(p[f"weight_hh_{s}"].shape[0])
            o, h, c = _ref_direction(mode, x, p[f"weight_ih_{s}"], p[f"weight_hh_{s}"], p.get(f"bias_ih_{s}", zero),
                                     p.get(f"bias_hh_{s}", zero), h0[k].copy(), c0[k].copy(), lens, d == 1)
            outs.append(o)
            finals_h.append(h)
            finals_c.append(c)
        x = np.concatenate(outs, 2)
    out = x.transpose(1, 0, 2) if cell.batch_first else x
    if mode == "LSTM":
        return out, (np.stack(finals_h), np.stack(finals_c))
    return out, np.stack(finals_h)


def set_params(cell):
    for j, p in enumerate(cell.get_parameters()):
        p.set_data(ms.Tensor((0.5 * np.sin(0.7 * np.arange(p.size) + j)).astype(np.float32).reshape(p.shape)))


X = ms.Tensor(np.cos(np.arange(18) * 0.37).astype(np.float32).reshape(3, 2, 3))      # (T, N, in)

# MindSpore 2.10: nn.LSTM/GRU/RNN(3, 2) with set_params, on X: the output (3, 2, 2), flattened
MS_OUT = {
    "LSTM": [-0.157596305, -0.372572809, -0.147023201, -0.152552605, -0.177950293, 0.0754574388, -0.228126705,
             0.103431143, -0.362651587, -0.0751472786, -0.294121504, -0.285751164],
    "GRU": [-0.196380496, -0.486646116, -0.248634294, -0.305315614, -0.367654860, 0.328520179, -0.438936353,
            0.375920981, -0.560857117, -0.119382828, -0.333123594, -0.240022480],
    "RNN_TANH": [0.830386877, 0.385934889, 0.395771176, 0.201420844, 0.297687739, 0.00617032824, 0.219582841,
                 -0.357760996, 0.719691932, -0.128694907, 0.843740463, 0.307133496],
}


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
def test_reference_and_layers_give_mindspores_values(cls):
    cell = cls(3, 2)
    set_params(cell)
    want = MS_OUT[cell.mode]
    np.testing.assert_allclose(reference(cell, X)[0].ravel(), want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(cell(X)[0].asnumpy().ravel(), want, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ the layers against the reference
def _inputs(cell, rng, steps=5, batch=3, hx=False):
    shape = (batch, steps, cell.input_size) if cell.batch_first else (steps, batch, cell.input_size)
    x = ms.Tensor(rng.standard_normal(shape).astype(np.float32))
    if not hx:
        return x, None
    k = cell.num_layers * (2 if cell.bidirectional else 1)
    h = ms.Tensor((0.5 * rng.standard_normal((k, batch, cell.hidden_size))).astype(np.float32))
    if cell.mode == "LSTM":
        return x, (h, ms.Tensor((0.5 * rng.standard_normal((k, batch, cell.hidden_size))).astype(np.float32)))
    return x, h


CONFIGS = [
    ("lstm", lambda: nn.LSTM(4, 3), False, None),
    ("lstm_bi2_bf_seq_hx", lambda: nn.LSTM(4, 3, num_layers=2, bidirectional=True, batch_first=True), True,
     [5, 2, 0]),
    ("lstm_nobias_seq", lambda: nn.LSTM(4, 3, has_bias=False), False, [3, 5, 1]),
    ("gru_bi_seq_hx", lambda: nn.GRU(4, 3, bidirectional=True), True, [4, 1, 5]),
    ("gru2_bf_nobias", lambda: nn.GRU(4, 3, num_layers=2, batch_first=True, has_bias=False), False, None),
    ("rnn_relu_bi2_seq", lambda: nn.RNN(4, 3, num_layers=2, bidirectional=True, nonlinearity="relu"), True,
     [2, 5, 3]),
    ("rnn_tanh_bf", lambda: nn.RNN(4, 3, batch_first=True), False, None),
]


@pytest.mark.parametrize("name, make, use_hx, lens", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_layers_match_the_reference(name, make, use_hx, lens):
    ms.set_seed(7)
    cell = make()
    x, hx = _inputs(cell, np.random.default_rng(3), hx=use_hx)
    seq = None if lens is None else ms.Tensor(np.array(lens, np.int32))
    out, hn = cell(x, hx, seq)
    want_out, want_hn = reference(cell, x, hx, seq)
    np.testing.assert_allclose(out.asnumpy(), want_out, rtol=1e-5, atol=1e-6)
    for got, want in zip(hn if cell.mode == "LSTM" else (hn,), want_hn if cell.mode == "LSTM" else (want_hn,)):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    if lens is not None:                       # MindSpore's seq_length: zeros past each length
        o = out.asnumpy() if cell.batch_first else out.asnumpy().transpose(1, 0, 2)
        for b, n in enumerate(lens):
            assert not o[b, n:].any()


# ------------------------------------------------------------------ gradients: the per-step composition of ops
def _cols(t, k, h):
    return ops.getitem(t, (Ellipsis, slice(k * h, (k + 1) * h)))


def _old_cell(mode, gi, h, w_hh_t, b_hh, hid):
    hx = h[0] if mode == "LSTM" else h
    gh = ops.matmul(hx, w_hh_t)
    if b_hh is not None:
        gh = ops.add(gh, b_hh)
    if mode == "RNN_TANH":
        return ops.tanh(ops.add(gi, gh))
    if mode == "RNN_RELU":
        return ops.relu(ops.add(gi, gh))
    if mode == "GRU":
        r = ops.sigmoid(ops.add(_cols(gi, 0, hid), _cols(gh, 0, hid)))
        z = ops.sigmoid(ops.add(_cols(gi, 1, hid), _cols(gh, 1, hid)))
        n = ops.tanh(ops.add(_cols(gi, 2, hid), ops.mul(r, _cols(gh, 2, hid))))
        return ops.add(n, ops.mul(z, ops.sub(hx, n)))
    gates = ops.add(gi, gh)
    i, f = ops.sigmoid(_cols(gates, 0, hid)), ops.sigmoid(_cols(gates, 1, hid))
    g, o = ops.tanh(_cols(gates, 2, hid)), ops.sigmoid(_cols(gates, 3, hid))
    c = ops.add(ops.mul(f, h[1]), ops.mul(i, g))
    return ops.mul(o, ops.tanh(c)), c


def _old_reverse(x, lens):
    if lens is None:
        return ops.getitem(x, slice(None, None, -1))
    steps = x.shape[0]
    t = ms.Tensor(np.arange(steps, dtype=np.int64).reshape(steps, 1))
    row = ops.reshape(lens, (1, -1))
    src = ops.where(ops.less(t, row), ops.sub(ops.sub(row, 1), t), ops.broadcast_to(t, (steps, x.shape[1])))
    perm = ops.transpose(ops.one_hot(src, steps, ms.Tensor(np.ones((), np.float32)),
                                     ms.Tensor(np.zeros((), np.float32))), (1, 0, 2))
    return ops.transpose(ops.matmul(perm, ops.transpose(x, (1, 0, 2))), (1, 0, 2))


def old_layer(cell, x, hx=None, seq_length=None):
    """nn.RNN / GRU / LSTM as they were built before the sequence ops: every step from separate ops."""
    mode, hid, lstm = cell.mode, cell.hidden_size, cell.mode == "LSTM"
    dirs = 2 if cell.bidirectional else 1
    if cell.batch_first:
        x = ops.transpose(x, (1, 0, 2))
    if hx is None:
        zeros = ms.Tensor(np.zeros((cell.num_layers * dirs, x.shape[1], hid), np.float32))
        hx = (zeros, zeros) if lstm else zeros
    lens = None if seq_length is None else ops.reshape(ops.cast(seq_length, ms.int64), (-1, 1))
    lens_row = None if seq_length is None else ops.cast(seq_length, ms.int64)
    finals = []
    for layer in range(cell.num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            state = (ops.getitem(hx[0], k), ops.getitem(hx[1], k)) if lstm else ops.getitem(hx, k)
            seq = x if d == 0 else _old_reverse(x, lens_row)
            gi_all = ops.matmul(seq, ops.transpose(cell.w_ih_list[k]))
            b_hh = None
            if cell.has_bias:
                gi_all = ops.add(gi_all, cell.b_ih_list[k])
                b_hh = cell.b_hh_list[k]
            steps_out = []
            for t in range(seq.shape[0]):
                new = _old_cell(mode, ops.getitem(gi_all, t), state, ops.transpose(cell.w_hh_list[k]), b_hh, hid)
                if lens is None:
                    state = new
                    steps_out.append(new[0] if lstm else new)
                    continue
                alive = ops.greater(lens, t)
                if lstm:
                    state = (ops.where(alive, new[0], state[0]), ops.where(alive, new[1], state[1]))
                    out = new[0]
                else:
                    state = ops.where(alive, new, state)
                    out = new
                steps_out.append(ops.where(alive, out, ops.zeros_like(out)))
            out = ops.stack(steps_out, 0)
            outs.append(out if d == 0 else _old_reverse(out, lens_row))
            finals.append(state)
        x = outs[0] if dirs == 1 else ops.concat(outs, 2)
    if cell.batch_first:
        x = ops.transpose(x, (1, 0, 2))
    if lstm:
        return x, (ops.stack([s[0] for s in finals], 0), ops.stack([s[1] for s in finals], 0))
    return x, ops.stack(finals, 0)


def _loss(layer, cell, seq):
    """sum_k sum(part_k * cos(arange * (k + 1))) over the output and final states: every element weighs apart."""
    lstm = cell.mode == "LSTM"

    def f(x, *h):
        hh = (tuple(h) if lstm else h[0]) if h else None
        out, hn = layer(cell, x, hh, seq)
        total = 0
        for k, t in enumerate([out] + (list(hn) if lstm else [hn])):
            w = ms.Tensor(np.cos(np.arange(t.size) * (k + 1)).astype(np.float32).reshape(t.shape))
            total = ops.add(total, ops.reduce_sum(ops.mul(t, w)))
        return total
    return f


@pytest.mark.parametrize("name, make, use_hx, lens", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_values_and_gradients_equal_the_per_step_composition(name, make, use_hx, lens):
    ms.set_seed(11)
    cell = make()
    x, hx = _inputs(cell, np.random.default_rng(5), steps=4, hx=use_hx)
    seq = None if lens is None else ms.Tensor(np.minimum(np.array(lens, np.int32), 4))
    args = (x,) + ((tuple(hx) if cell.mode == "LSTM" else (hx,)) if use_hx else ())
    results = []
    for layer in (lambda c, *a: c(*a), old_layer):
        f = _loss(layer, cell, seq)
        value = f(*args)
        gi, gw = ms.grad(f, grad_position=tuple(range(len(args))), weights=cell.trainable_params())(*args)
        results.append([value] + list(gi if isinstance(gi, tuple) else (gi,)) + list(gw))
    assert len(results[0]) == len(results[1]) == 1 + len(args) + len(cell.trainable_params())
    for got, want in zip(*results):
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=2e-5, atol=2e-6)


# ------------------------------------------------------------------ the ops themselves
def _op_args(kind, rng, dtype, bf, h0, bias, lens, steps=4, batch=3, hid=2):
    gates = _rnn.GATES[kind] * hid
    gi = rng.standard_normal((batch, steps, gates) if bf else (steps, batch, gates)).astype(dtype)
    w = (0.6 * rng.standard_normal((gates, hid))).astype(dtype)
    args = [ms.Tensor(gi), ms.Tensor(w)]
    extra = {}
    if h0:
        extra["h0"] = ms.Tensor((0.5 * rng.standard_normal((batch, hid))).astype(dtype))
        if kind == "lstm":
            extra["c0"] = ms.Tensor((0.5 * rng.standard_normal((batch, hid))).astype(dtype))
    if bias:
        extra["b_hh"] = ms.Tensor((0.3 * rng.standard_normal(gates)).astype(dtype))
    if lens is not None:
        extra["seq_length"] = ms.Tensor(np.array(lens, np.int64))
    return args, extra


OPTIONS = [(False, False, False, False, None), (True, True, True, True, [4, 2, 0]),     # bf, reverse, h0, bias, lens
           (False, True, False, True, [1, 4, 3]), (True, False, True, False, None)]
OP_CASES = [(kind,) + option for kind in ("lstm", "gru", "rnn") for option in OPTIONS]


@pytest.mark.parametrize("kind, bf, reverse, h0, bias, lens", OP_CASES)
def test_sequence_op_gradients_against_finite_differences(kind, bf, reverse, h0, bias, lens):
    rng = np.random.default_rng(13)
    args, extra = _op_args(kind, rng, np.float64, bf, h0, bias, lens)
    names = [k for k in ("h0", "c0", "b_hh") if k in extra]
    fn = {"lstm": _rnn.lstm_sequence, "gru": _rnn.gru_sequence, "rnn": _rnn.rnn_sequence}[kind]

    def f(gi, w, *rest):
        kw = dict(zip(names, rest), seq_length=extra.get("seq_length"), reverse=reverse, batch_first=bf)
        return fn(gi, w, **kw)

    check_grad(f, *args, *[extra[k] for k in names], rtol=1e-5, atol=1e-7)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_step_loops_give_the_numpy_forms_bits():
    """Forward and backward of LSTM and GRU, every layout, direction and option, loops against NumPy forms."""
    _rnn_loops.get()
    rng = np.random.default_rng(17)
    for kind in ("lstm", "gru"):
        for bf, reverse, bias, lens in ((False, False, False, None), (True, True, True, [6, 2, 0, 3]),
                                        (False, True, True, [1, 6, 6, 4]), (True, False, False, [5, 0, 6, 2])):
            steps, n, hid = 6, 4, 5
            gates = _rnn.GATES[kind] * hid
            gi = (3 * rng.standard_normal((n, steps, gates) if bf else (steps, n, gates))).astype(np.float32)
            gi.reshape(-1)[::37] = 60.0                 # exp(-60) and exp(60): sigmoid's ends
            gi.reshape(-1)[5::41] = -60.0
            w = rng.standard_normal((gates, hid)).astype(np.float32)
            ins = [gi, rng.standard_normal((n, hid)).astype(np.float32)]
            if kind == "lstm":
                ins.append(rng.standard_normal((n, hid)).astype(np.float32))
            ins.append(w)
            if bias:
                ins.append(rng.standard_normal(gates).astype(np.float32))
            if lens is not None:
                ins.append(np.array(lens, np.int32))
            attrs = dict(batch_first=bf, reverse=reverse, has_h0=True, has_bias=bias, has_lens=lens is not None)
            fwd = [_rnn._forward(kind, attrs, ins, use_loops=u) for u in (False, True)]
            for a, b in zip(*fwd):
                np.testing.assert_array_equal(a, b)
            outs = fwd[0]
            dy = rng.standard_normal(outs[0].shape).astype(np.float32)
            dh = rng.standard_normal((n, hid)).astype(np.float32)
            saved = [dy, dh, dh[::-1].copy(), w, outs[4]] if kind == "lstm" else [dy, dh, w, outs[2], outs[3]]
            if lens is not None:
                saved.append(ins[-1])
            back = [_rnn._backward(kind, attrs, saved, use_loops=u) for u in (False, True)]
            for a, b in zip(*back):
                np.testing.assert_array_equal(a, b)


def test_layers_use_the_loops_once_loaded_and_give_the_same_values():
    _rnn_loops.get()
    ms.set_seed(2)
    lstm = nn.LSTM(8, 16, batch_first=True)
    x = ms.Tensor(np.random.default_rng(1).standard_normal((4, 6, 8)).astype(np.float32))
    grad = ms.grad(lambda t: lstm(t)[0].sum())
    got = lstm(x)[0].asnumpy(), grad(x).asnumpy()
    saved = _rnn.MIN_LOOP_SIZE
    _rnn.MIN_LOOP_SIZE = 10 ** 9                    # the NumPy forms
    try:
        want = lstm(x)[0].asnumpy(), grad(x).asnumpy()
    finally:
        _rnn.MIN_LOOP_SIZE = saved
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_graph_mode_replays_gru_and_rnn_with_lengths():
    def run(mode, make):
        ms.set_context(mode=mode)
        try:
            ms.set_seed(4)
            rnn = make()
            fc = nn.Dense(6, 1)

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.rnn, self.fc = rnn, fc

                def construct(self, x, seq):
                    out, h = self.rnn(x, None, seq)
                    return ops.reduce_mean(ops.square(self.fc(out))) + ops.reduce_mean(h)

            net = Net()
            step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1))
            x = ms.Tensor(np.random.default_rng(0).normal(size=(5, 4, 2)).astype(np.float32))
            lens = ([5, 3, 4, 2], [1, 5, 0, 3], [5, 5, 5, 5])
            return [float(step(x, ms.Tensor(np.array(lens[i % 3], np.int32))).asnumpy()) for i in range(4)]
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)

    for make in (lambda: nn.GRU(2, 3, bidirectional=True), lambda: nn.RNN(2, 3, bidirectional=True,
                                                                       nonlinearity="relu")):
        eager = run(ms.PYNATIVE_MODE, make)
        np.testing.assert_allclose(run(ms.GRAPH_MODE, make), eager, rtol=1e-6)


def test_second_derivatives_raise_naming_the_backward_op():
    lstm = nn.LSTM(2, 2)
    x = ms.Tensor(np.ones((3, 1, 2), np.float32))
    inner = ms.grad(lambda t: lstm(t)[0].sum())
    with pytest.raises(RuntimeError, match="op 'lstm_sequence_grad' has no gradient"):
        ms.grad(lambda t: inner(t).sum())(x)


def test_op_errors_name_the_op():
    gi, w = ms.Tensor(np.zeros((3, 2, 8), np.float32)), ms.Tensor(np.zeros((8, 2), np.float32))
    with pytest.raises(ValueError, match=r"op 'gru_sequence': w_hh must have shape \(3 \* hidden, hidden\), got "
                                         r"\[8, 2\]"):
        _rnn.gru_sequence(gi, w)
    with pytest.raises(ValueError, match=r"op 'lstm_sequence': h0 must have shape \(batch, hidden\) = \[2, 2\], "
                                         r"got \[3, 2\]"):
        _rnn.lstm_sequence(gi, w, ms.Tensor(np.zeros((3, 2), np.float32)), ms.Tensor(np.zeros((3, 2), np.float32)))
    with pytest.raises(ValueError, match="op 'lstm_sequence': give both h0 and c0, or neither"):
        _rnn.lstm_sequence(gi, w, ms.Tensor(np.zeros((2, 2), np.float32)))
    with pytest.raises(TypeError, match="op 'lstm_sequence': w_hh must have gi's dtype"):
        _rnn.lstm_sequence(gi, ms.Tensor(np.zeros((8, 2), np.float64)))
    with pytest.raises(TypeError, match="op 'lstm_sequence': lens must be an integer tensor"):
        _rnn.lstm_sequence(gi, w, seq_length=ms.Tensor(np.zeros(2, np.float32)))
    with pytest.raises(ValueError, match=r"op 'rnn_sequence': activation must be one of \['tanh', 'relu'\]"):
        _rnn.rnn_sequence(ms.Tensor(np.zeros((3, 2, 2), np.float32)), ms.Tensor(np.zeros((2, 2), np.float32)),
                              activation="gelu")


@pytest.mark.parametrize("make, lens", [
    (lambda: nn.LSTM(3, 4, bidirectional=True), [5, 2]),
    (lambda: nn.GRU(3, 4, batch_first=True, bidirectional=True), [3, 5]),
    (lambda: nn.RNN(3, 4, nonlinearity="relu", bidirectional=True), [1, 4]),
])
def test_onnx_export_with_lengths_and_reverse(tmp_path, make, lens):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    ms.set_seed(9)
    cell = make()
    cell.set_train(False)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rnn = cell

        def construct(self, x, seq):
            out, h = self.rnn(x, None, seq)
            return out, h

    net = Net()
    x = ms.Tensor(np.random.default_rng(1).standard_normal((2, 5, 3) if cell.batch_first else (5, 2, 3))
                  .astype(np.float32))
    seq = ms.Tensor(np.array(lens, np.int32))
    path = ms.export(net, x, seq, file_name=str(tmp_path / "rnn"), file_format="ONNX")
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = session.run(None, {"input_0": x.asnumpy(), "input_1": seq.asnumpy()})
    want = net(x, seq)
    want = [want[0]] + (list(want[1]) if isinstance(want[1], tuple) else [want[1]])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.asnumpy(), rtol=1e-5, atol=1e-6)
