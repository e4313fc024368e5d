"""The Transformer encoder layer training step: mscustom eager and graph mode, against NumPy's GEMM floor.

One step: ``nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0, batch_first=True)`` in training
mode on a (16, 64, 128) float32 batch, loss ``mean(y * y)``, gradients of every Parameter,
``nn.AdamW`` update. Times are process CPU time per step with BLAS on one thread, measured in
alternating rounds with the baseline (the fastest batch of each), so a shared machine's slow
phases hit every candidate alike. The baseline is ``transformer_baseline.gemm_floor``: the step's
17 matrix products alone in NumPy.

``--peer PYTHON`` also times PyTorch eager and ``torch.compile`` on the same step (``peer_torch_transformer.py``, run by
that interpreter in its own process, alternating with this one's rounds): its absolute time and
its ratio to the GEMM floor measured in its own process.

    .venv/bin/python bench/transformer_bench.py [--peer /path/to/torch-venv/bin/python] [--rounds 5]
"""

import argparse
import os
import subprocess
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import mscustom as ms  # noqa: E402
from mscustom import nn  # noqa: E402
from transformer_baseline import BATCH, D_MODEL, FFN, HEADS, SEQ, gemm_floor, gemm_operands  # noqa: E402


def _step(mode, dropout=0.0):
    ms.set_context(mode=mode)
    ms.set_seed(0)
    layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, FFN, dropout=dropout, batch_first=True)
    layer.set_train()
    opt = nn.AdamW(layer.trainable_params(), 1e-3)

    def forward(x):
        y = layer(x)
        return (y * y).mean()

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)

    def step(x):
        loss, grads = grad_fn(x)
        opt(grads)
        return loss

    return ms.jit(step) if mode == ms.GRAPH_MODE else step


def _batch_ms(fn, steps):
    t0 = time.process_time()
    for _ in range(steps):
        fn()
    return (time.process_time() - t0) / steps * 1e3


def _peer(python, steps, dropout, compile_=False):
    out = subprocess.run([python, os.path.join(HERE, "peer_torch_transformer.py"), "--rounds", "1",
                          "--steps", str(steps), "--dropout", str(dropout)] + (["--compile"] if compile_ else []),
                         capture_output=True, text=True, check=True)
    torch_ms, floor_ms = (float(v) for v in out.stdout.split()[-2:])
    return torch_ms, floor_ms


def main(rounds=5, steps=5, peer=None, dropout=0.0):
    x = ms.Tensor(np.random.default_rng(0).standard_normal((BATCH, SEQ, D_MODEL)).astype(np.float32))
    eager = _step(ms.PYNATIVE_MODE, dropout)
    graph = _step(ms.GRAPH_MODE, dropout)
    operands = gemm_operands()
    cands = {"floor": (lambda: gemm_floor(operands), None),
             "eager": (lambda: eager(x), ms.PYNATIVE_MODE),
             "graph": (lambda: graph(x), ms.GRAPH_MODE)}
    best, peer_best = {}, {}
    with threadpool_limits(1):
        for name, (fn, mode) in cands.items():      # warm: graph records, plans are made
            if mode is not None:
                ms.set_context(mode=mode)
            fn()
            fn()
        for _ in range(rounds):
            for name, (fn, mode) in cands.items():
                if mode is not None:
                    ms.set_context(mode=mode)
                t = min(_batch_ms(fn, steps) for _ in range(2))
                best[name] = min(best.get(name, t), t)
            if peer:
                t_torch, t_floor = _peer(peer, steps, dropout)
                peer_best["torch"] = min(peer_best.get("torch", t_torch), t_torch)
                peer_best["floor"] = min(peer_best.get("floor", t_floor), t_floor)
                t_comp, t_floor = _peer(peer, steps, dropout, compile_=True)
                peer_best["compile"] = min(peer_best.get("compile", t_comp), t_comp)
                peer_best["floor_c"] = min(peer_best.get("floor_c", t_floor), t_floor)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    floor = best["floor"]
    title = f"Transformer encoder layer step (16x64x128, 4 heads, FFN 512, AdamW, dropout {dropout})"
    print(title)
    print(f"  NumPy GEMM floor          {floor:8.2f} ms")
    for name in ("eager", "graph"):
        print(f"  mscustom {name:<16} {best[name]:8.2f} ms   {best[name] / floor:5.2f}x floor")
    if peer_best:
        t = peer_best["torch"]
        print(f"  torch eager (own process) {t:8.2f} ms   {t / peer_best['floor']:5.2f}x its floor "
              f"({peer_best['floor']:.2f} ms)")
        tc = peer_best["compile"]
        print(f"  torch.compile (own proc.) {tc:8.2f} ms   {tc / peer_best['floor_c']:5.2f}x its floor "
              f"({peer_best['floor_c']:.2f} ms)")
        for name in ("eager", "graph"):
            print(f"  mscustom {name} / torch eager: {best[name] / t:.2f}x, / torch.compile: {best[name] / tc:.2f}x "
                  f"(absolute CPU times); through the floors: {best[name] / floor / (t / peer_best['floor']):.2f}x, "
                  f"{best[name] / floor / (tc / peer_best['floor_c']):.2f}x")
    return best, peer_best


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--peer", help="a Python with torch: time torch eager in its own process")
    parser.add_argument("--dropout", type=float, default=0.0)
    opts = parser.parse_args()
    main(opts.rounds, opts.steps, opts.peer, opts.dropout)
