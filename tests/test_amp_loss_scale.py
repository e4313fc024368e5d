"""ms.amp loss scaling: managers, scalers, all_finite, build_train_network (values from MindSpore 2.10 CPU)."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import amp, nn, Tensor


def _f32(v):
    return Tensor(np.array(v, np.float32))


def test_dynamic_loss_scaler_sequence_and_validation():
    s = amp.DynamicLossScaler(1024, 2, 3)
    assert s.scale_value.name == "scale_value" and s.scale_value.dtype == ms.float32
    assert s.counter.dtype == ms.int32 and s.scale_window == 3 and s.scale_factor == 2
    seen = []
    for fin in [True, True, True, True, False, True, False, False, True, True, True]:
        assert s.adjust(Tensor(np.array(fin))) is True
        seen.append((float(s.scale_value.asnumpy()), int(s.counter.asnumpy())))
    assert seen == [(1024, 1), (1024, 2), (2048, 0), (2048, 1), (1024, 0), (1024, 1), (512, 0), (256, 0),
                    (256, 1), (256, 2), (512, 0)]
    s = amp.DynamicLossScaler(2, 2, 1)                # never below 1
    for _ in range(3):
        s.adjust(Tensor(np.array(False)))
    assert float(s.scale_value.asnumpy()) == 1.0
    s = amp.DynamicLossScaler(1e38, 4, 1)             # growth that overflows float32 is refused
    s.adjust(Tensor(np.array(True)))
    assert float(s.scale_value.asnumpy()) == np.float32(1e38)
    for args, exc in [((0.5, 2, 1), ValueError), ((2, 0, 1), ValueError), ((2, 2, 0), ValueError),
                      (("a", 2, 1), TypeError), ((2, 2.0, 1), TypeError)]:
        with pytest.raises(exc):
            amp.DynamicLossScaler(*args)
    with pytest.raises(TypeError):
        amp.LossScaler()


def test_scale_unscale_dtypes():
    s = amp.DynamicLossScaler(2 ** 24, 2, 1)
    assert np.isinf(s.scale(Tensor(np.float16(1))).asnumpy())          # the scale cast to float16 first
    u = s.unscale(Tensor(np.float16(1000)))
    assert u.dtype == ms.float16 and u.asnumpy() == np.float16(5.96e-05)
    assert s.unscale(_f32(3)).asnumpy() == np.float32(1.7881393e-07)
    st = amp.StaticLossScaler(8.0)
    assert st.adjust(Tensor(np.array(False))) is False and float(st.scale_value.asnumpy()) == 8.0
    a, b = st.scale((_f32(1.0), Tensor(np.float16(2))))
    assert (a.dtype, float(a.asnumpy()), b.dtype, float(b.asnumpy())) == (ms.float32, 8.0, ms.float16, 16.0)
    assert st.scale(Tensor(np.array([8, 16], np.int32))).asnumpy().tolist() == [64, 128]
    assert amp.StaticLossScaler(3).unscale(Tensor(np.array([1, 7], np.int32))).asnumpy().tolist() == [0, 0]
    assert st.unscale(Tensor(np.array([8, 16], np.float16))).asnumpy().tolist() == [1.0, 2.0]
    with pytest.raises(ValueError):
        amp.StaticLossScaler(0.5)


def test_all_finite():
    r = amp.all_finite([_f32([1.0, 2.0])])
    assert r.dtype == ms.bool_ and r.shape == () and bool(r.asnumpy())
    assert not bool(amp.all_finite((_f32([1.0, np.inf]),)).asnumpy())
    assert not bool(amp.all_finite([Tensor(np.array([np.nan], np.float16)), _f32(1.0)]).asnumpy())
    assert bool(amp.all_finite([Tensor(np.array([1, 2], np.int32))]).asnumpy())
    with pytest.raises(TypeError):
        amp.all_finite(_f32([1.0]))
    with pytest.raises(ValueError):
        amp.all_finite([])


def test_managers():
    assert ms.FixedLossScaleManager is amp.FixedLossScaleManager and ms.build_train_network is amp.build_train_network
    assert ms.LossScaleManager is amp.LossScaleManager and ms.DynamicLossScaleManager is amp.DynamicLossScaleManager
    f = amp.FixedLossScaleManager()
    assert (f.get_loss_scale(), f.get_drop_overflow_update()) == (128.0, True)
    assert amp.FixedLossScaleManager(64.0, False).get_update_cell() is None
    f.update_loss_scale(True)
    assert f.get_loss_scale() == 128.0
    with pytest.raises(ValueError):
        amp.FixedLossScaleManager(0.5)
    d = amp.DynamicLossScaleManager()
    assert (d.loss_scale, d.scale_window, d.scale_factor, d.decrease_ratio, d.cur_iter) == (2 ** 24, 2000, 2, 0.5, 1)
    assert d.get_drop_overflow_update() is True
    d = amp.DynamicLossScaleManager(8, 2, 2)
    seq = []
    for ov in [False, False, False, True, True, False, False]:
        d.update_loss_scale(ov)
        seq.append((d.get_loss_scale(), d.cur_iter, d.last_overflow_iter))
    assert seq == [(8, 2, 0), (16, 3, 0), (16, 4, 0), (8.0, 5, 4), (4.0, 6, 5), (4.0, 7, 5), (8.0, 8, 5)]
    with pytest.raises(ValueError):
        amp.DynamicLossScaleManager(0.5)
    with pytest.raises(ValueError):
        amp.DynamicLossScaleManager(8, 0, 2)


def test_white_and_black_lists_follow_mindspore_names():
    ms_white = ["Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose", "Dense",
                "LSTMCell", "RNNCell", "GRUCell", "Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose",
                "Conv2DBackpropInput", "MatMul", "BatchMatMul", "PReLU", "ReLU", "Ger"]
    ms_black = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm"]
    have = [(nn if i < 10 else ms.ops, n) for i, n in enumerate(ms_white)]
    want = [getattr(m, n) for m, n in have if isinstance(getattr(m, n, None), type)]
    assert amp.get_white_list() == want and len(want) >= 8
    assert amp.get_black_list() == [getattr(nn, n) for n in ms_black if hasattr(nn, n)]
    assert amp.get_white_list() is not amp.get_white_list()


def _dense():
    net = nn.Dense(2, 1)
    net.weight.set_data(_f32([[0.5, -0.25]]))
    net.bias.set_data(_f32([0.0]))
    return net


_X, _Y = _f32([[1.0, 2.0]]), _f32([[2.0]])
_W3 = [[0.6061718463897705, -0.03765625134110451]]     # float16 compute, 3 SGD steps (MindSpore)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_float16_overflow_skips_step_with_dynamic_scaler():
    net = _dense()
    net.to_float(ms.float16)
    loss_fn, opt = nn.MSELoss(), nn.SGD(net.trainable_params(), learning_rate=0.01)
    scaler = amp.DynamicLossScaler(2 ** 16, 2, 2)

    def forward(x, y):
        loss = loss_fn(net(x).astype(ms.float32), y)
        return scaler.scale(loss), loss

    gf = ms.value_and_grad(forward, None, opt.parameters, has_aux=True)
    seen = []
    for _ in range(7):
        (_, loss), grads = gf(_X, _Y)
        grads = scaler.unscale(grads)
        fin = amp.all_finite(grads)
        scaler.adjust(fin)
        if fin:
            opt(grads)
        seen.append((bool(fin.asnumpy()), float(scaler.scale_value.asnumpy()), int(scaler.counter.asnumpy()),
                     net.weight.asnumpy().tolist()))
    w0 = [[0.5, -0.25]]
    assert seen[:4] == [(False, 32768.0, 0, w0), (False, 16384.0, 0, w0), (False, 8192.0, 0, w0),
                        (False, 4096.0, 0, w0)]
    assert [s[:3] for s in seen[4:]] == [(True, 4096.0, 1), (True, 8192.0, 0), (True, 8192.0, 1)]
    assert seen[4][3] == [[0.5400000214576721, -0.17000000178813934]]
    assert seen[6][3] == _W3


def test_build_train_network_levels_and_errors():
    for level, kw, w in [("O0", {}, [[0.6061760187149048, -0.03764800354838371]]), ("O3", {}, _W3),
                         ("O2", {"loss_scale_manager": amp.FixedLossScaleManager(64.0, False)}, _W3)]:
        net = _dense()
        ls = kw["loss_scale_manager"].get_loss_scale() if kw else 1.0
        step = amp.build_train_network(net, nn.SGD(net.trainable_params(), learning_rate=0.01, loss_scale=ls),
                                       nn.MSELoss(), level=level, **kw)
        assert isinstance(step, nn.TrainOneStepCell)
        losses = [float(step(_X, _Y).asnumpy()) for _ in range(3)]
        assert losses[0] == 4.0 and net.weight.asnumpy().tolist() == w
    net = _dense()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
    with pytest.raises(ValueError, match="O5"):
        amp.build_train_network(net, opt, nn.MSELoss(), level="O5")
    with pytest.raises(ValueError, match="Unsupported arg 'foo'"):
        amp.build_train_network(net, opt, nn.MSELoss(), foo=1)
    with pytest.raises(TypeError):
        amp.build_train_network(net, None, nn.MSELoss())
    with pytest.raises(TypeError):
        amp.build_train_network(net, opt, nn.MSELoss(), level=2)


@pytest.mark.skipif(not hasattr(nn, "TrainOneStepWithLossScaleCell"), reason="loss-scale cells not present")
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_build_train_network_dynamic_manager_skips_overflow():
    # MindSpore CPU refuses an update cell (ValueError) and its TrainOneStepWithLossScaleCell needs
    # NPUGetFloatStatusV2; the scale sequence is that of its DynamicLossScaleUpdateCell run on CPU.
    assert isinstance(amp.FixedLossScaleManager().get_update_cell(), nn.FixedLossScaleUpdateCell)
    assert isinstance(amp.DynamicLossScaleManager().get_update_cell(), nn.DynamicLossScaleUpdateCell)
    net = _dense()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
    step = amp.build_train_network(net, opt, nn.MSELoss(), level="O2",
                                   loss_scale_manager=amp.DynamicLossScaleManager(2 ** 16, 2, 2))
    assert isinstance(step, nn.TrainOneStepWithLossScaleCell)
    flags, scales = [], []
    for i in range(7):
        _, overflow, _ = step(_X, _Y)
        flags.append(bool(np.asarray(overflow.asnumpy() if hasattr(overflow, "asnumpy") else overflow)))
        scales.append(float(step.scale_sense.asnumpy()))
        if i < 4:
            assert net.weight.asnumpy().tolist() == [[0.5, -0.25]]
    assert flags == [True] * 4 + [False] * 3
    assert scales == [32768.0, 16384.0, 8192.0, 4096.0, 4096.0, 8192.0, 8192.0]
    assert net.weight.asnumpy().tolist() == _W3


def _seq():
    net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    rng = np.random.default_rng(0)
    for p in net.trainable_params():
        p.set_data(Tensor((rng.standard_normal(p.shape) / 3).astype(np.float32)))
    return net


def test_custom_mixed_precision():
    x = _f32([[0.1234567, -1.7654321, 2.3456789]])
    # MindSpore 2.10 CPU's outputs (float32)
    for kw, want in [({"white_list": [nn.Dense]}, [[0.28125, 0.28466796875]]),
                     ({"black_list": [nn.Dense]}, [[0.281005859375, 0.284423828125]]),
                     ({"black_list": []}, [[0.28125, 0.28466796875]]),
                     ({"white_list": [nn.ReLU]}, [[0.2811112105846405, 0.2844831347465515]])]:
        out = amp.custom_mixed_precision(_seq(), **kw)(x)
        assert out.dtype == ms.float32
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-3)      # within one float16 step
    out = amp.custom_mixed_precision(_seq(), black_list=[nn.Dense])(x).asnumpy()
    assert np.array_equal(out.astype(np.float16).astype(np.float32), out)   # handed on in float16
    # O1 reaches the layers of a SequentialCell
    assert amp.auto_mixed_precision(_seq(), "O1")(x).dtype == ms.float32
    for kw, exc in [({}, ValueError), ({"white_list": [nn.Dense], "black_list": [nn.ReLU]}, ValueError),
                    ({"white_list": [nn.Dense], "dtype": ms.float32}, ValueError),
                    ({"white_list": [1]}, TypeError), ({"white_list": nn.Dense}, TypeError)]:
        with pytest.raises(exc):
            amp.custom_mixed_precision(_seq(), **kw)
    with pytest.raises(TypeError):
        amp.custom_mixed_precision(1, white_list=[nn.Dense])


def test_model_with_amp_level_and_loss_scale_manager():
    import mscustom.dataset as ds
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], np.float32)
    y = np.array([[1.0], [2.0], [3.0], [4.0]], np.float32)

    def run(opt_ls=1.0, **kw):
        net = nn.Dense(2, 1, weight_init="zeros", bias_init="zeros")
        model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), learning_rate=0.01, loss_scale=opt_ls),
                         metrics={"loss"}, **kw)
        model.train(2, ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(2))
        loss = model.eval(ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(2))["loss"]
        return type(model.train_network).__name__, net.weight.asnumpy().tolist(), loss

    # MindSpore 2.10 CPU
    f16 = [[0.16884765028953552, 0.20808590948581696]]
    assert run(amp_level="O3")[:2] == ("TrainOneStepCell", f16)
    name, w, loss = run(amp_level="O2", loss_scale_manager=amp.FixedLossScaleManager(64.0, False), opt_ls=64.0)
    assert (name, w) == ("TrainOneStepCell", f16) and abs(loss - 0.6299347877502441) < 1e-6
    name, w, loss = run(loss_scale_manager=amp.FixedLossScaleManager(64.0, False), opt_ls=64.0)
    assert w == [[0.16911400854587555, 0.20824147760868073]] and abs(loss - 0.6275682002305984) < 1e-6
    if hasattr(nn, "TrainOneStepWithLossScaleCell"):
        # MindSpore CPU refuses an update cell; the float32 network never overflows, so the values are the above
        name, w, _ = run(loss_scale_manager=amp.DynamicLossScaleManager(2 ** 10, 2, 2))
        assert (name, w) == ("TrainOneStepWithLossScaleCell", [[0.16911400854587555, 0.20824147760868073]])
