"""``minpy.nn``: ``model`` (ModelBase), ``solver`` (Solver), ``io`` (NDArrayIter), ``layers``, ``optim``, ``init``."""

from . import init, io, layers, model, optim, solver

__all__ = ["init", "io", "layers", "model", "optim", "solver"]
