"""Checkpoints: ``save_checkpoint``, ``load_checkpoint``, ``load_param_into_net``, as in MindSpore 2.x.

``format="ckpt"`` is MindSpore's own file: the protobuf ``Checkpoint``
message of ``_ckpt_proto.py`` (named raw tensors), so files move between
MindSpore and mscustom both ways. ``format="safetensors"`` goes through the
``safetensors`` library. Every write is atomic: the bytes go to a temporary
file in the target directory, are fsynced, and the file is renamed over the
final name with ``os.replace`` - a save that fails or is killed never leaves
a truncated checkpoint under that name.

Every file mscustom writes carries a checksum, so a load of a truncated or
corrupted copy raises ``ValueError`` naming the file instead of returning
fewer or wrong tensors: a ``.ckpt`` starts with a length-and-CRC32 header
that MindSpore skips (``_ckpt_integrity.py``), a ``.safetensors`` file holds
MindSpore's ``crc_num`` metadata. Both are checked on every load, as is
MindSpore's ``crc_num`` trailer of a ``.ckpt`` saved with ``crc_check=True``.

Where this differs from MindSpore: encryption (``enc_key``/``dec_key``),
``async_save`` and MapTensor entries are not supported (an error says so);
a checksum in the file is checked whatever ``crc_check`` says; files are not
made read-only after writing.

Example::

    ms.save_checkpoint(net, "net.ckpt")
    params = ms.load_checkpoint("net.ckpt")
    param_not_load, ckpt_not_load = ms.load_param_into_net(fresh_net, params)
"""

import json
import os
import tempfile
import warnings
import zlib

import numpy as np

from ..tensor import Parameter, Tensor

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net"]

_FORMATS = ("ckpt", "safetensors")


# ------------------------------------------------------------------ atomic writes
def _atomic_write(path, write):
    """Call ``write(fileobj)`` on a temporary file next to ``path``, fsync it, then rename it to ``path``."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:                                         # make the rename itself durable
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


# ------------------------------------------------------------------ what to save
class _Scalar(Parameter):
    """A checkpoint entry for an optimizer's scalar state (``global_step``, ``beta1_power`` ...): loading
    it hands the value back to the optimizer."""

    __slots__ = ("restore",)


def _optimizer_state(cell, with_params=False):
    """(name, Parameter) for the state of every optimizer inside ``cell``, as MindSpore checkpoints it:
    its scalars (``global_step``, ``learning_rate``, ``momentum``, ``beta1_power`` ...) as ``_Scalar``
    entries, then its moments and accumulators. ``with_params``: also the Parameters it optimizes
    (``load_param_into_net(optimizer, ...)`` fills them, as MindSpore's does)."""
    from ..nn.optim import Optimizer
    from ..tensor import ParameterTuple
    for _, sub in cell.cells_and_names():
        if isinstance(sub, Optimizer):
            if with_params:
                for p in sub.parameters:
                    yield p.name, p
            for name, arr in sub.checkpoint_scalars().items():
                entry = _Scalar(Tensor._wrap(arr), name=name, requires_grad=False)
                entry.restore = sub.restore_scalar
                yield name, entry
            for value in vars(sub).values():
                if isinstance(value, ParameterTuple) and value is not sub.parameters:
                    for p in value:
                        yield p.name, p


def _as_array(data, name):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (np.ndarray, np.generic, int, float, bool)):
        return np.asarray(data)
    raise TypeError(f"save_checkpoint: the data of '{name}' must be a Tensor, Parameter or NumPy array, "
                    f"got {type(data).__name__}")


def _entries(save_obj, append_dict, choice_func):
    from ..nn.cell import Cell
    if isinstance(save_obj, Cell):
        pairs = [(p.name, p) for p in save_obj.get_parameters()] + list(_optimizer_state(save_obj))
    elif isinstance(save_obj, dict):
        pairs = list(save_obj.items())
    elif isinstance(save_obj, (list, tuple)):
        pairs = []
        for item in save_obj:
            if isinstance(item, dict) and set(item) >= {"name", "data"}:
                pairs.append((item["name"], item["data"]))
            elif isinstance(item, (list, tuple)) and len(item) == 2:
                pairs.append((item[0], item[1]))
            else:
                raise TypeError("save_checkpoint: a list save_obj must hold dicts {'name': ..., 'data': ...}, "
                                f"got {item!r}")
    else:
        raise TypeError("save_checkpoint: save_obj must be a Cell, a list of {'name', 'data'} dicts or a dict "
                        f"name -> Tensor, got {type(save_obj).__name__}")
    if append_dict:
        if not isinstance(append_dict, dict):
            raise TypeError(f"save_checkpoint: append_dict must be a dict, got {type(append_dict).__name__}")
        for k, v in append_dict.items():
            if isinstance(v, bool):
                v = np.asarray(v)
            elif isinstance(v, int):
                v = np.asarray(v, np.int64)
            elif isinstance(v, float):
                v = np.asarray(v, np.float32)
            pairs.append((k, v))
    out, seen = [], set()
    for name, data in pairs:
        if not isinstance(name, str) or not name:
            raise ValueError(f"save_checkpoint: every entry needs a non-empty str name, got {name!r}")
        if choice_func is not None and not choice_func(name):
            continue
        if name in seen:
            raise ValueError(f"save_checkpoint: the name '{name}' appears twice")
        seen.add(name)
        arr = _as_array(data, name)
        out.append((name, arr if arr.flags.c_contiguous else arr.copy(order="C")))   # keeps 0-d arrays 0-d
    return out


def _check_unsupported(fn, **kwargs):
    bad = sorted(k for k, v in kwargs.items() if v)
    if bad:
        raise ValueError(f"{fn}: {bad} are not supported by mscustom (no encryption or asynchronous saving); "
                         "leave them at their defaults")


def _safetensors_crc(arrays):
    """MindSpore's ``crc_num`` of a safetensors file: CRC32 over each name and its raw bytes, names sorted."""
    crc = 0
    for name in sorted(arrays):
        crc = zlib.crc32(name.encode("utf-8"), crc)
        crc = zlib.crc32(np.ascontiguousarray(arrays[name]).reshape(-1).view(np.uint8), crc)
    return crc


def _file_name(name, fmt, fn):
    if not isinstance(name, (str, os.PathLike)):
        raise TypeError(f"{fn}: the file name must be a str or path, got {type(name).__name__}")
    if fmt not in _FORMATS:
        raise ValueError(f"{fn}: format must be one of {list(_FORMATS)}, got {fmt!r}")
    name = os.fspath(name)
    suffix = "." + fmt
    return name if name.endswith(suffix) else name + suffix


# ------------------------------------------------------------------ save
def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False, append_dict=None,
                    enc_key=None, enc_mode="AES-GCM", choice_func=None, crc_check=False, format="ckpt",
                    **kwargs):
    """Save a Cell's parameters (and its optimizers' state), or named tensors, to a checkpoint file.

    ``save_obj`` is a Cell, a list of ``{"name": str, "data": Tensor}`` dicts,
    or a dict name -> Tensor. ``append_dict`` adds named numbers or Tensors;
    ``choice_func(name)`` keeps only the names it returns True for. The suffix
    ``.ckpt`` / ``.safetensors`` is added when missing, as MindSpore does.
    The file always carries a checksum that ``load_checkpoint`` checks;
    ``crc_check=True`` adds MindSpore's own ``crc_num`` trailer to a ``.ckpt``
    (a ``.safetensors`` file always holds MindSpore's ``crc_num`` metadata).

    Example::

        ms.save_checkpoint(net, "./lenet.ckpt")
        ms.save_checkpoint([{"name": "w", "data": ms.Tensor([1.0, 2.0])}], "w.safetensors", format="safetensors")
    """
    _check_unsupported("save_checkpoint", async_save=async_save, enc_key=enc_key)
    if not isinstance(crc_check, bool):
        raise TypeError(f"save_checkpoint: crc_check must be a bool, got {type(crc_check).__name__}")
    path = _file_name(ckpt_file_name, format, "save_checkpoint")
    entries = _entries(save_obj, append_dict, choice_func)
    if format == "safetensors":
        from safetensors.numpy import save as st_save
        arrays = dict(entries)
        blob = st_save(arrays, metadata={"format": "ms", "crc_num": str(_safetensors_crc(arrays))})
        _atomic_write(path, lambda f: f.write(blob))
        return
    from ._ckpt_integrity import frame
    from ._ckpt_proto import MS_TYPE_NAMES, Checkpoint
    msg = Checkpoint()
    for name, arr in entries:
        type_name = MS_TYPE_NAMES.get(arr.dtype.name)
        if type_name is None:
            raise TypeError(f"save_checkpoint: '{name}' has dtype {arr.dtype}, which a .ckpt file cannot "
                            f"hold; supported: {sorted(MS_TYPE_NAMES)}")
        value = msg.value.add()
        value.tag = name
        value.tensor.dims.extend(arr.shape if arr.ndim else (0,))
        value.tensor.tensor_type = type_name
        value.tensor.tensor_content = arr.tobytes()
    blob = frame(msg.SerializeToString(), crc_trailer=crc_check)
    _atomic_write(path, lambda f: f.write(blob))


# ------------------------------------------------------------------ load
def _unreadable(path, reason):
    return ValueError(f"load_checkpoint: failed to read the checkpoint file {path}: {reason}. The file is "
                      "truncated or corrupted, or is not a MindSpore .ckpt file")


def _read_ckpt(path):
    """(name -> array, has_crc) of a .ckpt file; ValueError naming the file when it is truncated or corrupted."""
    from google.protobuf.message import DecodeError
    from ._ckpt_integrity import CorruptCheckpoint, unframe
    from ._ckpt_proto import MS_TYPE_NAMES, Checkpoint
    by_type = {v: np.dtype(k) for k, v in MS_TYPE_NAMES.items()}
    with open(path, "rb") as f:
        raw = f.read()
    try:
        body, has_crc = unframe(raw)
    except CorruptCheckpoint as exc:
        raise _unreadable(path, exc) from None
    msg = Checkpoint()
    try:
        msg.ParseFromString(body)
    except DecodeError as exc:
        raise _unreadable(path, f"protobuf parse failed ({exc}); is it encrypted?") from None
    if not msg.IsInitialized():                  # ParseFromString lets required fields go missing
        raise _unreadable(path, f"required fields are missing: {msg.FindInitializationErrors()}")
    chunks, meta = {}, {}
    for value in msg.value:
        if not value.HasField("tensor"):
            raise ValueError(f"load_checkpoint: entry '{value.tag}' in {path} holds no dense tensor (a MindSpore "
                             "MapTensor?), which mscustom cannot load")
        t = value.tensor
        dtype = by_type.get(t.tensor_type)
        if dtype is None:
            raise _unreadable(path, f"entry '{value.tag}' has tensor_type {t.tensor_type!r}; supported: "
                                    f"{sorted(by_type)}")
        if meta.get(value.tag, (list(t.dims), dtype)) != (list(t.dims), dtype):
            raise _unreadable(path, f"the slices of entry '{value.tag}' disagree on dims or type")
        chunks.setdefault(value.tag, []).append(t.tensor_content)       # large tensors come in slices
        meta[value.tag] = (list(t.dims), dtype)
    out = {}
    for tag, parts in chunks.items():
        dims, dtype = meta[tag]
        data = b"".join(parts)
        shape = () if dims == [0] else tuple(dims)
        if any(d < 0 for d in shape) or int(np.prod(shape)) * dtype.itemsize != len(data):
            raise _unreadable(path, f"entry '{tag}' has dims {dims} of {dtype} ({int(np.prod(shape))} "
                                    f"element(s)) but {len(data)} byte(s) of data")
        out[tag] = np.frombuffer(data, dtype=dtype).copy().reshape(shape)
    return out, has_crc


def _read_safetensors(path):
    """(name -> array, has_crc) of a safetensors file; ValueError naming the file when it is truncated or
    corrupted (its ``crc_num`` metadata, when present, must match)."""
    from safetensors.numpy import load
    with open(path, "rb") as f:
        raw = f.read()
    try:
        arrays = load(raw)
        metadata = json.loads(raw[8:8 + int.from_bytes(raw[:8], "little")]).get("__metadata__") or {}
    except Exception as exc:                                             # noqa: BLE001 - reworded below
        raise ValueError(f"load_checkpoint: failed to read the safetensors file {path}: {exc}. The file is "
                         "truncated or corrupted, or is not a safetensors file") from None
    stored = metadata.get("crc_num")
    if stored is not None and str(_safetensors_crc(arrays)) != stored:
        raise ValueError(f"load_checkpoint: the safetensors file {path} is corrupted: the CRC32 of its tensors "
                         f"is {_safetensors_crc(arrays)} but its crc_num metadata records {stored}")
    return arrays, stored is not None


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                    dec_mode="AES-GCM", specify_prefix=None, choice_func=None, crc_check=False,
                    remove_redundancy=False, format="ckpt"):
    """Read a checkpoint into a dict name -> Parameter; with ``net``, also load them into it.

    ``filter_prefix`` drops names starting with it (a str or a list),
    ``specify_prefix`` keeps only those, ``choice_func(name)`` keeps those it
    accepts. A file that is truncated or corrupted as far as it can tell (see
    the module's docstring), or a dict left empty, raises ``ValueError`` naming
    the file, as in MindSpore. ``crc_check=True`` warns when the file holds no
    checksum (MindSpore's warning).

    Example::

        param_dict = ms.load_checkpoint("./lenet.ckpt")
        print(param_dict["fc1.weight"].shape)
    """
    _check_unsupported("load_checkpoint", dec_key=dec_key)
    if format not in _FORMATS:
        raise ValueError(f"load_checkpoint: format must be one of {list(_FORMATS)}, got {format!r}")
    path = os.fspath(ckpt_file_name)
    if not os.path.isfile(path):
        raise ValueError(f"load_checkpoint: the checkpoint file {path!r} does not exist")
    arrays, has_crc = (_read_safetensors if format == "safetensors" else _read_ckpt)(path)
    if crc_check and not has_crc:                                        # MindSpore's warning, as a warning
        warnings.warn(f"load_checkpoint: {path} holds no CRC code to check (crc_check=True)", UserWarning,
                      stacklevel=2)

    def prefixes(value, what):
        if value is None:
            return ()
        values = (value,) if isinstance(value, str) else tuple(value)
        if not all(isinstance(v, str) and v for v in values):
            raise TypeError(f"load_checkpoint: {what} must be a non-empty str or a list of them, got {value!r}")
        return values
    drop, keep = prefixes(filter_prefix, "filter_prefix"), prefixes(specify_prefix, "specify_prefix")
    params = {}
    for name, arr in arrays.items():
        if drop and name.startswith(drop):
            continue
        if keep and not name.startswith(keep):
            continue
        if choice_func is not None and not choice_func(name):
            continue
        params[name] = Parameter(Tensor._wrap(arr), name=name)
    if not params:                                                       # MindSpore raises here too
        raise ValueError(f"load_checkpoint: the loaded parameter dict of {path} is empty" +
                         (" after filter or specify; check whether 'filter_prefix', 'specify_prefix' and "
                          "'choice_func' are set correctly" if arrays else ": the file holds no parameters"))
    if net is not None:
        load_param_into_net(net, params, strict_load=strict_load)
    return params


def load_param_into_net(net, parameter_dict, strict_load=False, remove_redundancy=False):
    """Copy ``parameter_dict``'s values into ``net``'s Parameters of the same names.

    Returns ``(param_not_load, ckpt_not_load)``: the net's parameter names
    that got no value, and the dict's names that went nowhere (MindSpore
    2.x's result). Shapes must match. With ``strict_load=False`` values are
    cast to the parameter's dtype, and a net parameter whose name is not in
    the dict takes the one entry whose name differs from it only by a leading
    prefix (``"backbone.fc.weight"`` <-> ``"fc.weight"``); with
    ``strict_load=True`` names and dtypes must match exactly. Either way,
    net parameters that get no value do not raise: as MindSpore 2.10 does,
    they are returned in ``param_not_load`` and named in a ``UserWarning``
    (MindSpore logs the same warning).

    Example::

        param_not_load, ckpt_not_load = ms.load_param_into_net(net, ms.load_checkpoint("net.ckpt"))
    """
    from ..nn.cell import Cell
    if not isinstance(net, Cell):
        raise TypeError(f"load_param_into_net: net must be a Cell, got {type(net).__name__}")
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"load_param_into_net: parameter_dict must be a dict name -> Parameter, got "
                        f"{type(parameter_dict).__name__}")
    for k, v in parameter_dict.items():
        if not isinstance(v, (Tensor, np.ndarray)):
            raise TypeError(f"load_param_into_net: parameter_dict['{k}'] must be a Parameter or Tensor, got "
                            f"{type(v).__name__}")
    targets, seen = [], set()
    for name, param in [(p.name, p) for p in net.get_parameters()] + list(_optimizer_state(net, True)):
        if id(param) not in seen:
            seen.add(id(param))
            targets.append((name, param))
    used, param_not_load = set(), []
    for name, param in targets:
        key = name if name in parameter_dict else None
        if key is None and not strict_load:
            cands = [k for k in parameter_dict if k not in used and
                     (k.endswith("." + name) or name.endswith("." + k))]
            key = cands[0] if len(cands) == 1 else None
        if key is None:
            param_not_load.append(name)
            continue
        value = parameter_dict[key]
        arr = value._data if isinstance(value, Tensor) else np.asarray(value)
        if arr.shape != param._data.shape:
            raise RuntimeError(f"load_param_into_net: the shape of '{name}' in the net is "
                               f"{list(param._data.shape)} but the checkpoint's '{key}' has {list(arr.shape)}")
        if arr.dtype != param._data.dtype:
            if strict_load:
                raise RuntimeError(f"load_param_into_net: '{name}' is {param._data.dtype} in the net but "
                                   f"{arr.dtype} in the checkpoint, and strict_load=True forbids casting")
            arr = arr.astype(param._data.dtype)
        np.copyto(param._data, arr)
        if type(param) is _Scalar:
            param.restore(name, arr)
        used.add(key)
    ckpt_not_load = [k for k in parameter_dict if k not in used]
    if param_not_load:
        warnings.warn(f"load_param_into_net: {len(param_not_load)} parameter(s) in the net are not loaded, because "
                      f"they are not in the parameter_dict: {param_not_load}; check whether the network structure "
                      "is the same when training and loading the checkpoint", UserWarning, stacklevel=2)
    return param_not_load, ckpt_not_load
