"""``ms.export(net, *inputs, file_name=..., file_format="MINDIR")``: a network as a MindSpore MindIR file.

The network runs once on ``inputs`` while graph mode's recorder
(``_core/capture.py``) writes down every kernel call, as ONNX export does
(``onnx_export.py``); each recorded call is then written as MindSpore 2.x
operators (``MatMul``, ``Conv2D``, ``Softmax``...) by a translator of
``_mindir_ops.py``, or by the op's own ``FMindIR`` attribute (the recurrent
sequence ops, ``ops/nn/rnn_mindir.py``). Parameters become the file's parameters under
their names (``GraphCell`` and ``load_checkpoint`` know them by these),
other constants ``Constant`` nodes; the tensor arguments are the graph's
inputs with the shapes given, the network's return value its output (a tuple
when it returns several). The file loads in MindSpore 2.10 with
``mindspore.load`` and runs with ``nn.GraphCell``.

The network must be in inference mode (``set_train(False)``): in-place state
updates (BatchNorm's moving statistics) and random numbers (Dropout in
training) are refused, as are ops with no MindIR form here (named in the
error), Custom ops, and outputs the graph cannot compute (max-pool argmax
indices). ``docs/training.md`` lists the supported layers.

Example::

    net.set_train(False)
    ms.export(net, ms.Tensor(np.ones((1, 3, 32, 32), np.float32)), file_name="lenet", file_format="MINDIR")
    # writes lenet.mindir; in MindSpore: nn.GraphCell(mindspore.load("lenet.mindir"))(x)
"""

import numpy as np

from ..tensor import Parameter, Tensor
from ._mindir_builder import Builder
from ._mindir_ops import translate

__all__ = ["export_mindir", "write_mindir"]

_MAX_BYTES = 2 ** 31 - 1        # one protobuf message


class _Export(Builder):
    """The builder of one export: the capture's slots as MindIR value names."""

    def __init__(self, cap, graph_name):
        super().__init__(graph_name)
        self.cap = cap
        self.names = {}             # slot -> value name
        self.missing = {}           # slot -> why it has no value (an output left out by its op's translator)

    def name(self, slot):
        found = self.names.get(slot)
        if found is not None:
            return found
        if slot in self.missing:
            raise ValueError(f"ms.export: {self.missing[slot]}, and the network uses it")
        desc = self.cap.slots[slot]
        if desc[0] == "same":
            return self.name(desc[1])
        if desc[0] != "ext":
            raise RuntimeError(f"ms.export: slot {slot} ({desc[0]}) was read before it was written")
        tensor = desc[1]
        array = np.asarray(tensor._data)
        if isinstance(tensor, Parameter) and getattr(tensor, "name", None):
            found = self.parameter(str(tensor.name), array)
        else:
            found = self.const(array)
        self.names[slot] = found
        return found

    def array(self, slot):
        return self.cap.arrays[slot]


# ------------------------------------------------------------------ which layer ran a step
class _Layers:
    """Records, while the network runs, which sub-Cell's ``construct`` ran each recorded step.

    Every sub-Cell's ``construct`` is wrapped for the run (an instance
    attribute, removed after) to note the step count when it starts and ends;
    a step belongs to the innermost Cell running when it was recorded.
    """

    def __init__(self, net):
        self.net = net
        self.spans = []             # (first step, end step, layer name), in the order the calls ended
        self.cap = None             # the Capture being recorded

    def __enter__(self):
        self.saved = []
        for name, cell in self.net.cells_and_names():
            if not name:
                continue
            self.saved.append((cell, cell.__dict__.get("construct")))
            object.__setattr__(cell, "construct", self._wrap(cell, name, cell.construct))
        return self

    def _wrap(self, cell, name, construct):
        def construct_and_note(*args, **kwargs):
            first = len(self.cap.steps)
            try:
                return construct(*args, **kwargs)
            finally:
                self.spans.append((first, len(self.cap.steps), f"'{name}' ({type(cell).__name__})"))
        return construct_and_note

    def __exit__(self, *exc):
        for cell, own in self.saved:
            if own is None:
                cell.__dict__.pop("construct", None)
            else:
                object.__setattr__(cell, "construct", own)

    def of(self, index):
        """The layer that ran step ``index`` ("'fc' (Dense)"), or the network itself."""
        for first, end, name in self.spans:         # inner calls end first
            if first <= index < end:
                return f"layer {name}"
        return f"the network's own construct ({type(self.net).__name__})"


def _capture(net, inputs):
    """Run ``net`` once in PyNative mode under the recorder (the calls themselves, not a replay); returns the
    capture, the output and which layer ran each step."""
    from .. import context as _context
    from .._core import capture as _capture_mod

    cap = _capture_mod.Capture([t for t in inputs if isinstance(t, Tensor)])
    layers = _Layers(net)
    layers.cap = cap
    saved = _context._settings["mode"]
    _context._settings["mode"] = _context.PYNATIVE_MODE
    try:
        with layers, _capture_mod.capturing(cap):
            out = net(*inputs)
    finally:
        _context._settings["mode"] = saved
    return cap, out, layers


# ------------------------------------------------------------------ export
def _output_value(g, cap, out):
    """The value name of the network's output (nested tuples as MakeTuple nodes)."""
    if isinstance(out, Tensor):
        slot = cap.slot_of.get(id(out._data))
        if slot is None:
            raise ValueError("ms.export: an output of the network is not computed from its inputs")
        name = g.name(slot)
        if name not in g.computed:                     # an input, weight or constant returned as it is
            shape, dtype = g.info[name]
            name = g.node("Identity", [name], shape, dtype)
        return name
    if isinstance(out, (tuple, list)):
        return g.make_tuple([_output_value(g, cap, o) for o in out])
    raise TypeError(f"ms.export: the network must return Tensors (or tuples of them), got {type(out).__name__}")


def write_mindir(net, inputs):
    """The MindIR ``ModelProto`` of ``net`` run on ``inputs`` (Tensors), before serialization."""
    cap, out, layers = _capture(net, inputs)
    if cap.unusable is not None:
        reason, where, line = cap.unusable
        raise ValueError(f"ms.export: the network cannot be written as a graph: {reason} ({where}:{line})")
    g = _Export(cap, type(net).__name__)
    for k, t in enumerate(inputs):
        slot = cap.slot_of[id(t._data)]
        if cap.slots[slot][0] != "arg":
            continue
        name = g.graph_input(f"{g.graph.name}:input_{k}", t.shape, t._data.dtype)
        g.names.setdefault(slot, name)          # a Tensor passed twice is read through its first input
    for index, step in enumerate(cap.steps):
        if step.kind == "check":
            continue                        # a validation of values: nothing to compute
        if step.kind != "kernel":
            what = {"effect": "changes a tensor in place (BatchNorm's moving statistics or an optimizer step; "
                              "call net.set_train(False) first)",
                    "host": "runs Python code on tensor values (random numbers such as Dropout in training; "
                            "call net.set_train(False) first)",
                    "guard": "turns a tensor value into a Python value that decides what runs next"}[step.kind]
            raise ValueError(f"ms.export: {layers.of(index)} {what}; MindIR export has no form for that")
        if step.op.attrs.get("FRandom"):
            raise ValueError(f"ms.export: {layers.of(index)} draws random numbers (op '{step.op.name}', such as "
                             "Dropout in training; call net.set_train(False) first); MindIR export has no form for "
                             "that")
        try:
            ins = [g.name(s) for s in step.ins]
            names = translate(g, step, ins)
        except ValueError as e:
            raise ValueError(f"{e} (in {layers.of(index)})") from None
        if names is None:
            frontend = getattr(step.op, "frontend", None)
            if frontend not in ("builtin", None):
                raise ValueError(f"ms.export: {layers.of(index)} calls op '{step.op.name}', a Custom op ({frontend} "
                                 "front end), which has no MindIR form; MINDIR export supports networks of "
                                 "built-in ops")
            raise ValueError(f"ms.export: {layers.of(index)} has no MindIR form: its op '{step.op.name}' (attributes "
                             f"{step.attrs}) is not one MINDIR export writes (docs/training.md lists the supported "
                             "layers)")
        for k, s in enumerate(step.outs):
            if k < len(names) and names[k] is not None:
                g.names[s] = names[k]
            elif s not in g.missing:
                g.missing[s] = f"output {k} of op '{step.op.name}' has no MindIR form"
    g.graph_output(_output_value(g, cap, out))
    return g.model


def export_mindir(net, inputs, file_name):
    """Write ``net`` run on ``inputs`` as ``file_name`` + ".mindir"; returns the path written."""
    from .serialization import _atomic_write

    data = write_mindir(net, inputs).SerializeToString()
    if len(data) > _MAX_BYTES:
        raise ValueError(f"ms.export: the MindIR model is {len(data)} bytes; a file over 2 GiB (MindSpore's "
                         "external weight files) is not written by mscustom")
    path = file_name if file_name.endswith(".mindir") else file_name + ".mindir"
    _atomic_write(path, lambda f: f.write(data))
    return path
