"""The ``#mesh.sharding`` attribute: a sharding written where no op can hold it.

Function arguments and results carry their input/output sharding (spec 002)
as the discardable attribute ``mesh.sharding``::

    func.func @main(%arg0: tensor<8x8xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[0], []]>})
        -> (tensor<8x8xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[], [1]], partial = sum[0]>})

The body repeats the custom spelling of ``mesh.sharding``: the mesh, the
split axes (open dimensions allowed), then optionally ``partial = <kind><axes>``,
``halo_sizes = [...]`` and ``sharded_dims_offsets = [...]`` (static only).

IRDL registers it as ``#mesh.sharding_attr`` (the dialect's symbol table
already has the op ``sharding``) with six parameters, always present::

    #mesh.sharding_attr<@mesh0, #mesh.axisarray<[...]>, array<i16: partial axes>,
                        #mesh.partial<"kind">, array<i64: halo sizes>, array<i64: offsets>>

:mod:`.syntax` translates between the two spellings around MLIR's parser and
printer, as it does for the op syntax.
"""

from __future__ import annotations

from typing import NamedTuple

from .kinds import KINDS
from .lexer import Cursor, ParseError, split_top_level

PUBLIC_PREFIX = "#mesh.sharding<"
INTERNAL_NAME = "sharding_attr"
INTERNAL_PREFIX = f"#mesh.{INTERNAL_NAME}<"


class ShardingSpec(NamedTuple):
    """The parameters of a ``#mesh.sharding`` attribute, as Python values."""

    mesh: str
    split_axes: tuple[tuple[int, ...], ...]
    partial_axes: tuple[int, ...] = ()
    partial_type: str = "sum"
    halo_sizes: tuple[int, ...] = ()
    sharded_dims_offsets: tuple[int, ...] = ()


def parse_body(cur: Cursor) -> ShardingSpec:
    """Parses ``<@mesh, [[0]], partial = sum[1], ...>`` (the cursor is at ``<``)."""
    cur.expect("<")
    mesh = KINDS["symbol"].parse(cur)
    cur.expect(",")
    split = KINDS["axis_array"].parse(cur)
    fields: dict[str, object] = {}
    while cur.accept(","):
        start = cur.pos
        key = cur.identifier()
        if key in fields:
            raise ParseError(start, f"'{key}' is given twice")
        cur.expect("=")
        if key == "partial":
            kind = KINDS["partial_kind"].parse(cur)
            fields["partial"] = (kind, KINDS["axes"].parse(cur))
        elif key in ("halo_sizes", "sharded_dims_offsets"):
            values = cur.int_list()
            fields[key] = tuple(values)
        else:
            raise ParseError(start, f"unknown #mesh.sharding field '{key}'; expected partial, halo_sizes or sharded_dims_offsets")
    cur.expect(">")
    kind, axes = fields.get("partial", ("sum", ()))
    return ShardingSpec(
        mesh, split, tuple(axes), kind, fields.get("halo_sizes", ()), fields.get("sharded_dims_offsets", ())
    )


def format_custom(spec: ShardingSpec) -> str:
    """The user spelling, ``#mesh.sharding<@mesh0, [[0]]>``."""
    parts = [KINDS["symbol"].format(spec.mesh), KINDS["axis_array"].format(spec.split_axes)]
    if spec.partial_axes:
        parts.append(f"partial = {spec.partial_type}{KINDS['axes'].format(spec.partial_axes)}")
    if spec.halo_sizes:
        parts.append("halo_sizes = " + KINDS["i64_array"].format(spec.halo_sizes))
    if spec.sharded_dims_offsets:
        parts.append("sharded_dims_offsets = " + KINDS["i64_array"].format(spec.sharded_dims_offsets))
    return PUBLIC_PREFIX + ", ".join(parts) + ">"


def format_generic(spec: ShardingSpec) -> str:
    """The IRDL spelling, ``#mesh.sharding_attr<...>`` with all six parameters."""
    return (
        f"{INTERNAL_PREFIX}{KINDS['symbol'].format(spec.mesh)}, {KINDS['axis_array'].to_generic(spec.split_axes)}, "
        f"{KINDS['axes'].to_generic(spec.partial_axes)}, {KINDS['partial_kind'].to_generic(spec.partial_type)}, "
        f"{KINDS['i64_array'].to_generic(spec.halo_sizes)}, {KINDS['i64_array'].to_generic(spec.sharded_dims_offsets)}>"
    )


def parse_generic(text: str) -> ShardingSpec:
    """Reads the inside of ``#mesh.sharding_attr<...>`` (without the brackets)."""
    fields = split_top_level(text)
    if len(fields) != 6:
        raise ValueError(f"#mesh.{INTERNAL_NAME} has 6 parameters, got {len(fields)}")
    mesh, split, partial_axes, kind, halos, offsets = (
        KINDS[k].from_generic(f.strip())
        for k, f in zip(("symbol", "axis_array", "axes", "partial_kind", "i64_array", "i64_array"), fields)
    )
    return ShardingSpec(mesh, split, partial_axes, kind, halos, offsets)
