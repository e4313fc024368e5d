"""Each Python block of docs/hybrid.md runs alone, as it stands, from a file (the DSL reads its source)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BLOCKS = re.findall(r"```python\n(.*?)```", (REPO / "docs" / "hybrid.md").read_text(), flags=re.S)


def test_doc_has_blocks():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_hybrid_doc_block_runs(i, tmp_path):
    script = tmp_path / f"hybrid_block_{i}.py"
    script.write_text(BLOCKS[i])
    proc = subprocess.run([sys.executable, str(script)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
