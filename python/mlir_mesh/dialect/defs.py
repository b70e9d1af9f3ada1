"""Reads ``dialect_defs/mesh.toml`` into plain Python records.

Everything else in the dialect package (IRDL registration, op classes,
assembly formats, verifiers) is derived from these records.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass, field
from importlib import resources

#: Element type names of operands and results whose type is fixed by the kind.
FIXED_TYPES = {"index": "index", "i64": "i64", "sharding": "!mesh.sharding"}

OPERAND_KINDS = {"ranked_tensor", "nonzero_ranked_tensor", "shaped", *FIXED_TYPES}
ATTRIBUTE_KINDS = {
    "symbol",
    "sym_name",
    "axes",
    "index",
    "i64",
    "i64_array",
    "axis_array",
    "reduction",
    "partial_kind",
    "unit",
}


@dataclass(frozen=True)
class ValueDef:
    """An operand or a result: its name, constraint kind and variadicity."""

    name: str
    kind: str
    variadic: bool

    @property
    def fixed_type(self) -> str | None:
        """The public spelling of the type when the kind fixes it, else None."""
        return FIXED_TYPES.get(self.kind)


@dataclass(frozen=True)
class AttrDef:
    """An attribute: its name, kind and whether it may be absent."""

    name: str
    kind: str
    optional: bool


@dataclass(eq=False)
class OpDef:
    """One op of the dialect as written in the TOML file."""

    name: str
    summary: str
    example: str
    traits: tuple[str, ...]
    operands: tuple[ValueDef, ...]
    attributes: tuple[AttrDef, ...]
    results: tuple[ValueDef, ...]
    same_type: dict[str, str]
    format: str
    verify: tuple[str, ...]
    attr_by_name: dict[str, AttrDef] = field(init=False, repr=False)

    def __post_init__(self):
        self.attr_by_name = {a.name: a for a in self.attributes}

    @property
    def full_name(self) -> str:
        return f"mesh.{self.name}"

    @property
    def variadic_operand_groups(self) -> int:
        return sum(o.variadic for o in self.operands)


@dataclass
class DialectDef:
    """The whole dialect: its name, type and attribute names, and its ops."""

    name: str
    summary: str
    sharding_type_irdl_name: str
    reduction_kinds: tuple[str, ...]
    ops: dict[str, OpDef]


def _values(table: dict[str, str], suffix: str) -> tuple[ValueDef, ...]:
    out = []
    for name, kind in table.items():
        variadic = kind.endswith(suffix)
        kind = kind.rstrip(suffix)
        if kind not in OPERAND_KINDS:
            raise ValueError(f"unknown value kind '{kind}' for '{name}'")
        out.append(ValueDef(name, kind, variadic))
    return tuple(out)


def _attributes(table: dict[str, str]) -> tuple[AttrDef, ...]:
    out = []
    for name, kind in table.items():
        optional = kind.endswith("?")
        kind = kind.rstrip("?")
        if kind not in ATTRIBUTE_KINDS:
            raise ValueError(f"unknown attribute kind '{kind}' for '{name}'")
        out.append(AttrDef(name, kind, optional))
    return tuple(out)


def parse_defs(text: str) -> DialectDef:
    """Builds a DialectDef from the text of a dialect_defs TOML file."""
    data = tomllib.loads(text)
    ops = {}
    for name, op in data["ops"].items():
        ops[name] = OpDef(
            name=name,
            summary=op["summary"],
            example=op.get("example", ""),
            traits=tuple(op.get("traits", ())),
            operands=_values(op.get("operands", {}), "*"),
            attributes=_attributes(op.get("attributes", {})),
            results=_values(op.get("results", {}), "*"),
            same_type=dict(op.get("same_type", {})),
            format=op["format"],
            verify=tuple(op.get("verify", ())),
        )
    return DialectDef(
        name=data["dialect"]["name"],
        summary=data["dialect"]["summary"],
        sharding_type_irdl_name=data["types"]["sharding"]["irdl_name"],
        reduction_kinds=tuple(data["attributes"]["partial"]["values"]),
        ops=ops,
    )


@functools.cache
def mesh_defs() -> DialectDef:
    """The definition of the mesh dialect shipped with the package."""
    text = resources.files("mlir_mesh.dialect_defs").joinpath("mesh.toml").read_text()
    return parse_defs(text)
