"""``mx.util``: MXNet 1.9's NumPy-semantics switches (``use_np``, ``np_shape``, ``np_array``, ...).

MXNet 1.9 has two per-thread flags its NumPy front end (``mx.np``) reads:
NumPy *shape* semantics (``()`` is a scalar's shape, ``0`` a zero-size axis,
instead of "unknown") and NumPy *array* semantics (Gluon creates
``mx.np.ndarray``s instead of ``mx.nd.NDArray``s). ``use_np`` turns both on
while a decorated function (or every method and property of a decorated
class) runs; ``np_shape`` / ``np_array`` are the ``with`` forms; ``set_np`` /
``reset_np`` / ``set_np_shape`` set them for the thread.

Here the flags are kept and reported exactly as MXNet does, but nothing else
reads them: mscustom's NDArrays always have NumPy's shapes (scalars and
zero-size axes are fine in any mode) and there is no ``mx.np`` module, so
arrays stay ``mx.nd.NDArray``s under either flag.

Example::

    @mx.use_np
    def f():
        return mx.util.is_np_shape(), mx.util.is_np_array()
    f()                          # (True, True); outside: (False, False)
"""

import functools
import inspect
import threading

__all__ = ["use_np", "use_np_shape", "use_np_array", "np_shape", "np_array", "is_np_shape", "is_np_array",
           "set_np_shape", "set_np", "reset_np"]

_STATE = threading.local()


def _get(flag):
    return getattr(_STATE, flag, False)


def _set(flag, active):
    prev = _get(flag)
    setattr(_STATE, flag, bool(active))
    return prev


def is_np_shape():
    """Whether NumPy shape semantics is on in this thread (off by default, as in MXNet)."""
    return _get("shape")


def is_np_array():
    """Whether NumPy array semantics is on in this thread (off by default, as in MXNet)."""
    return _get("array")


def set_np_shape(active):
    """Turn NumPy shape semantics on or off for this thread; returns the previous state."""
    return _set("shape", active)


def set_np(shape=True, array=True):
    """Set both flags; array semantics needs shape semantics (MXNet's ValueError otherwise)."""
    if not shape and array:
        raise ValueError("NumPy Shape semantics is required in using NumPy array semantics.")
    _set("array", array)
    set_np_shape(shape)


def reset_np():
    """Both flags off (MXNet's default)."""
    set_np(shape=False, array=False)


class _Scope:
    """``with``-scope setting one flag and restoring it on exit."""

    def __init__(self, flag, active):
        self._flag, self._active, self._prev = flag, active, None

    def __enter__(self):
        if self._active is not None:
            self._prev = _set(self._flag, self._active)
        return self

    def __exit__(self, *exc):
        if self._active is not None:
            _set(self._flag, self._prev)


def np_shape(active=True):
    """A ``with`` scope with NumPy shape semantics on (``active=True``) or off."""
    return _Scope("shape", active)


def np_array(active=True):
    """A ``with`` scope with NumPy array semantics on (``active=True``) or off."""
    return _Scope("array", active)


def _decorator(name, scope):
    def decorate(func):
        if inspect.isclass(func):
            members = inspect.getmembers(
                func, predicate=lambda f: inspect.isfunction(f) or inspect.ismethod(f) or isinstance(f, property))
            for attr, member in members:
                if isinstance(member, property):
                    setattr(func, attr, property(decorate(member.__get__), member.__set__, member.__delattr__,
                                                 member.__doc__))
                else:
                    setattr(func, attr, decorate(member))
            return func
        if callable(func):
            @functools.wraps(func)
            def scoped(*args, **kwargs):
                with scope(True):
                    return func(*args, **kwargs)
            return scoped
        raise TypeError(f"{name} can only decorate classes and callable objects, while received a "
                        f"{type(func)}")
    decorate.__name__ = name
    return decorate


use_np_shape = _decorator("use_np_shape", np_shape)
use_np_shape.__doc__ = "Decorator: run a function (or every method / property of a class) with NumPy shape semantics."
use_np_array = _decorator("use_np_array", np_array)
use_np_array.__doc__ = "Decorator: run a function (or every method / property of a class) with NumPy array semantics."


def use_np(func):
    """Decorator: both NumPy shape and NumPy array semantics (``use_np_shape(use_np_array(func))``)."""
    return use_np_shape(use_np_array(func))
