"""The vector functions as Numba intrinsics, by name.

``get(name)`` returns the ``@intrinsic`` for ``name`` (float32 or float64
arguments of one type, a result of that type); ``NAMES`` lists them.
``SOURCE_TAG`` is a short hash of the vecmath sources: kernels compiled with
them are cached under it, so a changed implementation never loads a stale
cache entry.
"""

import hashlib
import os

from . import _erf, _exp, _log, _pow, _trig
from ._trace import fma, mad, select, vector
from ._trace import sqrt as _sqrt

__all__ = ["get", "NAMES", "SOURCE_TAG"]


def _source_tag():
    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256()
    for name in sorted(os.listdir(here)):
        if name.endswith(".py"):
            with open(os.path.join(here, name), "rb") as f:
                h.update(name.encode() + b"\0" + f.read())
    return h.hexdigest()[:10]


SOURCE_TAG = _source_tag()


def sqrt(x):
    """Correctly rounded square root."""
    return _sqrt(x)


def rsqrt(x):
    """``1 / sqrt(x)``: ``r = 1/s`` with ``s = sqrt(x)``, then one correction for both roundings --
    ``1 - r*s`` and ``x - s*s`` are exact (fma). ``x - s*s`` has bits down to about ``x * 2**-2p``
    (``p`` mantissa bits), so a tiny ``x`` (below 2**-100 / 2**-967, subnormals included) is first
    scaled up by an even power of two, and the result down by its square root."""
    h = 25 if x.t.is32 else 54
    sub = x < (2.0 ** -100 if x.t.is32 else 2.0 ** -967)
    xs = select(sub, x * 2.0 ** (2 * h), x)
    s = _sqrt(xs)
    r = 1.0 / s
    res = fma(-r, s, 1.0)                                # 1 - r*s
    ds = fma(-s, s, xs) * (0.5 * r)                      # sqrt(xs) - s, to first order
    y = mad(r, res - r * ds, r)
    y = select(sub, y * 2.0 ** h, y)
    return select((x > 0.0) & (x < float("inf")), y, 1.0 / _sqrt(x))   # 0, inf, negatives, NaN


_BUILDERS = {"exp": _exp.exp, "expm1": _exp.expm1, "log": _log.log, "log1p": _log.log1p, "tanh": _exp.tanh,
             "sigmoid": _exp.sigmoid, "erf": _erf.erf, "sin": _trig.sin, "cos": _trig.cos, "pow": _pow.pow,
             "sqrt": sqrt, "rsqrt": rsqrt}
NAMES = tuple(_BUILDERS)
_INTRINSICS = {name: vector(build, name) for name, build in _BUILDERS.items()}


def get(name, F=None):
    """The Numba intrinsic ``name`` (``F``, a float type, is accepted for symmetry and ignored:
    the intrinsic takes float32 and float64)."""
    return _INTRINSICS[name]
