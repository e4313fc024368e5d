"""C-level tests of the example AOT kernels in aot_kernels/.

The kernels are called directly through cffi (ABI mode) with the
MindSpore-compatible AOT signature, without going through the mscustom
package, and compared against NumPy references.  The library is built with
``make kernels`` when it is missing or older than its sources.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

cffi = pytest.importorskip("cffi")

REPO = Path(__file__).resolve().parents[1]
KDIR = REPO / "aot_kernels"
LIB_PATH = KDIR / "build" / "libkernels.so"
CUDA_LIB_PATH = KDIR / "build" / "libkernels_cuda.so"

# Error codes from mscustom_aot.h.
MS_OK, MS_ERR_DTYPE, MS_ERR_SHAPE, MS_ERR_ARGS, MS_ERR_VALUE = 0, 1, 2, 3, 4
# Attribute kinds from mscustom_aot.h.
MS_ATTR_INT, MS_ATTR_FLOAT, MS_ATTR_BOOL, MS_ATTR_STR, MS_ATTR_INTS, MS_ATTR_FLOATS = range(6)

CPU_KERNELS = [
    "CustomAdd",
    "CustomMul",
    "CustomSquare",
    "CustomSquareGrad",
    "CustomBiasAddRelu",
    "CustomBiasAddReluGrad",
    "CustomSoftmaxCrossEntropy",
    "CustomSoftmaxCrossEntropyGrad",
    "CustomScale",
    "CustomAttrProbe",
    "CustomFail",
    "CustomSumRows",
]
INIT_FUNCS = ["CustomAddInit"]
CUDA_KERNELS = ["CustomSquareCuda", "CustomAddCuda"]

CDEF = """
typedef struct MsAttr {
    const char *name;
    int kind;
    int64_t i;
    double f;
    const char *s;
    const int64_t *ints;
    const double *floats;
    int64_t len;
} MsAttr;
typedef struct MsAttrs { int64_t count; const MsAttr *attrs; } MsAttrs;
"""
for _name in CPU_KERNELS + CUDA_KERNELS:
    CDEF += (
        f"int {_name}(int nparam, void **params, int *ndims, int64_t **shapes, "
        "const char **dtypes, void *stream, void *extra);\n"
    )
for _name in INIT_FUNCS:
    CDEF += f"int {_name}(int *ndims, int64_t **shapes, const char **dtypes, void *extra);\n"

ffi = cffi.FFI()
ffi.cdef(CDEF)

FLOATS = [np.float32, np.float64]


def _tol(dtype):
    return dict(rtol=1e-5, atol=1e-6) if np.dtype(dtype) == np.float32 else dict(rtol=1e-12, atol=1e-12)


def _library_is_stale() -> bool:
    if not LIB_PATH.exists():
        return True
    built = LIB_PATH.stat().st_mtime
    sources = [p for ext in ("*.c", "*.cc", "*.h") for p in KDIR.glob(ext)]
    return any(p.stat().st_mtime > built for p in sources)


@pytest.fixture(scope="module")
def lib():
    if _library_is_stale():
        if shutil.which("make") is None:
            pytest.skip("make is not available to build aot_kernels")
        proc = subprocess.run(["make", "kernels"], cwd=REPO, capture_output=True, text=True)
        if proc.returncode != 0 or not LIB_PATH.exists():
            pytest.fail(f"`make kernels` failed:\n{proc.stdout}\n{proc.stderr}")
    return ffi.dlopen(str(LIB_PATH))


# --------------------------------------------------------------------------
# Calling helpers
# --------------------------------------------------------------------------


class _Signature:
    """C arrays describing a list of tensors (kept alive by this object)."""

    def __init__(self, arrays, dtypes=None, shapes=None):
        n = len(arrays)
        self.n = n
        self._keep = []
        self.params = ffi.new("void *[]", max(n, 1))
        self.ndims = ffi.new("int[]", max(n, 1))
        self.shapes = ffi.new("int64_t *[]", max(n, 1))
        self.dtypes = ffi.new("const char *[]", max(n, 1))
        for k, a in enumerate(arrays):
            assert a.flags.c_contiguous
            shape = a.shape if shapes is None or shapes[k] is None else shapes[k]
            dtype = a.dtype.name if dtypes is None or dtypes[k] is None else dtypes[k]
            c_shape = ffi.new("int64_t[]", max(len(shape), 1))
            for d, s in enumerate(shape):
                c_shape[d] = s
            c_dtype = ffi.new("char[]", dtype.encode())
            self._keep += [c_shape, c_dtype]
            self.params[k] = ffi.cast("void *", a.ctypes.data)
            self.ndims[k] = len(shape)
            self.shapes[k] = c_shape
            self.dtypes[k] = c_dtype


def call(lib, name, arrays, *, extra=ffi.NULL, dtypes=None, shapes=None):
    """Call kernel `name` with params = arrays (inputs then outputs)."""
    sig = _Signature(arrays, dtypes, shapes)
    return getattr(lib, name)(sig.n, sig.params, sig.ndims, sig.shapes, sig.dtypes, ffi.NULL, extra)


def call_init(lib, name, arrays):
    sig = _Signature(arrays)
    return getattr(lib, name)(sig.ndims, sig.shapes, sig.dtypes, ffi.NULL)


class Attrs:
    """A real MsAttrs struct built from keyword arguments."""

    def __init__(self, **attrs):
        self._keep = []
        self.array = ffi.new("MsAttr[]", max(len(attrs), 1))
        for k, (name, value) in enumerate(attrs.items()):
            a = self.array[k]
            a.name = self._str(name)
            if isinstance(value, bool):
                a.kind, a.i = MS_ATTR_BOOL, int(value)
            elif isinstance(value, int):
                a.kind, a.i = MS_ATTR_INT, value
            elif isinstance(value, float):
                a.kind, a.f = MS_ATTR_FLOAT, value
            elif isinstance(value, str):
                a.kind, a.s = MS_ATTR_STR, self._str(value)
            elif isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
                buf = ffi.new("int64_t[]", list(value) or [0])
                self._keep.append(buf)
                a.kind, a.ints, a.len = MS_ATTR_INTS, buf, len(value)
            elif isinstance(value, (list, tuple)):
                buf = ffi.new("double[]", [float(v) for v in value] or [0.0])
                self._keep.append(buf)
                a.kind, a.floats, a.len = MS_ATTR_FLOATS, buf, len(value)
            else:  # pragma: no cover - test helper misuse
                raise TypeError(value)
        self.struct = ffi.new("MsAttrs *")
        self.struct.count = len(attrs)
        self.struct.attrs = self.array

    def _str(self, s):
        c = ffi.new("char[]", s.encode())
        self._keep.append(c)
        return c

    @property
    def ptr(self):
        return ffi.cast("void *", self.struct)


def rand(shape, dtype, seed=0, low=-2.0, high=2.0):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-100, 100, size=shape).astype(dtype)
    return rng.uniform(low, high, size=shape).astype(dtype)


# --------------------------------------------------------------------------
# Layout / library
# --------------------------------------------------------------------------


def test_msattr_layout():
    assert ffi.sizeof("MsAttr") == 64
    offsets = {f: ffi.offsetof("MsAttr", f) for f in ("name", "kind", "i", "f", "s", "ints", "floats", "len")}
    assert offsets == {"name": 0, "kind": 8, "i": 16, "f": 24, "s": 32, "ints": 40, "floats": 48, "len": 56}
    assert ffi.sizeof("MsAttrs") == 16
    assert ffi.offsetof("MsAttrs", "attrs") == 8


def test_all_symbols_exported(lib):
    for name in CPU_KERNELS + INIT_FUNCS:
        assert getattr(lib, name) is not None


# --------------------------------------------------------------------------
# Element-wise kernels
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS + [np.int32, np.int64])
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 5), ()])
@pytest.mark.parametrize("name,ref", [("CustomAdd", np.add), ("CustomMul", np.multiply)])
def test_binary(lib, name, ref, shape, dtype):
    a, b = rand(shape, dtype, 1), rand(shape, dtype, 2)
    out = np.full(shape, -7, dtype=dtype)
    assert call(lib, name, [a, b, out]) == MS_OK
    np.testing.assert_array_equal(out, ref(a, b))


@pytest.mark.parametrize("dtype", FLOATS)
def test_square_and_grad(lib, dtype):
    x, dout = rand((4, 6), dtype, 3), rand((4, 6), dtype, 4)
    out = np.empty_like(x)
    assert call(lib, "CustomSquare", [x, out]) == MS_OK
    np.testing.assert_allclose(out, x * x, **_tol(dtype))
    dx = np.empty_like(x)
    assert call(lib, "CustomSquareGrad", [x, dout, dx]) == MS_OK
    np.testing.assert_allclose(dx, 2 * x * dout, **_tol(dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_large_inputs_use_parallel_path(lib, dtype):
    n = 100_003  # above the OpenMP threshold, odd size
    a, b = rand(n, dtype, 5), rand(n, dtype, 6)
    out = np.empty_like(a)
    assert call(lib, "CustomAdd", [a, b, out]) == MS_OK
    np.testing.assert_array_equal(out, a + b)
    assert call(lib, "CustomSquare", [a, out]) == MS_OK
    np.testing.assert_array_equal(out, a * a)


# MS_PARALLEL_MIN_WORK in mscustom_aot.h: at most this many elements run serially.
PARALLEL_MIN_WORK = 32768


@pytest.mark.parametrize("n", [PARALLEL_MIN_WORK, PARALLEL_MIN_WORK + 1, 3 * PARALLEL_MIN_WORK + 7])
def test_serial_and_parallel_paths_agree_at_the_threshold(lib, n):
    """Both branches of MS_PARALLEL_FOR, for every element-wise kernel, against NumPy."""
    a, b = rand(n, np.float64, 20), rand(n, np.float64, 21)
    out = np.empty_like(a)
    assert call(lib, "CustomMul", [a, b, out]) == MS_OK
    np.testing.assert_array_equal(out, a * b)
    assert call(lib, "CustomSquareGrad", [a, b, out]) == MS_OK
    np.testing.assert_array_equal(out, 2 * a * b)
    ia, ib = rand(n, np.int32, 22), rand(n, np.int32, 23)
    iout = np.empty_like(ia)
    assert call(lib, "CustomAdd", [ia, ib, iout]) == MS_OK
    np.testing.assert_array_equal(iout, ia + ib)
    attrs = Attrs(scale=0.5, bias=3.0)
    assert call(lib, "CustomScale", [a, out], extra=attrs.ptr) == MS_OK
    np.testing.assert_allclose(out, a * 0.5 + 3.0, rtol=1e-15)


def test_bad_label_is_reported_from_a_parallel_region(lib):
    """The reduction(|:bad) of the softmax kernels, above the threshold."""
    n, c = 1000, 70                                  # 70000 elements: the parallel branch
    logits = rand((n, c), np.float32, 24)
    labels = np.random.default_rng(25).integers(0, c, size=n).astype(np.int64)
    labels[777] = c
    loss, probs = np.empty(n, np.float32), np.empty((n, c), np.float32)
    assert call(lib, "CustomSoftmaxCrossEntropy", [logits, labels, loss, probs]) == MS_ERR_VALUE
    assert np.isnan(loss[777]) and np.isfinite(np.delete(loss, 777)).all()
    dlogits = np.empty_like(probs)
    assert call(lib, "CustomSoftmaxCrossEntropyGrad", [probs, labels, loss, dlogits]) == MS_ERR_VALUE
    labels[777] = 0
    assert call(lib, "CustomSoftmaxCrossEntropyGrad", [probs, labels, loss, dlogits]) == MS_OK


def test_empty_tensors(lib):
    a = np.empty((0, 3), np.float32)
    out = np.empty((0, 3), np.float32)
    assert call(lib, "CustomAdd", [a, a, out]) == MS_OK
    assert call(lib, "CustomSquare", [a, out]) == MS_OK


def test_dtype_mismatch(lib):
    a = rand((3,), np.float32)
    b = rand((3,), np.float64)
    out = np.empty(3, np.float32)
    assert call(lib, "CustomAdd", [a, b, out]) == MS_ERR_DTYPE
    # same dtype everywhere but one the kernel does not support
    h = np.ones(3, np.float16)
    assert call(lib, "CustomSquare", [h, h.copy()]) == MS_ERR_DTYPE
    # output dtype differs from the inputs
    assert call(lib, "CustomMul", [a, a, np.empty(3, np.float64)]) == MS_ERR_DTYPE


def test_shape_mismatch_and_nparam(lib):
    a, b = rand((3,), np.float32), rand((4,), np.float32)
    assert call(lib, "CustomAdd", [a, b, np.empty(3, np.float32)]) == MS_ERR_SHAPE
    assert call(lib, "CustomAdd", [a, a, np.empty((3, 1), np.float32)]) == MS_ERR_SHAPE
    assert call(lib, "CustomAdd", [a, a]) == MS_ERR_ARGS
    assert call(lib, "CustomSquare", [a, a.copy(), a.copy()]) == MS_ERR_ARGS


def test_add_init(lib):
    a = rand((2, 3), np.float32)
    assert call_init(lib, "CustomAddInit", [a, a]) == MS_OK
    assert call_init(lib, "CustomAddInit", [a, a, np.empty_like(a)]) == MS_OK
    assert call_init(lib, "CustomAddInit", [a, rand((3, 2), np.float32)]) != MS_OK
    assert call_init(lib, "CustomAddInit", [a, rand((2, 3, 1), np.float32)]) != MS_OK
    assert call_init(lib, "CustomAddInit", [a, rand((2, 3), np.float64)]) != MS_OK


# --------------------------------------------------------------------------
# BiasAddRelu
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 5), (2, 3, 5), (5,), (300, 257)])
def test_bias_add_relu(lib, shape, dtype):
    x = rand(shape, dtype, 7)
    bias = rand(shape[-1:], dtype, 8, -0.5, 0.5)
    out = np.empty_like(x)
    assert call(lib, "CustomBiasAddRelu", [x, bias, out]) == MS_OK
    np.testing.assert_allclose(out, np.maximum(x + bias, 0), **_tol(dtype))

    dout = rand(shape, dtype, 9)
    dx = np.empty_like(x)
    dbias = np.full(shape[-1:], np.nan, dtype=dtype)
    assert call(lib, "CustomBiasAddReluGrad", [dout, out, dx, dbias]) == MS_OK
    ref_dx = dout * (out > 0)
    np.testing.assert_allclose(dx, ref_dx, **_tol(dtype))
    ref_db = ref_dx.astype(np.float64).reshape(-1, shape[-1]).sum(axis=0)
    np.testing.assert_allclose(dbias, ref_db, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)


def test_bias_add_relu_errors(lib):
    x = rand((4, 5), np.float32)
    out = np.empty_like(x)
    assert call(lib, "CustomBiasAddRelu", [x, rand((4,), np.float32), out]) == MS_ERR_SHAPE
    assert call(lib, "CustomBiasAddRelu", [x, rand((5,), np.float64), out]) == MS_ERR_DTYPE
    dbias = np.empty(4, np.float32)
    assert call(lib, "CustomBiasAddReluGrad", [x, out, np.empty_like(x), dbias]) == MS_ERR_SHAPE


# --------------------------------------------------------------------------
# Softmax cross-entropy
# --------------------------------------------------------------------------


def softmax_ce_ref(logits, labels):
    x = logits.astype(np.float64)
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    s = e.sum(axis=-1, keepdims=True)
    probs = e / s
    lse = (np.log(s) + m)[..., 0]
    picked = np.take_along_axis(x, labels[..., None].astype(np.int64), axis=-1)[..., 0]
    return lse - picked, probs


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n,c", [(6, 4), (1, 1), (513, 70)])
def test_softmax_cross_entropy(lib, n, c, dtype, label_dtype):
    logits = rand((n, c), dtype, 10, -5, 5)
    labels = np.random.default_rng(11).integers(0, c, size=n).astype(label_dtype)
    loss = np.empty(n, dtype)
    probs = np.empty((n, c), dtype)
    assert call(lib, "CustomSoftmaxCrossEntropy", [logits, labels, loss, probs]) == MS_OK
    ref_loss, ref_probs = softmax_ce_ref(logits, labels)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(loss, ref_loss, **tol)
    np.testing.assert_allclose(probs, ref_probs, **tol)

    dloss = rand((n,), dtype, 12)
    dlogits = np.empty((n, c), dtype)
    assert call(lib, "CustomSoftmaxCrossEntropyGrad", [probs, labels, dloss, dlogits]) == MS_OK
    onehot = np.eye(c, dtype=np.float64)[labels]
    np.testing.assert_allclose(dlogits, (probs.astype(np.float64) - onehot) * dloss[:, None], **tol)


@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax_cross_entropy_is_stable(lib, dtype):
    logits = np.array([[1000.0, 0.0, -1000.0], [-1e4, -1e4 + 1, -1e4 + 2]], dtype)
    labels = np.array([2, 0], np.int32)
    loss = np.empty(2, dtype)
    probs = np.empty((2, 3), dtype)
    assert call(lib, "CustomSoftmaxCrossEntropy", [logits, labels, loss, probs]) == MS_OK
    assert np.all(np.isfinite(loss)) and np.all(np.isfinite(probs))
    ref_loss, ref_probs = softmax_ce_ref(logits, labels)
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-5)
    np.testing.assert_allclose(probs, ref_probs, rtol=1e-5, atol=1e-30)


def test_softmax_cross_entropy_leading_dims(lib):
    logits = rand((2, 3, 4), np.float64, 13)
    labels = np.random.default_rng(14).integers(0, 4, size=(2, 3)).astype(np.int64)
    loss = np.empty((2, 3))
    probs = np.empty((2, 3, 4))
    assert call(lib, "CustomSoftmaxCrossEntropy", [logits, labels, loss, probs]) == MS_OK
    ref_loss, ref_probs = softmax_ce_ref(logits, labels)
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-12)
    np.testing.assert_allclose(probs, ref_probs, rtol=1e-12)


def test_softmax_cross_entropy_errors(lib):
    logits = rand((3, 4), np.float32)
    loss, probs = np.empty(3, np.float32), np.empty((3, 4), np.float32)
    bad_labels = np.array([0, 4, 1], np.int32)
    assert call(lib, "CustomSoftmaxCrossEntropy", [logits, bad_labels, loss, probs]) == MS_ERR_VALUE
    neg_labels = np.array([0, -1, 1], np.int64)
    dl = np.empty((3, 4), np.float32)
    assert call(lib, "CustomSoftmaxCrossEntropyGrad", [probs, neg_labels, loss, dl]) == MS_ERR_VALUE
    float_labels = np.zeros(3, np.float32)
    assert call(lib, "CustomSoftmaxCrossEntropy", [logits, float_labels, loss, probs]) == MS_ERR_DTYPE
    labels = np.zeros(2, np.int32)
    assert call(lib, "CustomSoftmaxCrossEntropy", [logits, labels, loss, probs]) == MS_ERR_SHAPE
    labels = np.zeros(3, np.int32)
    assert call(lib, "CustomSoftmaxCrossEntropy", [logits, labels, np.empty(3, np.float64), probs]) == MS_ERR_DTYPE


# --------------------------------------------------------------------------
# Attributes
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
def test_scale_with_attributes(lib, dtype):
    x = rand((3, 5), dtype, 15)
    out = np.empty_like(x)
    attrs = Attrs(scale=2.5, bias=-1.0)
    assert call(lib, "CustomScale", [x, out], extra=attrs.ptr) == MS_OK
    np.testing.assert_allclose(out, x * dtype(2.5) + dtype(-1.0), **_tol(dtype))


def test_scale_defaults_and_conversions(lib):
    x = rand((8,), np.float64, 16)
    out = np.empty_like(x)
    assert call(lib, "CustomScale", [x, out]) == MS_OK  # extra = NULL
    np.testing.assert_array_equal(out, x)
    assert call(lib, "CustomScale", [x, out], extra=Attrs().ptr) == MS_OK  # no attributes
    np.testing.assert_array_equal(out, x)
    assert call(lib, "CustomScale", [x, out], extra=Attrs(bias=0.5).ptr) == MS_OK
    np.testing.assert_allclose(out, x + 0.5)
    # an INT attribute is accepted where a float is expected; unrelated ones are ignored
    attrs = Attrs(other="x", scale=3, axes=[1, 2])
    assert call(lib, "CustomScale", [x, out], extra=attrs.ptr) == MS_OK
    np.testing.assert_allclose(out, 3 * x)


def test_attr_probe(lib):
    x = np.zeros(1, np.float32)
    out = np.full(12, np.nan)
    attrs = Attrs(n=42, alpha=0.25, flag=True, axes=[0, -1, 5], mode="mean", weights=[0.5, 1.5, 2.0])
    assert call(lib, "CustomAttrProbe", [x, out], extra=attrs.ptr) == MS_OK
    np.testing.assert_array_equal(out, [42, 0.25, 1, 3, 4, 4, 1, 3, 4.0, 6, 0, 0])

    assert call(lib, "CustomAttrProbe", [x, out]) == MS_OK
    np.testing.assert_array_equal(out, [-1, -1, -1, -1, 0, -1, 0, -1, 0, -1, 0, 0])

    attrs = Attrs(flag=False, axes=[], mode="sum", alpha=2)
    assert call(lib, "CustomAttrProbe", [x, out], extra=attrs.ptr) == MS_OK
    np.testing.assert_array_equal(out, [-1, 2, 0, 0, 0, 3, 0, -1, 0, 4, 0, 0])

    assert call(lib, "CustomAttrProbe", [x, np.zeros(5)]) == MS_ERR_SHAPE
    assert call(lib, "CustomAttrProbe", [x, np.zeros(12, np.float32)]) == MS_ERR_DTYPE


def test_fail_returns_its_code(lib):
    x = np.ones(3, np.float32)
    assert call(lib, "CustomFail", [x, np.empty_like(x)]) == 7
    assert call(lib, "CustomFail", []) == 7


# --------------------------------------------------------------------------
# C++ reduction
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS + [np.int32, np.int64])
@pytest.mark.parametrize("shape", [(4, 7), (2, 3, 5), (9,), (600, 200)])
def test_sum_rows(lib, shape, dtype):
    x = rand(shape, dtype, 17)
    out = np.empty(shape[:-1], dtype)
    assert call(lib, "CustomSumRows", [x, out]) == MS_OK
    ref = x.astype(np.float64 if np.issubdtype(dtype, np.floating) else np.int64).sum(axis=-1)
    np.testing.assert_allclose(out, ref.astype(dtype), **_tol(dtype) if np.issubdtype(dtype, np.floating) else {})
    keep = np.empty(shape[:-1] + (1,), dtype)
    assert call(lib, "CustomSumRows", [x, keep]) == MS_OK
    np.testing.assert_array_equal(keep[..., 0], out)


def test_sum_rows_errors(lib):
    x = rand((4, 7), np.float32)
    assert call(lib, "CustomSumRows", [x, np.empty(7, np.float32)]) == MS_ERR_SHAPE
    assert call(lib, "CustomSumRows", [x, np.empty(4, np.float64)]) == MS_ERR_DTYPE
    assert call(lib, "CustomSumRows", [x, np.empty((4, 2), np.float32)]) == MS_ERR_SHAPE


# --------------------------------------------------------------------------
# Property checks
# --------------------------------------------------------------------------


def test_random_shapes_property(lib):
    pytest.importorskip("hypothesis")
    from hypothesis import given, settings, strategies as st

    @settings(max_examples=40, deadline=None)
    @given(
        shape=st.lists(st.integers(1, 6), min_size=1, max_size=4).map(tuple),
        dtype=st.sampled_from(FLOATS),
        seed=st.integers(0, 2**31 - 1),
    )
    def check(shape, dtype, seed):
        x = rand(shape, dtype, seed)
        bias = rand(shape[-1:], dtype, seed + 1)
        out = np.empty_like(x)
        assert call(lib, "CustomBiasAddRelu", [x, bias, out]) == MS_OK
        np.testing.assert_allclose(out, np.maximum(x + bias, 0), **_tol(dtype))
        rows = np.empty(shape[:-1], dtype)
        assert call(lib, "CustomSumRows", [x, rows]) == MS_OK
        np.testing.assert_allclose(rows, x.astype(np.float64).sum(-1), rtol=1e-5, atol=1e-5)

    check()


# --------------------------------------------------------------------------
# CUDA library (built only when nvcc exists; run only with a GPU)
# --------------------------------------------------------------------------


def _cuda_lib():
    if not CUDA_LIB_PATH.exists():
        pytest.skip("libkernels_cuda.so was not built (nvcc not found)")
    try:
        return ffi.dlopen(str(CUDA_LIB_PATH))
    except OSError as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"cannot load libkernels_cuda.so: {exc}")


def test_cuda_library_exports(lib):
    cuda_lib = _cuda_lib()
    for name in CUDA_KERNELS:
        assert getattr(cuda_lib, name) is not None


def _stream_address(stream) -> int:
    handle = stream.handle
    value = getattr(handle, "value", None)  # ctypes handle
    if value is None:
        value = int(handle)  # cuda-python CUstream
    return value or 0


def test_cuda_kernels_on_device(lib):
    cuda_lib = _cuda_lib()
    try:
        from numba import cuda
    except Exception:  # pragma: no cover - numba-cuda missing
        pytest.skip("numba.cuda is not available")
    try:
        if not cuda.is_available():
            pytest.skip("no CUDA GPU available")
    except Exception:  # pragma: no cover
        pytest.skip("no CUDA GPU available")

    for dtype in FLOATS:
        n = 100_001
        a, b = rand(n, dtype, 20), rand(n, dtype, 21)
        stream = cuda.stream()
        da, db = cuda.to_device(a, stream=stream), cuda.to_device(b, stream=stream)
        dout = cuda.device_array_like(a, stream=stream)
        stream.synchronize()

        def dev_call(name, arrays):
            sig = _Signature([a] * len(arrays))  # host shapes/dtypes
            for k, d in enumerate(arrays):
                sig.params[k] = ffi.cast("void *", d.__cuda_array_interface__["data"][0])
            handle = ffi.cast("void *", _stream_address(stream))
            return getattr(cuda_lib, name)(sig.n, sig.params, sig.ndims, sig.shapes, sig.dtypes, handle, ffi.NULL)

        assert dev_call("CustomSquareCuda", [da, dout]) == MS_OK
        stream.synchronize()
        np.testing.assert_array_equal(dout.copy_to_host(), a * a)
        assert dev_call("CustomAddCuda", [da, db, dout]) == MS_OK
        stream.synchronize()
        np.testing.assert_array_equal(dout.copy_to_host(), a + b)
