"""Metrics exported from ``mscustom.nn`` (defined in ``mscustom.train``): eval results are MindSpore 2.10's for
the same updates."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, train


def _close(got, exp, cid):
    if isinstance(got, (list, tuple)):              # ROC's per-class lists of arrays of different lengths
        assert len(got) == len(exp), cid
        for g, e in zip(got, exp):
            _close(g, e, cid)
        return
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(exp, np.float64), rtol=1e-7, atol=1e-9,
                               err_msg=cid)


METRIC_CASES = [
    ('accuracy', 'nn.Accuracy()', ['(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([1, 0, 2, 2, 1]))'], '', 0.6),
    ('precision', 'nn.Precision()', ['(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([1, 0, 2, 2, 1]))'], '', [0.5, 0.5, 1.0]),
    ('precision_avg', 'nn.Precision()', ['(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([1, 0, 2, 2, 1]))'], "{'average': True}", 0.6666666667),
    ('recall', 'nn.Recall()', ['(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([1, 0, 2, 2, 1]))'], '', [1.0, 0.5, 0.5]),
    ('f1', 'nn.F1()', ['(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([1, 0, 2, 2, 1]))'], '', [0.6666666667, 0.5, 0.6666666667]),
    ('fbeta', 'nn.Fbeta(2.0)', ['(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([1, 0, 2, 2, 1]))'], '', [0.8333333333, 0.5, 0.5555555556]),
    ('mae', 'nn.MAE()', ['(np.array([[0.1, 0.2], [0.5, 0.9]]), np.array([[0.0, 0.4], [1.0, 1.0]]))'], '', 0.45),
    ('mse', 'nn.MSE()', ['(np.array([[0.1, 0.2], [0.5, 0.9]]), np.array([[0.0, 0.4], [1.0, 1.0]]))'], '', 0.155),
    ('loss', 'nn.Loss()', ['(np.array(0.5),)', '(np.array(1.5),)'], '', 1.0),
    ('top1', 'nn.Top1CategoricalAccuracy()', ['(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([1, 0, 2, 2, 1]))'], '', 0.6),
    ('top2', 'nn.TopKCategoricalAccuracy(2)', ['(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([1, 0, 2, 2, 1]))'], '', 1.0),
    ('top5', 'nn.Top5CategoricalAccuracy()', ['(np.arange(12).reshape(2, 6) % 5, np.array([0, 5]))'], '', 1.0),
    ('cm', 'nn.ConfusionMatrix(3)', ['(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([1, 0, 2, 2, 1]))', '(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([0, 0, 1, 2, 1]))'], '', [[2.0, 1.0, 0.0], [2.0, 1.0, 1.0], [0.0, 2.0, 1.0]]),
    ('cm_target', "nn.ConfusionMatrix(3, normalize='target')", ['(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([1, 0, 2, 2, 1]))'], '', [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]),
    ('cm_pred', "nn.ConfusionMatrix(3, normalize='prediction')", ['(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([1, 0, 2, 2, 1]))'], '', [[0.5, 0.0, 0.0], [0.5, 0.5, 0.0], [0.0, 0.5, 1.0]]),
    ('cm_all', "nn.ConfusionMatrix(3, normalize='all')", ['(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([1, 0, 2, 2, 1]))'], '', [[0.2, 0.0, 0.0], [0.2, 0.2, 0.0], [0.0, 0.2, 0.2]]),
    ('cm_thr', 'nn.ConfusionMatrix(2, threshold=0.3)', ['(np.array([0.1, 0.35, 0.9, 0.2]), np.array([0, 1, 1, 1]))'], '', [[1.0, 0.0], [1.0, 2.0]]),
    ('perplexity', 'nn.Perplexity()', ['(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([1, 0, 2, 2, 1]))'], '', 2.3676644113),
    ('perplexity_ign', 'nn.Perplexity(ignore_label=2)', ['(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([1, 0, 2, 2, 1]))', '(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]), np.array([1, 1, 1, 1, 1]))'], '', 2.8416483614),
    ('dice', 'nn.Dice()', ['(np.array([[0.2, 0.5], [0.3, 0.9]]), np.array([[0.0, 1.0], [0.0, 1.0]]))', '(np.array([[0.9, 0.1, 0.2]]), np.array([[1.0, 0.0, 1.0]]))'], '', 0.5489894249),
    ('roc_bin', 'nn.ROC(pos_label=1)', ['(np.array([0.1, 0.4, 0.35, 0.8, 0.4]), np.array([0, 0, 1, 1, 1]))'], '', [[0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.3333333333, 0.6666666667, 1.0, 1.0], [1.8, 0.8, 0.4, 0.35, 0.1]]),
    ('roc_pos2', 'nn.ROC(pos_label=2)', ['(np.array([0.1, 0.4, 0.35, 0.8]), np.array([2, 0, 2, 1]))'], '', [[0.0, 0.5, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.5, 1.0], [1.8, 0.8, 0.4, 0.35, 0.1]]),
    ('roc_multi', 'nn.ROC(class_num=4)', ['(np.array([[0.28, 0.55, 0.15, 0.05], [0.10, 0.20, 0.05, 0.05], [0.20, 0.05, 0.15, 0.05], [0.05, 0.05, 0.05, 0.75]]), np.array([0, 1, 2, 3]))'], '', [[[0.0, 0.0, 0.3333333333, 0.6666666667, 1.0], [0.0, 0.3333333333, 0.3333333333, 1.0], [0.0, 0.3333333333, 1.0], [0.0, 0.0, 1.0]], [[0.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0], [0.0, 1.0, 1.0], [0.0, 1.0, 1.0]], [[1.28, 0.28, 0.2, 0.1, 0.05], [1.55, 0.55, 0.2, 0.05], [1.15, 0.15, 0.05], [1.75, 0.75, 0.05]]]),
    ('roc_multi_bin_y', 'nn.ROC(class_num=4)', ['(np.array([[0.28, 0.55, 0.15, 0.05], [0.10, 0.20, 0.05, 0.05], [0.20, 0.05, 0.15, 0.05], [0.05, 0.05, 0.05, 0.75]]), np.array([0, 1, 1, 3]))'], '', 'ValueError'),  # For 'ROC.eval', there is no positive samples in true value, true posit
    ('bleu', 'nn.BleuScore()', ["([['i', 'have', 'a', 'pen', 'on', 'the', 'desk']], [[['i', 'have', 'a', 'pen', 'on', 'my', 'desk'], ['there', 'is', 'a', 'pen', 'on', 'the', 'desk']]])"], '', 1.0),
    ('bleu_2s', 'nn.BleuScore(2, smooth=True)', ["([['a', 'b', 'c'], ['x', 'y']], [[['a', 'b', 'd', 'e']], [['x', 'z', 'y']]])"], '', 0.4326897292),
    ('bleu_zero', 'nn.BleuScore(3)', ["([['a', 'b']], [[['c', 'd', 'e']]])"], '', 0.0),
    ('bleu_short', 'nn.BleuScore(1)', ["([['a', 'b']], [[['a', 'b', 'e']]])"], '', 0.6065306597),
    ('cos', 'nn.CosineSimilarity()', ['(np.array([[1.0, 3.0, 4.0, 7.0], [2.0, 4.0, 2.0, 5.0], [3.0, 1.0, 5.0, 8.0]]),)'], '', [[0.0, 0.9402561527, 0.9516245192], [0.9402561527, 0.0, 0.8614609845], [0.9516245192, 0.8614609845, 0.0]]),
    ('cos_dot_sum', "nn.CosineSimilarity('dot', 'sum', False)", ['(np.array([[1.0, 3.0, 4.0, 7.0], [2.0, 4.0, 2.0, 5.0], [3.0, 1.0, 5.0, 8.0]]),)'], '', [214.0, 166.0, 241.0]),
    ('cos_mean', "nn.CosineSimilarity(reduction='mean')", ['(np.array([[1.0, 3.0], [2.0, -4.0], [3.0, 1.0]]),)'], '', [-0.0357022604, -0.1885618083, 0.2471404521]),
]


@pytest.mark.parametrize("case", METRIC_CASES, ids=[c[0] for c in METRIC_CASES])
def test_metric(case):
    cid, ctor, updates, ev, expected = case
    m = eval(ctor, {"nn": nn, "np": np})
    for u in updates:
        m.update(*eval(u, {"np": np}))
    if isinstance(expected, str):
        with pytest.raises(getattr(__import__("builtins"), expected), match=type(m).__name__):
            m.eval()
        return
    got = m.eval(**eval(ev)) if ev else m.eval()
    _close(got, expected, cid)
    m.clear()                                   # clear starts over: the same updates give the same result
    for u in updates:
        m.update(*[ms.Tensor(a) if isinstance(a, np.ndarray) else a for a in eval(u, {"np": np})])
    _close(m.eval(**eval(ev)) if ev else m.eval(), expected, cid)


def test_auc_and_helpers():
    assert abs(nn.auc(np.array([0, 0.2, 0.5, 1.0]), np.array([0, 0.6, 0.7, 1.0])) - 0.68) < 1e-12
    assert abs(nn.auc(np.array([1.0, 0.5, 0.2, 0]), np.array([1.0, 0.7, 0.6, 0])) - 0.68) < 1e-12
    assert abs(nn.auc(np.array([0.5, 0, 1.0, 0.2]), np.array([0.7, 0, 1, 0.6]), reorder=True) - 0.68) < 1e-12
    with pytest.raises(ValueError, match="auc"):
        nn.auc(np.array([0.5, 0, 1.0]), np.array([0.7, 0, 1]))
    with pytest.raises(TypeError, match="auc"):
        nn.auc([0, 1], [0, 1])
    assert nn.Accuracy is train.Accuracy and nn.ROC is train.ROC
    # MindSpore 2.10's list
    assert nn.names() == ['F1', 'acc', 'accuracy', 'auc', 'bleu_score', 'confusion_matrix', 'confusion_matrix_metric',
                          'cosine_similarity', 'dice',
                          'hausdorff_distance', 'loss', 'mae', 'mean_surface_distance', 'mse', 'occlusion_sensitivity',
                          'perplexity',
                          'precision', 'recall', 'roc', 'root_mean_square_distance', 'top_1_accuracy',
                          'top_5_accuracy', 'topk']
    got = nn.get_metrics({"accuracy", "loss"})
    assert isinstance(got["accuracy"], nn.Accuracy) and isinstance(got["loss"], nn.Loss)
    acc = nn.Accuracy()
    assert nn.get_metrics({"a": acc}) == {"a": acc} and nn.get_metrics(None) is None
    with pytest.raises(TypeError, match="get_metrics"):
        nn.get_metrics(["accuracy"])


def test_rearrange_inputs_and_set_indexes():
    class Last(nn.Metric):
        def clear(self):
            self.seen = None

        @nn.rearrange_inputs
        def update(self, *inputs):
            self.seen = inputs

        def eval(self):
            return self.seen

    m = Last()
    m.update(1, 2, 3)
    assert m.eval() == (1, 2, 3)
    assert m.set_indexes([2, 0]) is m
    m.update(1, 2, 3)
    assert m.eval() == (3, 1)
    roc = nn.ROC(pos_label=1).set_indexes([1, 2])
    roc.update(None, np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    np.testing.assert_allclose(roc.eval()[1], [0, 0.5, 0.5, 1, 1])
    # (N, C) scores with N != C: each class's column against the rest (MindSpore 2.10 scrambles the columns here)
    roc = nn.ROC(class_num=3)
    roc.update(np.array([[0.1, 0.7, 0.2], [0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]]),
               np.array([1, 0, 2, 2, 1]))
    fpr, tpr, thr = roc.eval()
    np.testing.assert_allclose(fpr[0], [0, 0, 0.25, 0.5, 0.75, 1])
    np.testing.assert_allclose(tpr[2], [0, 0.5, 1, 1, 1])
    np.testing.assert_allclose(thr[1], [1.7, 0.7, 0.5, 0.3, 0.2, 0.1])
