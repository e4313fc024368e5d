"""ms.log and GLOG_v: quiet by default; GLOG_v=1 shows kernel builds, casts and graph records (and why)."""

import collections
import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mscustom as ms
from mscustom import log, ops

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import mscustom as ms
    from mscustom import ops
    from mscustom.ops import CustomRegOp, DataType, custom_info_register

    print(repr(ms.log.get_level()), ms.log.get_log_config())
    src = sys.argv[1]
    with open(src, "w") as f:
        f.write("#include <stdint.h>\\n"
                "int Twice(int n, void **p, int *nd, int64_t **sh, const char **dt, void *s, void *e) {\\n"
                "  float *x = (float *)p[0], *y = (float *)p[1];\\n"
                "  for (int64_t i = 0; i < sh[0][0]; i++) y[i] = 2 * x[i];\\n"
                "  return 0;\\n}\\n")
    twice = ops.Custom(src + ":Twice", lambda s: s, lambda d: d, func_type="aot")
    assert twice(ms.Tensor(np.ones(3, np.float32))).asnumpy().tolist() == [2.0, 2.0, 2.0]

    info = CustomRegOp().input(0, "x").output(0, "y").dtype_format(DataType.F32_Default, DataType.F32_Default) \\
        .target("CPU").get_op_info()

    @custom_info_register(info)
    def halve(x):
        return x / 2

    ops.Custom(halve, lambda s: s, lambda d: d, func_type="pyfunc")(ms.Tensor(np.ones(2, np.float64)))

    @ms.jit
    def f(x):
        y = ops.relu(x)
        if y.sum() > 1:
            return y * 2
        return y

    f(ms.Tensor(np.ones(3, np.float32)))
    f(ms.Tensor(np.ones(3, np.float32)))
    f(ms.Tensor(np.zeros(3, np.float32)))
    ms.log.info("user message %d", 7)
    ms.log.debug("hidden at INFO")
""")


def _run(tmp_path, env_extra):
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("GLOG_")}
    env.update(env_extra, MSCUSTOM_CACHE_DIR=str(tmp_path / "cache"), PYTHONWARNINGS="ignore")
    res = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "twice.c")], capture_output=True,
                         text=True, timeout=120, env=env, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    return res.stdout, res.stderr


def test_glog_v1_tells_what_was_built_cast_and_recorded(tmp_path):
    out, err = _run(tmp_path, {"GLOG_v": "1"})
    assert out.splitlines()[0] == "'1' {'GLOG_v': '1', 'GLOG_logtostderr': '1'}"
    lines = err.splitlines()
    assert lines and all(line.startswith("[INFO] MSCUSTOM(") for line in lines), err
    text = "\n".join(lines)
    assert "op 'Twice': aot source" in text and " compiled with " in text
    assert "op 'halve': no reg-info row takes these dtypes" in text
    recorded = [line for line in lines if "ms.jit: recorded 'f'" in line]
    assert len(recorded) == 2, text
    assert "(its first call)" in recorded[0] and "1 guard(s)" in recorded[0]
    assert "the tensor value read into Python at <string>:" in recorded[1]
    assert "differs from the recorded one" in recorded[1]
    assert "[<string>:" in lines[-1] and lines[-1].endswith("user message 7")
    assert "hidden at INFO" not in text


def test_quiet_by_default(recwarn):
    """Without GLOG_v (MindSpore 2.10's defaults), records, re-records and casts log nothing."""
    assert (log.get_level(), log.get_log_config()) == ("2", {"GLOG_v": "2", "GLOG_logtostderr": "1"})
    handler = _Lines()
    log.logger.addHandler(handler)
    try:
        @ms.jit
        def f(x):
            return ops.relu(x) * 2 if float(x.sum()) > 1 else x

        for v in (1, 1, 0):
            f(ms.Tensor(np.full(3, v, np.float32)))
        ops.Custom(_halve, lambda s: s, lambda d: d, func_type="pyfunc")(ms.Tensor(np.ones(2, np.float64)))
        log.info("not shown")
    finally:
        log.logger.removeHandler(handler)
    assert f.stats["recorded"] == 2 and handler.lines == []


def _halve(x):
    return x / 2


_halve = ops.custom_info_register(ops.CustomRegOp().input(0, "x").output(0, "y")
                                  .dtype_format(ops.DataType.F32_Default, ops.DataType.F32_Default)
                                  .target("CPU").get_op_info())(_halve)


class _Lines(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append((record.levelname, record.getMessage()))


@pytest.fixture
def captured():
    """The mscustom logger at DEBUG (as GLOG_v=0 sets it), its messages collected."""
    handler, level = _Lines(), log.logger.level
    log.logger.addHandler(handler)
    log.logger.setLevel(logging.DEBUG)
    try:
        yield handler.lines
    finally:
        log.logger.removeHandler(handler)
        log.logger.setLevel(level)


def test_debug_adds_guards_and_first_replay(captured):
    assert log.get_level() == "0"

    @ms.jit
    def g(x):
        return x * 2 if float(x.sum()) > 0 else x

    for _ in range(3):
        g(ms.Tensor(np.ones(2, np.float32)))
    debug = [m for lvl, m in captured if lvl == "DEBUG"]
    assert sum("is guarded by the value read into Python at" in m and "(recorded: 2.0)" in m for m in debug) == 1
    assert sum(m.startswith("ms.jit: replaying") for m in debug) == 1          # the first replay only


def test_jit_build_lines(captured):
    from mscustom.ops.custom._buildlog import logs_jit_build

    class Dispatcher:
        def __init__(self):
            self._cache_hits, self._cache_misses = collections.Counter(), collections.Counter()

    class Fn:
        op_name, kname, dispatcher = "op_a", "k", None

        @logs_jit_build
        def compile(self, types, checked=False):
            if self.dispatcher is None:
                self.dispatcher = Dispatcher()
                self.dispatcher._cache_misses["sig"] += 1       # a compile
            else:
                self.dispatcher._cache_hits["sig"] += 1         # Numba's disk cache
            return "entry"

    fn = Fn()
    assert fn.compile(("float32[::1]",)) == fn.compile(("float32[::1]",)) == "entry"
    info = [m for lvl, m in captured if lvl == "INFO"]
    assert info[0].startswith("op 'op_a': jit kernel 'k' compiled for (float32[::1]) in ")
    assert info[1].startswith("op 'op_a': jit kernel 'k' loaded from the disk cache for (float32[::1]) in ")


def test_log_functions_and_bad_settings(monkeypatch, tmp_path):
    assert log.get_level() == "2" and ms.log is log
    assert all(callable(getattr(log, n)) for n in ("debug", "info", "warning", "error", "critical"))
    monkeypatch.setenv("GLOG_v", "7")
    with pytest.raises(ValueError, match=r"GLOG_v must be 0 \(DEBUG\), 1 \(INFO\).*got '7'"):
        log._setup()
    monkeypatch.setenv("GLOG_v", "3")
    monkeypatch.setenv("GLOG_logtostderr", "0")
    monkeypatch.setenv("GLOG_log_dir", str(tmp_path))
    try:
        log._setup()
        assert log.get_log_config() == {"GLOG_v": "3", "GLOG_logtostderr": "0",
                                         "GLOG_log_dir": str(tmp_path / "rank_0" / "logs")}
        log.warning("not written at ERROR")
        log.error("written %s", "here")
        for h in log.logger.handlers:
            h.flush()
        (path,) = (tmp_path / "rank_0" / "logs").iterdir()
        text = path.read_text()
        assert "written here" in text and "not written" not in text and text.startswith("[ERROR] MSCUSTOM(")
    finally:
        monkeypatch.undo()
        log._setup()
    assert log.get_log_config() == {"GLOG_v": "2", "GLOG_logtostderr": "1"}
    assert sum(getattr(h, "_mscustom", False) for h in log.logger.handlers) == 1
    ops.relu(ms.Tensor([1.0]))                      # the package still works with the log reset
