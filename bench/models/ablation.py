#!/usr/bin/env python3
"""What each rule set buys: per model, the predicted per-inference time of the full plan, of
the plan with each shipped rule set left out in turn, and of a baseline without this
optimizer (no rule set at all: no fusion, every tensor DRAM interleaved, one device op per
graph op), all from `tilesat opt --device DEVICE --emit plan` with the same other flags.

  bench/models/ablation.py --tilesat build/tools/tilesat tests/models/*.onnx build/zoo/resnet50_b16.onnx

Columns: baseline and full in us, the full plan's speedup over the baseline, then per rule set
how much slower the plan is without it (+%; 0 when the set changes nothing for the model).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def rule_sets(tilesat):
    """The shipped default rule sets (opt-in ones excluded), from the rules directory."""
    rules_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "rewrites",
                             "rules")
    names = []
    for f in sorted(os.listdir(rules_dir)):
        if not f.endswith(".rules"):
            continue
        with open(os.path.join(rules_dir, f)) as fh:
            if fh.readline().startswith("# opt-in"):
                continue
        names.append(f[:-len(".rules")])
    return names


def predicted(tilesat, model, device, extra):
    cmd = [tilesat, "opt", model, "--device", device, "--emit", "plan"] + extra
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[-400:]}")
    totals = [float(x) for x in re.findall(r"^total: ([\d.]+) us predicted", p.stdout, re.M)]
    ops = len(re.findall(r"^ *\d+ %", p.stdout, re.M))
    return sum(totals), ops


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tilesat", required=True)
    ap.add_argument("--device", default="wormhole_b0")
    ap.add_argument("--tilesat-arg", action="append", default=[],
                    help="an extra flag for every run (repeatable), e.g. --tilesat-arg=--no-trace")
    ap.add_argument("models", nargs="+")
    args = ap.parse_args()
    sets = rule_sets(args.tilesat)
    short = {s: s.replace("-fusion", "-f").replace("-folding", "-fold") for s in sets}
    head = f"{'model':<22} {'baseline us':>11} {'full us':>9} {'speedup':>7} " + " ".join(
        f"{'-' + short[s]:>12}" for s in sets)
    print(head)
    with tempfile.TemporaryDirectory() as tmp:
        empty = os.path.join(tmp, "none.rules")
        open(empty, "w").close()
        for model in args.models:
            name = os.path.splitext(os.path.basename(model))[0]
            base, base_ops = predicted(args.tilesat, model, args.device,
                                       ["--rules", empty] + args.tilesat_arg)
            full, full_ops = predicted(args.tilesat, model, args.device, args.tilesat_arg)
            cells = []
            for s in sets:
                others = [x for o in sets if o != s for x in ("--rule-set", o)]
                t, _ = predicted(args.tilesat, model, args.device, others + args.tilesat_arg)
                cells.append(f"{100 * (t - full) / full:>+11.1f}%")
            print(f"{name:<22} {base:>11.2f} {full:>9.2f} {base / full:>6.2f}x " + " ".join(cells),
                  flush=True)
            print(f"{'':<22} {base_ops:>8} ops {full_ops:>5} ops", flush=True)


if __name__ == "__main__":
    main()
