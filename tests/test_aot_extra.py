"""MindSpore's C++ ``extra`` ABI for aot kernels (custom_aot_extra.h): attributes, workspace, Init,
InferShape, kernel data; the kernels are tests/data/aot_extra_kernels.cc, built on demand."""

import gc
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import mscustom as ms
from mscustom.ops import Custom, CustomRegOp
from mscustom.ops.custom import aot
from mscustom.ops.custom.aot import build, extra as aot_extra
from mscustom._core.kernel import Signature

SRC = Path(__file__).resolve().parent / "data" / "aot_extra_kernels.cc"
pytestmark = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("c++") is None,
                                reason="needs a C++ compiler")


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    # one cache for the module's tests: the kernels and the shim are compiled once
    monkeypatch.setenv("MSCUSTOM_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "aot-extra-cache"))


def k(symbol):
    return f"{SRC}:{symbol}"


def _affine_info(**values):
    info = CustomRegOp().input(0, "x").input(1, "y").output(0, "out")
    info.attr("scale", "optional", "float")          # no value: bound to the first scalar argument
    for name, (vtype, value) in values.items():
        info.attr(name, "required", vtype, value=value)
    return info


AFFINE_ATTRS = dict(offsets=("listInt", [1, 2]), weights=("listFloat", [0.25, 0.5]), tag=("str", "ab"),
                    bias=("int", 7), flag=("bool", True))
AFFINE_SHIFT = 1 + 2 + 0.25 + 0.5 + 200 + 7 + 1000


def test_library_built_against_the_header_gets_an_aot_extra():
    opened = aot.bind_signature.__globals__["open_kernel"](k("CustomAffine"), "probe")
    assert opened.cxx_abi == 0                      # built as MindSpore builds: _GLIBCXX_USE_CXX11_ABI=0
    assert opened.init is not None and opened.infer_addr is None


def test_attributes_of_several_types_workspace_and_init(rng):
    op = Custom(k("CustomAffine"), lambda x, y, s=None: x, lambda x, y, s=None: x, func_type="aot",
                reg_info=_affine_info(**AFFINE_ATTRS))
    x = rng.standard_normal((3, 4)).astype(np.float32)
    y = rng.standard_normal((3, 4)).astype(np.float32)
    out = op(ms.Tensor(x), ms.Tensor(y), 0.7).asnumpy()      # 0.7 is the attribute "scale", not a param
    np.testing.assert_allclose(out, x + 0.7 * y + AFFINE_SHIFT, rtol=1e-6)
    out = op(ms.Tensor(x), ms.Tensor(y), 2.0).asnumpy()      # another value: another signature, another Init
    np.testing.assert_allclose(out, x + 2.0 * y + AFFINE_SHIFT, rtol=1e-6)
    out = op(ms.Tensor(x), ms.Tensor(y), scale=-1.0).asnumpy()
    np.testing.assert_allclose(out, x - y + AFFINE_SHIFT, rtol=1e-6)


def test_two_dimensional_attributes_reach_the_kernel_through_the_kind(rng):
    specs = [SimpleNamespace(name=n, value_type=t, default_value=None) for n, t in
             [("scale", "float"), ("offsets", "all"), ("weights", "all"), ("tag", "all"), ("bias", "all"),
              ("flag", "all"), ("grid", "all"), ("table", "all"), ("repeat", "all")]]
    attrs = {"scale": 1.5, "offsets": (1, 2), "weights": (0.25, 0.5), "tag": "ab", "bias": 7, "flag": True,
             "grid": ((1, 2), (3,)), "table": ((1.0, 2.0), (4.0,)), "repeat": 2}
    x = rng.standard_normal(5).astype(np.float32)
    y = rng.standard_normal(5).astype(np.float32)
    sig = Signature([[5], [5]], [x.dtype, y.dtype], ["DefaultFormat"] * 2, [(5,)], [np.dtype(np.float32)], attrs)
    run = aot.KIND.bind(k("CustomAffine"), op_name="affine", target="CPU", attr_specs=specs, n_out=1,
                        options={}, sig=sig)
    out = np.empty(5, np.float32)
    run(attrs, [x, y], ["write"], [out])
    shift = AFFINE_SHIFT + 10 * (1 + 2 + 3) + 0.5 * (1 + 2 + 4)
    np.testing.assert_allclose(out, x + 1.5 * y + 2 * shift, rtol=1e-6)


def test_kernel_data_is_destructed_when_the_op_is_dropped(rng):
    import ctypes
    op = Custom(k("CustomAffine"), lambda x, y, s=None: x, lambda x, y, s=None: x, func_type="aot",
                reg_info=_affine_info(**AFFINE_ATTRS))
    lib = ctypes.CDLL(str(aot.KIND._open(k("CustomAffine"), "affine").path))
    lib.DestroyedKernelData.restype = ctypes.c_int64
    x = ms.Tensor(np.ones(4, np.float32))
    op(x, x, 1.0)
    op(x, x, 2.0)                                      # two signatures, two kernel data objects
    gc.collect()                                       # ops of earlier tests are gone first
    before = lib.DestroyedKernelData()
    op(x, x, 1.0)
    assert lib.DestroyedKernelData() == before         # alive while the op is
    del op
    gc.collect()
    assert lib.DestroyedKernelData() == before + 2


def test_init_rejecting_the_signature_names_the_op_and_code():
    op = Custom(k("CustomAffine"), lambda x, y, s=None: x, lambda x, y, s=None: x, func_type="aot", name="affine",
                reg_info=_affine_info(**AFFINE_ATTRS))
    x = ms.Tensor(np.ones(4, np.float64))
    with pytest.raises(RuntimeError, match=r"op 'affine': AOT init function 'CustomAffineInit' rejected the "
                                           r"signature \(float64\[4\], float64\[4\], float64\[4\]\) with error code 11$"):
        op(x, x, 1.0)


def test_missing_attribute_read_by_init_is_an_error_naming_it():
    op = Custom(k("CustomAffine"), lambda x, y, s=None: x, lambda x, y, s=None: x, func_type="aot", name="affine",
                reg_info=_affine_info(**{n: v for n, v in AFFINE_ATTRS.items() if n != "bias"}))
    x = ms.Tensor(np.ones(4, np.float32))
    with pytest.raises(TypeError, match=r"op 'affine': AOT init function 'CustomAffineInit' read an attribute "
                                        r"it cannot have: attribute 'bias' is not set \(asked for int64\)"):
        op(x, x, 1.0)


def test_attribute_read_as_the_wrong_type_is_an_error():
    info = CustomRegOp().input(0, "x").output(0, "y").attr("scale", "required", "float", value=1.0)
    op = Custom(k("CustomWrongType"), (1,), ms.float32, func_type="aot", name="wrong", reg_info=info)
    with pytest.raises(TypeError, match=r"op 'wrong': AOT kernel 'CustomWrongType' read an attribute it "
                                        r"cannot have: attribute 'scale' holds a float, the kernel asked for a string"):
        op(ms.Tensor(np.ones(1, np.float32)))


def test_infer_shape_gives_the_output_shape_when_out_shape_is_none(rng):
    outer = Custom(k("CustomOuter"), None, ms.float64, func_type="aot")
    x, y = rng.standard_normal(3), rng.standard_normal(5)
    np.testing.assert_allclose(outer(ms.Tensor(x), ms.Tensor(y)).asnumpy(), np.outer(x, y))
    x2 = rng.standard_normal(2)                        # another signature: InferShape runs again
    np.testing.assert_allclose(outer(ms.Tensor(x2), ms.Tensor(y)).asnumpy(), np.outer(x2, y))


def test_infer_shape_sees_attributes():
    info = CustomRegOp().input(0, "x").input(1, "y").output(0, "z").attr("pad", "required", "int", value=2)
    outer = Custom(k("CustomOuter"), None, ms.float64, func_type="aot", reg_info=info)
    out = outer(ms.Tensor(np.ones(3)), ms.Tensor(np.arange(4.0))).asnumpy()
    assert out.shape == (5, 4)
    np.testing.assert_allclose(out, np.vstack([np.outer(np.ones(3), np.arange(4.0)), np.zeros((2, 4))]))


def test_multi_output_infer_shape(rng):
    halves = Custom(k("CustomHalves"), None, (ms.float64, ms.float64), func_type="aot")
    x = rng.standard_normal(7)
    a, b = halves(ms.Tensor(x))
    np.testing.assert_allclose(a.asnumpy(), x[:3])
    np.testing.assert_allclose(b.asnumpy(), x[3:])


def test_out_shape_none_without_infer_shape_names_the_missing_symbol():
    with pytest.raises(ValueError, match=r"op 'affine': out_shape is None, so the output shape must come from "
                                         r"'CustomAffineInferShape'.*does not define"):
        Custom(k("CustomAffine"), None, ms.float32, func_type="aot", name="affine")
    lib = "aot_kernels/build/libkernels.so"
    if (Path(__file__).resolve().parents[1] / lib).is_file():
        with pytest.raises(ValueError, match=r"'CustomSquareInferShape'"):
            Custom(f"{lib}:CustomSquare", None, ms.float32, func_type="aot")


def test_kernel_without_extern_c_points_to_the_fix():
    with pytest.raises(ValueError, match=r"op 'm': symbol 'CustomMangled' not found .* the library has the C\+\+ "
                                         r"name '_Z13CustomMangled[^']*': declare the kernel extern \"C\""):
        Custom(k("CustomMangled"), (1,), ms.float32, func_type="aot", name="m")


def test_string_attributes_reach_the_kernel_and_nul_is_rejected():
    info = CustomRegOp().input(0, "x").output(0, "y").attr("text", "required", "str", value="héllo")
    echo = Custom(k("CustomEcho"), None, ms.uint8, func_type="aot", name="echo", reg_info=info)
    x = ms.Tensor(np.zeros(1, np.float32))
    assert bytes(echo(x).asnumpy()) == "héllo".encode()
    with pytest.raises(TypeError, match=r"op 'echo': attribute 'text' .*cannot contain a NUL character"):
        echo(x, text="ab\0cd")          # refused when the call is marshalled, before any kernel sees it


def test_c_kernel_string_attribute_with_nul_is_rejected():
    lib = Path(__file__).resolve().parents[1] / "aot_kernels/build/libkernels.so"
    if not lib.is_file():
        pytest.skip("make kernels first")
    info = (CustomRegOp().input(0, "x").output(0, "y").attr("mode", "required", "str", value="mean"))
    probe = Custom(f"{lib}:CustomAttrProbe", (10,), ms.float64, func_type="aot", name="probe", reg_info=info)
    with pytest.raises(TypeError, match=r"op 'probe': attribute 'mode' .*cannot contain a NUL character"):
        probe(ms.Tensor([0.0]), mode="me\0an")


def test_shim_is_built_once_per_string_abi():
    s0 = aot_extra.shim(0, "probe")
    assert aot_extra.shim(0, "probe") is s0
    assert build.verify_entry(s0.path)
    s1 = aot_extra.shim(1, "probe")
    assert s1.path != s0.path
    # the shim itself is built against the header, so it carries the marker with its own ABI bit
    import ctypes
    assert ctypes.c_int.in_dll(ctypes.CDLL(str(s1.path)), "mscustom_aot_extra_abi").value & 1 == 1
