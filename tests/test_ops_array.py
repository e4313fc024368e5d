"""Shape ops, indexing, cast/where/constants against NumPy and finite differences."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import mscustom as ms
from mscustom import ops
from mscustom.testing import check_grad


def T(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def arange(*shape):
    return T(np.arange(int(np.prod(shape))).reshape(shape))


# ---------------------------------------------------------------- reshape family
def test_reshape_forward_gradient_and_errors(rng):
    x = arange(2, 3, 4)
    np.testing.assert_array_equal(ops.reshape(x, (4, -1)).asnumpy(), x.asnumpy().reshape(4, 6))
    np.testing.assert_array_equal(x.reshape(6, 4).asnumpy(), x.asnumpy().reshape(6, 4))
    w = T(rng.normal(size=(3, 4)))
    check_grad(lambda t: ops.reshape(t, (3, 4)) * w, T(rng.normal(size=(2, 6))))
    with pytest.raises(ValueError, match=r"op 'reshape': cannot reshape a tensor of shape \[2, 3, 4\] into "
                                         r"shape \[5, -1\]"):
        ops.reshape(x, (5, -1))
    with pytest.raises(TypeError, match=r"op 'reshape': shape must be a tuple of ints, got \(2, 'a'\)"):
        ops.reshape(x, (2, "a"))
    assert ops.reshape(x, 24).shape == (24,) and ops.reshape(x, [np.int64(4), -1]).shape == (4, 6)


def test_expand_dims_and_squeeze(rng):
    x = arange(2, 3)
    for axis in (0, 1, 2, -1, -3):
        np.testing.assert_array_equal(ops.expand_dims(x, axis).asnumpy(), np.expand_dims(x.asnumpy(), axis))
    y = arange(1, 3, 1)
    assert ops.squeeze(y).shape == (3,)
    assert ops.squeeze(y, 0).shape == (3, 1)
    assert ops.squeeze(y, (0, -1)).shape == (3,)
    assert y.squeeze([2]).shape == (1, 3)
    check_grad(lambda t: ops.squeeze(ops.expand_dims(t, 1) * 2.0, 1), T(rng.normal(size=(2, 3))))
    assert ops.squeeze(y, 1).shape == (1, 3, 1)          # MindSpore 2.10: an axis not of size 1 stays
    assert ops.squeeze(y, (0, 1)).shape == (3, 1) and y.squeeze(1).shape == (1, 3, 1)
    with pytest.raises(ValueError, match=r"op 'squeeze'"):
        ops.squeeze(y, 3)
    with pytest.raises(ValueError, match=r"op 'expand_dims': axis 3 is out of range for inserting an axis "
                                         r"into a tensor of rank 2 \(expected -3 <= axis <= 2\)"):
        ops.expand_dims(x, 3)


def test_broadcast_to_forward_gradient_and_errors(rng):
    x = T([[1.0], [2.0]])
    out = ops.broadcast_to(x, (3, 2, 4))
    np.testing.assert_array_equal(out.asnumpy(), np.broadcast_to(x.asnumpy(), (3, 2, 4)))
    assert ops.broadcast_to(x, (-1, 5)).shape == (2, 5)
    g = ms.grad(lambda t: ops.broadcast_to(t, (3, 2, 4)).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), [[12.0], [12.0]])
    w = T(rng.normal(size=(3, 2, 4)))
    check_grad(lambda t: ops.broadcast_to(t, (3, 2, 4)) * w, x)
    with pytest.raises(ValueError, match=r"op 'broadcast_to': cannot broadcast shape \[2, 1\] to \[3, 4\]"):
        ops.broadcast_to(x, (3, 4))


@pytest.mark.parametrize("perm", [None, (0, 1, 2), (2, 0, 1), (1, 2, 0), (-1, 0, 1)])
def test_transpose(perm, rng):
    x = T(rng.normal(size=(2, 3, 4)))
    out = ops.transpose(x, perm)
    expect = np.transpose(x.asnumpy(), perm)
    np.testing.assert_array_equal(out.asnumpy(), expect)
    assert out.asnumpy().flags.c_contiguous
    w = T(rng.normal(size=expect.shape))
    check_grad(lambda t: ops.transpose(t, perm) * w, x)


def test_transpose_errors_and_tensor_forms():
    x = arange(2, 3)
    np.testing.assert_array_equal(x.T.asnumpy(), x.asnumpy().T)
    np.testing.assert_array_equal(x.transpose(1, 0).asnumpy(), x.asnumpy().T)
    with pytest.raises(ValueError, match=r"op 'transpose': perm \[0, 0\] is not a permutation of the 2 axes "
                                         r"of a tensor of shape \[2, 3\]"):
        ops.transpose(x, (0, 0))
    with pytest.raises(ValueError, match=r"op 'transpose': perm \[0\] is not a permutation"):
        ops.transpose(x, (0,))
    with pytest.raises(TypeError, match=r"op 'transpose': perm must be a tuple of ints, got \[0.5, 1\]"):
        ops.transpose(x, [0.5, 1])


# ---------------------------------------------------------------- concat / stack
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_forward_and_gradient(axis, rng):
    a, b, c = (T(rng.normal(size=s)) for s in ((2, 3), (2, 3), (2, 3)))
    if axis == 0:
        b = T(rng.normal(size=(4, 3)))
    else:
        b = T(rng.normal(size=(2, 5)))
    out = ops.concat([a, b, c], axis)
    expect = np.concatenate([a.asnumpy(), b.asnumpy(), c.asnumpy()], axis)
    np.testing.assert_array_equal(out.asnumpy(), expect)
    w = T(rng.normal(size=out.shape))
    check_grad(lambda x, y, z: ops.concat((x, y, z), axis) * w, a, b, c)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_stack_forward_and_gradient(axis, rng):
    a, b = T(rng.normal(size=(2, 3))), T(rng.normal(size=(2, 3)))
    out = ops.stack([a, b], axis)
    np.testing.assert_array_equal(out.asnumpy(), np.stack([a.asnumpy(), b.asnumpy()], axis))
    w = T(rng.normal(size=out.shape))
    check_grad(lambda x, y: ops.stack([x, y], axis) * w, a, b)


def test_concat_stack_promote_and_give_no_gradient_to_integers():
    f, i = T([1.5]), ms.Tensor([2])
    out = ops.concat([f, i])
    assert out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), [1.5, 2.0])
    gf, gi = ms.grad(lambda a, b: (ops.stack([a, b]) * 3.0).sum(), grad_position=(0, 1))(f, i)
    np.testing.assert_array_equal(gf.asnumpy(), [3.0])
    np.testing.assert_array_equal(gi.asnumpy(), [0])
    assert gi.dtype == ms.int64


def test_concat_and_stack_errors():
    with pytest.raises(ValueError, match=r"op 'concat': input shapes must match except along axis 0, got "
                                         r"\[2, 3\], \[2, 4\]"):
        ops.concat([arange(2, 3), arange(2, 4)])
    with pytest.raises(ValueError, match=r"op 'concat': all inputs need the same rank of at least 1"):
        ops.concat([arange(2, 3), arange(3)])
    with pytest.raises(ValueError, match=r"op 'concat': axis 2 is out of range for a tensor of rank 2"):
        ops.concat([arange(2, 3), arange(2, 3)], 2)
    with pytest.raises(ValueError, match=r"op 'stack': all inputs need the same shape, got \[2\], \[3\]"):
        ops.stack([arange(2), arange(3)])
    with pytest.raises(ValueError, match="op 'stack': needs at least one tensor"):
        ops.stack([])
    with pytest.raises(TypeError, match="op 'concat': expects a list or tuple of tensors, got Tensor"):
        ops.concat(arange(2))


# ---------------------------------------------------------------- indexing
BASE = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
INDICES = [
    0, -1, (1, 2), (1, 2, 3), slice(1, None), (slice(None), 1), (Ellipsis, 2), (None, 1),
    (slice(None, None, 2), slice(1, 3), Ellipsis), (1, None, slice(None), -2), (),
    [0, 2, 2], ([0, 2], [1, 3]), (slice(None), [3, 0, 3]), (1, [0, 0, 3], slice(1, 3)),
    (Ellipsis, [1, 4]), ([[0], [2]], [[1, 2]]), np.array([True, False, True]),
    (slice(None), np.array([True, False, True, False])), BASE[..., 0] > 20, BASE > 30,
    (BASE[:, :, 0] % 10 == 0, slice(2, 4)), ([0, 1], Ellipsis, np.array([True, False, False, True, False])),
]


@pytest.mark.parametrize("index", INDICES, ids=[repr(i)[:40] for i in range(len(INDICES))])
def test_getitem_forward_matches_numpy(index):
    x = ms.Tensor(BASE)
    out = x[index]
    np.testing.assert_array_equal(out.asnumpy(), BASE[index])
    assert out.dtype == ms.float32


@pytest.mark.parametrize("index", INDICES, ids=[repr(i)[:40] for i in range(len(INDICES))])
def test_getitem_gradient_scatters_with_add_at(index):
    x = ms.Tensor(BASE)
    w = np.random.default_rng(1).normal(size=BASE[index].shape).astype(np.float32)
    g = ms.grad(lambda t: (t[index] * ms.Tensor(w)).sum())(x)
    expect = np.zeros_like(BASE)
    np.add.at(expect, index, w)
    np.testing.assert_allclose(g.asnumpy(), expect, rtol=1e-6)


def test_getitem_gradient_numerically_and_second_order(rng):
    x = T(rng.normal(size=(4, 3)))
    check_grad(lambda t: t[[0, 0, 3], 1:] * t[1:, [2]], x)
    check_grad(lambda t: t[t.asnumpy() > 0] ** 2, x)
    # grad of grad through indexing: d/dx sum(x[i]**3) = 3 x[i]**2 scattered; again: 6 x (times count)
    d2 = ms.grad(ms.grad(lambda t: (t[[0, 0, 2]] ** 3).sum()))(T([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(d2.asnumpy(), [12.0, 0.0, 18.0])


@given(st.data())
def test_getitem_random_basic_indices(data):
    x = ms.Tensor(BASE)
    idx = []
    for side in BASE.shape:
        kind = data.draw(st.sampled_from(["int", "slice", "all"]))
        if kind == "int":
            idx.append(data.draw(st.integers(-side, side - 1)))
        elif kind == "slice":
            idx.append(slice(data.draw(st.integers(-side, side)), data.draw(st.integers(-side, side)),
                             data.draw(st.sampled_from([None, 1, 2, -1]))))
        else:
            idx.append(slice(None))
    idx = tuple(idx)
    np.testing.assert_array_equal(x[idx].asnumpy(), BASE[idx])
    w = np.arange(BASE[idx].size, dtype=np.float32).reshape(BASE[idx].shape) + 1
    g = ms.grad(lambda t: (t[idx] * ms.Tensor(w)).sum())(x)
    expect = np.zeros_like(BASE)
    expect[idx] = w
    np.testing.assert_array_equal(g.asnumpy(), expect)


def test_getitem_result_is_a_copy_and_index_tensors_work():
    x = ms.Tensor(BASE.copy())
    row = x[0]
    row[0] = -1.0
    assert x.asnumpy()[0, 0, 0] == 0.0
    i = ms.Tensor([2, 0])
    np.testing.assert_array_equal(x[i].asnumpy(), BASE[[2, 0]])
    np.testing.assert_array_equal(x[ms.Tensor(1)].asnumpy(), BASE[1])
    np.testing.assert_array_equal(x[ms.Tensor(0):ms.Tensor(2), 1].asnumpy(), BASE[0:2, 1])
    np.testing.assert_array_equal(x[x > 50].asnumpy(), BASE[BASE > 50])
    assert x[[]].shape == (0, 4, 5)


def test_getitem_errors():
    x = ms.Tensor(BASE)
    with pytest.raises(IndexError, match=r"op 'getitem': index 3 is out of bounds for axis 0 with size 3 "
                                         r"\(tensor shape \[3, 4, 5\]"):
        x[3]
    with pytest.raises(IndexError, match=r"op 'getitem': too many indices for a tensor of rank 3"):
        x[0, 0, 0, 0]
    with pytest.raises(IndexError, match=r"op 'getitem': a boolean mask of shape \[4\] does not match the "
                                         r"indexed dimensions \[3\]"):
        x[np.array([True, False, True, False])]
    with pytest.raises(IndexError, match=r"op 'getitem': index 7 is out of bounds for axis 1 with size 4"):
        x[:, [0, 7]]
    with pytest.raises(TypeError, match="op 'getitem': an index must be an int, a slice, None, Ellipsis, or "
                                        "an integer or boolean array/tensor; got float"):
        x[1.5]
    with pytest.raises(IndexError, match="op 'getitem': an index can have only one Ellipsis"):
        x[..., 0, ...]


def test_integer_indices_share_one_plan():
    """x[i] in a loop must not grow the plan cache with every i (ints are inputs, not attributes)."""
    op = ms.ops.get_op("getitem")
    x = arange(50, 2)
    x[0], x[0, 1]
    before = len(op.plans)
    for i in range(50):
        assert x[i].asnumpy().tolist() == [2.0 * i, 2.0 * i + 1]
        assert x[i, -1].item() == 2.0 * i + 1
    assert len(op.plans) == before


def test_iterating_a_tensor_yields_rows():
    rows = list(arange(3, 2))
    assert len(rows) == 3
    np.testing.assert_array_equal(rows[2].asnumpy(), [4.0, 5.0])


# ---------------------------------------------------------------- cast / constants / where
def test_cast_forward_and_gradient():
    x = T([1.7, -2.2])
    i = ops.cast(x, ms.int32)
    assert i.dtype == ms.int32
    np.testing.assert_array_equal(i.asnumpy(), [1, -2])
    assert x.astype("float64").dtype == ms.float64
    assert ops.cast(x, np.float16).dtype == ms.float16
    g = ms.grad(lambda t: (ops.cast(t, ms.float64) * 2.0).sum())(x)
    assert g.dtype == ms.float32
    np.testing.assert_array_equal(g.asnumpy(), [2.0, 2.0])
    # a path through an integer cast carries no gradient
    g = ms.grad(lambda t: (ops.cast(ops.cast(t, ms.int32), ms.float32) + t).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), [1.0, 1.0])
    with pytest.raises(TypeError, match="unknown dtype name 'float7'"):
        ops.cast(x, "float7")


def test_zeros_like_ones_like_and_stop_gradient():
    x = T([[1.0, 2.0]])
    z, o = ops.zeros_like(x), ops.ones_like(ms.Tensor([3, 4]))
    np.testing.assert_array_equal(z.asnumpy(), [[0.0, 0.0]])
    assert z.dtype == ms.float32 and o.dtype == ms.int64
    np.testing.assert_array_equal(o.asnumpy(), [1, 1])
    g = ms.grad(lambda t: (t * ops.stop_gradient(t) + ops.ones_like(t) * t + ops.zeros_like(t)).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), [[2.0, 3.0]])


def test_where_forward_gradient_and_errors(rng):
    c = ms.Tensor(np.array([[True, False, True]]))
    x = T(rng.normal(size=(2, 3)))
    y = T(rng.normal(size=(3,)))
    out = ops.where(c, x, y)
    np.testing.assert_array_equal(out.asnumpy(), np.where(c.asnumpy(), x.asnumpy(), y.asnumpy()))
    np.testing.assert_array_equal(ops.where(c, x, 0.0).asnumpy(), np.where(c.asnumpy(), x.asnumpy(), 0))
    w = T(rng.normal(size=(2, 3)))
    check_grad(lambda a, b: ops.where(c, a, b) * w, x, y)
    gx, gy = ms.grad(lambda a, b: ops.where(c, a, b).sum(), grad_position=(0, 1))(x, y)
    np.testing.assert_array_equal(gx.asnumpy(), [[1, 0, 1], [1, 0, 1]])
    np.testing.assert_array_equal(gy.asnumpy(), [0, 2, 0])
    with pytest.raises(TypeError, match="op 'where': the condition must be a bool tensor, got float32"):
        ops.where(x, x, y)
    with pytest.raises(ValueError, match=r"op 'where': input shapes \[1, 3\] and \[2, 3\] and \[4\] cannot "
                                         r"be broadcast together"):
        ops.where(c, x, T(np.ones(4)))
