"""Old module paths of the op modules that moved into the concern packages (``ops/math/``, ``ops/nn/`` ...).

``mscustom.ops._math_ops`` and the like were flat modules; each now has one
home (``MOVED``). Importing an old path gives the module at its new home (the
same module object, so patching either name patches both); pickles and code
written against the old paths keep working. Code in the package imports the
new paths (``tests/test_ops_layout.py`` checks it).
"""

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["MOVED", "install"]

# old name under mscustom.ops -> new name under mscustom.ops
MOVED = {
    "_math_ops": "math.elementwise",
    "_more_math_ops": "math.elementwise_more",
    "_reduce_ops": "math.reduce",
    "_scan_ops": "math.scan",
    "_array_ops": "array.shape",
    "_more_array_ops": "array.shape_more",
    "_tensor_ops": "array.creation",
    "_index_ops": "array.index",
    "_setitem_ops": "array.setitem",
    "_sort_gather_ops": "array.sort_gather",
    "_pad_resize_ops": "array.pad_resize",
    "_assign_ops": "array.assign",
    "_nn_ops": "nn.activation",
    "_activation_ops": "nn.activation_extra",
    "_conv_ops": "nn.conv",
    "_cnn_loops": "nn.cnn_loops",
    "_pool_ops": "nn.pool",
    "_norm_ops": "nn.norm",
    "_batch_norm_ops": "nn.batch_norm",
    "_layer_norm_last_ops": "nn.layer_norm_last",
    "_loss_ops": "nn.loss_fused",
    "_loss_functional": "nn.loss",
    "_attention_ops": "nn.attention",
    "_rnn_ops": "nn.rnn",
    "_rnn_loops": "nn.rnn_loops",
    "_rnn_mindir": "nn.rnn_mindir",
    "_rnn_onnx": "nn.rnn_onnx",
    "_dot_ops": "linalg.dot",
    "_bmm_ops": "linalg.bmm",
    "_comm_ops": "comm.collective",
    "_comm_loops": "comm.loops",
    "_graph_kernels": "graph_mode.kernels",
    "_graph_loops": "graph_mode.loops",
    "_fusion_exprs": "graph_mode.fusion_exprs",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``mscustom.ops.<old>`` and loads it as the module at its new path."""

    def find_spec(self, fullname, path=None, target=None):
        prefix, _, leaf = fullname.rpartition(".")
        if prefix != __package__ or leaf not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        name = module.__name__
        new = importlib.import_module(f"{__package__}.{MOVED[name.rpartition('.')[2]]}")
        sys.modules[name] = new         # the import system returns what sys.modules holds after loading


_FINDER = _Alias()


def install():
    """Put the finder on ``sys.meta_path`` (once)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)
