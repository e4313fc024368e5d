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


def _np_windows(a, k):
    """(C, N, oH, oW, k, k) windows of a (C, N, H, W) array, stride 1 (a view)."""
    return np.lib.stride_tricks.sliding_window_view(a, (k, k), axis=(2, 3))


def _np_pool2(a):
    """2x2 stride-2 max pooling of a (C, N, H, W) array (odd edges dropped): the maximum of the four
    strided taps (NumPy's multi-axis ``max`` of a reshaped view is several times slower)."""
    oh, ow = a.shape[2] // 2, a.shape[3] // 2
    taps = [a[:, :, i:2 * oh:2, j:2 * ow:2] for i in (0, 1) for j in (0, 1)]
    return np.maximum(np.maximum(taps[0], taps[1]), np.maximum(taps[2], taps[3])), taps


def _np_pool2_back(taps, pooled, dp, shape):
    """The gradient of ``_np_pool2``: ``dp`` routed to every tap equal to its window's maximum.

    Ties route to each tied element; after a ReLU the only ties of a float window are zeros,
    whose ReLU gradient is zero, so the step's result equals first-maximum routing.
    """
    oh, ow = pooled.shape[2:]
    out = np.zeros(shape, dp.dtype)
    for k, (i, j) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
        np.multiply(taps[k] == pooled, dp, out=out[:, :, i:2 * oh:2, j:2 * ow:2])
    return out


def numpy_lenet_step(params, x, labels, lr):
    """One SGD step of the LeNet-like net written by hand in NumPy (float32, in place).

    conv 3x3 1->16 + bias, relu, 2x2 max pool, conv 3x3 16->32 + bias, relu, 2x2 max pool, dense
    800->10, softmax cross entropy (mean), SGD: the ``nn`` layers of ``bench/graph_bench.py``
    (pad_mode "valid"). The activations are kept channels-first (C, N, H, W) so every
    convolution is one im2col copy and one BLAS product with no transposes in between; the
    input's own gradient is not computed. Returns the loss.
    """
    w1, b1, w2, b2, w3, b3 = params
    n = x.shape[0]
    xc = x.transpose(1, 0, 2, 3)                                       # (1, N, 28, 28)
    cols1 = _np_windows(xc, 3).transpose(0, 4, 5, 1, 2, 3).reshape(9, -1)
    h1 = (w1.reshape(16, -1) @ cols1).reshape(16, n, 26, 26)
    h1 += b1[:, None, None, None]
    a1 = np.maximum(h1, 0)
    p1, crop1 = _np_pool2(a1)                                          # (16, N, 13, 13)
    cols2 = _np_windows(p1, 3).transpose(0, 4, 5, 1, 2, 3).reshape(144, -1)
    w2m = w2.reshape(32, -1)
    h2 = (w2m @ cols2).reshape(32, n, 11, 11)
    h2 += b2[:, None, None, None]
    a2 = np.maximum(h2, 0)
    p2, crop2 = _np_pool2(a2)                                          # (32, N, 5, 5)
    f = p2.transpose(1, 0, 2, 3).reshape(n, -1)                        # NCHW flatten, (N, 800)
    z = f @ w3.T + b3
    shifted = z - z.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    s = e.sum(axis=1, keepdims=True)
    rows = np.arange(n)
    loss = (np.log(s[:, 0]) - shifted[rows, labels]).mean()
    dz = e / s
    dz[rows, labels] -= 1
    dz /= n
    dw3, db3 = dz.T @ f, dz.sum(0)
    dp2 = (dz @ w3).reshape(n, 32, 5, 5).transpose(1, 0, 2, 3)
    dh2 = _np_pool2_back(crop2, p2, dp2, h2.shape)
    dh2 *= h2 > 0
    dh2m = dh2.reshape(32, -1)
    dw2, db2 = (dh2m @ cols2.T).reshape(w2.shape), dh2m.sum(1)
    dcols2 = (w2m.T @ dh2m).reshape(16, 3, 3, n, 11, 11)
    dp1 = np.zeros(p1.shape, np.float32)
    for i in range(3):
        for j in range(3):
            dp1[:, :, i:i + 11, j:j + 11] += dcols2[:, i, j]
    dh1 = _np_pool2_back(crop1, p1, dp1, h1.shape)
    dh1 *= h1 > 0
    dh1m = dh1.reshape(16, -1)
    dw1, db1 = (dh1m @ cols1.T).reshape(w1.shape), dh1m.sum(1)
    for p, g in zip(params, (dw1, db1, dw2, db2, dw3, db3)):
        g *= lr
        p -= g
    return loss
