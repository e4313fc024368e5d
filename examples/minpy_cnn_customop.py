"""minpy's custom-op CNN example, run on mscustom with only the imports changed.

minpy's ``examples/nn/cnn_customop.py`` (rewritten in our words, on 8x8 digits
instead of CIFAR-10): the convolution part is an MXNet symbol
(``Convolution`` -> ``Activation`` -> ``Pooling`` -> ``Flatten``) used as a
minpy ``Function``; the classifier is ``layers.affine`` / ``layers.relu``
written with ``minpy.numpy``; the loss is the ``@customop('numpy')`` softmax of
minpy's documentation with its ``def_grad``; minpy's ``Solver`` trains it
with ``sgd_momentum``.

Data: scikit-learn's 8x8 digits (``pip install mscustom[demo]``), or synthetic
clusters when scikit-learn is absent. Exits non-zero below the stated
validation accuracy (0.85 on digits).

    python examples/minpy_cnn_customop.py [--epochs 4] [--limit N]
"""

import argparse
import sys

import numpy

import mscustom.compat.minpy.numpy as np
from mscustom.compat import mxnet as mx
from mscustom.compat.minpy.core import Function
from mscustom.compat.minpy.nn import layers
from mscustom.compat.minpy.nn.io import NDArrayIter
from mscustom.compat.minpy.nn.model import ModelBase
from mscustom.compat.minpy.nn.solver import Solver
from mscustom.compat.minpy.primitive import customop

batch_size = 32
input_size = (1, 8, 8)
hidden_size = 64
num_classes = 10


@customop("numpy")
def my_softmax(x, y):
    probs = numpy.exp(x - numpy.max(x, axis=1, keepdims=True))
    probs /= numpy.sum(probs, axis=1, keepdims=True)
    n = x.shape[0]
    return -numpy.sum(numpy.log(probs[numpy.arange(n), y])) / n


def my_softmax_grad(ans, x, y):
    def grad(g):
        n = x.shape[0]
        probs = numpy.exp(x - numpy.max(x, axis=1, keepdims=True))
        probs /= numpy.sum(probs, axis=1, keepdims=True)
        probs[numpy.arange(n), y] -= 1
        probs /= n
        return probs * g
    return grad


my_softmax.def_grad(my_softmax_grad)


class ConvolutionNet(ModelBase):
    def __init__(self):
        super(ConvolutionNet, self).__init__()
        net = mx.sym.Variable(name="X")
        net = mx.sym.Convolution(data=net, name="conv", kernel=(3, 3), num_filter=16)
        net = mx.sym.Activation(data=net, act_type="relu")
        net = mx.sym.Pooling(data=net, name="pool", pool_type="max", kernel=(2, 2), stride=(2, 2))
        net = mx.sym.Flatten(data=net)
        self.conv = Function(net, input_shapes={"X": (batch_size,) + input_size}, name="conv")
        self.add_params(self.conv.get_params())
        conv_out_size = self.conv.get_one_output_shape()[1]
        self.add_param(name="w1", shape=(conv_out_size, hidden_size)) \
            .add_param(name="b1", shape=(hidden_size,)) \
            .add_param(name="w2", shape=(hidden_size, num_classes)) \
            .add_param(name="b2", shape=(num_classes,))

    def forward(self, X, mode):
        out = self.conv(X=X, **self.params)
        out = layers.affine(out, self.params["w1"], self.params["b1"])
        out = layers.relu(out)
        return layers.affine(out, self.params["w2"], self.params["b2"])

    def loss(self, predict, y):
        return my_softmax(predict, y)


def load_data(limit=None, seed=0):
    rng = numpy.random.default_rng(seed)
    try:
        from sklearn.datasets import load_digits
        d = load_digits()
        x, y, source = d.images.astype(numpy.float64) / 16.0, d.target.astype(numpy.int64), "digits"
    except ImportError:
        centers = rng.normal(0, 1, (10, 8, 8))
        y = rng.integers(0, 10, 1797)
        x, source = centers[y] + 0.8 * rng.normal(0, 1, (1797, 8, 8)), "synthetic"
    order = rng.permutation(len(x))[:limit]
    x, y = x[order][:, None], y[order]
    cut = int(0.8 * len(x))
    return x[:cut], y[:cut], x[cut:], y[cut:], source


def train(epochs=4, limit=None, seed=0, verbose=False):
    """Train the CNN; returns (best validation accuracy, data source)."""
    numpy.random.seed(seed)
    x_tr, y_tr, x_va, y_va, source = load_data(limit, seed)
    model = ConvolutionNet()
    solver = Solver(model, NDArrayIter(x_tr, y_tr, batch_size=batch_size, shuffle=True),
                    NDArrayIter(x_va, y_va, batch_size=batch_size, shuffle=False),
                    num_epochs=epochs, init_rule="gaussian", init_config={"stdvar": 0.1},
                    update_rule="sgd_momentum", optim_config={"learning_rate": 5e-2, "momentum": 0.9},
                    verbose=verbose, print_every=20)
    solver.init()
    solver.train()
    return solver.best_val_acc, source


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--limit", type=int, default=None)
    args = p.parse_args(argv)
    acc, source = train(args.epochs, args.limit, verbose=True)
    target = 0.85
    print(f"validation accuracy on {source}: {acc:.3f} (target {target})")
    return 0 if acc >= target else 1


if __name__ == "__main__":
    sys.exit(main())
