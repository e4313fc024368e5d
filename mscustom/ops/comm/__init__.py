"""Collective communication ops over MPI (``ops.AllReduce``, ``AllGather`` ...) and their Numba loop.

Imported on first use of one of those names (``mscustom.ops`` lists them as
lazy attributes): it imports ``mscustom.communication``, which most programs
never need. ``collective`` holds the primitive classes, ``loops`` the
shared-memory all-reduce's one-pass loop.
"""
