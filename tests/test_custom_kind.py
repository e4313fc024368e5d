"""The kernel-kind registry: lookup, errors, and a kind added by one class plus one registration line."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops.custom import kind as kind_mod
from mscustom.ops.custom.kind import get_kind, kinds, register_kind


def test_builtin_kinds_are_registered():
    assert {"pyfunc", "jit", "aot"} <= set(kinds())
    assert get_kind("pyfunc").allocates is True
    assert get_kind("jit").options == ("launch", "parallel", "debug", "vector_math")


def test_unknown_kind_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"op 'k': func_type must be one of \[.*'jit'.*'pyfunc'.*\], got 'cuda'"):
        get_kind("cuda", "k")


@pytest.mark.parametrize("name", ["julia", "tbe", "aicpu"])
def test_mindspore_kinds_that_cannot_exist_here_say_so(name):
    with pytest.raises(ValueError, match=rf"op 'f': func_type '{name}' is not supported here \("):
        ops.Custom(lambda x: x, func_type=name, name="f")


@pytest.mark.parametrize("name", ["hybrid", "akg"])
def test_hybrid_and_akg_are_accepted_names_with_a_clear_error_until_their_kind_is_registered(name):
    if name in kinds():
        pytest.skip(f"the {name} kind is registered in this build")
    with pytest.raises(ValueError, match=rf"op 'f': func_type '{name}' is not available: "):
        ops.Custom(lambda x: x, func_type=name, name="f")


def test_akg_tvm_compute_kernels_are_refused():
    # (ir_builder kernels are served: tests/test_custom_akg_irbuilder.py)
    def compute_kernel(a):
        return tvm.compute(a.shape, lambda i: a[i])  # noqa: F821  (never run: the source decides)
    with pytest.raises(ValueError, match=r"op 'compute_kernel': a TVM compute kernel is not supported here"):
        ops.Custom(compute_kernel, func_type="akg")


class TwiceKind:
    """A test-only kind: the function gets preallocated outputs and fills them with twice its value."""

    name = "twice"
    options = ("factor",)
    default_targets = ("CPU",)
    allocates = False

    def __init__(self):
        self.bound = []

    def check(self, func, op_name, options):
        if not callable(func):
            raise TypeError(f"op '{op_name}': a twice kernel must be callable")
        return func

    def bind(self, func, *, op_name, target, attr_specs, n_out, options, sig):
        self.bound.append((op_name, target, [list(s) for s in sig.in_shapes]))
        factor = options.get("factor", 2)

        def run(attrs, inputs, req, outputs):
            outputs[0][...] = factor * func(*inputs)
        return run


@pytest.fixture
def twice_kind():
    kind = register_kind(TwiceKind())          # the one registration line a new kind needs
    yield kind
    kind_mod._KINDS.pop("twice", None)


def test_a_new_kind_is_one_class_and_one_registration_line(twice_kind):
    assert "twice" in kinds()
    op = ops.Custom(lambda x: x + 1, out_shape=lambda s: s, out_dtype=lambda d: d, func_type="twice",
                    factor=3, name="plus_one_times_3")
    x = np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(op(ms.Tensor(x)).asnumpy(), 3 * (x + 1))
    op(ms.Tensor(x))                                     # the same signature is bound once
    assert twice_kind.bound == [("plus_one_times_3", "CPU", [[2]])]
    assert [k.kind for k in op.kernels] == ["twice"] and [k.target for k in op.kernels] == ["CPU"]
    with pytest.raises(TypeError, match=r"unknown keyword argument\(s\) \['launch'\] for func_type 'twice'; "
                                        r"its kernel options are \['factor'\]"):
        ops.Custom(lambda x: x, func_type="twice", launch=(1, 1))
    with pytest.raises(TypeError, match=r"op 'bad': a twice kernel must be callable"):
        ops.Custom(3, func_type="twice", name="bad")


def test_register_kind_checks_the_contract():
    class Half:
        name = "half"
    with pytest.raises(TypeError, match=r"register_kind: Half lacks 'options'"):
        register_kind(Half())
