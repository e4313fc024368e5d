"""Recurrent layers with MindSpore's signatures: ``RNN``, ``GRU``, ``LSTM``.

``RNN(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
dropout=0., bidirectional=False, dtype=float32)`` (``nonlinearity`` "tanh" or
"relu" for ``RNN``). The parameters are named as MindSpore names them
(``weight_ih_l0``, ``weight_hh_l0_reverse``, ``bias_ih_l1`` ...), with
(gate_size, in) weights and gates in MindSpore's order (LSTM: i, f, g, o; GRU:
r, z, n), and ``get_parameters()`` lists them in MindSpore's order (every
``weight_ih``, then every ``weight_hh``, ``bias_ih``, ``bias_hh``), so
checkpoints move between MindSpore and mscustom both ways.

``construct(x, hx=None, seq_length=None)``: ``x`` is (T, N, in), or (N, T, in)
with ``batch_first``; ``hx`` (num_layers * num_directions, N, hidden), a
tuple ``(h, c)`` of them for LSTM, zeros when None; ``seq_length`` (N,) int32
or int64 stops each sequence after its length (later outputs are zeros, the
final state is the one at its last step, the reverse direction reverses only
the first ``seq_length`` steps).

Each layer direction is two ops: the input projection of every step as one
GEMM (``dense``), then the whole recurrence as one op (``lstm_sequence``,
``gru_sequence``, ``rnn_sequence`` in ``ops/nn/rnn.py``) whose gradient is one
backward-through-time op; ``dW_hh``, ``dW_ih`` and ``dx`` are one GEMM each over
all steps. Graph mode records and replays them like any op; ``ms.export``
writes them as ONNX's LSTM / GRU / RNN nodes. First derivatives only: the
backward op has no gradient of its own (a second derivative raises naming it).

Example::

    lstm = nn.LSTM(10, 16, num_layers=2, batch_first=True, bidirectional=True)
    out, (h, c) = lstm(ms.Tensor(np.ones((3, 5, 10), np.float32)))   # out (3, 5, 32), h (4, 3, 16)
"""

import math

from .. import dtype as _dt
from .. import ops
from ..ops.nn import rnn as _rnn
from ..tensor import Parameter, ParameterTuple, Tensor
from . import init as _init
from .cell import Cell
from .layers import Dropout

__all__ = ["RNN", "GRU", "LSTM"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "GRU": 3, "LSTM": 4}


def _check_int(cls, what, v):
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise ValueError(f"For '{cls}', the '{what}' must be int and must > 0, but got '{v}' with type "
                         f"'{type(v).__name__}'.")


def _check_bool(cls, what, v):
    if not isinstance(v, bool):
        raise TypeError(f"For '{cls}', the type of '{what}' must be 'bool', but got '{type(v).__name__}'.")


class _RNNBase(Cell):
    """The stacked, optionally bidirectional recurrence shared by RNN, GRU and LSTM."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
                 dropout=0., bidirectional=False, dtype=_dt.float32):
        super().__init__()
        cls = type(self).__name__
        _check_int(cls, "hidden_size", hidden_size)
        _check_int(cls, "input_size", input_size)
        _check_int(cls, "num_layers", num_layers)
        if not isinstance(dropout, float):
            raise TypeError(f"For '{cls}', the type of 'dropout' must be 'float', but got "
                            f"'{type(dropout).__name__}'.")
        for what, v in (("has_bias", has_bias), ("batch_first", batch_first), ("bidirectional", bidirectional)):
            _check_bool(cls, what, v)
        if not 0 <= dropout < 1:
            raise ValueError(f"For '{cls}', the 'dropout' must be a number in range [0, 1) representing the "
                             f"probability of an element being zeroed, but got {dropout}.")
        self.mode, self.is_lstm = mode, mode == "LSTM"
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.has_bias, self.batch_first, self.bidirectional = has_bias, batch_first, bidirectional
        self.dropout = dropout
        self.dropout_op = Dropout(p=float(dropout))
        num_directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        np_dtype = _dt.dtype_from_any(dtype).np_dtype
        stdv = 1 / math.sqrt(hidden_size)
        gen = _init.rng()
        names = {"weight_ih": [], "weight_hh": [], "bias_ih": [], "bias_hh": []}
        shapes = {}
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else hidden_size * num_directions
                suffix = f"l{layer}" + ("_reverse" if direction else "")
                shapes[f"weight_ih_{suffix}"] = (gate_size, layer_input)
                shapes[f"weight_hh_{suffix}"] = (gate_size, hidden_size)
                names["weight_ih"].append(f"weight_ih_{suffix}")
                names["weight_hh"].append(f"weight_hh_{suffix}")
                if has_bias:
                    shapes[f"bias_ih_{suffix}"] = (gate_size,)
                    shapes[f"bias_hh_{suffix}"] = (gate_size,)
                    names["bias_ih"].append(f"bias_ih_{suffix}")
                    names["bias_hh"].append(f"bias_hh_{suffix}")
        lists = {}
        for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):        # MindSpore's parameter order
            params = []
            for name in names[kind]:
                value = gen.uniform(-stdv, stdv, shapes[name]).astype(np_dtype)
                params.append(Parameter(Tensor(value), name=name))
                setattr(self, name, params[-1])
            lists[kind] = ParameterTuple(params)
        self.w_ih_list, self.w_hh_list = lists["weight_ih"], lists["weight_hh"]
        self.b_ih_list, self.b_hh_list = lists["bias_ih"], lists["bias_hh"]

    # ------------------------------------------------------------------ one layer direction
    def _weight(self, params, index, dt):
        p = params[index]
        return p if p.dtype == dt else ops.cast(p, dt)

    def _run(self, x, h0, index, seq_length, reverse):
        """One direction of one layer: the input projection as one GEMM, then the recurrence as one op.

        LSTM and RNN add ``b_hh`` to the projection's bias (one add of two vectors); a GRU passes it to
        the recurrence, where its n block is multiplied by the reset gate.
        """
        dt = x.dtype
        w_ih, w_hh = self._weight(self.w_ih_list, index, dt), self._weight(self.w_hh_list, index, dt)
        b_ih = self._weight(self.b_ih_list, index, dt) if self.has_bias else None
        b_hh = self._weight(self.b_hh_list, index, dt) if self.has_bias else None
        bf = self.batch_first
        rows = ops.reshape(x, (-1, x.shape[2]))            # one (steps * batch, in) GEMM, not one per step
        if self.mode == "GRU":
            gi = ops.reshape(ops.dense(rows, w_ih, b_ih), x.shape[:2] + (-1,))
            return _rnn.gru_sequence(gi, w_hh, h0, b_hh, seq_length, reverse, bf)
        gi = ops.reshape(ops.dense(rows, w_ih, None if b_ih is None else ops.add(b_ih, b_hh)), x.shape[:2] + (-1,))
        if self.is_lstm:
            h, c = (None, None) if h0 is None else h0
            y, h_n, c_n = _rnn.lstm_sequence(gi, w_hh, h, c, None, seq_length, reverse, bf)
            return y, (h_n, c_n)
        activation = "tanh" if self.mode == "RNN_TANH" else "relu"
        return _rnn.rnn_sequence(gi, w_hh, h0, None, seq_length, reverse, bf, activation)

    # ------------------------------------------------------------------ checks
    def _check_inputs(self, x, hx, seq_length):
        cls = type(self).__name__
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{cls}', the 'x' must be a Tensor, but got '{type(x).__name__}'")
        if x.ndim != 3:
            raise ValueError(f"For '{cls}', the 'x' must be 3-D ({'batch, seq' if self.batch_first else 'seq, batch'}"
                             f", input_size), got shape {list(x.shape)}")
        if x.shape[2] != self.input_size:
            raise ValueError(f"For '{cls}', the last axis of 'x' must be input_size={self.input_size}, got shape "
                             f"{list(x.shape)}")
        if x.dtype not in (_dt.float32, _dt.float16):
            raise TypeError(f"For '{cls}', the 'x' must be float32 or float16, but got {x.dtype.name}")
        batch = x.shape[0] if self.batch_first else x.shape[1]
        expect = (self.num_layers * (2 if self.bidirectional else 1), batch, self.hidden_size)
        if hx is not None:
            if self.is_lstm:
                if not isinstance(hx, (tuple, list)):
                    raise TypeError(f"For '{cls}', the 'hx' must be a tuple (h, c), but got "
                                    f"'{type(hx).__name__}'")
                if len(hx) != 2:
                    raise TypeError(f"For '{cls}', the length of 'hx' must be '2', but got '{len(hx)}'")
                states = list(zip(("hx[0]", "hx[1]"), hx))
            else:
                states = [("hx", hx)]
            for what, s in states:
                if not isinstance(s, Tensor):
                    raise TypeError(f"For '{cls}', the '{what}' must be a Tensor, but got '{type(s).__name__}'")
                if s.dtype != x.dtype:
                    raise TypeError(f"For '{cls}', the '{what}' must have the dtype of 'x' ({x.dtype.name}), "
                                    f"but got {s.dtype.name}")
                if tuple(s.shape) != expect:
                    raise ValueError(f"For '{cls}', the '{what}' must have shape (num_layers * num_directions, "
                                     f"batch, hidden_size) = {list(expect)}, but got {list(s.shape)}")
        if seq_length is not None:
            if not isinstance(seq_length, Tensor) or seq_length.dtype not in (_dt.int32, _dt.int64):
                got = seq_length.dtype.name if isinstance(seq_length, Tensor) else type(seq_length).__name__
                raise TypeError(f"For '{cls}', the 'seq_length' must be an int32 or int64 Tensor, but got {got}")
            if seq_length.ndim != 1 or seq_length.shape[0] != batch:
                raise ValueError(f"For '{cls}' batch size of x and seq_length must be equal, but got {batch} of x "
                                 f"and {seq_length.shape[0] if seq_length.ndim else 0} of seq_length.")
        return expect

    # ------------------------------------------------------------------ forward
    def construct(self, x, hx=None, seq_length=None):
        self._check_inputs(x, hx, seq_length)
        num_directions = 2 if self.bidirectional else 1
        layer_in = x
        finals = []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(num_directions):
                index = layer * num_directions + direction
                if hx is None:
                    h0 = None
                elif self.is_lstm:
                    h0 = (ops.getitem(hx[0], index), ops.getitem(hx[1], index))
                else:
                    h0 = ops.getitem(hx, index)
                out, state = self._run(layer_in, h0, index, seq_length, direction == 1)
                outs.append(out)
                finals.append(state)
            output = outs[0] if num_directions == 1 else ops.concat(outs, 2)
            if self.dropout and layer < self.num_layers - 1:
                output = self.dropout_op(output)
            layer_in = output
        if self.is_lstm:
            return output, (ops.stack([s[0] for s in finals], 0), ops.stack([s[1] for s in finals], 0))
        return output, ops.stack(finals, 0)

    def extend_repr(self):
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, num_layers={self.num_layers}, "
                f"has_bias={self.has_bias}, batch_first={self.batch_first}, bidirectional={self.bidirectional}")


class RNN(_RNNBase):
    """Elman RNN: ``h' = act(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh)``, ``nonlinearity`` "tanh" or "relu".

    Example::

        rnn = nn.RNN(3, 4, nonlinearity="relu")
        out, h = rnn(ms.Tensor(np.ones((5, 2, 3), np.float32)))      # out (5, 2, 4), h (1, 2, 4)
    """

    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNN', the 'nonlinearity' must be in ['tanh', 'relu'], but got {nonlinearity}.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)


class GRU(_RNNBase):
    """Gated recurrent unit; gates r, z, n in MindSpore's order along the weights' first axis.

    Example::

        gru = nn.GRU(3, 4, batch_first=True)
        out, h = gru(ms.Tensor(np.ones((2, 5, 3), np.float32)))      # out (2, 5, 4), h (1, 2, 4)
    """

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


class LSTM(_RNNBase):
    """Long short-term memory; gates i, f, g, o in MindSpore's order; returns ``output, (h_n, c_n)``.

    Example::

        lstm = nn.LSTM(3, 4, num_layers=2)
        out, (h, c) = lstm(ms.Tensor(np.ones((5, 2, 3), np.float32)))   # h and c (2, 2, 4)
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)
