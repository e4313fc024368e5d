"""The op registry: ``register_op(name)`` creates an OpDef, ``get_op(name)`` finds it again.

Functional forms (``ops.add`` & co.) are published in ``functions`` (re-exported
here) so that ``Tensor`` reaches them without importing the ops layer.
"""

import threading

from . import deferred as _deferred
from .functions import functions, register_function
from .opdef import OpDef

_OPS = {}
_LOCK = threading.Lock()


__all__ = ["register_op", "get_op", "list_ops", "functions", "register_function"]


def register_op(name, num_inputs=None, num_outputs=1):
    """Create and register an op; returns its OpDef for chained ``set_attr`` calls.

    Registering a name twice replaces the earlier op (handy in notebooks).

    Example::

        op = ops.register_op("my_abs").set_num_inputs(1)
        op.set_attr("FCompute<cpu>", lambda attrs, ins, req, outs: np.abs(ins[0], out=outs[0]))
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"register_op: the op name must be a non-empty string, got {name!r}")
    op = OpDef(name, num_inputs=num_inputs, num_outputs=num_outputs)
    with _LOCK:
        _OPS[name] = op
    return op


def get_op(name):
    """The registered op called ``name``; ValueError naming close matches otherwise."""
    try:
        return _OPS[name]
    except KeyError:
        if _deferred.pending():         # an op of the deferred modules: load them and look again
            _deferred.load_all()
            return get_op(name)
        import difflib
        close = difflib.get_close_matches(name, list(_OPS), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"get_op: no op named {name!r} is registered{hint}") from None


def list_ops():
    """The names of every registered op, sorted."""
    _deferred.load_all()
    return sorted(_OPS)
