# The lit suite of mlir-mesh: `lit test/` runs it.
import os
import sys

import lit.formats

config.name = "mlir-mesh"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)

# The tools come from the environment lit runs in (the project's venv).
bindir = os.path.dirname(sys.executable)
config.environment["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%examples", os.path.join(config.test_source_root, "examples")))  # shipped examples
# PyPI's filecheck is installed as `filecheck`; tests may spell it as LLVM does.
config.substitutions.append((r"\bFileCheck\b", "filecheck"))
