"""minpy on mscustom: ``from mscustom.compat import minpy``; ``import mscustom.compat.minpy.numpy as np``.

- ``minpy.numpy``: NumPy's namespace where differentiable functions are mscustom ops (taped);
- ``minpy.core``: ``grad``, ``grad_and_loss``, ``convert_args``, ``wraps``, ``Function``;
- ``minpy.primitive``: ``@customop("numpy")`` with ``def_grad``;
- ``minpy.nn``: ``model.ModelBase``, ``solver.Solver``, ``io.NDArrayIter``, ``layers``, ``optim``, ``init``.

Arrays are mscustom Tensors (``asnumpy()``, ``.shape``, arithmetic, NumPy interop
through ``Tensor.__array_ufunc__``).

Example::

    from mscustom.compat.minpy import customop, grad

    @customop("numpy")
    def my_sigmoid(x):
        return 1.0 / (1.0 + np.exp(-x))
    my_sigmoid.def_grad(lambda ans, x: lambda g: g * ans * (1 - ans))
    grad(my_sigmoid)(np.array([0.0, 1.0]))
"""

from . import core, primitive
from .core import grad, grad_and_loss, convert_args, wraps, Function
from .primitive import customop

__all__ = ["core", "primitive", "customop", "grad", "grad_and_loss", "convert_args", "wraps", "Function"]
