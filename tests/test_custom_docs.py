"""Every Python block of docs/mindspore_custom.md runs alone, in a fresh interpreter."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "mindspore_custom.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_block_runs_alone(i):
    proc = subprocess.run([sys.executable, "-c", BLOCKS[i]], capture_output=True, text=True, timeout=120,
                          cwd=DOC.parent.parent)
    assert proc.returncode == 0, f"block {i} of {DOC.name} failed:\n{BLOCKS[i]}\n{proc.stderr}"
