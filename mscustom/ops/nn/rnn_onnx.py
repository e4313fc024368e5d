"""The ONNX form of the sequence ops (``lstm_sequence``, ``gru_sequence``, ``rnn_sequence``) for ``ms.export``.

Each becomes ONNX's own LSTM / GRU / RNN node (one direction, opset 14+):
the op's input ``gi`` is already the input projection, so ONNX's ``X`` is
``gi`` and its ``W`` the constant 0/1 matrix that reorders the gates from
MindSpore's order (LSTM i, f, g, o; GRU r, z, n) to ONNX's (i, o, f, c;
z, r, h) -- a product with exact ones and zeros, so values are unchanged.
``R`` is ``w_hh`` with its gate rows reordered, ``b_hh`` (GRU) goes into the
recurrence bias with ``linear_before_reset=1`` (MindSpore's GRU), ``lens``
becomes ``sequence_lens`` (ONNX's runtime zeroes outputs past a length and
reverses only the valid steps, as MindSpore does), ``batch_first`` layouts
are transposed around the node. The outputs only the backward reads (the
saved states and gates) get no node: an exported graph does inference.

Translators take the exporter's graph builder (``node``, ``const``,
``shape_const``) and the recorded step; they are the ops' ``FOnnx``
attribute.
"""

import numpy as np

__all__ = ["onnx_form"]

# ONNX gate k is MindSpore gate _ORDER[kind][k]
_ORDER = {"lstm": (0, 3, 1, 2), "gru": (1, 0, 2), "rnn": (0,)}
_ONNX_OP = {"lstm": "LSTM", "gru": "GRU", "rnn": "RNN"}


def _rows(kind, hid):
    return np.concatenate([np.arange(k * hid, (k + 1) * hid) for k in _ORDER[kind]]).astype(np.int64)


def onnx_form(kind, positions):
    """The ``FOnnx`` translator of ``<kind>_sequence``; ``positions(attrs)`` says where each input is."""
    def translate(g, step, ins, outs):
        attrs = step.attrs
        pos = positions(attrs)
        arrays = [g.cap.arrays[s] for s in step.ins]
        gi, w = arrays[0], arrays[pos["w"]]
        gates, hid = w.shape
        dtype = gi.dtype
        bf = attrs["batch_first"]
        rows = _rows(kind, hid)
        x = g.node("Transpose", [ins[0]], perm=[1, 0, 2]) if bf else ins[0]
        reorder = np.zeros((1, gates, gates), dtype)
        reorder[0, np.arange(gates), rows] = 1
        r = g.node("Unsqueeze", [g.node("Gather", [ins[pos["w"]], g.const(rows, "gate_rows")], axis=0),
                                 g.shape_const([0])])
        if "b" in pos:
            rb = g.node("Gather", [ins[pos["b"]], g.const(rows, "gate_rows")], axis=0)
            bias = g.node("Unsqueeze", [g.node("Concat", [g.const(np.zeros(gates, dtype), "zero_bias"), rb], axis=0),
                                        g.shape_const([0])])
        else:
            bias = ""
        lens = g.node("Cast", [ins[pos["lens"]]], to=int(g.onnx.TensorProto.INT32)) if "lens" in pos else ""
        node_ins = [x, g.const(reorder, "gate_order"), r, bias, lens]
        if "h0" in pos:
            node_ins.append(g.node("Unsqueeze", [ins[pos["h0"]], g.shape_const([0])]))
            if kind == "lstm":
                node_ins.append(g.node("Unsqueeze", [ins[pos["c0"]], g.shape_const([0])]))
        while node_ins[-1] == "":
            node_ins.pop()
        extra = {"direction": "reverse" if attrs["reverse"] else "forward", "hidden_size": int(hid)}
        if kind == "gru":
            extra["linear_before_reset"] = 1
        if kind == "rnn":
            extra["activations"] = ["Tanh" if attrs["activation"] == "tanh" else "Relu"]
        n_states = 2 if kind == "lstm" else 1
        y_all = g.fresh("y_all")
        states = [g.fresh("state") for _ in range(n_states)]
        g.node(_ONNX_OP[kind], node_ins, [y_all] + states, **extra)
        y = g.node("Squeeze", [y_all, g.shape_const([1])])            # (T, 1, N, H) -> (T, N, H)
        if bf:
            g.node("Transpose", [y], [outs[0]], perm=[1, 0, 2])
        else:
            g.node("Identity", [y], [outs[0]])
        for state, out in zip(states, outs[1:1 + n_states]):
            g.node("Squeeze", [state, g.shape_const([0])], [out])
        return True
    return translate
