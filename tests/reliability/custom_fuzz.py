"""A fuzz harness for ops.Custom: generated constructions and calls, each classified.

Every case builds a Custom op (func_type, func, out_shape, out_dtype, reg info,
options, all drawn from good and bad values) and calls it (arguments of every
Python and NumPy kind, odd strides, attributes). The outcome is one of:

- ``ok``: the op ran and its result equals the NumPy oracle;
- ``clear``: a TypeError/ValueError/IndexError/RuntimeError whose message names
  the op and says what was expected;
- ``unclear``: any other exception, or one that does not name the op;
- ``wrong``: the op ran but its result differs from the oracle;
- ``crash`` / ``hang``: for the cases run in a child process (kernels that
  write out of bounds), the child died on a signal or missed its deadline.

``tests/reliability/test_custom_fuzz.py`` asserts zero unclear/wrong/crash/hang
on a sample; ``bench/reliability.py`` runs thousands of cases and prints counts.
"""

import os
import subprocess
import sys
import textwrap
from collections import Counter

import numpy as np
from hypothesis import strategies as st

import mscustom as ms
from mscustom import ops
from mscustom.ops import CustomRegOp, DataType

OP = "fuzzed_op"
CLEAR_TYPES = (TypeError, ValueError, IndexError, RuntimeError)
EXPECTS = ("expect", "must", "takes", "not supported", "not available", "only", "needs", "cannot", "unknown",
           "does not fit", "is none", "is a list", "is a tuple", "is a complex", "is not", "no kernel",
           "failed to compile", "has no", "declares", "is required", "out of bounds", "wrote outside",
           "supports", "inference says")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.path.join(ROOT, "aot_kernels", "build", "libkernels.so")


# ---------------------------------------------------------------- the functions under test
def double(x):
    return x * 2


def double_kernel(x, out):
    for i in range(x.size):
        out.flat[i] = x.flat[i] * 2


_JIT = []


def jit_double():
    """One njit dispatcher shared by every jit case, so each signature compiles once per process."""
    if not _JIT:
        import numba
        _JIT.append(numba.njit(cache=True)(double_kernel))
    return _JIT[0]


def same(*args):
    return args[0]


# ---------------------------------------------------------------- strategies
GOOD_DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_, np.uint8, np.int8, np.float16]
ODD_DTYPES = [np.complex64, object, "datetime64[s]", "U3"]

garbage = st.sampled_from([None, -5, 3.5, "abc", b"x", [1.5], [-3], ["a"], {"a": 1}, object(), (1, "x"),
                           float("nan"), 10 ** 30, [[1], 2], ()])
shape_rules = st.one_of(
    st.just(("same", same)),
    st.just(("none", None)),
    st.builds(lambda s: ("const", list(s)), st.lists(st.integers(0, 4), max_size=3)),
    st.builds(lambda g: ("garbage", g), garbage),
    st.builds(lambda g: ("fn_garbage", lambda *a: g), garbage),
    st.just(("fn_raises", lambda *a: 1 / 0)),
    st.just(("fn_huge", lambda *a: [1 << 40, 1 << 40])),
)
dtype_rules = st.one_of(
    st.just(("same", same)),
    st.just(("none", None)),
    st.builds(lambda d: ("const", d), st.sampled_from([ms.float32, ms.float64, ms.int32, "float32", np.float64])),
    st.builds(lambda g: ("garbage", g), st.sampled_from(["floaty", 3, object(), [ms.float32, "x"], b"f"])),
    st.builds(lambda g: ("fn_garbage", lambda *a: g), st.sampled_from(["floaty", None, 7, (ms.float32, 1)])),
)


def _info(mutate):
    info = (CustomRegOp().input(0, "x").output(0, "y")
            .attr("k", "optional", "int", default_value=1)
            .dtype_format(DataType.F32_Default, DataType.F32_Default)
            .dtype_format(DataType.F64_Default, DataType.F64_Default).target("CPU").get_op_info())
    return mutate(info)


def _set(key, value):
    def mutate(info):
        info[key] = value
        return info
    return mutate


reg_infos = st.one_of(
    st.just(("none", None)),
    st.just(("good", _info(lambda i: i))),
    st.builds(lambda v: ("bad_target", _info(_set("target", v))), st.sampled_from(["TPU", 3, None, ""])),
    st.builds(lambda v: ("bad_rows", _info(_set("dtype_format", v))),
              st.sampled_from([[("float33", "x")], [[("float32", "")]], "rows", [[1, 2]], [None]])),
    st.builds(lambda v: ("bad_attr", _info(_set("attr", v))),
              st.sampled_from([[{"name": 3}], [{"name": "k", "type": 5}], ["k"], 7,
                               [{"name": "k", "type": "int", "value": "nope"}],
                               [{"name": "k", "type": "int", "paramType": "sometimes"}]])),
    st.builds(lambda v: ("bad_inputs", _info(_set("inputs", v))),
              st.sampled_from([[{"index": "0"}], 5, [[1]], [{"index": -1, "name": "x"}]])),
    st.builds(lambda g: ("garbage", g), st.sampled_from([42, "{not json", [3], b"x", object()])),
)
func_types = st.sampled_from(["pyfunc", "pyfunc", "pyfunc", "jit", "jit", "aot", "hybrid", "akg", "julia",
                              "tbe", "aicpu", "cuda", None, 3, "PYFUNC"])
aot_funcs = st.sampled_from([f"{LIB}:CustomSquare", f"{LIB}:NoSuchSymbol", "/no/such/lib.so:F", "lib.so",
                             ":F", f"{LIB}:", "/etc/hostname:F", 3, None])


@st.composite
def arrays(draw):
    dtype = np.dtype(draw(st.sampled_from(GOOD_DTYPES + ODD_DTYPES[:1] if draw(st.booleans()) else GOOD_DTYPES)))
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    n = int(np.prod(shape, dtype=np.int64))
    base = (np.arange(n * 2) % 7 - 3).astype(dtype) if dtype.kind != "O" else np.arange(n * 2).astype(object)
    a = base[::2].reshape(shape) if n else np.zeros(shape, dtype)
    stride = draw(st.sampled_from(["c", "t", "neg"]))
    if stride == "t" and a.ndim >= 2:
        a = a.T
    elif stride == "neg" and a.ndim >= 1:
        a = a[::-1]
    return a


@st.composite
def call_args(draw):
    x = draw(arrays())
    first = draw(st.sampled_from(["tensor", "tensor", "tensor", "array", "raw"]))
    if first == "tensor":
        try:
            arg0 = ms.Tensor(x)
        except (TypeError, ValueError):
            arg0 = x
    else:
        arg0 = x if first == "array" else draw(garbage)
    extra = draw(st.lists(st.one_of(garbage, st.sampled_from([1, 2.5, True, np.float32(2), np.int64(3), 1j,
                                                               float("inf"), np.datetime64(1, "s")])),
                          max_size=draw(st.sampled_from([0, 0, 1, 2]))))
    kwargs = draw(st.sampled_from([{}, {}, {"k": 2}, {"k": float("inf")}, {"k": 10 ** 30}, {"k": None},
                                   {"k": "3"}, {"nope": 1}, {"k": [1, 2]}]))
    return x, [arg0] + extra, kwargs


@st.composite
def cases(draw):
    if draw(st.booleans()):                  # a well-made op: the call's arguments are what is fuzzed
        func_type = draw(st.sampled_from(["pyfunc", "jit"]))
        return dict(func_type=func_type, func="double" if func_type == "pyfunc" else "jit",
                    shape=draw(st.sampled_from([("same", same), ("none", None)])) if func_type == "pyfunc"
                    else ("same", same), dtype=draw(st.sampled_from([("same", same), ("none", None)])),
                    reg=draw(st.sampled_from([("none", None), ("good", _info(lambda i: i))])),
                    options={}, call=draw(call_args()))
    func_type = draw(func_types)
    if func_type == "aot":
        func = draw(aot_funcs)
    elif func_type == "jit":
        func = draw(st.sampled_from(["jit", "jit", "garbage"]))
    else:
        func = draw(st.sampled_from(["double", "double", "double", "garbage"]))
    return dict(func_type=func_type, func=func, shape=draw(shape_rules), dtype=draw(dtype_rules),
                reg=draw(reg_infos), options=draw(st.sampled_from([{}, {}, {"launch": (0, 1)}, {"bogus": 1}])),
                call=draw(call_args()))


# ---------------------------------------------------------------- running and classifying
def _resolve_func(case):
    f = case["func"]
    if f == "double":
        return double
    if f == "jit":
        return jit_double()
    if f == "garbage":
        return 12345
    return f


def is_clear(exc):
    text = str(exc).lower()
    return isinstance(exc, CLEAR_TYPES) and f"'{OP}'" in str(exc) and any(w in text for w in EXPECTS)


def expected(x, res_dtype):
    with np.errstate(all="ignore"):
        return (np.asarray(x) * 2).astype(res_dtype)


def run_case(case):
    """``(class, detail)`` for one case, run in this process."""
    x, args, kwargs = case["call"]
    try:
        op = ops.Custom(_resolve_func(case), out_shape=case["shape"][1], out_dtype=case["dtype"][1],
                        func_type=case["func_type"], reg_info=case["reg"][1], name=OP, **case["options"])
        res = op(*args, **kwargs)
    except Exception as exc:                  # noqa: BLE001  (classifying every outcome is the point)
        return ("clear" if is_clear(exc) else "unclear"), f"{type(exc).__name__}: {exc}"
    if isinstance(res, (tuple, list)):
        res = res[0]
    got = res.asnumpy()
    if not case["func_type"] == "aot" or "CustomSquare" not in str(case["func"]):
        want = expected(x, got.dtype)
    else:
        with np.errstate(all="ignore"):
            want = (np.asarray(x) * np.asarray(x)).astype(got.dtype)
    if got.shape != want.shape or not np.allclose(got.astype(np.float64), want.astype(np.float64), equal_nan=True):
        return "wrong", f"got {got!r}, expected {want!r}"
    return "ok", ""


# ---------------------------------------------------------------- child-process cases (out-of-bounds writes)
OOB_KERNELS = {
    "row_loop_2d": ("def k(x, out):\n    for i in range(x.size):\n        out[i] = x.flat[i]\n", (3, 4), None),
    "too_small_out": ("def k(x, out):\n    for i in range(x.size):\n        out[i] = x[i]\n", (16,), [2]),
    "negative_index": ("def k(x, out):\n    for i in range(x.size):\n        out[i - 8] = x[i]\n", (4,), None),
    "write_past": ("def k(x, out):\n    for i in range(x.size + 64):\n        out[i] = 1.0\n", (8,), None),
}

CHILD = textwrap.dedent("""
    import os, sys
    os.environ["MSCUSTOM_DEBUG"] = "1"
    import numpy as np, mscustom as ms
    from mscustom import ops
    sys.path.insert(0, {root!r})
    from tests.reliability.custom_fuzz import is_clear, OP
    ns = {{}}
    exec({src!r}, ns)
    out_shape = {out_shape!r}
    op = ops.Custom(ns["k"], out_shape=(lambda s: s) if out_shape is None else out_shape,
                    out_dtype=lambda d: d, func_type="jit", name=OP)
    try:
        op(ms.Tensor(np.ones({shape!r})))
        print("CLASS ok")
    except Exception as exc:
        print("CLASS", "clear" if is_clear(exc) else "unclear", type(exc).__name__, exc)
""")


def run_child_case(name, deadline=60):
    """Run an out-of-bounds kernel in debug mode in a child process; classify crash / hang too."""
    src, shape, out_shape = OOB_KERNELS[name]
    code = CHILD.format(root=ROOT, src=src, shape=shape, out_shape=out_shape)
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=deadline)
    except subprocess.TimeoutExpired:
        return "hang", f"{name}: no answer in {deadline} s"
    if proc.returncode < 0:
        return "crash", f"{name}: killed by signal {-proc.returncode}"
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("CLASS ")), None)
    if line is None:
        return "crash", f"{name}: exit {proc.returncode}: {proc.stderr[-300:]}"
    cls = line.split()[1]
    return ("wrong" if cls == "ok" else cls), f"{name}: {line}"


def summarize(results):
    return Counter(cls for cls, _ in results)
