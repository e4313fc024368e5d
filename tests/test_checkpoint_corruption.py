"""A truncated or corrupted checkpoint raises ValueError naming the file, instead of loading fewer or wrong
tensors; ``load_param_into_net`` reports what it could not fill as MindSpore 2.10 does.

Facts from MindSpore 2.10 (CPU), used as the oracle:

* ``MS_CKPT_CRC`` below is ``ms.save_checkpoint(nn.Dense(2, 3), f, crc_check=True)`` after
  ``ms.set_seed(0); nn.Dense(2, 3)`` (the second Dense built): the protobuf entries (86 bytes) and the
  17-byte trailer ``b"crc_num" + crc32.to_bytes(10, "big")``. ``MS_CKPT_CRC[:86]`` is the file
  ``crc_check=False`` writes.
* MindSpore loading every cut ``raw[:n]`` of that file, with or without ``crc_check``: ValueError for
  101 of the 103 lengths; n = 51 (the end of the first entry) loads ``['weight']`` alone and n = 86 (the
  trailer cut off) loads both, with no error. The same cuts of a plain file: every n raises except 51.
  The 0-byte file: ``ValueError: The loaded parameter dict is empty after filter or specify, ...``; other
  cuts: ``ValueError: Failed to read the checkpoint file <path>. The file may be corrupted, and the
  content cannot be parsed.``
* MindSpore loading each one-byte change (``^ 0x10``) of that file: with ``crc_check=True`` all 103 raise
  ValueError; without it 64 of them load (byte 0, for one, turns the first entry into an unknown field
  and 'weight' silently disappears).
* ``MS_SAFETENSORS_CRC`` is the same net saved with ``format="safetensors", crc_check=True``: metadata
  ``{"crc_num": "981928013", "format": "ms"}``. Every cut of a safetensors file raises ValueError.
* ``load_param_into_net(Dense(2, 3), {"weight": ..., "extra": ...}, strict_load=True)`` does not raise:
  it loads 'weight', returns ``(['bias'], ['extra'])`` and logs two warnings, "For 'load_param_into_net',
  1 parameters in the 'net' are not loaded, because they are not in the 'parameter_dict', please check
  whether the network structure is consistent when training and loading checkpoint." and
  "['bias'] are not loaded."; ``strict_load=False`` gives the same result and warnings. An empty dict
  returns ``(['weight', 'bias'], [])``.
* ``load_checkpoint(f, choice_func=lambda n: False)``: ``ValueError: The loaded parameter dict is empty
  after filter or specify, please check whether 'filter_prefix' or 'specify_prefix' are set correctly.``
* Files written by mscustom (with its header, with and without ``crc_check=True``, and safetensors with
  its crc_num metadata) load in MindSpore 2.10 with the same values, its ``crc_check=True`` included.
"""

import re
import warnings

import numpy as np
import pytest

import mscustom as ms
from mscustom import nn

MS_CKPT_CRC = bytes.fromhex(
    "0a310a067765696768741227080308021207466c6f617433321a18a7f020bf0f0b31bee62f073f98ed753ed8c004bedd3634be"
    "0a210a0462696173121908031207466c6f617433321a0c6a77edbeb9c4babe5b95043e6372635f6e756d000000000000fb874bb2")
MS_SAFETENSORS_CRC = bytes.fromhex(
    "b0000000000000007b225f5f6d657461646174615f5f223a7b226372635f6e756d223a22393831393238303133222c22666f72"
    "6d6174223a226d73227d2c2262696173223a7b226474797065223a22463332222c227368617065223a5b335d2c22646174615f"
    "6f666673657473223a5b302c31325d7d2c22776569676874223a7b226474797065223a22463332222c227368617065223a5b33"
    "2c325d2c22646174615f6f666673657473223a5b31322c33365d7d7d2020206a77edbeb9c4babe5b95043ea7f020bf0f0b31be"
    "e62f073f98ed753ed8c004bedd3634be")
MS_WEIGHT = [[-0.6286720633506775, -0.17289374768733978], [0.5280746221542358, 0.2401641607284546],
             [-0.12964189052581787, -0.1759905368089676]]
MS_BIAS = [-0.46380168199539185, -0.3647821247577667, 0.12947599589824677]


def outcome(path, data, **kwargs):
    """The sorted names ``load_checkpoint`` returns for a file holding ``data``, or "ValueError" (whose
    message must name the file)."""
    path.write_bytes(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return sorted(ms.load_checkpoint(str(path), **kwargs))
    except ValueError as exc:
        assert str(path) in str(exc), str(exc)
        return "ValueError"


def dense_file(tmp_path, **kwargs):
    ms.set_seed(0)
    net = nn.Dense(2, 3)
    name = tmp_path / ("net.safetensors" if kwargs.get("format") == "safetensors" else "net.ckpt")
    ms.save_checkpoint(net, str(name), **kwargs)
    return net, name.read_bytes()


# ------------------------------------------------------------------ files mscustom writes
@pytest.mark.parametrize("crc_check", [False, True])
def test_every_cut_of_a_written_ckpt_raises(tmp_path, crc_check):
    net, raw = dense_file(tmp_path, crc_check=crc_check)
    target = tmp_path / "cut.ckpt"
    assert outcome(target, raw) == ["bias", "weight"]
    loaded = [n for n in range(len(raw)) if outcome(target, raw[:n]) != "ValueError"]
    assert loaded == []                          # MindSpore's own files: cuts 51 and 86 load (see above)


def test_the_messages_say_what_is_wrong(tmp_path):
    _, raw = dense_file(tmp_path)
    path = tmp_path / "cut.ckpt"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match=re.escape(f"load_checkpoint: failed to read the checkpoint file {path}: "
                                                   "the file is empty (0 bytes). The file is truncated")):
        ms.load_checkpoint(str(path))
    path.write_bytes(raw[:len(raw) - 34])        # the second entry (bias) cut off whole
    with pytest.raises(ValueError, match=r"its header records \d+ bytes of entries but \d+ follow \(truncated\)"):
        ms.load_checkpoint(str(path))
    flipped = bytearray(raw)
    flipped[-1] ^= 0x01
    path.write_bytes(bytes(flipped))
    with pytest.raises(ValueError, match=r"the CRC32 of its entries is \d+ but its header records \d+"):
        ms.load_checkpoint(str(path))


@pytest.mark.parametrize("crc_check", [False, True])
def test_every_changed_byte_of_a_written_ckpt_raises(tmp_path, crc_check):
    _, raw = dense_file(tmp_path, crc_check=crc_check)
    target = tmp_path / "flip.ckpt"
    for mask in (0x01, 0x80):
        loaded = [i for i in range(len(raw))
                  if outcome(target, raw[:i] + bytes([raw[i] ^ mask]) + raw[i + 1:]) != "ValueError"]
        assert loaded == [], mask


def test_every_cut_of_a_written_safetensors_file_raises(tmp_path):
    _, raw = dense_file(tmp_path, format="safetensors")
    target = tmp_path / "cut.safetensors"
    assert outcome(target, raw, format="safetensors") == ["bias", "weight"]
    assert [n for n in range(len(raw)) if outcome(target, raw[:n], format="safetensors") != "ValueError"] == []


def test_no_changed_byte_of_a_written_safetensors_file_loads_other_tensors(tmp_path):
    net, raw = dense_file(tmp_path, format="safetensors")
    data_start = 8 + int.from_bytes(raw[:8], "little")
    target = tmp_path / "flip.safetensors"
    for i in range(len(raw)):
        target.write_bytes(raw[:i] + bytes([raw[i] ^ 0x01]) + raw[i + 1:])
        try:
            params = ms.load_checkpoint(str(target), format="safetensors")
        except ValueError as exc:
            assert str(target) in str(exc)
            continue
        # a change the file cannot see (JSON whitespace, the "format" value) leaves the tensors as they were
        assert i < data_start and sorted(params) == ["bias", "weight"], i
        np.testing.assert_array_equal(params["weight"].asnumpy(), net.weight.asnumpy())
        np.testing.assert_array_equal(params["bias"].asnumpy(), net.bias.asnumpy())
    target.write_bytes(raw[:-1] + bytes([raw[-1] ^ 0x01]))
    with pytest.raises(ValueError, match=r"is corrupted: the CRC32 of its tensors is \d+ but its crc_num metadata "
                                         r"records \d+"):
        ms.load_checkpoint(str(target), format="safetensors")


# ------------------------------------------------------------------ files MindSpore writes
def test_mindspore_files_with_crc_load_and_every_changed_byte_raises(tmp_path):
    path = tmp_path / "ms.ckpt"
    path.write_bytes(MS_CKPT_CRC)
    params = ms.load_checkpoint(str(path))
    assert params["weight"].asnumpy().tolist() == MS_WEIGHT and params["bias"].asnumpy().tolist() == MS_BIAS
    st = tmp_path / "ms.safetensors"
    st.write_bytes(MS_SAFETENSORS_CRC)
    params = ms.load_checkpoint(str(st), format="safetensors", crc_check=True)
    assert params["weight"].asnumpy().tolist() == MS_WEIGHT and params["bias"].asnumpy().tolist() == MS_BIAS
    raw = MS_CKPT_CRC                           # mscustom checks the trailer always (MindSpore: with crc_check)
    assert all(outcome(path, raw[:i] + bytes([raw[i] ^ 0x10]) + raw[i + 1:]) == "ValueError"
               for i in range(len(raw)))


def test_mindspore_ckpt_cuts_as_mindspore_sees_them(tmp_path):
    path = tmp_path / "cut.ckpt"
    got = {n: outcome(path, MS_CKPT_CRC[:n]) for n in range(len(MS_CKPT_CRC))}
    # MindSpore 2.10: a cut at the end of an entry is a valid shorter file, to it as to mscustom
    assert {n: r for n, r in got.items() if r != "ValueError"} == {51: ["weight"], 86: ["bias", "weight"]}
    plain = MS_CKPT_CRC[:86]
    assert [n for n in range(len(plain)) if outcome(path, plain[:n]) != "ValueError"] == [51]
    # byte 0 ^ 0x10 makes the first entry an unknown field: MindSpore drops 'weight' silently, mscustom raises
    assert outcome(path, bytes([plain[0] ^ 0x10]) + plain[1:]) == "ValueError"
    with pytest.warns(UserWarning, match="holds no CRC code to check"):
        path.write_bytes(plain)
        ms.load_checkpoint(str(path), crc_check=True)


def test_an_empty_dict_after_filters_raises(tmp_path):
    _, raw = dense_file(tmp_path)
    path = tmp_path / "net.ckpt"
    with pytest.raises(ValueError, match=re.escape(f"the loaded parameter dict of {path} is empty after filter or "
                                                   "specify")):
        ms.load_checkpoint(str(path), choice_func=lambda name: False)


# ------------------------------------------------------------------ load_param_into_net
@pytest.mark.parametrize("strict_load", [True, False])
def test_missing_parameters_are_returned_and_warned_not_raised(strict_load):
    net = nn.Dense(2, 3)
    bias = net.bias.asnumpy().copy()
    params = {"weight": ms.Parameter(ms.Tensor(np.ones((3, 2), np.float32)), name="weight"),
              "extra": ms.Parameter(ms.Tensor(np.ones(1, np.float32)), name="extra")}
    with pytest.warns(UserWarning, match=re.escape("load_param_into_net: 1 parameter(s) in the net are not "
                                                   "loaded, because they are not in the parameter_dict: ['bias']")):
        result = ms.load_param_into_net(net, params, strict_load=strict_load)
    assert result == (["bias"], ["extra"])       # MindSpore 2.10's result for both values of strict_load
    assert net.weight.asnumpy().tolist() == [[1.0, 1.0]] * 3 and net.bias.asnumpy().tobytes() == bias.tobytes()
    with pytest.warns(UserWarning, match=r"2 parameter\(s\)"):
        assert ms.load_param_into_net(nn.Dense(2, 3), {}, strict_load=True) == (["weight", "bias"], [])
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # everything loaded: no warning
        assert ms.load_param_into_net(net, {"weight": params["weight"], "bias": net.bias}) == ([], [])
