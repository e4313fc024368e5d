"""Profile training steps of an MXNet network with several custom ops; write the Chrome trace.

The network: ``FullyConnected`` -> custom ``scaled_tanh`` -> ``FullyConnected`` ->
custom ``softmax_ce`` (a loss layer, ``need_top_grad=False``), bound with
``simple_bind`` and trained by plain SGD on the executor. ``mx.profiler`` records the
steps: the trace (``--out``, default ``build/mxnet_profile.json``) opens in
chrome://tracing or https://ui.perfetto.dev, with one event per op call -- each custom
op's forward as ``<op_type>::pure_python`` and its backward as
``_backward_<op_type>::pure_python`` -- and the aggregate table is printed.

    python examples/mxnet_profiler_trace.py [--steps 3] [--out trace.json]

Exits non-zero when the trace does not hold one forward and one backward event per
custom op per step.
"""

import argparse
import json
import os
import sys

import numpy as np

from mscustom.compat import mxnet as mx


class ScaledTanh(mx.operator.CustomOp):
    def __init__(self, scale):
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], mx.nd.tanh(in_data[0]) * self.scale)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        y = out_data[0] / self.scale
        self.assign(in_grad[0], req[0], out_grad[0] * self.scale * (1 - y * y))


@mx.operator.register("scaled_tanh")
class ScaledTanhProp(mx.operator.CustomOpProp):
    def __init__(self, scale="1.0"):
        super().__init__(need_top_grad=True)
        self.scale = float(scale)

    def create_operator(self, ctx, shapes, dtypes):
        return ScaledTanh(self.scale)


class SoftmaxCE(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        e = np.exp(x - x.max(axis=1, keepdims=True))
        self.assign(out_data[0], req[0], e / e.sum(axis=1, keepdims=True))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        p = out_data[0].asnumpy().copy()
        label = in_data[1].asnumpy().astype(int)
        p[np.arange(len(label)), label] -= 1.0
        self.assign(in_grad[0], req[0], p / len(label))


@mx.operator.register("softmax_ce")
class SoftmaxCEProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def infer_shape(self, in_shape):
        return [in_shape[0], [in_shape[0][0]]], [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return SoftmaxCE()


def build(batch, features, classes):
    data, label = mx.sym.Variable("data"), mx.sym.Variable("label")
    h = mx.sym.FullyConnected(data, name="fc1", num_hidden=16)
    h = mx.sym.Custom(h, op_type="scaled_tanh", scale=1.5, name="act")
    h = mx.sym.FullyConnected(h, name="fc2", num_hidden=classes)
    net = mx.sym.Custom(h, label, op_type="softmax_ce", name="loss")
    exe = net.simple_bind(mx.cpu(), data=(batch, features), label=(batch,))
    rng = np.random.default_rng(0)
    for name, arr in exe.arg_dict.items():
        if name.endswith("weight"):
            arr[:] = rng.normal(0, 0.3, arr.shape)
    return exe


def profile_training(steps=3, out="build/mxnet_profile.json", batch=8, features=5, classes=3, lr=0.5):
    """Train ``steps`` SGD steps under the profiler; returns (trace dict, aggregate table, losses)."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(batch, features)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.float32) + (x[:, 1] > 0)
    exe = build(batch, features, classes)
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=out)
    mx.profiler.set_state("run")
    losses = []
    step_frame = mx.profiler.Domain("training").new_frame("step")
    try:
        for _ in range(steps):
            with step_frame:
                p = exe.forward(is_train=True, data=x, label=y)[0].asnumpy()
                exe.backward()
                for name in ("fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"):
                    exe.arg_dict[name][:] = exe.arg_dict[name] - lr * exe.grad_dict[name]
            losses.append(float(-np.log(p[np.arange(batch), y.astype(int)]).mean()))
    finally:
        mx.profiler.set_state("stop")
    table = mx.profiler.dumps(reset=True)
    mx.profiler.dump()
    with open(out) as f:
        trace = json.load(f)
    return trace, table, losses


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--out", default="build/mxnet_profile.json")
    args = parser.parse_args(argv)
    trace, table, losses = profile_training(args.steps, args.out)
    print(table)
    names = [e["name"] for e in trace["traceEvents"] if e.get("ph") == "X"]
    print(f"{len(trace['traceEvents'])} events written to {args.out}; losses {[round(v, 4) for v in losses]}")
    ok = all(names.count(n) == args.steps for n in ("scaled_tanh::pure_python", "_backward_scaled_tanh::pure_python",
                                                    "softmax_ce::pure_python", "_backward_softmax_ce::pure_python"))
    return 0 if ok and losses[-1] < losses[0] else 1


if __name__ == "__main__":
    sys.exit(main())
