"""Run by tests/test_dist_faults.py: rank 1 fails in the way argv[1] says, after one collective."""

import os
import signal
import sys
import time

import mscustom as ms
from mscustom import ops
from mscustom.communication import comm_func, get_rank, init

what = sys.argv[1]
if what == "before-init":
    ops.AllReduce()(ms.Tensor([1.0]))
init()
rank = get_rank()
print(f"threads {os.environ.get('OPENBLAS_NUM_THREADS')}", flush=True)
ops.AllReduce()(ms.Tensor([1.0]))
if rank == 1:
    if what == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif what == "raise":
        raise ValueError("boom on rank one")
    elif what == "exit3":
        sys.exit(3)
    elif what == "hang":
        time.sleep(120)
ops.AllReduce()(ms.Tensor([1.0]))
print("done", flush=True)
if what == "status":            # both ranks have printed before either exits with 5
    comm_func.barrier()
    sys.exit(5)
