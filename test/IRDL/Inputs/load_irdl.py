"""Loads an IRDL file into a fresh context (no mlir-mesh involved) and parses mesh ops with it."""

import sys

try:
    from mlir import ir
    from mlir.dialects import irdl
except ImportError:
    from torch_mlir import ir
    from torch_mlir.dialects import irdl

with ir.Context() as ctx:
    irdl_module = ir.Module.parse(open(sys.argv[1]).read())
    irdl.load_dialects(irdl_module)
    module = ir.Module.parse(open(sys.argv[2]).read())
    print(module)
