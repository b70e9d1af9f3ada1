"""``convert-mesh-to-shard`` and ``convert-shard-to-mesh``: to and from upstream's dialect.

Spec 003 is the ``mesh`` dialect after its upstream rename to ``shard``.
The conversion is op by op and lossless both ways for every op both
dialects have:

=====================  ========================  ===============================
mesh                   shard                     renamed attributes / values
=====================  ========================  ===============================
mesh.mesh              shard.grid
mesh.mesh_shape        shard.grid_shape
every collective       same name                 ``mesh`` -> ``grid``,
                                                 ``mesh_axes`` -> ``grid_axes``
mesh.reduce_scatter,   same name                 ``scatter_axis`` -> ``scatter_dim``
mesh.scatter
mesh.sharding          shard.sharding            ``#mesh.axisarray<[...]>`` ->
                                                 ``#shard<axisarray[...]>``
``reduction``                                    ``#mesh.partial<"max">`` ->
                                                 ``#shard<partial max>``
``!mesh.sharding``     ``!shard.sharding``
=====================  ========================  ===============================

What one side cannot say is a located error and nothing is changed:
partial axes in a sharding (upstream removed them), open dimensions in a
sharding (spec 002's ``?``), ``mesh.sharding_group``
(spec 002, no upstream op), ``mesh.shard_shape`` (it takes a linear device
index, upstream's a multi-index), an ``update_halo`` with a source other
than its destination (upstream updates in place); and from ``shard``,
``shard.get_sharding``, ``shard.neighbors_linear_indices`` and
``shard.shard_shape``.  Function argument and result ``mesh.sharding``
attributes are this project's extension (spec 002); they stay as they are
in both directions (upstream passes ignore them).
"""

from __future__ import annotations

import re

from .._mlir import ir
from ..diagnostics import emit
from ..irutil import walk
from ..dialect.defs import mesh_defs
from ..dialect.kinds import KINDS, attr_value
from . import PassFailure, register

OP_NAMES = {"mesh.mesh": "shard.grid", "mesh.mesh_shape": "shard.grid_shape"}
for _name in (
    "process_linear_index process_multi_index sharding shard all_gather all_reduce all_slice all_to_all "
    "broadcast gather reduce reduce_scatter scatter send recv shift update_halo"
).split():
    OP_NAMES[f"mesh.{_name}"] = f"shard.{_name}"
SHARD_NAMES = {v: k for k, v in OP_NAMES.items()}

_ATTR_NAMES = {"mesh": "grid", "mesh_axes": "grid_axes"}
_SCATTER_OPS = ("mesh.reduce_scatter", "mesh.scatter")

NO_SHARD_COUNTERPART = {
    "mesh.sharding_group": "sharding groups (spec 002) have no upstream op",
    "mesh.shard_shape": "mesh.shard_shape takes a linear device index, shard.shard_shape a multi-index",
}
NO_MESH_COUNTERPART = {
    "shard.get_sharding": "the mesh dialect has no get_sharding",
    "shard.neighbors_linear_indices": "the mesh dialect has no neighbors_linear_indices",
    "shard.shard_shape": "shard.shard_shape takes a device multi-index, mesh.shard_shape a linear index",
}


def _attr_name(op_name: str, name: str) -> str:
    if op_name in _SCATTER_OPS and name == "scatter_axis":
        return "scatter_dim"
    return _ATTR_NAMES.get(name, name)


_MESH_ATTR_NAMES = {v: k for k, v in _ATTR_NAMES.items()}


def _mesh_attr_name(op_name: str, name: str) -> str:
    if op_name in _SCATTER_OPS and name == "scatter_dim":
        return "scatter_axis"
    return _MESH_ATTR_NAMES.get(name, name)


# ------------------------------------------------------------------ attribute values


def _axis_array_to_shard(attr) -> ir.Attribute:
    groups = KINDS["axis_array"].value_of(attr)
    text = ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups)
    return ir.Attribute.parse(f"#shard<axisarray[{text}]>")


def _axis_array_to_mesh(attr) -> ir.Attribute:
    m = re.fullmatch(r"#shard<axisarray\[(.*)\]>", str(attr), re.S)
    if m is None:
        raise ValueError(f"expected a #shard<axisarray[...]>, got {attr}")
    groups = tuple(tuple(int(a) for a in g.split(",") if a.strip()) for g in re.findall(r"\[([^\[\]]*)\]", m.group(1)))
    return KINDS["axis_array"].to_attr(groups)


def _reduction_to_shard(attr) -> ir.Attribute:
    return ir.Attribute.parse(f"#shard<partial {KINDS['reduction'].value_of(attr)}>")


def _reduction_to_mesh(attr) -> ir.Attribute:
    m = re.fullmatch(r"#shard<partial (\w+)>", str(attr))
    if m is None:
        raise ValueError(f"expected a #shard<partial ...>, got {attr}")
    return KINDS["reduction"].to_attr(m.group(1))


def _sharding_type(dialect: str) -> ir.Type:
    if dialect == "mesh":  # an IRDL type: its internal name differs from the spelling of the spec
        return ir.Type.parse(f"!mesh.{mesh_defs().sharding_type_irdl_name}")
    return ir.Type.parse("!shard.sharding")


# ------------------------------------------------------------------ mesh -> shard


def _mesh_problem(op) -> str | None:
    name = op.name
    if name in NO_SHARD_COUNTERPART:
        return f"'{name}' has no counterpart in the shard dialect: {NO_SHARD_COUNTERPART[name]}"
    if name == "mesh.sharding" and attr_value(op, "partial_axes", "axes"):
        return "a sharding with partial axes has no counterpart in the shard dialect (upstream removed them)"
    if name == "mesh.sharding" and any(a < 0 for g in attr_value(op, "split_axes", "axis_array") for a in g):
        return "a sharding with open dimensions (spec 002's '?') has no counterpart in the shard dialect"
    if name == "mesh.update_halo" and not _in_place_halo(op):
        return "an update_halo whose source is not its destination has no counterpart in the shard dialect"
    return None


def _in_place_halo(op) -> bool:
    """Source and destination are one buffer with the same halo sizes."""
    attrs = op.attributes
    static = [str(attrs[k]) if k in attrs else "" for k in ("static_source_halo_sizes", "static_destination_halo_sizes")]
    seg = _segments(op)
    operands = list(op.operands)
    source_halos = operands[2 : 2 + seg[2]]
    destination_halos = operands[2 + seg[2] : 2 + seg[2] + seg[3]]
    return (
        operands[0] == operands[1]
        and static[0] == static[1]
        and len(source_halos) == len(destination_halos)
        and all(a == b for a, b in zip(source_halos, destination_halos))
    )


def _to_shard(op):
    name = op.name
    attrs = {}
    for i in range(len(op.attributes)):
        a = op.attributes[i]
        key, value = a.name, a.attr
        if key == "partial_axes" or key == "partial_type":
            continue  # checked empty above
        if key == "split_axes":
            value = _axis_array_to_shard(value)
        elif key == "reduction":
            value = _reduction_to_shard(value)
        attrs[_attr_name(name, key)] = value
    operands = list(op.operands)
    if name == "mesh.update_halo":  # in place: the destination and its halo sizes
        attrs.pop("static_source_halo_sizes", None)
        if "static_destination_halo_sizes" in attrs:
            attrs["static_halo_sizes"] = attrs.pop("static_destination_halo_sizes")
        segments = _segments(op)
        destination_halos = operands[2 + segments[2] : 2 + segments[2] + segments[3]]
        operands = [operands[1]] + destination_halos
        attrs.pop("operandSegmentSizes", None)
    return OP_NAMES[name], operands, attrs


def _segments(op) -> list[int]:
    if "operandSegmentSizes" in op.attributes:
        return list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    return [1, 1, 0, 0]


# ------------------------------------------------------------------ shard -> mesh


def _shard_problem(op) -> str | None:
    if op.name in NO_MESH_COUNTERPART:
        return f"'{op.name}' has no counterpart in the mesh dialect: {NO_MESH_COUNTERPART[op.name]}"
    return None


def _to_mesh(op):
    name = SHARD_NAMES[op.name]
    opdef = mesh_defs().ops[name.split(".", 1)[1]]
    kinds = {a.name: (a.kind, a.optional) for a in opdef.attributes}
    attrs = {}
    for i in range(len(op.attributes)):
        a = op.attributes[i]
        key, value = _mesh_attr_name(name, a.name), a.attr
        if key == "split_axes":
            value = _axis_array_to_mesh(value)
        elif key == "reduction":
            value = _reduction_to_mesh(value)
        attrs[key] = value
    operands = list(op.operands)
    if name == "mesh.update_halo":  # in place: source and destination are the same buffer
        halos = operands[1:]
        if "static_halo_sizes" in attrs:
            attrs["static_source_halo_sizes"] = attrs["static_destination_halo_sizes"] = attrs.pop("static_halo_sizes")
        operands = [operands[0], operands[0]] + halos + halos
        attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([1, 1, len(halos), len(halos)])
    # upstream spells defaults out; the mesh dialect leaves optional attributes at their default away
    for key in list(attrs):
        kind, optional = kinds.get(key, (None, False))
        if optional and kind is not None and KINDS[kind].is_default(KINDS[kind].value_of(attrs[key])):
            del attrs[key]
    return name, operands, attrs


# ------------------------------------------------------------------ driver



def _convert(module, source: str, target: str, problem, rewrite) -> None:
    module = module.operation if hasattr(module, "operation") else module
    ops = [op for op in walk(module) if op.name.startswith(source + ".")]
    problems = [(op, problem(op)) for op in ops]
    problems = [(op, p) for op, p in problems if p]
    for op, p in problems:
        emit("error", op.location, p)
    if problems:
        raise PassFailure()
    old_type, new_type = _sharding_type(source), _sharding_type(target)
    for op in ops:
        name, operands, attrs = rewrite(op)
        types = [new_type if r.type == old_type else r.type for r in op.results]
        new = ir.Operation.create(name, results=types, operands=operands, attributes=attrs, loc=op.location,
                                  ip=ir.InsertionPoint(op))
        for old, value in zip(op.results, new.results):
            old.replace_all_uses_with(value)
        op.erase()


def convert_mesh_to_shard(module) -> None:
    """Rewrites every mesh op into upstream's shard dialect (located errors where none exists)."""
    _convert(module, "mesh", "shard", _mesh_problem, _to_shard)


def convert_shard_to_mesh(module) -> None:
    """Rewrites every shard op into the mesh dialect (located errors where none exists)."""
    _convert(module, "shard", "mesh", _shard_problem, _to_mesh)


@register("convert-mesh-to-shard", "Convert mesh ops to upstream's shard dialect (spec 003), losslessly.")
def _to_shard_pass(module) -> None:
    convert_mesh_to_shard(module)


@register("convert-shard-to-mesh", "Convert upstream shard ops to the mesh dialect (spec 003), losslessly.")
def _to_mesh_pass(module) -> None:
    convert_shard_to_mesh(module)
