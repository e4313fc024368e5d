"""The Python blocks of docs/custom_op_styles.md run, in order, and compute the sigmoid they claim."""

import re
from pathlib import Path

import numpy as np

import mscustom as ms

DOC = Path(__file__).resolve().parents[1] / "docs" / "custom_op_styles.md"


def test_custom_op_styles_doc_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 6
    ns = {}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{DOC.name}[block {i}]", "exec"), ns)
    capsys.readouterr()
    data = np.array([-1.0, 0.0, 2.0])
    y = 1.0 / (1.0 + np.exp(-data))
    dy = y * (1.0 - y)
    for name in ("sigmoid_op", "sigmoid_jit", "sigmoid_aot"):
        op = ns[name]
        np.testing.assert_allclose(op(ms.Tensor(data)).asnumpy(), y, rtol=1e-12)
        np.testing.assert_allclose(ms.grad(lambda t, op=op: op(t).sum())(ms.Tensor(data)).asnumpy(), dy, rtol=1e-12)
    np.testing.assert_allclose(ns["x"].grad.asnumpy(), dy, rtol=1e-5)                 # the MXNet block
    np.testing.assert_allclose(ns["grad"](ns["minpy_sigmoid"])(data).asnumpy(), dy, rtol=1e-12)
    nnvm = ms.ops.get_op("docs_sigmoid")
    np.testing.assert_allclose(ms.grad(lambda t: nnvm(t).sum())(ms.Tensor(data)).asnumpy(), dy, rtol=1e-12)
