"""Diagnostics in MLIR's style, located in the user's source text."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from typing import Callable

from ._mlir import ir

_SEVERITY = {
    ir.DiagnosticSeverity.ERROR: "error",
    ir.DiagnosticSeverity.WARNING: "warning",
    ir.DiagnosticSeverity.NOTE: "note",
    ir.DiagnosticSeverity.REMARK: "remark",
}

_FILE_LINE_COL = re.compile(r'^loc\("((?:[^"\\]|\\.)*)":(\d+):(\d+)')


@dataclass
class Diagnostic:
    """One diagnostic: severity, where (file, 1-based line and column) and what."""

    severity: str
    message: str
    file: str = ""
    line: int = 0
    col: int = 0
    notes: list["Diagnostic"] = field(default_factory=list)

    def render(self, sources: dict[str, str] | None = None) -> str:
        """``file:line:col: error: message``, then the source line and a caret."""
        where = f"{self.file}:{self.line}:{self.col}: " if self.line else (f"{self.file}: " if self.file else "")
        text = f"{where}{self.severity}: {self.message}\n"
        source = (sources or {}).get(self.file)
        if source is not None and self.line:
            lines = source.split("\n")
            if self.line <= len(lines):
                row = lines[self.line - 1]
                caret_col = len(row.encode()[: self.col - 1].decode(errors="ignore"))
                text += row + "\n" + " " * caret_col + "^\n"
        for note in self.notes:
            text += note.render(sources)
        return text


class DiagnosticError(Exception):
    """Raised with the diagnostics of input that could not be parsed or verified."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("\n".join(d.render().rstrip() for d in diagnostics))
        self.diagnostics = diagnostics


def location_of(loc: ir.Location) -> tuple[str, int, int]:
    """The file, line and column of a location (0, 0 when it has none)."""
    try:
        flc = ir.FileLineColLoc(loc)
        return flc.filename, flc.start_line, flc.start_col
    except (ValueError, TypeError, AttributeError):
        pass
    m = _FILE_LINE_COL.match(str(loc))
    if m:
        return m.group(1), int(m.group(2)), int(m.group(3))
    return "", 0, 0


def from_mlir(d, remap=None) -> Diagnostic:
    """Converts a diagnostic of the bindings; ``remap(line, col)`` moves its location."""
    file, line, col = location_of(d.location)
    if remap is not None and line:
        line, col = remap(file, line, col)
    severity = _SEVERITY.get(d.severity, "error")
    return Diagnostic(
        severity, d.message, file, line, col, [from_mlir(n, remap) for n in d.notes]
    )


# The bindings can only emit errors (``Location.emit_error``).  Warnings and
# remarks of mlir-mesh passes go through this channel instead: to the
# innermost registered sink (mesh-opt registers one, so --verify-diagnostics
# sees them) or, like MLIR's default handler, to stderr.
_SINKS: list[Callable[[Diagnostic], None]] = []


def emit(severity: str, loc: ir.Location, message: str) -> None:
    """Reports a diagnostic of ``severity`` ("error", "warning", "remark") at ``loc``."""
    if severity == "error":
        loc.emit_error(message)
        return
    d = Diagnostic(severity, message, *location_of(loc))
    if _SINKS:
        _SINKS[-1](d)
    else:
        sys.stderr.write(d.render())


def push_sink(sink: Callable[[Diagnostic], None]) -> None:
    _SINKS.append(sink)


def pop_sink(sink: Callable[[Diagnostic], None]) -> None:
    if sink in _SINKS:
        _SINKS.remove(sink)
