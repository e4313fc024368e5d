"""What MXNet's own tests and examples import: mx.base helpers, mx.test_utils checks, MNIST, 2.0 names.

Expected values and messages come from MXNet 1.9.1 (2.0 names: from MXNet 2.0's API).
"""

import struct

import numpy as np
import pytest

from mscustom.compat import mxnet as mx
from mscustom.compat.mxnet import test_utils as tu


def test_base_helpers():
    assert mx.base.py_str(b"abc") == "abc" and mx.base.py_str("abc") == "abc"
    assert mx.base._as_list(3) == [3] and mx.base._as_list([3]) == [3] and mx.base._as_list((3,)) == (3,)
    assert issubclass(mx.base.MXNetError, RuntimeError)


def test_contexts_under_1x_and_2x_names():
    assert mx.device.cpu() == mx.cpu() and mx.device.Device is mx.Context
    assert mx.device.Device("cpu", 0) == mx.cpu(0)
    assert mx.context.current_context() == mx.cpu() and mx.device.current_device() == mx.cpu()
    with mx.device.Device("gpu", 0):
        assert mx.context.current_context() == mx.gpu(0)
    assert tu.default_context() == mx.cpu() and tu.default_device() == mx.cpu()
    tu.set_default_context(mx.gpu(0))
    try:
        assert tu.default_context() == mx.gpu(0)
    finally:
        tu.set_default_context(mx.cpu())


def test_is_cd_run_reads_cd_job(monkeypatch):
    monkeypatch.delenv("CD_JOB", raising=False)
    assert tu.is_cd_run() is False
    monkeypatch.setenv("CD_JOB", "1")
    assert tu.is_cd_run() is True


def test_comparisons_and_random_shapes():
    assert tu.almost_equal(np.ones(2), np.ones(2) + 1e-6) and not tu.almost_equal(np.ones(2), np.ones(2) + 1e-3)
    assert tu.same(np.ones(2), mx.nd.ones((2,)))
    with pytest.raises(AssertionError, match="a=2.0, b=2.5"):
        tu.assert_almost_equal(np.array([1., 2.]), np.array([1., 2.5]))
    np.random.seed(0)
    assert tu.rand_shape_2d() == (6, 1)             # MXNet 1.9.1 with np.random.seed(0)
    assert tu.rand_shape_nd(3) == (4, 4, 8)
    assert tu.rand_shape_2d(dim0=3, dim1=4) == (2, 4)
    assert 0 in {d for _ in range(50) for d in tu.rand_shape_nd(3, dim=1, allow_zero_size=True)}


def test_check_symbolic_forward_and_backward():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    s = a * b + a
    outs = tu.check_symbolic_forward(s, {"a": np.array([1., 2.]), "b": np.array([3., 4.])}, [np.array([4., 10.])])
    assert outs[0].asnumpy().tolist() == [4.0, 10.0]
    tu.check_symbolic_forward(s, [np.array([1., 2.]), np.array([3., 4.])], [np.array([4., 10.])])
    grads = tu.check_symbolic_backward(s, [np.array([1., 2.]), np.array([3., 4.])], [np.array([1., 1.])],
                                       [np.array([4., 5.]), np.array([1., 2.])])
    assert grads["a"].asnumpy().tolist() == [4.0, 5.0] and grads["b"].asnumpy().tolist() == [1.0, 2.0]
    tu.check_symbolic_backward(s, [np.array([1., 2.]), np.array([3., 4.])], [np.array([2., 1.])],
                               {"a": np.array([8., 5.]), "b": np.array([2., 2.])}, grad_req="add")
    with pytest.raises(AssertionError, match="rtol=0.0001, atol=0.001.*EXPECTED_.*=11.0"):
        tu.check_symbolic_forward(s, [np.array([1., 2.]), np.array([3., 4.])], [np.array([4., 11.])])
    with pytest.raises(AssertionError, match="EXPECTED_b"):
        tu.check_symbolic_backward(s, [np.array([1., 2.]), np.array([3., 4.])], [np.array([1., 1.])],
                                   [np.array([4., 5.]), np.array([1., 3.])])
    with pytest.raises(ValueError, match="check_symbolic_forward: 1 location values for the symbol's 2 arguments"):
        tu.check_symbolic_forward(s, [np.array([1., 2.])], [np.array([4., 10.])])


def test_symbol_bind_under_2x_names():
    x = mx.sym.var("x")
    y = mx.sym.exp(x)
    exe = y._bind(mx.cpu(), {"x": mx.nd.array([0.0, 1.0])}, args_grad={"x": mx.nd.zeros((2,))})
    exe.forward(is_train=True)
    exe.backward()
    np.testing.assert_allclose(exe.grad_dict["x"].asnumpy(), np.exp([0.0, 1.0]), rtol=1e-6)
    exe = y._simple_bind(mx.cpu(), x=(3,))
    assert exe.forward(x=np.zeros(3))[0].asnumpy().tolist() == [1.0, 1.0, 1.0]


def _write_mnist(folder, n=5):
    img = (np.arange(n * 28 * 28) % 256).astype(np.uint8).reshape(n, 28, 28)
    lab = np.array([3, 1, 4, 1, 5], np.uint8)[:n]
    folder.mkdir(parents=True, exist_ok=True)
    for pre in ("train", "t10k"):
        (folder / f"{pre}-images-idx3-ubyte").write_bytes(struct.pack(">IIII", 2051, n, 28, 28) + img.tobytes())
        (folder / f"{pre}-labels-idx1-ubyte").write_bytes(struct.pack(">II", 2049, n) + lab.tobytes())
    return img, lab


def test_get_mnist_iterator_reads_the_data_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MXNET_HOME", str(tmp_path / "nohome"))
    img, lab = _write_mnist(tmp_path / "data")
    train, val = tu.get_mnist_iterator(2, (784,))
    assert [(d.name, d.shape) for d in train.provide_data] == [("data", (2, 784))]
    assert [(d.name, d.shape) for d in train.provide_label] == [("softmax_label", (2,))]
    seen = []
    for batch in val:                  # as MXNet's MNISTIter: 5 images, batches of 2, the last one dropped
        data, label = batch.data[0].asnumpy(), batch.label[0].asnumpy()
        assert data.dtype == np.float32 and label.dtype == np.float32 and batch.pad == 0
        for row, y in zip(data, label):
            k = int(np.argmax(np.all(img.reshape(5, -1) / 256.0 == row, axis=1)))     # which image this is
            np.testing.assert_array_equal(row, img[k].reshape(-1) / 256.0)      # pixels / 256, as MXNet
            assert y == lab[k]
            seen.append(k)
    assert len(seen) == 4 and len(set(seen)) == 4
    train, _ = tu.get_mnist_iterator(2, (1, 28, 28))
    assert next(iter(train)).data[0].shape == (2, 1, 28, 28)


def test_get_mnist_iterator_without_the_files_says_to_download(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MXNET_HOME", str(tmp_path / "nohome"))
    with pytest.raises(FileNotFoundError, match="train-images-idx3-ubyte' was not found.*Nothing is downloaded "
                                                "here: download MNIST first"):
        tu.get_mnist_iterator(2, (784,))


def test_mnist_iter_reads_gzipped_files_under_mxnet_home(tmp_path, monkeypatch):
    import gzip
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "home"
    raw = tmp_path / "raw"
    _write_mnist(raw)
    (home / "datasets" / "mnist").mkdir(parents=True)
    for f in raw.iterdir():
        (home / "datasets" / "mnist" / (f.name + ".gz")).write_bytes(gzip.compress(f.read_bytes()))
    monkeypatch.setenv("MXNET_HOME", str(home))
    train, val = tu.get_mnist_iterator(5, (784,))
    batch = next(iter(mx.io.MNISTIter(image=str(raw / "t10k-images-idx3-ubyte"),
                                      label=str(raw / "t10k-labels-idx1-ubyte"), batch_size=5, shuffle=False,
                                      flat=True)))
    assert batch.label[0].asnumpy().tolist() == [3.0, 1.0, 4.0, 1.0, 5.0]
    assert sorted(next(iter(val)).label[0].asnumpy().tolist()) == [1.0, 1.0, 3.0, 4.0, 5.0]
    with pytest.raises(mx.MXNetError, match="is not an unsigned-byte IDX file"):
        bad = tmp_path / "bad"
        bad.write_bytes(b"\x00\x00\x0d\x01" + b"\x00" * 8)
        mx.io.MNISTIter(image=str(bad), label=str(bad))
