"""``ms.amp``: automatic mixed precision with MindSpore's levels.

``auto_mixed_precision(network, amp_level="O0", dtype=ms.float16)``:

- "O0": the network as it is.
- "O1": the Cells of the white list (``get_white_list()``: Conv1d, Conv2d,
  Conv2dTranspose, Dense) compute in ``dtype``; their outputs are cast back to
  float32, so the rest of the network runs in float32.
- "O2": the network computes in ``dtype`` except the Cells of the black list
  (``get_black_list()``: BatchNorm1d, BatchNorm2d, LayerNorm), which compute
  in float32 and hand ``dtype`` on; the network's output is cast to float32.
- "O3": the whole network computes in ``dtype``; its output is cast to float32.

In every level the Parameters stay float32 (master weights) and their
gradients are float32; the casts are differentiable ops, so graph mode
records them. ``dtype`` is float16 or bfloat16.

Example::

    net = ms.amp.auto_mixed_precision(net, "O2")
    loss = loss_fn(net(x), y)              # float32 output, float16 compute inside
"""

from . import dtype as _dt
from . import ops
from .nn.cell import Cell
from .nn import conv as _conv, layers as _layers, normalization as _norm

__all__ = ["auto_mixed_precision", "get_white_list", "get_black_list"]


def get_white_list():
    """The Cell classes "O1" computes in low precision (a new list)."""
    return [_conv.Conv1d, _conv.Conv2d, _conv.Conv2dTranspose, _layers.Dense]


def get_black_list():
    """The Cell classes "O2" keeps in float32 (a new list)."""
    return [_norm.BatchNorm1d, _norm.BatchNorm2d, _norm.LayerNorm]


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
