"""``ms.amp.build_train_network``: a network, its loss and optimizer as one mixed-precision training step.

``level`` picks a configuration, which keyword arguments override:

=========  =================  ===================  ==============================
level      cast_model_type    keep_batchnorm_fp32  loss_scale_manager
=========  =================  ===================  ==============================
"O0"       float32            False                None
"O1"       float32            False                None
"O2"       float16            True                 DynamicLossScaleManager()
"O3"       float16            False                None
=========  =================  ===================  ==============================

A float16 ``cast_model_type`` marks the network with ``to_float(float16)``
(with ``keep_batchnorm_fp32`` its BatchNorm/LayerNorm Cells compute in
float32 and hand float16 on); otherwise ``auto_mixed_precision(network,
level)`` converts it. ``loss_fn`` is then attached (the network's output and
the label cast to float32 first when the network computes in float16). A
manager whose ``get_update_cell()`` gives a Cell makes the step an
``nn.TrainOneStepWithLossScaleCell`` (an overflowing step is skipped); any
other (or none) an ``nn.TrainOneStepCell`` whose gradients are scaled by the
manager's loss scale (the optimizer's ``loss_scale`` divides them back).

Example::

    step = ms.amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.01, 0.9),
                                      nn.MSELoss(), level="O2")
    loss, overflow, scale = step(x, y)
"""

from . import dtype as _dt
from .nn.cell import Cell
from ._loss_scale import LossScaleManager, DynamicLossScaleManager

__all__ = ["build_train_network"]

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
    from . import amp
    black = tuple(amp.get_black_list())
    amp._replace_children(network, lambda c: isinstance(c, black),
                          lambda c: amp._OutputTo(c.to_float(_dt.float32), _dt.float16))


def _convert(network, config, level):
    from . import amp
    cast = config["cast_model_type"]
    if cast == _dt.float16:
        network.to_float(_dt.float16)
        if config["keep_batchnorm_fp32"]:
            _keep_norms_fp32(network)
    elif not config["keep_batchnorm_fp32"] and level == "O2":
        network.to_float(_dt.float16)
    elif cast == _dt.float32 and level in ("O2", "O3"):
        pass
    else:
        network = amp.auto_mixed_precision(network, level)
    return network


class _WithLossFloat32(Cell):
    """``loss_fn(float32(backbone(data)), float32(label))``: the loss of a low-precision network in float32."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        from .amp import _cast_out
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

