"""``python -m mscustom.warmup`` compiles the built-in loops into Numba's cache and leaves no setting
changed (``make test`` runs it beside the suite)."""

import subprocess
import sys
from pathlib import Path

from mscustom import _threads
from mscustom.ops.nn import attention_loops, batch_norm, conv, conv_direct, norm_loops

REPO = Path(__file__).resolve().parents[1]


def test_warmup_runs_and_restores_thresholds_and_budget():
    from mscustom import warmup
    before = (conv._MIN_SPLIT_BYTES, conv_direct.MIN_SPLIT_BYTES, batch_norm._MIN_SPLIT_BYTES,
              norm_loops._MIN_SPLIT_BYTES, attention_loops._MIN_SPLIT_BYTES, _threads.get_num_threads())
    assert warmup.main(["--quiet"]) == 0
    after = (conv._MIN_SPLIT_BYTES, conv_direct.MIN_SPLIT_BYTES, batch_norm._MIN_SPLIT_BYTES,
             norm_loops._MIN_SPLIT_BYTES, attention_loops._MIN_SPLIT_BYTES, _threads.get_num_threads())
    assert after == before
    assert "forward_chunks" in conv_direct._LOOPS and "softmax_chunks" in attention_loops._LOOPS


def test_warmup_as_a_module_says_what_it_did():
    out = subprocess.run([sys.executable, "-m", "mscustom.warmup"], cwd=REPO, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "the built-in loops are in Numba's cache" in out.stdout
