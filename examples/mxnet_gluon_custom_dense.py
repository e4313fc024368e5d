"""MXNet's custom-op tutorial, Gluon half: a dense layer whose computation is a NumPy CustomOp.

The tutorial ("Creating custom operators with numpy", the operator with
Parameters) registers an op type ``dense`` taking ``data`` and ``weight`` and
a constant ``bias`` passed as a string keyword, and wraps it in a
``gluon.Block`` that owns the weight Parameter and calls
``mx.nd.Custom(x, weight, bias=..., op_type='dense')``. Written again in our
words here, with a HybridBlock variant calling ``F.Custom`` (hybridized, its
inference calls replay the recorded kernel calls), and a few steps of
training with ``gluon.Trainer``: the losses are MXNet 1.9.1's for the same
initial weights (``tests/test_compat_mxnet_gluon.py`` checks them).

    python examples/mxnet_gluon_custom_dense.py [--steps 5]
"""

import argparse

import numpy as np

from mscustom.compat import mxnet as mx
from mscustom.compat.mxnet import autograd, gluon


class DenseOp(mx.operator.CustomOp):
    """``y = x @ weight.T + bias`` with a constant scalar bias."""

    def __init__(self, bias):
        super().__init__()
        self.bias = bias

    def forward(self, is_train, req, in_data, out_data, aux):
        x, w = in_data[0].asnumpy(), in_data[1].asnumpy()
        self.assign(out_data[0], req[0], mx.nd.array(x.dot(w.T) + self.bias))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        x, w = in_data[0].asnumpy(), in_data[1].asnumpy()
        dy = out_grad[0].asnumpy()
        self.assign(in_grad[0], req[0], mx.nd.array(dy.dot(w)))       # d/dx
        self.assign(in_grad[1], req[1], mx.nd.array(dy.T.dot(x)))     # d/dweight


@mx.operator.register("tutorial_dense")
class DenseOpProp(mx.operator.CustomOpProp):
    def __init__(self, bias):
        super().__init__(need_top_grad=True)
        self.bias = float(bias)                 # keywords arrive as strings, as in MXNet

    def list_arguments(self):
        return ["data", "weight"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        data, weight = in_shape
        return [data, weight], [[data[0], weight[0]]], []

    def create_operator(self, ctx, shapes, dtypes):
        return DenseOp(self.bias)


class CustomDense(gluon.Block):
    """The tutorial's block: owns ``weight`` (channels, in_channels) and runs the custom op imperatively."""

    def __init__(self, in_channels, channels, bias, **kwargs):
        super().__init__(**kwargs)
        self._bias = bias
        self.weight = self.params.get("weight", shape=(channels, in_channels))

    def forward(self, x):
        return mx.nd.Custom(x, self.weight.data(x.context), bias=self._bias, op_type="tutorial_dense")


class HybridCustomDense(gluon.HybridBlock):
    """The same layer as a HybridBlock: ``F.Custom`` in ``hybrid_forward``."""

    def __init__(self, in_channels, channels, bias, **kwargs):
        super().__init__(**kwargs)
        self._bias = bias
        self.weight = self.params.get("weight", shape=(channels, in_channels))

    def hybrid_forward(self, F, x, weight):
        return F.Custom(x, weight, bias=self._bias, op_type="tutorial_dense")


def problem(n=32, d=3, k=4, seed=0):
    """Inputs, integer labels and an initial weight, all from one seeded NumPy generator."""
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, (n, d)).astype(np.float32)
    labels = (x[:, 0] > 0).astype(np.float32) + 2 * (x[:, 1] > 0)
    w0 = rng.normal(0, 0.5, (k, d)).astype(np.float32)
    return x, labels, w0


def train(block_cls=CustomDense, steps=5, batch_size=8, lr=0.5, hybridize=False):
    """Train the custom dense layer with SoftmaxCrossEntropyLoss and SGD; returns the mean loss of each step."""
    x, labels, w0 = problem()
    net = block_cls(x.shape[1], w0.shape[0], 0.1)
    net.initialize()
    net.weight.set_data(mx.nd.array(w0))
    if hybridize:
        net.hybridize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": lr})
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(x, labels), batch_size=batch_size)
    losses = []
    step = 0
    while step < steps:
        for data, label in loader:
            with autograd.record():
                loss = loss_fn(net(data), label)
            loss.backward()
            trainer.step(data.shape[0])
            losses.append(float(loss.mean().asscalar()))
            step += 1
            if step == steps:
                break
    return losses, net


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args(argv)
    dense = CustomDense(3, 5, 0.1)
    dense.initialize()
    print(dense(mx.nd.uniform(shape=(4, 3))))              # the tutorial's first call
    losses, net = train(steps=args.steps)
    print("loss per step:", " ".join(f"{v:.6f}" for v in losses))
    hybrid, _ = train(HybridCustomDense, steps=args.steps, hybridize=True)
    print("hybridized:   ", " ".join(f"{v:.6f}" for v in hybrid))
    if not losses[-1] < losses[0]:
        raise SystemExit(f"the loss did not decrease: {losses}")


if __name__ == "__main__":
    main()
