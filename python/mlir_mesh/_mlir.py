"""The one place that imports the MLIR Python bindings.

The official LLVM-built ``mlir`` package is preferred when it is importable;
otherwise the complete upstream bindings shipped in the ``torch-mlir`` wheel
are used.  Everything else in mlir-mesh imports ``ir``, ``passmanager``,
``rewrite``, ``ext``, ``irdl`` and the dialect modules from here.  Dialect
modules other than ``ext`` and ``irdl`` (``func``, ``linalg``, ``tosa``,
...) are imported on first use: some of them are slow to import.
"""

import functools
import importlib

try:  # pragma: no cover - depends on what the user has installed
    from mlir import dialects, ir, passmanager, rewrite
    from mlir.dialects import ext, irdl

    BINDINGS = "mlir"
except ImportError:
    from torch_mlir import dialects, ir, passmanager, rewrite
    from torch_mlir.dialects import ext, irdl

    BINDINGS = "torch_mlir"


def _libs_module(name: str):
    base = dialects.__name__.rsplit(".", 1)[0]
    try:
        return importlib.import_module(f"{base}._mlir_libs.{name}")
    except ImportError:
        return None


@functools.cache
def _linalg_ext():
    """The linalg C extension (``get_indexing_maps``, ...)."""
    return _libs_module("_mlirDialectsLinalg")


@functools.cache
def stablehlo_ext():
    """The stablehlo C extension of the bindings, or None if they lack it."""
    module = _libs_module("_stablehlo")
    if module is None:
        from importlib import import_module

        try:  # the official mlir package has no stablehlo; torch-mlir does
            module = import_module("torch_mlir._mlir_libs._stablehlo")
        except ImportError:
            module = None
    return module


def __getattr__(name: str):
    """``from mlir_mesh._mlir import linalg`` imports the dialect module lazily."""
    if name.startswith("__"):  # __path__, __file__, ...: asked by the import system
        raise AttributeError(name)
    try:
        module = importlib.import_module(f"{dialects.__name__}.{name}")
    except ImportError:
        raise AttributeError(name) from None
    globals()[name] = module
    return module


__all__ = ["BINDINGS", "dialects", "ext", "ir", "irdl", "passmanager", "rewrite", "stablehlo_ext"]
