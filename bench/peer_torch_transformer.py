"""The Transformer encoder layer step of ``bench/transformer_bench.py`` in PyTorch eager mode.

PyTorch is not a dependency of mscustom: run this with an interpreter that has torch and numpy
(``transformer_bench.py --peer PYTHON`` does, alternating with its own rounds). The step:
``torch.nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0, batch_first=True)`` in training mode
on a (16, 64, 128) float32 batch, loss ``mean(y * y)``, ``torch.optim.AdamW`` (lr 1e-3), one
thread. Prints the step's CPU time and the NumPy GEMM floor measured in this process, in ms.
``--compile``: the layer and the loss go through ``torch.compile`` (inductor; forward and backward
compiled, the optimizer eager), compiled before the timed rounds.
"""

import argparse
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from transformer_baseline import BATCH, D_MODEL, FFN, HEADS, SEQ, gemm_floor, gemm_operands  # noqa: E402


def _batch_ms(fn, steps):
    t0 = time.process_time()
    for _ in range(steps):
        fn()
    return (time.process_time() - t0) / steps * 1e3


def make_step(dropout=0.0, compile_=False):
    """The Transformer encoder layer's AdamW training step (torch eager, or torch.compile)."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(D_MODEL, HEADS, FFN, dropout=dropout, batch_first=True)
    layer.train()
    opt = torch.optim.AdamW(layer.parameters(), 1e-3)
    x = torch.tensor(np.random.default_rng(0).standard_normal((BATCH, SEQ, D_MODEL)).astype(np.float32))

    def forward(inp):
        y = layer(inp)
        return (y * y).mean()

    if compile_:
        forward = torch.compile(forward)

    def step():
        loss = forward(x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return step


def main(rounds, steps, dropout=0.0, compile_=False):
    torch.set_num_threads(1)
    step = make_step(dropout, compile_)
    operands = gemm_operands()
    for _ in range(3):
        step()
        gemm_floor(operands)
    best_t = best_f = float("inf")
    for _ in range(rounds):
        best_t = min(best_t, min(_batch_ms(step, steps) for _ in range(2)))
        best_f = min(best_f, min(_batch_ms(lambda: gemm_floor(operands), steps) for _ in range(2)))
    print(f"{best_t:.4f} {best_f:.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--compile", action="store_true", help="time torch.compile instead of eager")
    opts = parser.parse_args()
    main(opts.rounds, opts.steps, opts.dropout, opts.compile)
