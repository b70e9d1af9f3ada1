"""Attribute kinds: how each kind of mesh attribute is spelled.

Every attribute of the dialect has a kind (``dialect_defs/mesh.toml``).  A
kind converts between three spellings through one Python value:

* the custom syntax of spec 001 (``[1, 0]``, ``<max>``, ``@mesh0``),
* the generic MLIR attribute syntax stored in the IR (``array<i16: 1, 0>``,
  ``#mesh.partial<"max">``, ``@mesh0``),
* the Python value the op accessors return (``(1, 0)``, ``"max"``,
  ``"mesh0"``).

Dynamic entries (``?``) are ``None`` in Python and ``ShapedType::kDynamic``
(the smallest i64) in the IR, as upstream MLIR stores them.
"""

from __future__ import annotations

import functools
import re

from .._mlir import ir
from .lexer import Cursor, ParseError

#: How the IR stores a dynamic size or index, as upstream does.
DYNAMIC = -(2**63)

REDUCTION_KINDS = (
    "sum",
    "max",
    "min",
    "product",
    "average",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "generic",
)

_BARE_SYMBOL = re.compile(r"[A-Za-z_$.\-][\w$.\-]*\Z")
_ARRAY = re.compile(r"array<(i16|i64)(?::\s*([^>]*))?>\Z")
_INT_ATTR = re.compile(r"(-?\d+)(?:\s*:\s*\w+)?\Z")
_PARTIAL = re.compile(r'#mesh\.partial<"(\w+)">\Z')
_SUB_ARRAY = re.compile(r"array<i16(?::\s*([^>]*))?>")


def _ints(body: str | None) -> tuple[int, ...]:
    if not body or not body.strip():
        return ()
    return tuple(int(x) for x in body.split(","))


def _i16_array(axes) -> str:
    if not axes:
        return "array<i16>"
    return "array<i16: " + ", ".join(map(str, axes)) + ">"


def _symbol_text(name: str) -> str:
    if _BARE_SYMBOL.match(name):
        return f"@{name}"
    return '@"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


@functools.lru_cache(maxsize=8192)
def _parse_fragment(kind: "Kind", text: str):
    cur = Cursor(text)
    value = kind.parse(cur)
    if cur.skip() != len(text):
        raise ParseError(cur.pos, "unexpected text")
    return value


_MISSING = object()
_ATTR_CACHE: dict[str, dict] = {}
_ATTR_CACHE_SIZE = 4096


@functools.lru_cache(maxsize=8192)
def _to_generic(kind: "Kind", value) -> str:
    return kind.to_generic(value)


@functools.lru_cache(maxsize=8192)
def _from_generic(kind: "Kind", text: str):
    return kind.from_generic(text)


#: Marks an open dimension (``?``) at the end of a split-axes sub-array.
OPEN_AXIS = -1


class Kind:
    """Base of the attribute kinds; ``default`` is the value of an absent attribute.

    ``pattern`` is a regex matching the custom spelling (the fast path of the
    format interpreter); ``parse_text`` reads such a match.
    """

    name = ""
    default = None
    pattern = r"(?!)"
    #: The printer writes the next format element right after this one (``sum[1]``).
    glue_next = False

    def parse(self, cur: Cursor):
        """Parses the custom spelling at the cursor and returns the value."""
        raise NotImplementedError

    def to_generic_cached(self, value) -> str:
        """``to_generic`` through a cache (values are hashable and repeat)."""
        return _to_generic(self, value)

    def from_generic_cached(self, text: str):
        """``from_generic`` through a cache."""
        return _from_generic(self, text)

    def parse_text(self, text: str):
        """The value of a complete custom spelling (cached: spellings repeat)."""
        return _parse_fragment(self, text)

    def format(self, value) -> str:
        """The custom spelling of a value."""
        raise NotImplementedError

    def to_generic(self, value) -> str:
        """The generic MLIR attribute spelling of a value."""
        raise NotImplementedError

    def from_generic(self, text: str):
        """The value of a generic MLIR attribute spelling."""
        raise NotImplementedError

    def is_default(self, value) -> bool:
        return value == self.default

    def to_attr(self, value) -> ir.Attribute:
        """The MLIR attribute for a value, in the current context."""
        return ir.Attribute.parse(self.to_generic(value))

    def from_attr(self, attr: ir.Attribute):
        """The value held by an MLIR attribute of this kind."""
        return self.from_generic(str(attr))

    def value_of(self, attr: ir.Attribute):
        """``from_attr`` through a cache keyed on the attribute.

        MLIR uniques attributes and the bindings hash and compare them by
        their storage, so equal attributes hit the same entry.  Reading a
        dense array or printing an attribute through the bindings costs
        around 10 us; a hit costs a dictionary lookup.
        """
        cache = _ATTR_CACHE.setdefault(self.name, {})
        value = cache.get(attr, _MISSING)
        if value is _MISSING:
            if len(cache) >= _ATTR_CACHE_SIZE:
                cache.clear()
            value = cache[attr] = self.from_attr(attr)
        return value


class SymbolKind(Kind):
    """A flat symbol reference: ``@mesh0`` in both spellings, ``"mesh0"`` in Python."""

    name = "symbol"
    pattern = r'@(?:[A-Za-z_$.\-][\w$.\-]*|"(?:[^"\\\n]|\\.)*")'

    def parse(self, cur):
        return cur.symbol()

    def format(self, value):
        return _symbol_text(value)

    to_generic = format

    def from_generic(self, text):
        if text.startswith('@"'):
            return text[2:-1].encode().decode("unicode_escape")
        return text[1:]

    def to_attr(self, value):
        return ir.FlatSymbolRefAttr.get(value)

    def from_attr(self, attr):
        return ir.FlatSymbolRefAttr(attr).value


class SymNameKind(SymbolKind):
    """A symbol's own name: ``@mesh0`` in the custom syntax, a string in the IR."""

    name = "sym_name"

    def to_generic(self, value):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

    def from_generic(self, text):
        return text[1:-1].encode().decode("unicode_escape")

    def to_attr(self, value):
        return ir.StringAttr.get(value)

    def from_attr(self, attr):
        return ir.StringAttr(attr).value


class AxesKind(Kind):
    """Mesh axes: ``[1, 0]`` in the custom syntax, ``array<i16: 1, 0>`` in the IR."""

    name = "axes"
    default = ()
    pattern = r"\[[-\d,\s]*\]"

    def parse(self, cur):
        return tuple(cur.int_list())

    def format(self, value):
        return "[" + ", ".join(map(str, value)) + "]"

    def to_generic(self, value):
        return _i16_array(value)

    def from_generic(self, text):
        m = _ARRAY.match(text)
        if not m:
            raise ValueError(f"expected an i16 array attribute, got {text}")
        return _ints(m.group(2))

    def to_attr(self, value):
        return ir.DenseI16ArrayAttr.get(list(value))

    def from_attr(self, attr):
        return tuple(ir.DenseI16ArrayAttr(attr))


class IntKind(Kind):
    """An integer of a fixed type: ``1`` in the custom syntax, ``1 : index`` in the IR."""

    pattern = r"-?(?:0x[0-9a-fA-F]+|\d+)"

    def __init__(self, name: str, type_name: str):
        self.name = name
        self.type_name = type_name

    def parse(self, cur):
        return cur.integer()

    def format(self, value):
        return str(value)

    def to_generic(self, value):
        return f"{value} : {self.type_name}"

    def from_generic(self, text):
        m = _INT_ATTR.match(text)
        if not m:
            raise ValueError(f"expected an integer attribute, got {text}")
        return int(m.group(1))

    def from_attr(self, attr):
        return ir.IntegerAttr(attr).value


class I64ArrayKind(Kind):
    """Static sizes or indices with ``?`` for dynamic: ``array<i64: 2, DYNAMIC>`` in the IR."""

    name = "i64_array"
    default = ()
    pattern = r"\[[-\d,\s?]*\]"

    def parse(self, cur):
        return tuple(cur.int_list(allow_dynamic=True))

    def format(self, value):
        return "[" + ", ".join("?" if v is None else str(v) for v in value) + "]"

    def to_generic(self, value):
        if not value:
            return "array<i64>"
        return "array<i64: " + ", ".join(str(DYNAMIC if v is None else v) for v in value) + ">"

    def from_generic(self, text):
        m = _ARRAY.match(text)
        if not m:
            raise ValueError(f"expected an i64 array attribute, got {text}")
        return tuple(None if v == DYNAMIC else v for v in _ints(m.group(2)))

    def to_attr(self, value):
        return ir.DenseI64ArrayAttr.get([DYNAMIC if v is None else v for v in value])

    def from_attr(self, attr):
        return tuple(None if v == DYNAMIC else v for v in ir.DenseI64ArrayAttr(attr))


class AxisArrayKind(Kind):
    """Split axes per tensor dimension: ``[[0], [1, 2]]``, ``#mesh.axisarray<[...]>`` in the IR.

    A sub-array may end with ``?`` (``[0, ?]``, ``[?]``): the dimension is
    *open*, sharding propagation may split it along more axes (spec 002's
    open dimension shardings).  The IR and the Python value hold it as the
    axis :data:`OPEN_AXIS` (-1) at the end of the sub-array.
    """

    name = "axis_array"
    default = ()
    pattern = r"\[\s*\[[-\d,\s?]*\](?:\s*,\s*\[[-\d,\s?]*\])*\s*\]"

    def parse(self, cur):
        start = cur.pos
        cur.expect("[")
        groups = []
        if not cur.accept("]"):
            while True:
                group = cur.int_list(allow_dynamic=True)
                if None in group[:-1]:
                    raise ParseError(start, "'?' (an open dimension) must be the last entry of its sub-array")
                groups.append(tuple(OPEN_AXIS if a is None else a for a in group))
                if cur.accept("]"):
                    break
                cur.expect(",")
        if not groups:
            raise ParseError(start, "expected at least one sub-array in the axes array, e.g. [[]]")
        return tuple(groups)

    def format(self, value):
        return "[" + ", ".join("[" + ", ".join("?" if a == OPEN_AXIS else str(a) for a in g) + "]" for g in value) + "]"

    def to_generic(self, value):
        inner = ", ".join(_i16_array(g) for g in value)
        return f"#mesh.axisarray<[{inner}]>"

    def from_generic(self, text):
        if not text.startswith("#mesh.axisarray<["):
            raise ValueError(f"expected a #mesh.axisarray attribute, got {text}")
        return tuple(_ints(m.group(1)) for m in _SUB_ARRAY.finditer(text))

    def from_attr(self, attr):
        try:
            groups = ir.ArrayAttr(ir.DynamicAttr(attr).params[0])
            return tuple(tuple(ir.DenseI16ArrayAttr(g)) for g in groups)
        except (ValueError, TypeError, AttributeError, IndexError):
            return self.from_generic(str(attr))


class ReductionKind(Kind):
    """A reduction kind: ``<max>`` (or ``max``) in the custom syntax, ``#mesh.partial<"max">``."""

    name = "reduction"
    default = "sum"
    pattern = r"<\s*\w+\s*>|[A-Za-z_]\w*"

    def parse(self, cur):
        start = cur.pos
        bracketed = cur.accept("<")
        value = cur.identifier()
        if bracketed:
            cur.expect(">")
        if value not in REDUCTION_KINDS:
            raise ParseError(
                start,
                f"unknown reduction kind '{value}'; expected one of {', '.join(REDUCTION_KINDS)}",
            )
        return value

    def format(self, value):
        return f"<{value}>"

    def to_generic(self, value):
        return f'#mesh.partial<"{value}">'

    def from_generic(self, text):
        m = _PARTIAL.match(text)
        if not m:
            raise ValueError(f"expected a #mesh.partial attribute, got {text}")
        return m.group(1)


class PartialKindKind(ReductionKind):
    """The reduction kind of a partial sharding, printed bare: ``partial = sum[1]``."""

    name = "partial_kind"
    glue_next = True

    def format(self, value):
        return value


class UnitKind(Kind):
    """A unit attribute: present (True) or absent (False); its keyword is in the format."""

    name = "unit"
    default = False
    pattern = ""

    def parse(self, cur):
        return True

    def format(self, value):
        return ""

    def to_generic(self, value):
        return "unit"

    def from_generic(self, text):
        return True

    def to_attr(self, value):
        return ir.UnitAttr.get()

    def from_attr(self, attr):
        return True


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        SymbolKind(),
        SymNameKind(),
        AxesKind(),
        IntKind("index", "index"),
        IntKind("i64", "i64"),
        I64ArrayKind(),
        AxisArrayKind(),
        ReductionKind(),
        PartialKindKind(),
        UnitKind(),
    )
}


def attr_value(op, name: str, kind: str):
    """Attribute ``name`` of ``op`` as a Python value of ``kind``, or the kind's default when absent."""
    attrs = op.attributes
    return KINDS[kind].value_of(attrs[name]) if name in attrs else KINDS[kind].default
