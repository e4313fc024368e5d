"""MXNet-style custom operators on mscustom: ``from mscustom.compat import mxnet as mx``.

``mx.operator`` (``CustomOp``, ``CustomOpProp``, ``register``), ``mx.nd``
(``array``, ``Custom``, ``waitall``, ``NDArray`` with ``attach_grad`` /
``grad`` / ``backward``) and ``mx.autograd`` (``record``, ``pause``,
``is_recording``, ``is_training``) -- enough to run an MXNet custom-op script
unchanged. Everything runs on mscustom's operator core.

Example::

    from mscustom.compat import mxnet as mx
    x = mx.nd.array([0.0, 1.0]); x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="sigmoid")      # registered with @mx.operator.register
    y.backward()
"""

from . import autograd, operator
from . import ndarray as nd
from .ndarray import NDArray

cpu = lambda device_id=0: f"cpu({device_id})"          # noqa: E731  (contexts are names here)

__all__ = ["autograd", "operator", "nd", "NDArray", "cpu"]
