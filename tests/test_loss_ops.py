"""The fused sparse softmax cross entropy: values, gradients (twice), the losses that use it, graph mode."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops
from mscustom.ops.nn.loss_fused import sparse_softmax_cross_entropy as sce
from mscustom.ops.nn.loss_fused import sparse_softmax_cross_entropy_grad as sce_grad
from mscustom.testing import check_grad

RNG = np.random.default_rng(3)


def _logits(*shape):
    return ms.Tensor(RNG.standard_normal(shape).astype(np.float32) * 3)


def _reference(z, y, reduction, ignore_index=None):
    """The loss from log_softmax by hand (NumPy, float64)."""
    z = z.asnumpy().astype(np.float64)
    y = y.asnumpy()
    keep = np.ones(y.shape, bool) if ignore_index is None else y != ignore_index
    logp = z - z.max(-1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(-1, keepdims=True))
    per = -np.take_along_axis(logp, np.where(keep, y, 0)[..., None], -1)[..., 0] * keep
    if reduction == "none":
        return per
    return per.sum() if reduction == "sum" else per.sum() / max(keep.sum(), 1)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape", [(6, 5), (2, 3, 4), (7,)])
def test_loss_matches_log_softmax_by_hand(reduction, shape):
    z = _logits(*shape)
    y = ms.Tensor(RNG.integers(0, shape[-1], shape[:-1]).astype(np.int64))
    out = sce(z, y, reduction)
    assert out.dtype == ms.float32 and out.shape == (shape[:-1] if reduction == "none" else ())
    np.testing.assert_allclose(out.asnumpy(), _reference(z, y, reduction), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("ignore_index", [None, -100, 2])
def test_gradient_and_gradient_of_the_gradient(reduction, ignore_index):
    z = _logits(5, 4)
    y = ms.Tensor(np.array([0, 3, 2, -100 if ignore_index == -100 else 1, 2], np.int32))
    if ignore_index is None:
        y = ms.Tensor(np.array([0, 3, 2, 1, 2], np.int32))
    np.testing.assert_allclose(sce(z, y, reduction, ignore_index).asnumpy(),
                               _reference(z, y, reduction, ignore_index), rtol=1e-5, atol=1e-6)
    check_grad(lambda a: sce(a, y, reduction, ignore_index), z)
    d = ms.Tensor(RNG.standard_normal((5,) if reduction == "none" else ()).astype(np.float32))
    check_grad(lambda a, b: sce_grad(a, y, b, reduction, ignore_index), z, d)


def test_gradient_is_softmax_minus_onehot_over_n():
    z, y = _logits(4, 3), ms.Tensor([2, 0, 1, 1])
    g = ms.grad(lambda a: sce(a, y, "mean"))(z).asnumpy()
    want = (ops.softmax(z, -1).asnumpy() - np.eye(3, dtype=np.float32)[y.asnumpy()]) / 4
    np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-7)


def test_all_samples_ignored_gives_zero_and_no_samples_give_nan():
    z = _logits(3, 4)
    assert float(sce(z, ms.Tensor([-1, -1, -1]), "mean", -1).asnumpy()) == 0.0
    assert np.isnan(float(sce(_logits(0, 4), ms.Tensor(np.zeros(0, np.int32)), "mean").asnumpy()))


def test_errors_name_the_op_or_the_loss():
    z = _logits(2, 3)
    with pytest.raises(ValueError, match=r"op 'sparse_softmax_cross_entropy': label 3 is out of range for 3 "
                                         r"classes \(expected 0 <= label < 3\)"):
        sce(z, ms.Tensor([0, 3]))
    with pytest.raises(ValueError, match="label -1 is out of range for 3 classes"):
        sce(z, ms.Tensor([-1, 0]))
    with pytest.raises(ValueError, match=r"labels must have shape \[2\] for logits of shape \[2, 3\], got \[3\]"):
        sce(z, ms.Tensor([0, 1, 2]))
    with pytest.raises(TypeError, match="op 'sparse_softmax_cross_entropy': labels must be integer class "
                                        "indices, got float32"):
        sce(z, ms.Tensor([0.0, 1.0]))
    with pytest.raises(TypeError, match="input 0 must be float16, float32 or float64, got int64"):
        sce(ms.Tensor([[1, 2]]), ms.Tensor([0]))
    with pytest.raises(ValueError, match=r"reduction must be one of \['none', 'mean', 'sum'\], got 'avg'"):
        sce(z, ms.Tensor([0, 1]), "avg")
    with pytest.raises(ValueError, match=r"dloss must have shape \[\], got \[2\]"):
        sce_grad(z, ms.Tensor([0, 1]), ms.Tensor([1.0, 1.0]), "mean")


def test_losses_using_the_fused_op_match_their_general_paths():
    z = _logits(6, 5)
    y = ms.Tensor(RNG.integers(0, 5, 6).astype(np.int32))
    hot = ms.Tensor(np.eye(5, dtype=np.float32)[y.asnumpy()])
    for red in ("none", "mean", "sum"):
        sparse = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=red)
        dense = nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction=red)
        np.testing.assert_allclose(sparse(z, y).asnumpy(), dense(z, hot).asnumpy(), rtol=1e-5, atol=1e-6)
        gs = ms.grad(lambda a: sparse(a, y))(z).asnumpy()
        gd = ms.grad(lambda a: dense(a, hot))(z).asnumpy()
        np.testing.assert_allclose(gs, gd, rtol=1e-5, atol=1e-7)
    # CrossEntropyLoss with an ignored sample: the fused path against the weighted (general) one
    yi = ms.Tensor(np.array([0, -100, 4, 1, -100, 2], np.int32))
    fused = nn.CrossEntropyLoss()
    general = nn.CrossEntropyLoss(weight=ms.Tensor(np.ones(5, np.float32)))
    np.testing.assert_allclose(fused(z, yi).asnumpy(), general(z, yi).asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(ms.grad(lambda a: fused(a, yi))(z).asnumpy(),
                               ms.grad(lambda a: general(a, yi))(z).asnumpy(), rtol=1e-5, atol=1e-7)
    with pytest.raises(ValueError, match="CrossEntropyLoss: label 5 is out of range for 5 classes"):
        fused(z, ms.Tensor(np.array([0, 5, 1, 1, 1, 1], np.int32)))


def test_label_check_is_repeated_by_graph_replays():
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    f = ms.jit(lambda a, b: loss(a, b))
    z = _logits(3, 4)
    for labels in ([0, 1, 3], [2, 2, 0]):
        y = ms.Tensor(np.array(labels, np.int32))
        np.testing.assert_allclose(f(z, y).asnumpy(), loss(z, y).asnumpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="SoftmaxCrossEntropyWithLogits: label 4 is out of range for 4 classes"):
        f(z, ms.Tensor(np.array([0, 4, 1], np.int32)))
    assert f.stats["replayed"] >= 1


# ------------------------------------------------------------------ ops.dense (nn.Dense's one op)
@pytest.mark.parametrize("x_shape,b_shape", [((4, 3), (2,)), ((2, 4, 3), (2,)), ((3,), (2,)), ((4, 3), ())])
def test_dense_values_and_gradients(x_shape, b_shape):
    x, w, b = _logits(*x_shape), _logits(2, 3), _logits(*b_shape)
    want = x.asnumpy() @ w.asnumpy().T + b.asnumpy()
    np.testing.assert_allclose(ops.dense(x, w, b).asnumpy(), want, rtol=1e-5, atol=1e-5)
    check_grad(lambda a, c, d: ops.dense(a, c, d), x, w, b)
    # the gradient is built from ops: differentiable again
    check_grad(lambda a, c, d: ms.grad(lambda p, q, r: ops.reduce_sum(ops.square(ops.dense(p, q, r))),
                                       (0, 1, 2))(a, c, d)[1], x, w, b)


def test_dense_documented_example_and_forms_without_fusion():
    x = ms.Tensor([[-1.0, 1.0, 2.0], [-3.0, -3.0, 1.0]])
    w = ms.Tensor([[-2.0, -2.0, -2.0], [0.0, -1.0, 0.0]])
    np.testing.assert_allclose(ops.dense(x, w, ms.Tensor([0.0, 1.0])).asnumpy(), [[-4, 0], [10, 4]])
    np.testing.assert_allclose(ops.dense(x, w).asnumpy(), [[-4, -1], [10, 3]])
    np.testing.assert_allclose(ops.dense(x, ms.Tensor([1.0, 0.0, 1.0]), ms.Tensor(0.5)).asnumpy(), [1.5, -1.5])


def test_dense_errors_name_the_op():
    x, w = _logits(4, 3), _logits(2, 3)
    with pytest.raises(ValueError, match=r"op 'dense': input of shape \[4, 2\] does not match weight of shape"):
        ops.dense(_logits(4, 2), w, _logits(2))
    with pytest.raises(ValueError, match=r"op 'dense': bias must have shape \[2\] \(out_channels\) or \[\], got \[3\]"):
        ops.dense(x, w, _logits(3))
    with pytest.raises(TypeError, match="op 'dense': weight must be a Tensor, got list"):
        ops.dense(x, [[1.0, 2.0, 3.0]])


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_label_range_check_for_every_integer_dtype(dtype):
    from mscustom.ops.nn.loss_fused import LabelRange
    check = LabelRange("Loss", 10)
    check(np.array([0, 9, 3], dtype))                        # in range: nothing happens
    check(np.array([], dtype))
    bad = [0, 10] if dtype.startswith("u") else [0, -1]
    with pytest.raises(ValueError, match=f"Loss: label {bad[1]} is out of range for 10 classes"):
        check(np.array(bad, dtype))


def test_row_start_cache_stays_bounded_when_batch_sizes_keep_changing():
    from mscustom.ops.nn import loss_fused
    for n in range(1, 3 * loss_fused._MAX_STARTS):
        z = _logits(n, 3)
        y = ms.Tensor(np.zeros(n, np.int32))
        np.testing.assert_allclose(sce(z, y, "sum").asnumpy(), _reference(z, y, "sum"), rtol=1e-5, atol=1e-6)
    assert len(loss_fused._STARTS) <= loss_fused._MAX_STARTS


def test_gradient_op_called_directly_checks_the_labels_range():
    z = _logits(4, 3)
    d = ms.Tensor(np.asarray(1.0, np.float32))
    for bad in (3, -1):
        y = ms.Tensor(np.array([0, bad, 1, 2], np.int32))
        with pytest.raises(ValueError, match=f"op 'sparse_softmax_cross_entropy_grad': label {bad} is out of "
                                             "range for 3 classes"):
            sce_grad(z, y, d)
