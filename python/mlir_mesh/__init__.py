"""mlir-mesh: the mesh sharding dialect and its passes on real MLIR modules."""

from __future__ import annotations

from ._mlir import ir
from .dialect import OP_CLASSES, ShardingType, load
from .asm import parse, print_op

__version__ = "0.1.0"


def Context() -> ir.Context:
    """A new MLIR context with the mesh dialect loaded (upstream dialects included)."""
    return load(ir.Context())


__all__ = ["Context", "OP_CLASSES", "ShardingType", "load", "parse", "print_op", "ir"]
