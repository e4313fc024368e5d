"""More neural-network functions with MindSpore 2.10's names: ``cosine_similarity``, ``pdist``,
``bias_add``, ``bidense``, ``lrn``, ``sequence_mask``, ``dropout1d``/``2d``/``3d``, ``clip_by_norm``,
``mirror_pad``, ``padding``, ``upsample``, ``top_k``, ``intopk``, ``unique_with_pad``.

Compositions of differentiable ops (gradients come from theirs); ``intopk``, ``sequence_mask`` and
``unique_with_pad`` give integer or bool results.
"""

import numpy as np

from ..._core import capture as _capture
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from .._builtin import tensor_arg
from ._common import const, float_tensor, int_arg


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """``sum(x1 * x2) / max(||x1|| * ||x2||, eps)`` along ``dim`` (the inputs broadcast)."""
    a = float_tensor(x1, "cosine_similarity", "x1")
    b = float_tensor(x2, "cosine_similarity", "x2")
    dot = F.sum(F.mul(a, b), dim)
    n1 = F.sqrt(F.sum(F.square(a), dim))
    n2 = F.sqrt(F.sum(F.square(b), dim))
    return F.div(dot, F.maximum(F.mul(n1, n2), const(eps, dot)))


def pdist(input, p=2.0):  # noqa: A002 - MindSpore's names
    """The ``p``-norm distances between the rows of (N, M), the upper triangle flattened: (N * (N - 1) / 2,)."""
    x = float_tensor(input, "pdist")
    if x.ndim != 2:
        raise ValueError(f"op 'pdist': input must be 2-D, got shape {list(x.shape)}")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0:
        raise ValueError(f"op 'pdist': p must be a non-negative float, got {p!r}")
    n = x.shape[-2]
    i, j = np.triu_indices(n, 1)
    diff = F.abs(F.sub(x[..., const(i), :], x[..., const(j), :]))
    if p == np.inf:
        return F.amax(diff, -1)
    if p == 0:
        return F.sum(F.cast(F.not_equal(diff, const(0, diff)), x.dtype), -1)
    if p == 1:
        return F.sum(diff, -1)
    if p == 2:
        # the gradient of sqrt at a zero distance is taken as 0
        sq = F.sum(F.square(diff), -1)
        zero = F.equal(sq, const(0, sq))
        return F.where(zero, F.zeros_like(sq), F.sqrt(F.where(zero, F.ones_like(sq), sq)))
    return F.pow(F.sum(F.pow(diff, float(p)), -1), 1.0 / p)


def bias_add(input_x, bias):
    """``input_x`` plus the 1-D ``bias`` along axis 1 (the channels)."""
    x = tensor_arg(input_x, "bias_add")
    b = tensor_arg(bias, "bias_add")
    if x.ndim < 2 or b.ndim != 1 or b.shape[0] != x.shape[1]:
        raise ValueError(f"op 'bias_add': bias must be 1-D with input_x's axis-1 size, got shapes "
                         f"{list(x.shape)} and {list(b.shape)}")
    if b.dtype != x.dtype:
        raise TypeError(f"op 'bias_add': input_x and bias must have one dtype, got {x.dtype} and {b.dtype}")
    return F.add(x, F.reshape(b, (-1,) + (1,) * (x.ndim - 2)))


def bidense(input1, input2, weight, bias=None):
    """The bilinear map ``out[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]``."""
    from ..linalg._products import einsum
    a = float_tensor(input1, "bidense", "input1")
    b = float_tensor(input2, "bidense", "input2")
    w = float_tensor(weight, "bidense", "weight")
    if w.ndim != 3 or a.shape[-1] != w.shape[1] or b.shape[-1] != w.shape[2] or a.shape[:-1] != b.shape[:-1]:
        raise ValueError(f"op 'bidense': input1 (..., in1), input2 (..., in2) and weight (out, in1, in2) "
                         f"expected, got {list(a.shape)}, {list(b.shape)} and {list(w.shape)}")
    lead = tuple(a.shape[:-1])
    a2, b2 = F.reshape(a, (-1, a.shape[-1])), F.reshape(b, (-1, b.shape[-1]))
    out = einsum("ni,oij,nj->no", a2, w, b2)
    if bias is not None:
        out = F.add(out, tensor_arg(bias, "bidense"))
    return F.reshape(out, lead + (w.shape[0],))


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """Local response normalization over channels (axis 1) of (N, C, H, W):
    ``x / (bias + alpha * sum_{|c' - c| <= depth_radius} x[c']^2) ^ beta``."""
    t = float_tensor(x, "lrn", "x")
    if t.ndim != 4:
        raise ValueError(f"op 'lrn': x must be 4-D (N, C, H, W), got shape {list(t.shape)}")
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"op 'lrn': norm_region must be 'ACROSS_CHANNELS', got {norm_region!r}")
    r = int_arg(depth_radius, "lrn", "depth_radius", 0)
    c = t.shape[1]
    band = (np.abs(np.arange(c)[:, None] - np.arange(c)[None, :]) <= r).astype(t._data.dtype)
    sq = F.transpose(F.square(t), (0, 2, 3, 1))
    summed = F.transpose(F.matmul(sq, const(band)), (0, 3, 1, 2))
    return F.div(t, F.pow(F.add(F.mul(summed, float(alpha)), float(bias)), float(beta)))


def sequence_mask(lengths, maxlen=None):
    """``out[..., j] = j < lengths[...]``: a bool mask of shape (*lengths.shape, maxlen) (``maxlen``
    defaults to the largest length)."""
    n = tensor_arg(lengths, "sequence_mask")
    if n._data.dtype.kind not in "iu":
        raise TypeError(f"op 'sequence_mask': lengths must be an integer tensor, got {n.dtype}")
    if maxlen is None:             # asnumpy: a graph capture sees the shape come from data (and runs eagerly)
        maxlen = int(n.asnumpy().max()) if n.size else 0
    maxlen = int_arg(maxlen.item() if isinstance(maxlen, Tensor) else maxlen, "sequence_mask", "maxlen", 1)
    # a host op: a graph replay computes the mask from that call's lengths
    return _capture.host_op(lambda a: (np.arange(maxlen) < a[..., None],), (n,), Tensor._wrap)[0]


def _channel_dropout(name, x, p, training, rank):
    t = float_tensor(x, name)
    if t.ndim not in (rank - 1, rank):
        raise ValueError(f"op '{name}': input must be {rank - 1}-D or {rank}-D, got shape {list(t.shape)}")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise ValueError(f"op '{name}': p must be a float in [0, 1], got {p!r}")
    if not training or p == 0:
        return t
    from ._tensor_rng import draw_uniform
    spatial = rank - 2
    keep_shape = tuple(t.shape[:t.ndim - spatial]) + (1,) * spatial
    u = draw_uniform(keep_shape)
    keep = F.cast(F.greater_equal(u, const(p, u)), t.dtype)
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    return F.mul(t, F.mul(keep, scale))


def dropout1d(input, p=0.5, training=True):  # noqa: A002
    """Zeroes whole channels of (N, C, L) (or (C, L)) with probability ``p``; the rest scaled by 1/(1-p)."""
    return _channel_dropout("dropout1d", input, p, training, 3)


def dropout2d(input, p=0.5, training=True):  # noqa: A002
    """Zeroes whole channels of (N, C, H, W) with probability ``p``; the rest scaled by 1/(1-p)."""
    return _channel_dropout("dropout2d", input, p, training, 4)


def dropout3d(input, p=0.5, training=True):  # noqa: A002
    """Zeroes whole channels of (N, C, D, H, W) with probability ``p``; the rest scaled by 1/(1-p)."""
    return _channel_dropout("dropout3d", input, p, training, 5)


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """``x`` (a Tensor or a list/tuple of Tensors) scaled by ``max_norm / (total_norm + 1e-6)`` when its
    total ``norm_type``-norm exceeds ``max_norm``."""
    many = isinstance(x, (list, tuple))
    ts = [float_tensor(t, "clip_by_norm", "x") for t in (x if many else [x])]
    if norm_type == np.inf:
        norms = [F.amax(F.abs(t)) for t in ts]
        total = norms[0]
        for n in norms[1:]:
            total = F.maximum(total, n)
    else:
        p = float(norm_type)
        total = None
        for t in ts:
            part = F.sum(F.pow(F.abs(t), p))
            total = part if total is None else F.add(total, part)
        total = F.pow(total, 1.0 / p)
    if error_if_nonfinite:
        def finite(a):               # a capture check: every graph replay repeats it
            if not np.isfinite(a).all():
                raise RuntimeError(f"op 'clip_by_norm': the total norm is not finite ({float(a)})")
        _capture.check(finite, total)
    coef = F.div(float(max_norm), F.add(total, 1e-6))
    coef = F.minimum(coef, F.ones_like(coef))
    out = [F.mul(t, F.cast(coef, t.dtype)) for t in ts]
    return type(x)(out) if many else out[0]


def mirror_pad(input_x, paddings, mode):
    """``input_x`` padded by reflection: ``paddings`` (rank, 2) gives each axis' (before, after); mode
    'REFLECT' (edge not repeated) or 'SYMMETRIC' (edge repeated)."""
    x = tensor_arg(input_x, "mirror_pad")
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"op 'mirror_pad': mode must be 'REFLECT' or 'SYMMETRIC', got {mode!r}")
    pads = np.asarray(_capture.read_values(paddings) if isinstance(paddings, Tensor) else paddings).astype(np.int64)
    if pads.shape != (x.ndim, 2) or (pads < 0).any():
        raise ValueError(f"op 'mirror_pad': paddings must be non-negative of shape ({x.ndim}, 2), got "
                         f"{pads.tolist()}")
    out = x
    for axis, (lo, hi) in enumerate(pads):
        n = x.shape[axis]
        limit = n - 1 if mode == "REFLECT" else n
        if lo > limit or hi > limit:
            raise ValueError(f"op 'mirror_pad': padding {lo, hi} of axis {axis} exceeds {limit} for size {n} "
                             f"in mode {mode}")
        if lo == 0 and hi == 0:
            continue
        idx = np.arange(-lo, n + hi)
        if mode == "REFLECT":
            idx = np.abs(idx)
            idx = np.where(idx >= n, 2 * (n - 1) - idx, idx)
        else:
            idx = np.where(idx < 0, -idx - 1, idx)
            idx = np.where(idx >= n, 2 * n - 1 - idx, idx)
        sel = [slice(None)] * out.ndim
        sel[axis] = const(idx)
        out = out[tuple(sel)]
    return out


def padding(x, pad_dim_size=8):
    """``x`` (..., 1) widened with zeros to (..., pad_dim_size)."""
    t = tensor_arg(x, "padding")
    if t.ndim < 1 or t.shape[-1] != 1:
        raise ValueError(f"op 'padding': the last axis of x must have size 1, got shape {list(t.shape)}")
    n = int_arg(pad_dim_size, "padding", "pad_dim_size", 1)
    return F.concat((t, F.zeros_like(F.broadcast_to(t, tuple(t.shape[:-1]) + (n - 1,)))), -1) if n > 1 else t


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
             recompute_scale_factor=None):
    """``interpolate`` under its other name."""
    from ..array.pad_resize import interpolate
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


def top_k(input_x, k, sorted=True):  # noqa: A002
    """The ``k`` largest values along the last axis and their int32 indices."""
    from ..array.sort_gather import topk
    return topk(input_x, k, -1, True, sorted)


def intopk(x1, x2, k):
    """Whether each row's target class ``x2[i]`` is among the ``k`` largest of ``x1[i]`` (ties count
    in; a non-finite target score does not)."""
    s = float_tensor(x1, "intopk", "x1")
    t = tensor_arg(x2, "intopk")
    if s.ndim != 2 or t.shape != (s.shape[0],) or t._data.dtype.kind not in "iu":
        raise ValueError(f"op 'intopk': x1 (N, C) and integer x2 (N,) expected, got {list(s.shape)} and "
                         f"{t.dtype} {list(t.shape)}")
    k = int_arg(k, "intopk", "k")
    scores = _capture.read_values(s)
    target = scores[np.arange(scores.shape[0]), _capture.read_values(t).astype(np.int64)]
    greater = (scores > target[:, None]).sum(1)
    return Tensor._wrap(np.array((greater < k) & np.isfinite(target), order="C"))


def unique_with_pad(x, pad_num):
    """The unique values of the 1-D ``x`` in order of appearance, padded with ``pad_num`` to ``x``'s
    length, and each element's position among them."""
    t = tensor_arg(x, "unique_with_pad")
    if t.ndim != 1:
        raise ValueError(f"op 'unique_with_pad': x must be 1-D, got shape {list(t.shape)}")
    a = _capture.read_values(t)
    uniq, first, inverse = np.unique(a, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    vals = np.full(a.shape, pad_num, a.dtype)
    vals[:len(order)] = uniq[order]
    return Tensor._wrap(vals), Tensor._wrap(np.array(rank[inverse.reshape(-1)], a.dtype))


__all__ = ["cosine_similarity", "pdist", "bias_add", "bidense", "lrn", "sequence_mask", "dropout1d", "dropout2d",
           "dropout3d", "clip_by_norm", "mirror_pad", "padding", "upsample", "top_k", "intopk", "unique_with_pad"]

for _name in __all__:
    register_function(_name, globals()[_name], method=_name in ("top_k", "unique_with_pad"))
del _name
