#!/usr/bin/env python3
"""Plans every model of the zoo (scripts/make-zoo.py) and reports, per model and device: ONNX
nodes, device ops, plan time, peak memory, predicted time per inference and once at load
(const-eval), peak L1 and predicted throughput, beside tt-metal's published n150 figures
where there are some.

usage: bench/models/zoo.py --tilesat build/tools/tilesat --zoo DIR
                           [--device wormhole_b0]... [--only NAME,...] [--check] [--lower]
                           [--known-failures FILE] [--end-to-end] [--tilesat-arg ARG]... [--jobs N]

Each model is planned in its own process (`tilesat opt M --device D --emit plan --report J`,
under /usr/bin/time for the peak RSS), so one model's failure or memory does not touch the
next. With --lower the plan is also written as a program (`--emit program -o`) and loaded
back (`tilesat print P.tsprog`, which verifies it). With --check the exit status is 1 when
any model fails; the output is a table either way. --known-failures names a file of
`model device` lines (# comments) that are known not to plan yet: with --check, those may
fail, and one that now succeeds is reported so the list is shortened (exit 1 too, so the list
stays true). With --end-to-end each model is run by `tilesat check M --device D` instead (optimize,
plan, lower, run on the device model, compare with the reference interpreter); its last line
is reported. --tilesat-arg passes an option to every `opt` and `check` (e.g.
`--tilesat-arg=--compute-dtype=bf16`, or `--tilesat-arg=--weight-args=*.*` to treat the zoo's
parameter inputs, named `module.weight`, as weights for const-eval). A missing zoo exits 77
with --check (ctest's skip). Needs only Python's standard library.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

# tt-metal's published n150 (Wormhole) figures, from its README's model table.
PUBLISHED = {
    "resnet50_b16": ("4,700 images/s", 4700.0),
    "vit_b_16_b8": ("912 images/s", 912.0),
    "bert_large_l24_s384_b8": ("270 sentences/s", 270.0),
}


def batch_of(name, input_shape):
    """Samples per inference: the batch the model name states (_b8), else the input's first dim."""
    m = re.search(r"_b(\d+)$", name)
    return int(m.group(1)) if m else 1


def run(cmd, timeout):
    t = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True,
                       timeout=timeout)
    seconds = time.monotonic() - t
    lines = [l for l in p.stderr.strip().splitlines()
             if not l.startswith("Command exited with non-zero status")]
    rss_kib = int(lines[-1]) if lines and lines[-1].isdigit() else 0
    err = "\n".join(lines[:-1]) if lines and lines[-1].isdigit() else p.stderr.strip()
    return p.returncode, seconds, rss_kib / 1024.0, p.stdout, err


def plan_model(tilesat, path, device, lower, timeout, tmp, extra=()):
    """Plans one model (with `lower`, also writes its program in the same run and loads it back
    with `tilesat print`); the row of the table."""
    name = os.path.basename(path)[:-5]
    # A device may be a descriptor file: its file name (without .json) names the outputs.
    tag = os.path.splitext(os.path.basename(device))[0]
    report = os.path.join(tmp, f"{name}.{tag}.json")
    prog = os.path.join(tmp, f"{name}.{tag}.tsprog")
    emit = ["--emit", "program", "-o", prog] if lower else ["--emit", "plan"]
    code, seconds, rss, out, err = run(
        [tilesat, "opt", path, "--device", device, *emit, "--report", report, *extra], timeout)
    row = {"model": name, "device": device, "plan_s": seconds, "rss_mib": rss}
    if code != 0:
        row["error"] = (err.splitlines() or ["exit %d" % code])[-1]
        return row
    with open(report) as f:
        r = json.load(f)
    row["device_ops"] = len(r["ops"])
    row["predicted_us"] = r["predicted_total_us"]
    row["one_time_us"] = r.get("predicted_one_time_us", 0)
    row["peak_l1"] = r["peak_l1_bytes_per_core"]
    if lower:
        code, _, _, _, err = run([tilesat, "print", prog], timeout)
        row["lowered"] = "ok" if code == 0 else (err.splitlines() or ["exit %d" % code])[-1]
        os.remove(prog)
    return row


def check_model(tilesat, path, device, timeout, extra=()):
    """`tilesat check` of one model: its exit status and the lines it printed."""
    code, seconds, rss, out, err = run([tilesat, "check", path, "--device", device, *extra],
                                       timeout)
    text = (out.strip() + "\n" + err.strip()).strip()
    return code, seconds, rss, text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tilesat", required=True)
    ap.add_argument("--zoo", required=True)
    ap.add_argument("--device", action="append")
    ap.add_argument("--only", default="")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--lower", action="store_true")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--known-failures")
    ap.add_argument("--end-to-end", action="store_true")
    ap.add_argument("--tilesat-arg", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=1,
                    help="models planned at once (rows still print in zoo order)")
    a = ap.parse_args()
    known = set()
    if a.known_failures:
        with open(a.known_failures) as f:
            for line in f:
                words = line.split("#")[0].split()
                if len(words) == 2:
                    known.add(tuple(words))
                elif words:
                    sys.exit(f"{a.known_failures}: expected 'model device', got {line.strip()!r}")
    index = os.path.join(a.zoo, "zoo.tsv")
    if not os.path.exists(index):
        print(f"zoo.py: no zoo at {a.zoo} (make it with scripts/make-zoo.py {a.zoo})")
        return 77 if a.check else 2
    with open(index) as f:
        models = [line.split("\t") for line in f.read().splitlines()[1:]]
    only = set(filter(None, a.only.split(",")))
    devices = a.device or ["wormhole_b0"]
    failures = 0
    if a.end_to_end:
        for fields in models:
            if only and fields[0] not in only:
                continue
            for device in devices:
                code, seconds, rss, text = check_model(
                    a.tilesat, os.path.join(a.zoo, fields[0] + ".onnx"), device, a.timeout,
                    a.tilesat_arg)
                failures += code != 0
                print(f"{fields[0]} on {device}: {'ok' if code == 0 else 'FAILED'} "
                      f"({seconds:.1f} s, {rss:.0f} MiB)")
                print("  " + text.replace("\n", "\n  "), flush=True)
        print(f"{failures} failure(s)")
        return 1 if (a.check and failures) else 0
    print("model | device | ONNX nodes | device ops | plan s | peak MiB | predicted us | "
          "once us | peak L1 KiB | predicted /s | tt-metal n150" + (" | program" if a.lower else ""))
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        jobs = [(fields, device, pool.submit(plan_model, a.tilesat,
                                             os.path.join(a.zoo, fields[0] + ".onnx"), device,
                                             a.lower, a.timeout, tmp, a.tilesat_arg))
                for fields in models if not only or fields[0] in only for device in devices]
        for fields, device, job in jobs:
            name, nodes = fields[0], fields[1]
            row = job.result()
            expected = (name, device) in known
            if "error" in row or (a.lower and row.get("lowered") != "ok"):
                if expected:
                    known.discard((name, device))
                else:
                    failures += 1
            if "error" in row:
                print(f"{name} | {device} | {nodes} | FAILED ({row['plan_s']:.2f} s, "
                      f"{row['rss_mib']:.0f} MiB): {row['error']}", flush=True)
                continue
            per_s = batch_of(name, fields[4]) / (row["predicted_us"] * 1e-6)
            published = PUBLISHED.get(name, ("", 0))[0] if device == "wormhole_b0" else ""
            lowered = ""
            if a.lower:
                lowered = " | " + row["lowered"]
            if expected and (name, device) in known:
                failures += 1
                print(f"  {name} on {device} now plans: remove it from {a.known_failures}")
            print(f"{name} | {device} | {nodes} | {row['device_ops']} | {row['plan_s']:.2f} | "
                  f"{row['rss_mib']:.0f} | {row['predicted_us']:.1f} | "
                  f"{row['one_time_us']:.1f} | "
                  f"{row['peak_l1'] / 1024:.0f} | {per_s:,.0f} | {published}{lowered}",
                  flush=True)
    print(f"{failures} failure(s)" + (" (beyond the known ones)" if a.known_failures else ""))
    return 1 if (a.check and failures) else 0


if __name__ == "__main__":
    sys.exit(main())
