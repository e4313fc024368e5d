"""COOTensor, CSRTensor, RowTensor and the ops.coo_* / csr_* functions: values, dtypes and errors are
MindSpore 2.10 (CPU)'s for the same calls; gradients reach the values and dense operands."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import ops, Tensor
from mscustom.testing import check_grad

nan = float("nan")

# MindSpore 2.10: ops.coo_<f>(coo).values == ops.csr_<f>(csr).values for VALUES below
UNARY = {
    'abs': [0.5, 0.25, 0.75, 1.5],
    'acos': [1.0471975803375244, 1.8234765529632568, 0.722734272480011, nan],
    'acosh': [nan, nan, nan, 0.9624236226081848],
    'asin': [0.5235987901687622, -0.252680242061615, 0.8480620980262756, nan],
    'asinh': [0.4812118113040924, -0.24746645987033844, 0.6931471824645996, 1.19476318359375],
    'atan': [0.46364760398864746, -0.244978666305542, 0.6435011029243469, 0.9827937483787537],
    'atanh': [0.5493061542510986, -0.2554128170013428, 0.972955048084259, nan],
    'ceil': [1.0, -0.0, 1.0, 2.0],
    'cos': [0.8775825500488281, 0.9689124226570129, 0.7316888570785522, 0.07073719799518585],
    'cosh': [1.1276259422302246, 1.0314130783081055, 1.2946833372116089, 2.352409601211548],
    'exp': [1.64872145652771, 0.7788004875183105, 2.1170003414154053, 4.481690406799316],
    'expm1': [0.6487212181091309, -0.22119921445846558, 1.1170001029968262, 3.481688976287842],
    'floor': [0.0, -1.0, 0.0, 1.0],
    'inv': [2.0, -4.0, 1.3333333730697632, 0.6666666865348816],
    'isfinite': [True, True, True, True],
    'isinf': [False, False, False, False],
    'isnan': [False, False, False, False],
    'log': [-0.6931470036506653, nan, -0.2876818776130676, 0.40546512603759766],
    'log1p': [0.40546509623527527, -0.28768208622932434, 0.5596157908439636, 0.9162907600402832],
    'neg': [-0.5, 0.25, -0.75, -1.5],
    'relu': [0.5, 0.0, 0.75, 1.5],
    'relu6': [0.5, 0.0, 0.75, 1.5],
    'round': [0.0, -0.0, 1.0, 2.0],
    'sigmoid': [0.6224594116210938, 0.4378235340118408, 0.679178774356842, 0.8175745010375977],
    'sin': [0.4794255495071411, -0.24740396440029144, 0.681638777256012, 0.9974949955940247],
    'sinh': [0.5210952758789062, -0.25261232256889343, 0.8223167061805725, 2.129279375076294],
    'softsign': [0.3333333432674408, -0.20000000298023224, 0.4285714328289032, 0.6000000238418579],
    'sqrt': [0.7071067690849304, nan, 0.8660253882408142, 1.2247449159622192],
    'square': [0.25, 0.0625, 0.5625, 2.25],
    'tan': [0.5463024973869324, -0.25534191727638245, 0.9315964579582214, 14.101420402526855],
    'tanh': [0.46211716532707214, -0.24491867423057556, 0.6351490020751953, 0.9051482677459717],
}
VALUES = [0.5, -0.25, 0.75, 1.5]
DENSE = [[0.0, 0.5, 0.0, 0.0], [0.0, 0.0, -0.25, 0.0], [0.75, 0.0, 0.0, 1.5]]


def _t(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


def _coo(values=VALUES, dtype=np.int64):
    return ms.COOTensor(_t([[0, 1], [1, 2], [2, 0], [2, 3]], dtype), _t(values), (3, 4))


def _csr(values=VALUES):
    return ms.CSRTensor(_t([0, 1, 2, 4], np.int32), _t([1, 2, 0, 3], np.int32), _t(values), (3, 4))


def _eq(t, expected, dtype=None):
    np.testing.assert_allclose(t.asnumpy(), np.asarray(expected), rtol=2e-6, atol=1e-6)
    if dtype is not None:
        assert t.dtype == dtype


def test_unary_value_maps():
    coo, csr = _coo(), _csr()
    for name, expected in UNARY.items():
        a, b = getattr(ops, "coo_" + name)(coo), getattr(ops, "csr_" + name)(csr)
        assert type(a) is ms.COOTensor and type(b) is ms.CSRTensor, name
        for r in (a, b):
            np.testing.assert_allclose(r.values.asnumpy(), expected, rtol=2e-6, atol=1e-6, err_msg=name)
            assert r.values.dtype == (ms.bool_ if isinstance(expected[0], bool) else ms.float32), name
            assert r.shape == (3, 4) and r.indices is (coo.indices if r is a else csr.indices)
    np.testing.assert_array_equal(np.signbit(ops.coo_round(coo).values.asnumpy()), [False, True, False, False])
    _eq(coo.abs().values, UNARY["abs"])
    _eq(csr.abs().values, UNARY["abs"])


def test_classes():
    coo, csr = _coo(), _csr()
    assert (coo.shape, coo.ndim, coo.size, coo.itemsize, coo.dtype) == ((3, 4), 2, 4, 4, ms.float32)
    assert (csr.shape, csr.ndim, csr.size, csr.itemsize, csr.dtype) == ((3, 4), 2, 4, 4, ms.float32)
    i, v, s = coo.to_tuple()
    assert i is coo.indices and v is coo.values and s == (3, 4)
    p, i, v, s = csr.to_tuple()
    assert p is csr.indptr and i is csr.indices and v is csr.values
    _eq(coo.to_dense(), DENSE, ms.float32)
    _eq(csr.to_dense(), DENSE, ms.float32)
    c = ms.COOTensor(_t([[0, 1], [1, 2], [2, 0], [2, 3]], np.int32), _t(VALUES), (3, 4)).to_csr()
    _eq(c.indptr, [0, 1, 2, 4], ms.int32)
    _eq(c.indices, [1, 2, 0, 3], ms.int32)
    # MindSpore: rows ordered stably, columns within a row keep their order
    c = ms.COOTensor(_t([[2, 0], [0, 3], [0, 1]], np.int32), _t([1, 2, 3]), (3, 4)).to_csr()
    _eq(c.indptr, [0, 2, 2, 3])
    _eq(c.indices, [3, 1, 0])
    _eq(c.values, [2, 3, 1])
    back = csr.to_coo()
    _eq(back.indices, [[0, 1], [1, 2], [2, 0], [2, 3]], ms.int32)
    _eq(back.values, VALUES)
    assert coo.astype(ms.float64).values.dtype == ms.float64 and csr.astype(ms.int32).values.dtype == ms.int32
    _eq(csr.astype(ms.int32).values, [0, 0, 0, 1])
    # repeated indices add up in to_dense; coalesce merges them, sorted row-major
    dup = ms.COOTensor(_t([[2, 0], [0, 3], [0, 1], [2, 0]], np.int64), _t([1, 2, 3, 4]), (3, 4))
    _eq(dup.to_dense(), [[0, 3, 0, 2], [0, 0, 0, 0], [5, 0, 0, 0]])
    m = dup.coalesce()
    _eq(m.indices, [[0, 1], [0, 3], [2, 0]], ms.int64)
    _eq(m.values, [3, 2, 5])
    assert ms.COOTensor(coo_tensor=coo).values is coo.values
    assert ms.CSRTensor(csr_tensor=csr).indptr is csr.indptr
    st = ms.SparseTensor(coo.indices, coo.values, (3, 4))
    assert isinstance(st, ms.COOTensor) and st.shape == (3, 4) and repr(st).startswith("SparseTensor(")
    assert repr(coo).startswith("COOTensor(shape=[3, 4], dtype=Float32, indices=")
    r = ms.RowTensor(_t([0, 2], np.int32), _t(np.arange(6).reshape(2, 3)), (4, 3))
    assert r.dense_shape == (4, 3) and ms.RowTensor(row_tensor=r).values is r.values
    # MindSpore's errors: float indices (TypeError), 2-D values, nnz mismatch, CSR indptr length (ValueError),
    # a list shape (TypeError)
    with pytest.raises(TypeError):
        ms.COOTensor(_t([[0, 1]]), _t([1]), (3, 4))
    with pytest.raises(ValueError):
        ms.COOTensor(_t([[0, 1], [1, 2]], np.int64), _t(np.ones((2, 2))), (3, 4))
    with pytest.raises(ValueError):
        ms.COOTensor(_t([[0, 1], [1, 2]], np.int64), _t([1, 2, 3]), (3, 4))
    with pytest.raises(TypeError):
        ms.COOTensor(_t([[0, 1], [1, 2]], np.int64), _t([1, 2]), [3, 4])
    with pytest.raises(ValueError):
        ms.CSRTensor(_t([0, 1, 2], np.int32), _t([1, 0], np.int32), _t([1, 2]), (3, 4))
    with pytest.raises(TypeError):
        ms.CSRTensor(_t([0, 1, 2], np.int32), _t([1, 0]), _t([1, 2]), (2, 4))


def test_csr_functions():
    csr = ms.CSRTensor(_t([0, 2, 2, 3], np.int32), _t([1, 3, 0], np.int32), _t([1, 2, 3]), (3, 4))
    _eq(csr.mv(_t([[1], [2], [3], [4]])), [[10], [0], [3]], ms.float32)
    _eq(ops.csr_mv(csr, _t([[1], [2], [3], [4]])), [[10], [0], [3]])
    _eq(csr.mm(_t(np.arange(8).reshape(4, 2))), [[14, 17], [0, 0], [0, 3]])
    _eq(csr.sum(1), [[3], [0], [3]], ms.float32)
    _eq(ops.csr_reduce_sum(csr, -1), [[3], [0], [3]])
    with pytest.raises(ValueError):
        ops.csr_reduce_sum(csr, 0)
    with pytest.raises(ValueError):
        ops.csr_mv(csr, _t([1, 2, 3, 4]))
    with pytest.raises(ValueError):
        csr.mv(_t(np.ones((3, 1))))
    with pytest.raises(ValueError):
        csr.mm(_t(np.ones((3, 2))))
    c = _csr([0.5, -0.25, 0.75, 1.5])
    _eq(ops.csr_mul(c, _t([[1], [2], [3]])).values, [0.5, -0.5, 2.25, 4.5])
    _eq(ops.csr_mul(c, _t(np.arange(12).reshape(3, 4))).values, [0.5, -1.5, 6.0, 16.5])
    _eq(ops.csr_mul(c, _t([1, 2, 3, 4])).values, [1.0, -0.75, 0.75, 6.0])
    _eq(ops.csr_mul(c, _t([[2], [3], [4]], np.int32)).values, [1.0, -0.75, 3.0, 6.0], ms.float32)
    _eq(ops.csr_div(c, _t([[1], [2], [3]])).values, [0.5, -0.125, 0.25, 0.5])
    _eq(ops.csr_div(c, _t(np.arange(1, 13).reshape(3, 4))).values, [0.25, -0.0357142873108387, 0.0833333358168602,
                                                                     0.125])
    _eq(ops.csr_div(c, _t([0, 2, 4, 8])).values, [0.25, -0.0625, np.inf, 0.1875])
    b = ms.CSRTensor(_t([0, 1, 2, 2], np.int32), _t([1, 0], np.int32), _t([10, 20]), (3, 4))
    s = ops.csr_add(csr, b, _t(1.0), _t(2.0))
    _eq(s.indptr, [0, 2, 3, 4], ms.int32)
    _eq(s.indices, [1, 3, 0, 0], ms.int32)
    _eq(s.values, [21, 2, 40, 3])
    _eq(csr.add(csr, _t(1.0), _t(2.0)).values, [3, 6, 9])
    sm = ops.csr_softmax(ms.CSRTensor(_t([0, 2, 3], np.int32), _t([0, 3, 1], np.int32), _t([1, 3, -2]), (2, 4)),
                         ms.float32)
    _eq(sm.values, [0.11920291930437088, 0.8807970285415649, 1.0])
    _eq(ops.csr_softmax(csr, ms.float64).values, [0.2689414322376251, 0.7310585975646973, 1.0], ms.float32)
    with pytest.raises(TypeError):
        ops.csr_softmax(csr, ms.int32)
    _eq(ops.csr_gather(csr.indptr, csr.indices, _t(np.arange(12).reshape(3, 4)), (3, 4)), [1, 3, 8])
    _eq(ops.csr_to_dense(csr), [[0, 1, 0, 2], [0, 0, 0, 0], [3, 0, 0, 0]])
    _eq(ops.csr_to_coo(csr).indices, [[0, 1], [0, 3], [2, 0]], ms.int32)
    _eq(ops.csr2coo(csr.indptr, 3), [0, 0, 2], ms.int32)
    _eq(ops.coo2csr(_t([0, 0, 2], np.int32), 3), [0, 2, 2, 3], ms.int32)
    _eq(ops.coo2csr(_t([2, 0, 0], np.int32), 3), [0, 2, 2, 3], ms.int32)
    assert ops.csr_tensor_get_indptr(csr) is csr.indptr and ops.csr_tensor_get_indices(csr) is csr.indices
    assert ops.csr_tensor_get_values(csr) is csr.values and ops.csr_tensor_get_dense_shape(csr) == (3, 4)
    m = ops.make_csr_tensor(csr.indptr, csr.indices, csr.values, (3, 4))
    _eq(m.to_dense(), [[0, 1, 0, 2], [0, 0, 0, 0], [3, 0, 0, 0]])


def test_coo_functions_and_conversions():
    dense = _t([[0, 1.5, 0], [2, 0, 0], [0, 0, -3]])
    for coo in (ops.dense_to_sparse_coo(dense), dense.to_coo()):
        _eq(coo.indices, [[0, 1], [1, 0], [2, 2]], ms.int32)
        _eq(coo.values, [1.5, 2.0, -3.0], ms.float32)
        assert coo.shape == (3, 3)
    for csr in (ops.dense_to_sparse_csr(dense), dense.to_csr()):
        _eq(csr.indptr, [0, 1, 2, 3], ms.int32)
        _eq(csr.indices, [1, 0, 2], ms.int32)
        _eq(csr.values, [1.5, 2.0, -3.0])
    _eq(ops.dense_to_sparse_coo(_t([[0, 1], [2, 0]], np.int32)).values, [1, 2], ms.int32)
    with pytest.raises(ValueError):
        ops.dense_to_sparse_coo(_t([[[0, 1.0], [2, 0]]]))
    a = ms.COOTensor(_t([[0, 1], [1, 2], [2, 0]], np.int64), _t([0.5, -0.25, 0.75]), (3, 4))
    r = ops.coo_add(a, ms.COOTensor(_t([[0, 1], [2, 3]], np.int64), _t([1, 2]), (3, 4)), _t(0.0))
    _eq(r.indices, [[0, 1], [1, 2], [2, 0], [2, 3]], ms.int64)
    _eq(r.values, [1.5, -0.25, 0.75, 2.0])
    r = ops.coo_add(a, ms.COOTensor(_t([[0, 1], [2, 3]], np.int64), _t([-0.4, 2]), (3, 4)), _t(0.2))
    _eq(r.indices, [[1, 2], [2, 0], [2, 3]])
    _eq(r.values, [-0.25, 0.75, 2.0])
    # thresh drops only shared entries whose sum is small; |sum| == thresh stays
    r = ops.coo_add(ms.COOTensor(_t([[0, 1], [1, 0]], np.int64), _t([0.1, 1.0]), (3, 4)),
                    ms.COOTensor(_t([[1, 0], [2, 3]], np.int64), _t([-0.95, 0.05]), (3, 4)), _t(0.2))
    _eq(r.indices, [[0, 1], [2, 3]])
    _eq(r.values, [0.1, 0.05])
    r = a.add(ms.COOTensor(_t([[0, 1]], np.int64), _t([-0.5]), (3, 4)), _t(0.0))
    _eq(r.values, [0.0, -0.25, 0.75])
    c1 = ms.COOTensor(_t([[0, 1], [1, 2], [2, 0]], np.int64), _t([1, 1, 1]), (3, 4))
    r = ops.coo_concat((c1, ms.COOTensor(_t([[0, 0], [1, 1]], np.int64), _t([7, 8]), (2, 4))), 0)
    _eq(r.indices, [[0, 1], [1, 2], [2, 0], [3, 0], [4, 1]], ms.int64)
    _eq(r.values, [1, 1, 1, 7, 8])
    assert r.shape == (5, 4)
    r = ops.coo_concat((c1, ms.COOTensor(_t([[0, 0], [1, 1]], np.int64), _t([7, 8]), (3, 2))), 1)
    _eq(r.indices, [[0, 1], [0, 4], [1, 2], [1, 5], [2, 0]])
    _eq(r.values, [1, 7, 1, 8, 1])
    assert r.shape == (3, 6)
    v = _t([1, 2])
    i = _t([[0, 1], [1, 2]], np.int64)
    r = ops.coo_concat((ms.COOTensor(_t([[1, 2], [0, 1]], np.int64), v, (3, 4)), ms.COOTensor(i, v, (3, 4))), -1)
    _eq(r.indices, [[0, 1], [0, 5], [1, 2], [1, 6]])
    _eq(r.values, [2, 1, 1, 2])
    r = ops.coo_concat((ms.COOTensor(_t([[1, 2], [0, 1]], np.int64), v, (3, 4)),
                        ms.COOTensor(_t([[1, 0], [0, 3]], np.int64), v, (2, 4))), 0)
    _eq(r.indices, [[0, 1], [1, 2], [3, 3], [4, 0]])
    _eq(r.values, [2, 1, 2, 1])
    with pytest.raises(ValueError):
        ops.coo_concat((c1,), 0)
    with pytest.raises(ValueError):
        ops.coo_concat((c1, ms.COOTensor(i, v, (3, 5))), 0)
    assert ops.coo_tensor_get_indices(a) is a.indices and ops.coo_tensor_get_values(a) is a.values
    assert ops.coo_tensor_get_dense_shape(a) == (3, 4)
    assert isinstance(ops.make_coo_tensor(a.indices, a.values, (3, 4)), ms.COOTensor)
    assert isinstance(ops.make_sparse_tensor(a.indices, a.values, (3, 4)), ms.SparseTensor)
    ri, rv = _t([0, 2], np.int32), _t(np.arange(6).reshape(2, 3))
    for make in (ops.make_row_tensor, ops.make_row_tensor_inner):
        r = make(ri, rv, (4, 3))
        assert ops.row_tensor_get_indices(r) is ri and ops.row_tensor_get_values(r) is rv
        assert ops.row_tensor_get_dense_shape(r) == (4, 3)
    x = _t([[1, 2], [3, 4], [5, 6]])
    _eq(ops.sparse_segment_mean(x, _t([0, 1, 2], np.int32), _t([0, 0, 1], np.int32)), [[2, 3], [5, 6]], ms.float32)
    _eq(ops.sparse_segment_mean(x, _t([2, 0], np.int32), _t([0, 2], np.int32)), [[5, 6], [0, 0], [1, 2]])
    _eq(ops.sparse_segment_mean(_t([1, 2, 3], np.float64), _t([2, 0, 1], np.int64), _t([0, 0, 1], np.int64)),
        [2, 2], ms.float64)
    with pytest.raises(TypeError):
        ops.sparse_segment_mean(_t([1, 2, 3], np.int32), _t([2, 0, 1], np.int32), _t([0, 0, 1], np.int32))
    with pytest.raises(ValueError):
        ops.sparse_segment_mean(x, _t([2, 0, 1], np.int32), _t([1, 0, 0], np.int32))


def test_operators():
    # MindSpore 2.10: -, + and - of two sparse tensors, * and / by a dense Tensor; COO + / - dense is dense
    coo = ms.COOTensor(_t([[0, 1], [1, 2]], np.int64), _t([1, -2]), (3, 4))
    csr = ms.CSRTensor(_t([0, 1, 2, 2], np.int32), _t([1, 2], np.int32), _t([1, -2]), (3, 4))
    d = _t(np.arange(12).reshape(3, 4))
    for x, kind in ((coo, ms.COOTensor), (csr, ms.CSRTensor)):
        for r, expected in ((-x, [-1, 2]), (x + x, [2, -4]), (x - x, [0, 0]), (x * d, [1, -12]),
                            (x / (d + 1), [0.5, -0.2857142984867096]), (x * 2, [2, -4])):
            assert type(r) is kind
            _eq(r.values, expected)
    _eq(coo + d, [[0, 2, 2, 3], [4, 5, 4, 7], [8, 9, 10, 11]])
    _eq(coo - d, [[0, 0, -2, -3], [-4, -5, -8, -7], [-8, -9, -10, -11]])
    with pytest.raises(TypeError):
        csr + d
    check_grad(lambda v: (ms.COOTensor(coo.indices, v, (3, 4)) * d).values
               + (ms.CSRTensor(csr.indptr, csr.indices, v, (3, 4)) - ms.CSRTensor(csr.indptr, csr.indices, v * v,
                                                                                 (3, 4))).values, _t([0.5, 2.0]))


def test_sparse_gradients_match_mindspore():
    ip, ci, v = _t([0, 2, 2, 3], np.int32), _t([1, 3, 0], np.int32), _t([1, 2, 3])
    mk = lambda v: ms.CSRTensor(ip, ci, v, (3, 4))  # noqa: E731
    w = _t(np.arange(12).reshape(3, 4))
    gv, gd = ms.grad(lambda v, d: ops.csr_mv(mk(v), d).sum(), grad_position=(0, 1))(v, _t([[1], [2], [3], [4]]))
    _eq(gv, [2, 4, 1])
    _eq(gd, [[3], [1], [0], [2]])
    _eq(ms.grad(lambda v: (mk(v).to_dense() * w).sum())(v), [1, 3, 8])
    _eq(ms.grad(lambda v: (ms.COOTensor(_t([[0, 1], [2, 3]], np.int64), v, (3, 4)).to_dense() * w).sum())(
        _t([1, 2])), [1, 11])
    _eq(ms.grad(lambda v: mk(v).sum(1).sum())(v), [1, 1, 1])
    _eq(ms.grad(lambda v: ops.csr_mul(mk(v), _t([[1], [2], [3]])).values.sum())(v), [1, 1, 3])


def test_sparse_gradients():
    rng = np.random.default_rng(0)
    vals = _t(rng.uniform(0.2, 0.8, 4))
    dense = _t(rng.standard_normal((4, 2)))
    ip, ci = _t([0, 1, 2, 4], np.int32), _t([1, 2, 0, 3], np.int32)
    ix = _t([[0, 1], [1, 2], [2, 0], [2, 3]], np.int64)
    mk = lambda v: ms.CSRTensor(ip, ci, v, (3, 4))  # noqa: E731
    w = _t(rng.standard_normal((3, 4)))
    check_grad(lambda v: mk(v).to_dense() * w, vals)
    check_grad(lambda v: ms.COOTensor(ix, v, (3, 4)).to_dense() * w, vals)
    check_grad(lambda v, d: mk(v).mv(d[:, :1]), vals, dense)
    check_grad(lambda v, d: mk(v).mm(d) * d[:3], vals, dense)
    check_grad(lambda v: mk(v).sum(1) * w[:, :1], vals)
    check_grad(lambda v, y: ops.csr_mul(mk(v), y).values * vals, vals, _t(rng.uniform(1, 2, (3, 1))))
    check_grad(lambda v, y: ops.csr_div(mk(v), y).values * vals, vals, _t(rng.uniform(1, 2, 4)))
    check_grad(lambda v: ops.csr_softmax(mk(v), v.dtype).values * vals, vals)
    check_grad(lambda v: ops.csr_add(mk(v), mk(v * v), _t(2.0), _t(-1.0)).values * vals, vals)
    check_grad(lambda d: ops.csr_gather(ip, ci, d, (3, 4)) * vals, w)
    check_grad(lambda d: ops.dense_to_sparse_coo(d).values * w.reshape(-1), w)
    check_grad(lambda v: ops.coo_sin(ms.COOTensor(ix, v, (3, 4))).values + ops.csr_acos(mk(v)).values, vals)
    check_grad(lambda v: ops.coo_add(ms.COOTensor(ix, v, (3, 4)), ms.COOTensor(ix[:2], v[:2] * 3, (3, 4)),
                                     _t(0.0)).values * _t([1, 2, 3, 4]), vals)
    check_grad(lambda v: ops.coo_concat((ms.COOTensor(ix, v, (3, 4)), ms.COOTensor(ix, v * v, (3, 4))), 1).values
               * _t(np.arange(8)), vals)
    check_grad(lambda x: ops.sparse_segment_mean(x, _t([0, 2, 1], np.int32), _t([0, 0, 1], np.int32)) * w[:2, :2],
               _t(rng.standard_normal((3, 2))))
