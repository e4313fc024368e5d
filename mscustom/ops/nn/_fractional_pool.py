"""Fractional max pooling with MindSpore 2.10's names: ``fractional_max_pool2d`` and
``fractional_max_pool3d``. Windows of ``kernel_size`` start at pseudo-random, increasing positions
(one uniform sample per plane and axis: ``_random_samples``, else drawn from ``ms.set_seed``'s
generator); the maxima are gathered with a differentiable gather."""

import numpy as np

from ..._core import capture as _capture
from ..._core.registry import register_function
from ...tensor import Tensor
from .. import functional as F
from ..array.creation import gather
from ._common import const, float_tensor, int_tuple
from ._tensor_rng import draw_uniform


def _starts(sample, size, out, k):
    """Window starts along one axis for each plane's sample (planes,) -> (planes, out)."""
    if out == 1:
        return np.full((sample.shape[0], 1), size - k, np.int64)
    alpha = (size - k) / (out - 1)
    i = np.arange(out - 1)[None, :]
    seq = (np.floor((i + sample[:, None]) * alpha) - np.floor(sample[:, None] * alpha)).astype(np.int64)
    return np.concatenate([seq, np.full((sample.shape[0], 1), size - k, np.int64)], 1)


def _fractional(name, x, nd, kernel_size, output_size, output_ratio, return_indices, samples):
    t = float_tensor(x, name)
    if t.ndim not in (nd + 1, nd + 2):
        raise ValueError(f"op '{name}': input must be {nd + 1}-D or {nd + 2}-D, got shape {list(t.shape)}")
    batched = t.ndim == nd + 2
    if not batched:
        t = F.expand_dims(t, 0)
    n, c = t.shape[:2]
    spatial = tuple(t.shape[2:])
    k = int_tuple(kernel_size, nd, name, "kernel_size", 1)
    if output_size is not None:
        outs = int_tuple(output_size, nd, name, "output_size", 1)
    elif output_ratio is not None:
        ratio = tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * nd
        if len(ratio) != nd or not all(0 < r < 1 for r in ratio):
            raise ValueError(f"op '{name}': output_ratio must be {nd} values in (0, 1), got {output_ratio!r}")
        outs = tuple(int(s * r) for s, r in zip(spatial, ratio))
    else:
        raise ValueError(f"op '{name}': output_size or output_ratio must be given")
    for s, o, kk in zip(spatial, outs, k):
        if o + kk - 1 > s or o < 1:
            raise ValueError(f"op '{name}': output size {list(outs)} with kernel {list(k)} does not fit the input "
                             f"{list(spatial)}")
    if samples is None:
        smp = draw_uniform((n, c, nd))._data
    else:
        smp = np.asarray(_capture.read_values(samples) if isinstance(samples, Tensor) else samples, np.float64)
        if smp.shape != (n, c, nd):
            raise ValueError(f"op '{name}': _random_samples must have shape {[n, c, nd]}, got {list(smp.shape)}")
    planes = n * c
    flat_s = smp.reshape(planes, nd)
    # the sample for the last axis comes first (width, height[, depth])
    starts = [_starts(flat_s[:, nd - 1 - j], spatial[j], outs[j], k[j]) for j in range(nd)]
    # each output cell's window positions, as flat indices into its plane
    pos = np.zeros((planes,) + tuple(outs) + tuple(k), np.int64)
    stride = 1
    for j in range(nd - 1, -1, -1):
        start = starts[j]
        shape = [planes] + [1] * (2 * nd)
        shape[1 + j] = outs[j]
        offs = np.arange(k[j]).reshape([1] * (1 + nd + j) + [k[j]] + [1] * (nd - j - 1))
        pos = pos + (start.reshape(shape) + offs) * stride
        stride *= spatial[j]
    plane_size = int(np.prod(spatial))
    rows = pos + (np.arange(planes) * plane_size).reshape((planes,) + (1,) * (2 * nd))
    vals = gather(F.reshape(t, (-1,)), const(rows.reshape(-1)), 0)
    vals = F.reshape(vals, (n, c) + tuple(outs) + (int(np.prod(k)),))
    out = F.amax(vals, -1)
    if not batched:
        out = F.squeeze(out, 0)
    if not return_indices:
        return out
    arg = np.argmax(_capture.read_values(vals), -1).reshape(-1)
    idx = np.take_along_axis(pos.reshape(planes * int(np.prod(outs)), -1), arg[:, None], 1)
    idx = idx.reshape((n, c) + tuple(outs))
    return out, Tensor._wrap(np.array(idx if batched else idx[0], np.int64, order="C"))


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """Fractional max pooling of (N, C, H, W) (or (C, H, W)) to ``output_size`` (or ``output_ratio`` of
    the input); ``return_indices`` also gives each maximum's flat position in its H*W plane (int64)."""
    return _fractional("fractional_max_pool2d", input, 2, kernel_size, output_size, output_ratio,
                       return_indices, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """Fractional max pooling of (N, C, D, H, W) (or (C, D, H, W)); indices are flat in D*H*W."""
    return _fractional("fractional_max_pool3d", input, 3, kernel_size, output_size, output_ratio,
                       return_indices, _random_samples)


__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]

for _name in __all__:
    register_function(_name, globals()[_name])
del _name
