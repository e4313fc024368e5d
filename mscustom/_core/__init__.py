"""The operator core: OpDef attribute tables, the registry, the dispatcher and the tape.

Front ends (built-in ops, ``ops.Custom``, the compat styles) build OpDefs here;
nothing in ``_core`` imports a front end. Modules, bottom up: ``kernel``
(entries and selection), ``opdef``, ``registry`` (ops and the table of
functional forms), ``tape`` (per-thread recording), ``dispatch`` (signature ->
Plan -> kernel), ``primitives`` (the ops backward needs), ``backward``, and
``autodiff`` (the tape's face for front ends). This package imports none of
them eagerly, so ``tensor.py`` can use the registry without a cycle.
"""
