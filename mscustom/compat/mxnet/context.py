"""``mx.context``: ``Context``, ``cpu()``, ``gpu()``, ``current_context()``.

Arrays live in host memory; a context only says which device target mscustom
runs kernels for: ``mx.gpu()`` maps to ``device_target="GPU"`` where kernels
exist for it (``ops.Custom`` jit/aot kernels); ``mx.cpu()`` to ``"CPU"``.
Only device id 0 of one GPU is meaningful here.

Example::

    mx.cpu()                     # cpu(0)
    mx.nd.ones((2,), ctx=mx.cpu()).context
"""

import threading

from ... import context as _msctx

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus", "Device", "current_device"]

_DEVTYPES = {"cpu": 1, "gpu": 2, "cpu_pinned": 3, "cpu_shared": 5}


class Context:
    """A device: ``device_type`` ('cpu' or 'gpu') and ``device_id``. Usable as ``with ctx:``."""

    _default = threading.local()

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Context):
            device_type, device_id = device_type.device_type, device_type.device_id
        if device_type not in _DEVTYPES:
            raise ValueError(f"mx.Context: device_type must be one of {sorted(_DEVTYPES)}, got {device_type!r}")
        self.device_type = device_type
        self.device_id = int(device_id)
        self._old = None

    @property
    def device_typeid(self):
        return _DEVTYPES[self.device_type]

    @property
    def target(self):
        """The mscustom device target this context maps to."""
        return "GPU" if self.device_type == "gpu" else "CPU"

    def __eq__(self, other):
        return isinstance(other, Context) and (self.device_type, self.device_id) == (other.device_type,
                                                                                    other.device_id)

    def __hash__(self):
        return hash((self.device_type, self.device_id))

    def __repr__(self):
        return f"{self.device_type}({self.device_id})"

    __str__ = __repr__

    def __enter__(self):
        self._old = current_context()
        Context._default.value = self
        return self

    def __exit__(self, *exc):
        Context._default.value = self._old


def cpu(device_id=0):
    """The CPU context."""
    return Context("cpu", device_id)


def cpu_pinned(device_id=0):
    """Pinned host memory: the same host arrays here."""
    return Context("cpu_pinned", device_id)


def gpu(device_id=0):
    """The GPU context: kernels run for mscustom's ``GPU`` target (arrays stay in host memory)."""
    return Context("gpu", device_id)


def num_gpus():
    """How many CUDA devices Numba sees (0 when none or numba-cuda is absent)."""
    try:
        from numba import cuda
        return len(cuda.gpus) if cuda.is_available() else 0
    except Exception:                       # noqa: BLE001  (no CUDA driver, no numba-cuda)
        return 0


def current_context():
    """The context of ``with ctx:`` blocks, ``cpu(0)`` by default."""
    return getattr(Context._default, "value", None) or Context("cpu", 0)


class device_scope:
    """Run mscustom kernels for ``ctx``'s device target inside the ``with`` block (restored after)."""

    def __init__(self, ctx):
        self.target = (ctx if isinstance(ctx, Context) else current_context()).target

    def __enter__(self):
        self.saved = _msctx.device_target()
        if self.saved != self.target:
            _msctx.set_device(device_target=self.target)
        return self

    def __exit__(self, *exc):
        if _msctx.device_target() != self.saved:
            _msctx.set_device(device_target=self.saved)


# MXNet 2.0's names (``mx.device.Device``, ``mx.device.current_device``) for the same things
Device = Context
current_device = current_context
