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
``all_finite``; ``build_train_network`` (below) builds
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


# ================================================================== build_train_network
# ``ms.amp.build_train_network``: a network, its loss and optimizer as one mixed-precision training step.
#
# ``level`` picks a configuration, which keyword arguments override:
#
# =========  =================  ===================  ==============================
# level      cast_model_type    keep_batchnorm_fp32  loss_scale_manager
# =========  =================  ===================  ==============================
# "O0"       float32            False                None
# "O1"       float32            False                None
# "O2"       float16            True                 DynamicLossScaleManager()
# "O3"       float16            False                None
# =========  =================  ===================  ==============================
#
# A float16 ``cast_model_type`` marks the network with ``to_float(float16)``
# (with ``keep_batchnorm_fp32`` its BatchNorm/LayerNorm Cells compute in
# float32 and hand float16 on); otherwise ``auto_mixed_precision(network,
# level)`` converts it. ``loss_fn`` is then attached (the network's output and
# the label cast to float32 first when the network computes in float16). A
# manager whose ``get_update_cell()`` gives a Cell makes the step an
# ``nn.TrainOneStepWithLossScaleCell`` (an overflowing step is skipped); any
# other (or none) an ``nn.TrainOneStepCell`` whose gradients are scaled by the
# manager's loss scale (the optimizer's ``loss_scale`` divides them back).
#
# Example::
#
#     step = ms.amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.01, 0.9),
#                                       nn.MSELoss(), level="O2")
#     loss, overflow, scale = step(x, y)


_LEVELS = ("O0", "O1", "O2", "O3", "auto")
_KWARGS = ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager")


def _level_config(level):
    f16 = level in ("O2", "O3")
    return {"keep_batchnorm_fp32": level == "O2",
            "cast_model_type": _dt.float16 if f16 else _dt.float32,
            "loss_scale_manager": DynamicLossScaleManager() if level == "O2" else None}


def _check_kwargs(kwargs):
    for key in kwargs:
        if key not in _KWARGS:
            raise ValueError(f"Unsupported arg '{key}'")
    if "cast_model_type" in kwargs and kwargs["cast_model_type"] not in (_dt.float16, _dt.float32):
        raise TypeError(f"op 'build_train_network': cast_model_type must be mstype.float16 or mstype.float32, "
                        f"got {kwargs['cast_model_type']}")
    if "keep_batchnorm_fp32" in kwargs and not isinstance(kwargs["keep_batchnorm_fp32"], bool):
        raise TypeError(f"op 'build_train_network': keep_batchnorm_fp32 must be a bool, got "
                        f"{type(kwargs['keep_batchnorm_fp32']).__name__}")
    manager = kwargs.get("loss_scale_manager")
    if manager and not isinstance(manager, LossScaleManager):
        raise TypeError(f"op 'build_train_network': loss_scale_manager must be a LossScaleManager, got "
                        f"{type(manager).__name__}")


def _keep_norms_fp32(network):
    """The black-list Cells under ``network`` compute in float32 and hand float16 on."""
    black = tuple(get_black_list())
    _replace_children(network, lambda c: isinstance(c, black),
                          lambda c: _OutputTo(c.to_float(_dt.float32), _dt.float16))


def _convert(network, config, level):
    cast = config["cast_model_type"]
    if cast == _dt.float16:
        network.to_float(_dt.float16)
        if config["keep_batchnorm_fp32"]:
            _keep_norms_fp32(network)
    elif not config["keep_batchnorm_fp32"] and level == "O2":
        network.to_float(_dt.float16)
    elif not (cast == _dt.float32 and level in ("O2", "O3")):     # float32 asked for O2/O3: left as it is
        network = auto_mixed_precision(network, level)
    return network


class _WithLossFloat32(Cell):
    """``loss_fn(float32(backbone(data)), float32(label))``: the loss of a low-precision network in float32."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = _cast_out(self._backbone(data), _dt.float32)
        return self._loss_fn(out, _cast_out(label, _dt.float32))


def _add_loss(network, loss_fn, cast):
    from .nn import WithLossCell
    if not isinstance(loss_fn, Cell):
        raise TypeError(f"op 'build_train_network': loss_fn must be a Cell, got {type(loss_fn).__name__}")
    if cast in (_dt.float16, _dt.bfloat16) or getattr(network, "_amp_level", None) in ("O2", "O3", "auto"):
        return _WithLossFloat32(network, loss_fn)
    return WithLossCell(network, loss_fn)


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0", **kwargs):
    """``network`` (with ``loss_fn`` attached when given) converted for mixed precision at
    ``level`` and wrapped in a training step with ``optimizer`` (see the module's note).

    ``kwargs``: ``cast_model_type`` (float16 or float32), ``keep_batchnorm_fp32`` (bool),
    ``loss_scale_manager`` (a LossScaleManager or None). ``boost_level`` must be "O0"
    (MindSpore's boost training is not provided).
    """
    from .nn import Optimizer, TrainOneStepCell
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"op 'build_train_network': optimizer must be an nn.Optimizer, got "
                        f"{type(optimizer).__name__}")
    if not isinstance(level, str):
        raise TypeError(f"The argument `level` must be a string in ['O0', 'O1', 'O2', 'O3', 'auto'],"
                        f"but got type {type(level)}.")
    if level not in _LEVELS:
        raise ValueError(f"op 'build_train_network': level must be one of {list(_LEVELS)}, got {level!r}")
    if boost_level not in ("O0", "O1", "O2"):
        raise ValueError(f"op 'build_train_network': boost_level must be one of ['O0', 'O1', 'O2'], "
                         f"got {boost_level!r}")
    if boost_level != "O0":
        raise NotImplementedError(f"op 'build_train_network': boost_level {boost_level!r} (boost training) is "
                                  f"not provided; use 'O0'")
    _check_kwargs(kwargs)
    config = dict(_level_config(level), **kwargs)
    network = _convert(network, config, level)
    if loss_fn:
        network = _add_loss(network, loss_fn, config["cast_model_type"])
    loss_scale = 1.0
    manager = config["loss_scale_manager"]
    if manager is not None:
        loss_scale = manager.get_loss_scale()
        update_cell = manager.get_update_cell()
        if update_cell is not None:
            from .nn import TrainOneStepWithLossScaleCell
            return TrainOneStepWithLossScaleCell(network, optimizer, scale_sense=update_cell).set_train()
    return TrainOneStepCell(network, optimizer, loss_scale).set_train()
