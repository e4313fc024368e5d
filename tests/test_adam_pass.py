"""AdamW's one-pass update (``nn/optim/_adam_pass.py``) gives the bits of NumPy's thirteen passes:
parameters and both moments, float32 and float64, with and without weight decay and ``maximize``,
on one thread and split among two."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn
from mscustom.nn.optim import _adam_pass
from mscustom.ops import _loop_loader


def _train(shape, dtype, steps, monkeypatch, loops, **kw):
    if not loops:
        monkeypatch.setattr(_adam_pass, "update", lambda *a: False)
    rng = np.random.default_rng(0)
    w = ms.Parameter(ms.Tensor(rng.standard_normal(shape).astype(dtype)), name="w")
    opt = nn.AdamW([w], lr=3e-3, **kw)
    for k in range(steps):
        g = ms.Tensor((rng.standard_normal(shape) * (k + 1)).astype(dtype))
        opt((g,))
    monkeypatch.undo()
    return w.asnumpy(), opt.exp_avg[0].asnumpy(), opt.exp_avg_sq[0].asnumpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", [{}, {"weight_decay": 0.0}, {"weight_decay": 0.1, "maximize": True},
                                {"betas": (0.8, 0.95), "eps": 1e-6}])
@pytest.mark.parametrize("threads", [1, 2])
def test_one_pass_gives_numpys_bits(monkeypatch, dtype, kw, threads):
    _loop_loader.load()
    shape = (_adam_pass.SPLIT_SIZE // 64 + 3, 64) if threads == 2 else (130, 129)
    ms.set_context(runtime_num_threads=threads)
    calls = []
    real = _adam_pass.update
    try:
        want = _train(shape, dtype, 4, monkeypatch, loops=False, **kw)
        monkeypatch.setattr(_adam_pass, "update", lambda *a: calls.append(real(*a)) or calls[-1])
        got = _train(shape, dtype, 4, monkeypatch, loops=True, **kw)
    finally:
        ms.set_context(runtime_num_threads=0)
    assert calls and all(calls)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_small_parameters_amsgrad_and_numpy_scalars_keep_numpys_form():
    _loop_loader.load()
    p = np.zeros(16, np.float32)
    assert not _adam_pass.update(p, p, p.copy(), p.copy(), 1e-3, 0.0, 0.9, 0.999, 1, 1e-8, False)
    big = np.zeros(_adam_pass.MIN_SIZE, np.float32)
    assert not _adam_pass.update(big, big, big.copy(), big.copy(), np.float64(1e-3), 0.0, 0.9, 0.999, 1, 1e-8,
                                 False)
    w = ms.Parameter(ms.Tensor(np.ones(_adam_pass.MIN_SIZE, np.float32)), name="w")
    opt = nn.AdamW([w], amsgrad=True)
    opt((ms.Tensor(np.ones(_adam_pass.MIN_SIZE, np.float32)),))     # NumPy's form (amsgrad): runs
    assert np.isfinite(w.asnumpy()).all()
