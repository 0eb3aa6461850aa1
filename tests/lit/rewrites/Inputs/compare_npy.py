# Compares two .npy files elementwise with a relative tolerance; prints the verdict.
import sys

import numpy as np

a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
tol = 1e-5
if a.shape != b.shape:
    print(f"different shapes {a.shape} and {b.shape}")
    sys.exit(1)
worst = float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(a)))) if a.size else 0.0
print(f"same within {tol}" if worst <= tol else f"differ: worst relative error {worst}")
sys.exit(0 if worst <= tol else 1)
