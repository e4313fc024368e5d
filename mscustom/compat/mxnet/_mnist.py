"""MNIST from files already on disk: ``mx.io.MNISTIter`` and the finder behind ``test_utils.get_mnist_iterator``.

Nothing is downloaded here. The files are looked for where MXNet keeps them:
``./data/`` (what ``mx.test_utils.get_mnist_ubyte`` extracts: ``train-images-idx3-ubyte``
and friends) and ``$MXNET_HOME/datasets/mnist/`` (``~/.mxnet/datasets/mnist/``,
where ``gluon.data.vision.MNIST`` stores the ``.gz`` files); plain or gzipped.
When they are not there the error says where to put them.

``MNISTIter`` reads the IDX files as MXNet's does: pixels divided by 256,
labels as float32 named ``softmax_label``, ``flat`` giving ``(batch, 784)``
instead of ``(batch, 1, 28, 28)``, an incomplete last batch dropped,
``num_parts`` / ``part_index`` taking a contiguous share. ``shuffle`` permutes
once with ``np.random.RandomState(seed)``: a different order from MXNet's own
generator for the same seed.
"""

import gzip
import os
import struct

import numpy as np

from . import base as _base
from .io import NDArrayIter

__all__ = ["MNISTIter", "find_mnist", "read_idx"]

FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
         "val": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}


def _folders():
    home = os.environ.get("MXNET_HOME", os.path.join(os.path.expanduser("~"), ".mxnet"))
    return ["data", os.path.join(home, "datasets", "mnist")]


def find_mnist():
    """``{"train": (images, labels), "val": (images, labels)}`` paths, or FileNotFoundError saying what to fetch."""
    found = {}
    for part, names in FILES.items():
        paths = []
        for name in names:
            hit = next((os.path.join(d, name + ext) for d in _folders() for ext in ("", ".gz")
                        if os.path.isfile(os.path.join(d, name + ext))), None)
            if hit is None:
                raise FileNotFoundError(
                    f"get_mnist_iterator: MNIST file '{name}' was not found in {_folders()} (plain or .gz). Nothing "
                    "is downloaded here: download MNIST first (e.g. http://data.mxnet.io/mxnet/data/mnist.zip, "
                    "extracted into ./data) and run again")
            paths.append(hit)
        found[part] = tuple(paths)
    return found


def read_idx(path):
    """The array in an IDX file (MNIST's format; gzipped when the name ends in .gz)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        blob = f.read()
    if len(blob) < 4:
        raise _base.MXNetError(f"MNISTIter: {path} is not an IDX file (too short)")
    zero, kind, ndim = struct.unpack(">HBB", blob[:4])
    if zero != 0 or kind != 0x08:
        raise _base.MXNetError(f"MNISTIter: {path} is not an unsigned-byte IDX file (magic {blob[:4].hex()})")
    dims = struct.unpack(f">{ndim}I", blob[4:4 + 4 * ndim])
    data = np.frombuffer(blob, np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(dims)):
        raise _base.MXNetError(f"MNISTIter: {path} holds {data.size} bytes of data for dimensions {list(dims)}")
    return data.reshape(dims)


class MNISTIter(NDArrayIter):
    """Batches of MNIST IDX files: ``data`` (pixels / 256) and ``softmax_label`` (float32)."""

    def __init__(self, image="./train-images-idx3-ubyte", label="./train-labels-idx1-ubyte", batch_size=128,
                 shuffle=True, flat=False, seed=0, silent=False, num_parts=1, part_index=0, input_shape=None,
                 **kwargs):
        images = read_idx(image)
        labels = read_idx(label)
        if images.ndim != 3 or labels.ndim != 1 or len(images) != len(labels):
            raise _base.MXNetError(f"MNISTIter: {image} holds images of shape {images.shape} and {label} labels of "
                                   f"shape {labels.shape}; expected (n, rows, cols) and (n,)")
        if not 0 <= part_index < num_parts:
            raise ValueError(f"MNISTIter: part_index must be in [0, {num_parts}), got {part_index}")
        n = len(images)
        lo, hi = n * part_index // num_parts, n * (part_index + 1) // num_parts
        images, labels = images[lo:hi], labels[lo:hi]
        x = images.astype(np.float32) / 256.0
        x = x.reshape(len(x), -1) if flat else x.reshape(len(x), 1, *images.shape[1:])
        y = labels.astype(np.float32)
        if shuffle:
            order = np.random.RandomState(seed).permutation(len(x))
            x, y = x[order], y[order]
        super().__init__(x, y, batch_size=batch_size, shuffle=False, last_batch_handle="discard",
                         data_name="data", label_name="softmax_label")
