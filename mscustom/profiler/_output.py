"""What a profiler writes: a Chrome/Perfetto trace, and the table of ops by total time (text and CSV).

``export(events, base, ...)`` makes MindSpore's layout::

    <base>/<host>_<pid>_<YYYYmmddHHMMSSmmm>_ascend_ms/ASCEND_PROFILER_OUTPUT/
        trace_view.json     {"traceEvents": [...]}: one "X" event per op call, step, replay, ...
        op_statistic.csv    one row per (op, category): calls, total/min/avg/max time (us), ratio (%)
        op_statistic.txt    the same as an aligned text table, slowest first
    <...>_ascend_ms/profiler_metadata.json      (when metadata was added)

Open ``trace_view.json`` in https://ui.perfetto.dev or chrome://tracing. Event
``ts``/``dur`` are microseconds (``ts`` since the Unix epoch); ``args`` hold the
input shapes and, for replayed steps, the replay mode.

The table counts the work categories (``builtin``, ``custom:<kind>``,
``comm``, ``effect``, ``host``, ``check``, ``data``), not the spans that
contain them (``replay``, ``record``, ``step``). A call made inside another
(ops run by a pyfunc kernel) counts in both rows.
"""

import csv
import io
import json
import os
import socket
import time

from ._recorder import epoch_us

__all__ = ["CONTAINERS", "rows", "table_text", "table_csv", "trace_json", "export", "SORT_KEYS"]

CONTAINERS = ("replay", "record", "step")
SORT_KEYS = {"total": lambda r: -r["total_us"], "calls": lambda r: -r["calls"], "avg": lambda r: -r["avg_us"],
             "max": lambda r: -r["max_us"], "name": lambda r: r["name"]}
_CSV_HEAD = ["Op Name", "Category", "Count", "Total Time(us)", "Min Time(us)", "Avg Time(us)", "Max Time(us)",
             "Ratio(%)"]


def rows(events, sort_by="total"):
    """One dict per (name, category) of the work events: calls, total/min/avg/max us, ratio %."""
    if sort_by not in SORT_KEYS:
        raise ValueError(f"profiler table: sort_by must be one of {list(SORT_KEYS)}, got {sort_by!r}")
    agg = {}
    for e in events:
        if e["cat"] in CONTAINERS:
            continue
        us = (e["t1"] - e["t0"]) / 1000.0
        r = agg.get((e["name"], e["cat"]))
        if r is None:
            agg[(e["name"], e["cat"])] = {"name": e["name"], "category": e["cat"], "calls": 1, "total_us": us,
                                          "min_us": us, "max_us": us}
        else:
            r["calls"] += 1
            r["total_us"] += us
            r["min_us"] = min(r["min_us"], us)
            r["max_us"] = max(r["max_us"], us)
    total = sum(r["total_us"] for r in agg.values()) or 1.0
    out = list(agg.values())
    for r in out:
        r["avg_us"] = r["total_us"] / r["calls"]
        r["ratio"] = 100.0 * r["total_us"] / total
    out.sort(key=lambda r: (SORT_KEYS[sort_by](r), r["name"], r["category"]))
    return out


def table_text(table_rows, row_limit=None):
    """The rows as an aligned table (times in ms), with a total line."""
    head = ("op", "category", "calls", "total ms", "avg ms", "min ms", "max ms", "%")
    shown = table_rows if row_limit is None else table_rows[:row_limit]
    body = [(r["name"], r["category"], str(r["calls"]), f"{r['total_us'] / 1e3:.3f}", f"{r['avg_us'] / 1e3:.4f}",
             f"{r['min_us'] / 1e3:.4f}", f"{r['max_us'] / 1e3:.4f}", f"{r['ratio']:.1f}") for r in shown]
    total_ms = sum(r["total_us"] for r in table_rows) / 1e3
    foot = ("total", "", str(sum(r["calls"] for r in table_rows)), f"{total_ms:.3f}", "", "", "", "100.0")
    widths = [max(len(x) for x in col) for col in zip(head, *body, foot)]

    def line(cells):
        return "  ".join(c.ljust(w) if j < 2 else c.rjust(w) for j, (c, w) in enumerate(zip(cells, widths))).rstrip()

    rule = "  ".join("-" * w for w in widths)
    lines = [line(head), rule] + [line(b) for b in body]
    if row_limit is not None and len(table_rows) > row_limit:
        lines.append(f"... {len(table_rows) - row_limit} more row(s)")
    lines += [rule, line(foot)]
    return "\n".join(lines)


def table_csv(table_rows):
    """The rows as CSV text (MindSpore's op_statistic columns, with a category column)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(_CSV_HEAD)
    for r in table_rows:
        w.writerow([r["name"], r["category"], r["calls"], f"{r['total_us']:.3f}", f"{r['min_us']:.3f}",
                    f"{r['avg_us']:.3f}", f"{r['max_us']:.3f}", f"{r['ratio']:.2f}"])
    return buf.getvalue()


def trace_json(events, pid):
    """The Chrome trace (a dict with ``traceEvents``) of the events."""
    trace = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": f"mscustom ({pid})"}}]
    for e in events:
        ev = {"ph": "X", "name": e["name"], "cat": e["cat"], "ts": round(epoch_us(e["t0"]), 3),
              "dur": round((e["t1"] - e["t0"]) / 1000.0, 3), "pid": pid, "tid": e["tid"]}
        if e["args"]:
            ev["args"] = e["args"]
        trace.append(ev)
    return {"traceEvents": trace, "displayTimeUnit": "ms"}


def export(events, pid, base, worker_name=None, pretty=False, metadata=None):
    """Write the trace and the tables under ``base`` (see the module docstring); return the run's folder."""
    worker = worker_name or f"{socket.gethostname()}_{pid}"
    stamp = time.strftime("%Y%m%d%H%M%S") + f"{int(time.time() * 1000) % 1000:03d}"
    run_dir = os.path.join(os.path.abspath(base), f"{worker}_{stamp}_ascend_ms")
    n = 1
    while os.path.exists(run_dir):      # two exports within one millisecond
        run_dir = os.path.join(os.path.abspath(base), f"{worker}_{stamp}_{n}_ascend_ms")
        n += 1
    out = os.path.join(run_dir, "ASCEND_PROFILER_OUTPUT")
    os.makedirs(out)
    with open(os.path.join(out, "trace_view.json"), "w") as f:
        json.dump(trace_json(events, pid), f, indent=1 if pretty else None)
    table = rows(events)
    with open(os.path.join(out, "op_statistic.csv"), "w") as f:
        f.write(table_csv(table))
    with open(os.path.join(out, "op_statistic.txt"), "w") as f:
        f.write(table_text(table) + "\n")
    if metadata:
        with open(os.path.join(run_dir, "profiler_metadata.json"), "w") as f:
            json.dump(metadata, f, indent=1)
    return run_dir
