"""The op registry: ``register_op(name)`` creates an OpDef, ``get_op(name)`` finds it again.

It also keeps the table of public functional forms (``functions``): the layer
that defines ``ops.add`` & co. registers them with ``register_function``, and
``Tensor``'s operators and methods call them through that table, so neither
``tensor.py`` nor the core imports the ops layer.
"""

import threading
import types

from .opdef import OpDef

_OPS = {}
_LOCK = threading.Lock()

functions = types.SimpleNamespace()
"""Public functional ops by name (``functions.add(x, y)``), filled by ``register_function``."""


def register_function(name, fn):
    """Publish ``fn`` as the functional form ``name`` (what ``Tensor.__add__`` & co. call)."""
    if not callable(fn):
        raise TypeError(f"register_function: {name!r} must be callable, got {type(fn).__name__}")
    setattr(functions, name, fn)
    return fn


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
        import difflib
        close = difflib.get_close_matches(name, list(_OPS), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"get_op: no op named {name!r} is registered{hint}") from None


def list_ops():
    """The names of every registered op, sorted."""
    return sorted(_OPS)
