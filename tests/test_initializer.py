"""Initializers and MindSpore's default inits of Dense and Conv layers."""

import math

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn
from mscustom.common import dtype as mstype
from mscustom.common.initializer import (Constant, HeNormal, HeUniform, Normal, One, TruncatedNormal, Uniform,
                                         XavierUniform, Zero, initializer)


def test_common_paths_and_dtypes():
    assert mstype.float32 is ms.float32 and mstype.int64 is ms.int64
    assert ms.common.initializer.initializer is initializer
    t = initializer("ones", (2, 3), mstype.float64)
    assert t.dtype == ms.float64 and t.asnumpy().sum() == 6


@pytest.mark.parametrize("name,cls", [("normal", Normal), ("zeros", Zero), ("ones", One),
                                      ("xavier_uniform", XavierUniform), ("he_uniform", HeUniform),
                                      ("he_normal", HeNormal), ("truncatedNormal", TruncatedNormal)])
def test_named_inits_match_their_classes(name, cls):
    ms.set_seed(3)
    a = initializer(name, (64, 32)).asnumpy()
    ms.set_seed(3)
    b = initializer(cls(), (64, 32)).asnumpy()
    np.testing.assert_array_equal(a, b)


def test_distributions():
    ms.set_seed(0)
    shape = (400, 300)                                  # fan_in 300, fan_out 400
    he = initializer(HeUniform(), shape).asnumpy()      # leaky_relu, slope 0: gain sqrt(2)
    bound = math.sqrt(2.0) * math.sqrt(3.0 / 300)
    assert he.max() <= bound and he.min() >= -bound and he.max() > 0.98 * bound
    hn = initializer(HeNormal(mode="fan_out", nonlinearity="relu"), shape).asnumpy()
    assert abs(hn.std() - math.sqrt(2.0 / 400)) < 0.002
    xu = initializer(XavierUniform(gain=2.0), shape).asnumpy()
    assert abs(xu.max() - 2.0 * math.sqrt(6.0 / 700)) < 1e-3
    tn = initializer(TruncatedNormal(sigma=1.0), shape).asnumpy()
    assert tn.min() >= -2.0 and tn.max() <= 2.0 and 0.8 < tn.std() < 0.9    # truncated at +-2 sigma
    n = initializer(Normal(sigma=0.5, mean=1.0), shape).asnumpy()
    assert abs(n.mean() - 1.0) < 0.01 and abs(n.std() - 0.5) < 0.01
    u = initializer(Uniform(scale=0.3), shape).asnumpy()
    assert u.min() >= -0.3 and u.max() <= 0.3
    np.testing.assert_array_equal(initializer(Constant(2.5), (3,)).asnumpy(), [2.5] * 3)


def test_dense_default_init_is_mindsporess():
    ms.set_seed(1)
    fc = nn.Dense(300, 400)
    w, b = fc.weight.asnumpy(), fc.bias.asnumpy()
    # HeUniform(negative_slope=sqrt(5)): gain sqrt(2 / 6), bound gain * sqrt(3 / fan_in) = 1 / sqrt(fan_in)
    bound = 1 / math.sqrt(300)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.98 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.002
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.9 * bound
    assert nn.Dense(3, 2, weight_init="zeros").weight.asnumpy().sum() == 0


def test_conv_default_init_by_fan_in():
    ms.set_seed(2)
    conv = nn.Conv2d(4, 64, 3, has_bias=True)
    fan_in = 4 * 9
    bound = 1 / math.sqrt(fan_in)
    assert np.abs(conv.weight.asnumpy()).max() <= bound
    assert np.abs(conv.weight.asnumpy()).max() > 0.95 * bound
    assert np.abs(conv.bias.asnumpy()).max() <= bound


def test_set_seed_reproduces_layers():
    ms.set_seed(9)
    a = nn.Conv2d(2, 3, 3).weight.asnumpy().copy()
    ms.set_seed(9)
    np.testing.assert_array_equal(nn.Conv2d(2, 3, 3).weight.asnumpy(), a)


def test_initializer_errors():
    with pytest.raises(ValueError, match="initializer: unknown name 'gaussian'"):
        initializer("gaussian", (2, 2))
    with pytest.raises(ValueError, match="TruncatedNormal: a must be less than b"):
        TruncatedNormal(a=1.0, b=-1.0)
    with pytest.raises(ValueError, match="HeUniform: needs a weight of rank >= 2"):
        initializer("he_uniform", (5,))
