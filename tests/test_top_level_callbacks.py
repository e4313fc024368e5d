"""ms.LambdaCallback, LearningRateScheduler, ReduceLROnPlateau and DatasetHelper (values from MindSpore 2.10 CPU)."""

import os

import numpy as np
import pytest

import mscustom as ms
import mscustom.dataset as ds
from mscustom import nn

X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], np.float32)
Y = np.array([[1.0], [2.0], [3.0], [4.0]], np.float32)


def _run(make_callbacks, epochs):
    net = nn.Dense(2, 1, weight_init="zeros", bias_init="zeros")
    opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
    model = ms.Model(net, nn.MSELoss(), opt)
    data = ds.NumpySlicesDataset({"x": X, "y": Y}, shuffle=False).batch(2)
    seen = []
    model.train(epochs, data, callbacks=make_callbacks(seen, opt))
    return seen, float(opt.learning_rate), net.weight.asnumpy()


def test_learning_rate_scheduler_and_lambda_callback():
    seen, lr, w = _run(lambda seen, opt: [
        ms.LearningRateScheduler(lambda lr, step: lr * 0.5 if step % 2 == 0 else lr),
        ms.LambdaCallback(on_train_step_end=lambda rc: seen.append((rc.original_args().cur_step_num,
                                                                     float(opt.learning_rate))))], 3)
    steps, lrs = zip(*seen)
    assert steps == (1, 2, 3, 4, 5, 6)
    np.testing.assert_allclose(lrs, [0.01, 0.005, 0.005, 0.0025, 0.0025, 0.00125], rtol=1e-6)
    np.testing.assert_allclose(w, [[0.243229940533638, 0.2981142997741699]], rtol=1e-6)


def test_reduce_lr_on_plateau():
    seen, lr, w = _run(lambda seen, opt: [
        ms.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, mode="max"),
        ms.LambdaCallback(on_train_epoch_end=lambda rc: seen.append(float(opt.learning_rate)))], 4)
    np.testing.assert_allclose(seen, [0.01, 0.005, 0.0025, 0.00125], rtol=1e-6)
    np.testing.assert_allclose(w, [[0.23304983973503113, 0.2862915098667145]], rtol=1e-6)
    seen, lr, _ = _run(lambda seen, opt: [
        ms.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, cooldown=1, min_lr=0.004),
        ms.LambdaCallback(on_train_epoch_end=lambda rc: seen.append(float(opt.learning_rate)))], 5)
    np.testing.assert_allclose(seen, [0.01] * 5, rtol=1e-6)          # the loss improves every epoch
    with pytest.raises(ValueError):
        ms.ReduceLROnPlateau(mode="up")
    with pytest.raises(ValueError):
        ms.ReduceLROnPlateau(factor=1.5)
    with pytest.raises(TypeError):
        ms.ReduceLROnPlateau(monitor=1)


def test_dataset_helper():
    data = ds.NumpySlicesDataset({"x": np.arange(8, dtype=np.float32).reshape(4, 2),
                                  "y": np.arange(4, dtype=np.float32).reshape(4, 1)}, shuffle=False).batch(2)
    helper = ms.DatasetHelper(data, dataset_sink_mode=False)
    rows = [[t.asnumpy().tolist() for t in row] for row in helper]
    assert rows == [[[[0.0, 1.0], [2.0, 3.0]], [[0.0], [1.0]]], [[[4.0, 5.0], [6.0, 7.0]], [[2.0], [3.0]]]]
    assert len(list(helper)) == 2
    with pytest.raises(TypeError):
        ms.DatasetHelper(data, dataset_sink_mode=1)
    with pytest.raises(RuntimeError):                    # no device queue (MindSpore CPU raises too)
        ms.DatasetHelper(data)


def test_backup_and_restore(tmp_path):
    def make():
        net = nn.Dense(2, 1, weight_init="zeros", bias_init="zeros")
        return net, ms.Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9))

    class Interrupt(ms.Callback):
        def on_train_epoch_end(self, run_context):
            if run_context.original_args().cur_epoch_num == 2:
                raise KeyboardInterrupt

    net, model = make()
    with pytest.raises(KeyboardInterrupt):
        model.train(3, ds.NumpySlicesDataset({"x": X, "y": Y}, shuffle=False).batch(2),
                    callbacks=[ms.BackupAndRestore(str(tmp_path)), Interrupt()])
    assert os.listdir(tmp_path) == ["backup.ckpt"]
    np.testing.assert_allclose(net.weight.asnumpy(), [[0.1098831295967102, 0.16857659816741943]], rtol=1e-6)
    net2, model2 = make()           # resumes from the backup (weights and momentum), then deletes it
    model2.train(1, ds.NumpySlicesDataset({"x": X, "y": Y}, shuffle=False).batch(2),
                 callbacks=[ms.BackupAndRestore(str(tmp_path))])
    assert os.listdir(tmp_path) == []
    np.testing.assert_allclose(net2.weight.asnumpy(), [[0.2269495725631714, 0.3261333703994751]], rtol=1e-6)
    with pytest.raises(ValueError):
        ms.BackupAndRestore(str(tmp_path), save_freq=0)
