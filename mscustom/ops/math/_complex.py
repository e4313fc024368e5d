"""Complex-number functions with MindSpore's names: ``real``, ``imag``, ``conj``, ``angle``, ``polar``,
``view_as_real``.

On real tensors ``real`` and ``conj`` return the values (their gradient passes through) and ``imag``
returns zeros of the input's dtype, as in MindSpore 2.10. ``angle`` and ``view_as_real`` need a
complex tensor; ``polar`` builds one from float magnitudes and angles of one dtype (complex64 from
float32, complex128 from float64). Complex results carry no gradient.

Example::

    z = ops.polar(r, theta); ops.real(z), ops.angle(z), ops.view_as_real(z)
"""

import numpy as np

from ... import dtype as _dt
from ..._core.registry import register_function
from ...tensor import Tensor
from .._builtin import broadcast_shape, defop, functional, is_float, no_grad, unary
from ._rules import run


def _part_type(name, real_only_ok=True):
    def infer(attrs, dtypes):
        d = dtypes[0]
        if d.np_dtype.kind == "c":
            return dtypes, [_dt.from_numpy(np.empty(0, d.np_dtype).real.dtype)]
        if not real_only_ok:
            raise TypeError(f"op '{name}': input must be a complex64 or complex128 tensor, got {d.name}")
        return dtypes, [d]
    return infer


def _pass_real(ins, outs, g, a):
    return [g[0] if is_float(ins[0]) else None]


_REAL = unary("real", lambda a, i: np.ascontiguousarray(np.real(i[0])), _part_type("real"), _pass_real,
              "the real part")
_IMAG = unary("imag", lambda a, i: np.ascontiguousarray(np.imag(i[0])) if i[0].dtype.kind == "c"
              else np.zeros(i[0].shape, i[0].dtype), _part_type("imag"), no_grad, "the imaginary part")
_CONJ = unary("conj", lambda a, i: np.conj(i[0]) if i[0].dtype.kind == "c" else i[0].copy(),
              lambda a, d: (d, [d[0]]), _pass_real, "the complex conjugate")
_ANGLE = unary("angle", lambda a, i: np.angle(i[0]).astype(np.real(i[0]).dtype), _part_type("angle", False),
               no_grad, "the argument of a complex number")

real = functional(_REAL, "The real part of each element (the values themselves for real tensors).",
                  arg_names=("input",))
imag = functional(_IMAG, "The imaginary part of each element (zeros of the input's dtype for real tensors).",
                  arg_names=("input",))
conj = functional(_CONJ, "The complex conjugate of each element (real tensors: the values).", arg_names=("input",))
angle = functional(_ANGLE, "The argument (phase, in radians) of each element of a complex tensor.",
                   arg_names=("input",))


def _polar_type(attrs, dtypes):
    a, b = dtypes
    if a != b or a.name not in ("float32", "float64"):
        raise TypeError(f"op 'polar': abs and angle must be float32 or float64 tensors of one dtype, got "
                        f"{a.name} and {b.name}")
    return dtypes, [_dt.complex64 if a.name == "float32" else _dt.complex128]


_POLAR = defop("polar", 2, lambda a, i: (i[0] * np.cos(i[1]) + 1j * (i[0] * np.sin(i[1]))).astype(
    np.complex64 if i[0].dtype == np.float32 else np.complex128),
    broadcast_shape("polar"), _polar_type, no_grad, doc="abs * (cos(angle) + i sin(angle))",
    arg_names=("abs", "angle"))


def polar(abs, angle):  # noqa: A002 - MindSpore's names
    """The complex tensor ``abs * (cos(angle) + i * sin(angle))`` (float32 -> complex64,
    float64 -> complex128)."""
    return run(_POLAR, abs if isinstance(abs, Tensor) else Tensor(abs),
               angle if isinstance(angle, Tensor) else Tensor(angle))


def _view_as_real_shape(attrs, shapes):
    return shapes, [list(shapes[0]) + [2]]


_VIEW_AS_REAL = defop("view_as_real", 1,
                      lambda a, i: np.ascontiguousarray(np.stack([i[0].real, i[0].imag], -1)),
                      _view_as_real_shape, _part_type("view_as_real", False), no_grad,
                      doc="a complex tensor as its real and imaginary parts on a last axis of 2",
                      arg_names=("input",))


def view_as_real(input):  # noqa: A002
    """A complex tensor as a real one with a last axis of 2: (real, imaginary)."""
    if isinstance(input, Tensor) and input._data.dtype.kind != "c":
        raise TypeError(f"op 'view_as_real': input must be a complex tensor, got {input.dtype}")
    return run(_VIEW_AS_REAL, input)


_METHODS = ["real", "imag", "conj", "angle"]
__all__ = _METHODS + ["polar", "view_as_real"]

for _name in _METHODS:
    register_function(_name, globals()[_name], method=True)
del _name
