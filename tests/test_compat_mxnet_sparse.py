"""Sparse storage (csr / row_sparse on scipy.sparse) and sparse custom ops, against MXNet 1.9.1's values."""

import importlib.util
import pathlib

import numpy as np
import pytest
import scipy.sparse as sp

from mscustom.compat import mxnet as mx

D = np.array([[0, 1.5, 0], [0, 0, 0], [2, 0, -3]], np.float32)


def csr():
    return mx.nd.array(D).tostype("csr")


def rsp():
    return mx.nd.sparse.row_sparse_array((np.array([[1, 2, 3], [4, 5, 6]], np.float32), np.array([0, 2])),
                                         shape=(4, 3))


def test_csr_parts_and_constructors():
    a = csr()
    assert type(a).__name__ == "CSRNDArray" and a.stype == "csr" and a.shape == (3, 3) and a.dtype == np.float32
    np.testing.assert_array_equal(a.data.asnumpy(), [1.5, 2.0, -3.0])
    assert a.indices.asnumpy().tolist() == [1, 0, 2] and a.indices.dtype == np.int64
    assert a.indptr.asnumpy().tolist() == [0, 1, 1, 3] and a.indptr.dtype == np.int64
    b = mx.nd.sparse.csr_matrix((np.array([1.0, 2.0]), np.array([0, 2]), np.array([0, 1, 1, 2])), shape=(3, 3))
    assert b.dtype == np.float64                                    # the data's own type, as in MXNet
    assert b.asnumpy().tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 2.0]]
    c = mx.nd.sparse.csr_matrix(sp.csr_matrix(D))
    assert c.stype == "csr" and c.dtype == np.float32 and c.asnumpy().tolist() == D.tolist()
    e = mx.nd.sparse.csr_matrix((2, 3))
    assert e.dtype == np.float32 and e.indptr.asnumpy().tolist() == [0, 0, 0] and not e.asnumpy().any()
    assert mx.nd.sparse.csr_matrix(D).stype == "csr"
    assert a.asscipy().format == "csr" and (a.asscipy() != sp.csr_matrix(D)).nnz == 0
    assert repr(a) == "\n<CSRNDArray 3x3 @cpu(0)>"


def test_row_sparse_parts():
    r = mx.nd.sparse.row_sparse_array((np.array([[1, 2, 3], [4, 5, 6]]), np.array([2, 0])), shape=(4, 3))
    assert r.stype == "row_sparse" and r.dtype == np.int64
    assert r.asnumpy().tolist() == [[4, 5, 6], [0, 0, 0], [1, 2, 3], [0, 0, 0]]
    assert r.indices.dtype == np.int64
    rr = mx.nd.array(D).tostype("row_sparse")
    assert rr.data.asnumpy().tolist() == [[0.0, 1.5, 0.0], [2.0, 0.0, -3.0]] and rr.indices.asnumpy().tolist() == [0, 2]
    assert repr(rsp()) == "\n<RowSparseNDArray 4x3 @cpu(0)>"


@pytest.mark.parametrize("name,fn,stype,values", [
    ("2*a", lambda a, d: 2 * a, "csr", [[0, 3, 0], [0, 0, 0], [4, 0, -6]]),
    ("a*2", lambda a, d: a * 2, "csr", [[0, 3, 0], [0, 0, 0], [4, 0, -6]]),
    ("a*a", lambda a, d: a * a, "csr", [[0, 2.25, 0], [0, 0, 0], [4, 0, 9]]),
    ("a+a", lambda a, d: a + a, "csr", [[0, 3, 0], [0, 0, 0], [4, 0, -6]]),
    ("a-a", lambda a, d: a - a, "csr", [[0, 0, 0], [0, 0, 0], [0, 0, 0]]),
    ("a+1", lambda a, d: a + 1, "default", [[1, 2.5, 1], [1, 1, 1], [3, 1, -2]]),
    ("a/2", lambda a, d: a / 2, "csr", [[0, 0.75, 0], [0, 0, 0], [1, 0, -1.5]]),
    ("-a", lambda a, d: -a, "csr", [[0, -1.5, 0], [0, 0, 0], [-2, 0, 3]]),
    ("ew_mul", lambda a, d: mx.nd.sparse.elemwise_mul(a, a), "csr", [[0, 2.25, 0], [0, 0, 0], [4, 0, 9]]),
    ("ew_add", lambda a, d: mx.nd.sparse.elemwise_add(a, a), "csr", [[0, 3, 0], [0, 0, 0], [4, 0, -6]]),
    ("ew_mul dense", lambda a, d: mx.nd.sparse.elemwise_mul(a, d), "csr", [[0, 2.25, 0], [0, 0, 0], [4, 0, 9]]),
    ("ew_add dense", lambda a, d: mx.nd.sparse.elemwise_add(a, d), "default", [[0, 3, 0], [0, 0, 0], [4, 0, -6]]),
    ("a*dense", lambda a, d: a * d, "csr", [[0, 2.25, 0], [0, 0, 0], [4, 0, 9]]),
    ("dot", lambda a, d: mx.nd.sparse.dot(a, d), "default", [[0, 0, 0], [0, 0, 0], [-6, 3, 9]]),
    ("dot T", lambda a, d: mx.nd.sparse.dot(a, d, transpose_a=True), "row_sparse",
     [[4, 0, -6], [0, 2.25, 0], [-6, 0, 9]]),
    ("dot dense csr", lambda a, d: mx.nd.sparse.dot(d, a), "csr", [[0, 0, 0], [0, 0, 0], [-6, 3, 9]]),
    ("nd.dot", lambda a, d: mx.nd.dot(a, d), "default", [[0, 0, 0], [0, 0, 0], [-6, 3, 9]]),
    ("square", lambda a, d: mx.nd.sparse.square(a), "csr", [[0, 2.25, 0], [0, 0, 0], [4, 0, 9]]),
    ("abs", lambda a, d: mx.nd.abs(a), "csr", [[0, 1.5, 0], [0, 0, 0], [2, 0, 3]]),
    ("zeros_like", lambda a, d: mx.nd.zeros_like(a), "csr", [[0, 0, 0]] * 3),
    ("tostype", lambda a, d: a.tostype("default"), "default", D.tolist()),
    ("copy", lambda a, d: a.copy(), "csr", D.tolist()),
    ("exp falls back", lambda a, d: mx.nd.exp(a), "default", np.exp(D).tolist()),
])
def test_result_storage_types_match_mxnet(name, fn, stype, values):
    res = fn(csr(), mx.nd.array(D))
    assert res.stype == stype, name
    assert res.dtype == np.float32
    np.testing.assert_allclose(res.asnumpy(), values, rtol=1e-6)


def test_row_sparse_ops_and_retain():
    r = rsp()
    for res, want in ((r + r, [[2, 4, 6], [0, 0, 0], [8, 10, 12], [0, 0, 0]]),
                      (2 * r, [[2, 4, 6], [0, 0, 0], [8, 10, 12], [0, 0, 0]]),
                      (mx.nd.sparse.elemwise_mul(r, r), [[1, 4, 9], [0, 0, 0], [16, 25, 36], [0, 0, 0]])):
        assert res.stype == "row_sparse"
        np.testing.assert_array_equal(res.asnumpy(), want)
    kept = mx.nd.sparse.retain(r, mx.nd.array([0, 1], dtype="int64"))
    assert kept.stype == "row_sparse" and kept.indices.asnumpy().tolist() == [0]
    assert kept.asnumpy().tolist() == [[1, 2, 3], [0, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert mx.nd.sparse.retain(r, mx.nd.array([2])).asnumpy().tolist() == [[0, 0, 0], [0, 0, 0], [4, 5, 6], [0, 0, 0]]
    with pytest.raises(TypeError, match="mx.nd.sparse.retain: data must be a RowSparseNDArray, got 'csr'"):
        mx.nd.sparse.retain(csr(), mx.nd.array([0]))


def test_zeros_setitem_astype_and_errors():
    z = mx.nd.sparse.zeros("csr", (2, 3))
    assert z.stype == "csr" and not z.asnumpy().any()
    assert mx.nd.sparse.zeros("row_sparse", (2, 3)).stype == "row_sparse"
    assert mx.nd.zeros((2, 2), stype="csr").stype == "csr"
    z[:] = mx.nd.array(D[:2])
    assert z.stype == "csr" and z.asnumpy().tolist() == D[:2].tolist()
    assert csr().astype("float64").dtype == np.float64
    with pytest.raises(ValueError, match="Assigning numeric types to CSRNDArray is not implemented yet"):
        z[:] = 3
    with pytest.raises(ValueError, match="cast_storage from row_sparse to csr is not supported"):
        rsp().tostype("csr")
    with pytest.raises(ValueError, match=r"To convert to a CSR, the NDArray should be 2 Dimensional. Current shape "
                                         r"is \(2, 2, 2\)"):
        mx.nd.array(np.ones((2, 2, 2))).tostype("csr")
    with pytest.raises(ValueError, match=r"csr_matrix: indptr must have 4 entries and indices lie in \[0, 3\)"):
        mx.nd.sparse.csr_matrix((np.array([1.0, 2.0]), np.array([0, 5]), np.array([0, 1, 1, 2])), shape=(3, 3))
    with pytest.raises(mx.MXNetError, match=r"mx.nd.sparse.dot: shapes \(3, 3\) and \(2, 3\)"):
        mx.nd.sparse.dot(csr(), mx.nd.ones((2, 3)))


def test_rand_ndarray_storage_and_density():
    np.random.seed(0)
    x = mx.test_utils.rand_ndarray((40, 50), "csr", density=0.2)
    assert type(x).__name__ == "CSRNDArray" and x.dtype == np.float32 and x.shape == (40, 50)
    assert x.indptr.asnumpy()[-1] == 400                          # scipy.sparse.random keeps exactly 20%
    assert 0.0 <= x.data.asnumpy().min() and x.data.asnumpy().max() < 1.0
    r = mx.test_utils.rand_ndarray((200, 3), "row_sparse", density=0.5)
    assert type(r).__name__ == "RowSparseNDArray" and 60 < len(r.indices.asnumpy()) < 140
    assert mx.test_utils.rand_ndarray((4, 5)).stype == "default"


def test_autograd_through_sparse_ops():
    x = csr()
    w = mx.nd.array(np.arange(6.0).reshape(3, 2))
    w.attach_grad()
    with mx.autograd.record():
        y = mx.nd.sparse.dot(x, w)
        z = (y * y).sum()
    z.backward()
    assert y.stype == "default" and w.grad.stype == "default"
    np.testing.assert_allclose(y.asnumpy(), [[3.0, 4.5], [0.0, 0.0], [-12.0, -13.0]])
    np.testing.assert_allclose(w.grad.asnumpy(), [[-48.0, -52.0], [9.0, 13.5], [72.0, 78.0]])
    w2 = mx.nd.array(np.arange(6.0).reshape(3, 2))
    w2.attach_grad(stype="row_sparse")
    with mx.autograd.record():
        y = mx.nd.sparse.dot(x, w2)
    y.backward()
    assert w2.grad.stype == "row_sparse" and w2.grad.indices.asnumpy().tolist() == [0, 1, 2]
    np.testing.assert_allclose(w2.grad.asnumpy(), [[2.0, 2.0], [1.5, 1.5], [-3.0, -3.0]])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.sparse.elemwise_mul(x, x) * 3
    assert y.stype == "csr"
    y.backward()
    assert x.grad.stype == "csr"
    np.testing.assert_allclose(x.grad.asnumpy(), [[0.0, 9.0, 0.0], [0.0, 0.0, 0.0], [12.0, 0.0, -18.0]])


# ------------------------------------------------------------ sparse custom ops (MXNet's custom-op test)
SEEN = []


class _Sqr(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        inp = in_data[0]
        SEEN.append(("fwd", inp.stype, out_data[0].stype, type(out_data[0]).__name__, aux[0].stype))
        if inp.stype == "csr":
            out = mx.nd.sparse.csr_matrix((inp.data * inp.data, inp.indices, inp.indptr), shape=inp.shape)
        else:
            out = inp * inp
        self.assign(out_data[0], req[0], out)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        SEEN.append(("bwd", out_grad[0].stype, in_data[0].stype, out_data[0].stype, in_grad[0].stype, req[0]))
        self.assign(in_grad[0], req[0], 2 * mx.nd.sparse.elemwise_mul(in_data[0], out_grad[0]))


@mx.operator.register("test_sparse_sqr")
class _SqrProp(mx.operator.CustomOpProp):
    def list_auxiliary_states(self):
        return ["aux"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [in_shape[0]]

    def infer_storage_type(self, in_stype):
        if in_stype[0] == "default":
            return ["default"], ["default"], ["default"]
        return ["csr"], ["csr"], ["csr"]

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype, aux_stype):
        SEEN.append(("isb", list(ograd_stype), list(in_stype), list(out_stype), list(igrad_stype), list(aux_stype)))
        if in_stype[0] == "default":
            return ["default"], ["default"], ["default"], ["default"], ["default"]
        return ["default"], ["csr"], ["csr"], ["csr"], ["csr"]

    def create_operator(self, ctx, shapes, dtypes):
        return _Sqr()


X = np.array([[0, 0.5, 0, -1.0], [0, 0, 0, 0], [2.0, 0, 0.25, 0]], np.float32)


def test_sparse_custom_op_imperative_matches_mxnet():
    SEEN.clear()
    x = mx.nd.array(X).tostype("csr")
    aux = mx.nd.zeros_like(x)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, aux, name="sqr", op_type="test_sparse_sqr")
    assert type(y).__name__ == "CSRNDArray"
    y.backward()
    assert y.asnumpy().tolist() == [[0.0, 0.25, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 0.0625, 0.0]]
    assert x.grad.stype == "csr"
    assert x.grad.asnumpy().tolist() == [[0.0, 1.0, 0.0, -2.0], [0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 0.5, 0.0]]
    # what the op saw, as MXNet 1.9.1 shows it
    assert SEEN == [("fwd", "csr", "csr", "CSRNDArray", "csr"),
                    ("isb", ["default"], ["csr"], ["csr"], ["csr"], ["csr"]),
                    ("bwd", "default", "csr", "csr", "csr", "write")]


def test_dense_input_keeps_dense_storage():
    SEEN.clear()
    x = mx.nd.array(X)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, mx.nd.zeros_like(x), op_type="test_sparse_sqr")
    y.backward(mx.nd.ones_like(y) * 3)
    assert y.stype == "default" and x.grad.stype == "default"
    assert x.grad.asnumpy().tolist() == [[0.0, 3.0, 0.0, -6.0], [0.0, 0.0, 0.0, 0.0], [12.0, 0.0, 1.5, 0.0]]
    assert [s[0] for s in SEEN] == ["fwd", "bwd"] and SEEN[0][2:4] == ("default", "NDArray")


def test_default_infer_storage_type_refuses_sparse_inputs():
    class Dbl(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * 2)

    @mx.operator.register("test_sparse_default")
    class DblProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Dbl()

    with pytest.raises(mx.MXNetError, match=r"DblProp: the default infer_storage_type implementation does not allow "
                                            r"non-default stypes: found 'csr' for in_stype\[0\]"):
        mx.nd.Custom(mx.nd.array(X).tostype("csr"), op_type="test_sparse_default")


def test_sparse_sqr_example_runs_imperatively_and_symbolically():
    """MXNet 1.9.1 runs the symbolic forward (csr output, the values above); its graph executor refuses the
    sparse backward (a storage inference error), which runs here and gives the imperative gradient."""
    spec = importlib.util.spec_from_file_location(
        "mxnet_custom_sparse_sqr", pathlib.Path(__file__).parent.parent / "examples" / "mxnet_custom_sparse_sqr.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main() == 0
    y, gx, out, gsym = mod.run(X)
    assert type(out).__name__ == "CSRNDArray"
    assert out.asnumpy().tolist() == [[0.0, 0.25, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 0.0625, 0.0]]
    assert gsym.stype == "csr" and gsym.asnumpy().tolist() == gx.asnumpy().tolist()


def test_simple_bind_gives_sparse_arguments_and_gradients():
    spec = importlib.util.spec_from_file_location(
        "mxnet_custom_sparse_sqr", pathlib.Path(__file__).parent.parent / "examples" / "mxnet_custom_sparse_sqr.py")
    spec.loader.exec_module(importlib.util.module_from_spec(spec))          # registers 'sparse_sqr'
    for data, stype_dict in ((mx.sym.Variable("data", stype="csr"), None),
                             (mx.sym.Variable("data"), {"data": "csr"})):
        exe = mx.sym.Custom(data, op_type="sparse_sqr", name="sqr").simple_bind(mx.cpu(), data=X.shape,
                                                                                 stype_dict=stype_dict)
        assert exe.arg_dict["data"].stype == "csr" and exe.grad_dict["data"].stype == "csr"
        exe.arg_dict["data"][:] = mx.nd.array(X).tostype("csr")
        out = exe.forward(is_train=True)[0]
        exe.backward([mx.nd.ones(X.shape)])
        assert out.stype == "csr" and out.asnumpy().tolist() == (X * X).tolist()
        assert exe.grad_dict["data"].stype == "csr"
        np.testing.assert_array_equal(exe.grad_dict["data"].asnumpy(), 2 * X)


def test_failed_backward_marks_a_sparse_gradient_failed_once():
    class Bad(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0])

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            raise ValueError("backward went wrong")

    @mx.operator.register("test_sparse_bad")
    class BadProp(mx.operator.CustomOpProp):
        def infer_storage_type(self, in_stype):
            return in_stype, in_stype, []

        def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype, aux_stype):
            return ["default"], in_stype, out_stype, ["csr"], []

        def create_operator(self, ctx, shapes, dtypes):
            return Bad()

    x = mx.nd.array(X).tostype("csr")
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="test_sparse_bad")
    y.backward()
    with pytest.raises(mx.MXNetError, match="backward went wrong"):
        x.grad.asnumpy()
    assert type(x.grad).__name__ == "CSRNDArray" and not x.grad.asnumpy().any()      # reported once, untouched
