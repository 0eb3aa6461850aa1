#!/usr/bin/env python3
"""ONNX's backend node tests through `tilesat eval`: pass / rejected / wrong / crash counts.

usage: /usr/bin/python3 scripts/onnx-conformance.py TILESAT WORK_DIR [--floor N] [--list]

Generates the node tests with the ONNX library's own generator (python3-onnx's
`onnx.backend.test.cmd_tools generate-data`; Debian 12's numpy no longer has the `np.float`
style aliases the generators use, so they are set first), then for every test case imports its
model with `tilesat eval MODEL --input NAME=FILE.npy ... --output-dir DIR` and compares each
result with the expected output (numpy.allclose with rtol 1e-3 and atol 1e-5, the tolerances
ONNX's backend runner uses for float tests; rtol 2^-7, one bfloat16 step, for bfloat16
outputs; integer and bool outputs compare exactly after conversion). Outcomes:
  pass      every output matches
  rejected  tilesat exits 1 with an error (the first line of which is counted as the reason)
  wrong     tilesat exits 0 but an output differs or is missing
  crash     any other exit status (a signal, or 3 for an internal error)
With --floor N the exit status is 1 when fewer than N pass or any test is wrong or crashes.
Needs Debian's python3-onnx and python3-numpy; exits 77 (ctest's skip) without them.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

try:
    import numpy as np
    for _name, _type in (("float", float), ("int", int), ("bool", bool), ("object", object),
                         ("complex", complex), ("str", str)):
        if _name not in np.__dict__:
            setattr(np, _name, _type)
    import onnx
    from onnx import numpy_helper
except ImportError:
    print("onnx-conformance.py: python3-onnx and python3-numpy are needed")
    sys.exit(77)


def generate(out):
    """Writes ONNX's node tests under out/node/<test>/ (model.onnx, test_data_set_0/)."""
    if os.path.isdir(os.path.join(out, "node")):
        return
    from onnx.backend.test.cmd_tools import main as cmd_tools
    saved = sys.argv
    sys.argv = ["onnx-cmd-tools", "generate-data", "-o", out]
    try:
        cmd_tools()
    finally:
        sys.argv = saved


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)


def result_stems(names):
    """The file stems `tilesat eval` writes results under (cli.h result_stems): characters
    other than letters, digits and _.$- become _, an empty name is result<i>, and names whose
    stems coincide get their index appended."""
    stems = []
    for i, name in enumerate(names):
        s = re.sub(r"[^A-Za-z0-9_.$-]", "_", name) if name else f"result{i}"
        stems.append("_" + s if s[0] in ".-" else s)
    return [f"{s}.{i}" if stems.count(s) > 1 else s for i, s in enumerate(stems)]


def run_case(tilesat, case, work):
    model = os.path.join(case, "model.onnx")
    data = os.path.join(case, "test_data_set_0")
    if not os.path.isdir(data):
        return "rejected", "no test data"
    try:
        graph = onnx.load(model).graph
    except Exception as e:  # the model itself does not load (sequence or optional types)
        return "rejected", f"onnx cannot load the model: {type(e).__name__}"
    initialized = {i.name for i in graph.initializer}
    inputs = [i.name for i in graph.input if i.name not in initialized]
    outputs = [o.name for o in graph.output]
    stems = result_stems(outputs)
    out_types = [o.type.tensor_type.elem_type for o in graph.output]
    args = []
    for k, name in enumerate(inputs):
        path = os.path.join(data, f"input_{k}.pb")
        if not os.path.exists(path):
            return "rejected", "missing input data"
        try:
            _, value = load_pb(path)
        except Exception:
            return "rejected", "input is not a tensor (a sequence or optional value)"
        if value.dtype == object or value.dtype.kind in "USc":
            return "rejected", f"input of numpy dtype {value.dtype}"
        npy = os.path.join(work, f"in{k}.npy")
        # tilesat reads f4/f8/i4/i8/bool .npy files; narrower types go as the wider ones.
        if value.dtype.kind == "f" and value.dtype != np.float64:
            value = value.astype(np.float32)
        elif value.dtype.kind in "iu" and value.dtype not in (np.int32, np.int64):
            value = value.astype(np.int64)
        np.save(npy, value)
        args += ["--input", f"{name}={npy}"]
    out_dir = os.path.join(work, "out")
    p = subprocess.run([tilesat, "eval", model, "--output-dir", out_dir] + args,
                       capture_output=True, text=True, timeout=120)
    if p.returncode == 1:
        return "rejected", reason(p.stderr)
    if p.returncode != 0:
        return "crash", f"exit {p.returncode}: {p.stderr.strip()[:200]}"
    for k, name in enumerate(outputs):
        try:
            _, want = load_pb(os.path.join(data, f"output_{k}.pb"))
        except Exception:
            return "rejected", "output is not a tensor (a sequence or optional value)"
        got_path = os.path.join(out_dir, stems[k] + ".npy")
        if not os.path.exists(got_path):
            return "wrong", f"output {name} was not written"
        got = np.load(got_path)
        bf16 = out_types[k] == onnx.TensorProto.BFLOAT16
        if bf16 and want.dtype == np.uint16:
            # ONNX 1.12 stores bfloat16 outputs as their 16-bit patterns.
            want = (want.astype(np.uint32) << 16).view(np.float32)
        if got.shape != want.shape:
            return "wrong", f"output {name}: shape {got.shape}, expected {want.shape}"
        if want.dtype.kind in "fc":
            # bfloat16 keeps 8 significant bits: a result may sit one step (2^-7 relative) from
            # the expected one (ONNX 1.12 truncates where tilesat and the hardware round to
            # nearest even).
            rtol = 2.0 ** -7 if bf16 else 1e-3
            ok = np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                             atol=1e-5, equal_nan=True)
        else:
            ok = np.array_equal(got.astype(np.float64), want.astype(np.float64))
        if not ok:
            return "wrong", f"output {name} differs"
    return "pass", ""


def reason(stderr):
    """The error's gist, with model-specific parts (paths, node names, numbers) removed."""
    line = stderr.strip().splitlines()[-1] if stderr.strip() else "no message"
    line = re.sub(r"^tilesat: error: ", "", line)
    line = re.sub(r"\S*model\.onnx:?\s*", "", line)
    m = re.search(r"unsupported ONNX ops: ([^;]*)", line)
    if m:
        return "unsupported op " + re.sub(r" \(\d+\)", "", m.group(1))
    line = re.sub(r"node \d+ '[^']*' ", "", line)
    return re.sub(r"\d+", "N", line)[:120]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tilesat")
    ap.add_argument("work")
    ap.add_argument("--floor", type=int)
    ap.add_argument("--list", action="store_true", help="print every case with its outcome")
    a = ap.parse_args()
    data = os.path.join(a.work, "data")
    generate(data)
    root = os.path.join(data, "node")
    counts = collections.Counter()
    reasons = collections.Counter()
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(root)):
            outcome, why = run_case(a.tilesat, os.path.join(root, name), tmp)
            counts[outcome] += 1
            if outcome == "rejected":
                reasons[why] += 1
            elif outcome in ("wrong", "crash"):
                bad.append(f"{outcome}: {name}: {why}")
            if a.list:
                print(f"{outcome} {name} {why}")
    total = sum(counts.values())
    print(f"{total} node tests: {counts['pass']} pass ({100 * counts['pass'] / total:.1f}%), "
          f"{counts['rejected']} rejected, {counts['wrong']} wrong, {counts['crash']} crash")
    for line in bad:
        print("  " + line)
    print("most common rejections:")
    for why, n in reasons.most_common(15):
        print(f"  {n:4d}  {why}")
    if a.floor is not None:
        failed = counts["pass"] < a.floor or counts["wrong"] or counts["crash"]
        if counts["pass"] < a.floor:
            print(f"FLOOR: {counts['pass']} pass, expected at least {a.floor}")
        return 1 if failed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
