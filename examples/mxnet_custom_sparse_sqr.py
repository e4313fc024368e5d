"""MXNet's sparse custom-op example: an elementwise square that keeps csr storage, on mscustom.

The op (MXNet's ``custom_sparse_sqr`` example and custom-op test, in our words) squares
``in_data[0]``: for a csr input it builds the result from ``.data`` / ``.indices`` /
``.indptr`` with ``mx.nd.sparse.csr_matrix`` and writes it with ``self.assign``; its
backward is ``2 * elemwise_mul(in_data, out_grad)``. ``infer_storage_type`` makes the
output csr for a csr input and ``infer_storage_type_backward`` the input's gradient csr.
It runs imperatively (``mx.nd.Custom`` under ``autograd.record``) and through
``mx.sym.Custom`` + ``bind``; both print the storage types and the values.

    python examples/mxnet_custom_sparse_sqr.py

Exits non-zero if a result differs from NumPy's or has the wrong storage type.
"""

import sys

import numpy as np

from mscustom.compat import mxnet as mx


class Sqr(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0]
        if x.stype == "csr":
            out = mx.nd.sparse.csr_matrix((x.data * x.data, x.indices, x.indptr), shape=x.shape)
        else:
            out = x * x
        self.assign(out_data[0], req[0], out)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], 2 * mx.nd.sparse.elemwise_mul(in_data[0], out_grad[0]))


@mx.operator.register("sparse_sqr")
class SqrProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def infer_storage_type(self, in_stype):
        if in_stype[0] == "default":
            return ["default"], ["default"], []
        return ["csr"], ["csr"], []

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype, aux_stype):
        if in_stype[0] == "default":
            return ["default"], ["default"], ["default"], ["default"], []
        return ["default"], ["csr"], ["csr"], ["csr"], []

    def create_operator(self, ctx, shapes, dtypes):
        return Sqr()


def run(dense):
    """(imperative output, its gradient, symbolic output, its gradient) for a csr copy of ``dense``."""
    x = mx.nd.array(dense).tostype("csr")
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="sparse_sqr")
    y.backward()
    data = mx.sym.Variable("data", stype="csr")
    exe = mx.sym.Custom(data, op_type="sparse_sqr", name="sqr").bind(
        mx.cpu(), {"data": x}, args_grad={"data": mx.nd.sparse.zeros("csr", dense.shape)})
    out = exe.forward(is_train=True)[0]
    exe.backward([mx.nd.ones(dense.shape)])
    return y, x.grad, out, exe.grad_dict["data"]


def main():
    rng = np.random.default_rng(0)
    dense = np.where(rng.random((4, 10)) < 0.3, rng.uniform(-1, 1, (4, 10)), 0).astype(np.float32)
    ok = True
    for label, arr, want in zip(("imperative output", "imperative gradient", "symbolic output", "symbolic gradient"),
                                run(dense), (dense ** 2, 2 * dense, dense ** 2, 2 * dense)):
        good = arr.stype == "csr" and np.allclose(arr.asnumpy(), want, rtol=1e-6)
        ok &= good
        print(f"{label}: {type(arr).__name__} ({arr.stype}), {arr.indptr.asnumpy()[-1]} stored values, "
              f"{'matches NumPy' if good else 'WRONG'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
