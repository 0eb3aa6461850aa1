#!/usr/bin/env python3
"""Recurrent models as torch exports them (opset 14): ONNX LSTM and GRU nodes.

usage: recurrent_test.py TILESAT WORK_DIR

Models: a 2-layer LSTM with a linear head, a 2-layer GRU (torch exports linear_before_reset=1)
and a bidirectional LSTM and GRU, each at sequence 16, batch 3, input 40, hidden 128; torch's
default initialization. For each:
  1. with its weights: `tilesat opt M.onnx --device wormhole_b0 -o M.tsprog`, then
     `tilesat run M.tsprog --input input=X.npy`, compared with torch on the same input
     (normwise relative error at most 1e-5: f32 throughout);
  2. structure only (weights become arguments without data, as the zoo's models are):
     `tilesat check M.onnx --device wormhole_b0`, which draws weights at fan-in scale. The gate
     weights reach their matmuls through slices of ONNX's packed [dirs, gates x H, I] tensors;
     drawn at full scale instead, the recurrence saturates and amplifies rounding, and the
     check fails although the program is right.
Exits 77 when torch, numpy or onnx is missing, 1 on any mismatch. Run with /usr/bin/python3.
"""
import os
import sys
import warnings

from cli_run import normwise_error, run

try:
    import numpy as np
    import onnx
    import torch
    from torch import nn
except ImportError:
    print("recurrent_test.py: torch, numpy and onnx are needed "
          "(apt-get install python3-torch python3-onnx)")
    sys.exit(77)

# torch warns that an LSTM exported at one batch size may not run at another; these run at one.
warnings.filterwarnings("ignore", category=UserWarning)

# The fixtures script's structure_only: parameters become inputs without data.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
FIXTURES = __import__("make-model-fixtures")

SEQ, BATCH, INPUT, HIDDEN = 16, 3, 40, 128


class Recurrent(nn.Module):
    def __init__(self, cell, layers, bidirectional, head):
        super().__init__()
        self.rnn = cell(INPUT, HIDDEN, layers, bidirectional=bidirectional)
        width = HIDDEN * (2 if bidirectional else 1)
        self.head = nn.Linear(width, 10) if head else None

    def forward(self, x):
        y = self.rnn(x)[0]
        return self.head(y) if self.head is not None else y


MODELS = {
    "lstm2_head": lambda: Recurrent(nn.LSTM, 2, False, True),
    "gru2": lambda: Recurrent(nn.GRU, 2, False, False),
    "lstm_bidir": lambda: Recurrent(nn.LSTM, 1, True, False),
    "gru_bidir": lambda: Recurrent(nn.GRU, 1, True, False),
}


def main():
    tilesat, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    failures = 0
    for name, factory in MODELS.items():
        torch.manual_seed(len(name))
        module = factory().eval()
        x = torch.randn(SEQ, BATCH, INPUT)
        path = os.path.join(work, name + ".onnx")
        torch.onnx.export(module, (x,), path, opset_version=14, input_names=["input"],
                          output_names=["output"])
        with torch.no_grad():
            want = module(x).numpy().astype(np.float64)
        np.save(os.path.join(work, name + ".input.npy"), x.numpy())
        prog = os.path.join(work, name + ".tsprog")
        out = os.path.join(work, name + ".out")
        ok = run([tilesat, "opt", path, "--device", "wormhole_b0", "-o", prog]) is not None
        ok = ok and run([tilesat, "run", prog, "--input",
                         f"input={os.path.join(work, name + '.input.npy')}", "--output-dir",
                         out]) is not None
        if ok:
            got = np.load(os.path.join(out, "output.npy")).astype(np.float64)
            err = normwise_error(got, want)
            ok = got.shape == want.shape and err <= 1e-5
            print(f"{name}: program vs torch, shape {list(got.shape)}, normwise relative error "
                  f"{err:.3g} ({'ok' if ok else 'MISMATCH'})")
        failures += not ok
        bare = os.path.join(work, name + ".structure.onnx")
        model = onnx.load(path)
        FIXTURES.structure_only(model, set())
        onnx.save(model, bare)
        text = run([tilesat, "check", bare, "--device", "wormhole_b0"])
        ok = text is not None
        print(f"{name}: tilesat check of the structure-only model: "
              f"{text.strip().splitlines()[-1].strip() if ok else 'FAILED'}")
        failures += not ok
    print(f"{len(MODELS) * 2 - failures} of {len(MODELS) * 2} passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
