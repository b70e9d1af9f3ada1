"""The custom-syntax front end and printer of the mesh dialect.

IRDL-defined ops only have MLIR's generic form, so the spec's syntax is
handled as text around MLIR's own parser and printer:

* :func:`to_generic` finds every mesh op written in the custom syntax,
  parses it with its compiled format and replaces it in place by the
  equivalent generic op.  Everything else is left as written, lines keep
  their numbers and each op keeps the column of its name, so MLIR's
  locations and diagnostics still point into the user's file.  A
  :class:`SourceMap` maps any other position back exactly.
* :func:`to_custom` rewrites each generic mesh op in MLIR's printed output
  into the custom syntax.

The type ``!mesh.sharding`` is registered in IRDL as
``!mesh.sharding_type`` (IRDL gives types and ops of a dialect one symbol
table, so it cannot share the op's name); both functions translate the
spelling, so users only ever see ``!mesh.sharding``.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import re
from dataclasses import dataclass, field

from .defs import OpDef, mesh_defs
from .format import CompiledFormat, OpParts
from .hitrate import HitRate
from .kinds import KINDS
from . import sharding_attr
from .lexer import Cursor, ParseError, balanced_end, split_top_level

PUBLIC_SHARDING_TYPE = "!mesh.sharding"


@functools.cache
def _internal_sharding_type() -> str:
    return f"!mesh.{mesh_defs().sharding_type_irdl_name}"


@functools.cache
def compiled_formats() -> dict[str, CompiledFormat]:
    """The compiled format of every op, by short name (``all_gather``)."""
    return {name: CompiledFormat(op) for name, op in mesh_defs().ops.items()}


# ----------------------------------------------------------------- source map


@dataclass
class SourceMap:
    """Maps positions in the translated (generic) text back to the source.

    ``spans`` holds one entry per replaced op: its start and end in both
    texts, and anchors ``(translated offset, source offset, verbatim length)``
    for the pieces inside it.
    """

    source: str
    translated: str = ""
    spans: list[tuple[int, int, int, int, list[tuple[int, int, int]] | str]] = field(default_factory=list)

    def to_source_offset(self, offset: int) -> int:
        i = bisect.bisect_right(self.spans, offset, key=lambda s: s[0]) - 1
        if i < 0:
            return offset
        t_start, t_end, s_start, s_end, anchors = self.spans[i]
        if offset >= t_end:
            return s_end + (offset - t_end)
        if isinstance(anchors, str):  # an op translated from a template: its anchors, made on demand
            anchors = _op_anchors(self.source, s_start, anchors, t_start)
            self.spans[i] = (t_start, t_end, s_start, s_end, anchors)
        j = bisect.bisect_right(anchors, offset, key=lambda a: a[0]) - 1
        if j < 0:
            return s_start
        t_off, s_off, length = anchors[j]
        return s_off + min(offset - t_off, length)

    def to_source(self, line: int, col: int) -> tuple[int, int]:
        """Maps a 1-based (line, byte column) of the translated text to the source."""
        if not self.spans:
            return line, col
        offset = _offset_of(self.translated, line, col)
        return _line_col_of(self.source, self.to_source_offset(offset))


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _offset_of(text: str, line: int, col: int) -> int:
    starts = _line_starts(text)
    line = max(1, min(line, len(starts)))
    start = starts[line - 1]
    end = text.find("\n", start)
    row = text[start : end if end >= 0 else len(text)]
    chars = len(row.encode()[: max(col - 1, 0)].decode(errors="ignore"))
    return start + chars


def _line_col_of(text: str, offset: int) -> tuple[int, int]:
    starts = _line_starts(text)
    i = bisect.bisect_right(starts, offset) - 1
    row_start = starts[i]
    return i + 1, len(text[row_start:offset].encode()) + 1


def line_col(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and byte column of an offset."""
    return _line_col_of(text, offset)


# ----------------------------------------------------------------- custom -> generic


@functools.cache
def _start_patterns() -> tuple[re.Pattern, ...]:
    """What to_generic rewrites: a mesh op at a line start or after ``{``, the sharding type and attribute.

    Separate patterns, each starting with a line anchor or a literal, scan a
    large text many times faster than one alternation.
    """
    names = sorted(mesh_defs().ops, key=len, reverse=True)
    op = (
        r"[ \t]*(?:%[^=\n\"]*?=[ \t]*)?(?P<name>mesh\.(?:"
        + "|".join(names)
        + r"))(?![\w$.])(?![ \t]*[=,}])"
    )
    return (
        re.compile("^" + op, re.M),
        re.compile(r"\{" + op),
        re.compile(r"(?P<type>!mesh\.sharding)(?![\w$.])"),
        re.compile(r"(?P<attr>#mesh\.sharding)(?=<)"),
    )


def _starts(text: str):
    """The matches of :func:`_start_patterns` in ``text``, in order, as (kind, match)."""
    ops, braced, types, attrs = _start_patterns()
    return heapq.merge(
        (("name", m) for m in ops.finditer(text)),
        (("name", m) for m in braced.finditer(text)),
        (("type", m) for m in types.finditer(text)),
        (("attr", m) for m in attrs.finditer(text)),
        key=lambda km: km[1].start(km[0]),
    )


class GenericWriter:
    """Writes OpParts as one generic op, recording anchors for the source map.

    An anchor ``(offset in the output, offset in the source, verbatim length)``
    is kept for the op name, each operand group, each attribute, the extra
    attributes and the types, so diagnostics inside the op map back exactly.
    """

    def __init__(self, op: OpDef, out_offset: int):
        self.op = op
        self.anchors: list[tuple[int, int, int]] = []
        self.offset = out_offset

    def write(self, parts: OpParts, name_offset: int) -> str:
        op, offsets, anchors = self.op, parts.offsets, self.anchors
        pos = self.offset
        text = f'"{op.full_name}"('
        anchors.append((pos, name_offset, 0))
        chunks = [text]
        pos += len(text)
        first = True
        for o in op.operands:
            names = parts.operands.get(o.name)
            if not names:
                continue
            if not first:
                chunks.append(", ")
                pos += 2
            first = False
            group = ", ".join(names)
            src = offsets.get(("operand", o.name, 0))
            if src is not None:
                anchors.append((pos, src, 0 if o.variadic else len(group)))
            chunks.append(group)
            pos += len(group)
        chunks.append(")")
        pos += 1
        entries = []
        for a in op.attributes:
            if a.name in parts.attrs:
                value = parts.attrs[a.name]
                if a.kind == "unit":
                    if value:
                        entries.append((a.name, offsets.get(("attr", a.name, 0))))
                    continue
                entries.append((f"{a.name} = {KINDS[a.kind].to_generic_cached(value)}", offsets.get(("attr", a.name, 0))))
        if op.variadic_operand_groups > 1:
            sizes = ", ".join(str(len(parts.operands.get(o.name, ()))) for o in op.operands)
            entries.append((f"operandSegmentSizes = array<i32: {sizes}>", None))
        if parts.extra_attrs:
            entries.append((parts.extra_attrs, offsets.get(("attr-dict", "", 0)), True))
        if entries:
            chunks.append(" {")
            pos += 2
            for i, entry in enumerate(entries):
                if i:
                    chunks.append(", ")
                    pos += 2
                if entry[1] is not None:
                    anchors.append((pos, entry[1], len(entry[0]) if len(entry) > 2 else 0))
                chunks.append(entry[0])
                pos += len(entry[0])
            chunks.append("}")
            pos += 1
        operand_types = ", ".join(_internal_types(t) for o in op.operands for t in self._types_of(o, parts))
        results = [_internal_types(t) for r in op.results for t in self._types_of(r, parts)]
        result_text = results[0] if len(results) == 1 else "(" + ", ".join(results) + ")"
        for lead, types, values in ((" : (", operand_types, op.operands), (") -> ", result_text, op.results)):
            chunks.append(lead)
            pos += len(lead)
            type_src = offsets.get(("type", values[0].name, 0)) if values else None
            if type_src is not None:
                anchors.append((pos, type_src, 0))
            chunks.append(types)
            pos += len(types)
        return "".join(chunks)

    def _types_of(self, value, parts: OpParts) -> list[str]:
        if value.name in parts.types:
            return parts.types[value.name]
        count = len(parts.operands.get(value.name, ())) if value in self.op.operands else 1
        if value.fixed_type:
            return [value.fixed_type] * count
        other = self.op.same_type.get(value.name)
        if other is not None and other in parts.types:
            return parts.types[other] * count
        raise ParseError(parts.offsets.get(("operand", value.name, 0), 0), f"cannot infer the type of '{value.name}'")


def _internal_types(type_text: str) -> str:
    if "!mesh.sharding" not in type_text:
        return type_text
    return re.sub(r"!mesh\.sharding(?![\w$.])", _internal_sharding_type(), type_text)


def _in_comment(text: str, pos: int) -> bool:
    line_start = text.rfind("\n", 0, pos) + 1
    return "//" in text[line_start:pos]


def _parse_op(fmt: CompiledFormat, text: str, pos: int) -> tuple[OpParts, int]:
    """The parts of the custom-syntax op whose body starts at ``pos``, and its end."""
    fast = fmt.fast_parse(text, pos)
    if fast is not None:
        return fast
    cur = Cursor(text, pos)
    parts = fmt.parse(cur)
    return parts, cur.pos


def _op_anchors(source: str, name_start: int, name: str, out_offset: int) -> list[tuple[int, int, int]]:
    """The source-map anchors of the op at ``name_start``, translated to ``out_offset``."""
    fmt = compiled_formats()[name]
    parts, _ = _parse_op(fmt, source, name_start + len(fmt.opdef.full_name))
    writer = GenericWriter(fmt.opdef, out_offset)
    writer.write(parts, name_start)
    return writer.anchors


# Translation templates.  Ops that differ only in their SSA names translate
# alike: each distinct op line is parsed and written once, with placeholder
# names, into a format string; every other op with that line is a
# ``str.format`` of its own names (generated and real programs repeat few
# op shapes many times).  An op that is not alone on its line, or not in
# its format's common shape, takes the general path.

# SSA value names (with an optional result number)
_SSA_NAME = re.compile(r"(%[A-Za-z0-9_$.\-]+(?:#\d+)?)")
_PLACEHOLDER = "%__mesh_ssa"
_PLACEHOLDER_RE = re.compile(r"(%__mesh_ssa\d+)")
_TEMPLATE_LIMIT = 4096


def _line_end(text: str, pos: int) -> int:
    eol = text.find("\n", pos)
    return len(text) if eol < 0 else eol


def _cached(cache: dict, key, make, rate: HitRate):
    """``cache[key]``, made by ``make()`` the first time (the cache is bounded)."""
    template = cache.get(key, cache)
    if template is cache:
        rate.misses += 1
        if len(cache) >= _TEMPLATE_LIMIT:
            cache.clear()
        template = cache[key] = make()
    else:
        rate.hits += 1
    return template


def _format_template(out: str | None) -> str | None:
    """``out`` (text with placeholder names) as a format string taking the real names."""
    if out is None:
        return None
    pieces = _PLACEHOLDER_RE.split(out)
    for k in range(0, len(pieces), 2):
        pieces[k] = pieces[k].replace("{", "{{").replace("}", "}}")
    for k in range(1, len(pieces), 2):
        pieces[k] = "{" + pieces[k][len(_PLACEHOLDER):] + "}"
    return "".join(pieces)


def _placeholders(n: int) -> list[str]:
    return [f"{_PLACEHOLDER}{i}" for i in range(n)]


_GENERIC_TEMPLATES: dict = {}


def _from_template(fmt: CompiledFormat, name: str, text: str, pos: int, rate: HitRate) -> tuple[str, int] | None:
    """The generic form of the op whose body starts at ``pos`` and the end of its line, or None."""
    end = _line_end(text, pos)
    pieces = _SSA_NAME.split(text[pos:end])
    key = (name, tuple(pieces[0::2]))

    def make():
        names = iter(_placeholders(len(pieces) // 2))
        body = "".join(p if k % 2 == 0 else next(names) for k, p in enumerate(pieces))
        fast = fmt.fast_parse(body, 0)
        if fast is None or body[fast[1]:].strip():
            return None
        return _format_template(GenericWriter(fmt.opdef, 0).write(fast[0], 0) + body[fast[1]:])

    template = _cached(_GENERIC_TEMPLATES, key, make, rate)
    if template is None:
        return None
    return template.format(*pieces[1::2]), end


def to_generic(text: str) -> tuple[str, SourceMap]:
    """Rewrites every custom-syntax mesh op of ``text`` into the generic form.

    Returns the new text and a SourceMap back to ``text``.  Raises ParseError
    (with an offset into ``text``) on a syntax error in a mesh op.
    """
    smap = SourceMap(text)
    out: list[str] = []
    out_len = 0
    last = 0
    formats = compiled_formats()
    internal_type = _internal_sharding_type()
    rate = HitRate()
    for kind, m in _starts(text):
        if m.start(kind) < last:
            continue  # inside an op already rewritten
        if kind != "name" and _in_comment(text, m.start()):
            continue
        if kind == "type":
            start, end, replacement, anchors = m.start(), m.end(), internal_type, []
        elif kind == "attr":
            start = m.start()
            cur = Cursor(text, m.end())
            replacement, end, anchors = sharding_attr.format_generic(sharding_attr.parse_body(cur)), cur.pos, []
        else:
            start = m.start("name")
            name = m.group("name")[5:]
            fmt = formats[name]
            templated = _from_template(fmt, name, text, m.end("name"), rate) if rate.worth_it else None
            if templated is not None:
                replacement, end = templated
                anchors = name  # made on demand by the source map
            else:
                parts, end = _parse_op(fmt, text, m.end("name"))
                writer = GenericWriter(fmt.opdef, out_len + (start - last))
                replacement = writer.write(parts, start)
                anchors = writer.anchors
        # Keep the line count: later ops keep their line numbers.
        newlines = text.count("\n", start, end)
        if newlines:
            replacement += "\n" * newlines + " " * (end - (text.rfind("\n", start, end) + 1))
        out.append(text[last:start])
        out_len += start - last
        smap.spans.append((out_len, out_len + len(replacement), start, end, anchors))
        out.append(replacement)
        out_len += len(replacement)
        last = end
    out.append(text[last:])
    smap.translated = "".join(out)
    return smap.translated, smap


# ----------------------------------------------------------------- generic -> custom

_GENERIC_OP = re.compile(r'"mesh\.(\w+)"\(([^)]*)\)')


# MLIR prints a generic op without regions on one line, in this shape.
_GENERIC_TAIL = re.compile(
    r'(?: \{(?P<attrs>(?:[^{}"\n]|"(?:[^"\\\n]|\\.)*")*)\})? : '
    r"\((?P<operands>[^()\n]*)\) -> (?P<results>\([^()\n]*\)|[^()\s]+)(?=\s|$)"
)


def _read_generic(fmt: CompiledFormat, text: str, pos: int):
    """Reads a printed generic mesh op from ``pos`` (after its operand list).

    Returns (parts, operand types, result types, segment sizes, end).
    """
    m = _GENERIC_TAIL.match(text, pos)
    if m is not None:
        results = m.group("results")
        result_types = split_top_level(results[1:-1]) if results.startswith("(") else [results]
        return _generic_parts(fmt, m.group("attrs") or "", split_top_level(m.group("operands")), result_types, m.end())
    return _read_generic_slow(fmt, text, pos)


def _read_generic_slow(fmt: CompiledFormat, text: str, pos: int):
    cur = Cursor(text, pos)
    attr_text = cur.attr_dict() or ""
    cur.expect(":")
    cur.skip()
    type_start = cur.pos
    cur.balanced()
    operand_types = split_top_level(text[type_start + 1 : cur.pos - 1])
    cur.expect("->")
    cur.skip()
    if text.startswith("(", cur.pos):
        rs = cur.pos
        cur.balanced()
        result_types = split_top_level(text[rs + 1 : cur.pos - 1])
    else:
        result_types = [cur.type()]
    return _generic_parts(fmt, attr_text, operand_types, result_types, cur.pos)


def _generic_parts(fmt: CompiledFormat, attr_text: str, operand_types, result_types, end):
    op = fmt.opdef
    parts = OpParts()
    extras = []
    segments = None
    for entry in split_top_level(attr_text):
        name, eq, value = entry.partition(" = ")
        a = op.attr_by_name.get(name)
        if name == "operandSegmentSizes":
            segments = [int(x) for x in value.split(":", 1)[1].rstrip(">").split(",")]
        elif a is not None and (eq or a.kind == "unit"):
            parts.attrs[name] = KINDS[a.kind].from_generic_cached(value if eq else "unit")
        else:
            extras.append(entry)
    parts.extra_attrs = ", ".join(extras)
    return parts, operand_types, result_types, segments, end


def _assign(groups, values, segments):
    if segments is None:
        fixed = sum(1 for g in groups if not g.variadic)
        segments = [1 if not g.variadic else len(values) - fixed for g in groups]
    out, i = {}, 0
    for g, n in zip(groups, segments):
        out[g.name] = values[i : i + n]
        i += n
    return out


def to_custom(text: str) -> str:
    """Rewrites MLIR's printed output into the spec's custom syntax.

    Each generic mesh op becomes its custom form and the internal type name
    becomes ``!mesh.sharding``.  An op that does not fit its format (which
    only IR that failed verification can hold) is left generic.
    """
    formats = compiled_formats()
    out, last = [], 0
    rate = HitRate()
    for m in _GENERIC_OP.finditer(text):
        fmt = formats.get(m.group(1))
        if fmt is None or m.start() < last:
            continue
        operand_names = [s.strip() for s in m.group(2).split(",")] if m.group(2).strip() else []
        if rate.worth_it:
            end = _line_end(text, m.end())
            tail = text[m.end() : end]
            key = (m.group(1), len(operand_names), tail)
            template = _cached(_CUSTOM_TEMPLATES, key, lambda: _custom_template(fmt, len(operand_names), tail), rate)
            if template is not None:
                out.append(text[last : m.start()])
                out.append(template.format(*operand_names))
                last = end
                continue
        custom = _custom_op(fmt, text, m.end(), operand_names)
        if custom is None:
            continue
        out.append(text[last : m.start()])
        out.append(custom[0])
        last = custom[1]
    out.append(text[last:])
    result = "".join(out)
    if sharding_attr.INTERNAL_PREFIX in result:
        result = _public_sharding_attrs(result)
    internal = _internal_sharding_type()
    if internal in result:
        result = result.replace(internal, PUBLIC_SHARDING_TYPE)
    return result


_CUSTOM_TEMPLATES: dict = {}


def _custom_template(fmt: CompiledFormat, n_operands: int, tail: str) -> str | None:
    """The custom form of a generic op line with ``n_operands`` operands and ``tail``, as a format string."""
    head = f'"{fmt.opdef.full_name}"({", ".join(_placeholders(n_operands))})'
    generic = head + tail
    custom = _custom_op(fmt, generic, len(head), _placeholders(n_operands))
    if custom is None:
        return None
    text, end = custom
    return _format_template(text + generic[end:])


def _custom_op(fmt: CompiledFormat, text: str, pos: int, operand_names: list[str]) -> tuple[str, int] | None:
    """The custom form of the generic op in ``text`` whose operand list ends before ``pos``, and its end."""
    try:
        parts, otypes, rtypes, segments, end = _read_generic(fmt, text, pos)
    except (ParseError, ValueError, IndexError):
        return None
    op = fmt.opdef
    parts.operands = _assign(op.operands, operand_names, segments)
    parts.types = _assign(op.operands, otypes, segments)
    parts.types.update(_assign(op.results, rtypes, None))
    body = fmt.print(parts)
    return (f"{op.full_name} {body}" if body else op.full_name), end


def _public_sharding_attrs(text: str) -> str:
    out, last = [], 0
    prefix = sharding_attr.INTERNAL_PREFIX
    start = text.find(prefix)
    while start >= 0:
        open_at = start + len(prefix) - 1
        end = balanced_end(text, open_at)
        if end < 0:
            break
        try:
            spec = sharding_attr.parse_generic(text[open_at + 1 : end - 1])
        except (ValueError, ParseError):
            start = text.find(prefix, end)
            continue
        out.append(text[last:start])
        out.append(sharding_attr.format_custom(spec))
        last = end
        start = text.find(prefix, end)
    out.append(text[last:])
    return "".join(out)


def public_types(text: str) -> str:
    """Replaces the internal sharding type name by ``!mesh.sharding``."""
    return text.replace(_internal_sharding_type(), PUBLIC_SHARDING_TYPE)
