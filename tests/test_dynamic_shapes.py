"""Dynamic shapes, MindSpore style: placeholder Tensors, Cell.set_inputs, ops.ConvertToDynamic, and what
ops.Custom shape inference sees (-1 per unknown dimension, [-2] for an unknown rank)."""

import shutil
from pathlib import Path

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops
from mscustom.tensor import PlaceholderError

SRC = Path(__file__).resolve().parent / "data" / "aot_fidelity_kernels.cc"
T = ms.Tensor


def recording_op(name, bprop=None):
    """A pyfunc doubling its input whose out_shape callable records every shape it is shown."""
    seen = []

    def rule(shape):
        seen.append(list(shape))
        return shape

    op = ops.Custom(lambda a: a * 2, out_shape=rule, out_dtype=lambda d: d, func_type="pyfunc", name=name,
                    bprop=bprop)
    return op, seen


# ---------------------------------------------------------------- placeholders
def test_placeholder_reports_minus_one_for_unknown_dims_and_minus_two_for_unknown_rank():
    p = T(shape=[4, None], dtype=ms.float32)
    assert p.shape == (4, -1) and p.dtype == ms.float32 and p.ndim == 2
    assert repr(p) == "Tensor(shape=[4, -1], dtype=Float32, value=<no data>)"
    r = T(shape=None, dtype=ms.int32)
    assert r.shape == (-2,) and r.dtype == ms.int32
    assert T(shape=[-1, 3], dtype=ms.float32).shape == (-1, 3)          # -1 declares an unknown dim too
    # a fully known shape without data still means zeros, as before
    assert T(shape=(2, 3), dtype=ms.float32).asnumpy().tolist() == [[0.0] * 3] * 2


def test_placeholder_used_as_data_is_a_clear_error():
    p = T(shape=[4, None], dtype=ms.float32)
    with pytest.raises(PlaceholderError, match=r"op 'exp': input 'x': Tensor\(shape=\[4, -1\], dtype=Float32\) "
                                               r"is a placeholder without data"):
        ops.exp(p)
    op, _ = recording_op("dbl")
    with pytest.raises(PlaceholderError, match=r"op 'dbl': input 0: .*placeholder without data"):
        op(p)
    with pytest.raises(PlaceholderError, match="Tensor.asnumpy: .*placeholder"):
        p.asnumpy()
    with pytest.raises(PlaceholderError):
        np.asarray(p)
    with pytest.raises(TypeError, match="needs a dtype"):
        T(shape=[None, 3])
    with pytest.raises(ValueError, match=r"init='ones' cannot fill a shape with unknown dimensions \[-1, 3\]"):
        T(shape=[None, 3], dtype=ms.float32, init="ones")


# ---------------------------------------------------------------- ConvertToDynamic
def test_convert_to_dynamic_returns_the_input_and_inference_sees_unknown_dims(rng):
    x = rng.standard_normal((2, 3)).astype(np.float32)
    op, seen = recording_op("dbl_dyn")
    op(T(x))                                   # static: the rule sees the real shape only
    assert seen[-1] == [2, 3]
    seen.clear()
    y = ops.ConvertToDynamic()(T(x))
    assert y.shape == (2, 3) and np.array_equal(y.asnumpy(), x)           # the values are untouched
    np.testing.assert_allclose(op(y).asnumpy(), 2 * x)
    assert seen == [[-1, -1], [2, 3]]          # compile-time inference, then the real shapes
    seen.clear()
    z = ops.ConvertToDynamic(is_dynamic_rank=True)(T(x))
    np.testing.assert_allclose(op(z).asnumpy(), 2 * x)
    assert seen == [[-2], [2, 3]]


def test_unknown_dims_propagate_through_a_chain_of_custom_ops_but_not_builtins(rng):
    x = rng.standard_normal((2, 3)).astype(np.float32)
    first, seen_first = recording_op("first", bprop=lambda a, out, dout: (dout * 2,))
    second, seen_second = recording_op("second", bprop=lambda a, out, dout: (dout * 2,))
    out = second(first(ops.ConvertToDynamic()(T(x))))
    np.testing.assert_allclose(out.asnumpy(), 4 * x)
    assert [-1, -1] in seen_second                    # first's output was seen as dynamic
    seen_second.clear()
    second(ops.exp(first(ops.ConvertToDynamic()(T(x)))))
    assert [-1, -1] not in seen_second                # a built-in op's output is static again
    g = ms.grad(lambda t: second(first(ops.ConvertToDynamic()(t))).sum())(T(x))
    np.testing.assert_allclose(g.asnumpy(), np.full((2, 3), 4.0))


def test_convert_to_dynamic_checks_its_arguments():
    with pytest.raises(TypeError, match="'is_dynamic_rank' must be a bool"):
        ops.ConvertToDynamic(is_dynamic_rank=1)
    with pytest.raises(TypeError, match="'input' must be a Tensor"):
        ops.ConvertToDynamic()([1.0, 2.0])


def test_gradients_flow_through_convert_to_dynamic(rng):
    x = rng.standard_normal((3,)).astype(np.float32)
    op, _ = recording_op("dbl_grad", bprop=lambda a, out, dout: (dout * 2,))
    g = ms.grad(lambda t: op(ops.ConvertToDynamic()(t)).sum())(T(x))
    np.testing.assert_allclose(g.asnumpy(), np.full(3, 2.0))


def test_a_size_known_only_after_running_is_given_by_a_pyfunc():
    unique = ops.Custom(lambda a: np.unique(a), out_shape=lambda s: [-1], out_dtype=lambda d: d,
                        func_type="pyfunc", name="unique")
    x = T(np.array([3.0, 1.0, 3.0, 2.0], np.float32))
    assert unique(ops.ConvertToDynamic()(x)).asnumpy().tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(TypeError, match=r"op 'unique': out_shape must give a shape .* when every input shape "
                                        r"is known"):
        unique(x)                              # static input: -1 stays refused, as before


def test_a_kernel_writing_preallocated_outputs_needs_every_dimension():
    def copy_kernel(a, out):
        for i in range(a.shape[0]):
            out[i] = a[i]

    op = ops.Custom(copy_kernel, out_shape=lambda s: [-1], out_dtype=lambda d: d, func_type="jit")
    with pytest.raises(ValueError, match=r"op 'copy_kernel': output 0 shape is \[-1\], with dimensions known "
                                         r"only once the kernel has run; its kernel \(jit\) writes into "
                                         r"preallocated outputs"):
        op(ops.ConvertToDynamic()(T(np.ones(3, np.float32))))


def test_real_shape_inference_must_agree_with_the_compile_time_one():
    op = ops.Custom(lambda a: a[:3], out_shape=lambda s: [3] if s[0] < 0 else [4], out_dtype=lambda d: d,
                    func_type="pyfunc", name="flaky")
    with pytest.raises(ValueError, match=r"op 'flaky': its shape inference gave output 0 the shape \[3\] for "
                                         r"inputs seen as \[\[-1\]\], but \[4\] for their real shapes"):
        op(ops.ConvertToDynamic()(T(np.ones(4, np.float32))))


# ---------------------------------------------------------------- Cell.set_inputs
class Doubler(nn.Cell):
    def __init__(self, op):
        super().__init__()
        self.op = op

    def construct(self, x):
        return self.op(x)


def test_set_inputs_declares_the_signature_and_custom_inference_sees_its_unknown_dims():
    op, seen = recording_op("dbl_cell")
    net = Doubler(op)
    assert net.get_inputs() is None
    decl = T(shape=[None, 3], dtype=ms.float32)
    net.set_inputs(decl)
    assert net.get_inputs() == (decl,)
    for rows in (5, 2):
        x = np.ones((rows, 3), np.float32)
        np.testing.assert_allclose(net(T(x)).asnumpy(), 2 * x)
    assert [-1, 3] in seen and [5, 3] in seen and [2, 3] in seen


def test_set_inputs_mismatches_name_the_cell_the_input_and_both_signatures():
    net = Doubler(recording_op("dbl_bad")[0])
    net.set_inputs(T(shape=[None, 3], dtype=ms.float32))
    with pytest.raises(ValueError, match=r"For 'Doubler', input 0 was declared by set_inputs as "
                                         r"Tensor\(shape=\[-1, 3\], dtype=Float32\), but got shape \[5, 4\]: "
                                         r"dimension 1 must be 3"):
        net(T(np.ones((5, 4), np.float32)))
    with pytest.raises(ValueError, match=r"\(rank 2\), but got shape \[5\] \(rank 1\)"):
        net(T(np.ones(5, np.float32)))
    with pytest.raises(TypeError, match=r"but got dtype Float64"):
        net(T(np.ones((5, 3), np.float64)))
    with pytest.raises(TypeError, match=r"For 'Doubler', set_inputs declared 1 input\(s\), but the Cell was "
                                        r"called with 2"):
        net(T(np.ones((5, 3), np.float32)), T(np.ones(1, np.float32)))


def test_set_inputs_with_unknown_rank_and_with_real_tensors():
    op, seen = recording_op("dbl_rank")
    net = Doubler(op)
    net.set_inputs(T(shape=None, dtype=ms.float32))
    net(T(np.ones((2, 2, 2), np.float32)))
    assert [-2] in seen
    with pytest.raises(TypeError, match="dtype Int64"):
        net(T(np.ones(2, np.int64)))
    fixed = Doubler(recording_op("dbl_fixed")[0])
    fixed.set_inputs(T(np.zeros((2, 3), np.float32)))        # a real tensor declares its exact shape
    fixed(T(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="dimension 0 must be 2"):
        fixed(T(np.ones((3, 3), np.float32)))
    with pytest.raises(TypeError, match="For 'Doubler.set_inputs', input 0 must be a Tensor"):
        fixed.set_inputs(object())


# ---------------------------------------------------------------- aot <Func>InferShape
aot_needs_cxx = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("c++") is None,
                                   reason="needs a C++ compiler")


@aot_needs_cxx
def test_aot_infer_shape_sees_unknown_dims_then_the_real_ones(rng, tmp_path, monkeypatch):
    monkeypatch.setenv("MSCUSTOM_CACHE_DIR", str(tmp_path / "cache"))
    row_sum = ops.Custom(f"{SRC}:CustomRowSum", out_dtype=ms.float32, func_type="aot")
    probe = ops.Custom(f"{SRC}:CustomUnknownSeen", out_shape=[2], out_dtype=ms.int64, func_type="aot")
    x = rng.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_allclose(row_sum(T(x)).asnumpy(), x.sum(1), rtol=1e-5)
    assert probe(T(x)).asnumpy().tolist() == [0, 2]                  # static: no unknown dimension shown
    np.testing.assert_allclose(row_sum(ops.ConvertToDynamic()(T(x))).asnumpy(), x.sum(1), rtol=1e-5)
    assert probe(T(x)).asnumpy().tolist() == [1, 2]                  # shown [-1, -1], then [4, 3]
    np.testing.assert_allclose(row_sum(ops.ConvertToDynamic(is_dynamic_rank=True)(T(x))).asnumpy(), x.sum(1),
                               rtol=1e-5)
    assert probe(T(x)).asnumpy().tolist() == [2, 2]                  # shown [-2] (rank 1), then [4, 3]


# ---------------------------------------------------------------- hybrid kernels' derived rules
def test_hybrid_derived_shapes_keep_known_dims_and_mark_unknown_ones(rng):
    import hybrid_kernels as hk
    outer = ops.Custom(hk.outer)
    rule = outer._shape_rule.value
    assert rule([-1], [2]) == [-1, 2] and rule([3], [-1]) == [3, -1] and rule([-2], [2]) == [-2]
    u, v = rng.standard_normal(3), rng.standard_normal(2)
    np.testing.assert_allclose(outer(ops.ConvertToDynamic()(T(u)), T(v)).asnumpy(), np.outer(u, v))
    np.testing.assert_allclose(outer(ops.ConvertToDynamic(is_dynamic_rank=True)(T(u)), T(v)).asnumpy(),
                               np.outer(u, v))
