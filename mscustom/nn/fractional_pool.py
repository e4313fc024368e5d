"""``FractionalMaxPool2d`` / ``FractionalMaxPool3d``: max pooling over ``kernel_size`` windows whose starts
follow a pseudo-random increasing sequence, so the output size is any ``output_size`` (or
``output_ratio`` times the input).

Per (sample, channel) and spatial axis, with ``u`` in [0, 1) (``_random_samples``, else uniform draws;
its last axis: W, H for 2-D inputs; D, H, W for 3-D ones, as in MindSpore) and ``alpha = (n_in - k) / (n_out - 1)``,
window ``i`` starts at ``int((i + u) * alpha) - int(u * alpha)`` and the last at ``n_in - k``.
The values are gathered with ``gather_elements``, so gradients reach the chosen maxima.

Example::

    nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))(x)          # (N, C, H, W) -> (N, C, H/2, W/2)
"""

import itertools

import numpy as np

from .. import ops
from .._core import capture as _capture
from ..tensor import Tensor
from .cell import Cell

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


def _starts(u, n_in, n_out, k):
    if n_out == 1:
        return np.array([n_in - k])
    alpha = (n_in - k) / (n_out - 1)
    s = [int((i + u) * alpha) - int(u * alpha) for i in range(n_out - 1)] + [n_in - k]
    return np.asarray(s)


class _FractionalMaxPool(Cell):
    _nd = 2
    _name = ""
    _u_axis = (1, 0)            # which entry of a sample's u serves each spatial axis

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        nd, name = self._nd, self._name

        def tup(v, what, kind):
            if isinstance(v, kind) and not isinstance(v, bool):
                v = (v,) * nd
            if not isinstance(v, (tuple, list)) or len(v) != nd:
                raise ValueError(f"{name}: {what} must be a number or a tuple of {nd}, got {v!r}")
            return tuple(v)
        self.kernel_size = tup(kernel_size, "kernel_size", int)
        if any(k < 1 for k in self.kernel_size):
            raise ValueError(f"{name}: kernel_size must be positive, got {kernel_size!r}")
        if (output_size is None) == (output_ratio is None):
            raise ValueError(f"{name}: exactly one of output_size and output_ratio must be given")
        self.output_size = None if output_size is None else tup(output_size, "output_size", int)
        self.output_ratio = None if output_ratio is None else tup(output_ratio, "output_ratio", (int, float))
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"{name}: output_ratio must be in (0, 1), got {output_ratio!r}")
        self.return_indices = bool(return_indices)
        self._random_samples = _random_samples

    def construct(self, x):
        nd, name = self._nd, self._name
        if not isinstance(x, Tensor) or x.ndim not in (nd + 1, nd + 2) or x._data.dtype.kind != "f":
            raise ValueError(f"{name}: the input must be a {nd + 1}-D or {nd + 2}-D float Tensor, got "
                             f"{list(getattr(x, 'shape', [type(x).__name__]))}")
        batched = x.ndim == nd + 2
        if not batched:
            x = ops.expand_dims(x, 0)
        n, c = x.shape[:2]
        spatial = tuple(x.shape[2:])
        outs = self.output_size or tuple(int(s * r) for s, r in zip(spatial, self.output_ratio))
        for s, o, k in zip(spatial, outs, self.kernel_size):
            if o < 1 or o + k - 1 > s:
                raise ValueError(f"{name}: output size {outs} with kernel {self.kernel_size} does not fit the input "
                                 f"of spatial shape {list(spatial)}")
        strides = np.cumprod((1,) + spatial[::-1])[:-1][::-1]          # flat index step of each spatial axis
        offs = np.array([sum(o * st for o, st in zip(off, strides))
                         for off in itertools.product(*[range(k) for k in self.kernel_size])])

        def windows(*given):
            # the flat input positions of every window (fresh random starts at every call and graph replay)
            if given:
                u = np.asarray(given[0], np.float64)
                if u.shape != (n, c, nd):
                    raise ValueError(f"{name}: _random_samples must have shape {[n, c, nd]}, got {list(u.shape)}")
            else:
                from .init import rng
                u = rng().random((n, c, nd))
            index = np.empty((n, c) + tuple(outs) + (offs.size,), np.int64)
            for b in range(n):
                for ch in range(c):
                    starts = [_starts(u[b, ch, self._u_axis[a]], spatial[a], outs[a], self.kernel_size[a])
                              for a in range(nd)]
                    base = np.zeros(tuple(outs), np.int64)
                    for a in range(nd):
                        shape = [1] * nd
                        shape[a] = outs[a]
                        base = base + starts[a].reshape(shape) * strides[a]
                    index[b, ch] = base[..., None] + offs
            return (index.reshape(n, c, -1),)
        rs = self._random_samples
        if rs is not None and not isinstance(rs, Tensor):
            rs = Tensor(np.asarray(rs, np.float32))
        index = _capture.host_op(windows, (rs,) if rs is not None else (), Tensor._wrap)[0]
        flat = ops.reshape(x, (n, c, -1))
        picked = ops.gather_elements(flat, 2, index)
        picked = ops.reshape(picked, (n, c) + tuple(outs) + (offs.size,))
        y = ops.reduce_max(picked, -1)
        if not batched:
            y = ops.squeeze(y, 0)
        if not self.return_indices:
            return y
        def argmax(a, ind):
            vals = np.take_along_axis(a.reshape(n, c, -1), ind, 2).reshape((n, c) + tuple(outs) + (offs.size,))
            best = np.take_along_axis(ind.reshape(vals.shape), vals.argmax(-1)[..., None], -1)[..., 0]
            return (best if batched else best[0],)
        return y, _capture.host_op(argmax, (x, index), Tensor._wrap)[0]


class FractionalMaxPool2d(_FractionalMaxPool):
    """Fractional max pooling of ``(N, C, H, W)`` or ``(C, H, W)`` inputs; ``return_indices`` adds the flat H*W
    positions (int64). ``_random_samples`` (N, C, 2): ``u`` for W then H."""
    _nd, _name, _u_axis = 2, "FractionalMaxPool2d", (1, 0)


class FractionalMaxPool3d(_FractionalMaxPool):
    """Fractional max pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs; ``return_indices`` adds the flat
    D*H*W positions (int64). ``_random_samples`` (N, C, 3): ``u`` for D, H then W."""
    _nd, _name, _u_axis = 3, "FractionalMaxPool3d", (0, 1, 2)
