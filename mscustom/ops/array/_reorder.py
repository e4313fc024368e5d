"""Moving, broadcasting and reordering elements with MindSpore 2.10's names: ``moveaxis``/``movedim``,
``swapdims``, ``expand``, ``expand_as``, ``ravel``, ``reshape_``, ``flipud``, ``fliplr``, ``rot90``,
``reverse``, ``reverse_sequence``, ``repeat_elements``, ``space_to_batch_nd``, ``batch_to_space_nd``.

Each is a composition of transposes, reshapes, flips, pads and gathers, so gradients flow.

Example::

    ops.movedim(x, 0, -1), ops.rot90(x, 1, (0, 1)), ops.space_to_batch_nd(x, 2, [[0, 0], [0, 1]])
"""

import numpy as np

from ...tensor import Tensor
from .. import functional as F
from .._builtin import normalize_axis, tensor_arg
from ._lazy import ops as _o
from ._creation_more import _pick_flat


def _ints(value, name, what):
    if isinstance(value, Tensor):
        value = value.asnumpy().reshape(-1).tolist()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),)
    if isinstance(value, (tuple, list)) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                for v in value):
        return tuple(int(v) for v in value)
    raise TypeError(f"op '{name}': {what} must be an int or a tuple of ints, got {value!r}")


# ================================================================== axes
def moveaxis(x, source, destination):
    """``x`` with the axes ``source`` moved to the positions ``destination`` (the rest keep their order)."""
    t = tensor_arg(x, "moveaxis")
    src, dst = _ints(source, "moveaxis", "source"), _ints(destination, "moveaxis", "destination")
    if len(src) != len(dst):
        raise ValueError(f"op 'moveaxis': source and destination must have the same length, got {src} and {dst}")
    src = [normalize_axis("moveaxis", a, t.ndim)[0] for a in src]
    dst = [normalize_axis("moveaxis", a, t.ndim)[0] for a in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"op 'moveaxis': repeated axes in source {source} or destination {destination}")
    perm = [a for a in range(t.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return F.transpose(t, tuple(perm)) if perm != list(range(t.ndim)) else t


def movedim(x, source, destination):
    """``moveaxis``."""
    return moveaxis(x, source, destination)


def swapdims(input, dim0, dim1):  # noqa: A002 - MindSpore's names
    """``input`` with axes ``dim0`` and ``dim1`` exchanged (``swapaxes``)."""
    return _o.swapaxes(input, dim0, dim1)


# ================================================================== broadcasting and shapes
def expand(input_x, size):
    """``input_x`` broadcast to ``size`` (a 1-D int tensor, or a tuple); -1 keeps a dimension."""
    x = tensor_arg(input_x, "expand")
    shape = list(_ints(size, "expand", "size"))
    lead = len(shape) - x.ndim
    if lead < 0:
        raise ValueError(f"op 'expand': size {shape} has fewer dimensions than the input's shape {list(x.shape)}")
    for i, d in enumerate(shape):
        if d == -1:
            if i < lead:
                raise ValueError(f"op 'expand': -1 is not allowed in a new leading dimension, got {shape}")
            shape[i] = x.shape[i - lead]
    return F.broadcast_to(x, tuple(shape))


def expand_as(input, other):  # noqa: A002
    """``input`` broadcast to ``other``'s shape."""
    return F.broadcast_to(tensor_arg(input, "expand_as"), tuple(tensor_arg(other, "expand_as").shape))


def ravel(input):  # noqa: A002
    """``input`` flattened to 1-D."""
    return F.reshape(tensor_arg(input, "ravel"), (-1,))


def reshape_(input, shape):  # noqa: A002
    """``input`` reshaped (MindSpore 2.10's ``ops.reshape_`` returns a new tensor too)."""
    return F.reshape(tensor_arg(input, "reshape_"), tuple(_ints(shape, "reshape_", "shape")))


# ================================================================== flips and rotations
def flipud(input):  # noqa: A002
    """``input`` reversed along axis 0."""
    return _o.flip(tensor_arg(input, "flipud"), (0,))


def fliplr(input):  # noqa: A002
    """``input`` reversed along axis 1 (rank >= 2)."""
    x = tensor_arg(input, "fliplr")
    if x.ndim < 2:
        raise ValueError(f"op 'fliplr': input must have at least 2 dimensions, got {x.ndim}")
    return _o.flip(x, (1,))


def reverse(x, axis):
    """``x`` reversed along the axes ``axis`` (``flip``)."""
    return _o.flip(x, list(_ints(axis, "reverse", "axis")))


def rot90(input, k, dims):  # noqa: A002
    """``input`` rotated by ``k`` quarter turns in the plane ``dims``, from the first axis towards the second."""
    x = tensor_arg(input, "rot90")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"op 'rot90': k must be an int, got {k!r}")
    d = _ints(dims, "rot90", "dims")
    if len(d) != 2:
        raise ValueError(f"op 'rot90': dims must hold 2 axes, got {dims!r}")
    a, b = (normalize_axis("rot90", v, x.ndim)[0] for v in d)
    if a == b:
        raise ValueError(f"op 'rot90': dims must be two different axes, got {dims!r}")
    k = int(k) % 4
    if k == 0:
        return x
    if k == 2:
        return _o.flip(x, (a, b))
    if k == 1:
        return _o.swapaxes(_o.flip(x, (b,)), a, b)
    return _o.flip(_o.swapaxes(x, a, b), (b,))


def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """For each batch entry ``i`` (along ``batch_dim``), its first ``seq_lengths[i]`` elements along
    ``seq_dim`` reversed; the rest unchanged."""
    t = tensor_arg(x, "reverse_sequence")
    lengths = tensor_arg(seq_lengths, "reverse_sequence").asnumpy().astype(np.int64).reshape(-1)
    sd, bd = (normalize_axis("reverse_sequence", int(a), t.ndim)[0] for a in (seq_dim, batch_dim))
    if sd == bd:
        raise ValueError(f"op 'reverse_sequence': seq_dim and batch_dim must differ, got {seq_dim} and {batch_dim}")
    if lengths.size != t.shape[bd]:
        raise ValueError(f"op 'reverse_sequence': seq_lengths must have {t.shape[bd]} entries (the size of "
                         f"batch_dim), got {lengths.size}")
    if (lengths < 0).any() or (lengths > t.shape[sd]).any():
        raise ValueError(f"op 'reverse_sequence': seq_lengths must lie in [0, {t.shape[sd]}], got {lengths.tolist()}")
    flat = np.arange(t.size, dtype=np.int64).reshape(t.shape)
    pos = np.arange(t.shape[sd]).reshape([-1 if a == sd else 1 for a in range(t.ndim)])
    n = lengths.reshape([-1 if a == bd else 1 for a in range(t.ndim)])
    src = np.where(pos < n, n - 1 - pos, pos)
    index = np.take_along_axis(flat, np.broadcast_to(src, t.shape), sd)
    return _pick_flat(t, index)


def repeat_elements(x, rep, axis=0):
    """Each slice along ``axis`` repeated ``rep`` times in place (``repeat_interleave`` with an int)."""
    if isinstance(rep, bool) or not isinstance(rep, (int, np.integer)) or rep < 1:
        raise ValueError(f"op 'repeat_elements': rep must be an int >= 1, got {rep!r}")
    t = tensor_arg(x, "repeat_elements")
    if t.dtype.name == "bool":
        raise TypeError("op 'repeat_elements': input must be a number tensor, got bool")
    return _o.repeat_interleave(t, int(rep), axis)


# ================================================================== space <-> batch
def _block(block, m, name):
    b = _ints(block, name, "block size")
    if len(b) == 1 and m != 1:
        b = b * m
    if len(b) != m or min(b) < 1:
        raise ValueError(f"op '{name}': block size must be {m} ints >= 1, got {block!r}")
    return b


def _pairs(value, m, name, what):
    arr = np.asarray(value.asnumpy() if isinstance(value, Tensor) else value)
    if arr.shape != (m, 2) or arr.dtype.kind not in "iu" or (arr < 0).any():
        raise ValueError(f"op '{name}': {what} must be {m} pairs of ints >= 0, got {value!r}")
    return arr.tolist()


def space_to_batch_nd(input_x, block_size, paddings):
    """Pad the last M dims (``paddings``: M pairs), cut each into blocks of ``block_size`` and move the
    positions inside a block into the batch axis: (N, C, H, W) -> (N * b0 * b1, C, H' / b0, W' / b1)."""
    name = "space_to_batch_nd"
    x = tensor_arg(input_x, name)
    pads = np.asarray(paddings.asnumpy() if isinstance(paddings, Tensor) else paddings)
    m = pads.shape[0] if pads.ndim == 2 else 0
    b = _block(block_size, m, name)
    pads = _pairs(paddings, m, name, "paddings")
    if x.ndim < m + 1:
        raise ValueError(f"op '{name}': input must have at least {m + 1} dimensions, got {x.ndim}")
    flat = [v for pair in reversed(pads) for v in pair]
    if any(flat):
        x = _o.pad(x, tuple(flat))
    lead, space = x.ndim - m, x.shape[x.ndim - m:]
    if any(s % k for s, k in zip(space, b)):
        raise ValueError(f"op '{name}': padded spatial shape {list(space)} is not divisible by block size {list(b)}")
    shape = list(x.shape[:lead])
    for s, k in zip(space, b):
        shape += [s // k, k]
    y = F.reshape(x, tuple(shape))
    blocks = [lead + 2 * i + 1 for i in range(m)]
    perm = blocks + list(range(lead)) + [lead + 2 * i for i in range(m)]
    y = F.transpose(y, tuple(perm))
    return F.reshape(y, (-1,) + tuple(x.shape[1:lead]) + tuple(s // k for s, k in zip(space, b)))


def batch_to_space_nd(input_x, block_shape, crops):
    """The inverse of ``space_to_batch_nd``: blocks out of the batch axis into the last M dims, then
    ``crops`` (M pairs) cut from their ends."""
    name = "batch_to_space_nd"
    x = tensor_arg(input_x, name)
    cr = np.asarray(crops.asnumpy() if isinstance(crops, Tensor) else crops)
    m = cr.shape[0] if cr.ndim == 2 else 0
    b = _block(block_shape, m, name)
    cr = _pairs(crops, m, name, "crops")
    nb = int(np.prod(b))
    if x.ndim < m + 1 or x.shape[0] % nb:
        raise ValueError(f"op '{name}': the batch size {x.shape[0]} must be divisible by the block count {nb}")
    lead = x.ndim - m
    y = F.reshape(x, tuple(b) + (x.shape[0] // nb,) + tuple(x.shape[1:]))
    perm = [m] + list(range(m + 1, m + lead))
    for i in range(m):
        perm += [m + lead + i, i]
    y = F.transpose(y, tuple(perm))
    space = [s * k for s, k in zip(x.shape[lead:], b)]
    y = F.reshape(y, (x.shape[0] // nb,) + tuple(x.shape[1:lead]) + tuple(space))
    index = [slice(None)] * lead + [slice(c0, s - c1) for (c0, c1), s in zip(cr, space)]
    return F.getitem(y, tuple(index)) if any(v for pair in cr for v in pair) else y


__all__ = ["moveaxis", "movedim", "swapdims", "expand", "expand_as", "ravel", "reshape_", "flipud", "fliplr",
           "reverse", "rot90", "reverse_sequence", "repeat_elements", "space_to_batch_nd", "batch_to_space_nd"]
