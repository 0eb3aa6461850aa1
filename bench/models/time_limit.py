#!/usr/bin/env python3
"""How closely saturation keeps to --time-limit: associativity and commutativity of add on a
chain of 300 adds grow the e-graph without end (a single apply can take seconds), run with
time limits T; prints the saturation time the runner reports and its ratio to T (the target is
at most 1.10), and the whole process's time (parsing, extraction and printing on top).

  bench/models/time_limit.py --tilesat build/tools/tilesat --limits 0.5,1,2,5
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

T = "tensor<32x32xf32>"
RULES = """assoc-comm-comm: (add ?a ?b) => (add ?b ?a)
assoc-comm-assoc: (add ?a (add ?b ?c)) => (add (add ?a ?b) ?c)
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tilesat", required=True)
    ap.add_argument("--limits", default="0.5,1,2,5")
    ap.add_argument("--adds", type=int, default=300)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        model, rules = os.path.join(tmp, "chain.mlir"), os.path.join(tmp, "assoc.rules")
        with open(model, "w") as f:
            f.write(f"func.func @main(%a: {T}) -> {T} {{\n")
            prev = "%a"
            for i in range(args.adds):
                f.write(f'  %v{i} = "ttir.add"({prev}, %a) : ({T}, {T}) -> {T}\n')
                prev = f"%v{i}"
            f.write(f"  return {prev} : {T}\n}}\n")
        with open(rules, "w") as f:
            f.write(RULES)
        print(f"{'limit s':>8} {'stop':>20} {'iterations':>10} {'e-nodes':>9} {'saturation s':>13} "
              f"{'ratio':>6} {'process s':>10}")
        worst = 0.0
        for limit in (float(x) for x in args.limits.split(",")):
            cmd = [args.tilesat, "opt", model, "--rule-set", "canonical", "--rules", rules,
                   "--time-limit", str(limit), "--node-limit", "100000000", "--iter-limit",
                   "1000000", "--stats"]
            start = time.monotonic()
            p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            wall = time.monotonic() - start
            if p.returncode != 0:
                sys.exit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[-400:]}")
            m = re.search(r"^stop: (.*?) after (\d+) iterations, (\d+) e-nodes.*?, ([\d.]+) s \(",
                          p.stderr, re.M)
            if not m:
                sys.exit(f"no stop line in: {p.stderr[-400:]}")
            seconds = float(m.group(4))
            worst = max(worst, seconds / limit)
            print(f"{limit:>8} {m.group(1):>20} {m.group(2):>10} {m.group(3):>9} {seconds:>13.3f} "
                  f"{seconds / limit:>6.3f} {wall:>10.2f}", flush=True)
        print(f"worst ratio {worst:.3f}: {'within' if worst <= 1.10 else 'OVER'} the 1.10 target")


if __name__ == "__main__":
    main()
