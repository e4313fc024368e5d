"""Numba loops for the per-step work of the recurrent sequence ops (``rnn.py``), one pass each.

Per step an LSTM or GRU does a dozen elementwise operations on (batch,
hidden) blocks; as NumPy calls on such small, strided blocks each costs more
in call overhead than in arithmetic. These loops do a step's elementwise work
between the transcendental functions in one pass each; ``exp`` and ``tanh``
stay NumPy calls (its vectorised functions, whose bits a loop could not
reproduce):

- ``lstm_in(mm, gi, b, ws, t, bf, has_b)``: the gates' pre-activations
  ``mm + gi[t] (+ b)`` into the step's row of ``ws``, in the order (i, f, o, g)
  (negated for the sigmoid gates, so that one ``exp`` serves all three);
- ``lstm_cell(ws, t, nxt, c_n, one)``: ``sigmoid = 1 / (exp(-x) + 1)`` for
  i, f, o and the new cell ``c' = f * c + i * g``, written as the next step's
  ``c`` (or ``c_n``) and where ``tanh(c')`` will be taken;
- ``lstm_out(ws, t, nxt, hp, h_n, y, c_n, bf, lens)``: ``h' = o * tanh(c')`` as the
  next step's state (or ``h_n``) and the output; a sequence past its length
  gets a zero output and keeps its state;
- ``lstm_back(dh, dc, dy, ws, t, bf, lens, d_gi, dc_out, one)``: one step of
  the backward: the four gates' gradients (MindSpore's order i, f, g, o) and
  the cell gradient carried to the step before;
- ``gru_in``, ``gru_cell``, ``gru_out``, ``gru_back``: the same for a GRU
  (``ws`` rows r, z, gh_n, n), ``gru_back`` writing ``d_gi`` and ``d_gh`` and
  ``dh * z`` (added to the product with ``w_hh`` after it).

``rnn.py`` has each one's NumPy form, which runs until these are loaded
and for other dtypes and layouts. The loops take float32 only (the recurrent
layers' dtype; float64 and float16 use the NumPy forms): loading them costs
a fresh process about a tenth of a second per loop from Numba's disk cache,
several seconds the first time on a machine, so they are loaded by
``_loop_loader``'s background thread and only in a program that asked for
them (a recurrent op ran with a size that fits, ``ready()``); a program whose
background load started before any recurrent op ran keeps the NumPy forms.
Each loop does the NumPy form's operations in the same order and precision
(float32 throughout: constants come in typed, as ``one``), and Numba compiles
without fast-math (nothing reordered or fused), so both give the same bits;
the tests compare them.
"""

import numpy as np

from .. import _loop_loader

__all__ = ["get", "ready", "fits", "FLOATS"]

FLOATS = (np.dtype(np.float32),)       # the dtypes the loops take
_LOOPS = {}
_ASKED = [False]                        # a recurrent op asked for the loops: the background load includes them


def _lstm_in(mm, gi, b, ws, t, bf, has_b):
    n, g4 = mm.shape
    h = g4 // 4
    for r in range(n):
        x = gi[r, t] if bf else gi[t, r]
        m = mm[r]
        w = ws[t, r]
        if has_b:
            for k in range(g4):
                m[k] = (m[k] + x[k]) + b[k]
        else:
            for k in range(g4):
                m[k] = m[k] + x[k]
        for k in range(2 * h):
            w[k] = -m[k]
        for k in range(h):
            w[2 * h + k] = -m[3 * h + k]
            w[3 * h + k] = m[2 * h + k]


def _lstm_cell(ws, t, nxt, c_n, one):
    n, h = c_n.shape
    for r in range(n):
        w = ws[t, r]
        for k in range(3 * h):
            w[k] = one / (w[k] + one)
        cd = c_n[r] if nxt < 0 else ws[nxt, r, 5 * h:]
        for k in range(h):
            c = w[h + k] * w[5 * h + k] + w[k] * w[3 * h + k]
            w[4 * h + k] = c
            cd[k] = c


def _lstm_out(ws, t, nxt, hp, h_n, y, c_n, bf, lens):
    n, h = h_n.shape
    for r in range(n):
        w = ws[t, r]
        hd = h_n[r] if nxt < 0 else (hp[r, nxt] if bf else hp[nxt, r])
        yr = y[r, t] if bf else y[t, r]
        if t >= lens[r]:
            hprev = hp[r, t] if bf else hp[t, r]
            cd = c_n[r] if nxt < 0 else ws[nxt, r, 5 * h:]
            for k in range(h):
                hd[k] = hprev[k]
                yr[k] = 0
                cd[k] = w[5 * h + k]
        else:
            for k in range(h):
                v = w[2 * h + k] * w[4 * h + k]
                hd[k] = v
                yr[k] = v


def _lstm_back(dh, dc, dy, ws, t, bf, lens, d_gi, dc_out, one):
    n, h = dh.shape
    for r in range(n):
        dg = d_gi[r, t] if bf else d_gi[t, r]
        if t >= lens[r]:
            for k in range(4 * h):
                dg[k] = 0
            for k in range(h):
                dc_out[r, k] = dc[r, k]
            continue
        w = ws[t, r]
        dyr = dy[r, t] if bf else dy[t, r]
        for k in range(h):
            i = w[k]
            f = w[h + k]
            o = w[2 * h + k]
            g = w[3 * h + k]
            tc = w[4 * h + k]
            cp = w[5 * h + k]
            dht = dh[r, k] + dyr[k]
            dg[3 * h + k] = ((dht * tc) * o) * (one - o)
            dct = dc[r, k] + ((one - tc * tc) * o) * dht
            dg[k] = ((dct * g) * i) * (one - i)
            dg[h + k] = ((dct * cp) * f) * (one - f)
            dg[2 * h + k] = (dct * i) * (one - g * g)
            dc_out[r, k] = dct * f


def _gru_in(mm, gi, b, ws, t, bf, has_b):
    n, g3 = mm.shape
    h = g3 // 3
    for r in range(n):
        x = gi[r, t] if bf else gi[t, r]
        m = mm[r]
        w = ws[t, r]
        if has_b:
            for k in range(g3):
                m[k] = m[k] + b[k]
        for k in range(2 * h):
            w[k] = -(m[k] + x[k])
        for k in range(h):
            w[2 * h + k] = m[2 * h + k]


def _gru_cell(ws, gi, t, bf, one):
    n = ws.shape[1]
    h = ws.shape[2] // 4
    for r in range(n):
        x = gi[r, t] if bf else gi[t, r]
        w = ws[t, r]
        for k in range(2 * h):
            w[k] = one / (w[k] + one)
        for k in range(h):
            w[3 * h + k] = w[k] * w[2 * h + k] + x[2 * h + k]


def _gru_out(ws, t, nxt, hp, h_n, y, bf, lens):
    n, h = h_n.shape
    for r in range(n):
        w = ws[t, r]
        hd = h_n[r] if nxt < 0 else (hp[r, nxt] if bf else hp[nxt, r])
        hprev = hp[r, t] if bf else hp[t, r]
        yr = y[r, t] if bf else y[t, r]
        if t >= lens[r]:
            for k in range(h):
                hd[k] = hprev[k]
                yr[k] = 0
        else:
            for k in range(h):
                nn = w[3 * h + k]
                v = (hprev[k] - nn) * w[h + k] + nn
                hd[k] = v
                yr[k] = v


def _gru_back(dh, dy, hp, ws, t, bf, lens, d_gi, d_gh, dh_z, one):
    n, h = dh.shape
    for r in range(n):
        dg = d_gi[r, t] if bf else d_gi[t, r]
        de = d_gh[r, t] if bf else d_gh[t, r]
        if t >= lens[r]:
            for k in range(3 * h):
                dg[k] = 0
                de[k] = 0
            for k in range(h):
                dh_z[r, k] = 0
            continue
        w = ws[t, r]
        dyr = dy[r, t] if bf else dy[t, r]
        hprev = hp[r, t] if bf else hp[t, r]
        for k in range(h):
            rr = w[k]
            z = w[h + k]
            ghn = w[2 * h + k]
            nn = w[3 * h + k]
            dht = dh[r, k] + dyr[k]
            dn = dht - dht * z
            d_n = dn * (one - nn * nn)
            dg[2 * h + k] = d_n
            d_z = (((hprev[k] - nn) * dht) * z) * (one - z)
            dg[h + k] = d_z
            d_r = ((d_n * ghn) * rr) * (one - rr)
            dg[k] = d_r
            de[k] = d_r
            de[h + k] = d_z
            de[2 * h + k] = d_n * rr
            dh_z[r, k] = dht * z


_FNS = {"lstm_in": _lstm_in, "lstm_cell": _lstm_cell, "lstm_out": _lstm_out, "lstm_back": _lstm_back,
        "gru_in": _gru_in, "gru_cell": _gru_cell, "gru_out": _gru_out, "gru_back": _gru_back}


def _compile():
    # error_model="numpy": a float division by zero gives inf as in NumPy (Python's model would test each
    # divisor to raise ZeroDivisionError, and that test keeps the compiler from vectorising the loop)
    return {name: _loop_loader.njit(fn, error_model="numpy") for name, fn in _FNS.items()}


def get():
    """The compiled loops by name, loaded now if need be."""
    if not _LOOPS:
        _LOOPS.update(_compile())
    return _LOOPS


def _load():
    """The loops, each called once with the argument types the kernels pass; None when nothing asked for them."""
    if not _ASKED[0]:
        return None
    loops = _compile()
    for dt in FLOATS:
        one = dt.type(1)
        lens = np.ones(1, np.int64)
        state = np.zeros((1, 1), dt)
        hseq = np.zeros((1, 1, 1), dt)
        for kind, gates in (("lstm", 4), ("gru", 3)):
            mm = np.zeros((1, gates), dt)
            seq = np.zeros((1, 1, gates), dt)
            ws = np.zeros((1, 1, 6 if kind == "lstm" else 4), dt)
            loops[kind + "_in"](mm, seq, np.zeros(gates, dt), ws, 0, False, True)
            if kind == "lstm":
                loops["lstm_cell"](ws, 0, -1, state, one)
                loops["lstm_out"](ws, 0, -1, hseq, state, hseq, state, False, lens)
                loops["lstm_back"](state, state, hseq, ws, 0, False, lens, seq, state, one)
            else:
                loops["gru_cell"](ws, seq, 0, False, one)
                loops["gru_out"](ws, 0, -1, hseq, state, hseq, False, lens)
                loops["gru_back"](state, hseq, hseq, ws, 0, False, lens, seq, seq, state, one)
    return loops


def _publish(loops):
    if loops is not None and not _LOOPS:
        _LOOPS.update(loops)


_loop_loader.register(_load, _publish)


def ready():
    """True once the loops are loaded; otherwise asks for them (loaded in the background) and says False."""
    if _LOOPS:
        return True
    _ASKED[0] = True
    _loop_loader.request()
    return bool(_LOOPS)


def fits(*arrays):
    """True when every array is C-contiguous with the first one's dtype, one the loops take (float32)."""
    return _loop_loader.fits(arrays, FLOATS)
