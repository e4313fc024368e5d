"""Hybrid kernels on the CPU compute exp/log/tanh/erf/sin/cos/expm1/rsqrt with ``vecmath``
(vectorizable, within ``vecmath.ULP_BOUND`` of libm) and their gradients still match."""

import math

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops
from mscustom.ops.custom.hybrid.codegen import cpu_source
from mscustom.ops.custom.hybrid.shapes import tensor_meta
from mscustom.testing import check_grad

import hybrid_taped_kernels as tk


def _reference(a):
    erf = np.vectorize(math.erf)
    b = np.abs(a) + 1.0
    return np.stack([np.exp(a), np.log(b), np.tanh(a), erf(a), np.sin(a), np.cos(a), np.expm1(a), 1 / np.sqrt(b)])


def test_the_generated_cpu_source_calls_vecmath():
    info = tk.transcendentals.info
    meta = tensor_meta(info, [(5,)], [np.dtype(np.float32)], set())
    src, _ = cpu_source(info, meta, "k")
    for name in ("exp", "log", "tanh", "erf", "sin", "cos", "expm1", "rsqrt"):
        assert f"_vm.{name}(" in src
    assert "math.exp" not in src and "math.tanh" not in src
    from mscustom.ops.custom.vecmath._impls import SOURCE_TAG
    assert f"# vecmath {SOURCE_TAG}" in src      # a changed vecmath changes the module, so its disk cache


@pytest.mark.parametrize("dtype, ulps", [(np.float32, 3), (np.float64, 3)])
def test_values_within_a_few_ulps_of_libm(dtype, ulps):
    a = np.random.default_rng(3).standard_normal(257).astype(dtype) * 4
    got = ops.Custom(tk.transcendentals)(ms.Tensor(a)).asnumpy()
    assert got.dtype == dtype
    want = _reference(a.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=ulps * np.finfo(dtype).eps, atol=ulps * np.finfo(dtype).tiny)


def test_gradients_through_vecmath_calls():
    a = ms.Tensor(np.linspace(-1.5, 1.7, 9))
    op = ops.Custom(tk.transcendentals)
    w = ms.Tensor(np.random.default_rng(4).standard_normal((8, 9)))
    check_grad(lambda t: (op(t) * w).sum(), a, rtol=1e-6, atol=1e-9)
