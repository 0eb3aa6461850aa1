#!/usr/bin/env python3
"""A language model at real size: the Llama-shaped LM of tests/models/deploy_test.py at
TinyLlama-1.1B's dimensions (22 layers, width 2048, 32 query and 4 key/value heads, SwiGLU
width 5632, 32000-token vocabulary; random weights, 4.4 GB in f32), exported by torch with its
weights as external data, then

  tilesat opt llm.onnx --device wormhole_b0 -o llm.tsprog
  tilesat run llm.tsprog --input ids=IDS.npy --output-dir OUT

each timed with its peak resident memory (weights_memory.measured), and the logits compared with
torch's (normwise relative error, and how many next tokens agree). Needs Debian's
python3-torch and about 14 GB of memory (torch's export takes 9 GB); --layers and --seq make
it smaller.

  /usr/bin/python3 bench/models/llm_scale.py --tilesat build/tools/tilesat --work /tmp/llm
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "models"))
from cli_run import normwise_error  # noqa: E402
from deploy_test import LlamaLm  # noqa: E402
from weights_memory import measured  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402


def timed(cmd):
    out, kb, seconds = measured(cmd)
    return out.strip(), seconds, kb / 2**20


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tilesat", default="build/tools/tilesat")
    ap.add_argument("--work", default="/tmp/llm_scale")
    ap.add_argument("--layers", type=int, default=22)
    ap.add_argument("--seq", type=int, default=128)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    torch.manual_seed(0)
    model = LlamaLm(vocab=32000, dim=2048, layers=a.layers, heads=32, kv_heads=4, hidden=5632,
                    seq=a.seq).eval()
    params = sum(p.numel() for p in model.parameters())
    ids = torch.randint(0, 32000, (1, a.seq))
    path = os.path.join(a.work, "llm.onnx")
    with torch.no_grad():
        want = model(ids).numpy().astype(np.float64)
        torch.onnx.export(model, (ids,), path, input_names=["ids"], output_names=["logits"],
                          opset_version=17)
    del model
    np.save(os.path.join(a.work, "ids.npy"), ids.numpy())
    print(f"Llama-shaped LM: {a.layers} layers, {params / 1e9:.2f} B parameters "
          f"({params * 4 / 2**30:.1f} GiB f32), {a.seq} tokens")
    prog = os.path.join(a.work, "llm.tsprog")
    said, s, gb = timed([a.tilesat, "opt", path, "--device", "wormhole_b0", "-o", prog])
    print(f"opt: {s:.1f} s, peak {gb:.1f} GiB: {said}")
    out = os.path.join(a.work, "out")
    said, s, gb = timed([a.tilesat, "run", prog, "--input",
                         "ids=" + os.path.join(a.work, "ids.npy"), "--output-dir", out])
    print(f"run: {s:.1f} s, peak {gb:.1f} GiB: {said.splitlines()[0]}")
    got = np.load(os.path.join(out, "logits.npy")).astype(np.float64)
    agree = (got.argmax(-1) == want.argmax(-1)).mean()
    print(f"logits: normwise relative error {normwise_error(got, want):.2e}; next tokens agree "
          f"at {agree * 100:.1f}% of positions")


if __name__ == "__main__":
    main()
