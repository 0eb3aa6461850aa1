#!/usr/bin/env python3
"""Peak memory against a model's weight bytes: a generated ONNX MLP whose f32 weights total
--mb megabytes, through `tilesat print` (import), `opt -o` (plan, lower, write the program and
its weights file), `run` (load and run the program) and `check` (reference interpreter and
CPU model), one process each, peak RSS from the process's own rusage.

Each verb's figure is (peak RSS - the same verb's peak on the same MLP at 1/256 the width)
divided by the weight bytes: how many copies of the weights the verb holds at its peak, with
the process's fixed cost (binary, libraries, rule sets) measured in the same run and taken
out. --check fails when a verb holds more than its target (the `weights_memory_targets` test
runs it at 128 MB).

  bench/models/weights_memory.py --tilesat build/tools/tilesat --mb 512 --check
"""
import argparse
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper, TensorProto
except ImportError:
    print("weights_memory.py: needs python3-numpy and python3-onnx")
    sys.exit(77)

# Copies of the weights each verb may hold at its peak: import keeps the f32 values once (the
# parsed file's bytes go as each initializer is decoded); opt adds the weights file's bytes;
# run holds the device DRAM's copy and its tile copies (each value read from the weights file
# is freed once on the device); check holds the reference interpreter's arguments beside the
# runner's DRAM.
TARGETS = {"print": 1.3, "opt": 2.3, "run": 2.3, "check": 4.3}


def write_mlp(path, width, layers, batch=32):
    rng = np.random.default_rng(1)
    nodes, inits = [], []
    x = "x"
    for i in range(layers):
        w = (rng.standard_normal((width, width), dtype=np.float32) / np.sqrt(width)).astype(
            np.float32)
        inits.append(numpy_helper.from_array(w, f"w{i}"))
        inits.append(numpy_helper.from_array(np.zeros(width, np.float32), f"b{i}"))
        nodes.append(helper.make_node("MatMul", [x, f"w{i}"], [f"m{i}"]))
        nodes.append(helper.make_node("Add", [f"m{i}", f"b{i}"], [f"a{i}"]))
        nodes.append(helper.make_node("Relu", [f"a{i}"], [f"h{i}"]))
        x = f"h{i}"
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, width])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [batch, width])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)
    return sum(t.dims[0] * (t.dims[1] if len(t.dims) > 1 else 1) * 4 for t in inits)


# Runs argv[1:], passing its output through, then prints "PEAK <KiB> <seconds>". It runs in a
# small Python of its own: a child's ru_maxrss counts what it shared with its parent when
# forked, and the benchmarks hold generated weights.
MEASURE = """import resource, subprocess, sys, time
start = time.monotonic()
r = subprocess.run(sys.argv[1:], stderr=subprocess.PIPE, text=True)
if r.returncode != 0:
    sys.exit(r.stderr)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"PEAK {peak} {time.monotonic() - start:.1f}")
"""


def measured(cmd):
    """Runs `cmd`; returns its standard output, its peak resident memory in KiB and its
    seconds. Exits naming the command when it fails."""
    r = subprocess.run([sys.executable, "-c", MEASURE] + cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr}")
    lines = r.stdout.splitlines()
    _, kb, seconds = lines[-1].split()
    return "\n".join(lines[:-1]), int(kb), float(seconds)


def verbs(tilesat, model, prog):
    return {
        "print": [tilesat, "print", model],
        "opt": [tilesat, "opt", model, "--device", "wormhole_b0", "-o", prog],
        "run": [tilesat, "run", prog, "--random-inputs", "1"],
        "check": [tilesat, "check", model, "--device", "wormhole_b0"],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tilesat", default="build/tools/tilesat")
    ap.add_argument("--mb", type=int, default=512,
                    help="megabytes of f32 weights; above the 64 MiB a program holds inline "
                    "(--inline-weights-limit), whose FlatBuffers builder holds more copies")
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--check", action="store_true", help="fail when a verb is over its target")
    a = ap.parse_args()
    width = int(np.sqrt(a.mb * 2**20 / 4 / a.layers)) // 32 * 32
    with tempfile.TemporaryDirectory() as d:
        big = os.path.join(d, "big.onnx")
        small = os.path.join(d, "small.onnx")
        weight_bytes = write_mlp(big, width, a.layers)
        write_mlp(small, max(32, width // 256), a.layers)
        big_v = verbs(a.tilesat, big, os.path.join(d, "big.tsprog"))
        small_v = verbs(a.tilesat, small, os.path.join(d, "small.tsprog"))
        print(f"MLP {a.layers} x [{width}, {width}]: {weight_bytes / 2**20:.0f} MiB of f32 weights")
        print(f"{'verb':6} {'peak MiB':>9} {'base MiB':>9} {'copies':>7} {'target':>7}")
        over = []
        for verb in big_v:
            peak = measured(big_v[verb])[1]
            base = measured(small_v[verb])[1]
            copies = (peak - base) * 1024 / weight_bytes
            ok = copies <= TARGETS[verb]
            if not ok:
                over.append(verb)
            print(f"{verb:6} {peak / 1024:9.0f} {base / 1024:9.0f} {copies:7.2f} "
                  f"{TARGETS[verb]:7.2f}{'' if ok else '  OVER TARGET'}")
    if a.check and over:
        sys.exit(f"over target: {', '.join(over)}")
    print("all targets met" if not over else f"over target: {', '.join(over)}")


if __name__ == "__main__":
    main()
