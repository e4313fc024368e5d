"""Small synthetic data sets for examples and tests, as NumPy arrays.

``spirals`` draws interleaved spiral arms in 2-D, one arm per class: a
classic data set that a linear model cannot separate but a small MLP can.
``train_test_split`` shuffles and splits, and ``minibatches`` iterates over
shuffled batches. Everything takes a seed, so runs are reproducible.

Example::

    x, y = spirals(1000, n_classes=3, noise=0.04, seed=0)     # (3000, 2) float32, (3000,) int64
    (x_tr, y_tr), (x_te, y_te) = train_test_split(x, y, test_fraction=0.2, seed=0)
"""

import numpy as np

__all__ = ["spirals", "train_test_split", "minibatches"]


def spirals(n_per_class, n_classes=3, noise=0.04, turns=1.0, seed=0):
    """``n_per_class`` points on each of ``n_classes`` interleaved spiral arms.

    Point ``i`` of arm ``k`` lies at radius ``r = i / n`` (up to 1) and angle
    ``2*pi*(k / n_classes + turns * r)``, plus isotropic Gaussian noise of
    standard deviation ``noise`` on both coordinates, so neighbouring arms
    (``1 / (n_classes * turns)`` apart) blur into each other a little.
    Returns ``(x, y)``: float32 points (N, 2) and int64 labels (N,),
    N = n_per_class * n_classes, ordered by class.

    Example::

        x, y = spirals(200, n_classes=3, seed=1)
    """
    if not isinstance(n_per_class, (int, np.integer)) or n_per_class < 1:
        raise ValueError(f"spirals: n_per_class must be a positive int, got {n_per_class!r}")
    if not isinstance(n_classes, (int, np.integer)) or n_classes < 2:
        raise ValueError(f"spirals: n_classes must be an int >= 2, got {n_classes!r}")
    if not noise >= 0:
        raise ValueError(f"spirals: noise must be >= 0, got {noise!r}")
    rng = np.random.default_rng(seed)
    r = np.linspace(0.0, 1.0, n_per_class)
    xs, ys = [], []
    for k in range(n_classes):
        theta = 2 * np.pi * (k / n_classes + turns * r)
        pts = np.stack([r * np.cos(theta), r * np.sin(theta)], axis=1)
        xs.append(pts + rng.normal(0.0, noise, pts.shape))
        ys.append(np.full(n_per_class, k, np.int64))
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys)


def train_test_split(x, y, test_fraction=0.2, seed=0):
    """Shuffle ``(x, y)`` together and split off ``test_fraction`` of it for testing.

    Returns ``((x_train, y_train), (x_test, y_test))``.

    Example::

        (x_tr, y_tr), (x_te, y_te) = train_test_split(x, y, 0.25, seed=0)
    """
    if len(x) != len(y):
        raise ValueError(f"train_test_split: x and y must have the same length, got {len(x)} and {len(y)}")
    if not 0 < test_fraction < 1:
        raise ValueError(f"train_test_split: test_fraction must be in (0, 1), got {test_fraction!r}")
    order = np.random.default_rng(seed).permutation(len(x))
    n_test = max(1, int(round(len(x) * test_fraction)))
    test, train = order[:n_test], order[n_test:]
    return (x[train], y[train]), (x[test], y[test])


def minibatches(x, y, batch_size, rng):
    """Yield ``(x_batch, y_batch)`` over one shuffled pass (the last batch may be smaller).

    ``rng`` is a NumPy Generator, so successive epochs see different orders.

    Example::

        for xb, yb in minibatches(x, y, 64, np.random.default_rng(0)):
            ...
    """
    if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"minibatches: batch_size must be a positive int, got {batch_size!r}")
    order = rng.permutation(len(x))
    for start in range(0, len(x), batch_size):
        idx = order[start:start + batch_size]
        yield x[idx], y[idx]
