"""Ranks call AllReduce with different shapes: both must fail naming the op and the signatures."""

import numpy as np

import mscustom as ms
from mscustom import ops
from mscustom.communication import get_rank, init

init()
rank = get_rank()
x = ms.Tensor(np.ones(2 + rank, np.float32))
try:
    ops.AllReduce()(x)
except ValueError as e:
    print(f"rank {rank} caught: {e}", flush=True)
ops.AllReduce()(ms.Tensor(np.ones(4, np.float32)))      # the ranks still agree afterwards
print(f"rank {rank} recovered", flush=True)
