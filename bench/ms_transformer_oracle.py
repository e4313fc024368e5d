"""Print MindSpore 2.10's values for the cases of tests/transformer_cases.py (attention and Transformer layers).

Run with an interpreter that has MindSpore (not mscustom's)::

    PY=/path/to/venv-ms/bin/python
    $PY bench/ms_transformer_oracle.py > /tmp/expected.py
    $PY bench/ms_transformer_oracle.py --checkpoint tests/data/ms210_transformer_encoder_layer.ckpt > /tmp/ckpt.py

The first prints ``EXPECTED`` (outputs) and ``EXPECTED_GRADS`` (gradients of the
``GRAD_CASES``) as Python literals; the second saves a checkpoint of a seeded
``nn.TransformerEncoderLayer(8, 2, 16)`` and prints ``CHECKPOINT_OUTPUT``, its
output on the ``encoder_layer_masks`` inputs. tests/transformer_expected.py is
its docstring followed by the two outputs.
"""

import argparse
import os
import sys

import numpy as np

import mindspore as ms
from mindspore import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
import transformer_cases as tc  # noqa: E402


def _flat(t):
    return (tuple(t.shape), [float(f"{v:.8g}") for v in t.asnumpy().astype(np.float64).reshape(-1)])


def _set_weights(net):
    params = list(net.get_parameters())
    for i, p in enumerate(params):
        p.set_data(ms.Tensor(tc.weight(p.shape, i)))
    return params


def _outputs(out):
    return [_flat(t) for t in out] if isinstance(out, (tuple, list)) else [_flat(out)]


def _grads(net, name, params):
    args, kwargs, made = tc.inputs(ms.Tensor, name)
    keys = tc.GRAD_CASES[name]
    out = net(*args, **kwargs)
    first = out[0] if isinstance(out, (tuple, list)) else out
    seed = ms.Tensor(tc.weight(first.shape, 99))

    def fn(*xs):
        a, kw = list(args), dict(kwargs)
        positional = [k for k in tc.CASES[name][2] if not k.startswith("kw:")]
        for key, x in zip(keys, xs):
            if key.startswith("kw:"):
                kw[key[3:]] = x
            else:
                a[positional.index(key)] = x
        o = net(*a, **kw)
        o = o[0] if isinstance(o, (tuple, list)) else o
        return (o * seed).sum()

    g_in, g_w = ms.grad(fn, grad_position=tuple(range(len(keys))), weights=params)(*[made[k] for k in keys])
    g_in = g_in if isinstance(g_in, (tuple, list)) else (g_in,)
    return [_flat(g) for g in g_in], [_flat(g) for g in g_w]


def expected():
    outs, grads = {}, {}
    for name in tc.CASES:
        net = tc.build(nn, name)
        params = _set_weights(net)
        args, kwargs, _ = tc.inputs(ms.Tensor, name)
        outs[name] = _outputs(net(*args, **kwargs))
        if name in tc.GRAD_CASES:
            grads[name] = _grads(net, name, params)
    print("EXPECTED = " + repr(outs))
    print("EXPECTED_GRADS = " + repr(grads))


def checkpoint(path):
    ms.set_seed(7)
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    layer.set_train(False)
    ms.save_checkpoint(layer, path)
    args, kwargs, _ = tc.inputs(ms.Tensor, "encoder_layer_masks")
    print("CHECKPOINT_OUTPUT = " + repr(_outputs(layer(*args, **kwargs))))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoint")
    opts = parser.parse_args()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    if opts.checkpoint:
        checkpoint(opts.checkpoint)
    else:
        expected()
