"""mesh-opt: mlir-opt for the mesh dialect.

Reads a ``.mlir`` file (mesh ops in the spec's syntax or generic form),
runs a pipeline that mixes mesh passes (Python) and upstream MLIR passes
(C++), and prints the result with mesh ops in the spec's syntax.

Bad input is reported as ``file:line:col: error: message`` with the source
line, the exit code is 1 and the ``-o`` file is left untouched.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field

from . import __version__
from ._mlir import BINDINGS, ir, passmanager
from .asm import ParsedModule, parse_with_map, print_op
from .diagnostics import Diagnostic, DiagnosticError, from_mlir, pop_sink, push_sink
from .dialect import irdl_text, load, mesh_defs
from .analysis import comm_report
from .analysis.layout import draw_layout, layout_png, module_layouts
from .passes import PASSES, PassInfo

SPLIT_MARKER = "// -----"


class UsageError(Exception):
    """A command-line mistake: reported as ``mesh-opt: error: ...``, exit code 1."""


# ------------------------------------------------------------------ pipeline


@dataclass
class Step:
    """One pass of the pipeline: a mesh pass or one upstream pipeline element."""

    name: str
    text: str
    mesh: PassInfo | None = None
    options: dict = field(default_factory=dict)

    def pass_manager(self, ctx: ir.Context) -> passmanager.PassManager:
        if self.mesh is not None:
            pm = passmanager.PassManager("builtin.module", context=ctx)
            pm.add(self.mesh.callback(**self.options), name=self.name)
            return pm
        return passmanager.PassManager.parse(f"builtin.module({self.text})", context=ctx)


def split_elements(text: str) -> list[str]:
    """Splits a pipeline at top-level commas (outside ``()`` and ``{}``)."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "({":
            depth += 1
        elif c in ")}":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


_ELEMENT = re.compile(r"([\w.\-]+)\s*(?:\{(.*)\})?\s*(\(.*\))?\Z", re.S)


def make_step(element: str, ctx: ir.Context) -> Step:
    """A Step for one pipeline element; raises UsageError if it names no pass."""
    m = _ELEMENT.match(element)
    if not m:
        raise UsageError(f"invalid pass pipeline element '{element}'")
    name, options, nested = m.group(1), m.group(2) or "", m.group(3)
    if name in PASSES and not nested:
        try:
            return Step(name, element, PASSES[name], PASSES[name].parse_options(options))
        except ValueError as e:
            raise UsageError(str(e)) from None
    step = Step(name, element)
    try:
        step.pass_manager(ctx)
    except ValueError as e:
        message = str(e).splitlines()[0]
        message = message.split("error: ", 1)[-1]
        raise UsageError(f"'{element}': {message}") from None
    return step


def parse_pipeline(text: str, ctx: ir.Context) -> list[Step]:
    """The steps of ``builtin.module(a, b{opt=1}, func.func(c))`` (the anchor is optional)."""
    text = text.strip()
    m = re.match(r"builtin\.module\s*\((.*)\)\Z", text, re.S)
    if m:
        text = m.group(1)
    return [make_step(e, ctx) for e in split_elements(text)]


# ------------------------------------------------------------------ diagnostics


class Collector:
    """Gathers every diagnostic MLIR emits while it is attached."""

    def __init__(self, ctx: ir.Context):
        self.diagnostics: list = []
        self.handle = ctx.attach_diagnostic_handler(self._on)
        push_sink(self.diagnostics.append)

    def _on(self, d) -> bool:
        self.diagnostics.append(from_mlir(d))
        return True

    def detach(self) -> None:
        self.handle.detach()
        pop_sink(self.diagnostics.append)


_EXPECTED = re.compile(
    r"expected-(error|warning|note|remark)\s*(?:@(above|below|unknown|[+-]\d+))?\s*\{\{(.*?)\}\}"
)


@dataclass
class Expectation:
    severity: str
    line: int
    message: str
    where: int
    seen: bool = False


def expectations(text: str, first_line: int) -> list[Expectation]:
    """The ``expected-*`` comments of a chunk; ``first_line`` is its first line in the file."""
    out = []
    lines = text.split("\n")
    for i, row in enumerate(lines):
        if "expected-" not in row or "//" not in row:
            continue
        for m in _EXPECTED.finditer(row):
            line = first_line + i
            target = line
            designator = m.group(2)
            if designator == "above":
                target = line - 1
            elif designator == "below":
                target = line + 1
            elif designator == "unknown":
                target = 0
            elif designator:
                target = line + int(designator)
            out.append(Expectation(m.group(1), target, m.group(3), line))
    return out


def check_expectations(expected: list[Expectation], produced: list[Diagnostic], file: str) -> list[str]:
    """Matches diagnostics to expectations; returns the mismatch messages."""
    problems = []
    flat = []
    for d in produced:
        flat.append(d)
        flat.extend(d.notes)
    for d in flat:
        match = next(
            (
                e
                for e in expected
                if not e.seen and e.severity == d.severity and e.line == (d.line if d.file == file or not d.file else 0)
                and e.message in d.message
            ),
            None,
        )
        if match is None:
            if d.severity == "note" and d not in produced:
                continue  # unexpected notes attached to an expected diagnostic are fine
            where = f"{d.file}:{d.line}:{d.col}: " if d.line else ""
            problems.append(f"{where}error: unexpected {d.severity}: {d.message}")
        else:
            match.seen = True
    for e in expected:
        if not e.seen:
            problems.append(f'{file}:{e.where}: error: expected {e.severity} "{e.message}" was not produced')
    return problems


# ------------------------------------------------------------------ processing


@dataclass
class Options:
    generic: bool = False
    debug_info: bool = False
    print_after_all: bool = False
    verify_diagnostics: bool = False
    timing: bool = False
    comm_report: str | None = None  # "table" or "json": print the report instead of the module
    draw_shardings: bool = False  # print sharding pictures instead of the module
    draw_png: str | None = None  # and write them as PNGs into this directory


class Timer:
    def __init__(self):
        self.entries: list[tuple[str, float]] = []

    def add(self, name: str, seconds: float) -> None:
        self.entries.append((name, seconds))

    def report(self) -> str:
        total = sum(s for _, s in self.entries) or 1e-12
        rule = "===" + "-" * 73 + "==="
        lines = [
            rule,
            "                         ... Execution time report ...",
            rule,
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for name, s in self.entries:
            lines.append(f"  {s:8.4f} ({100 * s / total:5.1f}%)  {name}")
        lines.append(f"  {total:8.4f} (100.0%)  Total")
        return "\n".join(lines) + "\n"


def process_chunk(
    chunk: str,
    source_name: str,
    steps: list[Step],
    ctx: ir.Context,
    opts: Options,
    timer: Timer | None,
    err,
) -> tuple[str | None, list[Diagnostic]]:
    """Parses, transforms and prints one chunk; returns (text or None, diagnostics)."""
    collector = Collector(ctx)
    parsed: ParsedModule | None = None
    try:
        t0 = time.perf_counter()
        try:
            parsed = parse_with_map(chunk, source_name, ctx)
        except DiagnosticError as e:
            return None, collector_diags(collector, None) + e.diagnostics
        if timer:
            timer.add("Parser", time.perf_counter() - t0)
        module = parsed.module
        for step in steps:
            t0 = time.perf_counter()
            pm = step.pass_manager(ctx)
            try:
                pm.run(module)
            except ir.MLIRError as e:
                diags = [from_mlir(d) for d in e.error_diagnostics]
                if not diags:
                    diags = [Diagnostic("error", f"pass '{step.name}' failed", source_name)]
                return None, collector_diags(collector, parsed) + remap_diagnostics(diags, parsed)
            if timer:
                timer.add(step.name, time.perf_counter() - t0)
            if opts.print_after_all:
                err.write(f"// -----// IR Dump After {step.name} //----- //\n")
                err.write(print_op(module, generic=opts.generic, assume_verified=True) + "\n")
        t0 = time.perf_counter()
        remap = parsed.remap
        if opts.comm_report:
            report = comm_report(module, remap=remap)
            text = report.to_json() if opts.comm_report == "json" else report.to_table()
        elif opts.draw_shardings or opts.draw_png:
            text = draw_module(module, remap, opts.draw_png)
        else:
            text = print_op(module, generic=opts.generic, debug_info=opts.debug_info, assume_verified=True)
        if timer:
            timer.add("Output", time.perf_counter() - t0)
        return text, collector_diags(collector, parsed)
    finally:
        collector.detach()


def draw_module(module, remap, png_dir: str | None) -> str:
    """The sharding pictures of a module's tensors; with ``png_dir``, one PNG each written there."""
    pictures = []
    for n, (label, shape, sharding, mesh) in enumerate(module_layouts(module, remap)):
        text = f"// {label}\n" + draw_layout(shape, sharding, mesh)
        if png_dir:
            os.makedirs(png_dir, exist_ok=True)
            path = os.path.join(png_dir, f"sharding-{n}.png")
            layout_png(path, shape, sharding, mesh)
            text += f"(PNG: {path})\n"
        pictures.append(text)
    return "\n".join(pictures)


def remap_diagnostics(diags: list[Diagnostic], parsed: ParsedModule | None) -> list[Diagnostic]:
    """Moves the diagnostics that point into the parsed text back to the user's line and column."""
    if parsed is None:
        return diags
    for d in diags:
        for x in [d, *d.notes]:
            if x.line and x.file == parsed.source_name:
                x.line, x.col = parsed.remap(x.file, x.line, x.col)
    return diags


def collector_diags(collector: Collector, parsed: ParsedModule | None) -> list[Diagnostic]:
    diags = list(collector.diagnostics)
    collector.diagnostics.clear()
    return remap_diagnostics(diags, parsed)


def split_chunks(text: str, marker: str) -> list[tuple[int, str]]:
    """Splits at lines holding only ``marker``; each chunk with its first line number."""
    chunks = []
    line, start = 1, 0
    pattern = re.compile(r"^[ \t]*" + re.escape(marker) + r"[ \t]*$\n?", re.M)
    for m in pattern.finditer(text):
        chunks.append((line, text[start : m.start()]))
        line += text.count("\n", start, m.end())
        start = m.end()
    chunks.append((line, text[start:]))
    return chunks


def run(args: argparse.Namespace, steps_text: list[str], out, err) -> int:
    """Runs mesh-opt on parsed arguments; returns the exit code."""
    ctx = load(ir.Context())
    if args.allow_unregistered_dialect:
        ctx.allow_unregistered_dialects = True
    try:
        steps = []
        if args.pass_pipeline:
            steps += parse_pipeline(args.pass_pipeline, ctx)
        for element in steps_text:
            steps.append(make_step(element, ctx))
    except UsageError as e:
        err.write(f"mesh-opt: error: {e}\n")
        return 1

    source_name = args.input
    try:
        if args.input == "-":
            text = sys.stdin.read()
            source_name = "<stdin>"
        else:
            with open(args.input, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        err.write(f"mesh-opt: error: could not open input file '{args.input}': {e.strerror}\n")
        return 1

    opts = Options(
        generic=args.mlir_print_op_generic,
        debug_info=args.mlir_print_debuginfo,
        print_after_all=args.mlir_print_ir_after_all,
        verify_diagnostics=args.verify_diagnostics,
        timing=args.mlir_timing,
        comm_report=args.mesh_comm_report,
        draw_shardings=args.mesh_draw_shardings,
        draw_png=args.mesh_draw_png,
    )
    timer = Timer() if opts.timing else None
    chunks = split_chunks(text, args.split_input_file) if args.split_input_file else [(1, text)]
    outputs: list[str] = []
    failed = False
    sources = {source_name: text}
    for first_line, chunk in chunks:
        padded = "\n" * (first_line - 1) + chunk  # keeps the file's line numbers
        result, diags = process_chunk(padded, source_name, steps, ctx, opts, timer, err)
        if opts.verify_diagnostics:
            problems = check_expectations(expectations(chunk, first_line), diags, source_name)
            for p in problems:
                err.write(p + "\n")
            failed |= bool(problems)
        else:
            for d in diags:
                err.write(d.render(sources))
            if result is None or any(d.severity == "error" for d in diags):
                failed = True
        if result is not None:
            outputs.append(result)
    if timer:
        err.write(timer.report())
    text = f"\n{SPLIT_MARKER}\n".join(o.rstrip("\n") for o in outputs) + "\n" if outputs else ""
    if failed:
        # Like mlir-opt, what did succeed is shown; but a file is never half-written.
        if outputs and (not args.output or args.output == "-"):
            out.write(text)
        return 1
    return write_output(args.output, text, out, err)


def write_output(path: str | None, text: str, out, err) -> int:
    """Writes ``text`` to ``path`` atomically (or to ``out``); returns the exit code."""
    if not path or path == "-":
        out.write(text)
        return 0
    if os.path.exists(path) and not os.path.isfile(path):  # /dev/null, a pipe, ...
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            return 0
        except OSError as e:
            err.write(f"mesh-opt: error: cannot write '{path}': {e.strerror}\n")
            return 1
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".mesh-opt-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        err.write(f"mesh-opt: error: cannot write '{path}': {e.strerror}\n")
        return 1
    return 0


# ------------------------------------------------------------------ command line


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mesh-opt",
        description="mlir-opt for the mesh sharding dialect: parse, transform and print MLIR.",
        allow_abbrev=False,
    )
    p.add_argument("input", nargs="?", default="-", help="input .mlir file ('-' or nothing for stdin)")
    p.add_argument("-o", dest="output", metavar="FILE", help="output file (default: stdout)")
    p.add_argument("--pass-pipeline", metavar="PIPELINE", help='e.g. "builtin.module(canonicalize, cse)"')
    p.add_argument(
        "--split-input-file",
        nargs="?",
        const=SPLIT_MARKER,
        metavar="MARKER",
        help=f"process each chunk between '{SPLIT_MARKER}' lines on its own",
    )
    p.add_argument("--verify-diagnostics", action="store_true", help="check expected-error/-warning/-note/-remark comments")
    p.add_argument("--mlir-print-op-generic", action="store_true", help="print every op in the generic form")
    p.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    p.add_argument("--mlir-print-ir-after-all", action="store_true", help="print the IR after every pass (stderr)")
    p.add_argument("--mlir-timing", action="store_true", help="print a time report (stderr)")
    p.add_argument("--allow-unregistered-dialect", action="store_true", help="accept ops of unknown dialects")
    p.add_argument(
        "--mesh-comm-report", nargs="?", const="table", choices=("table", "json"), metavar="table|json",
        help="after the passes, print the bytes each device sends and receives per collective (ring model) "
        "instead of the module",
    )
    p.add_argument(
        "--mesh-draw-shardings", action="store_true",
        help="after the passes, print how each sharded tensor (function arguments and results, mesh.shard "
        "values) lies on its mesh, instead of the module",
    )
    p.add_argument("--mesh-draw-png", metavar="DIR", help="also write those pictures as PNG files into DIR")
    p.add_argument("--list-passes", action="store_true", help="list the mesh passes and exit")
    p.add_argument("--list-ops", action="store_true", help="list the mesh ops with an example each and exit")
    p.add_argument("--emit-irdl", action="store_true", help="print the mesh dialect as IRDL and exit")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    for info in PASSES.values():
        p.add_argument(
            f"--{info.name}",
            dest=f"pass:{info.name}",
            nargs="?",
            const="",
            default=None,
            metavar="OPTIONS",
            help=info.description,
        )
    return p


def list_passes() -> str:
    lines = ["mesh passes (flags, and names in --pass-pipeline):"]
    for info in PASSES.values():
        lines.append(f"  --{info.name}: {info.description}")
        for key, (kind, default, doc) in info.options.items():
            lines.append(f"      {key}={default!s:<12} {doc}")
    lines.append("upstream MLIR passes are accepted by name too (canonicalize, cse, ...).")
    return "\n".join(lines) + "\n"


def list_ops() -> str:
    lines = []
    for op in mesh_defs().ops.values():
        lines.append(f"{op.full_name:28} {op.summary}")
        if op.example:
            lines.append(f"    {op.example}")
    return "\n".join(lines) + "\n"


def _attached_values(argv: list[str]) -> list[str]:
    """Like mlir-opt, a flag's optional value is attached with ``=``, never the next argument.

    argparse would read ``--split-input-file input.mlir`` as a marker and
    ``--some-pass input.mlir`` as pass options; spell the bare flags with
    their default value so the file name stays the input.
    """
    out = []
    for arg in argv:
        if arg == "--split-input-file":
            arg = f"{arg}={SPLIT_MARKER}"
        elif arg == "--mesh-comm-report":
            arg = f"{arg}=table"
        elif arg.startswith("--") and arg[2:] in PASSES:
            arg = f"{arg}="
        out.append(arg)
    return out


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``mesh-opt`` console script; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    out, err = sys.stdout, sys.stderr
    parser = build_parser()
    args, unknown = parser.parse_known_args(_attached_values(argv))
    if args.version:
        out.write(f"mesh-opt (mlir-mesh {__version__}), MLIR bindings from {BINDINGS}\n")
        return 0
    if args.list_passes:
        out.write(list_passes())
        return 0
    if args.list_ops:
        out.write(list_ops())
        return 0
    if args.emit_irdl:
        out.write(irdl_text() + "\n")
        return 0
    # Pass flags, in command-line order: mesh passes, and upstream passes by name.
    for arg in unknown:
        if not arg.startswith("--") or len(arg) == 2:
            err.write(f"mesh-opt: error: unknown command line argument '{arg}'\n")
            return 1
    unknown_flags = set(unknown)
    steps: list[str] = []
    for arg in argv:
        name, eq, value = arg[2:].partition("=")
        if arg.startswith("--") and (name in PASSES or arg in unknown_flags):
            steps.append(f"{name}{{{value}}}" if value else name)
    try:
        return run(args, steps, out, err)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
