"""Front ends for custom-operator styles users bring from other frameworks.

- ``mscustom.compat.mxnet``: MXNet's ``CustomOp`` / ``CustomOpProp`` /
  ``operator.register`` with ``nd.Custom``, ``NDArray`` and ``autograd``.
- ``mscustom.compat.minpy``: minpy's ``@customop`` with ``def_grad``, ``grad``
  and ``grad_and_loss``.

Both are thin: each registered op becomes an OpDef of the operator core
(inference rules, a kernel, an FGradient built from a second OpDef), run by
the one dispatcher and differentiated by the one tape. See
``docs/custom_op_styles.md`` for the same operator in every style.
"""
