"""Running the tilesat CLI from the model tests (deploy_test.py, spectrogram_test.py,
qoperator_test.py) and comparing their results: each script's directory is on sys.path, so
`from cli_run import run`."""
import subprocess


def run(cmd):
    """stdout of `cmd`, or None (with its command line and output printed) when it fails."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"FAILED: {' '.join(cmd)}\n{p.stdout}{p.stderr}")
        return None
    return p.stdout


def normwise_error(got, want):
    """||got - want|| / ||want|| (want's norm floored at 1e-30)."""
    import numpy as np
    return np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)
