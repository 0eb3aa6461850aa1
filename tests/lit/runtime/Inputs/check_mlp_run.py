# Checks `tilesat run` of the seed MLP program against NumPy, from the drawn inputs the run
# wrote next to its result: relu(x @ w1.T + b1) @ w2.T + b2, normwise relative error <= 1e-5.
import sys

import numpy as np

d = sys.argv[1]
x, w1, b1, w2, b2 = (np.load(f"{d}/{n}.npy").astype(np.float64) for n in ("x", "w1", "b1", "w2", "b2"))
want = np.maximum(x @ w1.T + b1, 0) @ w2.T + b2
got = np.load(f"{d}/result0.npy")
err = np.max(np.abs(got - want)) / max(1.0, np.max(np.abs(want)))
print(("OK" if err <= 1e-5 else "MISMATCH") + f": result0.npy {got.shape} {got.dtype}")
