"""The compiled call path (mscustom/_core/fastcall.py): warm Custom calls finished in C.

Each behaviour is checked on both paths where it applies: ``op(x)`` (the compiled
path once the signature is armed) and ``dispatch.call_owner(op, x)`` (the Python
path it stands in for), which must agree in results, counts, buffer reuse and errors.
"""

import os
import subprocess
import sys
import textwrap
import threading
import weakref
from pathlib import Path

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom._core import dispatch, fastcall

REPO = Path(__file__).resolve().parent.parent
LIB = REPO / "aot_kernels" / "build" / "libkernels.so"

needs_c = pytest.mark.skipif(not fastcall.AVAILABLE, reason="the _fastcall extension is not built "
                                                            "(make fastcall) or MSCUSTOM_FASTCALL=0")
same = lambda *a: a[0]                  # noqa: E731


def square_py(x):
    return x * x


def square_jit(x, out):
    for i in range(x.size):
        out.flat[i] = x.flat[i] * x.flat[i]


def make(kind, name=None):
    if kind == "pyfunc":
        return ops.Custom(square_py, same, same, func_type="pyfunc", name=name)
    if kind == "jit":
        return ops.Custom(square_jit, same, same, func_type="jit", name=name)
    return ops.Custom(f"{LIB}:CustomSquare", same, same, func_type="aot", name=name)


KINDS = ["pyfunc", "jit", "aot"]
PATHS = {"compiled": lambda op, *args: op(*args), "python": lambda op, *args: dispatch.call_owner(op, *args)}


def counts():
    return fastcall.counts(dispatch.owner_method)


def warm(op, *args):
    """First call (plans), second (arms the compiled path): the next call of this signature runs in C."""
    op(*args)
    op(*args)


def calls(op):
    return sum(k.stats["calls"] for k in op.kernels)


# ---------------------------------------------------------------- built and used
def test_make_test_builds_the_extension():
    if os.environ.get("MSCUSTOM_REQUIRE_FASTCALL") != "1":
        pytest.skip("only `make test` (MSCUSTOM_REQUIRE_FASTCALL=1) promises the extension is built")
    assert fastcall.AVAILABLE
    assert type(ops.Custom.__call__).__name__ == "FastCall"


@needs_c
@pytest.mark.parametrize("kind", KINDS)
def test_warm_calls_of_every_kind_run_in_c(kind):
    op = make(kind)
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    warm(op, x)
    hits, misses = counts()
    for _ in range(5):
        y = op(x)
    assert counts() == (hits + 5, misses)
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy() ** 2)
    assert type(y) is ms.Tensor and y.shape == (2, 3) and y.dtype == ms.float32
    assert (y._format, y._node, y._oidx) == ("DefaultFormat", None, 0)
    assert calls(op) == 7                   # counted for the usage report like any call
    assert weakref.ref(y)() is y
    np.testing.assert_array_equal((y + 1).asnumpy(), x.asnumpy() ** 2 + 1)     # an ordinary Tensor


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kind", KINDS)
def test_both_paths_give_the_same_results_and_counts(kind, path):
    op = make(kind)
    call = PATHS[path]
    rng = np.random.default_rng(0)
    for shape in [(4,), (2, 3), (4,), (), (2, 3)]:
        a = rng.standard_normal(shape).astype(np.float32)
        for _ in range(3):
            np.testing.assert_array_equal(call(op, ms.Tensor(a)).asnumpy(), a * a)
    assert calls(op) == 15


# ---------------------------------------------------------------- output buffers
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kind", ["jit", "aot"])
def test_an_output_is_reused_only_when_nobody_holds_it(kind, path):
    op, call = make(kind), PATHS[path]
    x = ms.Tensor(np.arange(4, dtype=np.float32))
    warm(op, x)
    first = weakref.ref(call(op, x).asnumpy())          # dropped at once: its buffer comes back
    again = call(op, x)
    assert again.asnumpy() is first()
    held = call(op, x)                                  # `again` holds the buffer: a new one
    assert held.asnumpy() is not again.asnumpy()
    view = call(op, ms.Tensor(np.full(4, 3, np.float32))).asnumpy()[1:]     # a view keeps it too
    call(op, x)
    np.testing.assert_array_equal(view, [9, 9, 9])
    np.testing.assert_array_equal(again.asnumpy(), [0, 1, 4, 9])
    np.testing.assert_array_equal(held.asnumpy(), [0, 1, 4, 9])


@needs_c
def test_threads_never_share_an_output():
    op = make("aot")
    inputs = [np.full(256, i, np.float32) for i in range(6)]
    warm(op, ms.Tensor(inputs[0]))
    barrier, errors = threading.Barrier(6), []

    def worker(i):
        t = ms.Tensor(inputs[i])
        barrier.wait()
        for _ in range(300):
            out = op(t)
            if not (out.asnumpy() == i * i).all():
                errors.append(i)
                return

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# ---------------------------------------------------------------- what the Python path keeps
@needs_c
def test_signatures_an_op_alternates_between_all_run_in_c():
    op = make("jit")
    xs = [ms.Tensor(np.ones(n, np.float32)) for n in range(1, fastcall.MAX_ARMED + 1)]
    for x in xs:
        warm(op, x)
    hits, misses = counts()
    for _ in range(3):
        for x in xs:
            np.testing.assert_array_equal(op(x).asnumpy(), np.ones(x.shape))
    assert counts() == (hits + 3 * len(xs), misses)


@needs_c
@pytest.mark.parametrize("kind", ["jit", "aot"])
def test_non_contiguous_inputs_go_to_python_which_copies_them(kind):
    op = make(kind)
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    warm(op, ms.Tensor(base.T.copy()))
    strided = ms.Tensor._wrap(base.T)                   # shape (4, 3), not C-contiguous
    hits, misses = counts()
    np.testing.assert_array_equal(op(strided).asnumpy(), base.T ** 2)
    assert counts() == (hits, misses + 1)


@needs_c
def test_keywords_parameters_and_arrays_go_to_python():
    op = ops.Custom(lambda x, y: x + y, lambda a, b: a, lambda a, b: a, func_type="pyfunc")
    x = ms.Tensor(np.ones(2, np.float32))
    warm(op, x, x)
    hits, _ = counts()
    np.testing.assert_array_equal(op(x, ms.Parameter(x, name="p")).asnumpy(), [2, 2])
    np.testing.assert_array_equal(op(x, np.ones(2, np.float32)).asnumpy(), [2, 2])
    with pytest.raises(TypeError, match="op '<lambda>'"):
        op(x)
    assert counts()[0] == hits


@needs_c
def test_gradients_captures_and_usage_blocks_see_every_call():
    sq_grad = ops.Custom(lambda x, d: 2 * x * d, lambda s, d: s, lambda s, d: s, func_type="pyfunc")
    op = ops.Custom(square_jit, same, same, func_type="jit",
                    bprop=lambda x, out, dout: (sq_grad(x, dout),))
    x = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    warm(op, x)
    g = ms.grad(lambda t: op(t).sum())
    for _ in range(3):                                  # recorded on the tape every time
        np.testing.assert_array_equal(g(x).asnumpy(), [2, 4, 6])

    @ms.jit
    def step(t):
        return op(t) + 1

    for _ in range(3):                                  # recorded once, replayed after
        np.testing.assert_array_equal(step(x).asnumpy(), [2, 5, 10])

    (before,) = [k for k in op.kernel_stats() if k.calls]
    hits = counts()[0]
    with ops.custom_op_usage():                         # timed inside usage blocks
        for _ in range(5):
            op(x)
    (after,) = [k for k in op.kernel_stats() if k.calls]
    assert after.calls == before.calls + 5 and after.seconds > before.seconds
    assert counts()[0] == hits


# ---------------------------------------------------------------- results and errors
@needs_c
def test_pyfunc_results_the_c_side_does_not_take_are_settled_in_python():
    x = ms.Tensor(np.arange(4, dtype=np.float32))
    identity = ops.Custom(lambda a: a, same, same, func_type="pyfunc")
    warm(identity, x)
    out = identity(x)
    assert out.asnumpy() is not x.asnumpy() and not np.shares_memory(out.asnumpy(), x.asnumpy())
    view = ops.Custom(lambda a: a[::1], same, same, func_type="pyfunc")
    warm(view, x)
    assert not np.shares_memory(view(x).asnumpy(), x.asnumpy())
    wider = ops.Custom(lambda a: a.astype(np.float64), same, same, func_type="pyfunc")
    warm(wider, x)
    assert wider(x).dtype == ms.float32                 # cast to the declared dtype, as in Python
    flat = np.zeros(3, np.float32)
    wrong = ops.Custom(lambda a: flat if a[0] < 0 else a * 2, same, same, func_type="pyfunc", name="wrong")
    warm(wrong, x)
    with pytest.raises(ValueError, match=r"op 'wrong': output 0 has shape \[3\], but the op's shape "
                                         r"inference says \[4\]"):
        wrong(ms.Tensor(-np.ones(4, np.float32)))
    listed = ops.Custom(lambda a: "nope" if a[0] < 0 else a * 2, same, same, func_type="pyfunc", name="listed")
    warm(listed, x)
    with pytest.raises(TypeError, match="op 'listed': pyfunc '<lambda>' must return a NumPy array of shape "
                                        r"\[4\] and dtype float32, got str"):
        listed(ms.Tensor(-np.ones(4, np.float32)))


def checked_sqrt(x):
    if x[0] < 0:
        raise ValueError("negative input")
    return np.sqrt(x)


def checked_sqrt_jit(x, out):
    if x[0] < 0:
        raise ValueError("negative input")
    for i in range(x.size):
        out[i] = np.sqrt(x[i])


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kind", ["pyfunc", "jit"])
def test_kernel_errors_name_the_op_on_both_paths(kind, path):
    func = checked_sqrt if kind == "pyfunc" else checked_sqrt_jit
    op, call = ops.Custom(func, same, same, func_type=kind, name="root"), PATHS[path]
    good = ms.Tensor(np.ones(3, np.float32))
    warm(op, good)
    with pytest.raises(RuntimeError, match=rf"op 'root': {kind}( kernel)? '?checked_sqrt(_jit)?'? raised "
                                           r"ValueError: negative input") as info:
        call(op, ms.Tensor(-np.ones(3, np.float32)))
    assert isinstance(info.value.__cause__, ValueError)
    np.testing.assert_array_equal(call(op, good).asnumpy(), [1, 1, 1])     # the op still works


@needs_c
def test_a_keyboard_interrupt_in_a_kernel_passes_through_unwrapped():
    state = {"stop": False}

    def interruptible(x):
        if state["stop"]:
            raise KeyboardInterrupt
        return x + 1

    op = ops.Custom(interruptible, same, same, func_type="pyfunc")
    x = ms.Tensor(np.ones(2, np.float32))
    warm(op, x)
    state["stop"] = True
    with pytest.raises(KeyboardInterrupt):
        op(x)


@pytest.mark.parametrize("path", PATHS)
def test_an_aot_error_code_names_the_op_on_both_paths(tmp_path, monkeypatch, path):
    src = tmp_path / "checked.c"
    src.write_text(textwrap.dedent("""
        #include "mscustom_aot.h"
        /* params = [x float32, out float32]: out = x + 1, error code 5 when x[0] < 0 */
        int CheckedInc(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                       void *stream, void *extra) {
          int64_t i, n = ms_numel(ndims[0], shapes[0]);
          const float *x = (const float *)params[0];
          (void)nparam; (void)dtypes; (void)stream; (void)extra;
          if (n > 0 && x[0] < 0) return 5;
          for (i = 0; i < n; ++i) ((float *)params[1])[i] = x[i] + 1;
          return MS_OK;
        }
    """))
    monkeypatch.setenv("MSCUSTOM_CACHE_DIR", str(tmp_path / "cache"))
    op = ops.Custom(f"{src}:CheckedInc", same, same, func_type="aot", name="inc")
    call, good = PATHS[path], ms.Tensor(np.zeros(3, np.float32))
    warm(op, good)
    with pytest.raises(RuntimeError, match=r"op 'inc': AOT kernel 'CheckedInc' .* returned error code 5"):
        call(op, ms.Tensor(-np.ones(3, np.float32)))
    np.testing.assert_array_equal(call(op, good).asnumpy(), [1, 1, 1])


# ---------------------------------------------------------------- disarming
@needs_c
def test_changing_an_op_or_the_target_disarms_its_signatures():
    op = make("jit")
    x = ms.Tensor(np.ones(3, np.float32))
    warm(op, x)
    assert len(op.op.plans.fast) == 1
    op.add_kernel(square_py, func_type="pyfunc")        # new kernels: new plans
    assert op.op.plans.fast == ()
    warm(op, x)
    assert len(op.op.plans.fast) == 1
    dispatch.clear_plans()                              # what a device-target change runs
    assert op.op.plans.fast == ()
    np.testing.assert_array_equal(op(x).asnumpy(), [1, 1, 1])


def test_without_the_extension_custom_calls_the_python_path():
    script = textwrap.dedent(f"""
        import numpy as np, mscustom as ms
        from mscustom import ops
        from mscustom._core import dispatch, fastcall
        assert not fastcall.AVAILABLE and ops.Custom.__call__ is dispatch.call_owner
        op = ops.Custom("{LIB}:CustomSquare", lambda s: s, lambda d: d, func_type="aot")
        x = ms.Tensor(np.arange(3, dtype=np.float32))
        for _ in range(3):
            assert (op(x).asnumpy() == [0, 1, 4]).all()
        assert all(p.cfast is None for p in op.op.plans.values())
        assert dispatch.call.__name__ == "call" and dispatch.call.__code__     # the Python function
        assert (ms.ops.mul(x, x).asnumpy() == [0, 1, 4]).all()
        print("ok")
    """)
    env = dict(os.environ, MSCUSTOM_FASTCALL="0", PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


# ------------------------------------------------------------------ graph-mode record keys
@pytest.mark.parametrize("impl", ["c", "python"])
def test_signature_key_is_the_graph_record_key_for_plain_tensors(impl):
    if impl == "c" and not fastcall.AVAILABLE:
        pytest.skip("the _fastcall extension is not built")
    key_of = fastcall.signature_key if impl == "c" else fastcall._signature_key
    a = ms.Tensor(np.zeros((2, 3), np.float32))
    b = ms.Tensor(np.zeros((), np.int64))
    key = key_of((a, b), ms.Tensor, "CPU")
    assert key == (((2, 3), np.dtype(np.float32), a._format), ((), np.dtype(np.int64), b._format), "CPU")
    assert hash(key) == hash(fastcall._signature_key((a, b), ms.Tensor, "CPU"))
    assert key_of((), ms.Tensor, "GPU") == ("GPU",)
    p = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="p")
    for args in ((a, p), (a, 1.0), (np.zeros(2),)):        # anything but plain Tensors: the general path
        assert key_of(args, ms.Tensor, "CPU") is None
    if impl == "c":
        with pytest.raises(TypeError, match="signature_key"):
            key_of([a], ms.Tensor, "CPU")


# ------------------------------------------------------------------ built-in calls (CoreCall)
CORE_PATHS = {"compiled": lambda: dispatch.call, "python": lambda: getattr(dispatch.call, "slow", dispatch.call)}


def _builtin(name, kernel, dtype_rule=None):
    from mscustom import extend
    op = extend.def_op(name, ("x", "y"), register=False)
    extend.def_kernel(op, kernel, "all", allocates=True)
    extend.def_infer(op, shape=lambda attrs, shapes: [list(shapes[0])],
                     dtype=dtype_rule or (lambda attrs, dtypes: [dtypes[0]]))
    return op


def test_make_test_compiles_builtin_calls():
    if os.environ.get("MSCUSTOM_REQUIRE_FASTCALL") != "1":
        pytest.skip("only `make test` (MSCUSTOM_REQUIRE_FASTCALL=1) promises the extension is built")
    assert type(dispatch.call).__name__ == "CoreCall"
    from mscustom.ops.math import elementwise as _elementwise
    assert _elementwise.call is dispatch.call          # what the op modules imported


@pytest.mark.parametrize("path", CORE_PATHS)
def test_builtin_calls_agree_on_both_paths(path):
    call = CORE_PATHS[path]()
    op = _builtin(f"core_add_{path}", lambda attrs, ins: ins[0] + ins[1])
    a = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = ms.Tensor(np.ones((2, 3), np.float32))
    for _ in range(3):                              # the first call plans, the next ones are warm
        out = call(op, (a, b), {})
        assert type(out) is ms.Tensor and out._node is None and out._format == a._format
        np.testing.assert_array_equal(out.asnumpy(), a.asnumpy() + 1)
    assert len(op.plans) == 1                       # one key for both paths
    unary = _builtin(f"core_neg_{path}", lambda attrs, ins: -ins[0])
    unary.num_inputs = 1
    for _ in range(2):
        np.testing.assert_array_equal(call(unary, (a,), {}).asnumpy(), -a.asnumpy())
    # attributes (hashable or not) and three inputs: built-in ops, same plans on both paths
    from mscustom.ops import get_op
    rsum, dense = get_op("reduce_sum"), get_op("dense")
    w, bias = ms.Tensor(np.ones((4, 3), np.float32)), ms.Tensor(np.arange(4, dtype=np.float32))
    for _ in range(2):
        for attrs in ({"axis": (0,), "keep_dims": False}, {"axis": (1,), "keep_dims": True}):
            want = a.asnumpy().sum(axis=attrs["axis"][0], keepdims=attrs["keep_dims"])
            np.testing.assert_array_equal(call(rsum, (a,), attrs).asnumpy(), want)
        np.testing.assert_array_equal(call(dense, (a, w, bias), {}).asnumpy(),
                                      a.asnumpy() @ w.asnumpy().T + bias.asnumpy())
        scaled = call(op, (a, b), {"k": [2.0]})        # an unhashable attribute: the plan key freezes it
        np.testing.assert_array_equal(scaled.asnumpy(), a.asnumpy() + 1)
    # the general path: lists, Parameters, non-Tensors
    p = ms.Parameter(ms.Tensor(np.ones((2, 3), np.float32)), name="p")
    np.testing.assert_array_equal(call(op, (a, p), {}).asnumpy(), a.asnumpy() + 1)
    np.testing.assert_array_equal(call(op, [a, b], {}).asnumpy(), a.asnumpy() + 1)
    with pytest.raises(TypeError, match="core_add"):
        call(op, (a, np.ones((2, 3))), {})


def _outcome(fn):
    try:
        out = fn()
    except Exception as exc:
        return type(exc), str(exc)
    return out.dtype, out.shape, out.asnumpy().tolist()


def test_builtin_call_results_are_checked_and_errors_pass_through_alike():
    state = {"result": None}

    def kernel(attrs, ins):
        if isinstance(state["result"], str):
            raise ZeroDivisionError("kernel failed")
        return ins[0] * 2 if state["result"] is None else state["result"]

    op = _builtin("core_odd", kernel)
    a = ms.Tensor(np.ones(3, np.float32))
    compiled, python = CORE_PATHS["compiled"](), CORE_PATHS["python"]()
    for result in (None, np.ones(3, np.float64), np.ones(4, np.float32), [1.0, 2.0, 3.0], "raise"):
        state["result"] = result
        got, want = _outcome(lambda: compiled(op, (a, a), {})), _outcome(lambda: python(op, (a, a), {}))
        assert got == want, result
    state["result"] = np.ones(4, np.float32)        # the wrong shape: refused naming the op
    with pytest.raises(Exception, match="core_odd"):
        compiled(op, (a, a), {})
    state["result"] = "raise"
    with pytest.raises(ZeroDivisionError, match="kernel failed"):
        compiled(op, (a, a), {})


@pytest.mark.parametrize("path", CORE_PATHS)
def test_builtin_calls_are_taped_and_captured_on_both_paths(path, monkeypatch):
    from mscustom.ops.math import elementwise as _elementwise
    monkeypatch.setattr(_elementwise, "call", CORE_PATHS[path]())
    x = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    g = ms.grad(lambda t: (_elementwise.mul(t, t) * 3.0).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), 6 * x.asnumpy())
    f = ms.jit(lambda t: _elementwise.mul(t, t) + t)
    for _ in range(3):
        np.testing.assert_array_equal(f(x).asnumpy(), x.asnumpy() ** 2 + x.asnumpy())
    assert f.stats["replayed"] == 2
