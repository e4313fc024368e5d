"""Hand-written NumPy baselines shared by the benchmarks (bench/run.py, bench/graph_bench.py)."""

import numpy as np


def numpy_mlp_step(params, x, labels, lr):
    """One SGD step of the 784-256-128-10 MLP written by hand in NumPy (float32, in place).

    Same math as ``nn.Dense`` x3 (relu, relu, none), ``SoftmaxCrossEntropyWithLogits(sparse=True,
    reduction="mean")`` and ``nn.SGD``: weights are (out, in), the products use transposed views
    (BLAS reads them without copies), the softmax is shifted by the row maximum. Returns the loss.
    """
    w1, b1, w2, b2, w3, b3 = params
    n = x.shape[0]
    h1 = x @ w1.T + b1
    a1 = np.maximum(h1, 0)
    h2 = a1 @ w2.T + b2
    a2 = np.maximum(h2, 0)
    z = a2 @ w3.T + b3
    shifted = z - z.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    s = e.sum(axis=1, keepdims=True)
    rows = np.arange(n)
    loss = (np.log(s[:, 0]) - shifted[rows, labels]).mean()
    dz = e / s
    dz[rows, labels] -= 1
    dz /= n
    dw3, db3 = dz.T @ a2, dz.sum(0)
    dh2 = (dz @ w3) * (h2 > 0)
    dw2, db2 = dh2.T @ a1, dh2.sum(0)
    dh1 = (dh2 @ w2) * (h1 > 0)
    dw1, db1 = dh1.T @ x, dh1.sum(0)
    for p, g in zip(params, (dw1, db1, dw2, db2, dw3, db3)):
        g *= lr
        p -= g
    return loss
