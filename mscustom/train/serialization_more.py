"""More of MindSpore's checkpoint functions: ``ckpt_to_safetensors`` / ``safetensors_to_ckpt``,
``load_checkpoint_async``, ``async_ckpt_thread_status``, ``merge_sliced_parameter``, and
``load_mindir`` / ``save_mindir`` (a MindIR file's ``ModelProto``).

Example::

    ms.ckpt_to_safetensors("./net.ckpt")                   # writes ./net.safetensors
    future = ms.load_checkpoint_async("./net.ckpt")
    param_dict = future.result()
"""

import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..tensor import Parameter, Tensor
from .serialization import load_checkpoint, save_checkpoint

__all__ = ["ckpt_to_safetensors", "safetensors_to_ckpt", "load_checkpoint_async", "async_ckpt_thread_status",
           "merge_sliced_parameter", "load_mindir", "save_mindir"]

_SUFFIX = {"ckpt": ".ckpt", "safetensors": ".safetensors"}


def _convert_one(src, dst_dir, name_map, src_fmt, dst_fmt):
    params = load_checkpoint(src, format=src_fmt)
    entries = {(name_map or {}).get(k, k): v for k, v in params.items()}
    base = os.path.splitext(os.path.basename(src))[0]
    save_checkpoint(entries, os.path.join(dst_dir, base + _SUFFIX[dst_fmt]), format=dst_fmt)


def _convert(fn, file_path, save_path, name_map, file_name_regex, src_fmt, dst_fmt):
    if name_map is not None and not isinstance(name_map, dict):
        raise TypeError(f"For {fn}, name_map must be a dict, but got {type(name_map).__name__}")
    if not isinstance(file_path, str) or not os.path.exists(file_path):
        raise ValueError(f"For {fn}, the input path must be a valid path or file, but got {file_path}")
    if save_path is not None and os.path.isfile(save_path):
        raise ValueError(f"For {fn}, the save_path must be a directory, but got '{save_path}'")
    if os.path.isfile(file_path):
        if not file_path.endswith(_SUFFIX[src_fmt]):
            raise ValueError(f"For {fn}, the input file must be a {_SUFFIX[src_fmt]} file, but got {file_path}")
        dst = save_path if save_path is not None else os.path.dirname(os.path.abspath(file_path))
        os.makedirs(dst, exist_ok=True)
        _convert_one(file_path, dst, name_map, src_fmt, dst_fmt)
        return
    ranks = sorted(d for d in os.listdir(file_path) if d.startswith("rank")
                   and os.path.isdir(os.path.join(file_path, d)))
    if not ranks:
        raise ValueError(f"For '{fn}', no directories starting with 'rank' found in {file_path}.")
    pattern = re.compile(file_name_regex) if file_name_regex else None
    for rank in ranks:
        src_dir = os.path.join(file_path, rank)
        dst_dir = os.path.join(save_path, rank) if save_path is not None else src_dir
        os.makedirs(dst_dir, exist_ok=True)
        for name in sorted(os.listdir(src_dir)):
            if name.endswith(_SUFFIX[src_fmt]) and (pattern is None or pattern.search(name)):
                _convert_one(os.path.join(src_dir, name), dst_dir, name_map, src_fmt, dst_fmt)


def ckpt_to_safetensors(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1):
    """Write a ``.ckpt`` file (or every ``.ckpt`` in the ``rank*`` folders of a directory) as
    ``.safetensors`` with the same base name, in ``save_path`` (default: beside it); ``name_map``
    renames parameters, ``file_name_regex`` picks the files in a directory."""
    _convert("ckpt_to_safetensors", file_path, save_path, name_map, file_name_regex, "ckpt", "safetensors")


def safetensors_to_ckpt(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1):
    """``ckpt_to_safetensors`` the other way round."""
    _convert("safetensors_to_ckpt", file_path, save_path, name_map, file_name_regex, "safetensors", "ckpt")


_POOL = []
_POOL_LOCK = threading.Lock()


class ParamDictFuture:
    """The pending result of ``load_checkpoint_async``: ``result()`` waits for the dict name -> Parameter
    (and loads it into the net, when one was given)."""

    def __init__(self, future, net, strict_load):
        self._future = future
        self._net = net
        self._strict = strict_load

    def result(self):
        params = self._future.result()
        if self._net is not None:
            from .serialization import load_param_into_net
            load_param_into_net(self._net, params, self._strict)
        return params


def load_checkpoint_async(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                          dec_mode="AES-GCM", specify_prefix=None, choice_func=None):
    """``load_checkpoint`` on a background thread: returns a future whose ``result()`` is the dict
    (loaded into ``net`` too when given)."""
    with _POOL_LOCK:
        if not _POOL:
            _POOL.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="mscustom-ckpt"))
    future = _POOL[0].submit(load_checkpoint, ckpt_file_name, None, strict_load, filter_prefix, dec_key,
                             dec_mode, specify_prefix, choice_func)
    return ParamDictFuture(future, net, strict_load)


def async_ckpt_thread_status():
    """Whether an asynchronous checkpoint save is running: saving is synchronous here, so False."""
    return False


def merge_sliced_parameter(sliced_parameters, strategy=None):
    """One Parameter from slices of it (same name, shapes equal but for axis 0), concatenated on axis 0."""
    fn = "merge_sliced_parameter"
    if not isinstance(sliced_parameters, (list, tuple)):
        raise TypeError(f"For '{fn}', the argument 'sliced_parameters' should be list, but got "
                        f"{type(sliced_parameters)}.")
    if not sliced_parameters:
        raise ValueError(f"For '{fn}', the argument 'sliced_parameters' should not be empty.")
    if strategy is not None:
        raise ValueError(f"For '{fn}', a parallel strategy is not supported here; merge without one.")
    for i, p in enumerate(sliced_parameters):
        if not isinstance(p, Parameter):
            raise TypeError(f"For '{fn}', the element in 'sliced_parameters' should be 'Parameter', but got "
                            f"{type(p)} at index {i}.")
    first = sliced_parameters[0]
    for p in sliced_parameters[1:]:
        if p.name != first.name or p.ndim != first.ndim or tuple(p.shape[1:]) != tuple(first.shape[1:]):
            raise ValueError(f"For '{fn}', please make sure that the elements in 'slice_parameters' have the same "
                             f"name, dimension length and shape except 0 axis. The name, dimension length, shape "
                             f"except 0 axis should be {first.name}, {first.ndim}, {tuple(first.shape[1:])}, but "
                             f"got {p.name}, {p.ndim}, {tuple(p.shape[1:])}.")
    data = np.concatenate([p.asnumpy() for p in sliced_parameters], axis=0)
    return Parameter(Tensor(data), name=first.name, requires_grad=first.requires_grad)


def load_mindir(file_name):
    """The ``ModelProto`` of a ``.mindir`` file (the fields mscustom's MindIR schema declares)."""
    from ._mindir_proto import ModelProto
    if not isinstance(file_name, str):
        raise TypeError(f"load_mindir: file_name must be a str, got {type(file_name).__name__}")
    if not os.path.isfile(file_name):
        raise ValueError(f"load_mindir: no such file: '{file_name}'")
    model = ModelProto()
    try:
        with open(file_name, "rb") as f:
            model.ParseFromString(f.read())
    except Exception as e:            # a file that is not a MindIR protobuf
        raise ValueError(f"load_mindir: failed to parse '{file_name}' as a MindIR file: {e}") from None
    return model


def save_mindir(model, file_name):
    """Write a ``ModelProto`` (from ``load_mindir``) to ``file_name`` (``.mindir`` added when missing)."""
    from ._mindir_proto import ModelProto
    if not isinstance(model, ModelProto):
        raise TypeError(f"save_mindir: model must be a ModelProto (from load_mindir), got {type(model).__name__}")
    if not isinstance(file_name, str):
        raise TypeError(f"save_mindir: file_name must be a str, got {type(file_name).__name__}")
    if not file_name.endswith(".mindir"):
        file_name += ".mindir"
    with open(file_name, "wb") as f:
        f.write(model.SerializeToString())
