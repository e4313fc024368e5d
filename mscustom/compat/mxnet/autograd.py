"""``mx.autograd``: ``record``, ``pause``, ``is_recording``, ``is_training``, ``backward``.

Recording is the core tape's (``mscustom._core.autodiff``): inside
``record()`` every op whose inputs reach an array with ``attach_grad`` is
taped. ``is_training`` is the flag a CustomOp's ``forward`` gets as
``is_train``.

Example::

    x = mx.nd.array([1.0, 2.0]); x.attach_grad()
    with mx.autograd.record():
        y = x * x
    y.backward()                     # x.grad == [2, 4]
"""

import contextlib

from ..._core import autodiff as _ad

_TRAINING = [False]


@contextlib.contextmanager
def _scope(recording, train_mode):
    saved_train = _TRAINING[0]
    _TRAINING[0] = bool(train_mode)
    try:
        with (_ad.recording() if recording else _ad.paused()):
            yield
    finally:
        _TRAINING[0] = saved_train


def record(train_mode=True):
    """Tape the ops run inside the ``with`` block; ``train_mode`` sets ``is_training()``."""
    return _scope(True, train_mode)


def pause(train_mode=False):
    """Stop taping inside the ``with`` block (its ops get no gradient)."""
    return _scope(False, train_mode)


def train_mode():
    """Training mode without changing whether ops are taped."""
    return _scope(is_recording(), True)


def predict_mode():
    """Inference mode without changing whether ops are taped."""
    return _scope(is_recording(), False)


def is_recording():
    """True inside ``record()`` (and not inside a ``pause()`` within it)."""
    return _ad.is_recording()


def is_training():
    """True where ops should behave as in training (``record()`` by default)."""
    return _TRAINING[0]


def backward(heads, head_grads=None):
    """Back-propagate from several heads at once into every array with ``attach_grad``."""
    from .ndarray import _backward
    if not isinstance(heads, (list, tuple)):
        heads = [heads]
        head_grads = None if head_grads is None else [head_grads]
    _backward(list(heads), head_grads)
