"""The assembly-format interpreter: one engine for every op's custom syntax.

Each op's format (the "Syntax:" line of spec 001, kept as data in
``dialect_defs/mesh.toml``) is compiled once into a list of elements.  The
same elements then

* parse the custom syntax into :class:`OpParts` (operand names, attribute
  values, type texts, extra attributes), and
* print :class:`OpParts` back in the custom syntax.

:class:`OpParts` is also what the generic form is read into and written from
(``generic.py``), so custom and generic text meet in one record.

Supported directives: literals, ``$operand``, ``$attribute``, ``type($v)``,
``functional-type(operands, results)``, ``attr-dict``,
``custom<DimensionList>($attr)``, ``custom<DynamicIndexList>($operands, $attr)``
and optional groups ``( ... $anchor^ ... )?``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from .defs import OpDef
from .kinds import KINDS, Kind
from .lexer import Cursor, ParseError, split_top_level


@dataclass
class OpParts:
    """The pieces of one op, independent of how it is spelled.

    ``operands`` maps an operand group to its SSA names, ``types`` maps an
    operand or result group to its type texts, ``attrs`` maps attribute names
    to Python values (see kinds.py), ``extra_attrs`` is the text of the
    attributes the format does not name (the ``attr-dict``).  ``offsets``
    records, when parsing, where in the source each piece began, keyed by
    ``("operand"|"type"|"attr", name, index)``.
    """

    operands: dict[str, list[str]] = field(default_factory=dict)
    types: dict[str, list[str]] = field(default_factory=dict)
    attrs: dict[str, object] = field(default_factory=dict)
    extra_attrs: str = ""
    offsets: dict[tuple, int] = field(default_factory=dict)


# ----------------------------------------------------------------- elements


class Element:
    def parse(self, cur: Cursor, op: "CompiledFormat", parts: OpParts) -> None:
        raise NotImplementedError

    def pattern(self, op: "CompiledFormat", groups: list) -> str:
        """A regex for this element (fast path); registers its capture groups."""
        raise NotImplementedError

    def take(self, m: re.Match, group: str, op: "CompiledFormat", parts: OpParts) -> None:
        """Stores what capture ``group`` of a fast-path match holds."""

    def print(self, op: "CompiledFormat", parts: OpParts, out: list[str]) -> None:
        raise NotImplementedError

    def first_literal(self) -> str | None:
        return None


@dataclass
class Literal(Element):
    text: str

    def parse(self, cur, op, parts):
        cur.expect(self.text)

    def print(self, op, parts, out):
        out.append(self.text)

    def first_literal(self):
        return self.text

    def pattern(self, op, groups):
        word = self.text[-1].isalnum() or self.text[-1] == "_"
        return r"\s*" + re.escape(self.text) + (r"(?![\w$.])" if word else "")


@dataclass
class OperandRef(Element):
    name: str

    def parse(self, cur, op, parts):
        parts.offsets[("operand", self.name, 0)] = cur.skip()
        parts.operands[self.name] = [cur.ssa()]

    def print(self, op, parts, out):
        out.append(", ".join(parts.operands.get(self.name, ())))

    def pattern(self, op, groups):
        return r"\s*" + _capture(self, groups, SSA_RE)

    def take(self, m, group, op, parts):
        parts.operands[self.name] = [m.group(group)]
        parts.offsets[("operand", self.name, 0)] = m.start(group)


@dataclass
class AttrRef(Element):
    name: str
    kind: Kind

    def parse(self, cur, op, parts):
        parts.offsets[("attr", self.name, 0)] = cur.skip()
        parts.attrs[self.name] = self.kind.parse(cur)

    def print(self, op, parts, out):
        text = self.kind.format(parts.attrs.get(self.name, self.kind.default))
        if text:
            out.append(text)
        if self.kind.glue_next:
            out.append(_GLUE)

    def pattern(self, op, groups):
        return r"\s*" + _capture(self, groups, self.kind.pattern)

    def take(self, m, group, op, parts):
        parts.attrs[self.name] = self.kind.parse_text(m.group(group))
        parts.offsets[("attr", self.name, 0)] = m.start(group)


@dataclass
class TypeOf(Element):
    name: str

    def parse(self, cur, op, parts):
        parts.offsets[("type", self.name, 0)] = cur.skip()
        if op.is_variadic(self.name):
            parts.types[self.name] = cur.type_list()
        else:
            parts.types[self.name] = [cur.type()]

    def print(self, op, parts, out):
        out.append(", ".join(parts.types.get(self.name, ())))

    def pattern(self, op, groups):
        types = TYPE_LIST_RE if op.is_variadic(self.name) else TYPE_RE
        return r"\s*" + _capture(self, groups, types)

    def take(self, m, group, op, parts):
        parts.types[self.name] = split_top_level(m.group(group))
        parts.offsets[("type", self.name, 0)] = m.start(group)


class FunctionalType(Element):
    """``(operand types) -> result type(s)``, assigned to the groups in order."""

    def parse(self, cur, op, parts):
        start = cur.skip()
        cur.expect("(")
        operand_types = [] if cur.accept(")") else cur.type_list()
        if operand_types:
            cur.expect(")")
        cur.expect("->")
        if cur.peek("("):
            cur.expect("(")
            result_types = [] if cur.accept(")") else cur.type_list()
            if result_types:
                cur.expect(")")
        else:
            result_types = [cur.type()]
        _assign_types(op, op.opdef.operands, parts, operand_types, start, "operand")
        _assign_types(op, op.opdef.results, parts, result_types, start, "result")

    def print(self, op, parts, out):
        operand_types = [t for o in op.opdef.operands for t in parts.types.get(o.name, ())]
        result_types = [t for r in op.opdef.results for t in parts.types.get(r.name, ())]
        results = result_types[0] if len(result_types) == 1 else f"({', '.join(result_types)})"
        out.append(f"({', '.join(operand_types)}) -> {results}")

    def pattern(self, op, groups):
        base = f"f{len(groups)}"
        groups.append((base + "_0", self))
        operands = f"(?P<{base}_0>(?:{TYPE_LIST_RE})?)"
        many = f"(?P<{base}_1>(?:{TYPE_LIST_RE})?)"
        one = f"(?P<{base}_2>{TYPE_RE})"
        return rf"\s*\(\s*{operands}\s*\)\s*->\s*(?:\(\s*{many}\s*\)|{one})"

    def take(self, m, group, op, parts):
        if group.endswith("_0"):  # the three groups arrive in order; act on the first
            start = m.start(group) - 1
            operand_types = split_top_level(m.group(group))
            g = group[:-2]
            many, one = m.group(g + "_1"), m.group(g + "_2")
            result_types = [one] if one is not None else split_top_level(many or "")
            _assign_types(op, op.opdef.operands, parts, operand_types, start, "operand")
            _assign_types(op, op.opdef.results, parts, result_types, start, "result")


def _assign_types(op, groups, parts, types, pos, what):
    counts = [len(parts.operands.get(g.name, ())) for g in groups] if what == "operand" else None
    if counts is None:  # results: only the (single) variadic group absorbs the rest
        fixed = sum(1 for g in groups if not g.variadic)
        counts = [1 if not g.variadic else len(types) - fixed for g in groups]
    if sum(counts) != len(types) or any(c < 0 for c in counts):
        raise ParseError(pos, f"expected {sum(max(c, 0) for c in counts)} {what} types, found {len(types)}")
    i = 0
    for g, c in zip(groups, counts):
        parts.types[g.name] = types[i : i + c]
        parts.offsets[("type", g.name, 0)] = pos
        i += c


class AttrDict(Element):
    def parse(self, cur, op, parts):
        if not cur.peek("{"):
            return
        start = cur.skip()
        parts.extra_attrs = cur.attr_dict().strip()
        parts.offsets[("attr-dict", "", 0)] = start + 1

    def print(self, op, parts, out):
        if parts.extra_attrs:
            out.append("{" + parts.extra_attrs + "}")

    def pattern(self, op, groups):
        # A dictionary the fast path cannot read must not be skipped silently.
        return r"(?:\s*\{" + _capture(self, groups, r'[^{}"]*') + r"\})?(?!\s*\{)"

    def take(self, m, group, op, parts):
        if m.group(group) is not None and m.group(group).strip():
            parts.extra_attrs = m.group(group).strip()
            parts.offsets[("attr-dict", "", 0)] = m.start(group)


@dataclass
class DimensionList(Element):
    attr: str

    def parse(self, cur, op, parts):
        parts.offsets[("attr", self.attr, 0)] = cur.skip()
        parts.attrs[self.attr] = tuple(cur.dimension_list())

    def print(self, op, parts, out):
        dims = parts.attrs.get(self.attr, ())
        if dims:
            out.append("x".join("?" if d is None else str(d) for d in dims))

    def pattern(self, op, groups):
        return r"\s*" + _capture(self, groups, r"(?:(?:\d+|\?)(?:x(?:\d+|\?))*)?")

    def take(self, m, group, op, parts):
        text = m.group(group)
        parts.attrs[self.attr] = tuple(None if d == "?" else int(d) for d in text.split("x")) if text else ()
        parts.offsets[("attr", self.attr, 0)] = m.start(group)


@dataclass
class DynamicIndexList(Element):
    operands: str
    attr: str

    def parse(self, cur, op, parts):
        parts.offsets[("attr", self.attr, 0)] = start = cur.skip()
        entries = cur.index_list()
        parts.attrs[self.attr] = tuple(None if isinstance(e, str) else e for e in entries)
        parts.operands[self.operands] = [e for e in entries if isinstance(e, str)]
        parts.offsets[("operand", self.operands, 0)] = start

    def pattern(self, op, groups):
        return r"\s*" + _capture(self, groups, r"\[[^\]]*\]")

    def take(self, m, group, op, parts):
        entries = _index_list(m.group(group))
        parts.attrs[self.attr] = tuple(None if isinstance(e, str) else e for e in entries)
        parts.operands[self.operands] = [e for e in entries if isinstance(e, str)]
        parts.offsets[("attr", self.attr, 0)] = parts.offsets[("operand", self.operands, 0)] = m.start(group)

    def print(self, op, parts, out):
        dynamic = iter(parts.operands.get(self.operands, ()))
        static = parts.attrs.get(self.attr, ())
        out.append("[" + ", ".join(next(dynamic, "?") if v is None else str(v) for v in static) + "]")


@dataclass
class Group(Element):
    """An optional group: present when its anchor attribute is set and not default."""

    elements: list[Element]
    anchor: str

    def first_literal(self):
        return self.elements[0].first_literal()

    def parse(self, cur, op, parts):
        lead = self.first_literal()
        if lead is None or not cur.peek(lead):
            return
        for el in self.elements:
            el.parse(cur, op, parts)

    def print(self, op, parts, out):
        kind = op.attr_kind(self.anchor)
        value = parts.attrs.get(self.anchor, kind.default)
        if kind.is_default(value):
            return
        for el in self.elements:
            el.print(op, parts, out)

    def pattern(self, op, groups):
        return "(?:" + "".join(el.pattern(op, groups) for el in self.elements) + ")?"


_GLUE = object()  # marker: no space before the next token

SSA_RE = r"%(?:\d+|[A-Za-z_$.\-][\w$.\-]*)(?:#\d+)?"
# A type with up to three levels of nested <...>, no strings or arrows: the
# fast path; anything else falls back to the token-by-token parser.
TYPE_RE = r"!?[A-Za-z_][\w$.]*(?:<(?:[^<>\"]|<(?:[^<>\"]|<[^<>\"]*>)*>)*>)?"
TYPE_LIST_RE = rf"{TYPE_RE}(?:\s*,\s*{TYPE_RE})*"


def _capture(el: Element, groups: list, pattern: str) -> str:
    name = f"g{len(groups)}"
    groups.append((name, el))
    return f"(?P<{name}>{pattern})"


@functools.lru_cache(maxsize=4096)
def _index_list(text: str) -> tuple:
    return tuple(Cursor(text).index_list())

# ----------------------------------------------------------------- compilation

_FORMAT_TOKEN = re.compile(
    r"\s*(?:`(?P<lit>[^`]*)`|\$(?P<var>\w+)(?P<anchor>\^)?"
    r"|custom<(?P<custom>\w+)>\((?P<cargs>[^)]*)\)(?P<canchor>\^)?"
    r"|type\(\$(?P<type>\w+)\)|(?P<functional>functional-type\(operands,\s*results\))"
    r"|(?P<attrdict>attr-dict)|(?P<open>\()|(?P<close>\)\?))"
)


class CompiledFormat:
    """An op's format, compiled: parses and prints that op's custom syntax."""

    def __init__(self, opdef: OpDef):
        self.opdef = opdef
        self._variadic = {v.name for v in (*opdef.operands, *opdef.results) if v.variadic}
        elements = self._compile(opdef.format)
        head = elements.pop(0)
        if not isinstance(head, Literal) or head.text != opdef.full_name:
            raise ValueError(f"format of {opdef.full_name} must start with its name")
        self.elements = elements
        # Ops whose result type is fixed may leave out the trailing `: type`.
        self._optional_tail = (
            len(elements) >= 2
            and elements[-2] == Literal(":")
            and isinstance(elements[-1], TypeOf)
            and all(r.fixed_type and not r.variadic for r in opdef.results)
        )
        self._compile_regex()
        self.dynamic_index_lists = tuple(_find(elements, DynamicIndexList))

    def _compile_regex(self) -> None:
        groups: list = []
        head = self.elements[:-2] if self._optional_tail else self.elements
        body = "".join(el.pattern(self, groups) for el in head)
        if self._optional_tail:
            body += "(?:" + "".join(el.pattern(self, groups) for el in self.elements[-2:]) + r")?(?!\s*:)"
        self._regex = re.compile(body)
        self._groups = groups

    def fast_end(self, text: str, pos: int) -> int | None:
        """Where the op whose body starts at ``pos`` ends, if it has the common shape."""
        m = self._regex.match(text, pos)
        return None if m is None else m.end()

    def fast_parse(self, text: str, pos: int) -> tuple[OpParts, int] | None:
        """Parses the common case with one regex match; None when it does not apply."""
        m = self._regex.match(text, pos)
        if m is None:
            return None
        parts = OpParts()
        try:
            for name, el in self._groups:
                if m.group(name) is not None:
                    el.take(m, name, self, parts)
        except ParseError:
            return None  # the token-by-token parser reports it with its position
        self._fill_fixed_results(parts)
        return parts, m.end()

    def _fill_fixed_results(self, parts: OpParts) -> None:
        for r in self.opdef.results:
            if r.name not in parts.types and r.fixed_type:
                parts.types[r.name] = [r.fixed_type]

    def is_variadic(self, name: str) -> bool:
        return name in self._variadic

    def attr_kind(self, name: str) -> Kind:
        return KINDS[self.opdef.attr_by_name[name].kind]

    def _compile(self, fmt: str) -> list[Element]:
        stack: list[list[Element]] = [[]]
        anchors: list[str | None] = [None]
        pos = 0
        fmt = fmt.strip()
        while pos < len(fmt):
            m = _FORMAT_TOKEN.match(fmt, pos)
            if not m or m.end() == pos:
                raise ValueError(f"bad format for {self.opdef.full_name} at: {fmt[pos:]}")
            pos = m.end()
            g = m.groupdict()
            if g["lit"] is not None:
                stack[-1].append(Literal(g["lit"]))
            elif g["var"]:
                name = g["var"]
                if name in self.opdef.attr_by_name:
                    stack[-1].append(AttrRef(name, self.attr_kind(name)))
                else:
                    stack[-1].append(OperandRef(name))
                if g["anchor"]:
                    anchors[-1] = name
            elif g["custom"]:
                args = [a.strip().lstrip("$") for a in g["cargs"].split(",")]
                if g["custom"] == "DimensionList":
                    stack[-1].append(DimensionList(args[0]))
                elif g["custom"] == "DynamicIndexList":
                    stack[-1].append(DynamicIndexList(args[0], args[1]))
                else:
                    raise ValueError(f"unknown custom directive {g['custom']}")
                if g["canchor"]:
                    anchors[-1] = args[-1]
            elif g["type"]:
                stack[-1].append(TypeOf(g["type"]))
            elif g["functional"]:
                stack[-1].append(FunctionalType())
            elif g["attrdict"]:
                stack[-1].append(AttrDict())
            elif g["open"]:
                stack.append([])
                anchors.append(None)
            elif g["close"]:
                elements, anchor = stack.pop(), anchors.pop()
                if anchor is None:
                    raise ValueError(f"optional group without anchor in {self.opdef.full_name}")
                stack[-1].append(Group(elements, anchor))
        return stack[0]

    # -- custom syntax ------------------------------------------------------
    def parse(self, cur: Cursor) -> OpParts:
        """Parses the op's custom syntax after its name; the cursor ends after it."""
        parts = OpParts()
        elements = self.elements
        for i, el in enumerate(elements):
            if self._optional_tail and i == len(elements) - 2 and not cur.peek(":"):
                break
            el.parse(cur, self, parts)
        self._fill_fixed_results(parts)
        return parts

    def print(self, parts: OpParts) -> str:
        """The custom syntax of an op (without results and name)."""
        out: list = []
        for el in self.elements:
            el.print(self, parts, out)
        return _join(out)


def _find(elements: list[Element], cls: type):
    """The elements of type ``cls``, optional groups included, in format order."""
    for el in elements:
        if isinstance(el, cls):
            yield el
        elif isinstance(el, Group):
            yield from _find(el.elements, cls)


_NO_SPACE_BEFORE = {")", "]", ",", "("}
_NO_SPACE_AFTER = {"(", "["}


def _join(tokens: list) -> str:
    text = []
    glue = True
    for tok in tokens:
        if tok is _GLUE:
            glue = True
            continue
        if not glue and tok not in _NO_SPACE_BEFORE:
            text.append(" ")
        text.append(tok)
        glue = tok in _NO_SPACE_AFTER
    return "".join(text)
