"""MindSpore's top-level names: type objects, generators, runtime queries, compilation hints,
checkpoint conversions, metrics (values from MindSpore 2.10 CPU)."""

import os

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn, Tensor


def test_dtype_aliases_and_type_objects():
    aliases = {"half": ms.float16, "single": ms.float32, "double": ms.float64, "byte": ms.int8, "short": ms.int16,
               "intc": ms.int32, "long": ms.int64, "intp": ms.int64, "ubyte": ms.uint8, "ushort": ms.uint16,
               "uintc": ms.uint32, "uintp": ms.uint64}
    for name, dt in aliases.items():
        assert getattr(ms, name) is dt, name
    assert str(ms.cfloat) == "Complex64" and ms.cdouble is ms.complex128 and ms.cfloat is ms.complex64
    generic = {"float_": "Float", "int_": "Int", "uint": "UInt", "number": "Number", "list_": "List",
               "tuple_": "Tuple", "type_none": "None", "string": "String", "tensor_type": "Tensor"}
    for name, label in generic.items():
        obj = getattr(ms, name)
        assert str(obj) == label and obj != ms.float32 and isinstance(obj, ms.Type), name
    assert repr(ms.float_) == "mscustom.float" and repr(ms.string) == "mscustom.string_"
    with pytest.raises(TypeError):
        Tensor([1.0], ms.float_)
    assert isinstance(ms.float32, ms.Type) and isinstance(ms.int32, ms.Int) and not isinstance(ms.float32, ms.Int)
    assert isinstance(ms.tensor_type, ms.TensorType) and not isinstance(ms.float32, ms.TensorType)
    assert ms.Int(32) is ms.int32 and ms.Int() == ms.int_
    assert repr(ms.TensorType(ms.float32)) == "mscustom.tensor[float32]"
    assert ms.TensorType(ms.float32).element_type() is ms.float32


def test_get_py_obj_dtype():
    g = ms.get_py_obj_dtype
    assert g(1) is ms.int64 and g(1.0) is ms.float64 and g(True) is ms.bool_ and g(np.float32(1)) is ms.float32
    assert g("a") == ms.string and g(None) == ms.type_none and g([1]) == ms.list_ and g((1,)) == ms.tuple_
    assert g(Tensor([1.0])) == ms.TensorType(ms.float32)
    for bad in (np.array([1]), {}):
        with pytest.raises(NotImplementedError):
            g(bad)


def test_is_tensor_and_frombuffer():
    assert ms.is_tensor(Tensor([1.0])) and ms.is_tensor(ms.Parameter(Tensor([1.0]), name="p"))
    assert not ms.is_tensor(np.array([1.0])) and not ms.is_tensor(1)
    t = ms.frombuffer(b"\x01\x00\x00\x00\x02\x00\x00\x00", ms.int32)
    assert t.dtype == ms.int32 and t.asnumpy().tolist() == [1, 2]
    t = ms.frombuffer(bytearray(np.arange(6, dtype=np.float32).tobytes()), ms.float32, count=3, offset=4)
    assert t.asnumpy().tolist() == [1.0, 2.0, 3.0]
    assert ms.frombuffer(np.arange(4, dtype=np.float32), ms.float32).asnumpy().tolist() == [0, 1, 2, 3]
    with pytest.raises(RuntimeError, match="multiple of element size"):
        ms.frombuffer(b"\x01\x00\x00", ms.int32)


def test_generators_and_rng_state():
    assert ms.manual_seed(5) is ms.default_generator and ms.initial_seed() == 5
    state = ms.get_rng_state()
    assert state.dtype == ms.uint8 and state.ndim == 1 and state is not ms.get_rng_state()
    a = nn.Dense(3, 2).weight.asnumpy()
    ms.set_rng_state(state)
    assert np.array_equal(nn.Dense(3, 2).weight.asnumpy(), a)
    ms.manual_seed(5)
    assert np.array_equal(nn.Dense(3, 2).weight.asnumpy(), a)
    s = ms.seed()
    assert isinstance(s, int) and ms.initial_seed() == s
    g = ms.Generator()
    assert g.initial_seed() == 0 and g.manual_seed(7) is g and g.initial_seed() == 7
    g.set_state(g.get_state())
    with pytest.raises(TypeError, match="Seed must be an integer"):
        ms.manual_seed(1.5)
    with pytest.raises(RuntimeError, match="UInt8"):
        ms.set_rng_state(Tensor(np.zeros(16, np.int32)))
    with pytest.raises(RuntimeError, match="size"):
        ms.set_rng_state(Tensor(np.zeros(8, np.uint8)))
    with pytest.raises(RuntimeError):
        ms.set_rng_state(np.zeros(16, np.uint8))


_SUMMARY = ("|=============================================|\n|               Memory summary                |\n"
            "|=============================================|\n| Metric               | Data                 |\n"
            + "".join(f"|---------------------------------------------|\n| {m:<20} |      0 B             |\n"
                      for m in ["Reserved memory", "Allocated memory", "Idle memory", "Eager free memory",
                                "Max reserved memory", "Max allocated memory"])
            + "|=============================================|\n")


def test_runtime_and_memory(capsys):
    assert ms.synchronize() is None and ms.empty_cache() is None
    for name in ["memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved"]:
        assert getattr(ms, name)() == 0
    for name in ["reset_peak_memory_stats", "reset_max_memory_allocated", "reset_max_memory_reserved"]:
        assert getattr(ms, name)() is None
    stats = ms.memory_stats()
    assert stats["total_allocated_memory"] == 0 and stats["common_mem_pool_stats"]["blocks_info"] == {}
    assert len(stats) == 8
    assert ms.memory_summary() == _SUMMARY
    dev = ms.get_current_device()
    assert dev == ("CPU", 0) and dev.device_target == "CPU" and dev.device_id == 0
    assert ms.get_level() == "2" and ms.get_log_config()["GLOG_v"] == "2"
    ms.run_check()
    assert "successfully" in capsys.readouterr().out
    assert ms.launch_blocking() is None


def test_set_deterministic_once():
    from mscustom import runtime
    saved = dict(runtime._conf)
    try:
        runtime._conf["deterministic"] = None
        with pytest.raises(TypeError):
            ms.set_deterministic(1)
        ms.set_deterministic(True)
        assert ms.get_context("deterministic") == "ON"
        with pytest.raises(RuntimeError, match="repeatedly"):
            ms.set_deterministic(False)
    finally:
        runtime._conf.update(saved)


class _Scale(nn.Cell):
    @ms.lazy_inline
    def __init__(self, k=2):
        super().__init__()
        self.k = k

    def construct(self, x):
        return x * self.k


def test_compilation_hints():
    assert (ms.STRICT, ms.COMPATIBLE, ms.LAX) == (0, 1, 2)
    x = Tensor([1.0, 2.0])
    assert _Scale(3)(x).asnumpy().tolist() == [3.0, 6.0]
    assert ms.recompute(_Scale(2), x).asnumpy().tolist() == [2.0, 4.0]
    g = ms.grad(lambda t: ms.recompute(_Scale(3), t).sum())(x)
    assert g.asnumpy().tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="inherited from Cell"):
        ms.recompute(lambda a: a, x)
    assert ms.recompute(lambda a: a * 2, x, use_reentrant=False).asnumpy().tolist() == [2.0, 4.0]
    with pytest.raises(ValueError, match="decorate the __init__"):
        ms.lazy_inline(lambda a: a)
    assert callable(ms.lazy_inline(policy="front"))

    def f(a):
        return a * 2
    assert ms.no_inline(f) is f and callable(ms.no_inline())

    class C:
        pass
    assert ms.jit_class(C) is C
    with pytest.raises(TypeError):
        ms.jit_class(C())
    with pytest.raises(TypeError, match="nn.Cell"):
        ms.jit_class(nn.Dense)
    assert ms.JitConfig(jit_level="O1", foo=1).jit_config_dict == {
        "foo": 1, "jit_level": "O1", "exc_mode": "auto", "jit_syntax_level": "", "debug_level": "RELEASE",
        "infer_boost": "off"}
    for kw in [{"jit_level": "O9"}, {"exc_mode": "bad"}, {"jit_syntax_level": 1}, {"debug_level": "x"}]:
        with pytest.raises(ValueError):
            ms.JitConfig(**kw)

    @ms.enable_dynamic(x=Tensor(shape=[None, 2], dtype=ms.float32))
    def h(x):
        return x * 2
    assert h(Tensor(np.ones((3, 2), np.float32))).shape == (3, 2) and h(Tensor(np.ones((1, 2), np.float32))).shape == (1, 2)
    with pytest.raises(ValueError):
        ms.enable_dynamic(y=Tensor(shape=[None], dtype=ms.float32))(lambda x: x)
    with pytest.raises(TypeError):
        ms.enable_dynamic(x=3)
    with pytest.raises(TypeError, match="at least have one None"):
        ms.enable_dynamic(x=Tensor(np.ones(2, np.float32)))
    with pytest.raises(ValueError):
        ms.set_recursion_limit(-1)
    assert ms.set_recursion_limit(100) is None


def test_checkpoint_conversions(tmp_path):
    net = nn.Dense(2, 2)
    src = str(tmp_path / "a.ckpt")
    ms.save_checkpoint(net, src)
    assert ms.ckpt_to_safetensors(src) is None
    assert sorted(os.listdir(tmp_path)) == ["a.ckpt", "a.safetensors"]
    out = tmp_path / "out"
    ms.safetensors_to_ckpt(str(tmp_path / "a.safetensors"), save_path=str(out), name_map={"weight": "w"})
    loaded = ms.load_checkpoint(str(out / "a.ckpt"))
    assert sorted(loaded) == ["bias", "w"]
    np.testing.assert_array_equal(loaded["w"].asnumpy(), net.weight.asnumpy())
    with pytest.raises(ValueError, match="valid path"):
        ms.ckpt_to_safetensors(str(tmp_path / "nope.ckpt"))
    with pytest.raises(ValueError, match=".ckpt file"):
        ms.ckpt_to_safetensors(str(tmp_path / "a.safetensors"))
    with pytest.raises(ValueError, match="rank"):
        ms.ckpt_to_safetensors(str(out))
    (tmp_path / "d" / "rank0").mkdir(parents=True)
    ms.save_checkpoint(net, str(tmp_path / "d" / "rank0" / "c.ckpt"))
    ms.ckpt_to_safetensors(str(tmp_path / "d"), save_path=str(tmp_path / "e"))
    assert os.listdir(tmp_path / "e" / "rank0") == ["c.safetensors"]

    fut = ms.load_checkpoint_async(src)
    params = fut.result()
    assert sorted(params) == ["bias", "weight"] and isinstance(params["weight"], ms.Parameter)
    other = nn.Dense(2, 2)
    ms.load_checkpoint_async(src, net=other).result()
    np.testing.assert_array_equal(other.weight.asnumpy(), net.weight.asnumpy())
    assert ms.async_ckpt_thread_status() is False


def test_merge_sliced_parameter():
    def p(v, name="w"):
        return ms.Parameter(Tensor(np.array(v, np.float32)), name=name)
    m = ms.merge_sliced_parameter([p([1.0, 2.0]), p([3.0, 4.0])])
    assert isinstance(m, ms.Parameter) and m.name == "w" and m.asnumpy().tolist() == [1, 2, 3, 4]
    assert ms.merge_sliced_parameter([p([1.0, 2.0])]).shape == (2,)
    with pytest.raises(ValueError, match="same name"):
        ms.merge_sliced_parameter([p([1.0]), p([2.0], "v")])
    with pytest.raises(TypeError):
        ms.merge_sliced_parameter([Tensor([1.0])])
    with pytest.raises(ValueError, match="empty"):
        ms.merge_sliced_parameter([])


def test_load_and_save_mindir(tmp_path):
    net = nn.Dense(2, 2)
    ms.export(net, Tensor(np.ones((1, 2), np.float32)), file_name=str(tmp_path / "n"), file_format="MINDIR")
    model = ms.load_mindir(str(tmp_path / "n.mindir"))
    assert model.graph.name and len(model.graph.node) > 0
    ms.save_mindir(model, str(tmp_path / "n2"))
    again = ms.load_mindir(str(tmp_path / "n2.mindir"))
    assert again.SerializeToString() == model.SerializeToString()
    with pytest.raises(ValueError):
        ms.load_mindir(str(tmp_path / "zz.mindir"))
    with pytest.raises(TypeError):
        ms.save_mindir(1, str(tmp_path / "n3"))


def test_metrics_at_top_level():
    from mscustom import train
    for name in ["Metric", "Accuracy", "Loss", "Precision", "Recall", "Fbeta", "F1", "MAE", "MSE", "auc",
                 "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "get_metric_fn",
                 "names", "ConfusionMatrix", "Perplexity", "Dice", "ROC", "BleuScore", "CosineSimilarity",
                 "rearrange_inputs"]:
        assert getattr(ms, name) is getattr(train, name), name
    acc = ms.Accuracy()
    acc.update(Tensor(np.array([[0.2, 0.8], [0.9, 0.1]], np.float32)), Tensor(np.array([1, 1], np.int32)))
    assert acc.eval() == 0.5


def test_shard_in_one_process():
    net = nn.Dense(2, 2)
    assert ms.shard(net, in_strategy=((1, 1),)) is net

    def f(a):
        return a * 2
    assert ms.shard(f, in_strategy=((1,),))(Tensor([1.0, 2.0])).asnumpy().tolist() == [2.0, 4.0]
