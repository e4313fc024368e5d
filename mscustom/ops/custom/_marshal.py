"""Argument marshalling of ``ops.Custom`` calls: tensors, scalars and attributes.

A call ``op(*args, **kwargs)`` becomes the dispatcher's ``(tensors, attrs)``:

- Tensors and NumPy arrays are the op's tensor inputs;
- reg-info attributes without a fixed ``value=`` are bound, in declaration
  order, to the positional arguments that follow the tensor inputs (MindSpore's
  ``op(x, y, 0.7)``); keyword arguments set attributes by name;
- other Python scalars keep their place among the arguments
  (``attrs["__template__"]``), as the kernel kinds expect.

Bad arguments (None, lists, unsupported objects, attribute values of the wrong
type or out of range) raise a TypeError or ValueError naming the op, the
argument and what is accepted.
"""

import numpy as np

from ... import dtype as _dt
from ...tensor import DynamicTensor, Tensor, seen_shape
from . import _common
from .reginfo import INT64_RANGE as _I64
from .reginfo import coerce_attr

__all__ = ["Marshal", "NO_ATTRS"]

NO_ATTRS = {}                   # shared by every all-tensor call of an op without attributes; never mutated
_TEMPLATE = _common.TEMPLATE_KEY
_POSATTR = _common.POSATTR_KEY
_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)


class Marshal:
    """Binds one op's call arguments; rebuilt when kernels (and so attributes) are added."""

    def __init__(self, op_name, attr_specs, n_inputs):
        self.op_name = op_name
        self.specs = list(attr_specs)
        self.free = [s for s in self.specs if not s.fixed]
        self.n_inputs = n_inputs            # tensor inputs the reg info declares, or None
        self.fast_attrs = self._default_attrs()

    def _default_attrs(self):
        """The attrs dict of an all-tensor call without keywords, or None if one must be built per call."""
        if not self.specs:
            return NO_ATTRS
        attrs = {}
        for spec in self.specs:
            if spec.default_value is None and spec.param_type == "required":
                return None
            attrs[spec.name] = spec.default_value
        return attrs

    # ------------------------------------------------------------ the slow path of a call
    def bind(self, args, kwargs):
        """``(tensors, attrs)`` for ``op(*args, **kwargs)``."""
        args, positional = self._split(args)
        tensors, template, scalars, dynamic = [], [], False, False
        for pos, a in enumerate(args):
            kind = type(a)
            if kind is Tensor:
                tensors.append(a)
                template.append(None)
            elif kind is float or kind is bool or (kind is int and _I64[0] <= a <= _I64[1]):
                template.append(a)
                scalars = True
            elif isinstance(a, Tensor):
                tensors.append(a)
                template.append(None)
                dynamic = dynamic or type(a) is DynamicTensor
            elif isinstance(a, np.ndarray):
                tensors.append(self._array_input(a, pos))
                template.append(None)
            else:
                template.append(self._scalar_input(a, pos))
                scalars = True
        attrs = self._attrs(tuple(template) if scalars else None, positional, kwargs)
        if dynamic:                         # inference is shown the unknown dimensions (and keys the plan)
            attrs = dict(attrs)
            attrs[_common.DYNAMIC_KEY] = tuple(seen_shape(t) for t in tensors)
        return tuple(tensors), attrs

    def _split(self, args):
        """Tensor-input part and the attribute values given positionally after it."""
        if not self.free:
            return args, ()
        if self.n_inputs is not None:
            n = self.n_inputs
        else:
            n = 0
            while n < len(args) and isinstance(args[n], (Tensor, np.ndarray)):
                n += 1
        extra = args[n:]
        if len(extra) > len(self.free):
            names = [s.name for s in self.free]
            raise TypeError(f"op '{self.op_name}' takes its tensor input(s) and then at most {len(names)} "
                            f"attribute value(s) {names} positionally, got {len(extra)} value(s) after the "
                            f"{n} tensor input(s)")
        return args[:n], extra

    def _array_input(self, a, pos):
        try:
            _dt.from_numpy(a.dtype)
        except TypeError as exc:
            raise TypeError(f"op '{self.op_name}': argument {pos} is an array of {exc}") from None
        return Tensor._wrap(a)

    def _scalar_input(self, a, pos):
        """A non-tensor argument as it goes into the call template (a number, str or other hashable)."""
        if a is None:
            raise TypeError(f"op '{self.op_name}': argument {pos} is None; expected a Tensor, a NumPy array "
                            f"or a number")
        if isinstance(a, (list, tuple)):
            raise TypeError(f"op '{self.op_name}': argument {pos} is a {type(a).__name__}; tensor inputs "
                            f"must be Tensors or NumPy arrays (wrap it: ms.Tensor(value)), and list "
                            f"attributes are declared with CustomRegOp().attr(name, 'required', 'listInt')")
        if isinstance(a, int) and not isinstance(a, bool) and not _I64[0] <= a <= _I64[1]:
            raise ValueError(f"op '{self.op_name}': argument {pos} is the int {a}, which does not fit a "
                             f"64-bit int; pass a float or a Tensor")
        if isinstance(a, _SCALARS) or isinstance(a, str):
            if isinstance(a, str) and "\0" in a:
                raise ValueError(f"op '{self.op_name}': argument {pos} is a string containing a NUL "
                                 f"character, which kernels would see cut short")
            return a
        try:
            hash(a)
        except TypeError:
            raise TypeError(f"op '{self.op_name}': argument {pos} must be a Tensor, an array or a "
                            f"hashable value such as a number, got {type(a).__name__}") from None
        if isinstance(a, complex):
            raise TypeError(f"op '{self.op_name}': argument {pos} is a complex number; Custom ops take "
                            f"real scalars (bool, int, float) or tensors")
        raise TypeError(f"op '{self.op_name}': argument {pos} must be a Tensor, an array or a number, "
                        f"got {type(a).__name__}")

    def _attrs(self, template, positional, kwargs):
        specs = self.specs
        if kwargs:
            unknown = sorted(set(kwargs) - {s.name for s in specs})
            if unknown:
                have = f"its attributes are {[s.name for s in specs]}" if specs else \
                    "it has no attributes (declare them with CustomRegOp().attr(...))"
                raise TypeError(f"op '{self.op_name}' got unknown keyword argument(s) {unknown}; {have}")
        if template is None and not specs:
            return NO_ATTRS
        given = dict(kwargs)
        for spec, value in zip(self.free, positional):
            if spec.name in given:
                raise TypeError(f"op '{self.op_name}' got two values for attribute '{spec.name}' "
                                f"(positionally and by keyword); pass it only once")
            given[spec.name] = value
        attrs = {} if template is None else {_TEMPLATE: template}
        for spec in specs:
            if spec.name in given:
                value = self.coerce(spec, given[spec.name])
            else:
                value = spec.default_value
                if value is None and spec.param_type == "required":
                    raise TypeError(f"op '{self.op_name}': attribute '{spec.name}' is required and has no "
                                    f"default; pass {spec.name}=... when calling the op (or its value "
                                    f"after the tensor inputs)")
            attrs[spec.name] = value
        if positional:
            attrs[_POSATTR] = tuple(attrs[s.name] for s in self.free[:len(positional)])
        return attrs

    def coerce(self, spec, value):
        if value is None:
            raise TypeError(f"op '{self.op_name}': attribute '{spec.name}' expects a value of type "
                            f"{spec.value_type}, got None")
        try:
            return coerce_attr(value, spec.value_type)
        except (TypeError, ValueError, OverflowError) as exc:
            raise TypeError(f"op '{self.op_name}': attribute '{spec.name}' expects a value of type "
                            f"{spec.value_type}, got {_short(value)} ({exc})") from None


def _short(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
