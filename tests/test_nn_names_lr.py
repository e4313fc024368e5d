"""InverseDecayLR, NaturalExpDecayLR, inverse_decay_lr, natural_exp_decay_lr, polynomial_decay_lr: MindSpore 2.10's
values for the same arguments."""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn

LISTS = [
    ("inverse_decay_lr", (0.1, 0.5, 6, 2, 2), {}, [0.1, 0.1, 0.08, 0.08, 0.06666666666666667, 0.06666666666666667]),
    ("inverse_decay_lr", (0.1, 0.5, 6, 2, 2, True), {}, [0.1, 0.1, 0.1, 0.1, 0.06666666666666667, 0.06666666666666667]),
    ("inverse_decay_lr", (0.2, 0.3, 9, 1, 3, True), {},
     [0.2, 0.2, 0.2, 0.15384615384615385, 0.15384615384615385, 0.15384615384615385, 0.125, 0.125, 0.125]),
    ("natural_exp_decay_lr", (0.1, 0.5, 6, 2, 2), {},
     [0.1, 0.1, 0.06065306597126335, 0.06065306597126335, 0.036787944117144235, 0.036787944117144235]),
    ("natural_exp_decay_lr", (0.1, 0.5, 6, 2, 2, True), {},
     [0.1, 0.1, 0.1, 0.1, 0.036787944117144235, 0.036787944117144235]),
    ("natural_exp_decay_lr", (0.2, 0.3, 9, 1, 3, True), {},
     [0.2, 0.2, 0.2, 0.08131393194811984, 0.08131393194811984, 0.08131393194811984, 0.03305977764431732,
      0.03305977764431732, 0.03305977764431732]),
    ("polynomial_decay_lr", (0.1, 0.01, 6, 2, 2, 0.5), {},
     [0.1, 0.1, 0.07363961030678928, 0.07363961030678928, 0.01, 0.01]),
    ("polynomial_decay_lr", (0.5, 0.0, 7, 1, 3, 1.5), {},
     [0.5, 0.27216552697590873, 0.09622504486493764, 0.0, 0.0, 0.0, 0.0]),
    ("polynomial_decay_lr", (0.1, 0.01, 24, 2, 2, 2.0), {"update_decay_epoch": True},
     [0.1, 0.1, 0.0325, 0.0325, 0.01, 0.01, 0.015625, 0.015625, 0.01, 0.01, 0.012499999999999999,
      0.012499999999999999, 0.01, 0.01, 0.01140625, 0.01140625, 0.01, 0.01, 0.0109, 0.0109, 0.01, 0.01, 0.010625,
      0.010625]),
]


@pytest.mark.parametrize("name,args,kwargs,expected", LISTS)
def test_lr_lists(name, args, kwargs, expected):
    got = getattr(nn, name)(*args, **kwargs)
    assert isinstance(got, list)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


SCHEDULES = [
    ("nn.InverseDecayLR(0.1, 0.9, 4)", [0.10000000149011612, 0.06896551698446274, 0.05263158306479454,
                                         0.03883495554327965]),
    ("nn.InverseDecayLR(0.1, 0.9, 4, True)", [0.10000000149011612, 0.10000000149011612, 0.05263158306479454,
                                               0.05263158306479454]),
    ("nn.NaturalExpDecayLR(0.1, 0.9, 4)", [0.10000000149011612, 0.01652989163994789, 0.0027323728427290916,
                                            0.0001836305600591004]),
    ("nn.NaturalExpDecayLR(0.1, 0.9, 4, True)", [0.10000000149011612, 0.10000000149011612, 0.0027323728427290916,
                                                  0.0027323728427290916]),
]


@pytest.mark.parametrize("ctor,expected", SCHEDULES)
def test_lr_schedules(ctor, expected):
    sched = eval(ctor, {"nn": nn})
    got = [sched(ms.Tensor(s, ms.int32)) for s in (0, 2, 4, 7)]
    assert all(g.dtype == ms.float32 and g.shape == () for g in got)
    np.testing.assert_allclose([float(g) for g in got], expected, rtol=1e-6)


def test_lr_errors():
    with pytest.raises(TypeError, match="inverse_decay_lr"):
        nn.inverse_decay_lr(0.1, 0.5, 6.0, 2, 2)
    with pytest.raises(ValueError, match="NaturalExpDecayLR"):
        nn.NaturalExpDecayLR(0.1, 0.5, 0)
    opt = nn.SGD([ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")], learning_rate=nn.InverseDecayLR(0.1, 1.0, 1))
    opt((ms.Tensor(np.ones(2, np.float32)),))
    opt((ms.Tensor(np.ones(2, np.float32)),))
    np.testing.assert_allclose(opt.parameters[0].asnumpy(), [1 - 0.1 - 0.05] * 2, rtol=1e-6)
