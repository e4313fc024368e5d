"""``mindspore.device_context``: per-device settings. Only ``cpu`` has any here (see ``cpu``)."""

from . import cpu

__all__ = ["cpu"]
