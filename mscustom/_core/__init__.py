"""The operator core: OpDef attribute tables, the registry, the dispatcher and the tape.

Front ends (built-in ops, ``ops.Custom``, the compat styles) build OpDefs here;
nothing in ``_core`` imports a front end.
"""

from .opdef import OpDef
from .kernel import KernelEntry, Signature
from .registry import register_op, get_op, list_ops
from .dispatch import call, call_converting

__all__ = ["OpDef", "KernelEntry", "Signature", "register_op", "get_op", "list_ops", "call",
           "call_converting"]
