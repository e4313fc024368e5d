"""``mindspore.device_context.cpu.op_tuning``: the number of threads CPU kernels use."""

from ... import _threads

__all__ = ["threads_num"]

_set = [False]


def threads_num(num):
    """Set the number of threads of CPU kernels (BLAS, OpenMP and Numba share it), once per process.

    As MindSpore 2.10: ``num`` must be a positive int (TypeError for another
    type, ValueError for 0 or less) and a second call raises RuntimeError.

    Example::

        ms.device_context.cpu.op_tuning.threads_num(2)
    """
    if _set[0]:
        raise RuntimeError("The 'threads_num' can not be set repeatedly.")
    if isinstance(num, bool) or not isinstance(num, int):
        raise TypeError(f"The parameter 'num' must be {int}, but got {type(num)}")
    if num <= 0:
        raise ValueError(f"The 'num' must be int and must > 0, but got '{num}' with type 'int'.")
    _threads.set_num_threads(num, "threads_num")
    _set[0] = True
