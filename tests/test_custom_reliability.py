"""Reliability of ops.Custom: debug bounds checks, no aliasing, errors that name the op, no dead references,
fork while a jit kernel compiles."""

import gc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops import CustomRegOp
from mscustom.ops.custom import report
from mscustom.ops.custom.bprop import CustomBpropError


def same(*args):
    return args[0]


# ---------------------------------------------------------------- debug mode (jit)
def row_loop_kernel(x, out):           # wrong for 2-D inputs: out[i] is a row, i runs past the rows
    for i in range(x.size):
        out[i] = x.flat[i]


def flat_kernel(x, out):
    for i in range(x.size):
        out.flat[i] = x.flat[i] * 2


@pytest.fixture
def debug_mode():
    ms.set_context(debug=True)
    yield
    ms.set_context(debug=False)


def test_debug_mode_turns_an_out_of_bounds_loop_into_an_error_naming_the_op(debug_mode):
    assert ms.context.debug_enabled()
    op = ops.Custom(row_loop_kernel, same, same, func_type="jit", name="rows")
    with pytest.raises(IndexError, match=r"op 'rows': jit kernel 'row_loop_kernel' indexed out of bounds"):
        op(ms.Tensor(np.ones((3, 2))))
    good = ops.Custom(flat_kernel, same, same, func_type="jit")
    x = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(good(ms.Tensor(x)).asnumpy(), 2 * x)


def short_flat_kernel(x, out):           # writes x.size elements whatever out's size
    for i in range(x.size):
        out.flat[i] = x.flat[i]


def test_debug_mode_guards_report_how_far_a_kernel_wrote(debug_mode):
    # Numba's bounds check does not see .flat; the guarded buffers catch the overrun on every call
    op = ops.Custom(short_flat_kernel, lambda s: [1], same, func_type="jit", name="guarded")
    with pytest.raises(IndexError, match=r"op 'guarded': jit kernel 'short_flat_kernel' wrote 12 byte\(s\) past "
                                         r"the end of output 0 \(shape \[1\], float32, 4 bytes\).*every call"):
        op(ms.Tensor(np.ones(4, np.float32)))


def test_without_debug_mode_the_same_kernel_is_compiled_without_checks():
    assert not ms.context.debug_enabled()
    op = ops.Custom(flat_kernel, same, same, func_type="jit")
    assert op(ms.Tensor(np.ones((2, 2)))).tolist() == [[2.0, 2.0], [2.0, 2.0]]


# ---------------------------------------------------------------- aliasing
@pytest.mark.parametrize("view", [lambda x: x, lambda x: x[::1], lambda x: x.reshape(-1),
                                  lambda x: x[:, 0], lambda x: x.T])
def test_pyfunc_results_sharing_memory_with_an_input_are_copied(view):
    shape_of = {0: None}

    def rule(s):
        shape_of[0] = list(view(np.empty(s)).shape)
        return shape_of[0]
    op = ops.Custom(view, rule, same)
    x = ms.Tensor(np.arange(6.0).reshape(2, 3))
    y = op(x)
    assert not np.shares_memory(y.asnumpy(), x.asnumpy())
    np.testing.assert_allclose(y.asnumpy(), view(x.asnumpy()))


# ---------------------------------------------------------------- errors naming the op
def test_bad_arguments_get_specific_errors_naming_the_op():
    op = ops.Custom(lambda x, s: x * s, lambda a, b: a, lambda a, b: a, name="scaled")
    x = ms.Tensor([1.0])
    with pytest.raises(TypeError, match=r"op 'scaled': argument 1 is None; expected a Tensor"):
        op(x, None)
    with pytest.raises(TypeError, match=r"op 'scaled': argument 1 is a list; tensor inputs must be Tensors"):
        op(x, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"op 'scaled': argument 1 is the int 10{30}, which does not fit"):
        op(x, 10 ** 30)
    with pytest.raises(TypeError, match=r"op 'scaled': argument 1 is a complex number"):
        op(x, 1j)


@pytest.mark.parametrize("value, message", [
    (float("inf"), r"inf is not an integer"), (float("nan"), r"nan is not an integer"),
    (2 ** 70, r"does not fit a 64-bit int"), ("x", r"Expecting value"), (None, r"got None")])
def test_bad_int_attribute_values_name_the_op_and_attribute(value, message):
    info = CustomRegOp().input(0, "x").output(0, "y").attr("k", "required", "int").get_op_info()
    op = ops.Custom(lambda x, k: x, lambda s, *a: s, lambda d, *a: d, reg_info=info, name="intattr")
    with pytest.raises(TypeError, match=rf"op 'intattr': attribute 'k' expects a value of type int, .*{message}"):
        op(ms.Tensor([1.0]), k=value)


def test_nul_bytes_in_string_attributes_are_rejected():
    info = CustomRegOp().input(0, "x").output(0, "y").attr("mode", "required", "str").get_op_info()
    op = ops.Custom(lambda x, mode: x, lambda s, *a: s, lambda d, *a: d, reg_info=info, name="stratt")
    with pytest.raises(TypeError, match=r"op 'stratt': attribute 'mode' .* NUL character"):
        op(ms.Tensor([1.0]), "me\0an")


def test_jit_kernel_returning_a_value_is_refused_at_construction():
    def returns(x, out):
        out[0] = x[0]
        return out[0]
    with pytest.raises(TypeError, match=r"op 'returns': jit kernel 'returns' returns a value \(line \d+\); a jit "
                                        r"kernel writes its results into its output arguments"):
        ops.Custom(returns, same, same, func_type="jit")


def test_jit_kernel_whose_arity_does_not_match_names_the_op():
    def three(x, y, out):
        out[0] = x[0]
    op = ops.Custom(three, lambda *a: [1], lambda *a: a[0], func_type="jit", name="arity")
    with pytest.raises(TypeError, match=r"op 'arity': jit kernel 'three' takes 3 argument\(s\), but it is called "
                                        r"as kernel\(\*inputs, \*outputs, \*attrs\) with 1 input\(s\) \+ 1 "
                                        r"output\(s\) \+ 0 attribute\(s\) = 2"):
        op(ms.Tensor([1.0]))


def test_an_exception_inside_a_bprop_names_that_op():
    def bprop(x, out, dout):
        raise KeyError("missing")
    op = ops.Custom(lambda x: x * 2, same, same, bprop=bprop, name="doubled")
    with pytest.raises(CustomBpropError, match=r"op 'doubled': its bprop 'bprop' raised KeyError: 'missing'"):
        ms.grad(lambda t: op(t).sum())(ms.Tensor([1.0]))


def test_garbage_out_dtype_and_reg_info_name_the_op():
    with pytest.raises(TypeError, match=r"op 'g': out_dtype must be a dtype, a callable"):
        ops.Custom(lambda x: x, out_shape=[1], out_dtype=object(), name="g")
    with pytest.raises(ValueError, match=r"op 'g': reg_info must be a dict, a JSON string or a CustomRegOp"):
        ops.Custom(lambda x: x, reg_info=42, name="g")


# ---------------------------------------------------------------- no dead references
def test_dropped_ops_leave_no_dead_references():
    gc.collect()
    before = len(report._LIVE)
    for _ in range(500):
        ops.Custom(lambda x: x, same, same)
    gc.collect()
    assert len(report._LIVE) == before


# ---------------------------------------------------------------- fork while compiling
FORK_SCRIPT = textwrap.dedent("""
    import os, sys, threading, time
    import numpy as np
    import mscustom as ms
    from mscustom import ops
    from mscustom.ops.custom import jit

    src = "def k(x, out):\\n    for i in range(x.size):\\n        out.flat[i] = x.flat[i] * 3 + %d\\n"
    def make(n):
        ns = {}
        exec(src % n, ns)                       # no disk cache: every one compiles
        return ops.Custom(ns["k"], lambda s: s, lambda d: d, func_type="jit")

    started = threading.Event()
    real = jit.JitFunction.compile
    def slow_compile(self, types, checked=False):
        with jit._compile_lock:
            started.set()
            time.sleep(0.3)                     # hold the compile lock a while, as a big kernel would
            return real(self, types, checked)
    jit.JitFunction.compile = slow_compile
    op = make(1)
    t = threading.Thread(target=lambda: op(ms.Tensor(np.ones(3))))
    t.start()
    started.wait()
    pid = os.fork()
    if pid == 0:
        jit.JitFunction.compile = real
        res = make(2)(ms.Tensor(np.ones(3))).tolist()
        os._exit(0 if res == [5.0, 5.0, 5.0] else 3)
    t.join()
    _, status = os.waitpid(pid, 0)
    print("child", os.waitstatus_to_exitcode(status))
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_fork_while_another_thread_compiles_does_not_hang_the_child():
    proc = subprocess.run([sys.executable, "-c", FORK_SCRIPT], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "child 0"


# ---------------------------------------------------------------- interrupts
def test_interrupt_while_the_first_call_rebuilds_the_kernels_leaves_a_working_op(monkeypatch):
    from mscustom.ops.custom import custom as custom_mod

    split = ops.Custom(lambda x: (x + 1, x[:1] * 2), out_shape=lambda x: (x, [1]), out_dtype=lambda x: (x, x))
    targets = [k.target for k in split.kernels]
    real_make_entry = custom_mod.make_entry

    def interrupted(*args, **kwargs):               # Ctrl-C while the kernels for 2 outputs are built
        monkeypatch.setattr(custom_mod, "make_entry", real_make_entry)
        raise KeyboardInterrupt
    monkeypatch.setattr(custom_mod, "make_entry", interrupted)
    with pytest.raises(KeyboardInterrupt):
        split(ms.Tensor([1.0, 2.0, 3.0]))
    assert [k.target for k in split.kernels] == targets      # the op kept its kernels
    a, b = split(ms.Tensor([1.0, 2.0, 3.0]))
    assert split.num_outputs == 2 and [k.target for k in split.kernels] == targets
    np.testing.assert_allclose(a.asnumpy(), [2, 3, 4])
    np.testing.assert_allclose(b.asnumpy(), [2])
