"""The LSTM text step of ``bench/lstm_bench.py`` in PyTorch eager mode, with the same NumPy unit.

PyTorch is not a dependency of mscustom: run this with an interpreter that has torch and numpy::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 ~/torch-oracle/bin/python bench/peer_torch_lstm.py

It prints torch's CPU time per step (Embedding 1000x64, LSTM 64->128 batch_first, Dense 128->10 on
the last step's output, cross entropy, Adam lr 1e-3, batch 32 of 32 ids; one thread, the fastest of
alternating rounds) and the time of the NumPy unit ``lstm_bench.py`` prints (a 32x128 @ 128x512
product), so the two scripts' figures relate through it when the machine's load differs between
runs. Compare absolute CPU times of alternating runs too: NumPy itself is slower inside a process
that loaded torch (its OpenMP runtime).
"""

import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

VOCAB, EMBED, HIDDEN, CLASSES, BATCH, STEPS = 1000, 64, 128, 10, 32, 32


class TextLSTM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, EMBED)
        self.lstm = torch.nn.LSTM(EMBED, HIDDEN, batch_first=True)
        self.fc = torch.nn.Linear(HIDDEN, CLASSES)

    def forward(self, ids):
        out, _ = self.lstm(self.embed(ids))
        return self.fc(out[:, -1])


def _ms_per_step(fn, steps):
    t0 = time.process_time()
    for _ in range(steps):
        fn()
    return (time.process_time() - t0) / steps * 1e3


def main(rounds=7, steps=5):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(5)
    ids = torch.tensor(rng.integers(0, VOCAB, (BATCH, STEPS)).astype(np.int64))
    labels = torch.tensor(rng.integers(0, CLASSES, BATCH).astype(np.int64))
    net = TextLSTM()
    opt = torch.optim.Adam(net.parameters(), 1e-3)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(net(ids), labels)
        loss.backward()
        opt.step()
        return loss

    a = np.ones((32, 128), np.float32)
    b = np.ones((128, 512), np.float32)

    def unit():
        for _ in range(200):
            a @ b

    for _ in range(3):
        step()
    best_t, best_u = [], []
    for _ in range(rounds):
        best_t.append(_ms_per_step(step, steps))
        best_u.append(_ms_per_step(unit, 1) / 200)
    t, u = min(best_t), min(best_u)
    print(f"torch {torch.__version__} eager LSTM text step: {t:.2f} ms (rounds: "
          + ", ".join(f"{r:.2f}" for r in best_t) + f"); NumPy unit {u * 1e3:.1f} us; step / unit {t / u:.0f}")
    return t


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
