"""The module paths MindSpore's own Custom-op tests and documentation import resolve to mscustom's objects
(listed from MindSpore 2.10's package tree and its tests/st/ops/graph_kernel/custom files)."""

import importlib

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops

PATHS = [
    ("mscustom.ops.operations._inner_ops", "ConvertToDynamic", ops.ConvertToDynamic),
    ("mscustom.ops.operations.custom_ops", "Custom", ops.Custom),
    ("mscustom.ops.operations._ms_kernel", "kernel", ops.kernel),
    ("mscustom.ops.operations._ms_kernel", "ms_kernel", ops.ms_kernel),
    ("mscustom.ops.op_info_register", "CustomRegOp", ops.CustomRegOp),
    ("mscustom.ops.op_info_register", "DataType", ops.DataType),
    ("mscustom.ops.op_info_register", "custom_info_register", ops.custom_info_register),
    ("mscustom.ops.primitive", "PrimitiveWithInfer", ops.PrimitiveWithInfer),
    ("mscustom.ops.primitive", "prim_attr_register", ops.prim_attr_register),
    ("mscustom.ops.composite", "GradOperation", ops.GradOperation),
    ("mscustom.common.api", "jit", ms.jit),
    ("mscustom.common.tensor", "Tensor", ms.Tensor),
    ("mscustom.common.parameter", "ParameterTuple", ms.ParameterTuple),
]


@pytest.mark.parametrize("module, name, obj", PATHS, ids=[f"{m}.{n}" for m, n, _ in PATHS])
def test_path_resolves_to_the_same_object(module, name, obj):
    assert getattr(importlib.import_module(module), name) is obj


def test_mindspore_aot_test_pattern():
    """The form of MindSpore's test_custom_aot.py: ``from ...operations import _inner_ops as inner``."""
    from mscustom.ops.operations import _inner_ops as inner
    import mscustom.ops.operations.custom_ops as custom_ops

    seen = []

    def infer(x, y):
        seen.append(list(x))
        return y

    def add(x, y):
        return x + y

    convert = inner.ConvertToDynamic(is_dynamic_rank=True).add_prim_attr("primitive_target", "CPU")
    op = custom_ops.Custom(add, infer, lambda x, y: x, func_type="pyfunc")
    a = ms.Tensor(np.ones((4, 5), np.float32))
    out = op(convert(a), a)
    np.testing.assert_array_equal(out.asnumpy(), np.full((4, 5), 2.0, np.float32))
    assert [-2] in seen                            # shape inference saw an unknown rank, as in MindSpore
