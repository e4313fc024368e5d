"""Fused scaled-dot-product attention: one op forward, one op backward.

``softmax(Q K^T * scale + masks) V`` per (batch, head), computed with batched
``np.matmul`` over every (batch, head) pair at once and a softmax shifted by
its row maximum. Built from separate ops the same attention costs a dozen op
calls and as many gradients, each allocating a (batch, heads, L, S) array; as
one op the scores are computed, masked, normalized and consumed in place, and
the backward is one kernel too:

    dV = A^T dO,   dA = dO V^T (+ the weights' own gradient),
    dS = P * (dA - rowsum(dA * P)),   dQ = scale * dS K,   dK = scale * dS^T Q

(``P`` the softmax, ``A`` the weights after dropout). Dropout on the weights
(``attention_dropout``) keeps ``A`` as an output; where ``A`` is 0 either the
element was dropped or ``P`` itself is 0, and ``dS`` is ``P`` times something
there, so the kept mask need not be stored.

Layouts. The queries, keys and values are read as views of their *sources*:

- ``plain``: ``query (..., L, E)``, ``key (..., S, E)``, ``value (..., S, Ev)``,
  batch dimensions broadcast; the output is ``(..., L, Ev)``.
- ``lne`` / ``nle``: the sources are sequence-first ``(L, N, C)`` or
  batch-first ``(N, L, C)`` projections; q, k and v are column ranges of them
  (``cols``), split into ``heads`` heads by views, so the packed output of a
  self-attention in-projection ``(L, N, 3E)`` is read without a copy, and its
  gradient is written in place into one ``(L, N, 3E)`` array. The output is in
  the same layout, ``(L, N, heads * Dv)`` (or ``(N, L, ...)``), ready for the
  out-projection; the weights are ``(N, heads, L, S)``.

Masks are added to the scaled scores after reshaping to a view shape that
broadcasts against them. Mode ``"fill"``: nonzero elements become ``-inf``
(masked out); mode ``"add"``: the values are added (a bool mask adds 0 or 1, as
MindSpore's MultiheadAttention does when it adds a boolean key padding mask to
a float attention mask). Float masks in mode ``"add"`` get a gradient (the
scores' gradient summed to their shape): learned position biases passed as
masks train. A row whose every key is masked has no softmax: its weights and
output are NaN.

The backward op (``attention_grad_<n>``, n its number of outputs) has no
gradient of its own: second derivatives through attention raise naming it.

Example::

    q = ms.Tensor(np.random.rand(2, 4, 5, 8).astype(np.float32))       # (batch, heads, L, E)
    out, weights = ops.scaled_dot_product_attention(q, q, q, return_weights=True)
"""

import math

import numpy as np

from .. import dtype as _dt
from .._core.dispatch import call
from ..tensor import Tensor
from ._builtin import defop, tensor_arg

__all__ = ["scaled_dot_product_attention", "attention"]

LAYOUTS = ("plain", "lne", "nle")
MODES = ("fill", "add")


# ------------------------------------------------------------------ views
def _split_heads(a, layout, heads):
    """A ``(L, N, E)`` ("lne") or ``(N, L, E)`` ("nle") array as an ``(N, heads, L, E // heads)`` view."""
    if layout == "lne":
        return a.reshape(a.shape[0], a.shape[1], heads, -1).transpose(1, 2, 0, 3)
    return a.reshape(a.shape[0], a.shape[1], heads, -1).transpose(0, 2, 1, 3)


def _qkv(attrs, srcs):
    """The query, key and value views of the sources."""
    layout = attrs["layout"]
    if layout == "plain":
        return [srcs[s] for s, _, _ in attrs["cols"]]
    h = attrs["heads"]
    return [_split_heads(srcs[s][..., c0:c1], layout, h) for s, c0, c1 in attrs["cols"]]


def _mask_views(attrs, masks):
    out = []
    for m, (mode, shape) in zip(masks, attrs["masks"]):
        if shape is not None:
            m = m.reshape(shape)
        out.append((mode, m))
    return out


def _reduce_to(a, shape):
    """``a`` summed over the broadcast dimensions that ``shape`` lacks or has as 1."""
    shape = tuple(shape)
    if a.shape == shape:
        return a
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and a.shape[lead + i] != 1)
    return a.sum(axis=axes, keepdims=True).reshape(shape) if axes else a.reshape(shape)


def _swap(a):
    return np.swapaxes(a, -1, -2)


# ------------------------------------------------------------------ kernels
def _probs(attrs, q, k, masks):
    """The softmax of the scaled, masked scores (a new array, batch + (L, S))."""
    s = np.matmul(q, _swap(k))
    s *= s.dtype.type(attrs["scale"])
    if not masks:
        mx = np.max(s, axis=-1, keepdims=True)
        s -= mx
        np.exp(s, out=s)
        s /= np.sum(s, axis=-1, keepdims=True)
        return s
    with np.errstate(invalid="ignore", divide="ignore"):    # fully masked rows: NaN, as documented
        for mode, m in masks:
            if mode == "add":
                s += m
            else:
                np.copyto(s, -np.inf, where=m if m.dtype == np.bool_ else m != 0)
        mx = np.max(s, axis=-1, keepdims=True)
        s -= mx
        np.exp(s, out=s)
        s /= np.sum(s, axis=-1, keepdims=True)
    return s


def _output(attrs, weights, v, like):
    """``weights @ v`` in the output layout."""
    layout = attrs["layout"]
    if layout == "plain":
        return np.matmul(weights, v)
    n, h, lq, dv = weights.shape[0], weights.shape[1], weights.shape[2], v.shape[-1]
    shape = (lq, n, h * dv) if layout == "lne" else (n, lq, h * dv)
    out = np.empty(shape, like.dtype)
    np.matmul(weights, v, out=_split_heads(out, layout, h))
    return out


def _attention_compute(attrs, ins):
    n = attrs["nsrc"]
    q, k, v = _qkv(attrs, ins[:n])
    p = _probs(attrs, q, k, _mask_views(attrs, ins[n:]))
    return [_output(attrs, p, v, q), p]


def _dropout_compute(attrs, ins):
    from ..nn.init import rng          # late: mscustom.nn imports mscustom.ops
    n = attrs["nsrc"]
    q, k, v = _qkv(attrs, ins[:n])
    p = _probs(attrs, q, k, _mask_views(attrs, ins[n:]))
    keep = 1.0 - attrs["p"]
    draw = rng().random(p.shape, dtype=np.float64 if p.dtype == np.float64 else np.float32)
    w = np.less(draw, keep).astype(p.dtype)
    w *= p.dtype.type(1.0 / keep)
    w *= p
    return [_output(attrs, w, v, q), w, p]


def _regions(attrs, srcs):
    """Per source: True when its q/k/v column ranges tile it exactly once (its gradient needs no zeros)."""
    if attrs["layout"] == "plain":
        return [False] * len(srcs)
    tiled = []
    for i, a in enumerate(srcs):
        spans = sorted((c0, c1) for s, c0, c1 in attrs["cols"] if s == i)
        pos, ok = 0, True
        for c0, c1 in spans:
            ok = ok and c0 == pos
            pos = c1
        tiled.append(ok and pos == a.shape[-1])
    return tiled


def _attention_grad_compute(attrs, ins):
    n, nm = attrs["nsrc"], len(attrs["masks"])
    srcs, masks = ins[:n], ins[n:n + nm]
    rest = ins[n + nm:]
    drop = len(rest) == 4
    if drop:
        p, w, dout, dw = rest
    else:
        p, dout, dw = rest
        w = p
    layout = attrs["layout"]
    q, k, v = _qkv(attrs, srcs)
    do = dout if layout == "plain" else _split_heads(dout, layout, attrs["heads"])
    da = _reduce_to(np.matmul(do, _swap(v)), p.shape)
    da += dw
    dv = np.matmul(_swap(w), do)
    if drop:
        np.copyto(da, 0, where=w == 0)
        da *= da.dtype.type(1.0 / (1.0 - attrs["p"]))
    with np.errstate(invalid="ignore"):
        tmp = np.multiply(da, p)
        da -= np.sum(tmp, axis=-1, keepdims=True)
        da *= p                         # da is now dS, the scores' gradient
    mask_grads = []
    for i in attrs.get("mask_grads", ()):
        shape = attrs["masks"][i][1] or masks[i].shape
        g = _reduce_to(da, shape)
        g = g.astype(masks[i].dtype, copy=g is da).reshape(masks[i].shape)      # a copy: da is scaled below
        mask_grads.append(g)
    da *= da.dtype.type(attrs["scale"])
    dq = np.matmul(da, k)
    dk = np.matmul(_swap(da), q)
    grads = [np.empty(a.shape, a.dtype) if t else np.zeros(a.shape, a.dtype)
             for a, t in zip(srcs, _regions(attrs, srcs))]
    written = set()
    for (s, c0, c1), g, view in zip(attrs["cols"], (dq, dk, dv), (q, k, v)):
        dst = grads[s]
        if layout != "plain":
            dst = _split_heads(dst[..., c0:c1], layout, attrs["heads"])
        g = _reduce_to(g, view.shape)
        region = (s, c0, c1)
        if region in written or layout == "plain":
            dst += g
        else:
            dst[...] = g
        written.add(region)
    return grads + mask_grads


# ------------------------------------------------------------------ rules
def _view_shapes(name, attrs, shapes):
    """The (query, key, value) view shapes, checked against the sources' shapes."""
    layout = attrs["layout"]
    if layout == "plain":
        out = [list(shapes[s]) for s, _, _ in attrs["cols"]]
        for what, sh in zip(("query", "key", "value"), out):
            if len(sh) < 2:
                raise ValueError(f"op '{name}': {what} must have at least 2 dimensions (..., length, features), "
                                 f"got shape {sh}")
        return out
    h = attrs["heads"]
    out = []
    for what, (s, c0, c1) in zip(("query", "key", "value"), attrs["cols"]):
        sh = shapes[s]
        if len(sh) != 3 or not 0 <= c0 < c1 <= sh[-1] or (c1 - c0) % h:
            raise ValueError(f"op '{name}': the {what} (columns {c0}:{c1} of a source of shape {list(sh)}) must "
                             f"be 3-D with a feature count divisible by the {h} heads")
        lq, nb = (sh[0], sh[1]) if layout == "lne" else (sh[1], sh[0])
        out.append([nb, h, lq, (c1 - c0) // h])
    return out


def _broadcast(name, a, b, what):
    try:
        return list(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        raise ValueError(f"op '{name}': the batch dimensions of {what} ({list(a)} and {list(b)}) do not "
                         "broadcast") from None


def _forward_shapes(name, attrs, shapes):
    q, k, v = _view_shapes(name, attrs, shapes)
    if q[-1] != k[-1]:
        raise ValueError(f"op '{name}': query and key must have the same feature size, got {q[-1]} and {k[-1]}")
    if k[-2] != v[-2]:
        raise ValueError(f"op '{name}': key and value must have the same length, got {k[-2]} and {v[-2]}")
    batch = _broadcast(name, q[:-2], k[:-2], "query and key")
    probs = batch + [q[-2], k[-2]]
    for i, ((mode, view), sh) in enumerate(zip(attrs["masks"], shapes[attrs["nsrc"]:])):
        vs = list(view) if view is not None else list(sh)
        if view is not None and int(np.prod(vs)) != int(np.prod(sh)):
            raise ValueError(f"op '{name}': mask {i} of shape {list(sh)} cannot be viewed as {vs}")
        try:
            fits = list(np.broadcast_shapes(tuple(vs), tuple(probs))) == probs
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"op '{name}': mask {i} of shape {list(sh)} does not broadcast to the attention "
                             f"scores' shape {probs}")
    if attrs["layout"] == "plain":
        out = _broadcast(name, batch, v[:-2], "the weights and value") + [q[-2], v[-1]]
        if out[:-2] != batch:
            raise ValueError(f"op '{name}': value's batch dimensions {v[:-2]} must broadcast to the query's and "
                             f"key's {batch}")
    else:
        nb, h, lq = q[0], q[1], q[2]
        if k[0] != nb or v[0] != nb:
            raise ValueError(f"op '{name}': query, key and value must have the same batch size, got "
                             f"{q[0]}, {k[0]} and {v[0]}")
        out = [lq, nb, h * v[-1]] if attrs["layout"] == "lne" else [nb, lq, h * v[-1]]
    return out, probs


def _float_sources(name, attrs, dtypes):
    n = attrs["nsrc"]
    d0 = dtypes[0]
    for i, d in enumerate(dtypes[:n]):
        if not _dt.is_floating(d):
            raise TypeError(f"op '{name}': query, key and value must be float16, float32 or float64, "
                            f"got {d.name}")
        if d != d0:
            raise TypeError(f"op '{name}': query, key and value must have one dtype, got {d0.name} and {d.name}")
    for i, d in enumerate(dtypes[n:n + len(attrs["masks"])]):
        if d.name != "bool" and d.name != "uint8" and not _dt.is_floating(d):
            raise TypeError(f"op '{name}': mask {i} must be bool, uint8 or float, got {d.name}")
    return d0


def _attention_shape(attrs, shapes):
    out, probs = _forward_shapes("attention", attrs, shapes)
    return shapes, [out, probs]


def _dropout_shape(attrs, shapes):
    out, probs = _forward_shapes("attention_dropout", attrs, shapes)
    return shapes, [out, probs, probs]


def _attention_type(attrs, dtypes):
    d = _float_sources("attention", attrs, dtypes)
    return dtypes, [d, d]


def _dropout_type(attrs, dtypes):
    d = _float_sources("attention_dropout", attrs, dtypes)
    return dtypes, [d, d, d]


def _grad_shape(attrs, shapes):
    n = attrs["nsrc"]
    return shapes, [list(s) for s in shapes[:n]] + [list(shapes[n + i]) for i in attrs.get("mask_grads", ())]


def _grad_type(attrs, dtypes):
    n = attrs["nsrc"]
    return dtypes, [dtypes[0]] * n + [dtypes[n + i] for i in attrs.get("mask_grads", ())]


# ------------------------------------------------------------------ the ops
_GRAD_OPS = {}


def _grad_op(n_out):
    """The backward op with ``n_out`` outputs (one per source, then one per float mask that needs one)."""
    op = _GRAD_OPS.get(n_out)
    if op is None:
        op = _GRAD_OPS[n_out] = defop(
            f"attention_grad_{n_out}", None, _attention_grad_compute, _grad_shape, _grad_type, None,
            num_outputs=n_out, doc="the gradient of attention / attention_dropout: one per source, then one per "
                                   "float mask asked for (mask_grads)")
    return op


def _attention_fgrad(ins, outs, g, attrs, needs=None):
    n = attrs["nsrc"]
    want = tuple(i for i, (mode, _) in enumerate(attrs["masks"])
                 if mode == "add" and ins[n + i]._data.dtype.kind == "f" and (needs is None or needs[n + i]))
    saved = (outs[2], outs[1], g[0], g[1]) if len(outs) == 3 else (outs[1], g[0], g[1])
    gattrs = dict(attrs, mask_grads=want) if want else attrs
    res = call(_grad_op(n + len(want)), tuple(ins) + saved, gattrs)
    res = res if isinstance(res, tuple) else (res,)
    grads = [None] * len(ins)
    for i in range(n):
        if needs is None or needs[i]:
            grads[i] = res[i]
    for j, i in enumerate(want):
        grads[n + i] = res[n + j]
    return grads


_ATTENTION = defop("attention", None, _attention_compute, _attention_shape, _attention_type, _attention_fgrad,
                   num_outputs=2, doc="softmax(q k^T * scale + masks) v over views of 1-3 sources; outputs "
                                      "(out, weights)")
_ATTENTION.set_attr("FGradientNeeds", True)
_ATTENTION_DROPOUT = defop("attention_dropout", None, _dropout_compute, _dropout_shape, _dropout_type,
                           _attention_fgrad, num_outputs=3,
                           doc="attention with dropout on the weights; outputs (out, dropped weights, softmax)")
_ATTENTION_DROPOUT.set_attr("FGradientNeeds", True)
_ATTENTION_DROPOUT.attrs["FRandom"] = True      # a fresh mask on every call: graph replays never fold it


# ------------------------------------------------------------------ functional forms
def attention(sources, cols, heads, layout, masks=(), scale=None, dropout_p=0.0):
    """The fused attention over views of ``sources``; returns ``(output, weights)``.

    ``sources``: 1-3 Tensors of one float dtype; ``cols``: for query, key and
    value, ``(source index, first column, end column)`` (ignored, whole
    sources, in the "plain" layout); ``layout``: "plain", "lne" or "nle" (see the
    module's text); ``masks``: ``(Tensor, mode, view shape or None)`` triples;
    ``scale``: default ``1 / sqrt(head size)``; ``dropout_p``: the probability of
    dropping a weight (0: no dropout). The weights are the ones after dropout.
    """
    if layout not in LAYOUTS:
        raise ValueError(f"attention: layout must be one of {LAYOUTS}, got {layout!r}")
    sources = tuple(sources)
    if layout == "plain":
        cols = tuple((int(c[0]), None, None) for c in cols)
        head = sources[cols[0][0]].shape[-1]
    else:
        cols = tuple((int(s), int(c0), int(c1)) for s, c0, c1 in cols)
        head = (cols[0][2] - cols[0][1]) // max(int(heads), 1)
    if len(cols) != 3 or any(not 0 <= c[0] < len(sources) for c in cols):
        raise ValueError(f"attention: cols must give (source, start, end) for query, key and value, got {cols!r}")
    if not isinstance(heads, (int, np.integer)) or isinstance(heads, bool) or heads < 1:
        raise ValueError(f"attention: heads must be a positive int, got {heads!r}")
    for m in masks:
        if m[1] not in MODES:
            raise ValueError(f"attention: a mask's mode must be one of {MODES}, got {m[1]!r}")
    p = float(dropout_p)
    if not 0.0 <= p < 1.0:
        raise ValueError(f"attention: dropout_p must be in [0, 1), got {dropout_p!r}")
    if scale is None:
        scale = 1.0 / math.sqrt(head) if head else 1.0
    attrs = {"layout": layout, "heads": int(heads), "cols": cols, "nsrc": len(sources),
             "masks": tuple((mode, None if view is None else tuple(int(s) for s in view)) for _, mode, view in masks),
             "scale": float(scale), "p": p}
    args = sources + tuple(m[0] for m in masks)
    if p > 0.0:
        out, weights, _ = call(_ATTENTION_DROPOUT, args, attrs)
        return out, weights
    return call(_ATTENTION, args, attrs)


def _mask_arg(m, what):
    if m is None:
        return None
    m = tensor_arg(m, "scaled_dot_product_attention")
    if m._data.dtype.kind not in "bf" and m._data.dtype != np.uint8:
        raise TypeError(f"op 'scaled_dot_product_attention': {what} must be bool, uint8 or float, "
                        f"got {m.dtype.name}")
    return m


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 key_padding_mask=None, return_weights=False):
    """``softmax(query @ key^T * scale + mask) @ value`` as one op (and one op for its gradient).

    ``query (..., L, E)``, ``key (..., S, E)``, ``value (..., S, Ev)``: one float
    dtype, batch dimensions broadcast; the result is ``(..., L, Ev)``.
    ``attn_mask``: broadcastable to ``(..., L, S)``; boolean (or uint8): True
    (nonzero) masks a position out, as in MindSpore's MultiheadAttention (the
    opposite of PyTorch's boolean ``attn_mask``); float: added to the scores
    (and differentiated). ``key_padding_mask (N, S)``: keys to ignore per batch
    element (the first batch dimension), bool or float likewise. ``is_causal``:
    also mask every key after the query's position. ``scale``: default
    ``1 / sqrt(E)``. ``dropout_p``: dropout on the weights (always applied when
    above 0). ``return_weights=True`` also returns the weights ``(..., L, S)``.

    Example::

        x = ms.Tensor(np.random.rand(2, 3, 4).astype(np.float32))
        ops.scaled_dot_product_attention(x, x, x, is_causal=True)        # (2, 3, 4)
    """
    q = tensor_arg(query, "scaled_dot_product_attention")
    k = tensor_arg(key, "scaled_dot_product_attention")
    v = tensor_arg(value, "scaled_dot_product_attention")
    sources, index = [], []
    for t in (q, k, v):                 # a tensor given twice is one source (one gradient)
        for i, s in enumerate(sources):
            if s is t:
                index.append(i)
                break
        else:
            index.append(len(sources))
            sources.append(t)
    masks = []
    am = _mask_arg(attn_mask, "attn_mask")
    if am is not None:
        masks.append((am, "fill" if am._data.dtype.kind != "f" else "add", None))
    kpm = _mask_arg(key_padding_mask, "key_padding_mask")
    if kpm is not None:
        if kpm.ndim != 2 or q.ndim < 3:
            raise ValueError(f"op 'scaled_dot_product_attention': key_padding_mask must be (N, S) for batched "
                             f"inputs, got shape {list(kpm.shape)} with query of shape {list(q.shape)}")
        view = (kpm.shape[0],) + (1,) * (q.ndim - 2) + (kpm.shape[1],)
        masks.append((kpm, "fill" if kpm._data.dtype.kind != "f" else "add", view))
    if is_causal:
        lq, lk = q.shape[-2], k.shape[-2]
        causal = np.triu(np.ones((lq, lk), np.bool_), 1)
        masks.append((Tensor(causal), "fill", None))
    out, weights = attention(sources, [(i, None, None) for i in index], 1, "plain", masks, scale, dropout_p)
    return (out, weights) if return_weights else out
