"""Rows of the primitive table (``operations._TABLE``) for MindSpore classes real programs construct:
``Eye``, ``ScatterNd``, ``Unstack``, ``L2Normalize``, ``Identity``, ``SquaredDifference``, with
MindSpore 2.10's constructor arguments and defaults. Each computes with the functional ops, so it
differentiates and replays as they do.
"""

import numpy as np

from .. import dtype as _dt
from ..tensor import Tensor


def _ops():
    from .. import ops
    return ops


def _eye(p, n, m, t):
    """``Eye()(n, m, t)``: the n x m identity of dtype ``t`` (a constant)."""
    for what, v in (("n", n), ("m", m)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise TypeError(f"primitive 'Eye': {what} must be a non-negative int, got {v!r}")
    return Tensor._wrap(np.eye(int(n), int(m), dtype=_dt.to_numpy(t)))


def _squared_difference(p, x, y):
    ops = _ops()
    return ops.square(ops.sub(x, y))


TABLE = {
    "Eye": ((), _eye),
    "ScatterNd": ((), lambda p, indices, updates, shape: _ops().scatter_nd(indices, updates, shape)),
    "Unstack": ((("axis", 0), ("num", None)), lambda p, x: _ops().unstack(x, p.attrs["axis"])),
    "L2Normalize": ((("axis", 0), ("epsilon", 1e-4)),
                    lambda p, x: _ops()._ms_names_ops.l2_normalize(x, p.attrs["axis"], p.attrs["epsilon"])),
    "Identity": ((), lambda p, x: _ops()._ms_names_ops.identity(x)),
    "SquaredDifference": ((), _squared_difference),
}
