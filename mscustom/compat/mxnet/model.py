"""``mx.model``: ``save_checkpoint`` / ``load_checkpoint`` and ``BatchEndParam``.

A checkpoint is ``prefix-symbol.json`` (the graph) and ``prefix-%04d.params``
(MXNet's binary NDArray file with ``arg:<name>`` and ``aux:<name>`` keys).

Example::

    mx.model.save_checkpoint("mlp", 3, net, arg_params, aux_params)
    sym, arg_params, aux_params = mx.model.load_checkpoint("mlp", 3)
"""

import logging
from collections import namedtuple

from . import _params
from . import symbol as _sym

__all__ = ["save_checkpoint", "load_checkpoint", "load_params", "BatchEndParam"]

BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    if symbol is not None:
        symbol.save(f"{prefix}-symbol.json")
    blob = {f"arg:{k}": v for k, v in arg_params.items()}
    blob.update({f"aux:{k}": v for k, v in (aux_params or {}).items()})
    fname = f"{prefix}-{epoch:04d}.params"
    _params.save(fname, blob)
    logging.info('Saved checkpoint to "%s"', fname)


def load_params(prefix, epoch):
    saved = _params.load(f"{prefix}-{epoch:04d}.params")
    arg, aux = {}, {}
    for k, v in (saved.items() if isinstance(saved, dict) else []):
        kind, _, name = k.partition(":")
        if kind == "arg":
            arg[name] = v
        elif kind == "aux":
            aux[name] = v
    return arg, aux


def load_checkpoint(prefix, epoch):
    """``(symbol, arg_params, aux_params)`` saved by ``save_checkpoint``."""
    symbol = _sym.load(f"{prefix}-symbol.json")
    arg, aux = load_params(prefix, epoch)
    return symbol, arg, aux
