"""Tensor-only methods of MindSpore 2.10: constructors from a tensor (``new_zeros``, ``new_ones``,
``new_empty``), dtype shorthands (``double``, ``half``, ``long``, ``short``, ``byte``, ``bfloat16``,
``type``, ``type_as``), layout queries (``itemsize``, ``nbytes``, ``strides``, ``stride``,
``storage_offset``, ``is_contiguous``, ``is_signed``, ``ndimension``, ``data_ptr``, ``device``),
``reshape_as``, the transposes ``mT`` / ``mH`` / ``H``, and in-place forms (``add_``, ``sub_``,
``mul_``, ``div_``, ``exp_``, ``log_``, ``floor_``, ``sigmoid_``, ``sign_``, ``remainder_``,
``floor_divide_``, ``fill_``, ``masked_fill_``, ``index_fill_``, ``index_add_``, ``scatter_``,
``scatter_add_``, and the random fills ``normal_``, ``uniform_``, ``random_``, ``exponential_``,
``bernoulli_``).

An in-place method computes the out-of-place result and writes it into the tensor through
``Tensor.__setitem__``, then returns the tensor: while a gradient is recorded the write is an op of
the graph (the old values pass no gradient, the new ones carry theirs), as every in-place write in
mscustom. The result must keep the tensor's shape, and a floating-point result is not written into
an integer tensor. A method another module already binds is left as it is.

Example::

    x.add_(y, alpha=2).exp_()
    z = x.new_zeros((2, 3))
"""

import numpy as np

from . import dtype as _dt
from . import ops
from ._core.functions import register_function
from ._core import deferred as _deferred
from .tensor import Tensor

__all__ = []


def _check_self(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"Tensor.{name}: expected a Tensor, got {type(x).__name__}")


def _write(target, value, name):
    """Write ``value`` into ``target`` (recorded while a gradient is); returns ``target``."""
    if not isinstance(value, Tensor):
        value = Tensor(np.asarray(value, target._data.dtype))
    if tuple(value.shape) != tuple(target.shape):
        raise ValueError(f"Tensor.{name}: the result has shape {tuple(value.shape)}, which is not the tensor's "
                         f"shape {tuple(target.shape)} (an in-place op cannot broadcast the tensor)")
    src, dst = value.dtype.np_dtype, target._data.dtype
    if src.kind in "fc" and dst.kind in "biu":
        raise TypeError(f"Tensor.{name}: the result's dtype {value.dtype} cannot be written into a tensor of "
                        f"dtype {target.dtype}")
    if value.dtype != target.dtype:
        value = ops.cast(value, target.dtype)
    target[...] = value
    return target


# ------------------------------------------------------------------ in-place arithmetic
def add_(self, other, *, alpha=1):
    """``self += alpha * other``; returns self."""
    _check_self(self, "add_")
    return _write(self, ops.add(self, other if alpha == 1 else ops.mul(other, alpha)), "add_")


def sub_(self, other, *, alpha=1):
    """``self -= alpha * other``; returns self."""
    _check_self(self, "sub_")
    return _write(self, ops.sub(self, other if alpha == 1 else ops.mul(other, alpha)), "sub_")


def mul_(self, value):
    """``self *= value``; returns self."""
    _check_self(self, "mul_")
    return _write(self, ops.mul(self, value), "mul_")


def div_(self, value, *, rounding_mode=None):
    """``self /= value`` (``rounding_mode`` "trunc" or "floor" rounds the quotient); returns self."""
    _check_self(self, "div_")
    return _write(self, ops.div(self, value, rounding_mode=rounding_mode), "div_")


def remainder_(self, other):
    """``self = remainder(self, other)`` (the sign of ``other``); returns self."""
    _check_self(self, "remainder_")
    return _write(self, ops.remainder(self, other), "remainder_")


def floor_divide_(self, other):
    """``self = floor(self / other)``; returns self."""
    _check_self(self, "floor_divide_")
    return _write(self, ops.floor_divide(self, other), "floor_divide_")


def _unary(name, fn):
    def method(self):
        _check_self(self, name)
        return _write(self, fn(self), name)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``{name[:-1]}(self)`` written into self; returns self."
    return method


exp_ = _unary("exp_", ops.exp)
log_ = _unary("log_", ops.log)
floor_ = _unary("floor_", ops.floor)
sigmoid_ = _unary("sigmoid_", ops.sigmoid)
sign_ = _unary("sign_", ops.sign)


# ------------------------------------------------------------------ in-place fills and scatters
def fill_(self, value):
    """Every element set to ``value`` (a number or a 0-d Tensor); returns self."""
    _check_self(self, "fill_")
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ValueError(f"Tensor.fill_: value must be a number or a 0-d Tensor, got shape {tuple(value.shape)}")
        return _write(self, ops.broadcast_to(ops.cast(value, self.dtype), tuple(self.shape)), "fill_")
    if isinstance(value, (bool, int, float, np.number)):
        return _write(self, Tensor(np.full(self.shape, value, self._data.dtype)), "fill_")
    raise TypeError(f"Tensor.fill_: value must be a number or a 0-d Tensor, got {type(value).__name__}")


def masked_fill_(self, mask, value):
    """The elements where ``mask`` (broadcast to self) is True set to ``value``; returns self."""
    _check_self(self, "masked_fill_")
    return _write(self, ops.masked_fill(self, mask, value), "masked_fill_")


def index_fill_(self, dim, index, value):
    """The slices ``index`` along ``dim`` set to ``value``; returns self."""
    _check_self(self, "index_fill_")
    return _write(self, self.index_fill(dim, index, value), "index_fill_")


def index_add_(self, dim, index, source, *, alpha=1):
    """``alpha * source``'s slices added to self's slices ``index`` along ``dim``; returns self."""
    _check_self(self, "index_add_")
    return _write(self, self.index_add(dim, index, source, alpha=alpha), "index_add_")


def scatter_(self, dim, index, src, *, reduce=None):
    """``self[..., index[i], ...] = src[i]`` along ``dim`` (``reduce`` "add"/"multiply" combines);
    ``src`` may be a number; returns self."""
    _check_self(self, "scatter_")
    if not isinstance(src, Tensor):
        src = Tensor(np.full(index.shape, src, self._data.dtype))
    if reduce is None:
        out = ops.scatter(self, dim, index, src)
    elif reduce in ("add", "multiply"):
        out = ops.tensor_scatter_elements(self, index, src, axis=dim, reduction="add" if reduce == "add" else "mul")
    else:
        raise ValueError(f"Tensor.scatter_: reduce must be None, 'add' or 'multiply', got {reduce!r}")
    return _write(self, out, "scatter_")


def scatter_add_(self, dim, index, src):
    """``src``'s elements added to self at ``index`` along ``dim``; returns self."""
    _check_self(self, "scatter_add_")
    return _write(self, ops.tensor_scatter_elements(self, index, src, axis=dim, reduction="add"), "scatter_add_")


# ------------------------------------------------------------------ in-place random fills
def _rng(generator):
    if generator is None:
        from .nn.init import rng
        return rng()
    numpy_gen = getattr(generator, "_numpy", None)
    if numpy_gen is None:
        raise TypeError(f"generator must be an ms.Generator, got {type(generator).__name__}")
    return numpy_gen()


def _fill_random(self, name, draw):
    _check_self(self, name)
    if self._data.dtype.kind not in "fiu" and name != "bernoulli_":
        raise TypeError(f"Tensor.{name}: the tensor must have a number dtype, got {self.dtype}")
    values = np.asarray(draw(tuple(self.shape)))
    if self._data.dtype.kind in "iu":
        values = np.floor(values)
    return _write(self, Tensor(values.astype(self._data.dtype)), name)


def normal_(self, mean=0, std=1, *, generator=None):
    """Values drawn from N(mean, std^2); returns self."""
    if std < 0:
        raise ValueError(f"Tensor.normal_: std must be >= 0, got {std}")
    return _fill_random(self, "normal_", lambda s: _rng(generator).normal(mean, std, s))


def uniform_(self, from_=0, to=1, *, generator=None):
    """Values drawn uniformly from [from_, to); returns self."""
    if from_ > to:
        raise ValueError(f"Tensor.uniform_: from_ ({from_}) must not exceed to ({to})")
    return _fill_random(self, "uniform_", lambda s: _rng(generator).uniform(from_, to, s))


def random_(self, from_=0, to=None, *, generator=None):
    """Integers drawn uniformly from [from_, to) (``to`` None: up to 2**mantissa bits + 1 for a float
    dtype, the largest value + 1 for an integer one); returns self."""
    if to is None:
        kind = self._data.dtype
        to = 2 ** (np.finfo(kind).nmant + 1) if kind.kind == "f" else int(np.iinfo(kind).max) + 1
    if from_ >= to:
        raise ValueError(f"Tensor.random_: from_ ({from_}) must be less than to ({to})")
    return _fill_random(self, "random_", lambda s: _rng(generator).integers(from_, to, s))


def exponential_(self, lambd=1, *, generator=None):
    """Values drawn from the exponential distribution of rate ``lambd``; returns self."""
    if lambd <= 0:
        raise ValueError(f"Tensor.exponential_: lambd must be > 0, got {lambd}")
    return _fill_random(self, "exponential_", lambda s: _rng(generator).exponential(1.0 / lambd, s))


def bernoulli_(self, p=0.5, *, generator=None):
    """Each element set to 1 with probability ``p`` (a number or a Tensor broadcast to self), else 0."""
    prob = p.asnumpy() if isinstance(p, Tensor) else p
    if np.any(np.asarray(prob) < 0) or np.any(np.asarray(prob) > 1):
        raise ValueError("Tensor.bernoulli_: p must be in [0, 1]")
    return _fill_random(self, "bernoulli_", lambda s: _rng(generator).random(s) < prob)


# ------------------------------------------------------------------ constructors from a tensor
def _size(size, name):
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        size = (int(size),)
    if not isinstance(size, (tuple, list)) or not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool)
                                                      and s >= 0 for s in size):
        raise TypeError(f"Tensor.{name}: size must be an int or a tuple of non-negative ints, got {size!r}")
    return tuple(int(s) for s in size)


def _dtype(self, dtype, name):
    if dtype is None:
        return self._data.dtype
    if not isinstance(dtype, _dt.DType):
        raise TypeError(f"{name}(): argument 'dtype' must be mstype, not {type(dtype).__name__}.")
    return dtype.np_dtype


def new_zeros(self, size, dtype=None):
    """A tensor of zeros of shape ``size``, of self's dtype unless ``dtype`` is given."""
    return Tensor(np.zeros(_size(size, "new_zeros"), _dtype(self, dtype, "new_zeros")))


def new_ones(self, size, dtype=None):
    """A tensor of ones of shape ``size``, of self's dtype unless ``dtype`` is given."""
    return Tensor(np.ones(_size(size, "new_ones"), _dtype(self, dtype, "new_ones")))


def new_empty(self, size, dtype=None):
    """A tensor of shape ``size`` (values unspecified: zeros here), of self's dtype unless ``dtype``."""
    return Tensor(np.zeros(_size(size, "new_empty"), _dtype(self, dtype, "new_empty")))


# ------------------------------------------------------------------ dtypes
def _caster(name, dtype):
    def method(self):
        return ops.cast(self, dtype)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"self cast to {dtype!r} (wrapping as NumPy casts)."
    return method


double = _caster("double", _dt.float64)
half = _caster("half", _dt.float16)
long = _caster("long", _dt.int64)
short = _caster("short", _dt.int16)
byte = _caster("byte", _dt.uint8)
bfloat16 = _caster("bfloat16", _dt.bfloat16)


def type_(self, dtype=None):
    """Without ``dtype``: the dtype's name ("Float32"); with it: self cast to it."""
    if dtype is None:
        return str(self.dtype)
    return ops.cast(self, dtype)


def type_as(self, other):
    """self cast to ``other``'s dtype."""
    if not isinstance(other, Tensor):
        raise TypeError(f"Tensor.type_as: other must be a Tensor, got {type(other).__name__}")
    return ops.cast(self, other.dtype)


# ------------------------------------------------------------------ layout
def _itemsize(self):
    return int(self._data.dtype.itemsize)


def _nbytes(self):
    return int(self._data.dtype.itemsize * int(np.prod(self.shape, dtype=np.int64)))


def _contiguous_strides(shape):
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= max(int(s), 1)
    return list(reversed(out))


def _strides(self):
    """Bytes between neighbours along each axis (a tensor is contiguous, row-major)."""
    size = self._data.dtype.itemsize
    return tuple(s * size for s in _contiguous_strides(self.shape))


def stride(self, dim=None):
    """Elements between neighbours along each axis (a list), or along ``dim``."""
    strides = _contiguous_strides(self.shape)
    if dim is None:
        return strides
    if isinstance(dim, bool) or not isinstance(dim, int) or not -len(strides) <= dim < len(strides):
        raise IndexError(f"Tensor.stride: dim {dim!r} is out of range for a tensor of rank {len(strides)}")
    return strides[dim]


def storage_offset(self):
    """Where the tensor starts in its storage, in elements: 0 (a tensor owns its data)."""
    return 0


def is_contiguous(self):
    """Whether the elements are laid out row-major without gaps: always True here."""
    return True


def is_signed(self):
    """Whether the dtype holds negative values (signed integers, floats, complex)."""
    return self._data.dtype.kind in "ifc" or self.dtype == _dt.bfloat16


def ndimension(self):
    """The number of dimensions (``ndim``)."""
    return self.ndim


def data_ptr(self):
    """The address of the first element (an int)."""
    return int(self._data.ctypes.data)


def _device(self):
    from . import context
    return context.get_context("device_target")


def reshape_as(self, other):
    """self reshaped to ``other``'s shape."""
    if not isinstance(other, Tensor):
        raise TypeError(f"Tensor.reshape_as: other must be a Tensor, got {type(other).__name__}")
    return ops.reshape(self, tuple(other.shape))


def _mT(self):
    if self.ndim < 2:
        raise ValueError(f"For tensor.mT, the tensor must have at least 2 dimensions, but got {self.ndim}-D.")
    return ops.swapaxes(self, -2, -1)


def _mH(self):
    out = _mT(self)
    return ops.conj(out) if self._data.dtype.kind == "c" else out


def _H(self):
    if self.ndim != 2:
        raise ValueError(f"For tensor.H, only 2-D Tensor is supported, but got {self.ndim}-D.")
    return _mH(self)


# ------------------------------------------------------------------ more Tensor-only forms
def sum_to_size(self, *size):
    """self summed down to ``size`` (to which self's shape broadcasts): the broadcast axes are summed."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = _size(tuple(size), "sum_to_size")
    shape = tuple(self.shape)
    try:
        fits = np.broadcast_shapes(size, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"Tensor.sum_to_size: size {size} is not expandable to the tensor's shape {shape}")
    lead = len(shape) - len(size)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1)
    out = ops.sum(self, axes, True) if axes else self
    return ops.reshape(out, size)


def resize(self, *new_shape):
    """A tensor of ``new_shape`` holding self's elements in row-major order, cut or padded with zeros."""
    if len(new_shape) == 1 and isinstance(new_shape[0], (tuple, list)):
        new_shape = tuple(new_shape[0])
    shape = _size(tuple(new_shape), "resize")
    flat = self._data.reshape(-1)
    n = int(np.prod(shape, dtype=np.int64))
    out = np.zeros(n, self._data.dtype)
    out[:min(n, flat.size)] = flat[:n]
    return Tensor(out.reshape(shape))


def itemset(self, *args):
    """``itemset(value)`` (a one-element tensor) or ``itemset(index, value)``: write one element in
    place (``index`` an int into the flattened tensor, or a tuple of ints); returns self."""
    if len(args) == 1:
        if self._data.size != 1:
            raise ValueError("Tensor.itemset: only a one-element tensor takes a value alone")
        index, value = (0,) * self.ndim, args[0]
    elif len(args) == 2:
        index, value = args
        if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
            index = np.unravel_index(int(index), self._data.shape)
        index = tuple(int(i) for i in index)
    else:
        raise TypeError(f"Tensor.itemset: expected (value) or (index, value), got {len(args)} arguments")
    self[index] = value
    return self


def ptp(self, axis=None, keepdims=False):
    """The range ``max - min`` along ``axis`` (all elements when None)."""
    return ops.sub(self.max(axis=axis, keepdims=keepdims), self.min(axis=axis, keepdims=keepdims))


def inv(self):
    """The elementwise reciprocal ``1 / self``."""
    return ops.reciprocal(self)


def move_to(self, to, blocking=True):
    """A copy of self on device ``to``, which must be the current device target ("CPU")."""
    target = _device(self)
    if to != target:
        raise RuntimeError(f"The value of arg 'to' of method 'move_to' should be same with device target, "
                           f"bug got to:{to}, device target: {target}")
    return Tensor(self._data.copy())


def is_pinned(self):
    """Whether the memory is page-locked host memory: no."""
    return False


def is_shared(self):
    """Whether the memory is shared between processes: no."""
    return False


def _random_like(self, name, draw):
    values = np.asarray(draw(tuple(self.shape)))
    return Tensor(values.astype(self._data.dtype if self._data.dtype.kind == "f" else np.float32))


def log_normal(self, mean=1.0, std=2.0):
    """A new tensor shaped like self of ``exp(N(mean, std^2))`` draws."""
    return _random_like(self, "log_normal", lambda s: _rng(None).lognormal(mean, std, s))


def cauchy(self, median=0.0, sigma=1.0):
    """A new tensor shaped like self of Cauchy(median, sigma) draws."""
    return _random_like(self, "cauchy", lambda s: median + sigma * _rng(None).standard_cauchy(s))


def uniform(self, from_=0.0, to=1.0, generator=None):
    """A new tensor shaped like self of uniform draws from [from_, to)."""
    return _random_like(self, "uniform", lambda s: _rng(generator).uniform(from_, to, s))


def bernoulli(self, *, generator=None):
    """A new tensor of 0/1 draws, 1 with the probability each element of self gives."""
    p = self._data
    if np.any(p < 0) or np.any(p > 1):
        raise ValueError("Tensor.bernoulli: the probabilities must be in [0, 1]")
    return Tensor((_rng(generator).random(p.shape) < p).astype(p.dtype))


def _data_prop(self):
    return self


def _false(self):
    return False


def _none(self):
    return None


# ------------------------------------------------------------------ binding
_METHODS = {
    "add_": add_, "sub_": sub_, "mul_": mul_, "div_": div_, "remainder_": remainder_, "floor_divide_": floor_divide_,
    "exp_": exp_, "log_": log_, "floor_": floor_, "sigmoid_": sigmoid_, "sign_": sign_, "fill_": fill_,
    "masked_fill_": masked_fill_, "index_fill_": index_fill_, "index_add_": index_add_, "scatter_": scatter_,
    "scatter_add_": scatter_add_, "normal_": normal_, "uniform_": uniform_, "random_": random_,
    "exponential_": exponential_, "bernoulli_": bernoulli_, "new_zeros": new_zeros, "new_ones": new_ones,
    "new_empty": new_empty, "double": double, "half": half, "long": long, "short": short, "byte": byte,
    "bfloat16": bfloat16, "type": type_, "type_as": type_as, "stride": stride, "storage_offset": storage_offset,
    "is_contiguous": is_contiguous, "is_signed": is_signed, "ndimension": ndimension, "data_ptr": data_ptr,
    "reshape_as": reshape_as, "sum_to_size": sum_to_size, "resize": resize, "itemset": itemset, "ptp": ptp,
    "inv": inv, "move_to": move_to, "is_pinned": is_pinned, "is_shared": is_shared, "log_normal": log_normal,
    "cauchy": cauchy, "uniform": uniform, "bernoulli": bernoulli,
}
_PROPERTIES = {"itemsize": _itemsize, "nbytes": _nbytes, "strides": _strides, "device": _device, "mT": _mT,
               "mH": _mH, "H": _H, "has_init": _false, "init_flag": _false, "init": _none, "data": _data_prop}


def install():
    """Bind the methods and properties Tensor does not have yet."""
    for name, fn in _METHODS.items():
        if not hasattr(Tensor, name):
            register_function("tensor_method_" + name, fn, method=name)
    for name, getter in _PROPERTIES.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, property(getter, doc=(getter.__doc__ or name)))


# After the deferred ops (mscustom/_core/deferred.py): a method they bind takes precedence, as it did
# when every op module was imported before this one.
_deferred.add_loader(install)
