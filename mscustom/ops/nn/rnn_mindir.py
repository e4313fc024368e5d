"""The MindIR form of the sequence ops (``lstm_sequence``, ``gru_sequence``, ``rnn_sequence``) for ``ms.export``.

The recurrence is written out step by step (the shapes are fixed at export),
in MindSpore operators every backend has: per step a ``StridedSlice`` of
``gi``, ``MatMul(h, w_hh, transpose_b=True)`` (+ ``BiasAdd`` of ``b_hh``), the
gate slices and their ``Sigmoid``/``Tanh``/``ReLU``, and the state update
(the equations are in ``rnn.py``); the steps' outputs are joined by one
``Concat``. With ``lens``, step ``t`` of sequence ``b`` runs only where
``t < lens[b]``: ``Select`` keeps the state and zeroes the output elsewhere,
which also gives the reversed direction's "only the first lens[b] steps".
The outputs only the backward reads (saved states and gates) get no node: an
exported graph does inference.

A translator takes the MINDIR exporter's builder (``train/_mindir_builder.py``:
``node``, ``slice``, ``reshape``...), the recorded step, its inputs' value
names and its outputs' arrays; it is the ops' ``FMindIR`` attribute.
"""

import numpy as np

__all__ = ["mindir_form"]


def _gate(g, gates, k, hid):
    """Columns ``k*hid:(k+1)*hid`` of an (N, G*H) value."""
    n = g.shape(gates)[0]
    return g.slice(gates, [0, k * hid], [n, (k + 1) * hid])


def mindir_form(kind, positions):
    """The ``FMindIR`` translator of ``<kind>_sequence``; ``positions(attrs)`` says where each input is."""
    def translate(g, step, ins, outs):
        attrs = step.attrs
        pos = positions(attrs)
        gates_n, hid = g.shape(ins[pos["w"]])
        dtype = g.dtype(ins[0])
        gi = g.transpose(ins[0], (1, 0, 2)) if attrs["batch_first"] else ins[0]
        steps, n, _ = g.shape(gi)
        w = g.cast(ins[pos["w"]], dtype)
        bias = g.cast(ins[pos["b"]], dtype) if "b" in pos else None
        zeros = g.const(np.zeros((n, hid), dtype))
        h = g.cast(ins[pos["h0"]], dtype) if "h0" in pos else zeros
        c = None
        if kind == "lstm":
            c = g.cast(ins[pos["c0"]], dtype) if "c0" in pos else zeros
        lens = ins[pos["lens"]] if "lens" in pos else None
        ys = [None] * steps
        order = range(steps - 1, -1, -1) if attrs["reverse"] else range(steps)
        for t in order:
            x_t = g.reshape(g.slice(gi, [t, 0, 0], [t + 1, n, gates_n]), (n, gates_n))
            gh = g.node("MatMul", [h, w, g.scalar(False), g.scalar(True)], (n, gates_n), dtype)
            if bias is not None:
                gh = g.node("BiasAdd", [gh, bias, g.scalar(0)], (n, gates_n), dtype)
            if kind == "lstm":
                act = g.unary("Sigmoid", g.binary("Add", x_t, gh))
                cell = g.unary("Tanh", _gate(g, g.binary("Add", x_t, gh), 2, hid))
                i, f, o = (_gate(g, act, k, hid) for k in (0, 1, 3))
                c_new = g.binary("Add", g.binary("Mul", f, c), g.binary("Mul", i, cell))
                h_new = g.binary("Mul", o, g.unary("Tanh", c_new))
            elif kind == "gru":
                r = g.unary("Sigmoid", g.binary("Add", _gate(g, x_t, 0, hid), _gate(g, gh, 0, hid)))
                z = g.unary("Sigmoid", g.binary("Add", _gate(g, x_t, 1, hid), _gate(g, gh, 1, hid)))
                cand = g.unary("Tanh", g.binary("Add", _gate(g, x_t, 2, hid),
                                                 g.binary("Mul", r, _gate(g, gh, 2, hid))))
                h_new = g.binary("Add", cand, g.binary("Mul", z, g.binary("Sub", h, cand)))
                c_new = None
            else:
                h_new = g.unary("Tanh" if attrs["activation"] == "tanh" else "ReLU", g.binary("Add", x_t, gh))
                c_new = None
            if lens is None:
                h, c, ys[t] = h_new, c_new, h_new
            else:
                runs = g.node("Less", [g.const(np.asarray(t, g.dtype(lens))), lens], g.shape(lens), np.bool_)
                mask = g.broadcast(g.reshape(runs, (n, 1)), (n, hid))
                h = g.node("Select", [mask, h_new, h], (n, hid), dtype)
                if c_new is not None:
                    c = g.node("Select", [mask, c_new, c], (n, hid), dtype)
                ys[t] = g.node("Select", [mask, h_new, zeros], (n, hid), dtype)
        y = g.concat([g.reshape(y_t, (1, n, hid)) for y_t in ys], 0) if steps > 1 else g.reshape(ys[0], (1, n, hid))
        if attrs["batch_first"]:
            y = g.transpose(y, (1, 0, 2))
        states = [h, c] if kind == "lstm" else [h]
        return [y] + states + [None] * (len(outs) - 1 - len(states))
    return translate
