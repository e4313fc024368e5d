"""set_context's accepted and rejected keys, and Tensor/Parameter printing as MindSpore prints them."""

import numpy as np
import pytest

import mscustom as ms


def test_set_context_accepts_mindspore_keys_and_rejects_unknown_ones():
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU", device_id=0, save_graphs=False,
                   max_call_depth=2000, pynative_synchronize=True, jit_config={"jit_level": "O0"})
    assert ms.get_context("max_call_depth") == 2000 and ms.get_context("pynative_synchronize") is True
    assert ms.get_context("device_target") == "CPU"
    with pytest.raises(ValueError, match=r"set_context: unknown key\(s\) \['devcie_target'\]; the accepted keys "
                                         r"are \[.*'device_target'.*'mode'.*\]"):
        ms.set_context(devcie_target="GPU")
    assert ms.get_context("device_target") == "CPU"                  # nothing applied from a rejected call
    with pytest.raises(ValueError, match="set_context: max_call_depth must be a positive int, got 0"):
        ms.set_context(max_call_depth=0)
    with pytest.raises(TypeError, match="set_context: pynative_synchronize must be a bool, got str"):
        ms.set_context(pynative_synchronize="yes")
    with pytest.raises(ValueError, match=r"set_context: save_graphs must be a bool or an int in \[0, 3\]"):
        ms.set_context(save_graphs=7)
    with pytest.raises(ValueError, match="set_context: mode must be GRAPH_MODE"):
        ms.set_context(mode=5)


def test_tensor_repr_and_print_follow_mindspore():
    assert repr(ms.Tensor(np.array([1, 2, 3], np.int64))) == "Tensor(shape=[3], dtype=Int64, value= [1, 2, 3])"
    assert repr(ms.Tensor(np.array([[1, 2], [3, 4]], np.int32))) == \
        "Tensor(shape=[2, 2], dtype=Int32, value=\n[[1, 2],\n [3, 4]])"
    assert repr(ms.Tensor(np.float32(0.5))) == "Tensor(shape=[], dtype=Float32, value= 0.5)"
    assert repr(ms.Tensor(np.array([True]))) == "Tensor(shape=[1], dtype=Bool, value= [ True])"
    assert str(ms.Tensor(np.array([[1, 2], [3, 4]], np.int32))) == "[[1 2]\n [3 4]]"
    assert str(ms.Tensor(np.array([4.0, 5.0, 6.0]))) == "[4. 5. 6.]"
    p = ms.Parameter(ms.Tensor(np.zeros((2, 3), np.uint8)), name="fc.weight")
    assert repr(p) == str(p) == "Parameter (name=fc.weight, shape=(2, 3), dtype=UInt8, requires_grad=True)"
