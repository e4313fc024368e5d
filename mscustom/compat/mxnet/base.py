"""``mx.base``: ``MXNetError`` and the deferred-error record behind MXNet's synchronisation points.

MXNet runs operators asynchronously: an exception raised inside an operator
(a CustomOp's ``forward`` or ``backward``) is kept with the arrays that op
was writing and raised as ``MXNetError`` at the next synchronisation point:
``NDArray.wait_to_read`` / ``asnumpy`` on one of them, or ``mx.nd.waitall``.
This module keeps that record; ``_ndarray`` marks the arrays.

Example::

    y = mx.nd.Custom(x, op_type="raises")       # returns at once
    try:
        y.asnumpy()                             # MXNetError carrying the op's message
    except mx.base.MXNetError as err:
        print(err)
"""

import threading
import weakref

__all__ = ["MXNetError", "string_types", "numeric_types", "integer_types", "py_str"]

string_types = (str,)
integer_types = (int,)
numeric_types = (float, int)


class MXNetError(RuntimeError):
    """The error MXNet raises (MXNet's ``MXNetError`` is a ``RuntimeError`` too)."""


class _OpFailure(MXNetError):
    """An error raised inside an operator's computation: deferred to the next synchronisation point."""


_LOCK = threading.Lock()
_PENDING = []           # [(error, [weakref to each array the failed op was writing])]


def defer(error, arrays):
    """Record ``error`` as pending on ``arrays`` (which the caller has marked as failed)."""
    refs = [weakref.ref(a) for a in arrays]
    with _LOCK:
        _PENDING.append((error, refs))


def peek(array):
    """The pending error of ``array``, or None."""
    with _LOCK:
        for err, refs in _PENDING:
            if any(r() is array for r in refs):
                return err
    return None


def take(array):
    """Forget the pending error of ``array`` (it is being raised there); returns it or None."""
    with _LOCK:
        for k, (err, refs) in enumerate(_PENDING):
            if any(r() is array for r in refs):
                del _PENDING[k]
                return err, [r() for r in refs]
    return None


def take_all():
    """Every pending error, oldest first, and the arrays they marked; clears the record."""
    with _LOCK:
        pending = list(_PENDING)
        _PENDING.clear()
    return [(err, [r() for r in refs]) for err, refs in pending]


def py_str(x):
    """A Python string from MXNet's C strings (bytes are decoded as UTF-8; a str is returned as it is)."""
    return x.decode("utf-8") if isinstance(x, (bytes, bytearray)) else x


def _as_list(obj):
    """``obj`` itself when it is a list or tuple, else ``[obj]`` (MXNet's helper)."""
    return obj if isinstance(obj, (list, tuple)) else [obj]
