"""Running the tilesat CLI from the model tests (deploy_test.py, spectrogram_test.py,
qoperator_test.py): each script's directory is on sys.path, so `from cli_run import run`."""
import subprocess


def run(cmd):
    """stdout of `cmd`, or None (with its command line and output printed) when it fails."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"FAILED: {' '.join(cmd)}\n{p.stdout}{p.stderr}")
        return None
    return p.stdout
