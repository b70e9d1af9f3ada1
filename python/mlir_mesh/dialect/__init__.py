"""The ``mesh`` dialect: definition, registration, syntax and verifiers."""

from __future__ import annotations

from .._mlir import ext, ir, stablehlo_ext
from .defs import DialectDef, OpDef, mesh_defs
from .ops import OP_CLASSES, AxisArrayAttr, MeshDialect, PartialAttr, ShardingType
from .ops import *  # noqa: F401,F403  (one class per op: AllGatherOp, ...)
from .syntax import to_custom, to_generic


def load(context: ir.Context | None = None) -> ir.Context:
    """Makes ``context`` (or the current one) ready for mesh IR; returns it.

    Registers the mesh dialect through IRDL unless it is already loaded,
    and the stablehlo dialect when the bindings ship it.  The upstream
    dialects of the bindings stay available.
    """
    ctx = context or ir.Context.current
    if ctx is None:
        raise RuntimeError("no MLIR context: pass one or enter one with `with ctx:`")
    _register_search_prefix()
    if not ctx.is_dialect_loaded(MeshDialect.DIALECT_NAMESPACE):
        with ctx, ir.Location.unknown():
            MeshDialect.load()
        stablehlo = stablehlo_ext()
        if stablehlo is not None:
            stablehlo.register_dialect(ctx)
    return ctx


_PREFIX_REGISTERED = False


def _register_search_prefix() -> None:
    """Lets the bindings find ``mlir_mesh.dialect.mesh`` as the mesh dialect's module."""
    global _PREFIX_REGISTERED
    if not _PREFIX_REGISTERED:
        ext._cext.globals.append_dialect_search_prefix(__name__)
        _PREFIX_REGISTERED = True


def irdl_text() -> str:
    """The dialect as IRDL: a module that ``irdl.load_dialects`` accepts."""
    with ir.Context(), ir.Location.unknown():
        return str(MeshDialect._emit_module())


__all__ = [
    "AxisArrayAttr",
    "DialectDef",
    "MeshDialect",
    "OP_CLASSES",
    "OpDef",
    "PartialAttr",
    "ShardingType",
    "irdl_text",
    "load",
    "mesh_defs",
    "to_custom",
    "to_generic",
] + [cls.__name__ for cls in OP_CLASSES.values()]
