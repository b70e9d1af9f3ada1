"""The one place that imports the MLIR Python bindings.

The official LLVM-built ``mlir`` package is preferred when it is importable;
otherwise the complete upstream bindings shipped in the ``torch-mlir`` wheel
are used.  Everything else in mlir-mesh imports ``ir``, ``passmanager``,
``rewrite`` and the dialect modules from here.
"""

try:  # pragma: no cover - depends on what the user has installed
    from mlir import ir, passmanager, rewrite
    from mlir import dialects
    from mlir.dialects import arith, ext, func, irdl, linalg, tensor, tosa

    BINDINGS = "mlir"
except ImportError:
    from torch_mlir import ir, passmanager, rewrite
    from torch_mlir import dialects
    from torch_mlir.dialects import arith, ext, func, irdl, linalg, tensor, tosa

    BINDINGS = "torch_mlir"

__all__ = [
    "BINDINGS",
    "arith",
    "dialects",
    "ext",
    "func",
    "ir",
    "irdl",
    "linalg",
    "passmanager",
    "rewrite",
    "tensor",
    "tosa",
]
