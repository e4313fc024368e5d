"""What ``ops.Custom`` fills in for a hybrid kernel: output rules from its declarations, and its bprop.

``complete(func, op_name, out_shape, out_dtype, bprop)`` returns the checked
``HybridFunction`` and the three rules, each left as the user gave it when
given. The derived ``out_shape``/``out_dtype`` evaluate the ``output_tensor``
declarations symbolically (see ``shapes``); the derived bprop is the
reverse-mode gradient kernel of ``grad_bprop``.

Example::

    func, out_shape, out_dtype, bprop = complete(my_kernel, "my_op", None, None, None)
"""

from .... import dtype as _dt
from .dsl import as_hybrid
from .grad_bprop import make_bprop
from .scalars import is_scalar_value
from .shapes import tensor_meta

__all__ = ["complete"]

_MEMO_SIZE = 256            # inferred signatures kept per kernel


def _rules(info):
    n = len(info.returns)

    # A rule receives one value per call argument: shapes (lists) / dtypes for tensors, values for
    # scalars. Declarations cannot read a scalar's value, so results are memoised by the tensors'
    # shapes (dtypes) and the scalars' types: a call with a new scalar value infers nothing again.
    memo = {}

    def remember(key, compute):
        found = memo.get(key)
        if found is None:
            if len(memo) >= _MEMO_SIZE:
                memo.clear()
            found = memo[key] = compute()
        return found

    def shape_of(j):
        def out_shape(*shapes):
            scalars = {a for a, s in zip(info.args, shapes) if is_scalar_value(s)}
            key = ("shape", tuple(type(s) if a in scalars else tuple(s) for a, s in zip(info.args, shapes)))
            if any(d < 0 for a, s in zip(info.args, shapes) if a not in scalars for d in s):
                return remember(key + (j,), lambda: _unknown_shape(info, shapes, scalars, j))
            meta = remember(key, lambda: tensor_meta(info, shapes, None, scalars))
            return list(meta[info.returns[j]].shape)
        return out_shape

    def dtype_of(j):
        def out_dtype(*dtypes):
            scalars = {a for a, d in zip(info.args, dtypes) if is_scalar_value(d)}
            key = ("dtype", tuple(type(d) if a in scalars else d for a, d in zip(info.args, dtypes)))
            meta = remember(key, lambda: tensor_meta(info, None, [None if a in scalars else _dt.to_numpy(d)
                                                                  for a, d in zip(info.args, dtypes)], scalars))
            return _dt.dtype_from_any(meta[info.returns[j]].dtype)
        return out_dtype

    if n == 1:
        return shape_of(0), dtype_of(0)
    return tuple(shape_of(j) for j in range(n)), tuple(dtype_of(j) for j in range(n))


_PROBES = (1000003, 1000033)    # stand-ins for an unknown dimension (primes, unlikely to meet by accident)


def _unknown_shape(info, shapes, scalars, j):
    """Output ``j``'s shape for inputs with unknown (-1) dimensions or rank (-2), as MindSpore's compile-time
    inference gives it: the declarations are evaluated with two stand-ins per unknown dimension; a
    dimension that comes out the same both times is known, one that differs is -1, and an unknown
    input rank (or a declaration that cannot be evaluated so) gives an unknown rank, [-2]."""
    if any(list(s) == [-2] for a, s in zip(info.args, shapes) if a not in scalars):
        return [-2]
    results = []
    for probe in _PROBES:
        given = [s if a in scalars else [probe if d < 0 else d for d in s] for a, s in zip(info.args, shapes)]
        try:
            results.append(tensor_meta(info, given, None, scalars)[info.returns[j]].shape)
        except (TypeError, ValueError):
            return [-2]
    first, second = results
    if len(first) != len(second):
        return [-2]
    return [d if d == e else -1 for d, e in zip(first, second)]


def complete(func, op_name, out_shape, out_dtype, bprop):
    """The checked kernel and its ``out_shape``, ``out_dtype`` and ``bprop`` (derived where None)."""
    func = as_hybrid(func, op_name)
    shape_rule, dtype_rule = _rules(func.info)
    if out_shape is None:
        out_shape = shape_rule
    if out_dtype is None:
        out_dtype = dtype_rule
    if bprop is None:
        bprop = make_bprop(func, op_name)       # (*args, attrs=None): the kind's arity() counts arguments
    return func, out_shape, out_dtype, bprop
