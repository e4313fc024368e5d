"""Kernel entries and their selection by target, dtype and format.

A KernelEntry is one implementation of an op: the target it runs on, the
dtype/format rows it accepts (``None``: any input), and the callable. Entries
that need per-signature work (compiling a Numba kernel for a dtype, calling an
AOT ``FuncInit``) give a ``bind`` hook: ``bind(op, signature) -> runner``,
called once per input signature and cached by the dispatcher.
"""

from dataclasses import dataclass, field

import numpy as np

from .. import dtype as _dt
from ..formats import DEFAULT_FORMATS, LAYOUTS


@dataclass
class KernelEntry:
    """One kernel of an op.

    ``rows``: ``None`` (accepts any inputs) or a list of rows, each a tuple of
    ``(dtype_name_or_None, format)`` pairs, inputs first then outputs.
    ``allocates``: the kernel returns its outputs (``fn(attrs, inputs)``)
    instead of writing into preallocated ones (``fn(attrs, inputs, req, outputs)``).
    ``kind``: "builtin" for the NumPy kernels of built-in ops; any other kind
    (pyfunc, jit, aot, ...) is timed by the dispatcher into ``stats`` for the
    usage report, and what it raises is reported naming the op and ``label``.
    """

    target: str
    fn: object
    allocates: bool = False
    rows: list = None
    name: str = ""
    key: str = None
    bind: object = None
    kind: str = "builtin"
    label: str = ""          # how errors name this kernel, e.g. "pyfunc 'square'" (default: kind + name)
    stats: dict = field(default_factory=lambda: {"calls": 0, "seconds": 0.0})

    def describe_rows(self, n_in):
        if self.rows is None:
            return ["any dtype"]
        out = []
        for row in self.rows:
            ins = ", ".join(f"{d or 'any'}/{f}" for d, f in row[:n_in])
            outs = ", ".join(f"{d or 'any'}/{f}" for d, f in row[n_in:])
            out.append(f"({ins}) -> ({outs})")
        return out


@dataclass
class Signature:
    """What a kernel's ``bind`` hook learns about the call it is bound for."""

    in_shapes: list
    in_dtypes: list          # NumPy dtypes
    in_formats: list
    out_shapes: list         # None where derived from the kernel's result
    out_dtypes: list
    attrs: dict
    row: tuple = None


def _layout_perm(src, dst):
    """Axis permutation turning an array in layout ``src`` into layout ``dst``."""
    s, d = LAYOUTS[src], LAYOUTS[dst]
    # logical axis k (N,C,H,W order) sits at position s.index(k) in src
    return tuple(s.index(d[i]) for i in range(4))


def match_row(row, in_dtypes, in_formats, in_ndims):
    """Return ``(score, conversions)`` if ``row`` accepts the inputs, else None.

    ``conversions`` lists ``(input_index, from_format, to_format)`` for 4-D
    inputs whose layout must be changed to fit the row. The score prefers rows
    that need no conversion.
    """
    conversions = []
    for i, (dt, fmt) in enumerate(zip(in_dtypes, in_formats)):
        rdt, rfmt = row[i]
        if rdt is not None and rdt != dt.name and rdt != _abi_name(dt):
            return None
        if rfmt in DEFAULT_FORMATS or fmt in DEFAULT_FORMATS or rfmt == fmt:
            continue
        if rfmt in LAYOUTS and fmt in LAYOUTS and in_ndims[i] == 4:
            conversions.append((i, fmt, rfmt))
            continue
        return None
    return (len(conversions), conversions)


def _abi_name(np_dtype):
    return _dt.from_numpy(np_dtype).name


def select_kernel(op, target, in_dtypes, in_formats, in_ndims):
    """Pick the kernel for the current target whose row matches the inputs.

    Returns ``(entry, row, conversions)``. Raises a TypeError that lists every
    row the op has when nothing matches.
    """
    best = None
    on_target = [k for k in op.kernels if k.target == target]
    for entry in on_target:
        if entry.rows is None:
            return entry, None, []
        for row in entry.rows:
            if len(row) < len(in_dtypes):
                continue
            m = match_row(row, in_dtypes, in_formats, in_ndims)
            if m is not None and (best is None or m[0] < best[0]):
                best = (m[0], entry, row, m[1])
                if m[0] == 0:
                    return entry, row, m[1]
    if best is not None:
        return best[1], best[2], best[3]
    given = ", ".join(f"{_abi_name(d)}/{f}" for d, f in zip(in_dtypes, in_formats))
    if not op.kernels:
        raise RuntimeError(f"op '{op.name}' has no kernel at all; register one with "
                           f"set_attr('FCompute<cpu>', fn) or give ops.Custom a func")
    if not on_target:
        have = sorted({k.target for k in op.kernels})
        raise RuntimeError(f"op '{op.name}' has no kernel for device target '{target}' "
                           f"(it has kernels for {have}); register one for '{target}' "
                           f"or call ms.set_device('{have[0]}')")
    rows = []
    for k in on_target:
        rows.extend(k.describe_rows(len(in_dtypes)))
    listing = "\n  ".join(rows)
    raise TypeError(f"op '{op.name}' has no kernel on '{target}' for inputs ({given}); "
                    f"supported rows (inputs) -> (outputs):\n  {listing}")


def convert_layout(array, src, dst):
    """Copy a 4-D array from layout ``src`` to ``dst`` (NCHW <-> NHWC)."""
    return np.ascontiguousarray(array.transpose(_layout_perm(src, dst)))


def permute_shape(shape, src, dst):
    perm = _layout_perm(src, dst)
    return tuple(shape[p] for p in perm)
