"""One training step built twice, in PyNative and in graph mode, run side by side: the replay must give the
eager values bit for bit (used by the graph-mode kernel tests)."""

import numpy as np

import mscustom as ms
from mscustom import nn


def step_pair(make_net, make_optimizer, params=lambda net: net.trainable_params()):
    """``(steps, nets)``: a ``TrainOneStepCell`` with sparse softmax cross entropy in PyNative and one in
    graph mode, the graph net starting from a copy of the eager net's ``params``."""
    steps, nets = [], []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = make_net()
        if nets:
            for p, q in zip(params(net), params(nets[0])):
                p.set_data(ms.Tensor(q.asnumpy().copy()))
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), make_optimizer(net.trainable_params()))
        step.set_train()
        steps.append(step)
        nets.append(net)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return steps, nets


def run_pair(steps, nets, x, y, times, params=lambda net: net.trainable_params()):
    """Run both steps ``times`` times: equal losses at every step, then equal ``params``."""
    try:
        for _ in range(times):
            ms.set_context(mode=ms.PYNATIVE_MODE)
            le = steps[0](x, y).asnumpy()
            ms.set_context(mode=ms.GRAPH_MODE)
            lg = steps[1](x, y).asnumpy()
            np.testing.assert_array_equal(lg, le)
        for p, q in zip(params(nets[0]), params(nets[1])):
            np.testing.assert_array_equal(p.asnumpy(), q.asnumpy(), err_msg=p.name)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def the_record(step):
    """The graph step's one record (its first variant)."""
    (variants,) = step.__dict__["_graph_fn"].records.values()
    return variants[0]
