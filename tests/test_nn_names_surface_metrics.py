"""HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance: eval results are MindSpore 2.10's for the same
updates, except where its code departs from its documented formulas (see test_documented_formulas)."""

import numpy as np
import pytest

from mscustom import nn, train

METRIC_CASES = [
    ('hd', 'nn.HausdorffDistance()', ['(np.array([[0, 0, 0, 0, 0, 0], [0, 1, 1, 1, 0, 0], [0, 1, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0], [0, 0, 0, 1, 0, 0]]), np.array([[0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 1, 0], [0, 0, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0], [0, 1, 1, 0, 0, 0]]), 1)'], '', 1.0),
    ('hd_dir', 'nn.HausdorffDistance(directed=True)', ['(np.array([[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 0, 0]]), np.array([[0, 0, 0, 0, 0, 0], [0, 1, 1, 1, 0, 0], [0, 1, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0], [0, 0, 0, 1, 0, 0]]), 1)'], '', 1.0),
    ('hd_cheb', "nn.HausdorffDistance('chessboard')", ['(np.array([[0, 0, 0, 0, 0, 0], [0, 1, 1, 1, 0, 0], [0, 1, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0], [0, 0, 0, 1, 0, 0]]), np.array([[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 0, 0]]), 1)'], '', 1.0),
    ('hd_taxi_nocrop', "nn.HausdorffDistance('taxicab', crop=False)", ['(np.array([[0, 0, 0, 0, 0, 0], [0, 1, 1, 1, 0, 0], [0, 1, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0], [0, 0, 0, 1, 0, 0]]), np.array([[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 0, 0]]), 1)'], '', 2.0),
    ('hd_pct', 'nn.HausdorffDistance(percentile=50.0)', ['(np.array([[0, 0, 0, 0, 0, 0], [0, 1, 1, 1, 0, 0], [0, 1, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0], [0, 0, 0, 1, 0, 0]]), np.array([[0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 1, 0], [0, 0, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0], [0, 1, 1, 0, 0, 0]]), 1)'], '', 0.5),
    ('hd_3d', 'nn.HausdorffDistance()', ['((np.arange(4*5*5).reshape(4, 5, 5) % 7 < 3).astype(np.int64), (np.arange(4*5*5).reshape(4, 5, 5) % 5 < 2).astype(np.int64), 1)'], '', 3.0),
    ('hd_label0', 'nn.HausdorffDistance()', ['(np.array([[0, 0, 0, 0, 0, 0], [0, 1, 1, 1, 0, 0], [0, 1, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0], [0, 0, 0, 1, 0, 0]]), np.array([[0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 1, 0], [0, 0, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0], [0, 1, 1, 0, 0, 0]]), 0)'], '', 1.0),
    ('msd', 'nn.MeanSurfaceDistance()', ['(np.array([[0, 0, 0, 0, 0, 0], [0, 1, 1, 1, 0, 0], [0, 1, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0], [0, 0, 0, 1, 0, 0]]), np.array([[0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 1, 0], [0, 0, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0], [0, 1, 1, 0, 0, 0]]), 1)'], '', 0.4444444444),
    ('msd_cheb', "nn.MeanSurfaceDistance(distance_metric='chessboard')", ['(np.array([[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 0, 0]]), np.array([[0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 1, 0], [0, 0, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0], [0, 1, 1, 0, 0, 0]]), 1)'], '', 0.5),
    ('msd_3d', 'nn.MeanSurfaceDistance()', ['((np.arange(4*5*5).reshape(4, 5, 5) % 7 < 3).astype(np.int64), (np.arange(4*5*5).reshape(4, 5, 5) % 5 < 2).astype(np.int64), 1)'], '', 1.2272727273),
]
A = np.array([[0, 0, 0, 0, 0, 0], [0, 1, 1, 1, 0, 0], [0, 1, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0], [0, 0, 0, 1, 0, 0]])
B = np.array([[0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 1, 0], [0, 0, 1, 1, 1, 0], [0, 1, 1, 1, 1, 0], [0, 1, 1, 0, 0, 0]])
C = np.array([[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 0, 0]])


@pytest.mark.parametrize("case", METRIC_CASES, ids=[c[0] for c in METRIC_CASES])
def test_surface_metric(case):
    cid, ctor, updates, ev, expected = case
    m = eval(ctor, {"nn": nn, "np": np})
    for u in updates:
        m.update(*eval(u, {"np": np}))
    np.testing.assert_allclose(m.eval(), expected, rtol=1e-9)


@pytest.mark.parametrize("ctor,a,b,expected,ms_value", [
    # symmetric: the mean over both surfaces' voxels (MindSpore 2.10 averages the two directed means)
    ("nn.MeanSurfaceDistance(symmetric=True)", A, B, 0.47368421052631576, 0.4722222222),
    ("nn.MeanSurfaceDistance(symmetric=True)", A, C, 0.8780164278748536, 0.842456309),
    # the root of the mean square (MindSpore 2.10 returns the mean square itself when not symmetric)
    ("nn.RootMeanSquareDistance()", A, B, 0.6666666666666666, 0.4444444444),
    ("nn.RootMeanSquareDistance(symmetric=True)", A, B, 0.6882472016116853, 0.6871842709),
    ("nn.RootMeanSquareDistance(symmetric=True, distance_metric='taxicab')", A, C, 1.0377490433255416, 0.993031274),
])
def test_documented_formulas(ctor, a, b, expected, ms_value):
    m = eval(ctor, {"nn": nn})
    m.update(a, b, 1)
    np.testing.assert_allclose(m.eval(), expected, rtol=1e-12)


def test_surface_names_and_errors():
    assert nn.HausdorffDistance is train.HausdorffDistance
    assert isinstance(nn.get_metric_fn("hausdorff_distance"), nn.HausdorffDistance)
    m = nn.MeanSurfaceDistance()
    with pytest.raises(ValueError, match="MeanSurfaceDistance"):
        m.update(A, B, 7)
    with pytest.raises(ValueError, match="HausdorffDistance"):
        nn.HausdorffDistance("cosine")
    m.update(np.zeros((3, 3)), np.ones((3, 3)), 1)
    assert m.eval() == np.inf
