"""Small helpers shared by the Custom kernel kinds (pyfunc, jit, aot).

The dispatcher hands a Custom kernel its tensor inputs only; the call's scalar
arguments travel in ``attrs["__template__"]`` (one entry per call argument:
``None`` where a tensor goes, the scalar otherwise) and the reg-info attribute
values travel as ``attrs[name]``.  These helpers turn that back into what the
user's kernel expects.
"""

__all__ = ["ResultError", "interleave", "attr_values", "call_args", "TEMPLATE_KEY", "POSATTR_KEY", "DYNAMIC_KEY",
           "GROUPS_KEY"]

TEMPLATE_KEY = "__template__"
DYNAMIC_KEY = "__dynamic__"     # per tensor input: the shape inference sees (-1s, or (-2,)), or None if static


class ResultError(TypeError):
    """A kernel's result breaks the op's contract; raised as is (the message already names the op)."""

POSATTR_KEY = "__posattrs__"     # attribute values given positionally after the tensor inputs, in order
GROUPS_KEY = "__groups__"        # per call argument: how many tensors a dynamic input's list holds, or None


def call_args(attrs, items):
    """The call's positional arguments as the user gave them: ``items`` (shapes, dtypes, arrays or
    Tensors, one per tensor) with the call's scalars put back in place, then the attribute values
    given positionally (what out_shape/out_dtype callables and bprop receive).

    >>> call_args({"__template__": (None, 2.0), "__posattrs__": (0.5,)}, ["x"])
    ['x', 2.0, 0.5]
    """
    if not attrs:
        return list(items)
    groups = attrs.get(GROUPS_KEY)
    if groups is not None:                  # a dynamic input's items as one list
        it = iter(items)
        items = [[next(it) for _ in range(n)] if n is not None else next(it) for n in groups]
    args = interleave(attrs.get(TEMPLATE_KEY), items)
    pos = attrs.get(POSATTR_KEY)
    if pos:
        args.extend(pos)
    return args


def interleave(template, arrays):
    """Rebuild the full positional argument list from a call template.

    ``template`` has one entry per call argument: ``None`` marks a tensor slot
    (filled from ``arrays`` in order), anything else is a scalar passed as is.

    >>> interleave((None, 2.0, None), ["a", "b"])
    ['a', 2.0, 'b']
    """
    if template is None:
        return list(arrays)
    it = iter(arrays)
    return [next(it) if slot is None else slot for slot in template]


def attr_values(attrs, attr_specs):
    """The attribute values in reg-info order (lists are stored as tuples).

    >>> from types import SimpleNamespace as S
    >>> attr_values({"b": 2, "a": 1}, [S(name="a"), S(name="b")])
    [1, 2]
    """
    if not attr_specs:
        return []
    attrs = attrs or {}
    return [attrs.get(spec.name, getattr(spec, "default_value", None)) for spec in attr_specs]
