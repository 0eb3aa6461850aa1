#!/usr/bin/env python3
"""Compile time and memory against graph size: generated TTIR graphs of N ops through
`tilesat opt --device wormhole_b0 --emit plan` (build, saturate, extract, plan, legality),
one process per size.

Two shapes per size: a chain (each op reads the one or two before it) and a DAG (each op also
reads a value made up to 64 ops earlier, so values live long and fan out). The last column is
seconds per 1,000 ops divided by that of the smallest size in the same run: linear time keeps
it near 1 (the machine is shared, so compare ratios, not seconds).

  bench/models/scale.py --tilesat build/tools/tilesat --sizes 10000,100000,1000000
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time

T = "tensor<64x64xf32>"


def write_graph(path, n, dag, seed=1):
    rng = random.Random(seed)
    with open(path, "w") as f:
        f.write(f"func.func @main(%a: {T}, %b: {T}) -> {T} {{\n")
        names = ["%a", "%b"]
        for i in range(n):
            op = ("exp", "add", "relu", "multiply")[i % 4]
            x = names[-1]
            if op in ("add", "multiply"):
                y = names[-1 - rng.randint(1, min(64, len(names) - 1))] if dag else names[-2]
                f.write(f'  %v{i} = "ttir.{op}"({x}, {y}) : ({T}, {T}) -> {T}\n')
            else:
                f.write(f'  %v{i} = "ttir.{op}"({x}) : ({T}) -> {T}\n')
            names.append(f"%v{i}")
        f.write(f"  return {names[-1]} : {T}\n}}\n")


def run(tilesat, path, extra):
    cmd = [tilesat, "opt", path, "--device", "wormhole_b0", "--emit", "plan", "--stats"] + extra
    with tempfile.TemporaryFile("w+") as err:
        start = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)  # this child's own peak RSS
        seconds = time.monotonic() - start
        err.seek(0)
        stderr = err.read()
    if status != 0:
        sys.exit(f"{' '.join(cmd)}: exit status {status}: {stderr.strip()[-400:]}")
    stop = re.search(r"^stop: (.*?) after (\d+) iterations, (\d+) e-nodes.*?, ([\d.]+) s", stderr,
                     re.M)
    return seconds, usage.ru_maxrss / 1024, stop


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tilesat", required=True)
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--shapes", default="chain,dag")
    ap.add_argument("--time-limit", default="30", help="saturation seconds (--time-limit)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'graph':>14} {'ops':>9} {'e-nodes':>9} {'stop':>12} {'sat s':>7} {'total s':>8} "
          f"{'peak MiB':>9} {'s/1k ops':>9} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes.split(","):
            base = None
            for n in sizes:
                path = os.path.join(tmp, f"{shape}{n}.mlir")
                write_graph(path, n, shape == "dag")
                seconds, mib, stop = run(args.tilesat, path, ["--time-limit", args.time_limit])
                os.remove(path)
                per_k = seconds / n * 1000
                base = base or per_k
                reason, enodes, sat = (stop.group(1), stop.group(3), float(stop.group(4))) \
                    if stop else ("?", "?", 0.0)
                print(f"{shape:>14} {n:>9} {enodes:>9} {reason:>12} {sat:>7.2f} {seconds:>8.2f} "
                      f"{mib:>9.0f} {per_k:>9.4f} {per_k / base:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
