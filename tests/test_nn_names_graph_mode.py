"""nn names whose host-side arrays depend on input values (unpool maps, pooling indices, CTC masks, field maps,
sparse maps) and the loss-scale step: GRAPH_MODE gives the PyNative results on changing inputs."""

import warnings

import numpy as np

import mscustom as ms
from mscustom import nn


def _results():
    out = []
    u = nn.MaxUnpool1d(2)
    x = ms.Tensor(np.array([[[0.5, -1.0]]], np.float32))
    for idx in ([[[1, 2]]], [[[0, 3]]]):
        out.append(u(x, ms.Tensor(np.array(idx, np.int64))).asnumpy().tolist())
    m = nn.MaxPool3d(2, 2, pad_mode="pad", return_indices=True)
    for sign in (1, -1):
        out.append(m(ms.Tensor(sign * np.arange(8, dtype=np.float32).reshape(1, 1, 2, 2, 2)))[1].asnumpy().tolist())
    lp = ms.Tensor((lambda a: a - np.log(np.exp(a).sum(-1, keepdims=True)))(
        np.sin(np.arange(5 * 2 * 4) * 0.9).reshape(5, 2, 4).astype(np.float32) * 2))
    ctc = nn.CTCLoss(reduction="none")
    for tg in ([[1, 2], [3, 1]], [[2, 2], [1, 3]]):
        out.append(ctc(lp, ms.Tensor(np.array(tg, np.int32)), ms.Tensor(np.array([5, 4], np.int32)),
                       ms.Tensor(np.array([2, 1], np.int32))).asnumpy().round(5).tolist())
    mf = nn.MultiFieldEmbeddingLookup(8, 3, 3, param_init=ms.Tensor(np.cos(np.arange(24) * 0.4).reshape(8, 3)
                                                                    .astype(np.float32)))
    for f in ([[0, 1]], [[2, 2]]):
        out.append(mf(ms.Tensor(np.array([[1, 3]], np.int32)), ms.Tensor(np.array([[1.0, 0.5]], np.float32)),
                      ms.Tensor(np.array(f, np.int32))).asnumpy().round(5).tolist())
    s = nn.SparseTensorDenseMatmul()
    for idx in ([[0, 1], [1, 2]], [[1, 0], [0, 2]]):
        out.append(s(ms.Tensor(np.array(idx, np.int32)), ms.Tensor(np.array([1.0, 2.0], np.float32)), (2, 3),
                     ms.Tensor(np.arange(6).reshape(3, 2).astype(np.float32))).asnumpy().tolist())
    net = nn.Dense(2, 1, weight_init=ms.Tensor(np.array([[0.5, -0.25]], np.float32)), bias_init="zeros")
    step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
                                            scale_sense=nn.DynamicLossScaleUpdateCell(1024.0, 2, 2))
    good = ms.Tensor(np.array([[1.0, 2.0]], np.float32))
    bad = ms.Tensor(np.array([[np.inf, 2.0]], np.float32))
    y = ms.Tensor(np.array([[1.0]], np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for xx in (good, bad, good, good):
            _, overflow, _ = step(xx, y)
            out.append((bool(overflow.asnumpy()), float(step.scale_sense.asnumpy()),
                        net.weight.asnumpy().round(5).tolist()))
    return out


def test_graph_mode_matches_pynative():
    before = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        eager = _results()
        ms.set_context(mode=ms.GRAPH_MODE)
        graph = _results()
    finally:
        ms.set_context(mode=before)
    assert graph == eager
    assert eager[-1][1] == 1024.0 and eager[-3][0] and eager[-3][1] == 512.0
