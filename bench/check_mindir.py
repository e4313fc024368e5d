"""Check mscustom's MINDIR export against real MindSpore: export the cases of tests/mindir_cases.py, run them.

Run with an interpreter that has MindSpore 2.10 (not mscustom's)::

    /path/to/venv-ms/bin/python bench/check_mindir.py              # export, load, run, compare
    /path/to/venv-ms/bin/python bench/check_mindir.py --print      # ... and print MindSpore's outputs
    /path/to/venv-ms/bin/python bench/check_mindir.py --case recurrent --keep /tmp/mindir

The export half runs in mscustom's own interpreter (``--python``, default
``.venv/bin/python`` of this checkout, or ``$MSCUSTOM_PYTHON``) as
``check_mindir.py --export DIR``: it writes ``DIR/<case>.mindir``,
``DIR/<case>.npz`` (the inputs and mscustom's outputs) and ``DIR/cases.txt``. This half loads each
file with ``mindspore.load``, runs it with ``nn.GraphCell`` on the case's
inputs and on other values of the same shapes, and compares MindSpore's
outputs with mscustom's (rtol = atol = 1e-5). ``--print`` writes MindSpore's
outputs on the case's inputs and each file's structure (parsed with
MindSpore's own schema, ``tests/mindir_summary.py``) as the Python literals
``tests/test_export_mindir.py`` holds (``MS_OUTPUTS``, ``STRUCTURE``). Exit
status 1 when a case fails.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _flatten(value):
    if isinstance(value, (tuple, list)):
        return [v for item in value for v in _flatten(item)]
    return [value]


def export(directory, names):
    """mscustom's half: write each case's MINDIR file and its inputs and outputs."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import mindir_cases
    import mscustom as ms

    names = list(names or mindir_cases.CASES)
    for name in names:
        net, inputs = mindir_cases.build(name)
        tensors = [ms.Tensor(x) for x in inputs]
        ms.export(net, *tensors, file_name=os.path.join(directory, name), file_format="MINDIR")
        outs = [t.asnumpy() for t in _flatten(net(*tensors))]
        others = [_other(x) for x in inputs]               # the same file on other values
        outs2 = [t.asnumpy() for t in _flatten(net(*[ms.Tensor(x) for x in others]))]
        np.savez(os.path.join(directory, name + ".npz"), n_in=len(inputs), n_out=len(outs),
                 **{f"in{k}": x for k, x in enumerate(inputs)}, **{f"out{k}": y for k, y in enumerate(outs)},
                 **{f"in2_{k}": x for k, x in enumerate(others)}, **{f"out2_{k}": y for k, y in enumerate(outs2)})
        print(f"exported {name}")
    with open(os.path.join(directory, "cases.txt"), "w") as f:      # what this run wrote, for the check
        f.write("\n".join(names) + "\n")


def _other(x):
    """Other inputs of the same shape: float values moved and scaled, integers (indices, lengths) kept."""
    return (x * -0.7 + 0.2).astype(x.dtype) if x.dtype.kind == "f" else x


def _literal(array, indent):
    """``(shape, "dtype", [values])`` as Python source, its values wrapped to 110 columns."""
    values = [repr(float(f"{v:.8g}")) if array.dtype.kind == "f" else str(int(v)) for v in array.reshape(-1).tolist()]
    body = textwrap.fill(", ".join(values), 110 - len(indent) - 4, initial_indent=indent + "    ",
                         subsequent_indent=indent + "    ", break_on_hyphens=False)
    return f"{indent}({list(array.shape)}, \"{array.dtype.name}\", [\n{body}]),"


def _wrapped(key, value):
    """One ``"key": value,`` line of a structure literal, wrapped to 110 columns."""
    return textwrap.fill(f"\"{key}\": {value!r},", 110, initial_indent=" " * 8, subsequent_indent=" " * 12,
                         break_on_hyphens=False)


def _compare(got, want):
    problems = []
    if len(got) != len(want):
        problems.append(f"{len(got)} outputs, mscustom gave {len(want)}")
    for k, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or g.dtype != w.dtype:
            problems.append(f"output {k}: {g.dtype}{list(g.shape)}, mscustom {w.dtype}{list(w.shape)}")
        elif not np.allclose(g, w, rtol=1e-5, atol=1e-5):
            problems.append(f"output {k}: max difference {np.max(np.abs(g.astype(np.float64) - w)):.3g}")
    return problems


def check(directory, names, show):
    """MindSpore's half: load, run and compare every exported case (on its inputs and on other values)."""
    import mindspore as ms
    from mindspore import nn
    from mindspore.train import mind_ir_pb2

    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from mindir_summary import summary

    failed = []
    printed, structures = [], []
    for name in names:
        path = os.path.join(directory, name + ".mindir")
        data = np.load(os.path.join(directory, name + ".npz"))
        n_in, n_out = int(data["n_in"]), int(data["n_out"])
        try:
            graph = nn.GraphCell(ms.load(path))
            got = [t.asnumpy() for t in _flatten(graph(*[ms.Tensor(data[f"in{k}"]) for k in range(n_in)]))]
            got2 = [t.asnumpy() for t in _flatten(graph(*[ms.Tensor(data[f"in2_{k}"]) for k in range(n_in)]))]
        except Exception as e:                                  # noqa: BLE001 - report and go on
            print(f"FAIL {name}: MindSpore raised {type(e).__name__}: {str(e).strip().splitlines()[0]}")
            failed.append(name)
            continue
        problems = _compare(got, [data[f"out{k}"] for k in range(n_out)])
        problems += [f"other inputs, {p}" for p in _compare(got2, [data[f"out2_{k}"] for k in range(n_out)])]
        if problems:
            print(f"FAIL {name}: " + "; ".join(problems))
            failed.append(name)
        else:
            print(f"ok   {name}: {len(got)} output(s) equal mscustom's, on two sets of inputs")
        model = mind_ir_pb2.ModelProto()
        with open(path, "rb") as f:
            model.ParseFromString(f.read())                     # MindSpore's own schema
        printed.append(f"    \"{name}\": [\n" + "\n".join(_literal(g, " " * 8) for g in got) + "\n    ],")
        structures.append(f"    \"{name}\": {{\n" + "\n".join(_wrapped(k, v) for k, v in summary(model).items())
                          + "\n    },")
    if show:
        print("MS_OUTPUTS = {\n" + "\n".join(printed) + "\n}")
        print("STRUCTURE = {\n" + "\n".join(structures) + "\n}")
    return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export", metavar="DIR", help="(mscustom's interpreter) only write the cases into DIR")
    parser.add_argument("--case", action="append", help="only this case (repeatable)")
    parser.add_argument("--python", default=os.environ.get("MSCUSTOM_PYTHON", os.path.join(ROOT, ".venv", "bin",
                                                                                          "python")),
                        help="mscustom's interpreter, for the export half")
    parser.add_argument("--keep", metavar="DIR", help="write the files into DIR (kept) instead of a temporary one")
    parser.add_argument("--print", dest="show", action="store_true", help="print MindSpore's outputs as literals")
    args = parser.parse_args()
    if args.export:
        os.makedirs(args.export, exist_ok=True)
        export(args.export, args.case)
        return 0
    directory = args.keep or tempfile.mkdtemp(prefix="mindir_check_")
    os.makedirs(directory, exist_ok=True)
    command = [args.python, os.path.abspath(__file__), "--export", directory]
    for c in args.case or []:
        command += ["--case", c]
    subprocess.run(command, check=True, cwd=ROOT)
    with open(os.path.join(directory, "cases.txt")) as f:
        names = f.read().split()
    failed = check(directory, names, args.show)
    print(f"{len(names) - len(failed)} of {len(names)} cases agree" + (f"; failed: {failed}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
