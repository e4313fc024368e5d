"""Graph replays write a value straight into the array its last reader would copy it into
(``FInputDestinations``, what gradient buckets use), and only where that is safe."""

import numpy as np

import mscustom as ms
from mscustom import extend, ops
from mscustom._core.dispatch import call


def _sink(dest, after=None):
    """An op copying its input into ``dest`` (skipping the copy when given ``dest`` itself)."""
    seen = []
    op = extend.def_op("test_dest_sink", inputs=("x",), register=False)
    op.attrs["FRandom"] = True                   # a kernel with an effect: never folded or merged
    op.attrs["FInputDestinations"] = lambda attrs: [dest if after is None else (dest, after)]
    extend.def_infer(op, shape=lambda attrs, shapes: [[]], dtype=lambda attrs, dtypes: [dtypes[0]])

    def kernel(attrs, ins):
        seen.append(ins[0] is dest)
        if ins[0] is not dest:
            np.copyto(dest, ins[0])
        return np.zeros((), dest.dtype)

    extend.def_kernel(op, kernel, target="CPU")
    return op, seen


def _ab():
    rng = np.random.default_rng(0)
    return (ms.Tensor(rng.standard_normal((3, 4)).astype(np.float32)),
            ms.Tensor(rng.standard_normal((4, 5)).astype(np.float32)))


def test_a_replay_writes_the_value_into_the_destination_and_calls_after():
    dest = np.zeros((3, 5), np.float32)
    landed = []
    op, seen = _sink(dest, after=lambda arr: landed.append(arr is dest))
    f = ms.jit(lambda a, b: call(op, (ops.matmul(a, b) + 1.0,), {}))
    a, b = _ab()
    for _ in range(3):
        f(a, b)
        np.testing.assert_array_equal(dest, a.asnumpy() @ b.asnumpy() + 1.0)
    assert f.stats["replayed"] == 2
    assert seen == [False, True, True]           # recorded eagerly (copied), then written in place
    assert landed == [True, True]


def test_a_value_read_after_the_copy_or_returned_keeps_its_own_buffer():
    dest = np.zeros((3, 5), np.float32)
    op, seen = _sink(dest)
    later = ms.jit(lambda a, b: (lambda y: (call(op, (y,), {}), y * 2.0))(ops.matmul(a, b) + 1.0))
    returned = ms.jit(lambda a, b: (lambda y: (call(op, (y,), {}), y))(ops.matmul(a, b) + 1.0))
    a, b = _ab()
    want = a.asnumpy() @ b.asnumpy() + 1.0
    for f, expect in ((later, want * 2.0), (returned, want)):
        seen.clear()
        for _ in range(3):
            _, out = f(a, b)
            np.testing.assert_array_equal(out.asnumpy(), expect)
            np.testing.assert_array_equal(dest, want)
        assert f.stats["replayed"] == 2 and seen == [False, False, False]


def test_a_value_passed_twice_is_not_pinned():
    dest = np.zeros((3, 5), np.float32)
    op = extend.def_op("test_dest_pair", inputs=("x", "y"), register=False)
    op.attrs["FRandom"] = True
    op.attrs["FInputDestinations"] = lambda attrs: [dest, None]
    extend.def_infer(op, shape=lambda attrs, shapes: [[]], dtype=lambda attrs, dtypes: [dtypes[0]])
    seen = []

    def kernel(attrs, ins):
        seen.append(ins[0] is dest)
        np.copyto(dest, ins[0] + ins[1])
        return np.zeros((), dest.dtype)

    extend.def_kernel(op, kernel, target="CPU")
    f = ms.jit(lambda a, b: (lambda y: call(op, (y, y), {}))(ops.matmul(a, b) + 1.0))
    a, b = _ab()
    for _ in range(3):
        f(a, b)
        np.testing.assert_array_equal(dest, 2 * (a.asnumpy() @ b.asnumpy() + 1.0))
    assert seen == [False, False, False]


def test_after_runs_only_when_the_copying_step_is_the_only_reader():
    dest = np.zeros((3, 5), np.float32)
    landed = []
    op, seen = _sink(dest, after=lambda arr: landed.append(True))
    f = ms.jit(lambda a, b: (lambda y: (ops.ReduceSum()(y), call(op, (y,), {})))(ops.matmul(a, b) + 1.0))
    a, b = _ab()
    want = a.asnumpy() @ b.asnumpy() + 1.0
    for _ in range(3):
        total, _ = f(a, b)
        np.testing.assert_allclose(total.asnumpy(), want.sum(), rtol=1e-6)
        np.testing.assert_array_equal(dest, want)
    assert seen == [False, True, True] and landed == []     # written in place, but never changed by after
