"""Timed graph replays: a record's replay function with a clock read around each of its steps.

While anyone times kernels (``dispatch.TIMING``: a profiler, an
``ops.custom_op_usage`` block), ``graph.py`` replays a record through
``timed_run(rec, name)`` instead of ``rec.run``. That is the same generated
function (``replay.py``), rebuilt from its source with two lines around each
step, found by the ``# step j: inputs`` comment the generator writes before
it: a clock read, and after the step a call that

- adds the seconds to the kernel's stats for Custom kernels the plain replay
  only counts (the usage report's time then covers graph mode too);
- reports one event per step to the recording profiler, if any: its op name,
  its category (``builtin``, ``custom:<kind>``, ``comm``; ``effect``, ``host``
  and ``check`` for Python steps), its replay mode and its input shapes;

and one ``replay`` event for the whole call. Guards are not timed. The timed
function is built once per record (again when the record switches to another
replay function) and kept on it; replays with nobody timing never see it.
"""

import re

from . import trace

__all__ = ["timed_run", "step_label"]

_MARK = re.compile(r"^    # step (\d+): ?(.*)$")
_UNTIMED_IN_REPLAY = ("prealloc", "alloc_checked")     # modes whose generated line counts calls, not time


def timed_run(rec, name):
    """``rec.run`` with every step timed (see the module docstring); ``name``: the graph function's."""
    run = rec.run
    cached = rec.__dict__.get("_probe")
    if cached is not None and cached[0] is run and cached[1] == name:
        return cached[2]
    timed = _build(rec, run, name)
    rec._probe = (run, name, timed)
    return timed


def step_label(st):
    """``(name, category, args)`` of one replay step in a trace."""
    if st.kind == "kernel":
        plan = st.plan
        kind = plan.entry.kind if plan is not None else "builtin"
        ops = getattr(st.fn, "ops", None) if plan is None else None
        name = st.op.name
        if ops:
            name = f"{name}[{'+'.join(str(getattr(o, 'name', o)) for o in ops)}]"
        return name, trace.category(st.op.name, kind), {"mode": st.mode}
    return trace.label_of(st.fn), st.kind, {}


def _build(rec, run, name):
    ns = run.__globals__
    steps = list(rec.steps)
    lines = rec.source.rstrip("\n").split("\n")
    end = max(i for i, line in enumerate(lines) if line.startswith("    return"))
    out = ["def replay_profiled(A):"]
    open_step = None
    for i, line in enumerate(lines[1:], 1):
        m = _MARK.match(line)
        if (m is not None or i == end) and open_step is not None:
            out.append(open_step)
            open_step = None
        if m is not None:
            j, args = int(m.group(1)), m.group(2).strip()
            if steps[j].kind != "guard":
                out.append("    _t = _PC()")
                open_step = f"    _PE({j}, _t, ({args}{',' if args else ''}))"
        out.append(line)
    ns["_PC"], ns["_PE"] = trace.now, _step_end(steps)
    exec(compile("\n".join(out) + "\n", "<mscustom graph replay (timed)>", "exec"), ns)
    inner = ns["replay_profiled"]
    return _whole(inner, name, len(steps))


def _step_end(steps):
    labels = [step_label(st) if st.kind != "guard" else None for st in steps]
    stats = [st.plan.stats if st.kind == "kernel" and st.plan is not None and st.plan.timed
             and st.mode in _UNTIMED_IN_REPLAY else None for st in steps]
    clock, active = trace.now, trace.ACTIVE

    def step_end(j, t0, ins):
        t1 = clock()
        kstats = stats[j]
        if kstats is not None:
            kstats["seconds"] += (t1 - t0) * 1e-9
        rec = active[0]
        if rec is not None:
            name, cat, args = labels[j]
            shapes = [list(a.shape) for a in ins if hasattr(a, "shape")]
            rec.add(name, cat, t0, t1, dict(args, shapes=shapes))
    return step_end


def _whole(inner, name, n_steps):
    clock, active = trace.now, trace.ACTIVE

    def replay(arrays):
        t0 = clock()
        try:
            return inner(arrays)
        finally:
            rec = active[0]
            if rec is not None:
                rec.add(name, "replay", t0, clock(), {"steps": n_steps})
    return replay
