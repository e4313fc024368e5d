"""MindSpore 2.10's defaults for ops.Custom, and mscustom's knowing choice for an @kernel function.

MindSpore 2.10: ``ops.Custom(f)`` without func_type is a pyfunc even for an @kernel function
(``op.func_type == "pyfunc"``; without out_shape it raises TypeError "'out_shape' must be one of
[tuple, list, function], but got <class 'NoneType'>"; with the rules it runs the kernel as Python).
mscustom keeps compiling such a function as a hybrid kernel (same values, out_shape/out_dtype
derived): see docs/mindspore_custom.md.
"""

import numpy as np

import mscustom as ms
from mscustom import ops

import hybrid_kernels as hk

A = np.arange(6, dtype=np.float32).reshape(2, 3)
B = np.full((2, 3), 0.5, np.float32)


def test_an_at_kernel_function_without_func_type_is_compiled_as_hybrid():
    op = ops.Custom(hk.add)
    assert op.func_type == "hybrid"
    np.testing.assert_array_equal(op(ms.Tensor(A), ms.Tensor(B)).asnumpy(), A + B)


def test_both_2_10_spellings_give_the_same_values():
    as_pyfunc = ops.Custom(hk.add, out_shape=lambda a, b: a, out_dtype=lambda a, b: a, func_type="pyfunc")
    as_default = ops.Custom(hk.add, out_shape=lambda a, b: a, out_dtype=lambda a, b: a)
    assert (as_pyfunc.func_type, as_default.func_type) == ("pyfunc", "hybrid")
    want = A + B                      # MindSpore 2.10 (pyfunc run of the @kernel function): the same
    for op in (as_pyfunc, as_default):
        np.testing.assert_array_equal(op(ms.Tensor(A), ms.Tensor(B)).asnumpy(), want)


def test_a_plain_function_without_func_type_is_a_pyfunc():
    op = ops.Custom(lambda x: x * 3, out_shape=lambda s: s, out_dtype=lambda d: d)
    assert op.func_type == "pyfunc"
    assert op(ms.Tensor(np.ones(2, np.float32))).asnumpy().tolist() == [3.0, 3.0]
