"""``mindspore.parallel``: here only ``parallel.distributed.DistributedDataParallel`` (data parallel over MPI)."""

from . import distributed
from .distributed import DistributedDataParallel

__all__ = ["distributed", "DistributedDataParallel"]
