"""``python -m mscustom.run -n 2 train.py ARGS``: start a script on N ranks with the venv's mpiexec.

In the spirit of MindSpore's ``msrun``, on MPI: it runs ``mpiexec -n N python
mscustom/_launch_rank.py train.py ARGS`` (which joins the process group, then runs
the script as ``__main__``) with the ``mpiexec`` next to this Python (the ``dist`` extra's
MPICH), one BLAS/OpenMP/Numba thread per rank unless ``--threads`` or the
environment says otherwise, each output line prefixed by its rank (``[0] ...``),
and returns mpiexec's exit status. Faults never hang: an exception on one rank
stops every rank with that rank's traceback (``mscustom.communication``); a rank
that dies (a signal, ``os._exit``) makes mpiexec stop the others, and the
launcher names it (rank, process id, host, signal or exit code); a collective
waits at most ``--timeout`` seconds (``MSCUSTOM_COMM_TIMEOUT``) for a hung rank.

Several machines: the same mpiexec with ``--hosts a,b`` or ``--hostfile FILE``
(passed to mpiexec as ``-hosts`` / ``-f``), the venv at the same path on each.

Example::

    python -m mscustom.run -n 2 examples/data_parallel.py --epochs 1
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def find_mpiexec():
    """The mpiexec next to this Python (the venv's), else the one on PATH; None when there is none."""
    local = Path(sys.executable).with_name("mpiexec")
    if local.exists():
        return str(local)
    return shutil.which("mpiexec")


def _flavour(mpiexec):
    try:
        text = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if "HYDRA" in text:
        return "hydra"
    if "Open MPI" in text or "OpenRTE" in text:
        return "openmpi"
    return "unknown"


def build_command(args, mpiexec, flavour):
    """The mpiexec command line for parsed ``args``."""
    cmd = [mpiexec]
    if flavour == "hydra":
        if args.hosts:
            cmd += ["-hosts", args.hosts]
        if args.hostfile:
            cmd += ["-f", args.hostfile]
    elif flavour == "openmpi":
        if args.hosts:
            cmd += ["--host", args.hosts]
        if args.hostfile:
            cmd += ["--hostfile", args.hostfile]
    elif args.hosts or args.hostfile:
        cmd += ["-hosts", args.hosts] if args.hosts else ["-f", args.hostfile]
    cmd += ["-n", str(args.n), sys.executable, str(Path(__file__).with_name("_launch_rank.py"))]
    if args.no_prefix:
        cmd.append("--no-prefix")
    cmd += [args.script, *args.args]
    return cmd


def parser():
    p = argparse.ArgumentParser(prog="python -m mscustom.run",
                                description="Run a training script on N ranks with the venv's mpiexec.")
    p.add_argument("-n", "--nproc", dest="n", type=int, default=1, help="number of ranks (default 1)")
    p.add_argument("--hosts", default=None, help="comma-separated host names (mpiexec -hosts)")
    p.add_argument("--hostfile", default=None, help="a host file (mpiexec -f)")
    p.add_argument("--threads", type=int, default=None,
                   help="BLAS/OpenMP/Numba threads per rank (default 1, or what the environment sets)")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds a collective may wait before the ranks stop (MSCUSTOM_COMM_TIMEOUT, default 300)")
    p.add_argument("--no-prefix", action="store_true", help="do not prefix output lines with the rank")
    p.add_argument("script", help="the Python script each rank runs")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    if args.n < 1:
        parser().error(f"-n must be at least 1, got {args.n}")
    if args.threads is not None and args.threads < 1:
        parser().error(f"--threads must be at least 1, got {args.threads}")
    if args.timeout is not None and not args.timeout > 0:
        parser().error(f"--timeout must be positive, got {args.timeout}")
    mpiexec = find_mpiexec()
    if mpiexec is None:
        sys.stderr.write("mscustom.run: no mpiexec next to this Python or on PATH; install the 'dist' extra "
                         "(pip install -e '.[dist]', which brings mpi4py and the MPICH wheel)\n")
        return 2
    env = dict(os.environ)
    for var in THREAD_VARS:
        if args.threads is not None:
            env[var] = str(args.threads)
        else:
            env.setdefault(var, "1")
    if args.timeout is not None:
        env["MSCUSTOM_COMM_TIMEOUT"] = repr(args.timeout)
    cmd = build_command(args, mpiexec, _flavour(mpiexec))
    with tempfile.TemporaryDirectory(prefix="mscustom-run-") as folder:
        env["MSCUSTOM_RUN_DIR"] = folder            # each rank leaves its process id here (init())
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, start_new_session=True)
        failed = []                                 # process ids the process manager reports
        try:
            for line in proc.stdout:                # pass every line through, reading hydra's report
                sys.stdout.buffer.write(line)
                sys.stdout.buffer.flush()
                m = _BAD_PID.search(line)
                if m:
                    failed.append([int(m.group(1)), m.group(2).decode(errors="replace"), None])
                m = _EXIT_CODE.search(line)
                if m and failed and failed[-1][2] is None:
                    failed[-1][2] = f"exit code {int(m.group(1))}"
                m = _SIGNAL.search(line)
                if m and failed:            # hydra's summary: the code above was a signal
                    failed[-1][2] = f"killed by signal {int(m.group(1))}"
            status = proc.wait()
        except KeyboardInterrupt:
            _signal_session(proc.pid, signal.SIGINT)
            status = 130
        _report(failed, _registered_ranks(folder), args.n)
        if status and not failed:
            sys.stderr.write(f"mscustom.run: mpiexec exited with status {status}\n")
        # a rank that outlives mpiexec has lost its job: a moment to finish writing, then it is ended
        deadline = time.monotonic() + _GRACE_S
        while _session_members(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        _signal_session(proc.pid, signal.SIGKILL)
    return status


_GRACE_S = 3.0
_BAD_PID = re.compile(rb"^=\s+PID (\d+) RUNNING AT (\S+)")
_EXIT_CODE = re.compile(rb"^=\s+(?:EXIT CODE|EXIT STATUS): (\d+)")
_SIGNAL = re.compile(rb"TERMINATED WITH THE EXIT STRING: .*\(signal (\d+)\)")


def _registered_ranks(folder):
    ranks = {}
    for name in os.listdir(folder):
        try:
            with open(os.path.join(folder, name)) as f:
                rank, pid, host = f.read().split()
            ranks[(int(pid), host)] = int(rank)
        except (OSError, ValueError):
            continue
    return ranks


def _report(failed, ranks, n):
    """Name the ranks behind the process ids that mpiexec reported as failed."""
    for pid, host, how in failed:
        rank = ranks.get((pid, host))
        who = f"rank {rank}" if rank is not None else "a rank that had not called init()"
        how = how or "no exit code reported"
        sys.stderr.write(f"mscustom.run: {who} of {n} (pid {pid} on {host}) was lost ({how}); "
                         "mpiexec stopped every other rank\n")
    sys.stderr.flush()


def _session_members(sid):
    """The processes of session ``sid`` still alive (Linux /proc), zombies excluded."""
    members = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 3 and fields[0] != b"Z" and int(fields[3]) == sid:
            members.append(int(entry))
    return members


def _signal_session(sid, sig):
    for pid in _session_members(sid):
        try:
            os.kill(pid, sig)
        except OSError:
            pass


if __name__ == "__main__":
    sys.exit(main())
