"""MXNet's binary NDArray file format (``.params``): ``mx.nd.save`` / ``mx.nd.load``.

The layout is MXNet's ``NDArray::Save`` for a list (all little-endian):

- ``uint64`` list magic ``0x112``, ``uint64`` reserved (0);
- ``uint64`` number of arrays, then each array:
  ``uint32`` magic ``0xF993fac9`` (version 2), ``int32`` storage type (0: default),
  ``uint32`` ndim and ``int64`` dims, ``int32`` device type (1: cpu) and ``int32`` device id,
  ``int32`` type flag, then the raw data in C order;
- ``uint64`` number of names, then each: ``uint64`` length and the UTF-8 bytes.

A dict is saved with its keys as names (``arg:fc1_weight`` in checkpoints); a
list with no names. Reading also accepts version 1 (``0xF993fac8``, no storage
type), version 3 (``0xF993faca``) and the legacy layout with no array magic.
Sparse arrays (storage type 1 or 2) are refused with a clear error.
"""

import struct

import numpy as np

from . import base as _base

__all__ = ["save", "load", "dumps", "loads"]

LIST_MAGIC = 0x112
V1_MAGIC, V2_MAGIC, V3_MAGIC = 0xF993FAC8, 0xF993FAC9, 0xF993FACA
# mshadow type flags
TYPE_FLAGS = {np.dtype("float32"): 0, np.dtype("float64"): 1, np.dtype("float16"): 2, np.dtype("uint8"): 3,
              np.dtype("int32"): 4, np.dtype("int8"): 5, np.dtype("int64"): 6, np.dtype("bool"): 7}
FLAG_TYPES = {v: k for k, v in TYPE_FLAGS.items()}


def _array_bytes(a):
    a = np.ascontiguousarray(a)
    flag = TYPE_FLAGS.get(a.dtype)
    if flag is None:
        raise TypeError(f"mx.nd.save: dtype {a.dtype} has no MXNet type flag; supported: "
                        f"{[str(d) for d in TYPE_FLAGS]}")
    head = struct.pack("<Ii", V2_MAGIC, 0) + struct.pack("<I", a.ndim) + struct.pack(f"<{a.ndim}q", *a.shape)
    if a.ndim == 0 and a.size == 0:
        return head
    return head + struct.pack("<iii", 1, 0, flag) + a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes()


def dumps(data):
    """The bytes of ``mx.nd.save`` for an NDArray, a list of them or a dict of name -> NDArray."""
    from ...tensor import Tensor
    if isinstance(data, Tensor):
        data = [data]
    if isinstance(data, dict):
        names, arrays = list(data.keys()), list(data.values())
    elif isinstance(data, (list, tuple)):
        names, arrays = [], list(data)
    else:
        raise TypeError(f"mx.nd.save: data must be an NDArray, a list or a dict of NDArrays, got {type(data).__name__}")
    for k in names:
        if not isinstance(k, str):
            raise TypeError(f"mx.nd.save: dict keys must be strings, got {k!r}")
    parts = [struct.pack("<QQ", LIST_MAGIC, 0), struct.pack("<Q", len(arrays))]
    for a in arrays:
        if not isinstance(a, Tensor):
            raise TypeError(f"mx.nd.save: every value must be an NDArray, got {type(a).__name__}")
        parts.append(_array_bytes(a.asnumpy()))
    parts.append(struct.pack("<Q", len(names)))
    for k in names:
        b = k.encode("utf-8")
        parts.append(struct.pack("<Q", len(b)) + b)
    return b"".join(parts)


def save(fname, data):
    """Save NDArrays to ``fname`` in MXNet's binary format (a dict keeps its names)."""
    blob = dumps(data)
    with open(fname, "wb") as f:
        f.write(blob)


class _Reader:
    def __init__(self, blob, fname):
        self.blob, self.pos, self.fname = blob, 0, fname

    def read(self, fmt):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.blob):
            raise _base.MXNetError(f"mx.nd.load: {self.fname} ends early (offset {self.pos}, wanted {size} more "
                                   "bytes); the file is truncated or not an NDArray file")
        vals = struct.unpack_from(fmt, self.blob, self.pos)
        self.pos += size
        return vals

    def raw(self, n):
        if self.pos + n > len(self.blob):
            raise _base.MXNetError(f"mx.nd.load: {self.fname} ends early inside an array's data")
        b = self.blob[self.pos:self.pos + n]
        self.pos += n
        return b


def _read_array(r):
    (magic,) = r.read("<I")
    if magic in (V2_MAGIC, V3_MAGIC):
        (stype,) = r.read("<i")
        if stype != 0:
            name = {1: "row_sparse", 2: "csr"}.get(stype, str(stype))
            raise _base.MXNetError(f"mx.nd.load: {r.fname} holds an array of storage type {name!r}; sparse "
                                   "storage is not supported here (only 'default')")
        (ndim,) = r.read("<i")
    elif magic == V1_MAGIC:
        (ndim,) = r.read("<i")
    else:                                    # legacy: no magic, the word read was ndim (uint32 dims)
        ndim = magic
        shape = r.read(f"<{ndim}I") if ndim else ()
        return _read_body(r, shape)
    if ndim < 0:
        return None
    shape = r.read(f"<{ndim}q") if ndim else ()
    if ndim == 0 and magic != V3_MAGIC:
        return None                          # MXNet's "none" array
    return _read_body(r, shape)


def _read_body(r, shape):
    dev_type, dev_id, flag = r.read("<iii")
    dtype = FLAG_TYPES.get(flag)
    if dtype is None:
        raise _base.MXNetError(f"mx.nd.load: {r.fname}: unknown type flag {flag}")
    n = int(np.prod(shape)) if shape else 1
    data = np.frombuffer(r.raw(n * dtype.itemsize), dtype=dtype.newbyteorder("<")).astype(dtype)
    return data.reshape(shape)


def loads(blob, fname="<bytes>"):
    """Parse the bytes of an MXNet NDArray file: a dict when it has names, else a list."""
    from ._ndarray import wrap
    r = _Reader(blob, fname)
    magic, _ = r.read("<QQ")
    if magic != LIST_MAGIC:
        raise _base.MXNetError(f"mx.nd.load: {fname} is not an MXNet NDArray file (magic {magic:#x}, "
                               f"expected {LIST_MAGIC:#x})")
    (count,) = r.read("<Q")
    arrays = [_read_array(r) for _ in range(count)]
    (n_names,) = r.read("<Q")
    names = []
    for _ in range(n_names):
        (ln,) = r.read("<Q")
        names.append(r.raw(ln).decode("utf-8"))
    arrays = [None if a is None else wrap(a) for a in arrays]
    if names:
        if len(names) != len(arrays):
            raise _base.MXNetError(f"mx.nd.load: {fname} has {len(arrays)} arrays but {len(names)} names")
        return dict(zip(names, arrays))
    return arrays


def load(fname):
    """Load NDArrays saved by ``mx.nd.save`` (or by MXNet itself)."""
    with open(fname, "rb") as f:
        return loads(f.read(), str(fname))
