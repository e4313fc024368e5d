"""Every Python block of docs/mxnet_minpy.md runs as it stands, each in a fresh namespace."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "mxnet_minpy.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_the_doc_has_its_blocks():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_block_runs_alone(index, capsys):
    exec(compile(BLOCKS[index], f"{DOC.name}[block {index}]", "exec"), {})
    capsys.readouterr()
