"""The spirals data set and a short run of the demo's training (the full run is marked slow)."""

import importlib.util
import os
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn
from mscustom.datasets import minibatches, spirals, train_test_split
from mscustom.testing import check_grad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO_PATH = os.path.join(ROOT, "examples", "demo.py")


@pytest.fixture(scope="module")
def demo():
    spec = importlib.util.spec_from_file_location("spirals_demo", DEMO_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ================================================================== data
def test_spirals_shapes_labels_and_determinism():
    x, y = spirals(50, n_classes=3, noise=0.0, seed=1)
    assert x.shape == (150, 2) and x.dtype == np.float32 and y.dtype == np.int64
    assert np.bincount(y).tolist() == [50, 50, 50]
    np.testing.assert_allclose(np.hypot(x[:50, 0], x[:50, 1]), np.linspace(0, 1, 50), atol=1e-6)
    # without noise, arm k is arm 0 rotated by k * 120 degrees
    rot = np.array([[np.cos(2 * np.pi / 3), -np.sin(2 * np.pi / 3)], [np.sin(2 * np.pi / 3), np.cos(2 * np.pi / 3)]])
    np.testing.assert_allclose(x[50:100], x[:50] @ rot.T, atol=1e-6)
    a, _ = spirals(50, noise=0.05, seed=2)
    b, _ = spirals(50, noise=0.05, seed=2)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, spirals(50, noise=0.05, seed=3)[0])
    with pytest.raises(ValueError, match="spirals: n_classes must be an int >= 2, got 1"):
        spirals(10, n_classes=1)


def test_split_and_minibatches_cover_every_point():
    x, y = spirals(40, seed=0)
    (xtr, ytr), (xte, yte) = train_test_split(x, y, test_fraction=0.25, seed=0)
    assert len(xte) == 30 and len(xtr) == 90
    both = np.concatenate([xtr, xte])
    assert sorted(map(tuple, both.tolist())) == sorted(map(tuple, x.tolist()))
    batches = list(minibatches(xtr, ytr, 32, np.random.default_rng(0)))
    assert [len(b[0]) for b in batches] == [32, 32, 26]
    seen = np.concatenate([b[0] for b in batches])
    assert sorted(map(tuple, seen.tolist())) == sorted(map(tuple, xtr.tolist()))
    with pytest.raises(ValueError, match="train_test_split: test_fraction must be in"):
        train_test_split(x, y, test_fraction=1.5)


# ================================================================== model and training
def test_build_model_parts_and_names(demo):
    net, loss_fn = demo.build_model("builtin", hidden=8)
    assert [p.name for p in net.trainable_params()] == [
        "layer1.weight", "layer1.bias", "dense2.weight", "dense2.bias", "head.weight", "head.bias"]
    assert isinstance(loss_fn, nn.SoftmaxCrossEntropyWithLogits) and loss_fn.sparse
    assert isinstance(net.act2, nn.ReLU)
    with pytest.raises(ValueError, match=r"build_model: unknown kind 'cuda'; expected one of \['builtin', 'custom'\]"):
        demo.build_model("cuda")


def test_custom_model_uses_a_custom_op_of_each_kind(demo):
    net, loss_fn = demo.build_model("custom", hidden=8)
    assert [p.name for p in net.trainable_params()] == [
        "layer1.weight", "layer1.bias", "dense2.weight", "dense2.bias", "head.weight", "head.bias"]
    kinds = {net.layer1.bias_add_relu.func_type, net.act2.silu.func_type, loss_fn.cross_entropy.func_type}
    assert kinds == {"aot", "jit", "pyfunc"}


# ================================================================== the custom parts, against NumPy
@pytest.fixture(scope="module")
def layers(demo):
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import custom_layers
    return custom_layers


def test_silu_jit_matches_numpy_and_its_gradient(layers):
    x = np.linspace(-6, 6, 25, dtype=np.float32).reshape(5, 5)
    act = layers.SiLU()
    np.testing.assert_allclose(act(ms.Tensor(x)).asnumpy(), x / (1 + np.exp(-x)), rtol=1e-6, atol=1e-7)
    check_grad(act.silu, ms.Tensor(x.astype(np.float32)), rtol=2e-2, atol=2e-3)
    with pytest.raises(TypeError, match="silu"):
        act(ms.Tensor(x.astype(np.float64)))          # registered for float32 only


def test_dense_bias_relu_aot_matches_dense_with_relu(layers):
    rng = np.random.default_rng(0)
    layer = layers.DenseBiasReLU(3, 4)
    layer.bias.set_data(ms.Tensor(rng.standard_normal(4).astype(np.float32)))
    ref = nn.Dense(3, 4, activation="relu")
    ref.weight.set_data(layer.weight)
    ref.bias.set_data(layer.bias)
    x = ms.Tensor(rng.standard_normal((6, 3)).astype(np.float32))
    np.testing.assert_allclose(layer(x).asnumpy(), ref(x).asnumpy(), rtol=1e-6, atol=1e-6)
    f = lambda m: ms.grad(lambda v: (m(v) * m(v)).sum(), grad_position=None, weights=m.trainable_params())
    for g, g_ref in zip(f(layer)(x), f(ref)(x)):
        np.testing.assert_allclose(g.asnumpy(), g_ref.asnumpy(), rtol=1e-5, atol=1e-5)
    check_grad(layer.bias_add_relu, ms.Tensor(rng.standard_normal((4, 3))), ms.Tensor(rng.standard_normal(3)))


def test_cross_entropy_pyfunc_matches_the_builtin_loss(layers):
    rng = np.random.default_rng(1)
    logits = ms.Tensor(rng.standard_normal((7, 3)).astype(np.float32))
    labels = ms.Tensor(rng.integers(0, 3, 7))
    loss = layers.SparseSoftmaxCrossEntropy()
    ref = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    value = loss(logits, labels)
    assert value.shape == () and value.dtype == ms.float32
    np.testing.assert_allclose(value.asnumpy(), ref(logits, labels).asnumpy(), rtol=1e-6)
    g, g_ref = (ms.grad(lambda z, m=m: m(z, labels) * 2.0)(logits) for m in (loss, ref))
    np.testing.assert_allclose(g.asnumpy(), g_ref.asnumpy(), rtol=1e-5, atol=1e-7)
    check_grad(lambda z: loss.cross_entropy(z, labels), ms.Tensor(logits.asnumpy().astype(np.float64)))


@pytest.mark.parametrize("kind", ["custom", "builtin"])
def test_short_training_run_learns_the_spirals(demo, kind):
    cfg = replace(demo.QUICK, n_per_class=200, epochs=15)
    result = demo.run(cfg, kind=kind, progress=False)
    assert result["n_train"] == 480 and result["n_test"] == 120
    assert result["train_accuracy"] > 0.85 and result["test_accuracy"] > 0.85     # chance is 1/3
    assert result["train_loss"] < 0.4
    assert bool(result["custom_ops"]) == (kind == "custom")


def test_main_quick_reports_and_sets_the_exit_status(demo, capsys):
    assert demo.main(["--quick", "--no-progress", "--epochs", "20"]) == 0
    out = capsys.readouterr().out
    assert "epochs=20" in out and "test accuracy=" in out
    table = out.split("custom ops used:")[1]
    for kind, kernel in [("aot", "CustomBiasAddRelu[CPU]"), ("aot", "CustomBiasAddReluGrad[CPU]"),
                         ("jit", "silu_kernel[CPU]"), ("jit", "silu_grad_kernel[CPU]"),
                         ("pyfunc", "sparse_softmax_cross_entropy[CPU]")]:
        row = next(line.split() for line in table.splitlines() if line.split()[1:2] == [kind]
                   and line.split()[2].endswith(kernel))
        assert int(row[3]) > 0 and float(row[4]) > 0
    assert demo.main(["--quick", "--no-progress", "--epochs", "1", "--target", "1.01"]) == 1
    assert "below the target 1.01" in capsys.readouterr().err


@pytest.mark.slow
def test_full_demo_reaches_the_target():
    proc = subprocess.run([sys.executable, DEMO_PATH, "--no-progress"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    acc = float(proc.stdout.split("test accuracy=")[1].split()[0])
    assert acc >= 0.95
