"""Every Python block of docs/training.md runs on its own in a fresh interpreter."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "training.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_guide_has_its_blocks():
    assert len(BLOCKS) == 8


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_block_runs_alone(index, tmp_path):
    proc = subprocess.run([sys.executable, "-c", BLOCKS[index]], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
