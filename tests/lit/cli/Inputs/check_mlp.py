"""Checks `tilesat eval` of seed 000's MLP against NumPy: relu(x @ w1.T + b1) @ w2.T + b2.

Usage: check_mlp.py DIR  (DIR holds arg0..arg4.npy drawn by --random-inputs and result0.npy)
"""
import os
import sys

import numpy as np


def main(out_dir):
    x, w1, b1, w2, b2 = (np.load(os.path.join(out_dir, f"arg{i}.npy")).astype(np.float64)
                         for i in range(5))
    result = np.load(os.path.join(out_dir, "result0.npy"))
    expected = np.maximum(x @ w1.T + b1, 0.0) @ w2.T + b2
    if result.shape != (32, 10) or result.dtype != np.float32:
        sys.exit(f"result0.npy: expected float32 (32, 10), got {result.dtype} {result.shape}")
    err = np.max(np.abs(result - expected) / (np.abs(expected) + 1e-3))
    if err > 1e-5:
        sys.exit(f"result0.npy differs from NumPy: max relative error {err:.3g} > 1e-5")
    print(f"OK: result0.npy {result.shape} matches NumPy (max relative error {err:.3g})")


if __name__ == "__main__":
    main(sys.argv[1])
