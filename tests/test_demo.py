"""The spirals data set and a short run of the demo's training (the full run is marked slow)."""

import importlib.util
import os
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from mscustom import nn
from mscustom.datasets import minibatches, spirals, train_test_split

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
    with pytest.raises(ValueError, match=r"build_model: unknown kind 'cuda'; expected one of \['builtin'\]"):
        demo.build_model("cuda")


def test_short_training_run_learns_the_spirals(demo):
    cfg = replace(demo.QUICK, n_per_class=200, epochs=15)
    result = demo.run(cfg, progress=False)
    assert result["n_train"] == 480 and result["n_test"] == 120
    assert result["train_accuracy"] > 0.85 and result["test_accuracy"] > 0.85     # chance is 1/3
    assert result["train_loss"] < 0.4


def test_main_quick_reports_and_sets_the_exit_status(demo, capsys):
    assert demo.main(["--quick", "--no-progress", "--epochs", "20"]) == 0
    out = capsys.readouterr().out
    assert "epochs=20" in out and "test accuracy=" in out
    assert demo.main(["--quick", "--no-progress", "--epochs", "1", "--target", "1.01"]) == 1
    assert "below the target 1.01" in capsys.readouterr().err


@pytest.mark.slow
def test_full_demo_reaches_the_target():
    proc = subprocess.run([sys.executable, DEMO_PATH, "--no-progress"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    acc = float(proc.stdout.split("test accuracy=")[1].split()[0])
    assert acc >= 0.95
