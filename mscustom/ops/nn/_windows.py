"""Sliding windows over the trailing spatial axes of (N, C, *spatial) tensors, in any number of
dimensions: ``im2col`` gathers every window (N, C, *kernel, *out) and ``col2im`` adds windows back.

Each is the other's gradient, so pooling, N-d convolution, ``unfold`` and ``fold`` built on them
differentiate (and differentiate again). Padding takes a fill value (``-inf`` for max pooling).
"""

import numpy as np

from ..._core.dispatch import call
from .._builtin import defop, same_type


def out_size(size, k, s, d, lo, hi):
    """The number of windows along one axis."""
    return (size + lo + hi - d * (k - 1) - 1) // s + 1


def _geometry(attrs, spatial):
    k, s, d, pads = attrs["kernel"], attrs["stride"], attrs["dilation"], attrs["pads"]
    return [out_size(n, kk, ss, dd, lo, hi) for n, kk, ss, dd, (lo, hi) in zip(spatial, k, s, d, pads)]


def _windows_view(xp, attrs, outs):
    """A (N, C, *kernel, *out) strided view of the padded array."""
    nd = len(outs)
    lead = xp.shape[:-nd]
    st = xp.strides[-nd:]
    shape = lead + tuple(attrs["kernel"]) + tuple(outs)
    strides = xp.strides[:-nd] + tuple(t * d for t, d in zip(st, attrs["dilation"])) + \
        tuple(t * s for t, s in zip(st, attrs["stride"]))
    return np.lib.stride_tricks.as_strided(xp, shape, strides, writeable=False)


def _im2col_compute(attrs, ins):
    x = ins[0]
    nd = len(attrs["kernel"])
    outs = _geometry(attrs, x.shape[-nd:])
    width = [(0, 0)] * (x.ndim - nd) + [tuple(p) for p in attrs["pads"]]
    xp = np.pad(x, width, constant_values=attrs["value"]) if any(p != (0, 0) for p in width) else x
    return np.array(_windows_view(np.ascontiguousarray(xp), attrs, outs), order="C")


def _im2col_shape(attrs, shapes):
    s = list(shapes[0])
    nd = len(attrs["kernel"])
    outs = _geometry(attrs, s[-nd:])
    if any(o <= 0 for o in outs):
        raise ValueError(f"op 'im2col': the windows (kernel {list(attrs['kernel'])}, dilation "
                         f"{list(attrs['dilation'])}) do not fit the padded input of shape {s}")
    return shapes, [s[:-nd] + list(attrs["kernel"]) + outs]


def _col2im_compute(attrs, ins):
    cols = ins[0]
    shape = tuple(attrs["shape"])
    nd = len(attrs["kernel"])
    pads = attrs["pads"]
    padded = tuple(shape[:-nd]) + tuple(n + lo + hi for n, (lo, hi) in zip(shape[-nd:], pads))
    out = np.zeros(padded, cols.dtype)
    outs = cols.shape[-nd:]
    lead = cols.ndim - 2 * nd
    for k in np.ndindex(*attrs["kernel"]):
        idx = tuple(slice(kk * d, kk * d + s * (o - 1) + 1, s)
                    for kk, d, s, o in zip(k, attrs["dilation"], attrs["stride"], outs))
        out[(Ellipsis,) + idx] += cols[(slice(None),) * lead + k]
    crop = tuple(slice(lo, lo + n) for n, (lo, hi) in zip(shape[-nd:], pads))
    return np.array(out[(Ellipsis,) + crop], order="C")


def _col2im_shape(attrs, shapes):
    return shapes, [list(attrs["shape"])]


def _im2col_grad(ins, outs, g, a):
    return [col2im(g[0], tuple(ins[0].shape), a["kernel"], a["stride"], a["dilation"], a["pads"])]


def _col2im_grad(ins, outs, g, a):
    return [im2col(g[0], a["kernel"], a["stride"], a["dilation"], a["pads"], 0.0)]


_IM2COL = defop("im2col", 1, _im2col_compute, _im2col_shape, same_type, _im2col_grad,
                doc="every sliding window of the trailing axes: (N, C, *kernel, *out)", arg_names=("x",))
_COL2IM = defop("col2im", 1, _col2im_compute, _col2im_shape, same_type, _col2im_grad,
                doc="windows (N, C, *kernel, *out) added back into the (N, C, *spatial) tensor", arg_names=("cols",))


def im2col(x, kernel, stride, dilation, pads, value=0.0):
    """The windows of ``x``'s last ``len(kernel)`` axes: shape (..., *kernel, *out); ``pads`` is one
    (low, high) pair per axis, filled with ``value``."""
    return call(_IM2COL, (x,), {"kernel": tuple(kernel), "stride": tuple(stride), "dilation": tuple(dilation),
                                "pads": tuple(tuple(p) for p in pads), "value": float(value)})


def col2im(cols, shape, kernel, stride, dilation, pads):
    """The windows ``cols`` (..., *kernel, *out) added into a tensor of ``shape`` (``im2col``'s adjoint)."""
    return call(_COL2IM, (cols,), {"shape": tuple(shape), "kernel": tuple(kernel), "stride": tuple(stride),
                                   "dilation": tuple(dilation), "pads": tuple(tuple(p) for p in pads)})
