"""In-place or functional: ``ops.set_comm_ops_inplace`` switches MindSpore's communication functions
between writing into their tensor arguments (the default) and returning new tensors."""

__all__ = ["set_comm_ops_inplace"]

# MindSpore 2.10's switchable names ("gather" and "scatter" are mindspore.ops.communication's only)
_INPLACE = {name: True for name in (
    "all_reduce", "all_gather_into_tensor", "all_gather_into_tensor_uneven", "all_to_all", "all_to_all_single",
    "reduce_scatter_tensor", "reduce_scatter_tensor_uneven", "isend", "irecv", "send", "recv", "gather", "scatter",
    "all_gather", "reduce_scatter", "barrier", "broadcast", "reduce", "batch_isend_irecv", "all_gather_object",
    "broadcast_object_list", "gather_object", "scatter_object_list", "send_object_list", "recv_object_list",
    "gather_into_tensor", "scatter_tensor", "all_to_all_v_c")}


def set_comm_ops_inplace(is_enable, func_list=None):
    """Make the functions ``func_list`` (None: all) in-place (True) or functional (False).

    Functional forms: ``all_reduce``, ``all_gather_into_tensor``, ``reduce_scatter_tensor`` return
    ``(Tensor, handle)`` and are differentiable; ``recv`` returns the Tensor, ``irecv`` ``(Tensor, handle)``,
    ``all_to_all`` ``(tuple of Tensors, handle)``, ``all_to_all_single`` ``(Tensor, handle)``. The other
    functions have no functional form (they raise a ValueError while switched off), as in MindSpore.
    """
    if not isinstance(is_enable, bool):
        raise TypeError(f"For 'set_comm_ops_inplace', is_enable must be a bool, got {type(is_enable).__name__}")
    if func_list is None:
        names = list(_INPLACE)
    elif isinstance(func_list, (list, tuple)):
        names = list(func_list)
    else:
        raise TypeError(f"For 'set_comm_ops_inplace', func_list must be a list, a tuple or None, got "
                        f"{type(func_list).__name__}")
    unknown = [n for n in names if n not in _INPLACE]
    if unknown:
        raise ValueError(f"For 'set_comm_ops_inplace', unknown function name(s) {unknown}; known: {sorted(_INPLACE)}")
    for name in names:
        _INPLACE[name] = is_enable


def inplace(name):
    """Whether ``name`` works in place now."""
    return _INPLACE.get(name, False)


def require_inplace(name):
    """A ValueError when ``name`` (which has no functional form) is switched off."""
    if not _INPLACE.get(name, True):
        raise ValueError(f"For '{name}', the non-inplace mode is not supported; switch it back with "
                         f"ops.set_comm_ops_inplace(True, [{name!r}])")
