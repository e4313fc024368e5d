"""Data pipelines with ``mindspore.dataset``'s names: ``import mscustom.dataset as ds``.

Sources (``GeneratorDataset``, ``NumpySlicesDataset``) feed operations
(``batch``, ``shuffle``, ``map``, ``repeat``, ``take``, ``skip``); iterators
run the pipeline in a background thread with a bounded prefetch queue.

Example::

    import numpy as np
    import mscustom.dataset as ds
    data = ds.NumpySlicesDataset((np.random.rand(10, 2), np.arange(10)), column_names=["x", "y"])
    for x, y in data.batch(4).create_tuple_iterator(num_epochs=1):
        print(x.shape, y.shape)
"""

from . import config, transforms, vision
from . import ops as _ops  # noqa: F401  (registers the pipeline stages: batch, shuffle, map ...)
from .engine import Dataset
from .sources import GeneratorDataset, NumpySlicesDataset

__all__ = ["config", "transforms", "vision", "Dataset", "GeneratorDataset", "NumpySlicesDataset"]
