"""``Cell``: the building block of networks, and the containers ``SequentialCell`` / ``CellList``.

A Cell's subclass computes in ``construct``; calling the Cell runs it.
Parameters and sub-Cells assigned as attributes are registered in order, so
``trainable_params()`` finds every weight of a model. As in MindSpore, a child
Cell assigned to ``self.fc1`` renames its Parameters to ``fc1.weight`` and so
on (unless the parent was built with ``auto_prefix=False``, as the training
wrappers are), and ``parameters_and_names()`` yields the names by structure.

Registered objects also live in the instance ``__dict__``, so ``self.fc1`` in
``construct`` is a plain attribute read (the call path stays lean).

Example::

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(2, 8)
            self.relu = nn.ReLU()
            self.fc2 = nn.Dense(8, 3)

        def construct(self, x):
            return self.fc2(self.relu(self.fc1(x)))

    net = Net()
    [p.name for p in net.trainable_params()]   # ['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']
"""

from collections import OrderedDict

from .. import context as _context
from .. import graph as _graph
from .._core.tape import STATE as _STATE
from ..tensor import Parameter
from . import _amp, _signature

_settings = _context._settings
_GRAPH_MODE = _context.GRAPH_MODE

__all__ = ["Cell", "SequentialCell", "CellList"]


class Cell:
    """Base class of layers and networks (MindSpore's ``nn.Cell``).

    ``auto_prefix``: when True (the default), a child Cell assigned as an
    attribute prefixes its Parameters' names with the attribute's name.
    ``training`` is False until ``set_train()`` is called, as in MindSpore.
    """

    def __init__(self, auto_prefix=True, flags=None):
        d = self.__dict__
        d["_params"] = OrderedDict()
        d["_cells"] = OrderedDict()
        d["_auto_prefix"] = bool(auto_prefix)
        d["training"] = False
        d["cls_name"] = type(self).__name__
        if flags:
            d.update(flags)

    # ------------------------------------------------------------------ calling
    def construct(self, *inputs, **kwargs):
        """The computation; subclasses define it."""
        raise NotImplementedError(f"Cell '{type(self).__name__}' does not define construct(); "
                                  "subclasses of nn.Cell must define it")

    _input_signature = None          # set by set_inputs (nn/_signature.py)
    _mixed_dtype = None              # set by to_float (nn/_amp.py)

    def __call__(self, *args, **kwargs):
        if self._input_signature is not None:
            args = _signature.check_inputs(self, args, self._input_signature)
        cap = _STATE.capture
        if cap is not None:                 # a graph record depends on this Cell and its flags
            cap.cells.append(self)
        if self._mixed_dtype is not None:
            return _amp.mixed_call(self, args, kwargs)
        if _settings["mode"] == _GRAPH_MODE:
            return _graph.cell_call(self, args, kwargs)      # captured once, replayed after
        return self.construct(*args, **kwargs)

    def set_inputs(self, *inputs):
        """Declare the network's input signature, as MindSpore's ``Cell.set_inputs`` does.

        ``inputs``: one per ``construct`` argument; a placeholder such as
        ``Tensor(shape=[None, 3], dtype=ms.float32)`` declares an unknown
        dimension (``Tensor(shape=None, dtype=...)``: an unknown rank), a real
        Tensor its exact shape. Later calls must match (number of inputs, rank,
        dtype, fixed dimensions); inside the network, ``ops.Custom`` shape
        inference sees the unknown dimensions as -1.

        Example::

            net.set_inputs(ms.Tensor(shape=[None, 3], dtype=ms.float32))
            net(ms.Tensor(np.ones((5, 3), np.float32)))      # any batch size
        """
        self.__dict__["_input_signature"] = _signature.declare(type(self).__name__, inputs)

    def get_inputs(self):
        """The inputs given to ``set_inputs`` (a tuple), or None when none were declared."""
        sig = self._input_signature
        return None if sig is None else sig.inputs

    # ------------------------------------------------------------------ registration
    def __setattr__(self, name, value):
        d = self.__dict__
        if "_params" not in d:
            if isinstance(value, (Parameter, Cell)):
                raise AttributeError(f"{type(self).__name__}: cannot assign {type(value).__name__} "
                                     f"'{name}' before Cell.__init__() is called; call "
                                     "super().__init__() first")
            object.__setattr__(self, name, value)
            return
        params, cells = d["_params"], d["_cells"]
        if isinstance(value, (Parameter, Cell)):
            _graph.training_changed()           # the structure changed: graph records see new modes
        if isinstance(value, Parameter):
            cells.pop(name, None)
            if value.name is None:
                value.name = name
            params[name] = value
        elif isinstance(value, Cell):
            params.pop(name, None)
            if d["_auto_prefix"]:
                value.update_parameters_name(name + ".")
            cells[name] = value
        else:
            params.pop(name, None)
            cells.pop(name, None)
            if name == "training":
                _graph.training_changed()
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        d = self.__dict__
        if "_params" in d:
            d["_params"].pop(name, None)
            d["_cells"].pop(name, None)
        object.__delattr__(self, name)

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        """Register ``param`` under ``param_name`` (as ``setattr`` would, with checks).

        Example::

            cell.insert_param_to_cell("scale", ms.Parameter(ms.Tensor([1.0])))
        """
        if not isinstance(param_name, str) or not param_name:
            raise ValueError(f"{type(self).__name__}.insert_param_to_cell: param_name must be a "
                             f"non-empty str, got {param_name!r}")
        if check_name_contain_dot and "." in param_name:
            raise ValueError(f"{type(self).__name__}.insert_param_to_cell: param_name "
                             f"{param_name!r} must not contain '.'")
        if not isinstance(param, Parameter):
            raise TypeError(f"{type(self).__name__}.insert_param_to_cell: param must be a "
                            f"Parameter, got {type(param).__name__}")
        if param_name in self.__dict__ and param_name not in self._params:
            raise ValueError(f"{type(self).__name__}.insert_param_to_cell: attribute "
                             f"{param_name!r} already exists and is not a Parameter")
        setattr(self, param_name, param)

    def insert_child_to_cell(self, child_name, child_cell):
        """Register ``child_cell`` under ``child_name`` (as ``setattr`` would, with checks)."""
        if not isinstance(child_name, str) or not child_name or "." in child_name:
            raise ValueError(f"{type(self).__name__}.insert_child_to_cell: child_name must be a "
                             f"non-empty str without '.', got {child_name!r}")
        if not isinstance(child_cell, Cell):
            raise TypeError(f"{type(self).__name__}.insert_child_to_cell: child_cell must be a "
                            f"Cell, got {type(child_cell).__name__}")
        setattr(self, child_name, child_cell)

    def update_parameters_name(self, prefix="", recurse=True):
        """Rename every Parameter to ``prefix`` + its structural name (``fc1.`` + ``weight``)."""
        for name, param in self.parameters_and_names(expand=recurse):
            param.name = prefix + name

    # ------------------------------------------------------------------ traversal
    def cells_and_names(self, cells=None, name_prefix=""):
        """Yield ``(name, cell)`` for this Cell (name ``name_prefix``) and every descendant, once each."""
        seen = set() if cells is None else cells
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, cell in self._cells.items():
            if cell is None:
                continue
            yield from cell.cells_and_names(seen, f"{name_prefix}.{name}" if name_prefix else name)

    def name_cells(self):
        """The direct children, as an OrderedDict name -> Cell."""
        return OrderedDict((n, c) for n, c in self._cells.items() if c is not None)

    def cells(self):
        """The direct children (an iterable of Cells)."""
        return self.name_cells().values()

    def parameters_and_names(self, name_prefix="", expand=True):
        """Yield ``(structural name, Parameter)`` for every Parameter once, in registration order."""
        seen = set()
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [(name_prefix, self)]
        for prefix, cell in cells:
            for name, param in cell._params.items():
                if param is None or id(param) in seen:
                    continue
                seen.add(id(param))
                yield (f"{prefix}.{name}" if prefix else name), param

    def get_parameters(self, expand=True):
        """Yield every Parameter once (with ``expand=False`` only this Cell's own)."""
        for _, param in self.parameters_and_names(expand=expand):
            yield param

    def trainable_params(self, recurse=True):
        """The Parameters with ``requires_grad=True``, as a list."""
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        """The Parameters with ``requires_grad=False``, as a list."""
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        """An OrderedDict Parameter name -> Parameter (names as ``param.name``)."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    # ------------------------------------------------------------------ modes
    def set_train(self, mode=True):
        """Put this Cell and every descendant in training (True) or inference (False) mode.

        Layers such as Dropout behave differently in the two modes. Returns self.
        """
        mode = bool(mode)
        for _, cell in self.cells_and_names():
            cell.__dict__["training"] = mode
        _graph.training_changed()
        return self

    def set_grad(self, requires_grad=True):
        """Mark whether this Cell's network is differentiated (MindSpore's flag); returns self.

        mscustom's tape records what ``ms.grad`` asks for either way; the flag
        is kept as ``requires_grad`` for code that reads it.
        """
        if not isinstance(requires_grad, bool):
            raise TypeError(f"{type(self).__name__}.set_grad: requires_grad must be a bool, got "
                            f"{type(requires_grad).__name__}")
        self.__dict__["requires_grad"] = requires_grad
        return self

    def to_float(self, dst_type):
        """Compute this Cell and every Cell under it in ``dst_type`` (float16, bfloat16 or float32).

        Floating-point inputs are cast to ``dst_type`` and trainable Parameters
        are read through casts, so they stay float32 (master weights) and get
        float32 gradients; the outputs stay in ``dst_type``, as in MindSpore.
        Returns self.

        Example::

            net.to_float(ms.float16)       # net(x) computes and returns float16
        """
        return _amp.to_float(self, dst_type)

    # ------------------------------------------------------------------ printing
    def extend_repr(self):
        """Extra text shown inside ``ClassName<...>``; layers override it."""
        return ""

    def __repr__(self):
        head = f"{type(self).__name__}<{self.extend_repr()}"
        children = [(n, c) for n, c in self._cells.items() if c is not None]
        if not children:
            return head + ">"
        lines = [head]
        for name, cell in children:
            body = repr(cell).replace("\n", "\n  ")
            lines.append(f"  ({name}): {body}")
        lines.append("  >")
        return "\n".join(lines)


class _CellSequence(Cell):
    """Shared list behaviour of SequentialCell and CellList: indexing, len, iteration, append."""

    def __getitem__(self, index):
        cells = list(self._cells.values())
        if isinstance(index, slice):
            return type(self)(cells[index])
        if not isinstance(index, int) or not -len(cells) <= index < len(cells):
            raise IndexError(f"{type(self).__name__}: index {index!r} out of range for {len(cells)} cell(s)")
        return cells[index]

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells.values())

    def append(self, cell):
        """Add ``cell`` at the end (named by its position)."""
        if not isinstance(cell, Cell):
            raise TypeError(f"{type(self).__name__}.append: expected a Cell, got {type(cell).__name__}")
        setattr(self, str(len(self._cells)), cell)
        return self


class SequentialCell(_CellSequence):
    """Cells applied one after another; built from a list, an OrderedDict or several Cells.

    Children are named "0", "1", ... (or by the OrderedDict's keys).

    Example::

        net = nn.SequentialCell([nn.Dense(2, 8), nn.ReLU(), nn.Dense(8, 3)])
        net[0]                      # the first Dense
        net.append(nn.Softmax())
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            items = [(str(i), c) for i, c in enumerate(args[0])]
        elif len(args) == 1 and isinstance(args[0], dict):
            items = list(args[0].items())
        else:
            items = [(str(i), c) for i, c in enumerate(args)]
        for name, cell in items:
            if not isinstance(cell, Cell):
                raise TypeError(f"SequentialCell: every element must be a Cell, got "
                                f"{type(cell).__name__} for {name!r}")
            setattr(self, str(name), cell)
        self._chain = tuple(self._cells.values())

    def construct(self, x):
        for cell in self._chain:
            x = cell(x)
        return x

    def append(self, cell):
        """Add ``cell`` at the end (named by its position)."""
        super().append(cell)
        self._chain = tuple(self._cells.values())
        return self


class CellList(_CellSequence):
    """A list of Cells whose Parameters are registered ("0.weight", ...); not callable itself.

    Example::

        layers = nn.CellList([nn.Dense(4, 4) for _ in range(3)])
        for layer in layers:
            x = layer(x)
    """

    def __init__(self, cells=None):
        super().__init__()
        for cell in cells or ():
            self.append(cell)

    def construct(self, *inputs):
        raise TypeError("CellList is a container and cannot be called; call its cells")

    def extend(self, cells):
        """Add every Cell of ``cells`` at the end."""
        for cell in cells:
            self.append(cell)
        return self
