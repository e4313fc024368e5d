"""``ms.amp``: automatic mixed precision with MindSpore's levels.

``auto_mixed_precision(network, amp_level="O0", dtype=ms.float16)``:

- "O0": the network as it is.
- "O1": the Cells of the white list (``get_white_list()``: Conv1d, Conv2d,
  Conv2dTranspose, Dense ...; its primitive classes are not converted) compute in ``dtype``; their outputs are cast back to
  float32, so the rest of the network runs in float32.
- "O2": the network computes in ``dtype`` except the Cells of the black list
  (``get_black_list()``: BatchNorm1d, BatchNorm2d, BatchNorm3d, LayerNorm), which compute
  in float32 and hand ``dtype`` on; the network's output is cast to float32.
- "O3": the whole network computes in ``dtype``; its output is cast to float32.

In every level the Parameters stay float32 (master weights) and their
gradients are float32; the casts are differentiable ops, so graph mode
records them. ``dtype`` is float16 or bfloat16.

Loss scaling (``mscustom/_loss_scale.py``): ``FixedLossScaleManager``,
``DynamicLossScaleManager``, ``StaticLossScaler``, ``DynamicLossScaler``,
``all_finite``; ``build_train_network`` (``mscustom/_amp_train.py``) builds
the whole mixed-precision training step.

Example::

    net = ms.amp.auto_mixed_precision(net, "O2")
    loss = loss_fn(net(x), y)              # float32 output, float16 compute inside
"""

from . import dtype as _dt
from . import ops
from .nn.cell import Cell

from ._loss_scale import (LossScaleManager, FixedLossScaleManager, DynamicLossScaleManager,
                          LossScaler, StaticLossScaler, DynamicLossScaler, all_finite)
from ._amp_train import build_train_network

__all__ = ["auto_mixed_precision", "get_white_list", "get_black_list", "build_train_network",
           "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager", "LossScaler",
           "StaticLossScaler", "DynamicLossScaler", "all_finite"]

# MindSpore's lists, in its order: the classes of those names this package has.
_WHITE_NN = ("Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose", "Dense",
             "LSTMCell", "RNNCell", "GRUCell")
_WHITE_OPS = ("Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose", "Conv2DBackpropInput", "MatMul",
              "BatchMatMul", "PReLU", "ReLU", "Ger")
_BLACK_NN = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm")


def _classes(module, names):
    return [c for c in (getattr(module, n, None) for n in names) if isinstance(c, type)]


def get_white_list():
    """The Cell (and primitive) classes "O1" computes in low precision (a new list)."""
    from . import nn
    return _classes(nn, _WHITE_NN) + _classes(ops, _WHITE_OPS)


def get_black_list():
    """The Cell classes "O2" keeps in float32 (a new list)."""
    from . import nn
    return _classes(nn, _BLACK_NN)


def _cast_out(out, dtype):
    if isinstance(out, (tuple, list)):
        return type(out)(_cast_out(o, dtype) for o in out)
    if hasattr(out, "_data") and _dt.is_floating(out.dtype) and out.dtype != dtype:
        return ops.cast(out, dtype)
    return out


class _OutputTo(Cell):
    """Runs ``backbone`` and casts its floating-point outputs to ``dtype``."""

    def __init__(self, backbone, dtype):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self.dtype = dtype

    def construct(self, *args, **kwargs):
        return _cast_out(self._backbone(*args, **kwargs), self.dtype)

    def extend_repr(self):
        return f"dtype={self.dtype}"


def _replace_children(cell, test, make):
    """Replace every Cell under ``cell`` for which ``test`` holds by ``make(child)`` (not below it)."""
    for name, child in list(cell._cells.items()):
        if child is None:
            continue
        if test(child):
            new = make(child)
            cell.__dict__["_cells"][name] = new
            object.__setattr__(cell, name, new)
            if hasattr(cell, "cell_list") and isinstance(cell.cell_list, list):
                cell.cell_list = [new if c is child else c for c in cell.cell_list]
            if isinstance(cell.__dict__.get("_chain"), tuple):      # SequentialCell runs its cached chain
                cell.__dict__["_chain"] = tuple(new if c is child else c for c in cell.__dict__["_chain"])
        else:
            _replace_children(child, test, make)


def auto_mixed_precision(network, amp_level="O0", dtype=_dt.float16):
    """``network`` converted for mixed precision at ``amp_level`` (see the module's note)."""
    if not isinstance(network, Cell):
        raise TypeError(f"For amp_level '{amp_level}', the network type should be Cell.")
    if dtype not in (_dt.float16, _dt.bfloat16):
        raise ValueError(f"The dtype should be one of (mstype.float16, mstype.bfloat16), but got {dtype}.")
    if amp_level == "O0":
        return network
    if amp_level == "O1":
        white = tuple(get_white_list())
        if isinstance(network, white):
            network = _OutputTo(network.to_float(dtype), _dt.float32)
        else:
            _replace_children(network, lambda c: isinstance(c, white),
                              lambda c: _OutputTo(c.to_float(dtype), _dt.float32))
    elif amp_level == "O2":
        black = tuple(get_black_list())
        network.to_float(dtype)
        _replace_children(network, lambda c: isinstance(c, black),
                          lambda c: _OutputTo(c.to_float(_dt.float32), dtype))
        network = _OutputTo(network, _dt.float32)
    elif amp_level == "O3":
        network = _OutputTo(network.to_float(dtype), _dt.float32)
    else:
        raise ValueError(f"The amp level {amp_level} is not supported")
    network.__dict__["_amp_level"] = amp_level
    return network


def _check_class_list(name, classes):
    if not isinstance(classes, list):
        raise TypeError(f"The type of {name} should be list, but got {type(classes)}")
    for c in classes:
        if not isinstance(c, type):
            raise TypeError(f"The element in {name} should be a class, but got {c}")


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=_dt.float16):
    """``network`` converted for mixed precision by a list of Cell classes: with ``white_list`` the Cells
    of those classes compute in ``dtype`` and hand float32 on ("O1" with that list); with ``black_list``
    the network computes in ``dtype`` but for the Cells of those classes, which compute in float32
    and hand ``dtype`` on, and the output is cast to float32 ("O2" with that list). Primitive classes
    in a list are accepted and not converted."""
    if not isinstance(network, Cell):
        raise TypeError("The network type should be Cell.")
    if white_list is None and black_list is None:
        raise ValueError("For custom_mixed_precision, one of white_list and black_list must be provided.")
    if white_list is not None and black_list is not None:
        raise ValueError("For custom_mixed_precision, the white_list or black_list cannot be provided at the same "
                         "time, please provide one or the other.")
    if dtype not in (_dt.float16, _dt.bfloat16):
        raise ValueError(f"The dtype should be one of (mstype.float16, mstype.bfloat16), but got {dtype}.")
    if white_list is not None:
        _check_class_list("white_list", white_list)
        white = tuple(c for c in white_list if issubclass(c, Cell))
        if white and isinstance(network, white):
            return _OutputTo(network.to_float(dtype), _dt.float32)
        if white:
            _replace_children(network, lambda c: isinstance(c, white),
                              lambda c: _OutputTo(c.to_float(dtype), _dt.float32))
        return network
    _check_class_list("black_list", black_list)
    black = tuple(c for c in black_list if issubclass(c, Cell))
    network.to_float(dtype)
    if black:
        _replace_children(network, lambda c: isinstance(c, black),
                          lambda c: _OutputTo(c.to_float(_dt.float32), dtype))
    return _OutputTo(network, _dt.float32)


__all__ += ["custom_mixed_precision"]
