"""Recurrences as sequence ops: one op runs a whole LSTM / GRU / Elman RNN layer direction.

``nn.LSTM``, ``nn.GRU`` and ``nn.RNN`` compute the input projection of every
step as one GEMM (``gi = x @ w_ih.T + b``, a ``dense`` op) and hand it to one
of these ops, which runs the recurrence step by step into preallocated
buffers: per step one ``h @ w_hh.T`` product and the gates in a few in-place
passes. Its gradient is one backward-through-time op writing the gates'
gradients of every step into one array; the layer then gets ``dW_hh`` as one
GEMM over all steps (``d_gates^T @ h_prev``), ``dW_ih`` and ``dx`` from the
``dense``'s gradient (two more). Built from per-step ops instead, each step's
slice of ``gi`` had a gradient the size of all of ``gi``, zero-filled, and
those were summed.

MindSpore's equations (gates along ``w``'s first axis in MindSpore's order):

- LSTM (i, f, g, o): ``gates = gi + h @ w_hh.T (+ b_hh)``; ``i, f, o = sigmoid``,
  ``g = tanh``; ``c' = f * c + i * g``; ``h' = o * tanh(c')``;
- GRU (r, z, n): ``gh = h @ w_hh.T + b_hh``; ``r, z = sigmoid(gi + gh)``;
  ``n = tanh(gi_n + r * gh_n)``; ``h' = n + z * (h - n)``;
- RNN: ``h' = tanh`` or ``relu(gi + h @ w_hh.T (+ b_hh))``.

Inputs, in order (``attrs`` say which of the optional ones are there):
``gi`` (T, N, G*H), or (N, T, G*H) with ``batch_first``; ``h0`` (N, H) and, for
LSTM, ``c0`` (``has_h0``; zeros otherwise); ``w_hh`` (G*H, H); ``b_hh`` (G*H,)
(``has_bias``); ``lens`` (N,) integers (``has_lens``). ``reverse`` runs the steps
from last to first. With ``lens``, step ``t`` of sequence ``b`` runs only when
``t < lens[b]`` (lengths clipped to [0, T]): elsewhere its output is zero and
its state stays as it was -- the last valid state going forward, the initial
one going backward, which therefore reverses only the first ``lens[b]`` steps,
as MindSpore's ``seq_length`` does.

Outputs: ``y`` (gi's layout, H wide), ``h_n`` (N, H), for LSTM ``c_n``, then
what the backward reads: ``hp`` (gi's layout), the state *before* each step,
and ``ws`` (T, N, K), per step the gates after their activations (LSTM: i, f,
g, o, tanh(c'), c; GRU: r, z, gh_n, n). The backward ops (``*_sequence_grad``)
take the output gradients and those and return ``d_gi`` (gi's layout; a GRU
also returns the gradient of ``gh``, which differs from ``d_gi`` in its n
block) and the initial states' gradients. They have no gradient of their own:
second derivatives through a recurrent layer raise naming them.

Example::

    y, h_n, c_n = lstm_sequence(gi, w_hh, h0, c0)     # gi (T, N, 4H), w_hh (4H, H)
"""

import numpy as np

from ... import dtype as _dt
from ..._core.dispatch import call
from ...tensor import Tensor
from .. import functional as F
from . import rnn_loops as _rnn_loops
from .._builtin import defop
from ..math.elementwise import matmul_t as _matmul_t
from .rnn_mindir import mindir_form
from .rnn_onnx import onnx_form

__all__ = ["lstm_sequence", "gru_sequence", "rnn_sequence", "KINDS"]

GATES = {"lstm": 4, "gru": 3, "rnn": 1}
KINDS = tuple(GATES)
ACTIVATIONS = ("tanh", "relu")
_WS = {"lstm": 6, "gru": 4}             # ws columns per hidden unit


# ------------------------------------------------------------------ inputs
def _positions(kind, attrs):
    """Where each input is: {'gi': 0, 'h0': .., 'c0': .., 'w': .., 'b': .., 'lens': ..} (absent ones missing)."""
    pos = {"gi": 0}
    k = 1
    if attrs["has_h0"]:
        pos["h0"] = k
        k += 1
        if kind == "lstm":
            pos["c0"] = k
            k += 1
    pos["w"] = k
    k += 1
    if attrs["has_bias"]:
        pos["b"] = k
        k += 1
    if attrs["has_lens"]:
        pos["lens"] = k
        k += 1
    pos["n"] = k
    return pos


def _time_major(a, batch_first):
    """A (T, N, ...) view of an array in the op's layout."""
    return a.transpose(1, 0, 2) if batch_first else a


def _dead_rows(lens, steps):
    """Per step, None when every sequence runs it, else the (N, 1) mask of those that do not."""
    if lens is None:
        return [None] * steps
    dead = np.arange(steps)[:, None] >= np.asarray(lens, np.int64)[None, :]
    return [dead[t][:, None] if dead[t].any() else None for t in range(steps)]


def _order(steps, reverse):
    return range(steps - 1, -1, -1) if reverse else range(steps)


# ------------------------------------------------------------------ forward kernels
MIN_LOOP_SIZE = 256     # batch * gates * hidden per step below which NumPy's calls cost as little as a loop


def _loops(use_loops, size, *arrays):
    """The compiled step loops when they should run (loaded, and the arrays fit them), else None."""
    if use_loops is None:
        use_loops = size >= MIN_LOOP_SIZE and _rnn_loops.fits(*arrays) and _rnn_loops.ready()
    return _rnn_loops.get() if use_loops else None


def _run_lengths(lens, n, steps):
    """Each sequence's number of steps as a contiguous int64 array (all of them without ``lens``)."""
    if lens is None:
        return np.full(n, steps, np.int64)
    return np.ascontiguousarray(lens, np.int64)


def _forward(kind, attrs, ins, use_loops=None):
    """The forward kernel; ``use_loops`` None chooses (tests force True or False to compare the two forms)."""
    pos = _positions(kind, attrs)
    gi, w = ins[0], ins[pos["w"]]
    b = ins[pos["b"]] if "b" in pos else None
    lens = ins[pos["lens"]] if "lens" in pos else None
    bf, reverse = attrs["batch_first"], attrs["reverse"]
    giv = _time_major(gi, bf)
    steps, n, gates = giv.shape
    hid = w.shape[1]
    dt = gi.dtype
    y = np.empty(gi.shape[:2] + (hid,), dt)
    hp = np.empty(y.shape, dt)
    yv, hpv = _time_major(y, bf), _time_major(hp, bf)
    h_n = np.empty((n, hid), dt)
    order = list(_order(steps, reverse))
    first = order[0]
    hpv[first] = ins[pos["h0"]] if "h0" in pos else 0
    dead = _dead_rows(lens, steps)
    loops = None if kind == "rnn" else _loops(use_loops, n * gates * hid, gi, *(() if b is None else (b,)))
    run = _run_lengths(lens, n, steps) if loops else None
    w_t = np.ascontiguousarray(w.T)                 # BLAS multiplies by it ~10% faster than by the transposed view
    seq = _Seq(giv, gi, w_t, b, hpv, hp, yv, y, h_n, order, dead, run, bf, loops)
    with np.errstate(over="ignore"):
        if kind == "lstm":
            ws = np.empty((steps, n, 6 * hid), dt)
            c_n = np.empty((n, hid), dt)
            ws[first, :, 5 * hid:] = ins[pos["c0"]] if "c0" in pos else 0
            _lstm_steps(seq, ws, c_n)
            return [y, h_n, c_n, hp, ws]
        if kind == "gru":
            ws = np.empty((steps, n, 4 * hid), dt)
            _gru_steps(seq, ws)
            return [y, h_n, hp, ws]
        _rnn_steps(seq, attrs["activation"])
        return [y, h_n, hp]


class _Seq:
    """What every forward step reads: the projection, the weights, the state and output arrays (with their
    time-major views), the step order, the rows past their lengths, and the loops (None: NumPy forms)."""

    __slots__ = ("giv", "gi", "w_t", "b", "hpv", "hp", "yv", "y", "h_n", "order", "dead", "run", "bf", "loops")

    def __init__(self, giv, gi, w_t, b, hpv, hp, yv, y, h_n, order, dead, run, bf, loops):
        self.giv, self.gi, self.w_t, self.b, self.hpv, self.hp = giv, gi, w_t, b, hpv, hp
        self.yv, self.y, self.h_n, self.order, self.dead, self.run, self.bf, self.loops = \
            yv, y, h_n, order, dead, run, bf, loops

    def steps(self):
        """(t, the step after it or -1) in the order the steps run."""
        order = self.order
        return [(t, order[k + 1] if k + 1 < len(order) else -1) for k, t in enumerate(order)]

    def bias(self):
        return self.b if self.b is not None else np.empty(0, self.gi.dtype)


def _lstm_steps(s, ws, c_n):
    """ws rows per step: i, f, o (sigmoid), g (tanh), tanh(c'), c (the cell before the step)."""
    hid = c_n.shape[1]
    h2, h3, h4, h5 = 2 * hid, 3 * hid, 4 * hid, 5 * hid
    n, dt = c_n.shape[0], c_n.dtype
    mm = np.empty((n, 4 * hid), dt)
    one, bias, loops = dt.type(1), s.bias(), s.loops
    for t, nxt in s.steps():
        row = ws[t]
        np.matmul(s.hpv[t], s.w_t, out=mm)
        if loops:
            loops["lstm_in"](mm, s.gi, bias, ws, t, s.bf, s.b is not None)
        else:
            np.add(mm, s.giv[t], out=mm)
            if s.b is not None:
                mm += s.b
            np.negative(mm[:, :h2], out=row[:, :h2])
            np.negative(mm[:, h3:], out=row[:, h2:h3])
            row[:, h3:h4] = mm[:, h2:h3]
        np.exp(row[:, :h3], out=row[:, :h3])
        np.tanh(row[:, h3:h4], out=row[:, h3:h4])
        c_new = c_n if nxt < 0 else ws[nxt, :, h5:]
        tc = row[:, h4:h5]
        if loops:
            loops["lstm_cell"](ws, t, nxt, c_n, one)
        else:
            sig = row[:, :h3]                                    # 1 / (exp(-x) + 1)
            sig += 1
            np.reciprocal(sig, out=sig)
            np.multiply(row[:, hid:h2], row[:, h5:], out=c_new)  # f * c + i * g
            np.multiply(row[:, :hid], row[:, h3:h4], out=tc)
            c_new += tc
            tc[...] = c_new
        np.tanh(tc, out=tc)
        if loops:
            loops["lstm_out"](ws, t, nxt, s.hp, s.h_n, s.y, c_n, s.bf, s.run)
            continue
        h_new = s.h_n if nxt < 0 else s.hpv[nxt]
        np.multiply(row[:, h2:h3], tc, out=h_new)                # o * tanh(c')
        _finish_step(s, t, h_new)
        if s.dead[t] is not None:
            np.copyto(c_new, row[:, h5:], where=s.dead[t])


def _finish_step(s, t, h_new):
    """The output of step ``t`` from its new state; rows that do not run it keep their state, output 0."""
    np.copyto(s.yv[t], h_new)
    m = s.dead[t]
    if m is not None:
        np.copyto(s.yv[t], 0, where=m)
        np.copyto(h_new, s.hpv[t], where=m)


def _gru_steps(s, ws):
    """ws rows per step: r, z (sigmoid), gh_n (h @ w_hn.T + b_hn), n (tanh)."""
    hid = s.h_n.shape[1]
    h2, h3 = 2 * hid, 3 * hid
    n, dt = s.h_n.shape[0], s.h_n.dtype
    mm = np.empty((n, 3 * hid), dt)
    one, bias, loops = dt.type(1), s.bias(), s.loops
    for t, nxt in s.steps():
        row, g = ws[t], s.giv[t]
        np.matmul(s.hpv[t], s.w_t, out=mm)
        if loops:
            loops["gru_in"](mm, s.gi, bias, ws, t, s.bf, s.b is not None)
        else:
            if s.b is not None:
                mm += s.b
            np.add(mm[:, :h2], g[:, :h2], out=row[:, :h2])
            np.negative(row[:, :h2], out=row[:, :h2])
            row[:, h2:h3] = mm[:, h2:]
        np.exp(row[:, :h2], out=row[:, :h2])
        nn = row[:, h3:]
        if loops:
            loops["gru_cell"](ws, s.gi, t, s.bf, one)
        else:
            sig = row[:, :h2]
            sig += 1
            np.reciprocal(sig, out=sig)
            np.multiply(row[:, :hid], row[:, h2:h3], out=nn)     # r * gh_n + gi_n
            nn += g[:, h2:]
        np.tanh(nn, out=nn)
        if loops:
            loops["gru_out"](ws, t, nxt, s.hp, s.h_n, s.y, s.bf, s.run)
            continue
        h_new = s.h_n if nxt < 0 else s.hpv[nxt]
        np.subtract(s.hpv[t], nn, out=h_new)                     # (h - n) * z + n
        h_new *= row[:, hid:h2]
        h_new += nn
        _finish_step(s, t, h_new)


def _rnn_steps(s, activation):
    for t, nxt in s.steps():
        h_new = s.h_n if nxt < 0 else s.hpv[nxt]
        np.matmul(s.hpv[t], s.w_t, out=h_new)
        h_new += s.giv[t]
        if s.b is not None:
            h_new += s.b
        if activation == "tanh":
            np.tanh(h_new, out=h_new)
        else:
            np.maximum(h_new, 0, out=h_new)
        _finish_step(s, t, h_new)


# ------------------------------------------------------------------ backward kernels
def _backward(kind, attrs, ins, use_loops=None):
    """Inputs: dy, dh_n, [dc_n], w_hh, then LSTM: ws; GRU: hp, ws; RNN: y; then [lens]."""
    bf, reverse = attrs["batch_first"], attrs["reverse"]
    dy = ins[0]
    k = 3 if kind == "lstm" else 2
    w = ins[k]
    lens = ins[-1] if attrs["has_lens"] else None
    dyv = _time_major(dy, bf)
    steps, n, hid = dyv.shape
    gates = w.shape[0]
    dt = dy.dtype
    d_gi = np.empty(dy.shape[:2] + (gates,), dt)
    dead = _dead_rows(lens, steps)
    order = list(_order(steps, not reverse))          # the forward's steps, last first
    dh = np.array(ins[1], dt)
    saved = ins[k + 1:k + 3] if kind == "gru" else ins[k + 1:k + 2]
    loops = None if kind == "rnn" else _loops(use_loops, n * gates * hid, dy, *saved)
    back = _Back(dyv, dy, w, d_gi, _time_major(d_gi, bf), order, dead,
                 _run_lengths(lens, n, steps) if loops else None, bf, loops)
    if kind == "lstm":
        dh, dc = _lstm_back(back, ins[k + 1], dh, np.array(ins[2], dt))
        return [d_gi, dh, dc]
    if kind == "gru":
        d_gh = np.empty_like(d_gi)
        dh = _gru_back(back, ins[k + 1], _time_major(ins[k + 1], bf), ins[k + 2], d_gh, _time_major(d_gh, bf), dh)
        return [d_gi, d_gh, dh]
    dh = _rnn_back(back, _time_major(ins[k + 1], bf), dh, attrs["activation"])
    return [d_gi, dh]


class _Back:
    """What every backward step reads (see ``_Seq``)."""

    __slots__ = ("dyv", "dy", "w", "d_gi", "dgv", "order", "dead", "run", "bf", "loops")

    def __init__(self, dyv, dy, w, d_gi, dgv, order, dead, run, bf, loops):
        self.dyv, self.dy, self.w, self.d_gi, self.dgv = dyv, dy, w, d_gi, dgv
        self.order, self.dead, self.run, self.bf, self.loops = order, dead, run, bf, loops


def _lstm_back(s, ws, dh, dc):
    hid = dh.shape[1]
    h2, h3, h4, h5 = 2 * hid, 3 * hid, 4 * hid, 5 * hid
    dt = dh.dtype
    one, loops = dt.type(1), s.loops
    dh_t, tmp, dc_t, dh_other, dc_other = (np.empty(dh.shape, dt) for _ in range(5))
    for t in s.order:
        d = s.dgv[t]
        m = s.dead[t]
        if loops:
            loops["lstm_back"](dh, dc, s.dy, ws, t, s.bf, s.run, s.d_gi, dc_other, one)
        else:
            row = ws[t]
            i, f, o, g = row[:, :hid], row[:, hid:h2], row[:, h2:h3], row[:, h3:h4]
            tc, c_prev = row[:, h4:h5], row[:, h5:]
            np.add(dh, s.dyv[t], out=dh_t)
            d_o = d[:, h3:h4]                                    # dh * tanh(c') * o * (1 - o)
            np.multiply(dh_t, tc, out=d_o)
            d_o *= o
            np.subtract(1, o, out=tmp)
            d_o *= tmp
            np.multiply(tc, tc, out=tmp)                         # dc + (1 - tanh(c')^2) * o * dh
            np.subtract(1, tmp, out=tmp)
            tmp *= o
            tmp *= dh_t
            np.add(dc, tmp, out=dc_t)
            d_i = d[:, :hid]                                     # dc * g * i * (1 - i)
            np.multiply(dc_t, g, out=d_i)
            d_i *= i
            np.subtract(1, i, out=tmp)
            d_i *= tmp
            d_f = d[:, hid:h2]                                   # dc * c * f * (1 - f)
            np.multiply(dc_t, c_prev, out=d_f)
            d_f *= f
            np.subtract(1, f, out=tmp)
            d_f *= tmp
            d_g = d[:, h2:h3]                                    # dc * i * (1 - g^2)
            np.multiply(dc_t, i, out=d_g)
            np.multiply(g, g, out=tmp)
            np.subtract(1, tmp, out=tmp)
            d_g *= tmp
            np.multiply(dc_t, f, out=dc_other)
            if m is not None:
                np.copyto(d, 0, where=m)
                np.copyto(dc_other, dc, where=m)
        np.matmul(d, s.w, out=dh_other)
        if m is not None:
            np.copyto(dh_other, dh, where=m)
        dh, dh_other = dh_other, dh
        dc, dc_other = dc_other, dc
    return dh, dc


def _gru_back(s, hp, hpv, ws, d_gh, dhv, dh):
    hid = dh.shape[1]
    h2, h3 = 2 * hid, 3 * hid
    dt = dh.dtype
    one, loops = dt.type(1), s.loops
    dh_t, tmp, dn, dh_z, dh_other = (np.empty(dh.shape, dt) for _ in range(5))
    for t in s.order:
        d, e = s.dgv[t], dhv[t]
        m = s.dead[t]
        if loops:
            loops["gru_back"](dh, s.dy, hp, ws, t, s.bf, s.run, s.d_gi, d_gh, dh_z, one)
        else:
            row = ws[t]
            r, z, ghn, nn = row[:, :hid], row[:, hid:h2], row[:, h2:h3], row[:, h3:]
            np.add(dh, s.dyv[t], out=dh_t)
            np.multiply(dh_t, z, out=dn)                         # dn = dh - dh * z
            np.subtract(dh_t, dn, out=dn)
            d_n = d[:, h2:]                                      # dn * (1 - n^2)
            np.multiply(nn, nn, out=tmp)
            np.subtract(1, tmp, out=tmp)
            np.multiply(dn, tmp, out=d_n)
            d_z = d[:, hid:h2]                                   # (h - n) * dh * z * (1 - z)
            np.subtract(hpv[t], nn, out=d_z)
            d_z *= dh_t
            d_z *= z
            np.subtract(1, z, out=tmp)
            d_z *= tmp
            d_r = d[:, :hid]                                     # dn' * gh_n * r * (1 - r)
            np.multiply(d_n, ghn, out=d_r)
            d_r *= r
            np.subtract(1, r, out=tmp)
            d_r *= tmp
            e[:, :h2] = d[:, :h2]
            np.multiply(d_n, r, out=e[:, h2:])                  # gh_n's share goes through r
            np.multiply(dh_t, z, out=dh_z)
            if m is not None:
                np.copyto(d, 0, where=m)
                np.copyto(e, 0, where=m)
        np.matmul(e, s.w, out=dh_other)
        dh_other += dh_z
        if m is not None:
            np.copyto(dh_other, dh, where=m)
        dh, dh_other = dh_other, dh
    return dh


def _rnn_back(s, yv, dh, activation):
    dh_t = np.empty_like(dh)
    dh_other = np.empty_like(dh)
    for t in s.order:
        d, y = s.dgv[t], yv[t]
        np.add(dh, s.dyv[t], out=dh_t)
        if activation == "tanh":                                 # (1 - y^2) * dh
            np.multiply(y, y, out=d)
            np.subtract(1, d, out=d)
            d *= dh_t
        else:                                                    # dh * (y > 0)
            np.multiply(dh_t, y > 0, out=d)
        np.matmul(d, s.w, out=dh_other)
        m = s.dead[t]
        if m is not None:
            np.copyto(d, 0, where=m)
            np.copyto(dh_other, dh, where=m)
        dh, dh_other = dh_other, dh
    return dh


# ------------------------------------------------------------------ shape and dtype rules
def _check(kind, attrs, shapes):
    """The inputs' shapes against each other; returns (steps, batch, hidden) in time-major order."""
    name = f"{kind}_sequence"
    pos = _positions(kind, attrs)
    if len(shapes) != pos["n"]:
        raise ValueError(f"op '{name}': expected {pos['n']} inputs for attrs {_flags(attrs)}, got {len(shapes)}")
    gi, w = list(shapes[0]), list(shapes[pos["w"]])
    if len(gi) != 3:
        raise ValueError(f"op '{name}': gi must be 3-D ({'N, T' if attrs['batch_first'] else 'T, N'}, "
                         f"gates * hidden), got shape {gi}")
    if len(w) != 2 or w[0] != GATES[kind] * w[1] or w[1] < 1:
        raise ValueError(f"op '{name}': w_hh must have shape ({GATES[kind]} * hidden, hidden), got {w}")
    hid = w[1]
    steps, n = (gi[1], gi[0]) if attrs["batch_first"] else (gi[0], gi[1])
    if gi[2] != w[0]:
        raise ValueError(f"op '{name}': the last axis of gi must be {GATES[kind]} * hidden = {w[0]}, got shape {gi}")
    if steps < 1:
        raise ValueError(f"op '{name}': the sequence must have at least one step, got gi of shape {gi}")
    for what in ("h0", "c0"):
        if what in pos and list(shapes[pos[what]]) != [n, hid]:
            raise ValueError(f"op '{name}': {what} must have shape (batch, hidden) = {[n, hid]}, got "
                             f"{list(shapes[pos[what]])}")
    if "b" in pos and list(shapes[pos["b"]]) != [w[0]]:
        raise ValueError(f"op '{name}': b_hh must have shape ({w[0]},), got {list(shapes[pos['b']])}")
    if "lens" in pos and list(shapes[pos["lens"]]) != [n]:
        raise ValueError(f"op '{name}': lens must have shape (batch,) = {[n]}, got {list(shapes[pos['lens']])}")
    return steps, n, hid


def _flags(attrs):
    return {k: attrs[k] for k in ("has_h0", "has_bias", "has_lens")}


def _forward_shape(kind):
    def infer(attrs, shapes):
        steps, n, hid = _check(kind, attrs, shapes)
        y = [n, steps, hid] if attrs["batch_first"] else [steps, n, hid]
        state = [n, hid]
        if kind == "lstm":
            return shapes, [y, state, state, list(y), [steps, n, 6 * hid]]
        if kind == "gru":
            return shapes, [y, state, list(y), [steps, n, 4 * hid]]
        return shapes, [y, state, list(y)]
    return infer


def _forward_type(kind):
    n_out = {"lstm": 5, "gru": 4, "rnn": 3}[kind]

    def infer(attrs, dtypes):
        name = f"{kind}_sequence"
        pos = _positions(kind, attrs)
        d = dtypes[0]
        if not _dt.is_floating(d):
            raise TypeError(f"op '{name}': gi must be a float tensor, got {d.name}")
        for what in ("h0", "c0", "w", "b"):
            if what in pos and dtypes[pos[what]] != d:
                raise TypeError(f"op '{name}': {what if what not in 'wb' else what + '_hh'} must have gi's dtype "
                                f"({d.name}), got {dtypes[pos[what]].name}")
        if "lens" in pos and not _dt.is_integral(dtypes[pos["lens"]]):
            raise TypeError(f"op '{name}': lens must be an integer tensor, got {dtypes[pos['lens']].name}")
        return dtypes, [d] * n_out
    return infer


def _backward_shape(kind):
    def infer(attrs, shapes):
        dy, w = list(shapes[0]), list(shapes[3 if kind == "lstm" else 2])
        d_gi = dy[:2] + [w[0]]
        state = list(shapes[1])
        if kind == "lstm":
            return shapes, [d_gi, state, state]
        if kind == "gru":
            return shapes, [d_gi, list(d_gi), state]
        return shapes, [d_gi, state]
    return infer


def _backward_type(kind):
    n_out = {"lstm": 3, "gru": 3, "rnn": 2}[kind]
    return lambda attrs, dtypes: (dtypes, [dtypes[0]] * n_out)


# ------------------------------------------------------------------ gradients
def _fgradient(kind):
    def gradient(ins, outs, g, attrs, needs=None):
        pos = _positions(kind, attrs)
        w = ins[pos["w"]]
        lens = (ins[pos["lens"]],) if "lens" in pos else ()
        if kind == "lstm":
            res = call(_GRAD_OPS[kind], (g[0], g[1], g[2], w, outs[4]) + lens, attrs)
            d_gi, d_gh, d_h0 = res[0], res[0], res[1:]
        elif kind == "gru":
            res = call(_GRAD_OPS[kind], (g[0], g[1], w, outs[2], outs[3]) + lens, attrs)
            d_gi, d_gh, d_h0 = res[0], res[1], res[2:]
        else:
            res = call(_GRAD_OPS[kind], (g[0], g[1], w, outs[0]) + lens, attrs)
            d_gi, d_gh, d_h0 = res[0], res[0], res[1:]
        grads = [None] * pos["n"]
        grads[0] = d_gi
        if "h0" in pos:
            grads[pos["h0"]] = d_h0[0]
            if "c0" in pos:
                grads[pos["c0"]] = d_h0[1]
        want_w = needs is None or needs[pos["w"]]
        want_b = "b" in pos and (needs is None or needs[pos["b"]])
        if want_w or want_b:
            gates = w._data.shape[0]
            d2 = F.reshape(d_gh, (-1, gates))
            if want_w:                                   # sum over steps of d_gates^T @ h_prev: one GEMM
                hp = outs[2 if kind == "gru" else 3 if kind == "lstm" else 2]
                grads[pos["w"]] = _matmul_t(d2, F.reshape(hp, (-1, w._data.shape[1])), True, False)
            if want_b:
                grads[pos["b"]] = F.reduce_sum(d2, 0)
        return grads
    return gradient


_OPS, _GRAD_OPS = {}, {}
_N_OUT = {"lstm": 5, "gru": 4, "rnn": 3}
for _kind in KINDS:
    _OPS[_kind] = defop(f"{_kind}_sequence", None, lambda a, i, k=_kind: _forward(k, a, i), _forward_shape(_kind),
                        _forward_type(_kind), _fgradient(_kind), num_outputs=_N_OUT[_kind],
                        doc=f"a whole {_kind.upper()} recurrence over the steps of gi (see mscustom/ops/nn/rnn.py)")
    _OPS[_kind].set_attr("FGradientNeeds", True)
    _OPS[_kind].set_attr("FOnnx", onnx_form(_kind, lambda attrs, k=_kind: _positions(k, attrs)))
    _OPS[_kind].set_attr("FMindIR", mindir_form(_kind, lambda attrs, k=_kind: _positions(k, attrs)))
    _GRAD_OPS[_kind] = defop(f"{_kind}_sequence_grad", None, lambda a, i, k=_kind: _backward(k, a, i),
                             _backward_shape(_kind), _backward_type(_kind), None,
                             num_outputs={"lstm": 3, "gru": 3, "rnn": 2}[_kind],
                             doc=f"backward through time of {_kind}_sequence: d_gi (GRU: and d_gh), the initial "
                                 "states' gradients")


# ------------------------------------------------------------------ functional forms
_ATTRS = {}


def _attrs(kind, batch_first, reverse, has_h0, has_bias, has_lens, activation):
    key = (kind, batch_first, reverse, has_h0, has_bias, has_lens, activation)
    a = _ATTRS.get(key)
    if a is None:
        a = {"batch_first": batch_first, "reverse": reverse, "has_h0": has_h0, "has_bias": has_bias,
             "has_lens": has_lens}
        if kind == "rnn":
            a["activation"] = activation
        a = _ATTRS[key] = a
    return a


def _run(kind, gi, w_hh, h0, c0, b_hh, seq_length, reverse, batch_first, activation="tanh"):
    name = f"{kind}_sequence"
    for what, t in (("gi", gi), ("w_hh", w_hh), ("h0", h0), ("c0", c0), ("b_hh", b_hh), ("seq_length", seq_length)):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"op '{name}': {what} must be a Tensor or None, got {type(t).__name__}")
    if kind == "lstm" and (h0 is None) != (c0 is None):
        raise ValueError(f"op '{name}': give both h0 and c0, or neither (zero initial states)")
    if kind == "rnn" and activation not in ACTIVATIONS:
        raise ValueError(f"op '{name}': activation must be one of {list(ACTIVATIONS)}, got {activation!r}")
    ins = [gi]
    if h0 is not None:
        ins += [h0, c0] if kind == "lstm" else [h0]
    ins.append(w_hh)
    if b_hh is not None:
        ins.append(b_hh)
    if seq_length is not None:
        ins.append(seq_length)
    attrs = _attrs(kind, bool(batch_first), bool(reverse), h0 is not None, b_hh is not None,
                   seq_length is not None, activation)
    return call(_OPS[kind], tuple(ins), attrs)


def lstm_sequence(gi, w_hh, h0=None, c0=None, b_hh=None, seq_length=None, reverse=False, batch_first=False):
    """One LSTM layer direction over the projected input ``gi``; returns ``(y, h_n, c_n)``.

    ``gi = x @ w_ih.T + b_ih`` (T, N, 4H), (N, T, 4H) with ``batch_first``;
    ``w_hh`` (4H, H); ``h0``, ``c0`` (N, H) or None (zeros); ``seq_length`` (N,)
    integers or None. See the module's text for the equations and ``seq_length``.

    Example::

        y, h_n, c_n = lstm_sequence(gi, w_hh)
    """
    return _run("lstm", gi, w_hh, h0, c0, b_hh, seq_length, reverse, batch_first)[:3]


def gru_sequence(gi, w_hh, h0=None, b_hh=None, seq_length=None, reverse=False, batch_first=False):
    """One GRU layer direction over ``gi`` (T, N, 3H); returns ``(y, h_n)``. ``b_hh`` is added inside the
    recurrence (the n gate multiplies ``h @ w_hn.T + b_hn`` by r).

    Example::

        y, h_n = gru_sequence(gi, w_hh, b_hh=b_hh)
    """
    return _run("gru", gi, w_hh, h0, None, b_hh, seq_length, reverse, batch_first)[:2]


def rnn_sequence(gi, w_hh, h0=None, b_hh=None, seq_length=None, reverse=False, batch_first=False,
                 activation="tanh"):
    """One Elman RNN layer direction over ``gi`` (T, N, H); ``activation`` "tanh" or "relu"; returns ``(y, h_n)``.

    Example::

        y, h_n = rnn_sequence(gi, w_hh, activation="relu")
    """
    return _run("rnn", gi, w_hh, h0, None, b_hh, seq_length, reverse, batch_first, activation)[:2]
