"""Connectionist temporal classification with MindSpore 2.10's names: ``ctc_loss`` (an op whose forward
and gradient run the alpha/beta recursions in log space) and ``ctc_greedy_decoder``."""

import numpy as np

from ..._core import capture as _capture
from ..._core.dispatch import call
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import defop, tensor_arg
from ._common import check_reduction, float_tensor

_NEG = -np.inf


def _lse(a, b):
    m = np.maximum(a, b)
    with np.errstate(invalid="ignore", over="ignore"):
        out = m + np.log(np.exp(a - m) + np.exp(b - m))
    return np.where(np.isneginf(m), _NEG, out)


def _extended(targets, n, s_len, blank):
    """The blank-interleaved label sequences l' (N, 2S+1) and where l'[s] may skip l'[s-2]."""
    ext = np.full((n, 2 * s_len + 1), blank, np.int64)
    ext[:, 1::2] = targets[:, :s_len]
    skip = np.zeros(ext.shape, bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    return ext, skip


def _alphas(lp, ext, skip, in_len, tg_len):
    t_max, n, _ = lp.shape
    width = ext.shape[1]
    emit = np.take_along_axis(lp.transpose(1, 0, 2), ext[:, None, :], 2)        # (N, T, 2S+1)
    valid_s = np.arange(width)[None, :] < (2 * tg_len[:, None] + 1)
    alpha = np.full((n, t_max, width), _NEG, np.float64)
    alpha[:, 0, 0] = emit[:, 0, 0]
    alpha[:, 0, 1] = np.where(tg_len > 0, emit[:, 0, 1], _NEG) if width > 1 else alpha[:, 0, 0]
    for t in range(1, t_max):
        prev = alpha[:, t - 1]
        acc = prev.copy()
        acc[:, 1:] = _lse(acc[:, 1:], prev[:, :-1])
        acc[:, 2:] = np.where(skip[:, 2:], _lse(acc[:, 2:], prev[:, :-2]), acc[:, 2:])
        alpha[:, t] = acc + emit[:, t]
    alpha = np.where(valid_s[:, None, :], alpha, _NEG)
    alpha = np.where((np.arange(t_max)[None, :] < in_len[:, None])[:, :, None], alpha, _NEG)
    return alpha, emit, valid_s


def _nll(alpha, in_len, tg_len):
    n = alpha.shape[0]
    last = alpha[np.arange(n), np.maximum(in_len - 1, 0)]
    end = 2 * tg_len
    a = last[np.arange(n), end]
    b = np.where(tg_len > 0, last[np.arange(n), np.maximum(end - 1, 0)], _NEG)
    return -_lse(a, b)


def _ctc_compute(attrs, ins):
    lp, targets, in_len, tg_len = ins
    lp64 = lp.astype(np.float64)
    n = lp.shape[1]
    s_len = targets.shape[1] if targets.ndim == 2 else 0
    ext, skip = _extended(targets.reshape(n, -1).astype(np.int64), n, s_len, attrs["blank"])
    alpha, _, _ = _alphas(lp64, ext, skip, in_len.astype(np.int64), tg_len.astype(np.int64))
    nll = _nll(alpha, in_len.astype(np.int64), tg_len.astype(np.int64))
    if attrs["zero_infinity"]:
        nll = np.where(np.isinf(nll), 0.0, nll)
    return np.array(nll, lp.dtype), np.array(alpha, lp.dtype, order="C")


def _ctc_grad_compute(attrs, ins):
    g, lp, targets, in_len, tg_len = ins
    lp64 = lp.astype(np.float64)
    t_max, n, c = lp.shape
    s_len = targets.shape[1] if targets.ndim == 2 else 0
    il, tl = in_len.astype(np.int64), tg_len.astype(np.int64)
    ext, skip = _extended(targets.reshape(n, -1).astype(np.int64), n, s_len, attrs["blank"])
    alpha, emit, valid_s = _alphas(lp64, ext, skip, il, tl)
    width = ext.shape[1]
    beta = np.full((n, t_max, width), _NEG, np.float64)
    rows = np.arange(n)
    last_t = np.maximum(il - 1, 0)
    end = 2 * tl
    beta[rows, last_t, end] = emit[rows, last_t, end]
    has = tl > 0
    beta[rows[has], last_t[has], end[has] - 1] = emit[rows[has], last_t[has], end[has] - 1]
    skip_next = np.zeros(ext.shape, bool)              # l'[s] may jump to l'[s+2]
    skip_next[:, :-2] = skip[:, 2:]
    for t in range(t_max - 2, -1, -1):
        nxt = beta[:, t + 1]
        acc = nxt.copy()
        acc[:, :-1] = _lse(acc[:, :-1], nxt[:, 1:])
        acc[:, :-2] = np.where(skip_next[:, :-2], _lse(acc[:, :-2], nxt[:, 2:]), acc[:, :-2])
        fresh = acc + emit[:, t]
        active = (t < last_t)[:, None] & valid_s
        beta[:, t] = np.where(active, fresh, beta[:, t])
    nll = _nll(alpha, il, tl)
    ab = alpha + beta                                  # log of alpha_t(s) beta_t(s) (both hold y_t(l'_s))
    occ = np.full((n, t_max, c), _NEG, np.float64)
    for s in range(width):
        occ[rows, :, ext[:, s]] = _lse(occ[rows, :, ext[:, s]], ab[:, :, s])
    with np.errstate(invalid="ignore", over="ignore"):
        grad = -np.exp(occ - lp64.transpose(1, 0, 2) + nll[:, None, None])
    inf = np.isinf(nll)
    grad = np.where(inf[:, None, None] | np.isnan(grad), 0.0, grad)
    grad = grad * (np.arange(t_max)[None, :, None] < il[:, None, None])
    return np.array((grad * g[:, None, None]).transpose(1, 0, 2), lp.dtype, order="C")


def _ctc_grad(ins, outs, g, attrs):
    if g[0] is None:
        return [None] * 4
    dlp = call(_CTC_GRAD, (g[0],) + tuple(ins), attrs)
    return [dlp, None, None, None]


def _ctc_shape(attrs, shapes):
    lp, tg, il, tl = shapes
    if len(lp) != 3 or len(il) != 1 or len(tl) != 1 or il[0] != lp[1] or tl[0] != lp[1] or len(tg) != 2 \
            or tg[0] != lp[1]:
        raise ValueError(f"op 'ctc_loss': log_probs (T, N, C), targets (N, S), input_lengths (N,) and "
                         f"target_lengths (N,) expected, got {[list(s) for s in shapes]}")
    return shapes, [[lp[1]], [lp[1], lp[0], 2 * tg[1] + 1]]


_CTC = defop("ctc_loss", 4, _ctc_compute, _ctc_shape, lambda a, d: (d, [d[0], d[0]]), _ctc_grad, num_outputs=2,
             doc="the CTC negative log-likelihood per sample and the log alphas",
             arg_names=("log_probs", "targets", "input_lengths", "target_lengths"))
_CTC_GRAD = defop("ctc_loss_grad", 5, _ctc_grad_compute, lambda a, s: (s, [list(s[1])]),
                  lambda a, d: (d, [d[1]]), None, doc="the gradient of the CTC loss for log_probs",
                  arg_names=("dy", "log_probs", "targets", "input_lengths", "target_lengths"))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """The CTC loss of log-probabilities (T, N, C) for the padded ``targets`` (N, S): returns the loss
    (per sample for 'none'; 'mean' divides each by its target length first) and the log alphas
    (N, T, 2S + 1). ``zero_infinity`` turns infinite losses (impossible alignments) into 0."""
    check_reduction("ctc_loss", reduction)
    lp = float_tensor(log_probs, "ctc_loss", "log_probs")
    ts = [tensor_arg(t, "ctc_loss") for t in (targets, input_lengths, target_lengths)]
    for t in ts:
        if t._data.dtype.kind not in "iu":
            raise TypeError(f"op 'ctc_loss': targets and lengths must be integer tensors, got {t.dtype}")
    c = lp.shape[-1] if lp.ndim == 3 else 0
    if not 0 <= blank < max(c, 1):
        raise ValueError(f"op 'ctc_loss': blank must be in [0, {c}), got {blank}")
    nll, alpha = call(_CTC, (lp,) + tuple(ts), {"blank": int(blank), "zero_infinity": bool(zero_infinity)})
    if reduction == "none":
        loss = nll
    elif reduction == "sum":
        loss = F.sum(nll)
    else:
        lengths = np.maximum(ts[2]._data.astype(np.float64), 1).astype(lp._data.dtype)
        loss = F.mean(F.div(nll, Tensor._wrap(lengths)))
    return loss, alpha


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """Best-path decoding of (T, N, C) scores (the last class is the blank): the sparse decoded labels
    (indices (K, 2), values (K,), dense shape (2,), all int64) and each sequence's negative sum of its
    best scores (N, 1)."""
    x = float_tensor(inputs, "ctc_greedy_decoder", "inputs")
    lens = _capture.read_values(tensor_arg(sequence_length, "ctc_greedy_decoder")).astype(np.int64).reshape(-1)
    if x.ndim != 3 or lens.shape != (x.shape[1],):
        raise ValueError(f"op 'ctc_greedy_decoder': inputs (T, N, C) and sequence_length (N,) expected, got "
                         f"{list(x.shape)} and {list(lens.shape)}")
    if (lens > x.shape[0]).any():
        raise ValueError(f"op 'ctc_greedy_decoder': sequence lengths must not exceed T = {x.shape[0]}")
    a = _capture.read_values(x)
    blank = a.shape[2] - 1
    best = a.argmax(-1)
    idx, vals, logp, longest = [], [], [], 0
    for n in range(a.shape[1]):
        seq = best[:lens[n], n]
        logp.append(-a[np.arange(lens[n]), n, seq].sum())
        out, prev = [], None
        for label in seq:
            if not (merge_repeated and label == prev) and label != blank:
                out.append(int(label))
            prev = label
        idx += [[n, i] for i in range(len(out))]
        vals += out
        longest = max(longest, len(out))
    wrap = lambda v, dt: Tensor._wrap(np.array(v, dt, order="C"))   # noqa: E731
    return (wrap(np.array(idx, np.int64).reshape(-1, 2), np.int64), wrap(vals, np.int64),
            wrap([a.shape[1], longest], np.int64), wrap(np.array(logp).reshape(-1, 1), a.dtype))


__all__ = ["ctc_loss", "ctc_greedy_decoder"]

for _name in __all__:
    register_function(_name, globals()[_name])
del _name
