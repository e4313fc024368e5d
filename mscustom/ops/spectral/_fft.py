"""Discrete Fourier transforms with MindSpore 2.10's names and arguments: ``fft``/``ifft``, ``rfft``/
``irfft``, ``hfft``/``ihfft`` and their 2-D and n-D forms, ``fftshift``/``ifftshift``, ``fftfreq``/``rfftfreq``.

Three ops carry every transform, each with its adjoint as gradient (the gradient of a complex value
``z`` is ``dL/dRe(z) + i dL/dIm(z)``, so a real loss of a real input gets the real gradient):

* ``fft_c2c`` -- complex (or real) to complex: inputs resized (zero-padded or cut) to ``s`` along ``axes``,
  then NumPy's ``fftn``/``ifftn``. Adjoint: the transform of the other direction under the dual
  normalization ("backward" <-> "forward", "ortho" stays), then resized back.
* ``fft_r2c`` -- real to the half spectrum (``rfftn``). Adjoint: the half spectrum zero-padded to the
  full one, transformed back, its real part resized back.
* ``fft_c2r`` -- half spectrum to real (``irfftn``). Adjoint: ``rfftn`` of the gradient under the dual
  normalization, doubled on the bins that stand for two (not the 0 and n/2 bins), resized back.

``hfft*`` is ``irfft*`` of the conjugate, ``ihfft*`` the conjugate of ``rfft*``, both with the normalization
swapped. Results are complex64 (complex128 from float64 / complex128) or float32 (float64).

Example::

    spec = ops.rfft(x, dim=-1, norm="ortho"); y = ops.irfft(spec, n=x.shape[-1], norm="ortho")
"""

import numpy as np

from ... import dtype as _dt
from ..._core.dispatch import call
from ...tensor import Tensor
from .._builtin import NOATTR, defop, same_shape, tensor_arg

_NORMS = ("backward", "forward", "ortho")
_INPUT_DTYPES = ("int16", "int32", "int64", "bfloat16", "float16", "float32", "float64", "complex64", "complex128")
_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


# ================================================================== helpers on arrays
def _resize(a, axes, sizes):
    """``a`` cut or zero-padded at the end of each of ``axes`` to ``sizes``."""
    for ax, n in zip(axes, sizes):
        have = a.shape[ax]
        if have > n:
            a = a[(slice(None),) * ax + (slice(0, n),)]
        elif have < n:
            pad = [(0, 0)] * a.ndim
            pad[ax] = (0, n - have)
            a = np.pad(a, pad)
    return a


def _complex_of(dtype):
    return np.complex128 if dtype in (np.float64, np.complex128) else np.complex64


def _real_of(dtype):
    return np.float64 if dtype in (np.float64, np.complex128) else np.float32


def _c(a, dtype):
    return np.ascontiguousarray(a.astype(dtype, copy=False))


def _to_real_input(a):
    """Float, int or complex input as the float array the transforms read (complex keeps its dtype)."""
    if a.dtype.kind == "c" or a.dtype in (np.float32, np.float64):
        return a
    return a.astype(np.float32)


# ================================================================== fft_c2c
def _c2c_compute(attrs, ins):
    x = _to_real_input(ins[0])
    axes, s, norm = attrs["axes"], attrs["s"], attrs["norm"]
    fn = np.fft.ifftn if attrs["inverse"] else np.fft.fftn
    if attrs["post"]:                   # the adjoint form: transform first, then resize to s
        return _c(_resize(fn(x, axes=axes, norm=norm), axes, s), _complex_of(x.dtype))
    return _c(fn(_resize(x, axes, s), axes=axes, norm=norm), _complex_of(x.dtype))


def _c2c_shape(attrs, shapes):
    out = list(shapes[0])
    for ax, n in zip(attrs["axes"], attrs["s"]):
        out[ax] = n
    return shapes, [out]


def _complex_type(attrs, dtypes):
    d = dtypes[0]
    if d.name == "bool":
        raise TypeError("op 'fft': input must be an integer, float or complex tensor, got bool")
    return dtypes, [_dt.from_numpy(_complex_of(d.np_dtype))]


def _c2c_grad(ins, outs, g, a):
    x = ins[0]
    if x._data.dtype.kind not in "fc":
        return [None]
    orig = tuple(x.shape[ax] for ax in a["axes"])
    back = call(_C2C, (g[0],), {"axes": a["axes"], "s": orig, "norm": _DUAL[a["norm"]],
                                 "inverse": not a["inverse"], "post": True})
    return [back if x._data.dtype.kind == "c" else call(_REAL, (back,), {"dtype": x._data.dtype.name})]


_C2C = defop("fft_c2c", 1, _c2c_compute, _c2c_shape, _complex_type, _c2c_grad,
             doc="the n-D complex FFT (or inverse) over `axes`, input resized to `s`", arg_names=("input",))


def _real_compute(attrs, ins):
    return np.ascontiguousarray(ins[0].real.astype(attrs["dtype"]))


_REAL = defop("fft_real_part", 1, _real_compute, same_shape,
              lambda a, d: (d, [_dt.dtype_from_any(a["dtype"])]), None,
              doc="the real part of a complex gradient, as the real input's dtype", arg_names=("x",))


# ================================================================== fft_r2c
def _r2c_compute(attrs, ins):
    x = _to_real_input(ins[0])
    if x.dtype.kind == "c":             # MindSpore takes complex input to rfft: its real part
        x = x.real
    axes, s = attrs["axes"], attrs["s"]
    return _c(np.fft.rfftn(_resize(x, axes, s), axes=axes, norm=attrs["norm"]), _complex_of(x.dtype))


def _r2c_shape(attrs, shapes):
    out = list(shapes[0])
    for ax, n in zip(attrs["axes"], attrs["s"]):
        out[ax] = n
    out[attrs["axes"][-1]] = attrs["s"][-1] // 2 + 1
    return shapes, [out]


def _r2c_grad_compute(attrs, ins):
    g, x = ins
    axes, s = attrs["axes"], attrs["s"]
    full = _resize(g, axes[-1:], s[-1:])                # the half spectrum zero-padded to the full one
    back = np.fft.ifftn(full, axes=axes, norm=_DUAL[attrs["norm"]]).real
    return _c(_resize(back, axes, tuple(x.shape[ax] for ax in axes)), x.dtype)


_R2C_GRAD = defop("fft_r2c_grad", 2, _r2c_grad_compute, lambda a, s: (s, [list(s[1])]),
                  lambda a, d: (d, [d[1]]), None, doc="the adjoint of fft_r2c", arg_names=("dy", "x"))


def _r2c_grad(ins, outs, g, a):
    x = ins[0]
    if x._data.dtype.kind not in "fc":
        return [None]
    return [call(_R2C_GRAD, (g[0], x), a)]


_R2C = defop("fft_r2c", 1, _r2c_compute, _r2c_shape, _complex_type, _r2c_grad,
             doc="the n-D FFT of a real input over `axes`: the half spectrum of the last axis", arg_names=("input",))


# ================================================================== fft_c2r
def _c2r_compute(attrs, ins):
    z = ins[0]
    if z.dtype.kind != "c":
        z = _to_real_input(z)
    axes, s = attrs["axes"], attrs["s"]
    half = _resize(z, axes[:-1] + axes[-1:], s[:-1] + (s[-1] // 2 + 1,))
    return _c(np.fft.irfftn(half, s=s, axes=axes, norm=attrs["norm"]), _real_of(z.dtype))


def _c2r_shape(attrs, shapes):
    out = list(shapes[0])
    for ax, n in zip(attrs["axes"], attrs["s"]):
        out[ax] = n
    return shapes, [out]


def _c2r_type(attrs, dtypes):
    d = dtypes[0]
    if d.name == "bool":
        raise TypeError("op 'irfft': input must be an integer, float or complex tensor, got bool")
    return dtypes, [_dt.from_numpy(_real_of(d.np_dtype))]


def _c2r_grad_compute(attrs, ins):
    g, z = ins
    axes, s = attrs["axes"], attrs["s"]
    spec = np.fft.rfftn(g, axes=axes, norm=_DUAL[attrs["norm"]])
    n = s[-1]
    weight = np.full(n // 2 + 1, 2.0)
    weight[0] = 1.0
    if n % 2 == 0:
        weight[-1] = 1.0
    spec = spec * weight.reshape([-1 if ax == axes[-1] % g.ndim else 1 for ax in range(g.ndim)])
    back = _resize(spec, axes, tuple(z.shape[ax] for ax in axes))
    return _c(back if z.dtype.kind == "c" else back.real, z.dtype)


_C2R_GRAD = defop("fft_c2r_grad", 2, _c2r_grad_compute, lambda a, s: (s, [list(s[1])]),
                  lambda a, d: (d, [d[1]]), None, doc="the adjoint of fft_c2r", arg_names=("dy", "input"))


def _c2r_grad(ins, outs, g, a):
    z = ins[0]
    if z._data.dtype.kind not in "fc":
        return [None]
    return [call(_C2R_GRAD, (g[0], z), a)]


_C2R = defop("fft_c2r", 1, _c2r_compute, _c2r_shape, _c2r_type, _c2r_grad,
             doc="the real n-D inverse FFT over `axes` of a half spectrum (last axis)", arg_names=("input",))


# ================================================================== conjugate
_CONJ = defop("fft_conj", 1, lambda a, i: np.conj(i[0]) if i[0].dtype.kind == "c" else i[0].copy(), same_shape,
              lambda a, d: (d, [d[0]]), lambda ins, outs, g, a: [call(_CONJ, (g[0],), NOATTR)],
              doc="the complex conjugate (hfft's input, ihfft's output)", arg_names=("x",))


# ================================================================== arguments
def _norm(norm, name):
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError(f"op '{name}': norm must be None, 'backward', 'forward' or 'ortho', got {norm!r}")
    return norm


def _input(input, name):
    x = tensor_arg(input, name)
    if x.dtype.name not in _INPUT_DTYPES:
        raise TypeError(f"op '{name}': input must be int16, int32, int64, bfloat16, float16, float32, float64, "
                        f"complex64 or complex128, got {x.dtype}")
    if x.ndim == 0:
        raise ValueError(f"op '{name}': input must have at least 1 dimension, got a 0-d tensor")
    return x


def _int(v, name, what):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"op '{name}': {what} must be an int, got {v!r}")
    return int(v)


def _axes_sizes(x, s, dim, name, default_dim):
    """The axes (non-negative, in order) and the signal sizes of an n-D transform."""
    if dim is None:
        dims = default_dim if default_dim is not None else (
            tuple(range(x.ndim)) if s is None else tuple(range(x.ndim - len(s), x.ndim)))
    else:
        dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    axes = []
    for d in dims:
        d = _int(d, name, "dim")
        if not -x.ndim <= d < x.ndim:
            raise ValueError(f"op '{name}': dim {d} is out of range for a tensor of rank {x.ndim}")
        axes.append(d % x.ndim)
    if len(set(axes)) != len(axes):
        raise ValueError(f"op '{name}': dim {dims} repeats an axis")
    if s is None:
        sizes = None
    else:
        sizes = (s,) if isinstance(s, (int, np.integer)) else tuple(s)
        sizes = tuple(_int(n, name, "s") for n in sizes)
        if len(sizes) != len(axes):
            raise ValueError(f"op '{name}': s {tuple(sizes)} and dim {tuple(dims)} must have the same length")
        if any(n <= 0 for n in sizes):
            raise ValueError(f"op '{name}': every signal size must be > 0, got {sizes}")
    return tuple(axes), sizes


def _c2c(input, s, dim, norm, name, inverse, default_dim=None):
    x = _input(input, name)
    axes, sizes = _axes_sizes(x, s, dim, name, default_dim)
    if sizes is None:
        sizes = tuple(x.shape[a] for a in axes)
    return call(_C2C, (x,), {"axes": axes, "s": sizes, "norm": _norm(norm, name), "inverse": inverse,
                             "post": False})


def _r2c(input, s, dim, norm, name, default_dim=None):
    x = _input(input, name)
    axes, sizes = _axes_sizes(x, s, dim, name, default_dim)
    if sizes is None:
        sizes = tuple(x.shape[a] for a in axes)
    return call(_R2C, (x,), {"axes": axes, "s": sizes, "norm": _norm(norm, name)})


def _c2r(input, s, dim, norm, name, default_dim=None):
    x = _input(input, name)
    axes, sizes = _axes_sizes(x, s, dim, name, default_dim)
    if sizes is None:
        sizes = tuple(x.shape[a] for a in axes[:-1]) + (2 * (x.shape[axes[-1]] - 1),)
    if sizes[-1] <= 0:
        raise ValueError(f"op '{name}': the output length along the last axis must be > 0, got {sizes[-1]}")
    return call(_C2R, (x,), {"axes": axes, "s": sizes, "norm": _norm(norm, name)})


def _conj(x):
    return call(_CONJ, (x,), NOATTR)


# ================================================================== the transforms
def fft(input, n=None, dim=-1, norm=None):  # noqa: A002 - MindSpore's names
    """The 1-D discrete Fourier transform along ``dim``; ``n``: the signal cut or zero-padded first;
    ``norm``: "backward" (default: no scaling), "forward" (1/n) or "ortho" (1/sqrt(n))."""
    return _c2c(input, None if n is None else (n,), (dim,), norm, "fft", False)


def ifft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The 1-D inverse discrete Fourier transform along ``dim`` ("backward": scaled by 1/n)."""
    return _c2c(input, None if n is None else (n,), (dim,), norm, "ifft", True)


def fft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    """The 2-D discrete Fourier transform over ``dim``."""
    return _c2c(input, s, dim, norm, "fft2", False)


def ifft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    """The 2-D inverse discrete Fourier transform over ``dim``."""
    return _c2c(input, s, dim, norm, "ifft2", True)


def fftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """The n-D discrete Fourier transform over ``dim`` (default: every axis, or the last ``len(s)``)."""
    return _c2c(input, s, dim, norm, "fftn", False)


def ifftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """The n-D inverse discrete Fourier transform over ``dim``."""
    return _c2c(input, s, dim, norm, "ifftn", True)


def rfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The 1-D FFT of a real signal: the ``n // 2 + 1`` non-negative frequencies."""
    return _r2c(input, None if n is None else (n,), (dim,), norm, "rfft")


def irfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The real signal of length ``n`` (default ``2 * (m - 1)``) whose rfft is the half spectrum ``input``."""
    return _c2r(input, None if n is None else (n,), (dim,), norm, "irfft")


def rfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    """The 2-D FFT of a real input (half spectrum on the last of ``dim``)."""
    return _r2c(input, s, dim, norm, "rfft2")


def irfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    """The inverse of ``rfft2``."""
    return _c2r(input, s, dim, norm, "irfft2")


def rfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """The n-D FFT of a real input (half spectrum on the last of ``dim``)."""
    return _r2c(input, s, dim, norm, "rfftn")


def irfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """The inverse of ``rfftn``."""
    return _c2r(input, s, dim, norm, "irfftn")


def hfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The FFT of a Hermitian-symmetric signal given by its first half: a real result of length ``n``
    (default ``2 * (m - 1)``)."""
    return _c2r(_conj(_input(input, "hfft")), None if n is None else (n,), (dim,), _DUAL[_norm(norm, "hfft")],
                "hfft")


def ihfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The inverse of ``hfft``: the ``n // 2 + 1`` first values of the inverse FFT of a real signal."""
    return _conj(_r2c(input, None if n is None else (n,), (dim,), _DUAL[_norm(norm, "ihfft")], "ihfft"))


def hfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    """The 2-D ``hfft``."""
    return _c2r(_conj(_input(input, "hfft2")), s, dim, _DUAL[_norm(norm, "hfft2")], "hfft2")


def ihfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    """The 2-D ``ihfft``."""
    return _conj(_r2c(input, s, dim, _DUAL[_norm(norm, "ihfft2")], "ihfft2"))


def hfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """The n-D ``hfft``."""
    return _c2r(_conj(_input(input, "hfftn")), s, dim, _DUAL[_norm(norm, "hfftn")], "hfftn")


def ihfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """The n-D ``ihfft``."""
    return _conj(_r2c(input, s, dim, _DUAL[_norm(norm, "ihfftn")], "ihfftn"))


# ================================================================== shifts and frequencies
_ROLL = defop("fft_shift", 1, lambda a, i: np.ascontiguousarray(np.roll(i[0], a["shifts"], a["axes"])), same_shape,
              lambda a, d: (d, [d[0]]),
              lambda ins, outs, g, a: [call(_ROLL, (g[0],), {"shifts": tuple(-v for v in a["shifts"]), "axes": a["axes"]})
                                       if ins[0]._data.dtype.kind in "fc" else None],
              doc="x rolled by `shifts` along `axes` (real or complex; the gradient rolls back)", arg_names=("x",))


def _shift(input, dim, name, sign):
    x = tensor_arg(input, name)
    if dim is None:
        axes = tuple(range(x.ndim))
    else:
        axes = []
        for d in ((dim,) if isinstance(dim, (int, np.integer)) else dim):
            d = _int(d, name, "dim")
            if not -x.ndim <= d < max(x.ndim, 1):
                raise ValueError(f"op '{name}': dim {d} is out of range for a tensor of rank {x.ndim}")
            axes.append(d % max(x.ndim, 1))
        axes = tuple(axes)
    if not axes or x.ndim == 0:
        return x
    return call(_ROLL, (x,), {"shifts": tuple(sign * (x.shape[a] // 2) for a in axes), "axes": axes})


def fftshift(input, dim=None):  # noqa: A002
    """``input`` rolled by ``size // 2`` along ``dim`` (default every axis): frequency 0 to the middle."""
    return _shift(input, dim, "fftshift", 1)


def ifftshift(input, dim=None):  # noqa: A002
    """The inverse of ``fftshift``: rolled by ``-(size // 2)``."""
    return _shift(input, dim, "ifftshift", -1)


def _freq_dtype(dtype, name):
    out = _dt.float32 if dtype is None else _dt.dtype_from_any(dtype)
    if out.name not in ("float16", "float32", "float64", "bfloat16"):
        raise TypeError(f"op '{name}': dtype must be a float dtype, got {out}")
    return out.np_dtype


def fftfreq(n, d=1.0, dtype=None):
    """The frequencies of an ``n``-point FFT with sample spacing ``d``: [0, 1, ..., -1] / (d * n)."""
    n = _int(n, "fftfreq", "n")
    return Tensor._wrap(np.ascontiguousarray(np.fft.fftfreq(n, float(d)).astype(_freq_dtype(dtype, "fftfreq"))))


def rfftfreq(n, d=1.0, dtype=None):
    """The ``n // 2 + 1`` non-negative frequencies of an ``n``-point rfft with sample spacing ``d``."""
    n = _int(n, "rfftfreq", "n")
    return Tensor._wrap(np.ascontiguousarray(np.fft.rfftfreq(n, float(d)).astype(_freq_dtype(dtype, "rfftfreq"))))


__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
           "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftshift", "ifftshift", "fftfreq", "rfftfreq"]
