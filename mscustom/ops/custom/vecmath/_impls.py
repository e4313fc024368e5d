"""The compiled implementations by (name, float type), built on first use.

``get(name, F)`` returns the inlinable njit function ``name`` for float type ``F``
(``np.float32`` or ``np.float64``); each family (exp, log, erf, trig, pow) is
built once per type. ``SOURCE_TAG`` is a short hash of the vecmath sources: code
compiled with them is cached under it, so a changed implementation never loads
a stale cache entry.
"""

import hashlib
import os
import threading

import numpy as np
from ._bits import vector

from ._bits import div, sqrt as _sqrt

__all__ = ["get", "NAMES", "SOURCE_TAG"]

NAMES = ("exp", "expm1", "log", "log1p", "tanh", "sigmoid", "erf", "sin", "cos", "pow", "sqrt", "rsqrt")
_FAMILY = {"exp": "exp", "expm1": "exp", "tanh": "exp", "sigmoid": "exp", "log": "log", "log1p": "log",
           "erf": "erf", "sin": "trig", "cos": "trig", "pow": "pow", "sqrt": "sqrt", "rsqrt": "sqrt"}
_built = {}
_lock = threading.Lock()


def _source_tag():
    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256()
    for name in sorted(os.listdir(here)):
        if name.endswith(".py"):
            with open(os.path.join(here, name), "rb") as f:
                h.update(name.encode() + b"\0" + f.read())
    return h.hexdigest()[:10]


SOURCE_TAG = _source_tag()


def _sqrt_family(F):
    ONE = F(1)

    @vector
    def sqrt(x):
        return _sqrt(x)

    @vector
    def rsqrt(x):
        return div(ONE, _sqrt(x))

    return dict(sqrt=sqrt, rsqrt=rsqrt)


def _build(family, F):
    if family == "exp":
        from . import _exp
        return _exp.make(F)
    if family == "log":
        from . import _log
        return _log.make(F)
    if family == "erf":
        from . import _erf
        return _erf.make(F, get("exp", F))
    if family == "trig":
        from . import _trig
        return _trig.make(F)
    if family == "pow":
        from . import _pow
        return _pow.make(F, _family("exp", F)["exp_poly"])
    return _sqrt_family(F)


def _family(family, F):
    key = (family, F)
    funcs = _built.get(key)
    if funcs is None:
        with _lock:
            funcs = _built.get(key)
            if funcs is None:
                funcs = _built[key] = _build(family, F)
    return funcs


def get(name, F):
    """The njit(inline="always") function ``name`` for float type ``F``."""
    F = np.dtype(F).type
    if F not in (np.float32, np.float64):
        raise TypeError(f"vecmath.{name}: float32 or float64 only, got {np.dtype(F).name}")
    return _family(_FAMILY[name], F)[name]
