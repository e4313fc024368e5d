"""Checkpoints: MindSpore .ckpt (protobuf) and safetensors round trips, wire-format compatibility built by
hand, atomic writes, and load_param_into_net's MindSpore 2.x results."""

import os
import struct

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(3, 4)
        self.fc2 = nn.Dense(4, 2)

    def construct(self, x):
        return self.fc2(self.fc1(x))


# ------------------------------------------------------------------ a protobuf wire writer/reader, by hand
def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def ld(field, payload):                        # a length-delimited field
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def tensor_value(tag, dims, type_name, content):
    tensor = b"".join(varint(1 << 3 | 0) + varint(d) for d in dims)     # proto2: repeated int64, unpacked
    tensor += ld(2, type_name.encode()) + ld(3, content)
    return ld(1, ld(1, tag.encode()) + ld(2, tensor))


def read_varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, i


def parse_fields(buf):
    i, out = 0, []
    while i < len(buf):
        key, i = read_varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            v, i = read_varint(buf, i)
        elif wire == 2:
            n, i = read_varint(buf, i)
            v, i = bytes(buf[i:i + n]), i + n
        else:
            raise AssertionError(f"unexpected wire type {wire}")
        out.append((field, v))
    return out


# ------------------------------------------------------------------ tests
def test_ckpt_round_trip_into_a_fresh_network(tmp_path):
    ms.set_seed(0)
    net, fresh = Net(), Net()
    x = ms.Tensor(np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32))
    ms.save_checkpoint(net, str(tmp_path / "net"))                       # the suffix is added
    assert (tmp_path / "net.ckpt").is_file()
    params = ms.load_checkpoint(str(tmp_path / "net.ckpt"))
    assert sorted(params) == ["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight"]
    assert isinstance(params["fc1.weight"], ms.Parameter) and params["fc1.weight"].name == "fc1.weight"
    assert not np.allclose(fresh(x).asnumpy(), net(x).asnumpy())
    assert ms.load_param_into_net(fresh, params) == ([], [])
    np.testing.assert_array_equal(fresh(x).asnumpy(), net(x).asnumpy())


def test_safetensors_round_trip_and_the_file_is_plain_safetensors(tmp_path):
    from safetensors.numpy import load_file
    net, fresh = Net(), Net()
    path = str(tmp_path / "net.safetensors")
    ms.save_checkpoint(net, path, format="safetensors", append_dict={"epoch": 3})
    raw = load_file(path)
    np.testing.assert_array_equal(raw["fc2.weight"], net.fc2.weight.asnumpy())
    assert raw["epoch"].dtype == np.int64 and int(raw["epoch"]) == 3
    params = ms.load_checkpoint(path, net=fresh, format="safetensors")
    assert "epoch" in params
    np.testing.assert_array_equal(fresh.fc1.bias.asnumpy(), net.fc1.bias.asnumpy())


def test_reads_a_ckpt_written_with_the_raw_wire_format(tmp_path):
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    big = np.arange(10, dtype=np.int64)
    blob = (tensor_value("fc.weight", [2, 3], "Float32", w.tobytes())
            + tensor_value("global_step", [0], "Int32", np.int32(7).tobytes())           # a scalar: dims [0]
            + tensor_value("emb", [10], "Int64", big[:4].tobytes())                      # one tensor in slices
            + tensor_value("emb", [10], "Int64", big[4:].tobytes())
            + tensor_value("mask", [2], "Bool", np.array([True, False]).tobytes()))
    (tmp_path / "ms.ckpt").write_bytes(blob)
    params = ms.load_checkpoint(str(tmp_path / "ms.ckpt"))
    np.testing.assert_array_equal(params["fc.weight"].asnumpy(), w)
    assert params["global_step"].shape == () and params["global_step"].dtype == ms.int32
    assert int(params["global_step"].asnumpy()) == 7
    np.testing.assert_array_equal(params["emb"].asnumpy(), big)
    assert params["mask"].asnumpy().tolist() == [True, False]


def test_written_ckpt_parses_as_mindspore_wire_format(tmp_path):
    w = np.arange(6, dtype=np.float16).reshape(3, 2)
    ms.save_checkpoint([{"name": "a.w", "data": ms.Tensor(w)}, {"name": "lr", "data": ms.Tensor(np.float32(0.5))}],
                       str(tmp_path / "x.ckpt"))
    top = parse_fields((tmp_path / "x.ckpt").read_bytes())
    assert [f for f, _ in top] == [4000, 1, 1]    # mscustom's integrity header (MindSpore skips it), then Values
    top = top[1:]
    entries = []
    for _, value in top:
        fields = dict(parse_fields(value))
        tensor = parse_fields(fields[2])
        dims = [v for f, v in tensor if f == 1]
        meta = {f: v for f, v in tensor if f != 1}
        entries.append((fields[1].decode(), dims, meta[2].decode(), meta[3]))
    assert entries[0][:3] == ("a.w", [3, 2], "Float16") and entries[0][3] == w.tobytes()
    assert entries[1][:3] == ("lr", [0], "Float32") and entries[1][3] == np.float32(0.5).tobytes()


def test_a_failing_save_leaves_no_file_under_the_final_name(tmp_path, monkeypatch):
    net = Net()
    path = tmp_path / "net.ckpt"

    def broken_fsync(fd):
        raise OSError("disk full")
    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        ms.save_checkpoint(net, str(path))
    assert list(tmp_path.iterdir()) == []                                        # no file, no temp left over
    monkeypatch.undo()
    ms.save_checkpoint(net, str(path))
    before = path.read_bytes()
    monkeypatch.setattr(os, "replace", lambda *a: (_ for _ in ()).throw(OSError("killed")))
    with pytest.raises(OSError, match="killed"):
        ms.save_checkpoint(Net(), str(path))
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["net.ckpt"]


def test_load_param_into_net_reports_both_ways_and_checks(tmp_path):
    net = Net()
    params = {"fc1.weight": ms.Parameter(ms.Tensor(np.ones((4, 3), np.float64)), name="fc1.weight"),
              "backbone.fc2.bias": ms.Parameter(ms.Tensor(np.full(2, 3.0, np.float32)), name="backbone.fc2.bias"),
              "extra": ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="extra")}
    not_loaded, unused = ms.load_param_into_net(net, params)
    assert not_loaded == ["fc1.bias", "fc2.weight"] and unused == ["extra"]
    assert net.fc1.weight.dtype == ms.float32 and np.all(net.fc1.weight.asnumpy() == 1)    # cast
    assert np.all(net.fc2.bias.asnumpy() == 3)                                   # matched by suffix
    with pytest.raises(RuntimeError, match="'fc1.weight' is float32 in the net but float64 in the checkpoint"):
        ms.load_param_into_net(net, params, strict_load=True)
    bad = {"fc1.weight": ms.Parameter(ms.Tensor(np.ones((3, 3), np.float32)), name="fc1.weight")}
    with pytest.raises(RuntimeError, match=r"the shape of 'fc1.weight' in the net is \[4, 3\] but the "
                                           r"checkpoint's 'fc1.weight' has \[3, 3\]"):
        ms.load_param_into_net(net, bad)
    with pytest.raises(TypeError, match="load_param_into_net: net must be a Cell"):
        ms.load_param_into_net({}, params)


def test_load_filters_and_errors(tmp_path):
    net = Net()
    path = str(tmp_path / "n.ckpt")
    ms.save_checkpoint(net, path, choice_func=lambda name: name != "fc2.bias")
    assert sorted(ms.load_checkpoint(path)) == ["fc1.bias", "fc1.weight", "fc2.weight"]
    assert sorted(ms.load_checkpoint(path, filter_prefix="fc1")) == ["fc2.weight"]
    assert sorted(ms.load_checkpoint(path, specify_prefix=["fc1.w"])) == ["fc1.weight"]
    (tmp_path / "junk.ckpt").write_bytes(b"\xff\xff\xff\xff not protobuf")
    with pytest.raises(ValueError, match="is not a MindSpore .ckpt file"):
        ms.load_checkpoint(str(tmp_path / "junk.ckpt"))
    with pytest.raises(ValueError, match="does not exist"):
        ms.load_checkpoint(str(tmp_path / "missing.ckpt"))
    with pytest.raises(ValueError, match=r"format must be one of \['ckpt', 'safetensors'\]"):
        ms.save_checkpoint(net, path, format="h5")
    with pytest.raises(ValueError, match="not supported by mscustom"):
        ms.save_checkpoint(net, path, enc_key=b"0123456789abcdef")


def test_optimizer_state_is_saved_with_a_training_cell(tmp_path):
    net = Net()
    opt = nn.Adam(net.trainable_params(), 0.01)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    step(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.zeros((2, 2), np.float32)))
    ms.save_checkpoint(step, str(tmp_path / "s.ckpt"))
    params = ms.load_checkpoint(str(tmp_path / "s.ckpt"))
    np.testing.assert_array_equal(params["moment1.fc1.weight"].asnumpy(), opt.moment1[0].asnumpy())
    opt.moment1[0].set_data(np.zeros((4, 3), np.float32))
    ms.load_param_into_net(step, params)
    np.testing.assert_array_equal(opt.moment1[0].asnumpy(), params["moment1.fc1.weight"].asnumpy())
