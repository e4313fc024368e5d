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
import threading

import numpy as np

from ... import dtype as _dt
from ... import extend as _extend
from ..._core.dispatch import call
from ...tensor import Tensor
from .. import _products
from . import attention_loops as _attention_loops
from .._builtin import tensor_arg

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
    """(mode, mask reshaped to its view shape) per mask input: arrays that broadcast against the scores."""
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
# The kernels write into the outputs the dispatcher hands them (each plan gives its previous
# buffers out again once nothing holds them: no fresh pages per step) and keep their temporaries
# in per-thread scratch buffers, reused across calls; a fresh 1 MB array costs a page fault per
# 4 KB page, which on a virtual machine is dearer than the arithmetic done in it.
_SCRATCH = threading.local()
_SCRATCH_KEPT = 8               # buffers per thread (by role, shape and dtype); then the cache starts over


def _scratch(role, shape, dtype):
    """A per-thread work array of ``shape``/``dtype`` for ``role`` (never returned to the caller)."""
    bufs = getattr(_SCRATCH, "bufs", None)
    if bufs is None:
        bufs = _SCRATCH.bufs = {}
    key = (role, shape, dtype)
    buf = bufs.get(key)
    if buf is None:
        if len(bufs) >= _SCRATCH_KEPT:
            bufs.clear()
        buf = bufs[key] = np.empty(shape, dtype)
    return buf


def _product_shape(a, b):
    return tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2])) + (a.shape[-2], b.shape[-1])


def _store(dst, a, b, add=False):
    """``dst = a @ b`` (``+=`` when ``add``), summed over the batch dimensions ``dst`` broadcasts along."""
    if not add and _product_shape(a, b) == dst.shape:
        _products.matmul(a, b, out=dst)
        return
    r = _reduce_to(_products.matmul(a, b), dst.shape)
    if add:
        dst += r
    else:
        dst[...] = r


def _probs_into(attrs, q, k, masks, s):
    """``s`` = the softmax of the scaled, masked scores (batch + (L, S)); one sweep per row by the
    Numba loops where they apply (``attention_loops.py``)."""
    _products.matmul(q, _swap(k), out=s)
    if _attention_loops.takes(s):
        if masks:
            s *= s.dtype.type(attrs["scale"])
            _add_masks(s, masks)
        _attention_loops.softmax(s, 1.0 if masks else attrs["scale"])
        return
    s *= s.dtype.type(attrs["scale"])
    if not masks:
        s -= np.max(s, axis=-1, keepdims=True)
        np.exp(s, out=s)
        s /= np.sum(s, axis=-1, keepdims=True)
        return
    with np.errstate(invalid="ignore", divide="ignore"):    # fully masked rows: NaN, as documented
        _add_masks(s, masks)
        s -= np.max(s, axis=-1, keepdims=True)
        np.exp(s, out=s)
        s /= np.sum(s, axis=-1, keepdims=True)


def _add_masks(s, masks):
    """The masks applied to the scaled scores ``s``: ``add`` mode added, ``fill`` mode's nonzero places -inf."""
    for mode, m in masks:
        if mode == "add":
            s += m
        else:
            np.copyto(s, -np.inf, where=m if m.dtype == np.bool_ else m != 0)


def _heads_of(attrs, a):
    """An output or output gradient in the op's layout, as (batch, heads, L, Dv) (plain: as it is)."""
    layout = attrs["layout"]
    return a if layout == "plain" else _split_heads(a, layout, attrs["heads"])


def _attention_into(attrs, ins, req, outs):
    n = attrs["nsrc"]
    q, k, v = _qkv(attrs, ins[:n])
    out, p = outs
    _probs_into(attrs, q, k, _mask_views(attrs, ins[n:]), p)
    _products.matmul(p, v, out=_heads_of(attrs, out))


def _dropout_into(attrs, ins, req, outs):
    from ...nn.init import rng          # late: mscustom.nn imports mscustom.ops
    n = attrs["nsrc"]
    q, k, v = _qkv(attrs, ins[:n])
    out, w, p = outs
    _probs_into(attrs, q, k, _mask_views(attrs, ins[n:]), p)
    keep = 1.0 - attrs["p"]
    draw = _scratch("draw", p.shape, np.dtype(np.float64 if p.dtype == np.float64 else np.float32))
    rng().random(out=draw, dtype=draw.dtype)
    kept = _scratch("kept", p.shape, np.dtype(np.bool_))
    np.less(draw, keep, out=kept)
    np.multiply(p, kept, out=w)
    w *= w.dtype.type(1.0 / keep)
    _products.matmul(w, v, out=_heads_of(attrs, out))


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


def _attention_grad_into(attrs, ins, req, outs):
    n, nm = attrs["nsrc"], len(attrs["masks"])
    srcs, masks = ins[:n], ins[n:n + nm]
    drop = attrs["p"] > 0.0
    p, w = ins[n + nm], ins[n + nm + 1] if drop else ins[n + nm]
    dout = ins[n + nm + 1 + drop]
    dw = ins[n + nm + 2 + drop] if attrs["weights_grad"] else None
    q, k, v = _qkv(attrs, srcs)
    do = _heads_of(attrs, dout)
    da = _scratch("da", p.shape, p.dtype)
    _store(da, do, _swap(v))
    if dw is not None:
        da += dw
    grads = outs[:n]
    for g, tiled in zip(grads, _regions(attrs, srcs)):
        if not tiled:
            g.fill(0)
    layout = attrs["layout"]
    written = set()

    def dest(region):
        s, c0, c1 = region
        first = region not in written and layout != "plain"
        written.add(region)
        dst = grads[s] if layout == "plain" else _split_heads(grads[s][..., c0:c1], layout, attrs["heads"])
        return dst, not first

    dst, add = dest(attrs["cols"][2])
    _store(dst, _swap(w), do, add)                                      # dV = A^T dO
    if drop:
        np.copyto(da, 0, where=w == 0)
        da *= da.dtype.type(1.0 / (1.0 - attrs["p"]))
    mask_grads = attrs.get("mask_grads", ())
    if _attention_loops.takes(da, p):          # one sweep per row; the scale too unless masks read dS first
        _attention_loops.softmax_grad(da, p, 1.0 if mask_grads else attrs["scale"])
        scaled = not mask_grads
    else:
        with np.errstate(invalid="ignore"):
            da -= np.einsum("...i,...i->...", da, p)[..., None]
            da *= p                                                     # da is now dS, the scores' gradient
        scaled = False
    for j, i in enumerate(mask_grads):
        shape = attrs["masks"][i][1] or masks[i].shape
        outs[n + j][...] = _reduce_to(da, shape).reshape(masks[i].shape)
    if not scaled:
        da *= da.dtype.type(attrs["scale"])
    dst, add = dest(attrs["cols"][0])
    _store(dst, da, k, add)                                             # dQ = scale dS K
    dst, add = dest(attrs["cols"][1])
    _store(dst, _swap(da), q, add)                                      # dK = scale dS^T Q


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
def _defop(name, n_out, kernel, shape, dtype, gradient, doc):
    """A built-in op whose NumPy kernel writes into the outputs it is given (any number of inputs)."""
    op = _extend.def_op(name, None, n_out, doc, frontend="builtin")
    _extend.def_kernel(op, kernel, "all", allocates=False, nnvm_key=True)
    _extend.def_infer(op, shape=lambda attrs, shapes: shape(attrs, shapes)[1],
                      dtype=lambda attrs, dtypes: dtype(attrs, dtypes)[1])
    if gradient is not None:
        _extend.def_gradient(op, gradient)
        op.set_attr("FGradientNeeds", True)
    return op


_GRAD_OPS = {}


def _grad_op(n_out):
    """The backward op with ``n_out`` outputs (one per source, then one per float mask that needs one)."""
    op = _GRAD_OPS.get(n_out)
    if op is None:
        op = _GRAD_OPS[n_out] = _defop(
            f"attention_grad_{n_out}", n_out, _attention_grad_into, _grad_shape, _grad_type, None,
            "the gradient of attention / attention_dropout: one per source, then one per float mask asked "
            "for (mask_grads)")
    return op


def _attention_fgrad(ins, outs, g, attrs, needs=None):
    n = attrs["nsrc"]
    want = tuple(i for i, (mode, _) in enumerate(attrs["masks"])
                 if mode == "add" and ins[n + i]._data.dtype.kind == "f" and (needs is None or needs[n + i]))
    saved = (outs[2], outs[1], g[0]) if len(outs) == 3 else (outs[1], g[0])
    if attrs["weights_grad"]:
        saved += (g[1],)
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


_ATTENTION = _defop("attention", 2, _attention_into, _attention_shape, _attention_type, _attention_fgrad,
                    "softmax(q k^T * scale + masks) v over views of 1-3 sources; outputs (out, weights)")
_ATTENTION_DROPOUT = _defop("attention_dropout", 3, _dropout_into, _dropout_shape, _dropout_type,
                            _attention_fgrad,
                            "attention with dropout on the weights; outputs (out, dropped weights, softmax)")
_ATTENTION_DROPOUT.attrs["FRandom"] = True      # a fresh mask on every call: graph replays never fold it


# ------------------------------------------------------------------ functional forms
def attention(sources, cols, heads, layout, masks=(), scale=None, dropout_p=0.0, weights_grad=True):
    """The fused attention over views of ``sources``; returns ``(output, weights)``.

    ``sources``: 1-3 Tensors of one float dtype; ``cols``: for query, key and
    value, ``(source index, first column, end column)`` (ignored, whole
    sources, in the "plain" layout); ``layout``: "plain", "lne" or "nle" (see the
    module's text); ``masks``: ``(Tensor, mode, view shape or None)`` triples;
    ``scale``: default ``1 / sqrt(head size)``; ``dropout_p``: the probability of
    dropping a weight (0: no dropout). The weights are the ones after dropout.
    ``weights_grad=False`` promises that the weights returned are not used in
    anything differentiated (a caller that does not hand them out): their
    gradient, all zeros then, is not read.
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
             "scale": float(scale), "p": p, "weights_grad": bool(weights_grad)}
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
    out, weights = attention(sources, [(i, None, None) for i in index], 1, "plain", masks, scale, dropout_p,
                             weights_grad=return_weights)
    return (out, weights) if return_weights else out
