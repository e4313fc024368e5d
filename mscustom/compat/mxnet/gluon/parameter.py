"""``gluon.Parameter`` and ``gluon.ParameterDict``: named, initialised arrays with gradient buffers.

A Parameter's data is one NDArray (one context: arrays live in host memory)
with ``attach_grad(grad_req)``, so ``loss.backward()`` inside
``mx.autograd.record()`` writes its gradient as for any attached array.
Shapes may be deferred: a ``0`` dimension (``Dense(5)`` without ``in_units``
has weight shape ``(5, 0)``) is filled in by the layer's first forward, and
until then ``data()`` raises ``DeferredInitializationError``, as in MXNet.

Initialisation follows MXNet 1.x: the parameter's own ``init`` wins, else the
``init`` given to ``initialize`` (``mx.init.Uniform()`` by default), and the
chosen initializer's ``_init_weight`` fills the array whatever the name.

Example::

    p = gluon.Parameter("w", shape=(2, 3))
    p.initialize(init=mx.init.Constant(2.0), ctx=mx.cpu())
    p.data(), p.grad()
"""

import collections
import re
import warnings

import numpy as np

from ....tensor import Tensor
from .. import initializer as _init
from .._ndarray import NDArray
from .._params import load as _nd_load, save as _nd_save
from ..context import Context, current_context

__all__ = ["Parameter", "Constant", "ParameterDict", "DeferredInitializationError", "create_initializer"]

_GRAD_REQS = ("write", "add", "null")
_INIT_NAMES = {"zeros": _init.Zero, "zero": _init.Zero, "ones": _init.One, "one": _init.One,
               "uniform": _init.Uniform, "normal": _init.Normal, "xavier": _init.Xavier}


class DeferredInitializationError(RuntimeError):
    """A Parameter whose shape is not known yet was read before the first forward."""


def create_initializer(spec, where):
    """An initializer from an instance or a name ('zeros', 'ones', 'uniform', 'normal', 'xavier')."""
    if spec is None or isinstance(spec, _init.Initializer):
        return spec
    if isinstance(spec, str) and spec.lower() in _INIT_NAMES:
        return _INIT_NAMES[spec.lower()]()
    raise ValueError(f"{where}: init must be an mx.init.Initializer or one of {sorted(_INIT_NAMES)}, got {spec!r}")


class _ParamData(NDArray):
    """A Parameter's array: an NDArray that also notes when a backward wrote its gradient."""

    __slots__ = ("_fresh_grad",)


def _known(shape):
    return shape is not None and all(int(d) > 0 for d in shape)


def _shape_str(shape):
    return str(tuple(int(d) for d in shape)) if shape is not None else "None"


class Parameter:
    """A named array of a Block: ``data()``, ``grad()``, ``initialize``, ``set_data``, ``grad_req``.

    ``shape`` may hold 0 (or be None) for dimensions the first forward decides.
    """

    def __init__(self, name, grad_req="write", shape=None, dtype=np.float32, lr_mult=1.0, wd_mult=1.0, init=None,
                 allow_deferred_init=False, differentiable=True, stype="default", grad_stype="default"):
        if stype != "default" or grad_stype != "default":
            raise ValueError(f"Parameter '{name}': only 'default' (dense) storage is supported here, got "
                             f"stype={stype!r}, grad_stype={grad_stype!r}")
        self.name = name
        self._shape = None if shape is None else tuple(int(d) for d in ((shape,) if isinstance(shape, int) else shape))
        self.dtype = np.dtype(dtype).type
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.init = init
        self.allow_deferred_init = allow_deferred_init
        self._differentiable = differentiable
        if grad_req not in _GRAD_REQS:
            raise ValueError(f"Parameter '{name}': grad_req must be one of {list(_GRAD_REQS)}, got {grad_req!r}")
        self._grad_req = grad_req if differentiable else "null"
        self._data = None
        self._ctx = None
        self._deferred = None            # (init, ctx, default_init) until the shape is known

    def __repr__(self):
        return f"Parameter {self.name} (shape={_shape_str(self._shape)}, dtype={np.dtype(self.dtype).name})"

    # ------------------------------------------------------------ attributes
    @property
    def shape(self):
        return self._shape

    @shape.setter
    def shape(self, new_shape):
        new_shape = tuple(int(d) for d in new_shape)
        if self._shape is None:
            self._shape = new_shape
            return
        ok = len(self._shape) == len(new_shape) and all(o in (0, n) for o, n in zip(self._shape, new_shape))
        if not ok:
            raise ValueError(f"Parameter '{self.name}': expected shape {_shape_str(self._shape)} is incompatible "
                             f"with given shape {_shape_str(new_shape)}")
        self._shape = new_shape

    @property
    def grad_req(self):
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        if req not in _GRAD_REQS:
            raise ValueError(f"Parameter '{self.name}': grad_req must be one of {list(_GRAD_REQS)}, got {req!r}")
        if not self._differentiable:
            req = "null"
        if self._grad_req == req:
            return
        self._grad_req = req
        if self._data is not None:
            self._attach()

    @property
    def differentiable(self):
        return self._differentiable

    # ------------------------------------------------------------ initialisation
    def initialize(self, init=None, ctx=None, default_init=None, force_reinit=False):
        """Allocate and fill the data (deferred until the shape is known when ``allow_deferred_init``)."""
        if self._data is not None and not force_reinit:
            warnings.warn(f"Parameter '{self.name}' is already initialized, ignoring. Set force_reinit=True to "
                          "re-initialize.", stacklevel=2)
            return
        self._data = None
        ctx = _one_ctx(ctx, self.name)
        default_init = _init.Uniform() if default_init is None else default_init
        if init is None:
            init = default_init if self.init is None else self.init
        init = create_initializer(init, f"Parameter '{self.name}'")
        if not _known(self._shape):
            if self.allow_deferred_init:
                self._deferred = (init, ctx)
                return
            raise ValueError(f"Cannot initialize Parameter '{self.name}' because it has invalid shape: "
                             f"{_shape_str(self._shape)}.")
        self._deferred = (init, ctx)
        self._finish_deferred_init()

    def _finish_deferred_init(self):
        """Allocate now that the shape is known (a no-op when not deferred)."""
        if self._deferred is None:
            return
        if not _known(self._shape):
            raise DeferredInitializationError(
                f"Parameter '{self.name}' has shape {_shape_str(self._shape)}, which the first forward did not "
                "complete; give the layer its input size (in_units, in_channels, ...)")
        init, ctx = self._deferred
        self._deferred = None
        data = _ParamData(np.zeros(self._shape, self.dtype), dtype=self.dtype, ctx=ctx)
        data._fresh_grad = False
        init._init_weight(self.name, data)
        self._data, self._ctx = data, ctx
        self._attach()

    def _attach(self):
        d = self._data
        if self._grad_req == "null":
            d._grad, d._grad_req, d._leaf = None, "null", None
        else:
            d.attach_grad(self._grad_req)
        d._fresh_grad = False

    def _check_initialized(self):
        if self._data is not None:
            return self._data
        if self._deferred is not None:
            raise DeferredInitializationError(
                f"Parameter '{self.name}' has not been initialized yet because initialization was deferred. "
                "Actual initialization happens during the first forward pass. Please pass one batch of data "
                "through the network before accessing Parameters. You can also avoid deferred initialization "
                "by specifying in_units, num_features, etc., for network layers.")
        raise RuntimeError(f"Parameter '{self.name}' has not been initialized. Note that you should initialize "
                           "parameters and create Trainer with Block.collect_params() instead of Block.params "
                           "because the later does not include Parameters of nested child Blocks")

    # ------------------------------------------------------------ access
    def data(self, ctx=None):
        """The parameter's array (one context here: ``ctx`` must be it or None)."""
        d = self._check_initialized()
        if ctx is not None and ctx != self._ctx:
            raise RuntimeError(f"Parameter '{self.name}' was not initialized on context {ctx}. It was only "
                               f"initialized on [{self._ctx}].")
        return d

    def list_data(self):
        return [self._check_initialized()]

    def grad(self, ctx=None):
        """The gradient buffer (an error when ``grad_req='null'``)."""
        d = self.data(ctx)
        if self._grad_req == "null" or d._grad is None:
            raise RuntimeError(f"Cannot get gradient array for Parameter '{self.name}' because grad_req='null'")
        return d._grad

    def list_grad(self):
        return [self.grad()]

    def list_ctx(self):
        if self._data is None:
            if self._deferred is not None:
                return [self._deferred[1]]
            raise RuntimeError(f"Parameter '{self.name}' has not been initialized")
        return [self._ctx]

    def set_data(self, data):
        """Copy ``data`` into the parameter (its shape completes a deferred shape)."""
        value = np.asarray(data._data if isinstance(data, Tensor) else data)
        self.shape = value.shape
        if self._data is None:
            if self._deferred is None:
                raise RuntimeError(f"Parameter '{self.name}' has not been initialized")
            self._finish_deferred_init()
        np.copyto(self._data._data, value, casting="unsafe")

    def zero_grad(self):
        if self._data is not None and self._data._grad is not None:
            self._data._grad._data[...] = 0

    def reset_ctx(self, ctx):
        """Move to ``ctx`` (host memory either way: only the recorded context changes)."""
        ctx = _one_ctx(ctx, self.name)
        if self._data is not None:
            self._ctx = self._data._ctx = ctx
        elif self._deferred is not None:
            self._deferred = (self._deferred[0], ctx)

    def cast(self, dtype):
        """Change the dtype of the data and gradient."""
        self.dtype = np.dtype(dtype).type
        if self._data is not None:
            old = self._data
            self._data = _ParamData(old._data.astype(self.dtype), dtype=self.dtype, ctx=old._ctx)
            self._attach()

    def var(self):
        """The symbol ``mx.sym.Variable`` of this parameter (its name, shape, dtype, multipliers)."""
        from .. import symbol as _sym
        shape = self._shape if _known(self._shape) else None
        return _sym.Variable(self.name, shape=shape, dtype=self.dtype, lr_mult=self.lr_mult, wd_mult=self.wd_mult)


class Constant(Parameter):
    """A Parameter that never changes (``grad_req='null'``), initialised with ``value``."""

    def __init__(self, name, value):
        value = np.asarray(value._data if isinstance(value, Tensor) else value)
        self.value = value
        super().__init__(name, grad_req="null", shape=value.shape, dtype=value.dtype,
                         init=_init.Constant(0.0), differentiable=False)
        self.init = _ConstInit(value)


class _ConstInit(_init.Initializer):
    def __init__(self, value):
        self.value = value

    def _init_weight(self, name, arr):
        arr[:] = self.value


def _one_ctx(ctx, name):
    if ctx is None:
        return current_context()
    if isinstance(ctx, (list, tuple)):
        if len(ctx) != 1:
            raise ValueError(f"Parameter '{name}': one context is supported here, got {list(ctx)}")
        ctx = ctx[0]
    if not isinstance(ctx, Context):
        raise TypeError(f"Parameter '{name}': ctx must be an mx.Context, got {type(ctx).__name__}")
    return ctx


class ParameterDict:
    """Parameters by full name (``prefix`` + name): ``get``, ``initialize``, ``zero_grad``, ``save``/``load``."""

    def __init__(self, prefix="", shared=None):
        self._prefix = prefix
        self._params = collections.OrderedDict()
        self._shared = shared

    @property
    def prefix(self):
        return self._prefix

    def __repr__(self):
        body = "".join(f"  {p!r}\n" for p in self._params.values())
        return f"{self._prefix} (\n{body})"

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self):
        return len(self._params)

    def __contains__(self, key):
        return key in self._params

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    def items(self):
        return self._params.items()

    def _find(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._params[name]
        return None

    def get(self, name, **kwargs):
        """The Parameter ``prefix + name``, made with ``kwargs`` if new; an existing one must agree with them."""
        full = self._prefix + name
        param = self._find(full)
        if param is None:
            param = Parameter(full, **kwargs)
            self._params[full] = param
            return param
        for k, v in kwargs.items():
            if k == "shape" and v is not None:
                try:
                    param.shape = v
                except ValueError:
                    raise AssertionError(f"Cannot retrieve Parameter '{full}' because desired attribute does not "
                                         f"match with stored for attribute 'shape': desired "
                                         f"'{_shape_str(tuple(v))}' vs stored '{_shape_str(param.shape)}'.") from None
                continue
            stored = getattr(param, k, None)
            if k == "dtype" and v is not None:
                same = np.dtype(v) == np.dtype(stored)
            else:
                same = stored is v or stored == v
            if v is not None and stored is not None and not same:
                raise AssertionError(f"Cannot retrieve Parameter '{full}' because desired attribute does not match "
                                     f"with stored for attribute '{k}': desired '{v}' vs stored '{stored}'.")
            if stored is None and v is not None:
                setattr(param, k, v)
        return param

    def get_constant(self, name, value=None):
        full = self._prefix + name
        param = self._find(full)
        if param is None:
            if value is None:
                raise KeyError(f"No constant named '{full}'; give value= to create it")
            param = self._params[full] = Constant(full, value)
        return param

    def update(self, other):
        for k, v in other.items():
            if k in self._params and self._params[k] is not v:
                raise ValueError(f"Cannot update self with other because they have different Parameters with "
                                 f"the same name '{k}'")
            self._params[k] = v

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False):
        """Initialise every Parameter (``mx.init.Uniform()`` where neither it nor ``init`` says otherwise)."""
        default = create_initializer(init, "ParameterDict.initialize") or _init.Uniform()
        for p in self._params.values():
            p.initialize(None, ctx, default, force_reinit=force_reinit)

    def zero_grad(self):
        for p in self._params.values():
            p.zero_grad()

    def reset_ctx(self, ctx):
        for p in self._params.values():
            p.reset_ctx(ctx)

    def setattr(self, name, value):
        """Set attribute ``name`` (e.g. ``grad_req``, ``lr_mult``) of every Parameter."""
        for p in self._params.values():
            setattr(p, name, value)

    def list_ctx(self):
        out = []
        for p in self._params.values():
            out.extend(c for c in p.list_ctx() if c not in out)
        return out

    def select(self, select):
        """The Parameters whose names match the regular expression ``select``."""
        pattern = re.compile(select)
        out = ParameterDict(self._prefix)
        out._params.update((k, v) for k, v in self._params.items() if pattern.match(k))
        return out

    def save(self, filename, strip_prefix=""):
        arrays = {}
        for name, p in self._params.items():
            if not name.startswith(strip_prefix):
                raise ValueError(f"Prefix '{strip_prefix}' is to be striped before saving, but Parameter's name "
                                 f"'{name}' does not start with '{strip_prefix}'.")
            arrays[name[len(strip_prefix):]] = p.data()
        _nd_save(filename, arrays)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False, restore_prefix=""):
        loaded = {restore_prefix + (k.split(":", 1)[1] if k.startswith(("arg:", "aux:")) else k): v
                  for k, v in _nd_load(filename).items()}
        _assign_loaded(self._params, loaded, filename, ctx, allow_missing, ignore_extra)


def _assign_loaded(params, loaded, filename, ctx, allow_missing, ignore_extra):
    """Copy ``loaded`` (name -> NDArray) into ``params`` (name -> Parameter), checking both ways."""
    if not allow_missing:
        missing = [k for k in params if k not in loaded]
        if missing:
            raise AssertionError(f"Parameter '{missing[0]}' is missing in file '{filename}', which contains "
                                 f"parameters: {sorted(loaded)}. Set allow_missing=True to ignore missing "
                                 "parameters.")
    if not ignore_extra:
        extra = [k for k in loaded if k not in params]
        if extra:
            raise AssertionError(f"Parameter '{extra[0]}' loaded from file '{filename}' is not present in this "
                                 f"block's parameters {sorted(params)}. Set ignore_extra=True to ignore.")
    for k, p in params.items():
        if k in loaded:
            if p._data is None and p._deferred is None:
                p.initialize(ctx=ctx, default_init=_init.Zero())
            p.set_data(loaded[k])

