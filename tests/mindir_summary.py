"""A short, comparable description of a parsed MindIR model (the structure that was checked in MindSpore).

``summary(model)`` takes a parsed ``ModelProto`` -- mscustom's own
(``mscustom.train._mindir_proto``) or MindSpore's schema module, whose field
names are the same -- and returns plain Python data: the graph's inputs
(dims, element type), its parameters (name, dims, element type), how many
nodes of each operator it holds, and its output. ``bench/check_mindir.py``
prints it for the files MindSpore ran; ``test_export_mindir.py`` compares
the files mscustom writes today with those literals. Imports nothing.
"""

__all__ = ["summary"]


def summary(model):
    graph = model.graph
    kinds = {p.name: p.op_type for p in model.primitives}
    ops = {}
    for node in graph.node:
        op = node.op_type
        if op.startswith("REF::"):
            op = kinds[op[len("REF::"):]]
        ops[op] = ops.get(op, 0) + 1
    out = graph.output[0]
    return {
        "inputs": [(list(t.dims), t.data_type) for vi in graph.input for t in vi.tensor],
        "params": [(p.ref_key, list(p.dims), p.data_type) for p in graph.parameter],
        "ops": dict(sorted(ops.items())),
        "output": [(list(t.dims), t.data_type) for t in out.tensor] or "tuple",
    }
