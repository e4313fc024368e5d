"""The demo's model parts written as custom operators, one of each kernel kind.

The digits LeNet of ``demo.py`` uses all three: ``SiLU`` after each
convolution's BatchNorm, ``DenseBiasReLU`` as its hidden layer and
``SparseSoftmaxCrossEntropy`` as its loss.

- ``SiLU``: an activation whose forward and gradient are Numba kernels
  (``func_type="jit"``), bound to float32 CPU by their reg info; any shape.
- ``DenseBiasReLU``: ``relu(x @ W.T + b)`` where the bias-add + ReLU is the C
  kernel ``CustomBiasAddRelu`` of ``aot_kernels/nn.c`` (``func_type="aot"``),
  differentiated by its companion kernel ``CustomBiasAddReluGrad``.
- ``SparseSoftmaxCrossEntropy``: the mean cross entropy of logits and int
  labels as a NumPy function (``func_type="pyfunc"``), with a NumPy bprop.

Each op is a plain ``ops.Custom``: it infers its outputs, is chosen per
target and dtype, records itself on the tape and appears in
``ops.custom_op_report()``. The ops hold no state, so each is made once and
shared by every layer that uses it (one row per op in the usage table, one
kernel compile or load). Building the parts needs the kernels built by
``make kernels``.

Example::

    parts = custom_parts()
    layer = parts.dense_relu(2, 16)
    y = layer(ms.Tensor(np.ones((4, 2), np.float32)))     # (4, 16), >= 0
"""

import functools
import math

import numpy as np

import mscustom as ms
from mscustom import nn, ops
from mscustom.ops import CustomRegOp, DataType

AOT_LIBRARY = "aot_kernels/build/libkernels.so"      # resolved against the project root too


# ================================================================== jit: SiLU activation
def silu_kernel(x, out):
    """``out = x * sigmoid(x)``, elementwise (Numba kernel, destination-passing)."""
    xs = x.reshape(-1)
    os_ = out.reshape(-1)
    for i in range(xs.size):
        v = xs[i]
        os_[i] = v / (1.0 + math.exp(-v))


def silu_grad_kernel(x, dout, dx):
    """``dx = dout * s * (1 + x * (1 - s))`` with ``s = sigmoid(x)``."""
    xs = x.reshape(-1)
    ds = dout.reshape(-1)
    gs = dx.reshape(-1)
    for i in range(xs.size):
        v = xs[i]
        s = 1.0 / (1.0 + math.exp(-v))
        gs[i] = ds[i] * s * (1.0 + v * (1.0 - s))


def _f32_cpu_info(n_in, n_out):
    """Reg info binding a kernel to float32 inputs and outputs on the CPU."""
    reg = CustomRegOp()
    for i in range(n_in):
        reg = reg.input(i, f"x{i}")
    for i in range(n_out):
        reg = reg.output(i, f"y{i}")
    return reg.dtype_format(*[DataType.F32_Default] * (n_in + n_out)).target("CPU").get_op_info()


@functools.cache
def make_silu_op():
    """The SiLU Custom op (jit forward, jit gradient)."""
    silu_grad = ops.Custom(silu_grad_kernel, out_shape=lambda x, d: x, out_dtype=lambda x, d: x,
                           func_type="jit", reg_info=_f32_cpu_info(2, 1), name="silu_grad")
    return ops.Custom(silu_kernel, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="jit",
                      reg_info=_f32_cpu_info(1, 1), name="silu",
                      bprop=lambda x, out, dout: (silu_grad(x, dout),))


class SiLU(nn.Cell):
    """``x * sigmoid(x)`` through a Numba-compiled custom kernel."""

    def __init__(self):
        super().__init__()
        self.silu = make_silu_op()

    def construct(self, x):
        return self.silu(x)


# ================================================================== aot: fused bias-add + ReLU
@functools.cache
def make_bias_add_relu_op():
    """``relu(x + bias)`` with the C kernels of ``aot_kernels/nn.c`` (forward and gradient)."""
    grad = ops.Custom(f"{AOT_LIBRARY}:CustomBiasAddReluGrad",
                      out_shape=lambda dout, out: (dout, [dout[-1]]),
                      out_dtype=lambda dout, out: (dout, dout), func_type="aot",
                      name="bias_add_relu_grad")
    return ops.Custom(f"{AOT_LIBRARY}:CustomBiasAddRelu", out_shape=lambda x, b: x,
                      out_dtype=lambda x, b: x, func_type="aot", name="bias_add_relu",
                      bprop=lambda x, b, out, dout: grad(dout, out))


class DenseBiasReLU(nn.Cell):
    """``relu(x @ weight.T + bias)``; the bias-add and ReLU run fused in one C kernel."""

    def __init__(self, in_channels, out_channels, weight_init="he_uniform"):
        super().__init__()
        self.in_channels, self.out_channels = in_channels, out_channels
        self.weight = ms.Parameter(nn.initializer(weight_init, (out_channels, in_channels)), name="weight")
        self.bias = ms.Parameter(nn.initializer("zeros", (out_channels,)), name="bias")
        self.bias_add_relu = make_bias_add_relu_op()

    def construct(self, x):
        return self.bias_add_relu(ops.matmul(x, self.weight.T), self.bias)

    def extend_repr(self):
        return f"in_channels={self.in_channels}, out_channels={self.out_channels}"


# ================================================================== pyfunc: the loss
def _softmax(logits):
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def sparse_softmax_cross_entropy(logits, labels):
    """Mean over the batch of ``-log softmax(logits)[label]`` (NumPy in, NumPy out)."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return -log_probs[np.arange(len(labels)), labels].mean(dtype=logits.dtype)


def sparse_softmax_cross_entropy_grad(logits, labels, dloss):
    """Gradient of the mean cross entropy w.r.t. the logits, scaled by ``dloss``."""
    g = _softmax(logits)
    g[np.arange(len(labels)), labels] -= 1.0
    return g * (dloss / len(labels))


@functools.cache
def make_cross_entropy_op():
    """The loss as a pyfunc Custom op: a scalar of the logits' dtype; no gradient for labels."""
    grad = ops.Custom(sparse_softmax_cross_entropy_grad, out_shape=lambda x, y, d: x,
                      out_dtype=lambda x, y, d: x, func_type="pyfunc", name="softmax_ce_grad")
    return ops.Custom(sparse_softmax_cross_entropy, out_shape=lambda x, y: [],
                      out_dtype=lambda x, y: x, func_type="pyfunc", name="softmax_ce",
                      bprop=lambda x, y, out, dout: (grad(x, y, dout), None))


class SparseSoftmaxCrossEntropy(nn.Cell):
    """Mean cross entropy of ``(logits[N, C], labels[N])`` through a NumPy custom op."""

    def __init__(self):
        super().__init__()
        self.cross_entropy = make_cross_entropy_op()

    def construct(self, logits, labels):
        return self.cross_entropy(logits, labels)
