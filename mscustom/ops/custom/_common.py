"""Small helpers shared by the Custom kernel kinds (pyfunc, jit, aot).

The dispatcher hands a Custom kernel its tensor inputs only; the call's scalar
arguments travel in ``attrs["__template__"]`` (one entry per call argument:
``None`` where a tensor goes, the scalar otherwise) and the reg-info attribute
values travel as ``attrs[name]``.  These helpers turn that back into what the
user's kernel expects.
"""

__all__ = ["interleave", "attr_values", "TEMPLATE_KEY"]

TEMPLATE_KEY = "__template__"


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
