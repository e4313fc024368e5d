"""``mindspore.runtime`` on the host: device synchronisation, the memory statistics, the launch
settings, ``set_deterministic``, ``get_current_device`` and ``run_check``.

mscustom computes with NumPy on the CPU, eagerly: every op has finished when it returns, and
memory is NumPy's, with no device pool. So ``synchronize``/``empty_cache`` have nothing to wait for
or free, and the pool statistics are zeros -- the values MindSpore gives on its CPU target.

Example::

    ms.synchronize()
    ms.memory_stats()["total_allocated_memory"]     # 0: no device memory pool
"""

import collections

from . import context as _context

__all__ = ["synchronize", "empty_cache", "memory_stats", "memory_summary", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved", "reset_peak_memory_stats",
           "reset_max_memory_allocated", "reset_max_memory_reserved", "launch_blocking", "dispatch_threads_num",
           "set_deterministic", "get_current_device", "DeviceInfo", "run_check"]

_conf = {"deterministic": None, "dispatch_threads_num": None, "launch_blocking": False}


def synchronize():
    """Wait for the device's queued work: none here (ops run eagerly)."""


def empty_cache():
    """Release the device memory pool's cached blocks: there is no pool here."""


def memory_stats():
    """The device memory pool's statistics (bytes): all zero, there is no pool."""
    return {"total_reserved_memory": 0, "total_allocated_memory": 0, "total_idle_memory": 0,
            "total_eager_free_memory": 0, "max_reserved_memory": 0, "max_allocated_memory": 0,
            "common_mem_pool_stats": {"block_unit_size": 0, "block_counts": 0, "blocks_info": {}},
            "persistent_mem_pool_stats": {"block_counts": 0, "block_unit_size": 0, "blocks_info": {}}}


def memory_summary():
    """``memory_stats`` as MindSpore's table."""
    rule, thick = "|" + "-" * 45 + "|", "|" + "=" * 45 + "|"
    rows = [thick, "|" + " " * 15 + "Memory summary" + " " * 16 + "|", thick, "| Metric               | Data                 |"]
    names = [("Reserved memory", "total_reserved_memory"), ("Allocated memory", "total_allocated_memory"),
             ("Idle memory", "total_idle_memory"), ("Eager free memory", "total_eager_free_memory"),
             ("Max reserved memory", "max_reserved_memory"), ("Max allocated memory", "max_allocated_memory")]
    stats = memory_stats()
    for label, key in names:
        rows.append(rule)
        rows.append(f"| {label:<20} | {stats[key]:>6} B{'':<12} |")
    rows.append(thick)
    return "\n".join(rows) + "\n"


def memory_allocated():
    """Bytes the device pool holds for tensors: 0."""
    return 0


def max_memory_allocated():
    """Peak of ``memory_allocated``: 0."""
    return 0


def memory_reserved():
    """Bytes the device pool reserved: 0."""
    return 0


def max_memory_reserved():
    """Peak of ``memory_reserved``: 0."""
    return 0


def reset_peak_memory_stats():
    """Reset the peaks (nothing to reset)."""


def reset_max_memory_allocated():
    """Reset ``max_memory_allocated`` (nothing to reset)."""


def reset_max_memory_reserved():
    """Reset ``max_memory_reserved`` (nothing to reset)."""


def launch_blocking():
    """Run ops synchronously: they always are here."""
    _conf["launch_blocking"] = True


def dispatch_threads_num(threads_num):
    """The runtime's dispatch thread count (a positive int, set once); ops here run on the calling thread."""
    if _conf["dispatch_threads_num"] is not None:
        raise RuntimeError("The 'dispatch_threads_num' can not be set repeatedly.")
    if isinstance(threads_num, bool) or not isinstance(threads_num, int):
        raise TypeError(f"The parameter 'threads_num' must be <class 'int'>, but got {type(threads_num)}")
    if threads_num <= 0:
        raise ValueError(f"The 'threads_num' must be int and must > 0, but got '{threads_num}' with type 'int'.")
    _conf["dispatch_threads_num"] = threads_num


def set_deterministic(deterministic):
    """Ask for deterministic computation (a bool, set once): the context's ``deterministic`` becomes
    "ON" or "OFF". mscustom's ops are deterministic either way."""
    if not isinstance(deterministic, bool):
        raise TypeError(f"The parameter 'deterministic' must be <class 'bool'>, but got {type(deterministic)}")
    if _conf["deterministic"] is not None:
        raise RuntimeError("The 'mindspore.set_deterministic' can not be set repeatedly.")
    _conf["deterministic"] = deterministic
    _context.set_context(deterministic="ON" if deterministic else "OFF")


class DeviceInfo(collections.namedtuple("DeviceInfo", ["device_target", "device_id"])):
    """``(device_target, device_id)`` of the current device."""

    __slots__ = ()


def get_current_device():
    """The device ops run on: ``DeviceInfo(device_target, device_id)`` from the context."""
    return DeviceInfo(_context.get_context("device_target"), _context.get_context("device_id"))


def run_check():
    """Check the installation: multiply two tensors and report."""
    import numpy as np
    from . import __version__, ops
    from .tensor import Tensor
    print(f"mscustom version:  {__version__}")
    a = Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    out = ops.mul(a, a).asnumpy()
    if np.array_equal(out, np.array([1.0, 4.0, 9.0, 16.0], np.float32)):
        print(f"The result of multiplication calculation is correct, mscustom has been installed on platform "
              f"[{_context.get_context('device_target')}] successfully!")
    else:
        print(f"The result of multiplication calculation is wrong: {out}")
