"""MNIST from files already on disk: the IDX reader behind ``mx.io.MNISTIter`` and the finder behind
``test_utils.get_mnist_iterator``.

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

__all__ = ["find_mnist", "read_idx"]

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
