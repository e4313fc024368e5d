"""ops.Custom with pyfunc kernels: forward against NumPy, inference rules, arguments, errors, threads, speed."""

import gc
import threading
import time

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops import CustomRegOp, DataType
from mscustom.ops.custom import custom_op_report


def square(x):
    return x * x


def same(x):
    return x


@pytest.fixture(autouse=True)
def cpu_pynative():
    ms.set_device("CPU")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_device("CPU")
    ms.set_context(mode=ms.PYNATIVE_MODE)


# ---------------------------------------------------------------- forward
def test_square_matches_numpy(rng):
    sq = ops.Custom(square, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="pyfunc")
    x = rng.standard_normal((3, 4)).astype(np.float32)
    y = sq(ms.Tensor(x))
    assert isinstance(y, ms.Tensor)
    assert y.dtype == ms.float32
    np.testing.assert_allclose(y.asnumpy(), x * x)


def test_name_repr_and_defaults():
    sq = ops.Custom(square, same, same)
    assert sq.name == "square"
    assert sq.func_type == "pyfunc"
    assert sq.num_outputs == 1
    assert repr(sq) == ("Custom(name='square', func_type='pyfunc', outputs=1, "
                        "kernels=[pyfunc:square[CPU], pyfunc:square[GPU]])")
    named = ops.Custom(square, same, same, name="my_square")
    assert named.name == "my_square" and named.op.name == "my_square"


def test_constant_out_shape_and_dtypes():
    total = ops.Custom(lambda x: np.array([x.sum()]), out_shape=(1,), out_dtype=ms.float64)
    y = total(ms.Tensor([1.0, 2.0, 3.0]))
    assert y.shape == (1,) and y.dtype == ms.float64
    assert y.asnumpy()[0] == 6.0
    as_int = ops.Custom(lambda x: x.astype(np.int32), out_shape=[3], out_dtype=np.int32)
    assert as_int(ms.Tensor([1.0, 2.0, 3.0])).dtype == ms.int32
    scalar = ops.Custom(lambda x: x.sum(), out_shape=(), out_dtype="float32")
    s = scalar(ms.Tensor([1.0, 2.0]))
    assert s.shape == () and s.item() == 3.0


def test_shape_rule_sees_shapes_as_lists_and_dtype_rule_sees_ms_dtypes():
    seen = {}

    def shape_rule(x, y):
        seen["shape"] = (x, y)
        return [x[0], y[1]]

    def dtype_rule(x, y):
        seen["dtype"] = (x, y)
        return x

    mm = ops.Custom(lambda a, b: a @ b, shape_rule, dtype_rule)
    a, b = np.ones((2, 3), np.float32), np.ones((3, 5), np.float32)
    out = mm(ms.Tensor(a), ms.Tensor(b))
    assert seen["shape"] == ([2, 3], [3, 5])
    assert seen["dtype"] == (ms.float32, ms.float32)
    np.testing.assert_allclose(out.asnumpy(), a @ b)


def test_several_outputs_from_tuples_return_a_tuple():
    split = ops.Custom(lambda x: (x + 1, (x * 2).astype(np.int64)),
                       out_shape=((3,), (3,)), out_dtype=(ms.float32, ms.int64))
    assert split.num_outputs == 2
    a, b = split(ms.Tensor([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(a.asnumpy(), [2, 3, 4])
    assert b.dtype == ms.int64 and b.tolist() == [2, 4, 6]


def test_several_outputs_decided_on_first_use_when_both_rules_are_callables():
    split = ops.Custom(lambda x: (x + 1, x[:1] * 2), out_shape=lambda x: (x, [1]),
                       out_dtype=lambda x: (x, x))
    a, b = split(ms.Tensor([1.0, 2.0, 3.0]))
    assert split.num_outputs == 2
    np.testing.assert_allclose(a.asnumpy(), [2, 3, 4])
    np.testing.assert_allclose(b.asnumpy(), [2])


def test_several_outputs_from_reg_info():
    info = (CustomRegOp().input(0, "x").output(0, "lo").output(1, "hi")
            .dtype_format(DataType.F32_Default, DataType.F32_Default, DataType.F32_Default)
            .target("CPU").get_op_info())
    clip = ops.Custom(lambda x: (np.minimum(x, 0), np.maximum(x, 0)), lambda x: x, lambda x: x,
                      reg_info=info)
    assert clip.num_outputs == 2
    lo, hi = clip(ms.Tensor([-1.0, 2.0]))
    assert lo.tolist() == [-1.0, 0.0] and hi.tolist() == [0.0, 2.0]


def test_mismatched_output_counts_are_rejected():
    with pytest.raises(ValueError, match=r"op 'two': out_shape gives 2 outputs but out_dtype gives 3"):
        ops.Custom(lambda x: x, ((1,), (1,)), (ms.float32,) * 3, name="two")


def test_without_rules_outputs_take_what_the_function_returns():
    to_f64 = ops.Custom(lambda x: np.concatenate([x, x]).astype(np.float64))
    y = to_f64(ms.Tensor([1.0, 2.0]))
    assert y.shape == (4,) and y.dtype == ms.float64


def test_python_scalars_are_passed_to_the_function_and_the_rules():
    seen = []

    def shape_rule(a, x, b):
        seen.append((a, b))
        return x

    axpb = ops.Custom(lambda a, x, b: a * x + b, shape_rule, ms.float32)
    x = ms.Tensor([1.0, 2.0])
    assert axpb(2.0, x, 1.0).tolist() == [3.0, 5.0]
    assert axpb(3.0, x, 0.5).tolist() == [3.5, 6.5]
    assert axpb(3.0, x, 0.5).tolist() == [3.5, 6.5]        # cached: the rule is not run again
    assert seen == [(2.0, 1.0), (3.0, 0.5)]


def test_an_op_with_only_scalar_arguments():
    arange = ops.Custom(lambda n: np.arange(n, dtype=np.float32), out_shape=lambda n: [n], out_dtype=ms.float32)
    assert arange(3).tolist() == [0.0, 1.0, 2.0]
    assert arange(5).shape == (5,)


def test_numpy_arrays_count_as_tensors():
    add = ops.Custom(lambda a, b: a + b, lambda a, b: a, lambda a, b: a)
    y = add(np.array([1.0, 2.0], np.float32), ms.Tensor([3.0, 4.0]))
    assert isinstance(y, ms.Tensor) and y.tolist() == [4.0, 6.0]


def test_keyword_arguments_set_attributes():
    info = (CustomRegOp().input(0, "x").output(0, "y")
            .attr("scale", "required", "float", value=2.0)
            .attr("shift", "optional", "int", default_value=0)
            .target("CPU").get_op_info())
    seen = []

    def affine(x, scale, shift):
        seen.append((scale, shift))
        return x * scale + shift

    op = ops.Custom(affine, same, same, reg_info=info)
    x = ms.Tensor([1.0, 2.0])
    assert op(x).tolist() == [2.0, 4.0]
    assert op(x, scale=3, shift=1).tolist() == [4.0, 7.0]
    assert seen == [(2.0, 0), (3.0, 1)]
    assert type(seen[1][0]) is float


def test_result_never_aliases_an_input():
    ident = ops.Custom(lambda x: x, same, same)
    x = ms.Tensor([1.0, 2.0])
    y = ident(x)
    assert not np.shares_memory(x.asnumpy(), y.asnumpy())
    assert y.tolist() == [1.0, 2.0]


def test_tensor_result_and_numpy_scalar_result_are_accepted():
    as_tensor = ops.Custom(lambda x: ms.Tensor(x * 2), same, same)
    assert as_tensor(ms.Tensor([1.0])).tolist() == [2.0]
    total = ops.Custom(lambda x: np.float32(x.sum()), out_shape=(), out_dtype=ms.float32)
    assert total(ms.Tensor([1.0, 2.0])).item() == 3.0


def test_same_kind_result_dtype_is_cast():
    f64 = ops.Custom(lambda x: x.astype(np.float64) * 2, same, same)
    y = f64(ms.Tensor([1.0, 2.0]))
    assert y.dtype == ms.float32 and y.tolist() == [2.0, 4.0]


# ---------------------------------------------------------------- errors
def test_function_returning_none_names_op_expected_and_actual():
    op = ops.Custom(lambda x: None, same, same, name="forgot_return")
    with pytest.raises(TypeError, match=r"op 'forgot_return': pyfunc '<lambda>' must return a NumPy array "
                                        r"of shape \[2\] and dtype float32, got None"):
        op(ms.Tensor([1.0, 2.0]))


def test_function_returning_a_list_is_an_error():
    op = ops.Custom(lambda x: [1.0, 2.0], name="listy")
    with pytest.raises(TypeError, match=r"op 'listy': pyfunc '<lambda>' must return a NumPy array, "
                                        r"got list \(\[1.0, 2.0\]\)"):
        op(ms.Tensor([1.0, 2.0]))


def test_several_outputs_need_a_tuple():
    op = ops.Custom(lambda x: x, ((2,), (2,)), (ms.float32, ms.float32), name="pair")
    with pytest.raises(TypeError, match=r"op 'pair': pyfunc '<lambda>' must return a tuple of 2 NumPy "
                                        r"arrays \(the op has 2 outputs\), got ndarray"):
        op(ms.Tensor([1.0, 2.0]))
    op3 = ops.Custom(lambda x: (x, None), ((2,), (2,)), (ms.float32, ms.float32), name="pair3")
    with pytest.raises(TypeError, match=r"op 'pair3': pyfunc '<lambda>' output 1 must return a NumPy "
                                        r"array of shape \[2\] and dtype float32, got None"):
        op3(ms.Tensor([1.0, 2.0]))


def test_function_that_raises_becomes_runtime_error_chained():
    def broken(x):
        raise KeyError("missing")

    op = ops.Custom(broken, same, same)
    with pytest.raises(RuntimeError, match=r"op 'broken': pyfunc 'broken' raised KeyError: 'missing'") as info:
        op(ms.Tensor([1.0]))
    assert isinstance(info.value.__cause__, KeyError)


def test_result_shape_mismatch_names_the_op():
    op = ops.Custom(lambda x: x[:1].copy(), same, same, name="shrinks")
    with pytest.raises(ValueError, match=r"op 'shrinks': output 0 has shape \[1\], but the op's shape "
                                         r"inference says \[3\]"):
        op(ms.Tensor([1.0, 2.0, 3.0]))


def test_result_dtype_that_cannot_be_cast_names_the_op():
    op = ops.Custom(lambda x: x.astype(np.float32), same, lambda x: ms.int32, name="to_int")
    with pytest.raises(TypeError, match=r"op 'to_int': output 0 has dtype float32, the op declares int32"):
        op(ms.Tensor([1.5]))


def test_out_shape_returning_a_non_shape_names_the_op_and_value():
    op = ops.Custom(square, out_shape=lambda x: 3.5, out_dtype=same)
    with pytest.raises(TypeError, match=r"op 'square': out_shape must give a shape \(a list or tuple of "
                                        r"non-negative ints\), got 3.5"):
        op(ms.Tensor([1.0]))
    neg = ops.Custom(square, out_shape=lambda x: [-1], out_dtype=same)
    with pytest.raises(TypeError, match=r"op 'square': out_shape must give a shape .*got \[-1\]"):
        neg(ms.Tensor([1.0]))


def test_out_dtype_returning_a_non_dtype_names_the_op():
    op = ops.Custom(square, out_shape=same, out_dtype=lambda x: "floaty")
    with pytest.raises(TypeError, match=r"op 'square': out_dtype must give a dtype .*got 'floaty'"):
        op(ms.Tensor([1.0]))


def test_bad_constant_rules_fail_at_construction():
    with pytest.raises(TypeError, match=r"op 'square': out_shape must be a shape \(a tuple of non-negative "
                                        r"ints\), a callable, or a tuple of them \(one per output\), got 'big'"):
        ops.Custom(square, out_shape="big")
    with pytest.raises(TypeError, match=r"op 'square': out_dtype must be a dtype"):
        ops.Custom(square, out_dtype=42)


def test_wrong_number_of_inputs_names_the_op():
    sq = ops.Custom(square, same, same)
    x = ms.Tensor([1.0])
    with pytest.raises(TypeError, match=r"op 'square' takes 1 input argument\(s\) \(x\), got 2"):
        sq(x, x)
    with pytest.raises(TypeError, match=r"op 'square' takes 1 input argument\(s\) \(x\), got 0"):
        sq()


def test_unknown_keyword_and_unknown_func_type():
    sq = ops.Custom(square, same, same)
    with pytest.raises(TypeError, match=r"op 'square' got unknown keyword argument\(s\) \['scale'\]; "
                                        r"it has no attributes"):
        sq(ms.Tensor([1.0]), scale=2)
    with pytest.raises(ValueError, match=r"op 'square': func_type must be one of \[.*'aot'.*'jit'.*'pyfunc'.*\], "
                                         r"got 'cuda'"):
        ops.Custom(square, func_type="cuda")
    with pytest.raises(TypeError, match=r"op 'square': unknown keyword argument\(s\) \['launch'\] for "
                                        r"func_type 'pyfunc'"):
        ops.Custom(square, launch=(1, 1))


def test_unhashable_non_tensor_argument_is_rejected():
    op = ops.Custom(lambda x, d: x, lambda x, d: x, lambda x, d: x, name="takes_dict")
    with pytest.raises(TypeError, match=r"op 'takes_dict': argument 1 must be a Tensor, an array or a "
                                        r"hashable value such as a number, got dict"):
        op(ms.Tensor([1.0]), {"a": 1})


# ---------------------------------------------------------------- modes, cells, threads
def test_graph_mode_gives_the_same_results():
    sq = ops.Custom(square, same, same)
    x = ms.Tensor([1.0, 2.0, 3.0])
    eager = sq(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(sq(x).asnumpy(), eager)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_inside_cell_construct(mode):
    from mscustom import nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.sq = ops.Custom(square, same, same)

        def construct(self, x):
            return self.sq(x) + 1

    ms.set_context(mode=mode)
    net = Net()
    out = net(ms.Tensor([1.0, 2.0]))
    assert out.tolist() == [2.0, 5.0]
    g = ms.grad(lambda t: net(t).sum())
    with pytest.raises(RuntimeError, match=r"op 'square' \(ops.Custom, func_type='pyfunc'\) has no bprop"):
        g(ms.Tensor([1.0, 2.0]))


def _slow_square(x):
    time.sleep(0.01)
    return x * x


@pytest.mark.parametrize("make", [
    lambda: ops.Custom(_slow_square, same, same),
    # both rules callable: the output count is decided on first use, under a lock
    lambda: ops.Custom(lambda x: (_slow_square(x), x + 1), lambda x: (x, x), lambda x: (x, x)),
], ids=["one_output", "outputs_decided_on_first_use"])
def test_two_threads_on_the_first_call_both_get_correct_results(make):
    op = make()
    barrier = threading.Barrier(2)
    results, errors = {}, []

    def work(k):
        x = ms.Tensor(np.full(5, k + 1.0, np.float32))
        try:
            barrier.wait()
            for _ in range(20):
                results[k] = op(x)
        except Exception as exc:            # reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(2):
        res = results[k] if isinstance(results[k], tuple) else (results[k],)
        np.testing.assert_allclose(res[0].asnumpy(), np.full(5, (k + 1.0) ** 2))


# ---------------------------------------------------------------- stats and speed
def test_kernel_stats_and_report():
    op = ops.Custom(square, same, same, name="counted_square")
    for _ in range(3):
        op(ms.Tensor([1.0]))
    stats = op.kernel_stats()
    assert [(s.kind, s.kernel, s.calls) for s in stats] == [
        ("pyfunc", "pyfunc:square[CPU]", 3), ("pyfunc", "pyfunc:square[GPU]", 0)]
    assert stats[0].seconds == 0                # outside a usage block calls are counted, not timed
    with ops.custom_op_usage():
        op(ms.Tensor([1.0]))
    assert op.kernel_stats()[0].calls == 4 and op.kernel_stats()[0].seconds > 0
    rows = [r for r in custom_op_report() if r.op == "counted_square"]
    assert [(r.kind, r.calls) for r in rows] == [("pyfunc", 4), ("pyfunc", 0)]
    text = custom_op_report(format="text")
    assert "counted_square" in text and "pyfunc:square[CPU]" in text and "calls" in text
    with pytest.raises(ValueError, match="format must be 'rows' or 'text'"):
        custom_op_report(format="html")


def test_report_forgets_ops_that_are_gone():
    op = ops.Custom(square, same, same, name="short_lived_square")
    assert any(r.op == "short_lived_square" for r in custom_op_report())
    del op
    gc.collect()
    assert not any(r.op == "short_lived_square" for r in custom_op_report())


def test_steady_state_calls_reuse_one_plan_per_signature():
    """Speed is measured in bench/; here: repeated calls build no new plans."""
    sq = ops.Custom(square, out_shape=same, out_dtype=same)
    x = ms.Tensor(np.arange(4, dtype=np.float32))
    for _ in range(5):
        sq(x)
    assert len(sq._op.plans) == 1
    sq(ms.Tensor(np.arange(3, dtype=np.float64)))
    assert len(sq._op.plans) == 2


def test_plan_cache_stays_bounded(monkeypatch):
    from mscustom._core import dispatch
    monkeypatch.setattr(dispatch, "MAX_PLANS", 8)
    op = ops.Custom(lambda x, k: x * k, lambda x, k: x, lambda x, k: x)
    x = ms.Tensor([1.0, 2.0])
    for k in range(20):                                  # one plan per distinct scalar
        assert op(x, float(k)).tolist() == [k, 2.0 * k]
        assert len(op._op.plans) <= 8


def test_custom_op_usage_counts_one_block():
    op = ops.Custom(square, same, same, name="usage_square")
    op(ms.Tensor([1.0]))                                  # before the block: not counted
    with ops.custom_op_usage() as usage:
        with pytest.raises(RuntimeError, match="after the with block ends"):
            usage.report()
        for _ in range(2):
            op(ms.Tensor([2.0]))
        late = ops.Custom(square, same, same, name="usage_late_square")
        late(ms.Tensor([3.0]))
    rows = [(r.op, r.kernel, r.calls) for r in usage.report() if r.op.startswith("usage_")]
    assert rows == [("usage_square", "pyfunc:square[CPU]", 2), ("usage_late_square", "pyfunc:square[CPU]", 1)]
    assert "usage_late_square" in usage.report(format="text")
    assert [r.calls for r in custom_op_report(used_only=True) if r.op == "usage_square"] == [3]
