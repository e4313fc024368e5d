"""The LSTM text step: Embedding 1000x64, LSTM 64->128, Dense 128->10, softmax cross entropy, Adam.

Batch 32 of 32 token ids (``batch_first``), the classifier reads the last time
step's output. Times are process CPU time per step on one thread (BLAS and
Numba limited to one), the fastest batch of alternating rounds, against the
same step written by hand in NumPy measured in the same run (the shared
machine's load hits both alike, so the ratio is what to compare between runs).
``bench/peer_torch_lstm.py`` times PyTorch eager on the same step.

Imported by ``bench/run.py`` (``--only lstm``); runnable alone::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 .venv/bin/python bench/lstm_bench.py
"""

import os
import sys

os.environ.setdefault("MSCUSTOM_LOOPS", "now")          # the steady state: loops loaded before timing

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mscustom as ms  # noqa: E402
from mscustom import nn  # noqa: E402

from graph_bench import _interleaved_ms  # noqa: E402

VOCAB, EMBED, HIDDEN, CLASSES, BATCH, STEPS = 1000, 64, 128, 10, 32, 32


def lstm_data(seed=5):
    """The token ids (BATCH, STEPS) int32 and labels (BATCH,) int32 every variant of the step uses."""
    rng = np.random.default_rng(seed)
    return (rng.integers(0, VOCAB, (BATCH, STEPS)).astype(np.int32),
            rng.integers(0, CLASSES, BATCH).astype(np.int32))


class TextLSTM(nn.Cell):
    """Embedding -> LSTM (batch_first) -> Dense on the last step's output."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, EMBED)
        self.lstm = nn.LSTM(EMBED, HIDDEN, batch_first=True)
        self.fc = nn.Dense(HIDDEN, CLASSES)

    def construct(self, ids):
        out, _ = self.lstm(self.embed(ids))
        return self.fc(out[:, -1])


def mscustom_step(mode):
    ms.set_context(mode=mode)
    ms.set_seed(0)
    net = TextLSTM()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Adam(net.trainable_params(), 1e-3))
    step.set_train()
    return step, net.trainable_params()


# ------------------------------------------------------------------ the same step by hand
def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


class NumpyLSTMStep:
    """The step in NumPy: one GEMM for the input projection, the recurrence step by step, backward
    through time with dW_hh as one GEMM over all steps, MindSpore's Adam on every parameter."""

    def __init__(self, params):
        self.params = params            # table, w_ih, w_hh, b_ih, b_hh, w_fc, b_fc
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def __call__(self, ids, labels, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
        table, w_ih, w_hh, b_ih, b_hh, w_fc, b_fc = self.params
        n, steps = ids.shape
        hid = w_hh.shape[1]
        x = table[ids.T]                                     # (T, N, E)
        gi = x.reshape(steps * n, -1) @ w_ih.T
        gi += b_ih
        gi += b_hh
        gi = gi.reshape(steps, n, 4 * hid)
        acts = np.empty_like(gi)                             # i, f, g, o after their activations
        hs = np.zeros((steps + 1, n, hid), np.float32)
        cs = np.zeros((steps + 1, n, hid), np.float32)
        tanh_c = np.empty((steps, n, hid), np.float32)
        for t in range(steps):
            a = acts[t]
            np.matmul(hs[t], w_hh.T, out=a)
            a += gi[t]
            a[:, :2 * hid] = _sigmoid(a[:, :2 * hid])
            a[:, 3 * hid:] = _sigmoid(a[:, 3 * hid:])
            np.tanh(a[:, 2 * hid:3 * hid], out=a[:, 2 * hid:3 * hid])
            i, f, g, o = (a[:, k * hid:(k + 1) * hid] for k in range(4))
            np.multiply(f, cs[t], out=cs[t + 1])
            cs[t + 1] += i * g
            np.tanh(cs[t + 1], out=tanh_c[t])
            np.multiply(o, tanh_c[t], out=hs[t + 1])
        z = hs[steps] @ w_fc.T + b_fc
        shifted = z - z.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        s = e.sum(axis=1, keepdims=True)
        rows = np.arange(n)
        loss = (np.log(s[:, 0]) - shifted[rows, labels]).mean()
        dz = e / s
        dz[rows, labels] -= 1
        dz /= n
        d_wfc, d_bfc = dz.T @ hs[steps], dz.sum(0)
        dh = dz @ w_fc
        dc = np.zeros((n, hid), np.float32)
        dgates = np.empty_like(gi)
        for t in range(steps - 1, -1, -1):
            a = acts[t]
            i, f, g, o = (a[:, k * hid:(k + 1) * hid] for k in range(4))
            d = dgates[t]
            d[:, 3 * hid:] = dh * tanh_c[t] * o * (1 - o)
            dc += dh * o * (1 - tanh_c[t] * tanh_c[t])
            d[:, :hid] = dc * g * i * (1 - i)
            d[:, hid:2 * hid] = dc * cs[t] * f * (1 - f)
            d[:, 2 * hid:3 * hid] = dc * i * (1 - g * g)
            dc *= f
            dh = d @ w_hh
        flat = dgates.reshape(steps * n, -1)
        d_whh = flat.T @ hs[:steps].reshape(steps * n, hid)
        d_b = flat.sum(0)
        d_wih = flat.T @ x.reshape(steps * n, -1)
        dx = (flat @ w_ih).reshape(steps, n, -1)
        d_table = np.zeros_like(table)
        np.add.at(d_table, ids.T, dx)
        self.t += 1
        step = lr * np.sqrt(1 - b2 ** self.t) / (1 - b1 ** self.t)
        for p, g, m, v in zip(self.params, (d_table, d_wih, d_whh, d_b, d_b, d_wfc, d_bfc), self.m, self.v):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= step * m / (np.sqrt(v) + eps)
        return loss


def numpy_matmul_ms(rounds=7, number=200):
    """A fixed NumPy unit (a 32x128 @ 128x512 product) in ms, to relate runs on a loaded machine."""
    import time
    a = np.ones((32, 128), np.float32)
    b = np.ones((128, 512), np.float32)
    best = None
    for _ in range(rounds):
        t0 = time.process_time()
        for _ in range(number):
            a @ b
        t = (time.process_time() - t0) / number * 1e3
        best = t if best is None else min(best, t)
    return best


def bench_lstm(report, rounds=7):
    from mscustom.ops import _loop_loader
    from mscustom.ops.nn import rnn_loops as _rnn_loops
    _loop_loader.load()                 # the steady state: every Numba loop loaded before timing
    _rnn_loops.get()
    ids, labels = lstm_data()
    it, lt = ms.Tensor(ids), ms.Tensor(labels)
    eager_step, eager_params = mscustom_step(ms.PYNATIVE_MODE)
    graph_step, graph_params = mscustom_step(ms.GRAPH_MODE)
    hand = NumpyLSTMStep([p.asnumpy().copy() for p in eager_params])
    for _ in range(3):                  # the same three steps three ways give the same weights
        ms.set_context(mode=ms.PYNATIVE_MODE)
        loss_e = float(eager_step(it, lt).asnumpy())
        ms.set_context(mode=ms.GRAPH_MODE)
        loss_g = float(graph_step(it, lt).asnumpy())
        loss_np = float(hand(ids, labels))
    for loss in (loss_e, loss_g):
        assert abs(loss - loss_np) < 1e-4 * max(1.0, abs(loss_np)), (loss_e, loss_g, loss_np)
    for pe, pg, h in zip(eager_params, graph_params, hand.params):
        assert np.allclose(pe.asnumpy(), h, rtol=1e-3, atol=1e-5)
        assert np.allclose(pg.asnumpy(), h, rtol=1e-3, atol=1e-5)
    t = _interleaved_ms({"np": (lambda: hand(ids, labels), 5),
                         "eager": (lambda: eager_step(it, lt), 5, lambda: ms.set_context(mode=ms.PYNATIVE_MODE)),
                         "graph": (lambda: graph_step(it, lt), 5, lambda: ms.set_context(mode=ms.GRAPH_MODE))},
                        rounds=rounds)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    t_np, t_eager, t_graph = t["np"], t["eager"], t["graph"]
    unit = numpy_matmul_ms()
    print(f"{'':<46} NumPy unit (32x128 @ 128x512) {unit * 1e3:.1f} us; step / unit: graph "
          f"{t_graph / unit:.0f}, eager {t_eager / unit:.0f}, by hand {t_np / unit:.0f}")
    report("LSTM text step (Adam, batch 32, seq 32), graph", t_graph, "ms", "NumPy step by hand", t_np,
           "<= 1.0x by hand", t_graph <= 1.0 * t_np)
    report("LSTM text step (Adam, batch 32, seq 32), eager", t_eager, "ms", "NumPy step by hand", t_np,
           "<= 1.3x by hand", t_eager <= 1.3 * t_np)


if __name__ == "__main__":
    def _print(name, value, unit, base_name, base, target, ok):
        print(f"{name:<46} {value:>9.3g} {unit:<3} | {base_name:<24} {base:>9.3g} | {target} "
              f"{'ok' if ok else 'MISSED'} ({value / base:.2f}x)")
    with threadpool_limits(1):
        bench_lstm(_print)
