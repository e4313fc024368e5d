"""Mixed precision (Cell.to_float, ms.amp.auto_mixed_precision O0-O3), Cell.set_grad, ms.bfloat16,
ms.mutable and ops.Print, against real MindSpore 2.10 (CPU) where it computes the same thing.

Parameters are set by name (``set_params``), so both frameworks hold the same values whatever their
parameter order.
"""

import ml_dtypes
import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops

# printed by MindSpore 2.10: Dense(3, 2).to_float(float16) output and float32 gradients; the network below
# at O0 / O2 / O3 in training mode: (output, gradients of its trainable parameters, output dtype)
MS = {
    'dense_fp16': [1.5859375, 2.9023438, -0.22460938, 1.328125, -1.4199219, -1.1728516, -0.67431641, -1.8222656, 1.1855469, 0.10180664],
    'dense_fp16_grads': ([[-1.3564453, -1.9121094, -2.2089844, -1.3564453, -1.9121094, -2.2089844], [5.0, 5.0]], ['Float32', 'Float32']),
    'O0' : ([-2.1015882, 1.0753505, -0.88660955, 0.099978626, -0.65341413, -0.063581079, -0.67073911, -0.042490333, -0.88232732, -0.012313694], [[-0.061960645, -0.024604456, 0.016081829, 0.0033823934, 0.012872491, 0.020620357, 0.004578826, -0.00050971023, -0.0055292617, 0.038365912, 0.014909619, -0.010564627], [-6.519258e-09, -1.3969839e-09, -9.3132257e-10, 0.0], [-0.28201199, -0.071326487, 0.1826396, 0.23508221], [-0.39403373, -0.061923265, 0.16796607, 0.15942916], [3.3349791, 2.2661481, 0.94525284, 0.40833232, 3.3349791, 2.2661481, 0.94525284, 0.40833232], [5.0, 5.0]], 'Float32'),
    'O2' : ([-2.1015625, 1.0751953, -0.88671875, 0.10009766, -0.65332031, -0.063598633, -0.67089844, -0.042480469, -0.88232422, -0.012451172], [[-0.061981201, -0.024612427, 0.01612854, 0.0033931732, 0.012886047, 0.020645142, 0.0045852661, -0.00050210953, -0.0055122375, 0.038391113, 0.014907837, -0.010543823], [-1.5258789e-05, -3.8146973e-06, 3.8146973e-06, -5.7220459e-06], [-0.28203458, -0.071429692, 0.18265267, 0.23507629], [-0.39404297, -0.062011719, 0.16796875, 0.15942383], [3.3339844, 2.265625, 0.9453125, 0.40844727, 3.3339844, 2.265625, 0.9453125, 0.40844727], [5.0, 5.0]], 'Float32'),
    'O3' : ([-2.1015625, 1.0751953, -0.88671875, 0.10009766, -0.65332031, -0.063598633, -0.67089844, -0.042480469, -0.88232422, -0.012451172], [[-0.061981201, -0.024612427, 0.01612854, 0.0033931732, 0.012886047, 0.020645142, 0.0045852661, -0.00050210953, -0.0055122375, 0.038391113, 0.014907837, -0.010543823], [-1.5258789e-05, -3.8146973e-06, 3.8146973e-06, -5.7220459e-06], [-0.28203458, -0.071429692, 0.18265267, 0.23507629], [-0.39404297, -0.062011719, 0.16796875, 0.15942383], [3.3339844, 2.265625, 0.9453125, 0.40844727, 3.3339844, 2.265625, 0.9453125, 0.40844727], [5.0, 5.0]], 'Float32'),
}

NAMES = ["fc1.weight", "fc1.bias", "bn.gamma", "bn.beta", "fc2.weight", "fc2.bias", "weight", "bias"]
X = ms.Tensor((np.cos(np.arange(15) * 0.37) * 3.3).astype(np.float32).reshape(5, 3))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(3, 4)
        self.bn = nn.BatchNorm1d(4)
        self.act = nn.ReLU()
        self.fc2 = nn.Dense(4, 2)

    def construct(self, x):
        return self.fc2(self.act(self.bn(self.fc1(x))))


def set_params(cell):
    for p in cell.get_parameters():
        if "moving" in p.name:
            continue
        j = NAMES.index(p.name)
        value = 0.5 * np.sin(0.7 * np.arange(p.size) + j) + (1.0 if "gamma" in p.name else 0.0)
        p.set_data(ms.Tensor(value.astype(np.float32).reshape(p.shape)))
    return cell


def close(got, want, rtol, atol):
    np.testing.assert_allclose(np.asarray(got.asnumpy(), np.float64).ravel(), want, rtol=rtol, atol=atol)


def test_set_grad_flag():
    d = nn.Dense(3, 2)
    assert d.set_grad() is d and d.requires_grad is True
    assert d.set_grad(False).requires_grad is False
    with pytest.raises(TypeError, match="Dense.set_grad: requires_grad must be a bool, got int"):
        d.set_grad(1)


def test_to_float_computes_in_float16_with_float32_master_weights():
    d = set_params(nn.Dense(3, 2))
    assert d.to_float(ms.float16) is d
    y = d(X)
    assert y.dtype == ms.float16 and d.weight.dtype == ms.float32
    close(y, MS["dense_fp16"], 2e-3, 2e-3)                    # float16 rounding
    grads = ms.grad(lambda x: ops.reduce_sum(ops.cast(d(x), ms.float32)), None, d.trainable_params())(X)
    want, dtypes = MS["dense_fp16_grads"]
    assert [g.dtype for g in grads] == [ms.float32, ms.float32] and dtypes == ["Float32", "Float32"]
    for g, w in zip(grads, want):
        close(g, w, 2e-3, 2e-3)
    for bad in (ms.int32, "float16"):
        with pytest.raises(ValueError, match="For 'to_float', the argument 'dst_type' must be mstype.float32, "
                                             "mstype.float16 or mstype.bfloat16"):
            d.to_float(bad)
    d.to_float(ms.float32)
    assert d(X).dtype == ms.float32


@pytest.mark.parametrize("level", ["O0", "O2", "O3"])
def test_auto_mixed_precision_levels(level):
    net = set_params(Net())
    net.set_train(True)
    names = [p.name for p in net.get_parameters()]
    net = ms.amp.auto_mixed_precision(net, level)
    assert [p.name for p in net.get_parameters()] == names          # checkpoints keep their names
    assert all(p.dtype == ms.float32 for p in net.get_parameters())
    y = net(X)
    want_y, want_g, dtype = MS[level]
    assert y.dtype == ms.float32 and dtype == "Float32"
    grads = ms.grad(lambda x: ops.reduce_sum(net(x)), None, net.trainable_params())(X)
    tol = (2e-5, 1e-6) if level == "O0" else (1e-2, 3e-3)
    close(y, want_y, *tol)
    for g, w in zip(grads, want_g):
        assert g.dtype == ms.float32
        close(g, w, *tol)


def test_o1_casts_white_list_cells_only():
    net = set_params(Net())
    net.set_train(True)
    net = ms.amp.auto_mixed_precision(net, "O1")
    assert type(net.fc1).__name__ == "_OutputTo" and type(net.bn) is nn.BatchNorm1d
    assert net.fc1(X).dtype == ms.float32 and net.bn._mixed_dtype is None
    dense = ms.amp.auto_mixed_precision(set_params(nn.Dense(3, 2)), "O1")
    y = dense(X)
    assert y.dtype == ms.float32
    close(y, MS["dense_fp16"], 2e-3, 2e-3)                   # computed in float16, handed on as float32


def test_amp_errors_and_lists():
    with pytest.raises(ValueError, match="The amp level O4 is not supported"):
        ms.amp.auto_mixed_precision(Net(), "O4")
    with pytest.raises(ValueError, match=r"The dtype should be one of \(mstype.float16, mstype.bfloat16\)"):
        ms.amp.auto_mixed_precision(Net(), "O1", ms.float32)
    with pytest.raises(TypeError, match="For amp_level 'O1', the network type should be Cell."):
        ms.amp.auto_mixed_precision(lambda x: x, "O1")
    assert nn.Dense in ms.amp.get_white_list() and nn.BatchNorm2d in ms.amp.get_black_list()


def test_o2_training_graph_mode_equals_pynative():
    def run(mode):
        ms.set_context(mode=mode)
        try:
            net = set_params(Net())
            net = ms.amp.auto_mixed_precision(net, "O2")
            step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
            step.set_train()
            y = ms.Tensor(np.ones((5, 2), np.float32))
            losses = [float(step(X, y).asnumpy()) for _ in range(4)]
            return losses, net.trainable_params()[0].asnumpy().copy()
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)

    eager, w_eager = run(ms.PYNATIVE_MODE)
    graph, w_graph = run(ms.GRAPH_MODE)
    assert eager[-1] < eager[0] and w_eager.dtype == np.float32
    np.testing.assert_allclose(graph, eager, rtol=1e-6)
    np.testing.assert_allclose(w_graph, w_eager, rtol=1e-6)


def test_bfloat16():
    a = ms.Tensor(np.array([1.0, 2.5, 3.3], np.float32), ms.bfloat16)
    assert a.dtype == ms.bfloat16 and (a + a).dtype == ms.bfloat16
    assert a.asnumpy().dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(a.asnumpy().astype(np.float32), [1.0, 2.5, 3.296875])     # MindSpore's values
    np.testing.assert_array_equal((a * a).astype(ms.float32).asnumpy(), [1.0, 6.25, 10.875])
    assert ms.Tensor(np.ones(2), ms.bfloat16).astype(ms.float32).dtype == ms.float32
    d = nn.Dense(3, 2).to_float(ms.bfloat16)
    assert d(X).dtype == ms.bfloat16


def test_mutable():
    m = ms.mutable(2)
    assert m == 2 and isinstance(m, int) and m + 1 == 3
    assert ms.mutable(1.5) + 1 == 2.5
    t = ms.Tensor([1.0])
    assert ms.mutable(t) is t
    pair = (1, 2)
    assert ms.mutable(pair, dynamic_len=True) is pair
    assert ms.mutable({"a": 1}) == {"a": 1}
    with pytest.raises(TypeError, match="For 'mutable', the 'input_data' should be one of \\(bool, int, float, "
                                        "Tensor, tuple, list, dict\\) or their nested structures with no "
                                        "self-reference, but got str: abc."):
        ms.mutable("abc")
    with pytest.raises(TypeError, match="when 'dynamic_len' is True, the 'input_data' must be a tuple or a list"):
        ms.mutable(2, dynamic_len=True)


def test_print_eager_and_each_graph_replay(capsys):
    assert ops.Print()("hello", ms.Tensor([1.0, 2.0]), 3) is None
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "hello" and out[1].startswith("Tensor(shape=[2]") and out[2] == "3"

    @ms.jit
    def f(x):
        ops.Print()("x is", x)
        return ops.mul(x, 2.0)

    f(ms.Tensor([1.0]))
    f(ms.Tensor([5.0]))                         # a replay prints the new value
    out = capsys.readouterr().out
    assert out.count("x is") == 2 and "[1.]" in out and "[5.]" in out
    with pytest.raises(TypeError, match="For 'Print', input 0 must be a str, a number, a Tensor"):
        ops.Print()(object())
