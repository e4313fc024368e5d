"""Shared runner for the ``test_nn_names_*`` tables: each case is
``(id, constructor, [input expressions], outputs, output dtypes, gradient)``, the values MindSpore 2.10
(CPU) gives for the same constructor and inputs. An output given as a string is the exception type
MindSpore raises. An input expression "raw:..." is passed as the Python value, not as a Tensor. The gradient is that of ``sum(out * cos(arange(out.size)))`` with respect to input 0.
"""

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, ops


def weight(shape):
    return np.cos(np.arange(int(np.prod(shape)))).reshape(shape).astype(np.float32)


def run_case(case, rtol=1e-5, atol=1e-6, env=None):
    cid, ctor, inputs, outs, dtypes, grad = case
    scope = {"nn": nn, "np": np, "ms": ms, "ops": ops}
    scope.update(env or {})
    xs = [eval(e[4:], {"np": np}) if e.startswith("raw:") else ms.Tensor(eval(e, {"np": np}))
          for e in inputs]
    if isinstance(outs, str):
        with pytest.raises(getattr(__import__("builtins"), outs, Exception)):
            net = eval(ctor, scope)
            net(*xs)
        return
    net = eval(ctor, scope)
    y = net(*xs)
    ys = list(y) if isinstance(y, (tuple, list)) else [y]
    assert len(ys) == len(outs), cid
    for got, exp, dt in zip(ys, outs, dtypes):
        got = got.asnumpy() if isinstance(got, ms.Tensor) else np.asarray(got)
        np.testing.assert_allclose(got, np.asarray(exp, dtype=np.float64), rtol=rtol, atol=atol, err_msg=cid)
        assert str(got.dtype) == dt, (cid, got.dtype, dt)
    if grad is not None:
        w = ms.Tensor(weight(np.shape(outs[0])))

        def fn(*a):
            r = net(*a)
            r = r[0] if isinstance(r, (tuple, list)) else r
            return (r * w).sum()
        g = ms.grad(fn, grad_position=0)(*xs)
        np.testing.assert_allclose(g.asnumpy(), np.asarray(grad, np.float64), rtol=rtol * 10, atol=atol * 10,
                                   err_msg=cid + " (gradient)")
