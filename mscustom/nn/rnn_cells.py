"""Single-step recurrent Cells: ``RNNCell``, ``GRUCell`` and ``LSTMCell``, with MindSpore's parameter names
(``weight_ih`` (gates * hidden, input), ``weight_hh``, ``bias_ih``, ``bias_hh``) and gate orders
(GRU: r, z, n; LSTM: i, f, g, o). Initial values are uniform in ``+-1/sqrt(hidden_size)``.

Example::

    cell = nn.LSTMCell(10, 16)
    h, c = cell(x, (h, c))          # x (N, 10); h, c (N, 16)
"""

import math

import numpy as np

from .. import dtype as _dt
from .. import ops
from ..tensor import Parameter, Tensor
from .cell import Cell
from .init import rng

__all__ = ["RNNCell", "GRUCell", "LSTMCell"]


class _CellBase(Cell):
    _gates = 1

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=_dt.float32):
        super().__init__()
        name = type(self).__name__
        for what, v in (("input_size", input_size), ("hidden_size", hidden_size)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"{name}: {what} must be a positive int, got {v!r}")
        if not isinstance(has_bias, bool):
            raise TypeError(f"{name}: has_bias must be a bool, got {type(has_bias).__name__}")
        self.input_size, self.hidden_size, self.has_bias = input_size, hidden_size, has_bias
        np_dtype = _dt.dtype_from_any(dtype).np_dtype
        bound = 1.0 / math.sqrt(hidden_size)
        g = self._gates * hidden_size

        def param(shape, pname):
            return Parameter(Tensor(rng().uniform(-bound, bound, shape).astype(np_dtype)), name=pname)
        self.weight_ih = param((g, input_size), "weight_ih")
        self.weight_hh = param((g, hidden_size), "weight_hh")
        if has_bias:
            self.bias_ih = param((g,), "bias_ih")
            self.bias_hh = param((g,), "bias_hh")
        else:
            self.bias_ih = self.bias_hh = None

    def _proj(self, x, w, b):
        y = ops.matmul(x, ops.transpose(w, (1, 0)))
        return y if b is None else ops.add(y, b)

    def _check(self, x, hx):
        name = type(self).__name__
        if not isinstance(x, Tensor) or x.ndim not in (1, 2) or x.shape[-1] != self.input_size:
            raise ValueError(f"{name}: x must be (N, {self.input_size}) or ({self.input_size},), got "
                             f"{list(getattr(x, 'shape', [type(x).__name__]))}")
        batch = x.shape[0] if x.ndim == 2 else None
        want = (batch, self.hidden_size) if batch is not None else (self.hidden_size,)
        states = hx if isinstance(hx, tuple) else (hx,)
        for h in states:
            if not isinstance(h, Tensor) or tuple(h.shape) != want:
                raise ValueError(f"{name}: the hidden state must have shape {list(want)}, got "
                                 f"{list(getattr(h, 'shape', [type(h).__name__]))}")

    def _zeros(self, x):
        shape = (x.shape[0], self.hidden_size) if x.ndim == 2 else (self.hidden_size,)
        return Tensor(np.zeros(shape, x._data.dtype))

    def extend_repr(self):
        return f"input_size={self.input_size}, hidden_size={self.hidden_size}, has_bias={self.has_bias}"


class RNNCell(_CellBase):
    """``h' = act(x @ W_ih.T + b_ih + h @ W_hh.T + b_hh)`` with ``act`` "tanh" or "relu" (``nonlinearity``)."""

    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh", dtype=_dt.float32):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNNCell: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        super().__init__(input_size, hidden_size, has_bias, dtype)
        self.nonlinearity = nonlinearity

    def construct(self, x, hx=None):
        hx = self._zeros(x) if hx is None else hx
        self._check(x, hx)
        pre = ops.add(self._proj(x, self.weight_ih, self.bias_ih), self._proj(hx, self.weight_hh, self.bias_hh))
        return ops.tanh(pre) if self.nonlinearity == "tanh" else ops.relu(pre)


class GRUCell(_CellBase):
    """``r, z = sigmoid(...)``; ``n = tanh(x W_in + b_in + r * (h W_hn + b_hn))``; ``h' = (1 - z) * n + z * h``."""
    _gates = 3

    def construct(self, x, hx=None):
        hx = self._zeros(x) if hx is None else hx
        self._check(x, hx)
        gi = ops.split(self._proj(x, self.weight_ih, self.bias_ih), self.hidden_size, -1)
        gh = ops.split(self._proj(hx, self.weight_hh, self.bias_hh), self.hidden_size, -1)
        r = ops.sigmoid(ops.add(gi[0], gh[0]))
        z = ops.sigmoid(ops.add(gi[1], gh[1]))
        n = ops.tanh(ops.add(gi[2], ops.mul(r, gh[2])))
        return ops.add(ops.mul(ops.sub(1.0, z), n), ops.mul(z, hx))


class LSTMCell(_CellBase):
    """``i, f, o = sigmoid(...)``, ``g = tanh(...)``; ``c' = f * c + i * g``; ``h' = o * tanh(c')``.

    ``construct(x, (h, c))`` returns ``(h', c')``.
    """
    _gates = 4

    def construct(self, x, hx=None):
        if hx is None:
            hx = (self._zeros(x), self._zeros(x))
        if not isinstance(hx, (tuple, list)) or len(hx) != 2:
            raise TypeError(f"LSTMCell: hx must be a tuple (h, c), got {type(hx).__name__}")
        h, c = hx
        self._check(x, (h, c))
        gates = ops.add(self._proj(x, self.weight_ih, self.bias_ih), self._proj(h, self.weight_hh, self.bias_hh))
        i, f, g, o = ops.split(gates, self.hidden_size, -1)
        c2 = ops.add(ops.mul(ops.sigmoid(f), c), ops.mul(ops.sigmoid(i), ops.tanh(g)))
        return ops.mul(ops.sigmoid(o), ops.tanh(c2)), c2
