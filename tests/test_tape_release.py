"""A top-level gradient frees its recorded graph by reference counting (no cyclic garbage left)."""

import gc
import weakref

import numpy as np

import mscustom as ms
from mscustom import ops


def test_graph_of_a_top_level_gradient_is_freed_without_the_cycle_collector():
    kept = []

    def f(x):
        h = ops.relu(x * 2.0)
        kept.append(weakref.ref(h._node))
        return ops.reduce_sum(ops.square(h))

    x = ms.Tensor(np.arange(-2.0, 3.0, dtype=np.float32))
    gc.disable()
    try:
        loss, g = ms.value_and_grad(f)(x)
        assert kept[0]() is None            # the node died with its last reference: no cycle held it
    finally:
        gc.enable()
    np.testing.assert_allclose(g.asnumpy(), 8 * np.maximum(x.asnumpy(), 0))


def test_grad_of_grad_still_reads_the_inner_graph():
    x = ms.Tensor(np.array([0.5, -1.0, 2.0], np.float32))
    inner = ms.grad(lambda a: ops.reduce_sum(a * a * a))
    g2 = ms.grad(lambda a: ops.reduce_sum(inner(a)))(x)
    np.testing.assert_allclose(g2.asnumpy(), 6 * x.asnumpy(), rtol=1e-6)
