"""MindSpore's compilation hints and settings at the top level: ``recompute``, ``lazy_inline``,
``no_inline``, ``jit_class``, ``JitConfig``, ``enable_dynamic``, ``set_recursion_limit`` and the
syntax levels ``STRICT`` / ``COMPATIBLE`` / ``LAX``.

They steer MindSpore's graph compiler (inlining, recomputation instead of stored activations,
shapes left symbolic). mscustom's graph mode records and replays the ops the Python code runs, so
the results are those of the plain call; the hints check their arguments as MindSpore does and
hand the function or class back.

Example::

    class Block(nn.Cell):
        @ms.lazy_inline
        def __init__(self):
            super().__init__()

    y = ms.recompute(block, x)          # block(x)
"""

import functools
import inspect
import sys

from .nn.cell import Cell
from .tensor import Tensor

__all__ = ["recompute", "lazy_inline", "no_inline", "jit_class", "JitConfig", "enable_dynamic",
           "set_recursion_limit", "shard", "STRICT", "COMPATIBLE", "LAX"]

STRICT, COMPATIBLE, LAX = 0, 1, 2


def recompute(block, *args, use_reentrant=True, output_recompute=False, early_stop=True, context_fn=None,
              **kwargs):
    """``block(*args, **kwargs)``, whose activations MindSpore recomputes in the backward pass
    instead of storing them; the values and gradients are those of the plain call. With
    ``use_reentrant=True`` (default) ``block`` must be a Cell."""
    if use_reentrant and not isinstance(block, Cell):
        raise TypeError("Recompute function now only support block which inherited from Cell when "
                        "use_reentrant=True!")
    if not callable(block):
        raise TypeError(f"recompute: block must be a Cell or a function, got {type(block).__name__}")
    return block(*args, **kwargs)


def lazy_inline(fn=None, attrs=None, policy=None):
    """Decorate a Cell's ``__init__``: MindSpore then compiles the Cell's graph once and reuses it
    (``attrs``, ``policy``: how). Used with or without arguments."""

    def wrap(init):
        if getattr(init, "__name__", None) != "__init__":
            raise ValueError(f"The lazy_inline should decorate the __init__ function, not the function: "
                             f"{getattr(init, '__name__', init)}.")
        return init

    return wrap(fn) if fn is not None else wrap


def no_inline(fn=None):
    """Mark a function or Cell MindSpore must not inline into its caller's graph; returns it."""
    return fn if fn is not None else (lambda f: f)


def jit_class(cls):
    """Mark a user class whose instances graph-mode code may use; returns the class."""
    if not isinstance(cls, type):
        raise TypeError(f"Decorator jit_class can only be used for class type, but got {cls}.")
    if issubclass(cls, Cell):
        raise TypeError(f"Decorator jit_class is used for user-defined classes and cannot be used for nn.Cell: "
                        f"{cls}.")
    cls.__ms_class__ = True
    return cls


class JitConfig:
    """Compilation options for ``Cell.set_jit_config`` / ``Model``: ``jit_level`` ("O0", "O1", "O2"),
    ``exc_mode`` ("auto", "sink", "no_sink"), ``jit_syntax_level`` ("STRICT", "LAX"), ``debug_level``
    ("RELEASE", "DEBUG"), ``infer_boost`` ("on", "off"), others kept as given; all in ``jit_config_dict``."""

    def __init__(self, jit_level="", exc_mode="auto", jit_syntax_level="", debug_level="RELEASE",
                 infer_boost="off", **kwargs):
        for name, value, allowed in [("jit_level", jit_level, ["O0", "O1", "O2"]),
                                     ("exc_mode", exc_mode, ["auto", "sink", "no_sink"]),
                                     ("jit_syntax_level", jit_syntax_level, ["STRICT", "LAX"]),
                                     ("debug_level", debug_level, ["RELEASE", "DEBUG"]),
                                     ("infer_boost", infer_boost, ["on", "off"])]:
            if value not in allowed and not (value == "" and name in ("jit_level", "jit_syntax_level")):
                raise ValueError(f"For '{name}' must be one of '{allowed}'.")
        self.jit_config_dict = dict(kwargs)
        self.jit_config_dict.update(jit_level=jit_level, exc_mode=exc_mode, jit_syntax_level=jit_syntax_level,
                                    debug_level=debug_level, infer_boost=infer_boost)


def _check_dynamic(name, value):
    if isinstance(value, (tuple, list)):
        for v in value:
            _check_dynamic(name, v)
        return
    if not isinstance(value, Tensor):
        raise TypeError(f"The decorator enable_dynamic only supports Tensor or a tuple/list of Tensor, but the "
                        f"argument : {name} is type of:{type(value)}.")
    if all(s >= 0 for s in value.shape):
        raise TypeError(f"When using decorator enable_dynamic, the shape of argument '{name}' at least have one "
                        f"None.")


def enable_dynamic(**kwargs):
    """Declare arguments of a function whose shapes vary between calls (placeholders such as
    ``Tensor(shape=[None, 2], dtype=ms.float32)``), so MindSpore compiles once for all of them.
    Returns a decorator; the function runs unchanged for every shape."""
    for name, value in kwargs.items():
        _check_dynamic(name, value)

    def decorator(fn):
        params = list(inspect.signature(fn).parameters)
        for name in kwargs:
            if name not in params:
                raise ValueError(f"'{name}' is not in list")

        @functools.wraps(fn)
        def wrapper(*args, **kw):
            return fn(*args, **kw)
        wrapper.__dynamic_inputs__ = dict(kwargs)
        return wrapper

    return decorator


def set_recursion_limit(recursion_limit=1000):
    """The depth of nested calls graph compilation follows (a positive int); Python's own limit is
    raised to it when it is lower."""
    if isinstance(recursion_limit, bool) or not isinstance(recursion_limit, int) or recursion_limit <= 0:
        raise ValueError(f"The input value must be int and must > 0, but got '{recursion_limit}' with type "
                         f"'{type(recursion_limit).__name__}'.")
    if sys.getrecursionlimit() < recursion_limit:
        sys.setrecursionlimit(recursion_limit)


def shard(fn, in_strategy, out_strategy=None, parameter_plan=None):
    """Operator-level sharding of ``fn``'s inputs over devices. In one process (world size 1) it is
    ``fn`` itself, as MindSpore returns it; across processes mscustom parallelises data only."""
    from .communication import get_group_size
    if get_group_size() == 1:
        return fn
    raise NotImplementedError(f"shard: sharding '{getattr(fn, '__name__', type(fn).__name__)}' across "
                              f"{get_group_size()} processes (model parallelism) is not provided; mscustom "
                              f"parallelises data (DATA_PARALLEL)")
