"""More of MindSpore's pooling Cells: AvgPool3d, MaxPool3d, AdaptiveAvgPool1d/3d, AdaptiveMaxPool1d/3d,
LPPool1d/2d and MaxUnpool1d/2d/3d.

Windows are gathered as strided slices of the (padded) input, one per kernel offset, and reduced
with differentiable ops (``maximum`` / ``add``), so gradients come from those ops. Argmax indices
(``return_indices``) are flat positions in each input plane (D*H*W), computed alongside.

Example::

    nn.MaxPool3d(kernel_size=2, stride=2)(x)          # (N, C, D, H, W) -> (N, C, D/2, H/2, W/2)
"""

import itertools
import math

import numpy as np

from .. import ops
from .._core import capture as _capture
from ..tensor import Tensor
from .cell import Cell

__all__ = ["AvgPool3d", "MaxPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


def _tuple(v, n, what, name, low=1):
    if isinstance(v, int) and not isinstance(v, bool):
        v = (v,) * n
    if not isinstance(v, (tuple, list)) or len(v) != n or not all(isinstance(a, int) and not isinstance(a, bool)
                                                                   for a in v):
        raise ValueError(f"{name}: {what} must be an int or a tuple of {n} ints, got {v!r}")
    if any(a < low for a in v):
        raise ValueError(f"{name}: {what} must be >= {low}, got {v!r}")
    return tuple(v)


def _float_input(x, name, ranks):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: the input must be a Tensor, got {type(x).__name__}")
    if x.ndim not in ranks:
        raise ValueError(f"{name}: the input must be {' or '.join(map(str, ranks))}-D, got shape {list(x.shape)}")
    if x._data.dtype.kind != "f":
        raise TypeError(f"{name}: the input must be a float tensor, got {x.dtype.name}")
    return x


def _out_size(n, k, s, d, before, after, ceil_mode):
    span = n + before + after - d * (k - 1) - 1
    if ceil_mode:
        out = -(-span // s) + 1
        if (out - 1) * s >= n + before:          # the last window must start inside the input or left pad
            out -= 1
    else:
        out = span // s + 1
    return out


def _windows(x, nd, kernel, stride, dilation, outs):
    """For each kernel offset, the strided slice of ``x`` (already padded) that it sees: a list of Tensors."""
    lead = (slice(None),) * (x.ndim - nd)
    parts = []
    for offs in itertools.product(*[range(k) for k in kernel]):
        idx = lead + tuple(slice(o * d, o * d + (n - 1) * s + 1, s)
                           for o, d, s, n in zip(offs, dilation, stride, outs))
        parts.append(x[idx])
    return parts


def _np_windows(a, nd, kernel, stride, dilation, outs):
    lead = (slice(None),) * (a.ndim - nd)
    for offs in itertools.product(*[range(k) for k in kernel]):
        yield a[lead + tuple(slice(o * d, o * d + (n - 1) * s + 1, s)
                             for o, d, s, n in zip(offs, dilation, stride, outs))]


class _Pool3d(Cell):
    _name = ""

    def __init__(self, kernel_size, stride, pad_mode, padding, ceil_mode, dilation=1):
        super().__init__()
        name = self._name
        self.kernel_size = _tuple(kernel_size, 3, "kernel_size", name)
        self.stride = _tuple(stride, 3, "stride", name)
        self.dilation = _tuple(dilation, 3, "dilation", name)
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("valid", "same", "pad"):
            raise ValueError(f"{name}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
        self.pad_mode = pad_mode.lower()
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = (padding,) * 3
        if not isinstance(padding, (tuple, list)) or len(padding) not in (1, 3) or not all(
                isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in padding):
            raise ValueError(f"{name}: padding must be an int or a tuple of 1 or 3 non-negative ints, got {padding!r}")
        self.padding = tuple(padding) * (3 if len(padding) == 1 else 1)
        if self.pad_mode != "pad" and any(self.padding):
            raise ValueError(f"{name}: padding must be 0 unless pad_mode is 'pad', got {padding!r}")
        if self.pad_mode != "pad" and ceil_mode:
            raise ValueError(f"{name}: ceil_mode needs pad_mode 'pad'")
        self.ceil_mode = bool(ceil_mode)

    def _geometry(self, spatial):
        """(before, after) padding of the input, the ceil-mode overhang after it, and the output sizes."""
        pads, extra, outs = [], [], []
        for n, k, s, d, p in zip(spatial, self.kernel_size, self.stride, self.dilation, self.padding):
            eff = d * (k - 1) + 1
            if self.pad_mode == "same":
                out = -(-n // s)
                total = max((out - 1) * s + eff - n, 0)
                before, after = total // 2, total - total // 2
            elif self.pad_mode == "valid":
                before = after = 0
                out = (n - eff) // s + 1
            else:
                before = after = p
                out = _out_size(n, k, s, d, p, p, self.ceil_mode)
            if out < 1:
                raise ValueError(f"{self._name}: the kernel does not fit the input of spatial shape {list(spatial)}")
            pads.append((before, after))
            extra.append(max((out - 1) * s + eff - (n + before + after), 0))
            outs.append(out)
        return pads, extra, outs


def _pad_flat(pads):
    flat = []
    for a, b in reversed(pads):
        flat += [a, b]
    return tuple(flat)


class AvgPool3d(_Pool3d):
    """Average over ``kernel_size`` windows of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) inputs.

    ``pad_mode``: "valid", "same" (output ``ceil(n / stride)``, zero padding counted) or "pad"
    (``padding`` on both sides; ``count_include_pad`` decides whether padded zeros count;
    ``ceil_mode`` lets a last, partial window in). ``divisor_override`` replaces the count.
    """
    _name = "AvgPool3d"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        if divisor_override is not None and (isinstance(divisor_override, bool) or
                                             not isinstance(divisor_override, int) or divisor_override == 0):
            raise ValueError(f"AvgPool3d: divisor_override must be a non-zero int or None, got {divisor_override!r}")
        self.count_include_pad, self.divisor_override = bool(count_include_pad), divisor_override

    def construct(self, x):
        x = _float_input(x, "AvgPool3d", (4, 5))
        spatial = tuple(x.shape[-3:])
        pads, extra, outs = self._geometry(spatial)
        full = [(a, b + e) for (a, b), e in zip(pads, extra)]
        xp = ops.pad(x, _pad_flat(full)) if any(a or b for a, b in full) else x
        total = None
        for part in _windows(xp, 3, self.kernel_size, self.stride, self.dilation, outs):
            total = part if total is None else ops.add(total, part)
        if self.divisor_override:
            return ops.div(total, float(self.divisor_override))
        # the count of each window: ones over the input (and the explicit padding when it counts)
        ones = np.ones(spatial, np.float64)
        if self.count_include_pad:
            ones = np.pad(ones, pads, constant_values=1.0)
            ones = np.pad(ones, [(0, e) for e in extra])
        else:
            ones = np.pad(ones, full)
        count = sum(w for w in _np_windows(ones, 3, self.kernel_size, self.stride, self.dilation, outs))
        return ops.div(total, Tensor(count.astype(x._data.dtype)))


class MaxPool3d(_Pool3d):
    """Maximum over ``kernel_size`` windows (with ``dilation``) of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs.

    ``return_indices`` also returns each maximum's flat position in its input plane (int64).
    Dilation other than 1 and ``return_indices`` need ``pad_mode="pad"``, as in MindSpore.
    """
    _name = "MaxPool3d"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, dilation)
        if (self.dilation != (1, 1, 1) or return_indices) and self.pad_mode != "pad":
            raise ValueError("MaxPool3d: pad_mode must be 'pad' when dilation is not 1 or return_indices is True")
        self.return_indices = bool(return_indices)

    def construct(self, x):
        x = _float_input(x, "MaxPool3d", (4, 5))
        spatial = tuple(x.shape[-3:])
        pads, extra, outs = self._geometry(spatial)
        full = [(a, b + e) for (a, b), e in zip(pads, extra)]
        xp = ops.pad(x, _pad_flat(full), value=float("-inf")) if any(a or b for a, b in full) else x
        best = None
        for part in _windows(xp, 3, self.kernel_size, self.stride, self.dilation, outs):
            best = part if best is None else ops.maximum(best, part)
        if not self.return_indices:
            return best
        # the indices: a host computation on x's values, redone at every graph replay
        idx = _capture.host_op(lambda a: (_argmax_windows(a, full, self.kernel_size, self.stride, self.dilation, outs,
                                                          np.int64),), (x,), Tensor._wrap)[0]
        return best, idx


def _argmax_windows(a, full, kernel, stride, dilation, outs, dtype):
    """Flat input-plane positions of each window's first maximum."""
    nd = len(kernel)
    lead = [(0, 0)] * (a.ndim - nd)
    vals = np.pad(a, lead + list(full), constant_values=-np.inf)
    pos = np.pad(np.arange(int(np.prod(a.shape[-nd:]))).reshape(a.shape[-nd:]), list(full), constant_values=-1)
    pos = np.broadcast_to(pos, vals.shape)
    best_v = best_i = None
    for v, i in zip(_np_windows(vals, nd, kernel, stride, dilation, outs),
                    _np_windows(pos, nd, kernel, stride, dilation, outs)):
        if best_v is None:
            best_v, best_i = v.copy(), i.copy()
        else:
            take = v > best_v
            best_v = np.where(take, v, best_v)
            best_i = np.where(take, i, best_i)
    return best_i.astype(dtype)


# ------------------------------------------------------------------ adaptive pooling
def _bounds(n, out):
    return [(math.floor(i * n / out), math.ceil((i + 1) * n / out)) for i in range(out)]


def _adaptive_axis(x, axis, out, mode):
    """Adaptive average or maximum along one axis (windows [floor(i n / o), ceil((i + 1) n / o)))."""
    n = x.shape[axis]
    if out == n:
        return x
    if mode == "avg":
        m = np.zeros((n, out), x._data.dtype)
        for i, (a, b) in enumerate(_bounds(n, out)):
            m[a:b, i] = 1.0 / (b - a)
        moved = ops.swapaxes(x, axis, -1) if axis != x.ndim - 1 else x
        y = ops.matmul(moved, Tensor(m))
        return ops.swapaxes(y, axis, -1) if axis != x.ndim - 1 else y
    pieces = []
    for a, b in _bounds(n, out):
        sl = (slice(None),) * axis + (slice(a, b),)
        pieces.append(ops.reduce_max(x[sl], axis, True))
    return ops.concat(pieces, axis)


def _output_size(output_size, spatial, name):
    n = len(spatial)
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        output_size = (output_size,) * n
    if not isinstance(output_size, (tuple, list)) or len(output_size) != n:
        raise ValueError(f"{name}: output_size must be an int or a tuple of {n} ints (or None), got {output_size!r}")
    out = []
    for o, s in zip(output_size, spatial):
        if o is None:
            out.append(s)
        elif isinstance(o, bool) or not isinstance(o, int) or o < 1:
            raise ValueError(f"{name}: output_size entries must be positive ints or None, got {output_size!r}")
        else:
            out.append(o)
    return tuple(out)


class AdaptiveAvgPool1d(Cell):
    """Average ``(N, C, L)`` inputs down to ``output_size`` along L; L must be a multiple of ``output_size``."""

    def __init__(self, output_size):
        super().__init__()
        if isinstance(output_size, bool) or not isinstance(output_size, int) or output_size < 1:
            raise ValueError(f"AdaptiveAvgPool1d: output_size must be a positive int, got {output_size!r}")
        self.output_size = output_size

    def construct(self, input):  # noqa: A002 - MindSpore's name
        x = _float_input(input, "AdaptiveAvgPool1d", (3,))
        n, c, length = x.shape
        if length % self.output_size:
            raise ValueError(f"AdaptiveAvgPool1d: the input's last dimension ({length}) must be divisible by "
                             f"output_size ({self.output_size})")
        return ops.reduce_mean(ops.reshape(x, (n, c, self.output_size, -1)), 3)


class AdaptiveMaxPool1d(Cell):
    """Maximum of ``(N, C, L)`` inputs down to ``output_size`` along L; L must be a multiple of ``output_size``."""

    def __init__(self, output_size):
        super().__init__()
        if isinstance(output_size, bool) or not isinstance(output_size, int) or output_size < 1:
            raise ValueError(f"AdaptiveMaxPool1d: output_size must be a positive int, got {output_size!r}")
        self.output_size = output_size

    def construct(self, x):
        x = _float_input(x, "AdaptiveMaxPool1d", (3,))
        n, c, length = x.shape
        if length % self.output_size:
            raise ValueError(f"AdaptiveMaxPool1d: the input's last dimension ({length}) must be divisible by "
                             f"output_size ({self.output_size})")
        return ops.reduce_max(ops.reshape(x, (n, c, self.output_size, -1)), 3)


class AdaptiveAvgPool3d(Cell):
    """Average ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs down to ``output_size`` (an int, or a tuple whose
    None entries keep that size); output cell ``i`` averages ``[floor(i n / o), ceil((i + 1) n / o))``."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size
        _output_size(output_size, (1, 1, 1), "AdaptiveAvgPool3d")

    def construct(self, input):  # noqa: A002 - MindSpore's name
        x = _float_input(input, "AdaptiveAvgPool3d", (4, 5))
        outs = _output_size(self.output_size, tuple(x.shape[-3:]), "AdaptiveAvgPool3d")
        for k, o in enumerate(outs):
            x = _adaptive_axis(x, x.ndim - 3 + k, o, "avg")
        return x


class AdaptiveMaxPool3d(Cell):
    """Maximum of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs down to ``output_size`` (windows as in
    AdaptiveAvgPool3d); ``return_indices`` also returns each maximum's flat D*H*W position (int32)."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, bool(return_indices)
        _output_size(output_size, (1, 1, 1), "AdaptiveMaxPool3d")

    def construct(self, input):  # noqa: A002 - MindSpore's name
        x = _float_input(input, "AdaptiveMaxPool3d", (4, 5))
        spatial = tuple(x.shape[-3:])
        outs = _output_size(self.output_size, spatial, "AdaptiveMaxPool3d")
        y = x
        for k, o in enumerate(outs):
            y = _adaptive_axis(y, y.ndim - 3 + k, o, "max")
        if not self.return_indices:
            return y
        def indices(a):
            flat = a.reshape(a.shape[:-3] + (-1,))
            pos = np.arange(flat.shape[-1]).reshape(spatial)
            idx = np.empty(a.shape[:-3] + outs, np.int32)
            for i, (d0, d1) in enumerate(_bounds(spatial[0], outs[0])):
                for j, (h0, h1) in enumerate(_bounds(spatial[1], outs[1])):
                    for k, (w0, w1) in enumerate(_bounds(spatial[2], outs[2])):
                        cand = pos[d0:d1, h0:h1, w0:w1].reshape(-1)
                        idx[..., i, j, k] = cand[np.argmax(flat[..., cand], axis=-1)]
            return (idx,)
        return y, _capture.host_op(indices, (x,), Tensor._wrap)[0]


# ------------------------------------------------------------------ power-average pooling
class _LPPool(Cell):
    _nd = 1
    _name = ""

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        name = self._name
        if isinstance(norm_type, bool) or not isinstance(norm_type, (int, float)) or norm_type == 0:
            raise ValueError(f"{name}: norm_type must be a non-zero number, got {norm_type!r}")
        self.norm_type = float(norm_type)
        self.kernel_size = _tuple(kernel_size, self._nd, "kernel_size", name)
        self.stride = self.kernel_size if stride is None else _tuple(stride, self._nd, "stride", name)
        self.ceil_mode = bool(ceil_mode)

    def construct(self, x):
        nd, name = self._nd, self._name
        x = _float_input(x, name, (nd + 1, nd + 2))
        spatial = tuple(x.shape[-nd:])
        outs = [_out_size(n, k, s, 1, 0, 0, self.ceil_mode) for n, k, s in zip(spatial, self.kernel_size,
                                                                             self.stride)]
        if min(outs) < 1:
            raise ValueError(f"{name}: the kernel does not fit the input of shape {list(x.shape)}")
        extra = [max((o - 1) * s + k - n, 0) for o, s, k, n in zip(outs, self.stride, self.kernel_size, spatial)]
        xp = ops.pow(x, self.norm_type)
        if any(extra):
            xp = ops.pad(xp, _pad_flat([(0, e) for e in extra]))
        total = None
        for part in _windows(xp, nd, self.kernel_size, self.stride, (1,) * nd, outs):
            total = part if total is None else ops.add(total, part)
        if any(extra):
            # a window cut by the edge: its mean over the part inside, times the full kernel size
            ones = np.pad(np.ones(spatial), [(0, e) for e in extra])
            count = sum(w for w in _np_windows(ones, nd, self.kernel_size, self.stride, (1,) * nd, outs))
            total = ops.mul(total, Tensor((np.prod(self.kernel_size) / count).astype(x._data.dtype)))
        return ops.pow(ops.mul(ops.sign(total), ops.relu(ops.abs(total))), 1.0 / self.norm_type)


class LPPool1d(_LPPool):
    """``(sum of x ** p over each window) ** (1 / p)`` along the last axis of ``(N, C, L)`` or ``(C, L)``."""
    _nd, _name = 1, "LPPool1d"


class LPPool2d(_LPPool):
    """``(sum of x ** p over each window) ** (1 / p)`` over the last two axes of ``(N, C, H, W)``."""
    _nd, _name = 2, "LPPool2d"

    def construct(self, x):
        if isinstance(x, Tensor) and x.ndim != 4:
            raise ValueError(f"LPPool2d: the input must be 4-D, got shape {list(x.shape)}")
        return super().construct(x)


# ------------------------------------------------------------------ unpooling
class _MaxUnpool(Cell):
    _nd = 1
    _name = ""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        name, nd = self._name, self._nd
        self.kernel_size = _tuple(kernel_size, nd, "kernel_size", name)
        self.stride = self.kernel_size if stride is None else _tuple(stride, nd, "stride", name)
        self.padding = _tuple(padding, nd, "padding", name, low=0)

    def construct(self, x, indices, output_size=None):
        nd, name = self._nd, self._name
        x = _float_input(x, name, (nd + 1, nd + 2))
        if not isinstance(indices, Tensor) or tuple(indices.shape) != tuple(x.shape) or \
                indices._data.dtype.kind not in "iu":
            raise ValueError(f"{name}: indices must be an int Tensor of the input's shape {list(x.shape)}")
        spatial_in = tuple(x.shape[-nd:])
        default = tuple((n - 1) * s - 2 * p + k for n, s, p, k in zip(spatial_in, self.stride, self.padding,
                                                                      self.kernel_size))
        if output_size is None or len(output_size) == 0:
            out_sp = default
        else:
            out_sp = tuple(output_size)[-nd:]
            for o, dflt, s in zip(out_sp, default, self.stride):
                if not dflt - s < o < dflt + s:
                    raise ValueError(f"{name}: output_size {tuple(output_size)} must be within one stride of "
                                     f"{default}")
        lead = tuple(x.shape[:-nd])
        n_in, n_out = int(np.prod(spatial_in)), int(np.prod(out_sp))

        def one_hot(ind):
            # a (rows, n_in, n_out) map: out = x @ map puts each value at its index (redone at every replay)
            idx = ind.reshape(-1, n_in).astype(np.int64)
            if idx.size and (idx.min() < 0 or idx.max() >= n_out):
                raise ValueError(f"{name}: indices must be in [0, {n_out}), got values from {idx.min()} to "
                                 f"{idx.max()}")
            m = np.zeros((idx.shape[0], n_in, n_out), x._data.dtype)
            m[np.arange(idx.shape[0])[:, None], np.arange(n_in)[None, :], idx] = 1
            return (m,)
        onehot = _capture.host_op(one_hot, (indices,), Tensor._wrap)[0]
        flat = ops.reshape(x, (-1, 1, n_in))
        y = ops.matmul(flat, onehot)
        return ops.reshape(y, lead + out_sp)


class MaxUnpool1d(_MaxUnpool):
    """Undo MaxPool1d: put each value of ``(N, C, L)`` at its ``indices`` position, zeros elsewhere.

    The output length is ``(L - 1) * stride - 2 * padding + kernel_size`` unless ``output_size`` says.
    """
    _nd, _name = 1, "MaxUnpool1d"


class MaxUnpool2d(_MaxUnpool):
    """Undo MaxPool2d for ``(N, C, H, W)`` or ``(C, H, W)`` inputs (indices flat in each H*W plane)."""
    _nd, _name = 2, "MaxUnpool2d"


class MaxUnpool3d(_MaxUnpool):
    """Undo MaxPool3d for ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs (indices flat in each D*H*W volume)."""
    _nd, _name = 3, "MaxUnpool3d"
