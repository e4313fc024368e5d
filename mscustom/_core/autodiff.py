"""The tape's public face for front ends: record, take leaves, pause, run backward.

The pieces live in ``tape`` (per-thread recording state, nodes, leaves) and
``backward`` (walking a graph); front ends (``mscustom.autograd``, the MXNet
and minpy styles, ``mscustom.testing``) import them from here.
"""

from .backward import backward
from .tape import (Node, is_recording, make_leaf, node_of, paused, record, recording, slot_of,
                   thread_leaf)

__all__ = ["Node", "backward", "is_recording", "make_leaf", "node_of", "paused", "record", "recording",
           "slot_of", "thread_leaf"]
