"""Every Python block in docs/*.md and README.md runs as it stands, alone, in a fresh interpreter."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]


def _blocks():
    for page in PAGES:
        for i, block in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)):
            yield pytest.param(block, id=f"{page.name}[{i}]")


@pytest.mark.parametrize("block", list(_blocks()))
def test_block_runs_alone(block, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    script = tmp_path / "block.py"          # a file, so kernels that read their own source can
    script.write_text(block)
    res = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=240)
    assert res.returncode == 0, res.stderr[-3000:]
