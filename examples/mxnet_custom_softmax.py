"""MXNet's custom softmax example, run on mscustom with only the import changed.

The network and the custom op are MXNet's ``example/numpy-ops/custom_softmax.py``
(rewritten in our words): an MLP of ``FullyConnected`` / ``Activation`` layers
ends in ``mx.symbol.Custom(data=fc3, name='softmax', op_type='softmax')``, a
NumPy softmax whose backward edits ``out_data[0].asnumpy()`` in place (safe
because ``asnumpy`` copies), trained by ``Module.fit`` over ``NDArrayIter``.

Data: scikit-learn's bundled 8x8 digits (``pip install mscustom[demo]``), or
synthetic clusters when scikit-learn is absent. Exits non-zero below the
stated validation accuracy (0.90 on digits).

    python examples/mxnet_custom_softmax.py [--epochs 10] [--limit N]
"""

import argparse
import logging
import sys

import numpy as np

from mscustom.compat import mxnet as mx


class Softmax(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        y = np.exp(x - x.max(axis=1).reshape((x.shape[0], 1)))
        y /= y.sum(axis=1).reshape((x.shape[0], 1))
        self.assign(out_data[0], req[0], mx.nd.array(y))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        label = in_data[1].asnumpy().ravel().astype(int)
        y = out_data[0].asnumpy()
        y[np.arange(label.shape[0]), label] -= 1.0          # edits a copy: the forward output is untouched
        self.assign(in_grad[0], req[0], mx.nd.array(y))


@mx.operator.register("softmax")
class SoftmaxProp(mx.operator.CustomOpProp):
    def __init__(self):
        super(SoftmaxProp, self).__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        data_shape = in_shape[0]
        label_shape = (in_shape[0][0],)
        output_shape = in_shape[0]
        return [data_shape, label_shape], [output_shape], []

    def infer_type(self, in_type):
        return in_type, [in_type[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return Softmax()


def load_data(limit=None, seed=0):
    """(x_train, y_train, x_val, y_val, source): 8x8 digits scaled to [0, 1], or synthetic clusters."""
    rng = np.random.default_rng(seed)
    try:
        from sklearn.datasets import load_digits
        digits = load_digits()
        x, y, source = digits.data.astype(np.float32) / 16.0, digits.target.astype(np.float32), "digits"
    except ImportError:
        centers = rng.normal(0, 1, (10, 64))
        y = rng.integers(0, 10, 1797).astype(np.float32)
        x, source = (centers[y.astype(int)] + 0.6 * rng.normal(0, 1, (1797, 64))).astype(np.float32), "synthetic"
    order = rng.permutation(len(x))
    if limit:
        order = order[:limit]
    x, y = x[order], y[order]
    cut = int(0.8 * len(x))
    return x[:cut], y[:cut], x[cut:], y[cut:], source


def build_mlp():
    data = mx.symbol.Variable("data")
    fc1 = mx.symbol.FullyConnected(data=data, name="fc1", num_hidden=128)
    act1 = mx.symbol.Activation(data=fc1, name="relu1", act_type="relu")
    fc2 = mx.symbol.FullyConnected(data=act1, name="fc2", num_hidden=64)
    act2 = mx.symbol.Activation(data=fc2, name="relu2", act_type="relu")
    fc3 = mx.symbol.FullyConnected(data=act2, name="fc3", num_hidden=10)
    return mx.symbol.Custom(data=fc3, name="softmax", op_type="softmax")


def train(epochs=10, batch_size=32, limit=None, seed=0):
    """Train the MLP; returns (validation accuracy, data source)."""
    mx.random.seed(seed)
    x_tr, y_tr, x_va, y_va, source = load_data(limit, seed)
    train_iter = mx.io.NDArrayIter(x_tr, y_tr, batch_size, shuffle=True, label_name="softmax_label")
    val_iter = mx.io.NDArrayIter(x_va, y_va, batch_size, label_name="softmax_label")
    mlp = build_mlp()
    model = mx.mod.Module(symbol=mlp, context=mx.cpu(), data_names=["data"], label_names=["softmax_label"])
    model.fit(train_iter, eval_data=val_iter, optimizer="sgd",
              optimizer_params={"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-4},
              initializer=mx.init.Xavier(), num_epoch=epochs,
              batch_end_callback=mx.callback.Speedometer(batch_size, 20))
    return dict(model.score(val_iter, mx.metric.Accuracy()))["accuracy"], source


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--limit", type=int, default=None, help="use only this many samples")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    acc, source = train(args.epochs, limit=args.limit)
    target = 0.90 if source == "digits" else 0.85
    print(f"validation accuracy on {source}: {acc:.3f} (target {target})")
    return 0 if acc >= target else 1


if __name__ == "__main__":
    sys.exit(main())
