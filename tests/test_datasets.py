"""``mscustom.datasets``: the spirals toy data, the split and the mini-batches (moved from test_demo.py)."""

import numpy as np
import pytest

from mscustom.datasets import minibatches, spirals, train_test_split


def test_spirals_shapes_labels_and_determinism():
    x, y = spirals(50, n_classes=3, noise=0.0, seed=1)
    assert x.shape == (150, 2) and x.dtype == np.float32 and y.dtype == np.int64
    assert np.bincount(y).tolist() == [50, 50, 50]
    np.testing.assert_allclose(np.hypot(x[:50, 0], x[:50, 1]), np.linspace(0, 1, 50), atol=1e-6)
    # without noise, arm k is arm 0 rotated by k * 120 degrees
    rot = np.array([[np.cos(2 * np.pi / 3), -np.sin(2 * np.pi / 3)], [np.sin(2 * np.pi / 3), np.cos(2 * np.pi / 3)]])
    np.testing.assert_allclose(x[50:100], x[:50] @ rot.T, atol=1e-6)
    a, _ = spirals(50, noise=0.05, seed=2)
    b, _ = spirals(50, noise=0.05, seed=2)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, spirals(50, noise=0.05, seed=3)[0])
    with pytest.raises(ValueError, match="spirals: n_classes must be an int >= 2, got 1"):
        spirals(10, n_classes=1)


def test_split_and_minibatches_cover_every_point():
    x, y = spirals(40, seed=0)
    (xtr, ytr), (xte, yte) = train_test_split(x, y, test_fraction=0.25, seed=0)
    assert len(xte) == 30 and len(xtr) == 90
    both = np.concatenate([xtr, xte])
    assert sorted(map(tuple, both.tolist())) == sorted(map(tuple, x.tolist()))
    batches = list(minibatches(xtr, ytr, 32, np.random.default_rng(0)))
    assert [len(b[0]) for b in batches] == [32, 32, 26]
    seen = np.concatenate([b[0] for b in batches])
    assert sorted(map(tuple, seen.tolist())) == sorted(map(tuple, xtr.tolist()))
    with pytest.raises(ValueError, match="train_test_split: test_fraction must be in"):
        train_test_split(x, y, test_fraction=1.5)
