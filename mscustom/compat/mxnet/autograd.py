"""``mx.autograd``: ``record``, ``pause``, ``train_mode``, ``predict_mode``, ``backward``.

Recording is the core tape's: ``record()`` enters ``mscustom._core.autodiff.recording()``
and ``pause()`` its ``paused()``; inside ``record()`` every op whose inputs reach an
array with ``attach_grad`` is taped. ``is_training`` is the flag a CustomOp's
``forward`` gets as ``is_train``.

Gradients are written into the ``grad`` buffer of every attached array the
heads depend on: ``grad_req="write"`` overwrites it, ``"add"`` adds to it. An
error raised inside an op's backward leaves every buffer untouched and is
raised as ``MXNetError`` at the next synchronisation point.

Example::

    x = mx.nd.array([1.0, 2.0]); x.attach_grad()
    with mx.autograd.record():
        y = x * x
    y.backward()                     # x.grad == [2, 4]
"""

import contextlib
import threading
import weakref

import numpy as np

from ..._core import autodiff as _ad
from ...tensor import Tensor
from . import base as _base

__all__ = ["record", "pause", "train_mode", "predict_mode", "is_recording", "is_training", "backward",
           "set_recording", "set_training", "mark_variables"]

_state = threading.local()
ATTACHED = {}                         # id -> weakref of each array with attach_grad(), for backward()
GRAD_REQS = ("write", "add", "null")


def _training():
    return getattr(_state, "training", False)


@contextlib.contextmanager
def _train_flag(flag):
    saved = _training()
    _state.training = bool(flag)
    try:
        yield
    finally:
        _state.training = saved


@contextlib.contextmanager
def record(train_mode=True):                     # noqa: F811  (MXNet's argument name)
    """Tape the ops run inside the ``with`` block; ``train_mode`` sets ``is_training()``."""
    with _ad.recording(), _train_flag(train_mode):
        yield


@contextlib.contextmanager
def pause(train_mode=False):                     # noqa: F811
    """Stop taping inside the ``with`` block (its ops get no gradient)."""
    with _ad.paused(), _train_flag(train_mode):
        yield


def train_mode():
    """Training mode without changing whether ops are taped."""
    return _train_flag(True)


def predict_mode():
    """Inference mode without changing whether ops are taped."""
    return _train_flag(False)


def is_recording():
    """True inside ``record()`` (and not inside a ``pause()`` within it)."""
    return _ad.is_recording()


def is_training():
    """True where ops should behave as in training (``record()`` by default)."""
    return _training()


def set_training(train_mode):
    """Set the training flag; returns the previous one."""
    prev = _training()
    _state.training = bool(train_mode)
    return prev


def set_recording(is_record):
    """Not offered: use ``with mx.autograd.record():`` (the tape is scoped)."""
    raise _base.MXNetError("mx.autograd.set_recording is not supported here; use `with mx.autograd.record():` "
                           "or `with mx.autograd.pause():`")


def mark_variables(variables, gradients, grad_reqs="write"):
    """Attach ``gradients`` as the grad buffers of ``variables`` (what ``attach_grad`` does for one)."""
    variables = variables if isinstance(variables, (list, tuple)) else [variables]
    gradients = gradients if isinstance(gradients, (list, tuple)) else [gradients]
    reqs = [grad_reqs] * len(variables) if isinstance(grad_reqs, str) else list(grad_reqs)
    for v, g, r in zip(variables, gradients, reqs):
        attach(v, r, g)


def attach(array, grad_req, grad_buffer):
    """Put ``array`` on the tape as a leaf whose gradient goes into ``grad_buffer``."""
    if grad_req not in GRAD_REQS:
        raise ValueError(f"NDArray.attach_grad: grad_req must be one of {list(GRAD_REQS)}, got {grad_req!r}")
    array._grad = grad_buffer
    array._grad_req = grad_req
    array._leaf = _ad.make_leaf(array)
    key = id(array)
    # keyed by id: NDArray == is elementwise, so weakref sets (which compare referents) cannot hold them
    ATTACHED[key] = weakref.ref(array, lambda _r, k=key: ATTACHED.pop(k, None) if ATTACHED.get(k) is _r else None)


def attached():
    """The live arrays with ``attach_grad()``."""
    return [a for a in (r() for r in list(ATTACHED.values())) if a is not None]


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):
    """Back-propagate from several heads at once into every array with ``attach_grad``."""
    if not isinstance(heads, (list, tuple)):
        heads = [heads]
        head_grads = None if head_grads is None else [head_grads]
    run_backward(list(heads), head_grads, [a for a in attached() if a._grad_req != "null" and a._leaf is not None])


def run_backward(heads, head_grads, targets):
    """Write the gradients of ``heads`` into the ``grad`` buffers of ``targets`` (attached arrays).

    All gradients are computed before any buffer is written; an op failure
    leaves every buffer as it was and marks them failed (see ``mx.base``).
    """
    roots = []
    for i, h in enumerate(heads):
        if not isinstance(h, Tensor):
            raise TypeError(f"backward: heads must be NDArrays, got {type(h).__name__}")
        if h._node is None:
            raise ValueError("backward: this array was not computed inside mx.autograd.record() from an "
                             "array with attach_grad(), so there is nothing to differentiate")
        g = None if head_grads is None else head_grads[i]
        if g is None:
            g = np.ones_like(h._data)
        g = np.asarray(g._data if isinstance(g, Tensor) else g, dtype=h._data.dtype)
        if g.shape != h._data.shape:
            raise ValueError(f"backward: out_grad has shape {g.shape}, the head has shape {h._data.shape}")
        roots.append((h, Tensor._wrap(g)))
    try:
        with _ad.paused(), _train_flag(True):
            grads = _ad.backward(roots, [a._leaf for a in targets])
    except _base._OpFailure as err:
        buffers = [a._grad for a in targets if a._grad is not None]
        for b in buffers:
            b._fail()
        _base.defer(err, buffers)
        return
    for a, g in zip(targets, grads):
        if g is None or a._grad is None:
            continue
        if getattr(a._grad, "stype", "default") != "default":
            a._grad._write(g._data, add=a._grad_req == "add")       # a sparse buffer keeps its storage type
        elif a._grad_req == "add":
            a._grad._data += g._data
        else:
            np.copyto(a._grad._data, g._data)
        if hasattr(type(a), "_fresh_grad"):
            a._fresh_grad = True          # a gluon Parameter's array: Trainer.step checks for stale gradients
