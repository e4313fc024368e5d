"""The NumPy baseline of the Transformer encoder layer step (bench/transformer_bench.py and its torch peer).

``gemm_floor`` runs only the step's matrix products, forward and backward, with the step's shapes
(batch 16, sequence 64, d_model 128, 4 heads, feed-forward 512, float32): the in-projection, the
per-head scores and weighted sum, the out-projection, the two feed-forward layers, and their
gradients (the input's own gradient excepted: the step's input is data). It is the floor any
framework's step pays on the same BLAS; ratios to it compare runs on machines of different speed.
NumPy only, so the torch peer process measures the same floor.
"""

import numpy as np

BATCH, SEQ, D_MODEL, HEADS, FFN = 16, 64, 128, 4, 512


def gemm_operands(seed=0):
    """The arrays ``gemm_floor`` multiplies (float32, C-contiguous, fixed values)."""
    rng = np.random.default_rng(seed)
    t, e, f, bh, hd = BATCH * SEQ, D_MODEL, FFN, BATCH * HEADS, D_MODEL // HEADS

    def arr(*shape):
        return (rng.standard_normal(shape) * 0.1).astype(np.float32)

    return {"x": arr(t, e), "w_in": arr(3 * e, e), "q": arr(bh, SEQ, hd), "k": arr(bh, SEQ, hd),
            "v": arr(bh, SEQ, hd), "p": arr(bh, SEQ, SEQ), "w_out": arr(e, e), "w1": arr(f, e), "w2": arr(e, f),
            "h": arr(t, f), "dy": arr(t, e), "dh": arr(t, f), "dqkv": arr(t, 3 * e), "do": arr(bh, SEQ, hd)}


def gemm_floor(a):
    """The 17 products of one step (6 forward, 11 backward); returns the last so nothing is skipped."""
    x = a["x"]
    a["x"] @ a["w_in"].T                                # in-projection (T, 3E)
    a["q"] @ np.swapaxes(a["k"], -1, -2)                # scores (BH, L, L)
    a["p"] @ a["v"]                                     # weights @ values (BH, L, D)
    x @ a["w_out"].T                                    # out-projection
    x @ a["w1"].T                                       # feed-forward in (T, F)
    a["h"] @ a["w2"].T                                  # feed-forward out (T, E)
    a["dy"] @ a["w2"]                                   # d hidden
    a["dy"].T @ a["h"]                                  # d w2
    a["dh"] @ a["w1"]                                   # d x1
    a["dh"].T @ x                                       # d w1
    a["dy"] @ a["w_out"]                                # d attention output
    a["dy"].T @ x                                       # d w_out
    a["do"] @ np.swapaxes(a["v"], -1, -2)               # d weights
    np.swapaxes(a["p"], -1, -2) @ a["do"]               # d values
    a["p"] @ a["k"]                                     # d queries
    np.swapaxes(a["p"], -1, -2) @ a["q"]                # d keys
    return a["dqkv"].T @ x                              # d w_in
