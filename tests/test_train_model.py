"""Model.train/eval/fit/predict, callbacks and metrics, against hand-computed values."""

import io
import re

import numpy as np
import pytest

import mscustom as ms
import mscustom.dataset as ds
from mscustom import nn
from mscustom.train import (Accuracy, Callback, EarlyStopping, F1, History, Loss, LossMonitor, MAE, MSE, Model,
                            ModelCheckpoint, CheckpointConfig, Precision, Recall, TimeMonitor,
                            TopKCategoricalAccuracy)

LINE = re.compile(r"^epoch: (\d+) step: (\d+), loss is (\S+)$")


def blobs(n=192, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    centers = np.array([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]])
    x = (centers[y] + rng.normal(scale=0.6, size=(n, 2))).astype(np.float32)
    return x, y.astype(np.int32)


def generator_dataset(x, y, batch=32):
    def gen():
        for i in range(len(x)):
            yield x[i], y[i]
    return ds.GeneratorDataset(gen, column_names=["data", "label"]).batch(batch)


def make_model(metrics=None, lr=0.03):
    ms.set_seed(1)
    net = nn.SequentialCell([nn.Dense(2, 16), nn.ReLU(), nn.Dense(16, 3)])
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return net, Model(net, loss, nn.Adam(net.trainable_params(), lr), metrics=metrics)


def test_train_on_generator_dataset_loss_goes_down_with_loss_monitor_lines(capsys):
    x, y = blobs()
    net, model = make_model()
    model.train(4, generator_dataset(x, y), callbacks=[LossMonitor(per_print_times=2)])
    lines = capsys.readouterr().out.strip().splitlines()
    parsed = [LINE.match(line) for line in lines]
    assert all(parsed), lines
    steps = [(int(m.group(1)), int(m.group(2))) for m in parsed]
    assert steps == [(e, s) for e in range(1, 5) for s in (2, 4, 6)]      # 6 batches per epoch, every 2nd step
    losses = [float(m.group(3)) for m in parsed]
    assert np.mean(losses[-3:]) < 0.5 * np.mean(losses[:3])
    logits = model.predict(ms.Tensor(x)).asnumpy()
    assert np.mean(logits.argmax(1) == y) > 0.9


def test_eval_metrics_match_numpy_on_the_predictions():
    x, y = blobs(seed=3)
    net, model = make_model(metrics={"acc": Accuracy(), "loss": Loss(), "top2": TopKCategoricalAccuracy(2)})
    model.train(1, generator_dataset(x, y))
    res = model.eval(ds.NumpySlicesDataset((x, y), column_names=["data", "label"], shuffle=False).batch(64))
    logits = model.predict(ms.Tensor(x)).asnumpy().astype(np.float64)
    shifted = logits - logits.max(1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    batch_losses = [-logp[i:i + 64][np.arange(len(y[i:i + 64])), y[i:i + 64]].mean() for i in range(0, len(y), 64)]
    assert res["acc"] == pytest.approx(np.mean(logits.argmax(1) == y))
    assert res["loss"] == pytest.approx(np.mean(batch_losses), rel=1e-5)
    top2 = np.argsort(-logits, axis=1)[:, :2]
    assert res["top2"] == pytest.approx(np.mean([y[i] in top2[i] for i in range(len(y))]))


class Recorder(Callback):
    def __init__(self, stop_at=None):
        self.events, self.stop_at, self.seen = [], stop_at, []

    def begin(self, rc):                          # an older-style hook
        self.events.append("begin")

    def on_train_epoch_begin(self, rc):
        self.events.append(f"epoch_begin {rc.original_args().cur_epoch_num}")

    def step_end(self, rc):                       # older style again, reached through on_train_step_end
        p = rc.original_args()
        self.events.append(f"step {p.cur_step_num}")
        self.seen.append((p.cur_epoch_num, p.cur_step_num, p.batch_num, p.epoch_num,
                          isinstance(p.net_outputs, ms.Tensor), p.train_network is not None))
        if self.stop_at == p.cur_step_num:
            rc.request_stop()

    def on_train_epoch_end(self, rc):
        self.events.append(f"epoch_end {rc.original_args().cur_epoch_num}")

    def end(self, rc):
        self.events.append("end")


def test_callback_hooks_order_cb_params_and_request_stop():
    x, y = blobs(64)
    _, model = make_model()
    rec = Recorder()
    model.train(2, generator_dataset(x, y), callbacks=rec)
    assert rec.events == ["begin", "epoch_begin 1", "step 1", "step 2", "epoch_end 1",
                          "epoch_begin 2", "step 3", "step 4", "epoch_end 2", "end"]
    assert rec.seen[0] == (1, 1, 2, 2, True, True)
    stopper = Recorder(stop_at=3)
    model.train(5, generator_dataset(x, y), callbacks=[stopper])
    assert stopper.events[-3:] == ["step 3", "epoch_end 2", "end"]


def test_fit_history_early_stopping_and_time_monitor(capsys):
    x, y = blobs()
    _, model = make_model(metrics={"accuracy"})
    history = History()
    train, valid = generator_dataset(x, y), generator_dataset(*blobs(96, seed=5))
    model.fit(3, train, valid, valid_frequency=[1, 3], callbacks=[history, TimeMonitor(), LossMonitor(0)])
    out = capsys.readouterr().out
    assert history.epoch == [1, 2, 3] and len(history.history["net_output"]) == 3
    assert len(history.history["accuracy"]) == 2 and history.history["accuracy"][-1] > 0.9
    assert len(re.findall(r"^Train epoch time: \d+\.\d{3} ms, per step time: \d+\.\d{3} ms$", out, re.M)) == 3
    assert re.findall(r"^Eval result: epoch (\d), metrics: \{'accuracy': ", out, re.M) == ["1", "3"]
    stop = EarlyStopping(monitor="accuracy", min_delta=10.0, patience=1)   # no epoch can improve by 10
    history = History()
    model.fit(10, train, valid, callbacks=[stop, history])
    assert history.epoch == [1, 2] and stop.stopped_epoch == 2


def test_model_checkpoint_saves_named_files_and_keeps_the_newest(tmp_path):
    x, y = blobs(64)
    net, model = make_model()
    cb = ModelCheckpoint(prefix="net", directory=str(tmp_path),
                         config=CheckpointConfig(save_checkpoint_steps=1, keep_checkpoint_max=2))
    model.train(2, generator_dataset(x, y), callbacks=[cb])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net-2_1.ckpt", "net-2_2.ckpt"]
    saved = ms.load_checkpoint(cb.latest_ckpt_file_name)
    assert {"0.weight", "2.bias", "moment1.0.weight"} <= set(saved)
    np.testing.assert_array_equal(saved["0.weight"].asnumpy(), net[0].weight.asnumpy())


def test_progress_bar_only_on_a_terminal(monkeypatch):
    x, y = blobs(64)
    _, model = make_model()

    class Terminal(io.StringIO):
        def isatty(self):
            return True
    term = Terminal()
    monkeypatch.setattr("sys.stdout", term)
    model.train(1, generator_dataset(x, y))
    assert "epoch 1/1" in term.getvalue() and "/2 [" in term.getvalue()
    plain = io.StringIO()
    monkeypatch.setattr("sys.stdout", plain)
    model.train(1, generator_dataset(x, y))
    assert plain.getvalue() == ""


def test_metrics_against_numpy():
    y_pred = np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3]])
    y = np.array([1, 0, 1, 2])
    pred = y_pred.argmax(1)
    tp = np.array([np.sum((pred == c) & (y == c)) for c in range(3)], float)
    pp = np.array([np.sum(pred == c) for c in range(3)], float)
    ap = np.array([np.sum(y == c) for c in range(3)], float)
    for metric, want in [(Precision(), tp / pp), (Recall(), tp / ap), (F1(), 2 * tp / (ap + pp))]:
        metric.update(ms.Tensor(y_pred), ms.Tensor(y))
        np.testing.assert_allclose(metric.eval(), want)
        assert metric.eval(average=True) == pytest.approx(np.mean(want))
    acc = Accuracy()
    acc.update(y_pred, np.eye(3)[y])                     # one-hot labels work too
    assert acc.eval() == pytest.approx(0.5)
    reg_pred, reg_y = np.array([[1.0, 2.0], [3.0, 5.0]]), np.array([[1.5, 2.0], [2.0, 7.0]])
    mae, mse = MAE(), MSE()
    mae.update(reg_pred, reg_y)
    mse.update(reg_pred, reg_y)
    assert mae.eval() == pytest.approx((0.5 + 0 + 1 + 2) / 2) and mse.eval() == pytest.approx((0.25 + 1 + 4) / 2)
    with pytest.raises(RuntimeError, match="Accuracy can not be calculated, because the number of samples is 0"):
        Accuracy().eval()
    with pytest.raises(ValueError, match=r"Accuracy.update: expected 2 input\(s\), got 1"):
        Accuracy().update(y_pred)


def test_model_errors_and_public_names():
    net = nn.Dense(2, 2)
    assert ms.Model is Model and ms.train.Model is Model and ms.train.LossMonitor is LossMonitor
    with pytest.raises(RuntimeError, match="Model.train: no optimizer was given to Model"):
        Model(net, nn.MSELoss()).train(1, ds.NumpySlicesDataset(([[1.0, 2.0]], [[1.0, 2.0]])))
    with pytest.raises(ValueError, match="level must be one of"):
        Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), amp_level="O7")
    with pytest.raises(ValueError, match="Model.eval: no metrics were given to Model"):
        Model(net, nn.MSELoss()).eval(ds.NumpySlicesDataset(([[1.0, 2.0]], [[1.0, 2.0]])))
    with pytest.raises(TypeError, match="Model.train: the dataset must be an mscustom.dataset Dataset"):
        Model(net, nn.MSELoss(), nn.SGD(net.trainable_params())).train(1, [(1, 2)])
    with pytest.raises(KeyError, match="Unknown Metric name: 'acuracy'"):
        Model(net, nn.MSELoss(), metrics={"acuracy"})
    with pytest.raises(ValueError, match="LossMonitor: per_print_times must be an int >= 0"):
        LossMonitor(-1)


def test_loss_monitor_stops_on_nan_loss():
    x, y = blobs(64)
    x[5, 0] = np.nan
    _, model = make_model()
    with pytest.raises(ValueError, match=r"epoch: 1 step: 1\. Invalid loss, terminating training\."):
        model.train(1, ds.NumpySlicesDataset((x, y), shuffle=False).batch(32), callbacks=[LossMonitor()])
