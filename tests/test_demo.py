"""The main job (examples/demo.py): digits data, the LeNet and its custom parts, training, checkpoint, curves, modes.

The tests that read the digits need scikit-learn and those that check the PNG
need matplotlib (both in the ``demo`` extra); each is skipped without them.
The full run is marked slow.
"""

import importlib.util
import os
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn
from mscustom.testing import check_grad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO_PATH = os.path.join(ROOT, "examples", "demo.py")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def demo():
    spec = importlib.util.spec_from_file_location("digits_demo", DEMO_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def layers(demo):
    import custom_layers                    # demo.py put examples/ on sys.path
    return custom_layers


@pytest.fixture(scope="module")
def curves_module(demo):
    import training_curves
    return training_curves


@pytest.fixture(scope="module")
def sklearn():
    return pytest.importorskip("sklearn", reason="the digits demo needs scikit-learn (pip install 'mscustom[demo]')")


@pytest.fixture(scope="module")
def digits(demo, sklearn):
    return demo.load_digits_split(0.2, seed=0)


# ================================================================== data
def test_digits_split_is_fixed_stratified_and_scaled(demo, digits):
    (xtr, ytr), (xte, yte) = digits
    assert xtr.shape == (1437, 1, 8, 8) and xte.shape == (360, 1, 8, 8)
    assert xtr.dtype == np.float32 and ytr.dtype == np.int32
    assert xtr.min() == 0.0 and xtr.max() == 1.0 and xte.max() <= 1.0
    from sklearn.datasets import load_digits
    every = load_digits()
    # together the two parts are the 1,797 images, once each (compare as sorted rows of pixels)
    both = np.concatenate([xtr, xte]).reshape(len(every.images), -1)
    np.testing.assert_array_equal(np.sort(both * 16, axis=0), np.sort(every.images.reshape(len(both), -1), axis=0))
    np.testing.assert_array_equal(np.bincount(np.concatenate([ytr, yte])), np.bincount(every.target))
    # stratified: every digit is 20% (+-1 image) of the test part
    assert np.all(np.abs(np.bincount(yte) - 0.2 * np.bincount(every.target)) <= 1)
    (xtr2, ytr2), _ = demo.load_digits_split(0.2, seed=0)
    np.testing.assert_array_equal(xtr, xtr2)
    np.testing.assert_array_equal(ytr, ytr2)
    with pytest.raises(ValueError, match=r"load_digits_split: test_fraction must be in \(0, 1\), got 1.5"):
        demo.load_digits_split(1.5)


def test_pipelines_batch_shuffle_and_keep_the_test_order(demo, digits):
    train, test = digits
    train_ds, test_ds = demo.make_datasets(train, test, batch_size=32, seed=0)
    assert train_ds.get_dataset_size() == 45 and test_ds.get_dataset_size() == 2
    assert train_ds.get_col_names() == ["image", "label"]
    it = train_ds.create_tuple_iterator(num_epochs=2, output_numpy=True)
    epochs = [list(it), list(it)]
    for batches in epochs:
        assert [len(b[1]) for b in batches] == [32] * 44 + [29]
        labels = np.concatenate([b[1] for b in batches])
        np.testing.assert_array_equal(np.bincount(labels), np.bincount(train[1]))
    first, second = (np.concatenate([b[1] for b in e]) for e in epochs)
    assert not np.array_equal(first, train[1]) and not np.array_equal(first, second)    # reshuffled per epoch
    rows = list(test_ds.create_tuple_iterator(num_epochs=1, output_numpy=True))
    np.testing.assert_array_equal(np.concatenate([r[0] for r in rows]), test[0])


# ================================================================== the network and its parts
PARAM_NAMES = ["conv1.weight", "bn1.gamma", "bn1.beta", "conv2.weight", "bn2.gamma", "bn2.beta",
               "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


@pytest.mark.parametrize("kind", ["custom", "builtin"])
def test_build_model_has_the_lenet_layers(demo, kind):
    net, loss_fn = demo.build_model(kind, demo.FULL)
    assert [p.name for p in net.trainable_params()] == PARAM_NAMES
    assert {p.name for p in net.get_parameters()} >= {"bn1.moving_mean", "bn2.moving_variance"}
    assert isinstance(net.conv1, nn.Conv2d) and isinstance(net.bn2, nn.BatchNorm2d)
    assert isinstance(net.pool1, nn.MaxPool2d) and isinstance(net.fc2, nn.Dense)
    net.set_train(False)
    assert net(ms.Tensor(np.zeros((3, 1, 8, 8), np.float32))).shape == (3, 10)
    if kind == "custom":
        kinds = {net.act1.silu.func_type, net.act2.silu.func_type, net.fc1.bias_add_relu.func_type,
                 loss_fn.cross_entropy.func_type}
        assert kinds == {"jit", "aot", "pyfunc"}
        assert net.act1.silu is net.act2.silu                # one stateless op serves both layers
    else:
        assert isinstance(loss_fn, nn.SoftmaxCrossEntropyWithLogits) and loss_fn.sparse
    with pytest.raises(ValueError, match=r"build_model: unknown kind 'cuda'; expected one of \['builtin', 'custom'\]"):
        demo.build_model("cuda")


def test_custom_network_equals_the_builtin_one_forward_and_backward(demo, digits):
    """With the same weights, the custom kernels (jit SiLU, aot dense+ReLU, pyfunc loss) give the built-ins' results."""
    ms.set_seed(3)
    ref, ref_loss = demo.build_model("builtin", demo.FULL)
    ms.set_seed(4)
    net, loss_fn = demo.build_model("custom", demo.FULL)
    not_loaded, _ = ms.load_param_into_net(net, {p.name: p for p in ref.get_parameters()})
    assert not_loaded == []
    x, y = ms.Tensor(digits[0][0][:40]), ms.Tensor(digits[0][1][:40])
    for m in (ref, net):
        m.set_train(False)
    np.testing.assert_allclose(net(x).asnumpy(), ref(x).asnumpy(), rtol=1e-4, atol=1e-5)
    for m in (ref, net):
        m.set_train(True)
    grads = [ms.value_and_grad(lambda a, b, m=m, lf=lf: lf(m(a), b), None, weights=m.trainable_params())(x, y)
             for m, lf in ((net, loss_fn), (ref, ref_loss))]
    (loss, g), (ref_value, g_ref) = grads
    np.testing.assert_allclose(loss.asnumpy(), ref_value.asnumpy(), rtol=1e-5)
    for name, a, b in zip(PARAM_NAMES, g, g_ref):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-3, atol=1e-5, err_msg=name)


def test_silu_jit_matches_numpy_and_its_gradient(layers):
    x = np.linspace(-6, 6, 2 * 3 * 2 * 2, dtype=np.float32).reshape(2, 3, 2, 2)       # NCHW, as after BatchNorm
    act = layers.SiLU()
    np.testing.assert_allclose(act(ms.Tensor(x)).asnumpy(), x / (1 + np.exp(-x)), rtol=1e-6, atol=1e-7)
    check_grad(act.silu, ms.Tensor(x), rtol=2e-2, atol=2e-3)
    # registered for float32 only: float64 is cast to it, as MindSpore 2.10 casts (tests/test_custom_select_casts.py)
    with pytest.warns(UserWarning, match="op 'silu': .*input 0 float64 -> float32"):
        y64 = act(ms.Tensor(x.astype(np.float64)))
    assert y64.dtype == ms.float64
    np.testing.assert_array_equal(y64.asnumpy(), act(ms.Tensor(x)).asnumpy().astype(np.float64))


def test_dense_bias_relu_aot_matches_dense_with_relu(layers):
    rng = np.random.default_rng(0)
    layer = layers.DenseBiasReLU(3, 4)
    layer.bias.set_data(ms.Tensor(rng.standard_normal(4).astype(np.float32)))
    ref = nn.Dense(3, 4, activation="relu")
    ref.weight.set_data(layer.weight)
    ref.bias.set_data(layer.bias)
    x = ms.Tensor(rng.standard_normal((6, 3)).astype(np.float32))
    np.testing.assert_allclose(layer(x).asnumpy(), ref(x).asnumpy(), rtol=1e-6, atol=1e-6)
    f = lambda m: ms.grad(lambda v: (m(v) * m(v)).sum(), grad_position=None, weights=m.trainable_params())  # noqa
    for g, g_ref in zip(f(layer)(x), f(ref)(x)):
        np.testing.assert_allclose(g.asnumpy(), g_ref.asnumpy(), rtol=1e-5, atol=1e-5)
    check_grad(layer.bias_add_relu, ms.Tensor(rng.standard_normal((4, 3))), ms.Tensor(rng.standard_normal(3)))


def test_cross_entropy_pyfunc_matches_the_builtin_loss(layers):
    rng = np.random.default_rng(1)
    logits = ms.Tensor(rng.standard_normal((7, 10)).astype(np.float32))
    labels = ms.Tensor(rng.integers(0, 10, 7).astype(np.int32))
    loss = layers.SparseSoftmaxCrossEntropy()
    ref = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    value = loss(logits, labels)
    assert value.shape == () and value.dtype == ms.float32
    np.testing.assert_allclose(value.asnumpy(), ref(logits, labels).asnumpy(), rtol=1e-6)
    g, g_ref = (ms.grad(lambda z, m=m: m(z, labels) * 2.0)(logits) for m in (loss, ref))
    np.testing.assert_allclose(g.asnumpy(), g_ref.asnumpy(), rtol=1e-5, atol=1e-7)
    check_grad(lambda z: loss.cross_entropy(z, labels), ms.Tensor(logits.asnumpy().astype(np.float64)))


# ================================================================== checkpoint, curves, modes
def test_checkpoint_round_trip_restores_weights_and_batchnorm_statistics(demo, digits, tmp_path):
    ms.set_seed(0)
    net, _ = demo.build_model("custom", demo.FULL)
    net.bn1.moving_mean.set_data(ms.Tensor(np.linspace(-1, 1, 16).astype(np.float32)))   # statistics matter too
    images = digits[1][0][:50]
    before, after = demo.checkpoint_round_trip(net, "custom", demo.FULL, images, str(tmp_path / "net.ckpt"))
    np.testing.assert_array_equal(before, after)
    ms.set_seed(demo.FULL.seed + 1)
    fresh, _ = demo.build_model("custom", demo.FULL)                # the same fresh network, not loaded
    assert not np.allclose(ms.Model(fresh).predict(ms.Tensor(images)).asnumpy(), before)
    assert os.path.getsize(tmp_path / "net.ckpt") > 4 * sum(p.size for p in net.get_parameters())


def test_epoch_curves_and_the_png(curves_module, tmp_path):
    with pytest.raises(TypeError, match="EpochCurves: evaluation 'test' must be a function"):
        curves_module.EpochCurves({"test": 0.5})
    with pytest.raises(ValueError, match="EpochCurves: 'step' is taken"):
        curves_module.EpochCurves({"step": lambda: {}})
    history = {"epoch": [1, 2, 3], "step_loss": [0.9, 0.3, 0.1], "test_loss": [0.8, 0.4, 0.2],
               "test_accuracy": [0.8, 0.9, 0.95]}
    with pytest.raises(ValueError, match="plot_curves: the history has no finished epoch"):
        curves_module.plot_curves({"epoch": []}, str(tmp_path / "none.png"))
    pytest.importorskip("matplotlib")
    path = curves_module.plot_curves(history, str(tmp_path / "sub" / "curves.png"), target=0.97)
    with open(path, "rb") as f:
        assert f.read(8) == PNG_MAGIC


def test_epoch_curves_evaluate_each_epoch_and_hand_back_a_training_network(demo, curves_module, digits):
    ms.set_seed(0)
    net, loss_fn = demo.build_model("builtin", demo.FULL)
    model = ms.Model(net, loss_fn, nn.Adam(net.trainable_params(), 0.01), metrics={"accuracy"})
    small = ms.dataset.NumpySlicesDataset((digits[0][0][:64], digits[0][1][:64]), column_names=["image", "label"],
                                          shuffle=False).batch(32)
    modes = []

    class TrainingFlag(ms.Callback):
        def on_train_step_begin(self, run_context):
            modes.append(net.training)

    curves = curves_module.EpochCurves({"test": lambda: model.eval(small)})
    model.train(3, small, callbacks=[curves, TrainingFlag()])
    assert modes == [True] * 6                                  # BatchNorm uses batch statistics every step
    assert curves.history["epoch"] == [1, 2, 3] and len(curves.history["test_accuracy"]) == 3
    assert curves.history["step_loss"][-1] < curves.history["step_loss"][0]
    assert curves.summary().startswith("epoch 3: mean training loss of the epoch ")


def test_train_step_gives_the_same_losses_eager_and_in_graph_mode(demo, digits):
    cfg = replace(demo.QUICK, timing_warmup=1, timing_steps=3)
    previous = ms.get_context("mode")
    timing = demo.compare_modes("custom", cfg, digits[0], steps_per_epoch=45)
    assert ms.get_context("mode") == previous
    assert timing["max_rel_diff"] <= demo.MODES_RTOL                    # the same training, to float32 rounding
    assert timing["identical"] == (timing["max_rel_diff"] == 0.0)
    assert timing["eager"] > 0 and timing["graph"] > 0 and timing["steps"] == 3


# ================================================================== short runs of the whole job
def test_short_run_learns_and_reports_everything(demo, sklearn, tmp_path):
    cfg = replace(demo.QUICK, train_limit=480, epochs=2, timing_warmup=1, timing_steps=2)
    previous = ms.get_context("mode")
    r = demo.run(cfg, kind="custom", mode=ms.GRAPH_MODE, out_dir=str(tmp_path))
    assert ms.get_context("mode") == previous and r["mode"] == "GRAPH_MODE"
    assert r["n_train"] == 480 and r["n_test"] == 360
    assert r["test_accuracy"] > 0.8                                   # chance is 0.1
    h = r["history"]
    assert sorted(h) == ["epoch", "step_loss", "test_accuracy", "test_loss", "train_accuracy", "train_loss"]
    assert h["epoch"] == [1, 2] and all(len(values) == 2 for values in h.values())
    assert h["step_loss"][1] < h["step_loss"][0] and h["train_loss"][1] < h["train_loss"][0]
    assert h["test_accuracy"][-1] == pytest.approx(r["test_accuracy"])
    assert r["predictions_match"] and r["predictions"].shape == (360, 10)
    assert os.path.exists(r["checkpoint"]) and r["timing"]["max_rel_diff"] <= demo.MODES_RTOL
    table = r["custom_ops"]
    for kind, kernel in [("aot", "CustomBiasAddRelu[CPU]"), ("aot", "CustomBiasAddReluGrad[CPU]"),
                         ("jit", "silu_kernel[CPU]"), ("jit", "silu_grad_kernel[CPU]"),
                         ("pyfunc", "sparse_softmax_cross_entropy[CPU]"),
                         ("pyfunc", "sparse_softmax_cross_entropy_grad[CPU]")]:
        row = next(line.split() for line in table.splitlines() if line.split()[1:2] == [kind]
                   and line.split()[2].endswith(kernel))
        assert int(row[3]) > 0 and float(row[4]) > 0
    try:
        import matplotlib.figure  # noqa: F401
    except ImportError:
        assert r["curves_png"] is None                              # the run goes on without the plot
    else:
        with open(r["curves_png"], "rb") as f:
            assert f.read(8) == PNG_MAGIC


def test_main_prints_the_figures_and_fails_below_the_target(demo, sklearn, tmp_path, capsys):
    status = demo.main(["--quick", "--kind", "builtin", "--mode", "pynative", "--epochs", "1", "--target", "1.01",
                        "--out", str(tmp_path)])
    assert status == 1
    out, err = capsys.readouterr()
    assert "kind=builtin, mode=PYNATIVE_MODE" in out and "test accuracy=" in out
    assert "predictions on the 360 test images match exactly" in out
    assert "PYNATIVE_MODE" in out.split("train step")[1] and "GRAPH_MODE" in out.split("train step")[1]
    assert "custom ops used" not in out                                 # built-in ops only
    assert "FAILED: test accuracy" in err and "below the target 1.01" in err


def test_report_fails_when_the_modes_disagree_or_the_checkpoint_differs(demo, capsys):
    good = {"kind": "custom", "mode": "GRAPH_MODE", "n_train": 10, "n_test": 2, "epochs": 1, "train_seconds": 1.0,
            "test_accuracy": 0.99, "checkpoint": "x.ckpt", "predictions": np.zeros((2, 10)),
            "predictions_match": True, "curves_png": None, "custom_ops": "", "total_seconds": 2.0,
            "timing": {"eager": 0.02, "graph": 0.01, "steps": 3, "warmup": 1, "identical": False,
                       "max_rel_diff": 1e-7}}
    assert demo.report(good, demo.FULL) == 0
    out = capsys.readouterr().out
    assert "eager/graph 2.00x" in out and "max relative difference 1.0e-07" in out
    drift = dict(good, timing=dict(good["timing"], max_rel_diff=1e-3))
    assert demo.report(drift, demo.FULL) == 1
    assert "FAILED: the losses of GRAPH_MODE and PYNATIVE_MODE differ" in capsys.readouterr().err
    assert demo.report(dict(good, predictions_match=False), demo.FULL) == 1
    assert "FAILED: the reloaded network's predictions differ" in capsys.readouterr().err


def test_main_without_scikit_learn_says_what_to_install(demo, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "sklearn", None)                  # import sklearn raises ImportError
    assert demo.main(["--quick"]) == 2
    assert "pip install 'mscustom[demo]'" in capsys.readouterr().err


@pytest.mark.slow
def test_full_demo_reaches_the_target(sklearn, tmp_path):
    proc = subprocess.run([sys.executable, DEMO_PATH, "--out", str(tmp_path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    acc = float(proc.stdout.split("test accuracy=")[1].split()[0])
    assert acc >= 0.97
    assert "mode=GRAPH_MODE" in proc.stdout and "match exactly" in proc.stdout
