"""nn: Cell registration and naming, layers, initializers, Dropout and losses against NumPy.

Gradients are checked with ``mscustom.testing.check_grad`` for inputs and with
central differences on the Parameters' data for weights.
"""

from collections import OrderedDict

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops
from mscustom.testing import check_grad


def T(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def param_grads_match(fn, params, rtol=1e-5, atol=1e-7, eps=1e-6):
    """Assert ``ms.grad`` over ``params`` of the scalar ``fn()`` matches central differences.

    The parameters must hold float64 data so the numeric side is precise.
    """
    analytic = ms.grad(fn, grad_position=None, weights=params)()
    for p, g in zip(params, analytic):
        data = p._data
        assert data.dtype == np.float64
        numeric = np.zeros_like(data)
        for idx in np.ndindex(data.shape):
            orig = data[idx]
            data[idx] = orig + eps
            up = float(fn().asnumpy())
            data[idx] = orig - eps
            down = float(fn().asnumpy())
            data[idx] = orig
            numeric[idx] = (up - down) / (2 * eps)
        np.testing.assert_allclose(g.asnumpy(), numeric, rtol=rtol, atol=atol, err_msg=p.name)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(2, 4)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(4, 3)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = ms.Parameter(T([2.0]))
        self.body = Net()
        self.frozen = ms.Parameter(T([1.0]), requires_grad=False)

    def construct(self, x):
        return self.body(x) * self.scale


# ================================================================== Cell
def test_parameters_are_registered_in_order_with_prefixed_names():
    net = Net()
    names = [p.name for p in net.trainable_params()]
    assert names == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert [n for n, _ in net.parameters_and_names()] == names
    assert list(net.get_parameters())[0] is net.fc1.weight
    assert list(net.parameters_dict()) == names


def test_nested_cells_prefix_names_and_trainable_params_skip_frozen():
    outer = Outer()
    # a Cell's own Parameters come first, then its children's (as in MindSpore and PyTorch)
    assert [p.name for p in outer.get_parameters()] == [
        "scale", "frozen", "body.fc1.weight", "body.fc1.bias", "body.fc2.weight", "body.fc2.bias"]
    assert [p.name for p in outer.trainable_params()][-1] == "body.fc2.bias"
    assert [p.name for p in outer.untrainable_params()] == ["frozen"]
    assert [p.name for p in outer.get_parameters(expand=False)] == ["scale", "frozen"]
    assert [n for n, _ in outer.cells_and_names()] == ["", "body", "body.fc1", "body.relu", "body.fc2"]
    assert list(outer.name_cells()) == ["body"]
    assert list(outer.body.cells()) == [outer.body.fc1, outer.body.relu, outer.body.fc2]


def test_wrappers_do_not_rename_parameters():
    net = Net()
    wrapped = nn.WithLossCell(net, nn.MSELoss())
    assert [p.name for p in wrapped.trainable_params()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert [n for n, _ in wrapped.parameters_and_names()][0] == "_backbone.fc1.weight"
    assert wrapped.backbone_network is net


def test_shared_parameter_is_listed_once():
    class Tied(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = nn.Dense(3, 3)
            self.b = nn.Dense(3, 3)
            self.b.weight = self.a.weight

        def construct(self, x):
            return self.b(self.a(x))

    params = Tied().trainable_params()
    assert len(params) == 3
    assert len({id(p) for p in params}) == 3


def test_reassigning_or_deleting_an_attribute_unregisters_it():
    net = Net()
    net.fc2 = None
    assert [p.name for p in net.get_parameters()] == ["fc1.weight", "fc1.bias"]
    del net.fc1
    assert list(net.get_parameters()) == []
    assert list(net.name_cells()) == ["relu"]


def test_assigning_before_init_is_an_error():
    class Bad(nn.Cell):
        def __init__(self):
            self.w = ms.Parameter(T([1.0]))
            super().__init__()

    with pytest.raises(AttributeError, match=r"Bad: cannot assign Parameter 'w' before Cell.__init__\(\)"):
        Bad()


def test_insert_param_to_cell():
    cell = nn.Cell()
    p = ms.Parameter(T([1.0, 2.0]))
    cell.insert_param_to_cell("gain", p)
    assert cell.gain is p and p.name == "gain"
    assert list(cell.get_parameters()) == [p]
    with pytest.raises(ValueError, match=r"insert_param_to_cell: param_name 'a.b' must not contain '.'"):
        cell.insert_param_to_cell("a.b", ms.Parameter(T([1.0])))
    with pytest.raises(TypeError, match="param must be a Parameter, got Tensor"):
        cell.insert_param_to_cell("c", T([1.0]))
    cell.note = "text"
    with pytest.raises(ValueError, match="attribute 'note' already exists and is not a Parameter"):
        cell.insert_param_to_cell("note", ms.Parameter(T([1.0])))
    cell.insert_child_to_cell("act", nn.ReLU())
    assert list(cell.name_cells()) == ["act"]


def test_explicit_parameter_name_is_kept_and_prefixed():
    class Holder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(T([1.0]), name="kernel")

    class Top(nn.Cell):
        def __init__(self):
            super().__init__()
            self.h = Holder()

    assert Holder().w.name == "kernel"
    assert Top().h.w.name == "h.w"       # MindSpore renames by structure when prefixing


def test_set_train_is_recursive_and_defaults_to_false():
    outer = Outer()
    assert not outer.training and not outer.body.fc1.training
    assert outer.set_train() is outer
    assert all(c.training for _, c in outer.cells_and_names())
    outer.set_train(False)
    assert not any(c.training for _, c in outer.cells_and_names())


def test_repr_is_nested():
    net = nn.SequentialCell([nn.Dense(2, 3, activation="relu"), nn.Softmax(axis=1)])
    assert repr(net) == (
        "SequentialCell<\n"
        "  (0): Dense<input_channels=2, output_channels=3, has_bias=True\n"
        "    (activation): ReLU<>\n"
        "    >\n"
        "  (1): Softmax<axis=1>\n"
        "  >")
    assert repr(nn.ReLU()) == "ReLU<>"


def test_construct_missing_and_call_passes_kwargs():
    with pytest.raises(NotImplementedError, match="Cell 'Cell' does not define construct"):
        nn.Cell()(T([1.0]))

    class Affine(nn.Cell):
        def construct(self, x, scale=1.0, shift=0.0):
            return x * scale + shift

    np.testing.assert_allclose(Affine()(T([1.0, 2.0]), shift=1.0, scale=3.0).asnumpy(), [4.0, 7.0])


def test_sequential_cell_list_dict_and_indexing(rng):
    layers = [nn.Dense(2, 5), nn.Tanh(), nn.Dense(5, 1)]
    seq = nn.SequentialCell(layers)
    x = T(rng.normal(size=(4, 2)))
    manual = layers[2](layers[1](layers[0](x)))
    np.testing.assert_allclose(seq(x).asnumpy(), manual.asnumpy(), rtol=1e-6)
    assert len(seq) == 3 and seq[0] is layers[0] and seq[-1] is layers[2]
    assert [p.name for p in seq.trainable_params()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert isinstance(seq[1:], nn.SequentialCell) and len(seq[1:]) == 2
    seq.append(nn.Sigmoid())
    assert np.all((seq(x).asnumpy() > 0) & (seq(x).asnumpy() < 1))
    named = nn.SequentialCell(OrderedDict([("fc", nn.Dense(2, 2)), ("act", nn.ReLU())]))
    assert [p.name for p in named.trainable_params()] == ["fc.weight", "fc.bias"]
    assert list(nn.SequentialCell(nn.ReLU(), nn.Tanh()).name_cells()) == ["0", "1"]
    with pytest.raises(TypeError, match="SequentialCell: every element must be a Cell, got int for '1'"):
        nn.SequentialCell([nn.ReLU(), 3])
    with pytest.raises(IndexError, match="index 5 out of range for 4 cell"):
        seq[5]


def test_cell_list_registers_and_is_not_callable():
    cl = nn.CellList([nn.Dense(2, 2), nn.Dense(2, 2)])
    cl.append(nn.Dense(2, 1))
    assert len(cl) == 3 and [p.name for p in cl.trainable_params()][-1] == "2.bias"
    with pytest.raises(TypeError, match="CellList is a container and cannot be called"):
        cl(T([[1.0, 2.0]]))


# ================================================================== Dense
def test_dense_forward_matches_numpy(rng):
    fc = nn.Dense(3, 2, weight_init="uniform", bias_init="normal")
    assert fc.weight.shape == (2, 3) and fc.bias.shape == (2,)
    x = rng.normal(size=(5, 3)).astype(np.float32)
    want = x @ fc.weight.asnumpy().T + fc.bias.asnumpy()
    np.testing.assert_allclose(fc(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    x3 = rng.normal(size=(2, 4, 3)).astype(np.float32)        # leading dims are kept
    np.testing.assert_allclose(fc(ms.Tensor(x3)).asnumpy(),
                               x3 @ fc.weight.asnumpy().T + fc.bias.asnumpy(), rtol=1e-5, atol=1e-6)


def test_dense_without_bias_and_with_activation(rng):
    w = rng.normal(size=(4, 3)).astype(np.float32)
    fc = nn.Dense(3, 4, weight_init=ms.Tensor(w), has_bias=False, activation="relu")
    assert fc.bias is None and len(fc.trainable_params()) == 1
    x = rng.normal(size=(6, 3)).astype(np.float32)
    np.testing.assert_allclose(fc(ms.Tensor(x)).asnumpy(), np.maximum(x @ w.T, 0), rtol=1e-5, atol=1e-6)
    tanh_fc = nn.Dense(3, 4, weight_init=ms.Tensor(w), bias_init=0.5, activation=nn.Tanh())
    np.testing.assert_allclose(tanh_fc(ms.Tensor(x)).asnumpy(), np.tanh(x @ w.T + 0.5), rtol=1e-5, atol=1e-6)


def test_dense_gradients_input_and_weights(rng):
    fc = nn.Dense(3, 2, weight_init="xavier_uniform", bias_init="uniform", dtype=ms.float64,
                  activation="tanh")
    x = ms.Tensor(rng.normal(size=(4, 3)))
    check_grad(fc, x)
    c = rng.normal(size=(4, 2))
    param_grads_match(lambda: (fc(x) * ms.Tensor(c)).sum(), fc.trainable_params())


def test_dense_gradient_closed_form(rng):
    fc = nn.Dense(3, 2, weight_init="normal")
    x = rng.normal(size=(5, 3)).astype(np.float32)
    gw, gb = ms.grad(lambda t: fc(t).sum(), None, weights=fc.trainable_params())(ms.Tensor(x))
    np.testing.assert_allclose(gw.asnumpy(), np.tile(x.sum(0), (2, 1)), rtol=1e-5)
    np.testing.assert_allclose(gb.asnumpy(), [5.0, 5.0])


def test_dense_input_errors():
    net = Net()
    with pytest.raises(ValueError, match=r"Dense layer 'fc1' \(in_channels=2, out_channels=4\): the input's "
                                         r"last dimension must be 2, got input shape \[8, 3\]"):
        net(T(np.ones((8, 3))))
    with pytest.raises(ValueError, match=r"Dense layer \(in_channels=4.*got input shape \[\]"):
        nn.Dense(4, 1)(T(1.0))
    with pytest.raises(ValueError, match="Dense: in_channels must be a positive int, got 0"):
        nn.Dense(0, 3)
    with pytest.raises(ValueError, match="get_activation: unknown activation 'swish'"):
        nn.Dense(2, 2, activation="swish")
    with pytest.raises(ValueError, match=r"Dense\(in_channels=2, out_channels=3\): bad weight_init: initializer: "
                                         r"the given tensor has shape \[2, 3\], expected \[3, 2\]"):
        nn.Dense(2, 3, weight_init=ms.Tensor(np.zeros((2, 3), np.float32)))


# ================================================================== initializers and seeds
def test_initializers_shapes_values_and_bounds():
    ms.set_seed(3)
    assert ms.get_seed() == 3
    assert nn.initializer("zeros", (2, 3)).asnumpy().tolist() == [[0.0] * 3] * 2
    assert nn.initializer("ones", 4, ms.float64).asnumpy().dtype == np.float64
    np.testing.assert_array_equal(nn.initializer(0.25, (3,)).asnumpy(), [0.25] * 3)
    n = nn.initializer("normal", (200, 200)).asnumpy()
    assert n.dtype == np.float32 and abs(n.std() - 0.01) < 5e-4 and abs(n.mean()) < 5e-4
    u = nn.initializer("uniform", (100, 100)).asnumpy()
    assert u.min() >= -0.07 and u.max() <= 0.07 and u.max() > 0.069
    he = nn.initializer("he_uniform", (64, 12)).asnumpy()          # bound sqrt(2) * sqrt(3 / 12)
    assert np.abs(he).max() <= np.sqrt(0.5) and np.abs(he).max() > 0.95 * np.sqrt(0.5)
    xa = nn.initializer("xavier_uniform", (30, 20)).asnumpy()      # bound sqrt(6 / 50)
    assert np.abs(xa).max() <= np.sqrt(6 / 50) and np.abs(xa).max() > 0.95 * np.sqrt(6 / 50)
    hn = nn.initializer(nn.HeNormal(mode="fan_out", nonlinearity="relu"), (400, 100)).asnumpy()
    assert abs(hn.std() - np.sqrt(2 / 400)) < 0.003
    t = nn.initializer(ms.Tensor(np.arange(6.0).reshape(2, 3)), (2, 3), ms.float32)
    assert t.dtype == ms.float32 and t.asnumpy()[1, 2] == 5.0


def test_initializer_errors():
    with pytest.raises(ValueError, match=r"initializer: the given tensor has shape \[2\], expected \[3\]"):
        nn.initializer(ms.Tensor([1.0, 2.0]), (3,))
    with pytest.raises(ValueError, match="initializer: unknown name 'gaussian'"):
        nn.initializer("gaussian", (3,))
    with pytest.raises(TypeError, match="initializer: init must be a name.*got list"):
        nn.initializer([1, 2], (2,))
    with pytest.raises(ValueError, match=r"HeUniform: needs a weight of rank >= 2.*got shape \[5\]"):
        nn.initializer("he_uniform", (5,))
    with pytest.raises(ValueError, match="set_seed: seed must be a non-negative int, got -1"):
        ms.set_seed(-1)
    with pytest.raises(TypeError, match="set_seed: seed must be an int, got float 1.5"):
        ms.set_seed(1.5)                    # MindSpore: TypeError for the type, ValueError for the value
    with pytest.raises(TypeError, match="got bool True"):
        ms.set_seed(True)


def test_set_seed_makes_models_reproducible():
    ms.set_seed(11)
    a = [p.asnumpy().copy() for p in Net().trainable_params()]
    ms.set_seed(11)
    b = [p.asnumpy().copy() for p in Net().trainable_params()]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    ms.set_seed(12)
    assert not np.array_equal(Net().fc1.weight.asnumpy(), a[0])


# ================================================================== activations, Flatten, Dropout
def test_activation_cells_match_numpy(rng):
    a = rng.normal(size=(3, 4)).astype(np.float32)
    x = ms.Tensor(a)
    np.testing.assert_allclose(nn.ReLU()(x).asnumpy(), np.maximum(a, 0))
    np.testing.assert_allclose(nn.Sigmoid()(x).asnumpy(), 1 / (1 + np.exp(-a)), rtol=1e-6)
    np.testing.assert_allclose(nn.Tanh()(x).asnumpy(), np.tanh(a), rtol=1e-6)
    e = np.exp(a - a.max(0))
    np.testing.assert_allclose(nn.Softmax(axis=0)(x).asnumpy(), e / e.sum(0), rtol=1e-6)
    ls = nn.LogSoftmax()(x).asnumpy()
    np.testing.assert_allclose(np.exp(ls).sum(-1), np.ones(3), rtol=1e-6)
    assert nn.Flatten()(ms.Tensor(np.zeros((2, 3, 4), np.float32))).shape == (2, 12)
    with pytest.raises(ValueError, match="Flatten: the input must have at least one dimension"):
        nn.Flatten()(T(1.0))


def test_dropout_is_identity_in_inference_and_inverted_in_training(rng):
    x = ms.Tensor(rng.uniform(1, 2, size=(200, 100)).astype(np.float32))
    drop = nn.Dropout(p=0.25)
    assert drop(x) is x                                  # a new Cell is in inference mode
    drop.set_train()
    ms.set_seed(5)
    y = drop(x).asnumpy()
    kept = y != 0
    assert abs(kept.mean() - 0.75) < 0.01
    np.testing.assert_allclose(y[kept], x.asnumpy()[kept] / 0.75, rtol=1e-6)
    ms.set_seed(5)
    np.testing.assert_array_equal(drop(x).asnumpy(), y)  # the mask follows set_seed
    ms.set_seed(5)
    g = ms.grad(lambda t: drop(t).sum())(x).asnumpy()
    np.testing.assert_allclose(g, kept / np.float32(0.75), rtol=1e-6)
    assert nn.Dropout(keep_prob=0.8).p == pytest.approx(0.2)
    assert nn.Dropout(p=0.0).set_train()(x) is x


def test_dropout_errors():
    with pytest.raises(ValueError, match=r"Dropout: p \(the probability of dropping\) must be in \[0, 1\), got 1"):
        nn.Dropout(p=1)
    with pytest.raises(ValueError, match=r"Dropout: keep_prob must be in \(0, 1\], got 0"):
        nn.Dropout(keep_prob=0)
    with pytest.raises(TypeError, match="Dropout: the input must be a float tensor, got int64"):
        nn.Dropout().set_train()(ms.Tensor([1, 2, 3]))


# ================================================================== losses
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_and_l1_match_numpy(reduction, rng):
    a = rng.normal(size=(4, 3))
    b = rng.normal(size=(4, 3))
    reduce = {"mean": np.mean, "sum": np.sum, "none": lambda v: v}[reduction]
    for loss_cls, ref in ((nn.MSELoss, (a - b) ** 2), (nn.L1Loss, np.abs(a - b))):
        out = loss_cls(reduction=reduction)(T(a), T(b))
        np.testing.assert_allclose(out.asnumpy(), reduce(ref), rtol=1e-5, atol=1e-6)
        check_grad(loss_cls(reduction=reduction), ms.Tensor(a), ms.Tensor(b))


def test_get_loss_applies_weights_before_the_reduction():
    loss = nn.MSELoss(reduction="sum")
    x = T([1.0, 2.0, 3.0])
    np.testing.assert_allclose(loss.get_loss(x, T([1.0, 0.0, 2.0])).asnumpy(), 7.0)
    np.testing.assert_allclose(nn.L1Loss().get_loss(x).asnumpy(), 2.0)


def test_loss_gradients_closed_form(rng):
    a, b = rng.normal(size=(5,)), rng.normal(size=(5,))
    g = ms.grad(nn.MSELoss())(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    np.testing.assert_allclose(g, 2 * (a - b) / 5, rtol=1e-12)
    g = ms.grad(nn.L1Loss(reduction="sum"))(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    np.testing.assert_allclose(g, np.sign(a - b))


def np_cross_entropy(logits, labels):
    z = logits - logits.max(-1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return -(labels * log_p).sum(-1)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_softmax_cross_entropy_dense_and_sparse_match_numpy(reduction, rng):
    logits = rng.normal(size=(6, 4)) * 3
    labels = rng.integers(0, 4, size=6)
    onehot = np.eye(4)[labels]
    ref = np_cross_entropy(logits, onehot)
    ref = {"mean": ref.mean(), "sum": ref.sum(), "none": ref}[reduction]
    sparse = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction)
    dense = nn.SoftmaxCrossEntropyWithLogits(reduction=reduction)
    np.testing.assert_allclose(sparse(T(logits), ms.Tensor(labels)).asnumpy(), ref, rtol=1e-5)
    np.testing.assert_allclose(dense(T(logits), T(onehot)).asnumpy(), ref, rtol=1e-5)
    check_grad(sparse, ms.Tensor(logits), ms.Tensor(labels), grad_position=0)
    check_grad(dense, ms.Tensor(logits), ms.Tensor(onehot))       # soft labels get a gradient too


def test_softmax_cross_entropy_gradient_is_softmax_minus_onehot(rng):
    logits = rng.normal(size=(5, 3))
    labels = rng.integers(0, 3, size=5)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    g = ms.grad(loss_fn)(ms.Tensor(logits), ms.Tensor(labels)).asnumpy()
    p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    np.testing.assert_allclose(g, (p - np.eye(3)[labels]) / 5, rtol=1e-10, atol=1e-12)


def test_softmax_cross_entropy_is_stable_for_huge_logits():
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
    logits = T([[1000.0, 0.0, -1000.0], [-1000.0, 1000.0, 0.0]])
    out = loss_fn(logits, ms.Tensor([2, 1])).asnumpy()
    np.testing.assert_allclose(out, [2000.0, 0.0])
    g = ms.grad(lambda z: loss_fn(z, ms.Tensor([2, 1])).sum())(logits).asnumpy()
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, [[1, 0, -1], [0, 0, 0]], atol=1e-6)


def test_loss_errors():
    with pytest.raises(ValueError, match=r"MSELoss: reduction must be one of \['mean', 'sum', 'none'\], got 'avg'"):
        nn.MSELoss(reduction="avg")
    with pytest.raises(ValueError, match="SoftmaxCrossEntropyWithLogits: reduction must be one of"):
        nn.SoftmaxCrossEntropyWithLogits(reduction="max")
    with pytest.raises(ValueError, match=r"L1Loss: logits and labels must have shapes that broadcast together, got \[2\] and \[3\]"):
        nn.L1Loss()(T([1.0, 2.0]), T([1.0, 2.0, 3.0]))
    sparse = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
    with pytest.raises(ValueError, match="label 3 is out of range for 3 classes"):
        sparse(T(np.zeros((2, 3))), ms.Tensor([0, 3]))
    with pytest.raises(ValueError, match=r"labels must have shape \[2\] for logits of shape \[2, 3\], got \[2, 1\]"):
        sparse(T(np.zeros((2, 3))), ms.Tensor([[0], [1]]))
    with pytest.raises(TypeError, match="with sparse=True, labels must be integer class indices, got float32"):
        sparse(T(np.zeros((2, 3))), T([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"with sparse=False, labels must have the logits' shape \[2, 3\], got \[2\]"):
        nn.SoftmaxCrossEntropyWithLogits()(T(np.zeros((2, 3))), T([0.0, 1.0]))
    assert repr(sparse) == "SoftmaxCrossEntropyWithLogits<sparse=True, reduction=none>"
