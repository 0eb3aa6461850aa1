# lit configuration of tilesat's golden text tests (loaded by the generated lit.site.cfg.py).
import os

import lit.formats

config.name = "tilesat"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilesat_obj_root, "tests", "lit")

# FileCheck, not and count live in LLVM's tool directory (only FileCheck-14 is on PATH).
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])

# `sanitizer`: tilesat was built with -DTILESAT_SANITIZE; whole-model runs, minutes long
# there, are marked `UNSUPPORTED: sanitizer` (they run in the Release build).
if config.tilesat_sanitize:
    config.available_features.add("sanitizer")

config.substitutions.append(("%tilesat", config.tilesat_exe))
config.substitutions.append(("%python", config.python_exe))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
