"""Shape inference of a Custom call whose inputs have unknown dimensions (dynamic shapes).

MindSpore infers a dynamic-shape op twice: when the graph is compiled, with
-1 for each unknown dimension (``[-2]`` for an unknown rank), and when the
kernel is launched, with the real shapes. ``infer`` does the same for one
call: the user's rule (``out_shape`` callable or aot ``<Func>InferShape``) is
called with the shapes the call's inputs are seen with, then with their real
shapes; the second result sizes the outputs. Where the rule still gives -1
with real shapes (a size the kernel decides, as in ``unique``), the output
shape is left unknown: a kernel that returns its outputs (pyfunc) gives it,
a kernel writing into preallocated outputs is refused by the dispatcher.
"""

from ._common import DYNAMIC_KEY
from .rules import UNKNOWN_RANK, check_concrete

__all__ = ["infer", "shown_shapes"]


def shown_shapes(attrs, in_shapes):
    """The input shapes as the call's inputs are seen: declared unknowns in place of real dimensions."""
    seen = attrs[DYNAMIC_KEY]
    return [list(s) if s is not None else list(r) for s, r in zip(seen, in_shapes)]


def infer(op_name, evaluate, attrs, in_shapes):
    """Output shapes of a dynamic-shape call; ``evaluate(attrs, shapes)`` runs the op's rule."""
    shown = shown_shapes(attrs, in_shapes)
    compiled = check_concrete(op_name, shown, evaluate(attrs, shown))
    real = check_concrete(op_name, in_shapes, evaluate(attrs, [list(s) for s in in_shapes]), unknown_ok=True)
    for j, (c, r) in enumerate(zip(compiled, real)):
        if list(c) == [UNKNOWN_RANK]:
            continue
        same_rank = len(c) == len(r) or list(r) == [UNKNOWN_RANK]
        if not same_rank or any(cd >= 0 and rd >= 0 and cd != rd for cd, rd in zip(c, r)):
            raise ValueError(f"op '{op_name}': its shape inference gave output {j} the shape {list(c)} for "
                             f"inputs seen as {shown}, but {list(r)} for their real shapes {in_shapes}; "
                             f"with real shapes it may only fill in the unknown (-1) dimensions")
    return real
