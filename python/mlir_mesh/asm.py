"""Reading and writing mesh IR as text, in the spec's custom syntax.

``parse`` turns text (custom or generic syntax, mixed freely) into a real
MLIR module; ``print_op`` prints any op with mesh ops in the custom syntax.
Both are what mesh-opt uses, and what a Python user calls in place of
``ir.Module.parse`` and ``str(module)``.
"""

from __future__ import annotations

import re

from ._mlir import ir
from .diagnostics import Diagnostic, DiagnosticError, from_mlir, location_of
from .dialect import load
from .dialect.lexer import ParseError
from .dialect.syntax import SourceMap, line_col, public_types, to_custom, to_generic
from .dialect.verifiers import memo

_MODULE_PREFIX = "module {"
_LEADING = re.compile(r"(?:\s+|//[^\n]*|[#!][\w.$-]+\s*=[^\n]*)*")
_EXPLICIT_MODULE = re.compile(r'(?:module\b|"builtin\.module")')
_TOP_LEVEL_COUNT = re.compile(r"source must contain a single top-level operation")


class ParsedModule:
    """A parsed module together with the map from its locations to the source."""

    def __init__(self, module: ir.Operation, smap: SourceMap, source_name: str):
        self.module = module
        self.smap = smap
        self.source_name = source_name

    def remap(self, file: str, line: int, col: int) -> tuple[int, int]:
        if file != self.source_name:
            return line, col
        return self.smap.to_source(line, col)


def parse_with_map(text: str, source_name: str = "-", context: ir.Context | None = None) -> ParsedModule:
    """Parses and verifies ``text`` into a ``builtin.module``.

    Like mlir-opt, several top-level ops (or one that is not a module) are
    wrapped in an implicit module.  Raises DiagnosticError with located
    diagnostics on a syntax or verification error.
    """
    ctx = load(context or ir.Context.current)
    try:
        generic, smap = to_generic(text)
    except ParseError as e:
        line, col = line_col(text, e.pos)
        raise DiagnosticError([Diagnostic("error", e.message, source_name, line, col)]) from None
    start = _LEADING.match(generic).end()
    explicit = _EXPLICIT_MODULE.match(generic, start) is not None
    if explicit:
        try:
            with memo():
                op = ir.Operation.parse(generic, source_name=source_name, context=ctx)
            return ParsedModule(op, smap, source_name)
        except ir.MLIRError as e:
            if not any(_TOP_LEVEL_COUNT.search(d.message) for d in e.error_diagnostics):
                raise _diagnostic_error(e, smap, source_name) from None
    wrapped = _MODULE_PREFIX + generic + "\n}"
    shifted = _Shifted(smap, len(_MODULE_PREFIX))
    try:
        with memo():
            op = ir.Operation.parse(wrapped, source_name=source_name, context=ctx)
    except ir.MLIRError as e:
        raise _diagnostic_error(e, shifted, source_name) from None
    if "mesh.sharding =" in generic:
        _check_function_shardings(op, shifted, source_name)
    return ParsedModule(op, shifted, source_name)


def _check_function_shardings(op: ir.Operation, smap, source_name: str) -> None:
    from .sharding import function_sharding_errors

    diags = []
    for loc, message in function_sharding_errors(op):
        file, line, col = location_of(loc)
        if line and file == source_name:
            line, col = smap.to_source(line, col)
        diags.append(Diagnostic("error", message, file, line, col))
    if diags:
        raise DiagnosticError(diags)


class _Shifted:
    """A source map for text parsed behind the implicit-module prefix on line 1."""

    def __init__(self, smap: SourceMap, shift: int):
        self.smap = smap
        self.shift = shift

    def to_source(self, line: int, col: int) -> tuple[int, int]:
        if line == 1:
            col = max(1, col - self.shift)
        return self.smap.to_source(line, col)


def _diagnostic_error(e: ir.MLIRError, smap, source_name: str) -> DiagnosticError:
    def remap(file, line, col):
        return smap.to_source(line, col) if file == source_name else (line, col)

    diags = [from_mlir(d, remap) for d in e.error_diagnostics]
    for d in diags:
        _public(d)
    if not diags:
        diags = [Diagnostic("error", str(e), source_name)]
    return DiagnosticError(diags)


def _public(d: Diagnostic) -> None:
    d.message = public_types(to_custom(d.message)) if "mesh." in d.message else d.message
    for n in d.notes:
        _public(n)


def parse(text: str, context: ir.Context | None = None, source_name: str = "-") -> ir.Operation:
    """Parses mesh IR (custom or generic syntax) into a verified ``builtin.module`` op."""
    return parse_with_map(text, source_name, context).module


def print_op(
    op: ir.Operation | ir.OpView | ir.Module,
    *,
    generic: bool = False,
    debug_info: bool = False,
    assume_verified: bool = False,
) -> str:
    """The text of ``op`` with every mesh op in the spec's custom syntax.

    ``generic=True`` prints every op in the generic form instead (what
    ``--mlir-print-op-generic`` does); the sharding type is spelled
    ``!mesh.sharding`` either way, so the output parses again.
    """
    if isinstance(op, ir.Module):
        op = op.operation
    with memo():  # printing verifies first, unless told not to
        text = op.operation.get_asm(
            print_generic_op_form=generic,
            enable_debug_info=debug_info,
            assume_verified=assume_verified,
        )
    if generic:
        return public_types(text)
    return to_custom(text)
