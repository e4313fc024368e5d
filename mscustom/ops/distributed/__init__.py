"""MindSpore 2.10's functional communication API (``ops.init_process_group``, ``ops.all_reduce``,
``ops.send`` ...) over ``mscustom.communication`` (MPI): process group, collectives on tensors (in
place), point-to-point transfers, collectives on Python objects. See docs/distributed.md.

Each name's module is imported on its first use, so ``import mscustom`` does not load the
communication layer.
"""

from ..._lazy import lazy_attrs

_MODULES = {
    "._process_group": ("init_process_group", "destroy_process_group", "is_available", "is_initialized", "get_rank",
                        "get_world_size", "get_backend", "get_global_rank", "get_group_rank",
                        "get_process_group_ranks", "new_group"),
    "._collectives": ("all_reduce", "all_gather_into_tensor", "all_gather_into_tensor_uneven", "all_gather",
                      "reduce_scatter_tensor", "reduce_scatter_tensor_uneven", "reduce_scatter", "reduce", "broadcast",
                      "barrier", "scatter_tensor", "gather_into_tensor", "all_to_all", "all_to_all_single",
                      "all_to_all_v_c"),
    "._p2p": ("send", "recv", "isend", "irecv", "batch_isend_irecv", "P2POp"),
    "._objects": ("all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list",
                  "send_object_list", "recv_object_list"),
    "._mode": ("set_comm_ops_inplace",),
}
__all__ = [name for names in _MODULES.values() for name in names]
__getattr__, __dir__ = lazy_attrs(__name__, globals(),
                                  {name: module + ":" + name for module, names in _MODULES.items() for name in names})
