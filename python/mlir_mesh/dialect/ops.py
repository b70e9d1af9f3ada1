"""The mesh dialect as Python classes, registered in MLIR through IRDL.

:data:`MeshDialect` and one ``dialects.ext`` op class per op of
``dialect_defs/mesh.toml`` are generated here.  ``dialects.ext`` lowers them
to IRDL, registers them and attaches the ``Pure`` trait and the Python
verifier; this module adds what ext lacks:

* optional attributes (IRDL only knows required ones: optional attributes
  are left out of the IRDL definition and checked by the Python verifier),
* keyword builders taking Python values (axes as tuples, ``None`` for a
  dynamic size, mixed ints and ``ir.Value`` for dynamic index lists),
* typed accessors returning those Python values.
"""

# No `from __future__ import annotations`: dialects.ext reads the class
# annotations as live objects.
from typing import Any, Sequence

from .._mlir import ext, ir
from . import sharding_attr, verifiers
from .defs import OpDef, mesh_defs
from .format import DynamicIndexList
from .kinds import KINDS
from .syntax import compiled_formats


class MeshDialect(ext.Dialect, name="mesh"):
    """The ``mesh`` dialect (spec 001)."""


class ShardingType(MeshDialect.Type, name=mesh_defs().sharding_type_irdl_name):
    """``!mesh.sharding``: the value defined by ``mesh.sharding``."""


class PartialAttr(MeshDialect.Attribute, name="partial"):
    """``#mesh.partial<"sum">``: a reduction kind."""

    value: ir.StringAttr


class AxisArrayAttr(MeshDialect.Attribute, name="axisarray"):
    """``#mesh.axisarray<[array<i16: 0>, array<i16>]>``: split axes per tensor dimension."""

    axes: ir.ArrayAttr


class ShardingAttr(MeshDialect.Attribute, name=sharding_attr.INTERNAL_NAME):
    """``#mesh.sharding<@mesh0, [[0], []]>``: a sharding on a function argument or result.

    Use :class:`mlir_mesh.sharding.Sharding` to build and read it.
    """

    mesh: ir.FlatSymbolRefAttr
    split_axes: AxisArrayAttr
    partial_axes: Any
    partial_type: PartialAttr
    halo_sizes: Any
    sharded_dims_offsets: Any


_OPERAND_CONSTRAINTS = {
    "ranked_tensor": ir.RankedTensorType,
    "nonzero_ranked_tensor": ir.RankedTensorType,
    "shaped": ir.RankedTensorType | ir.MemRefType,
    "index": ir.IndexType,
    "i64": ir.IntegerType,
    "sharding": ShardingType,
}

_ATTR_CONSTRAINTS = {
    "symbol": ir.FlatSymbolRefAttr,
    "sym_name": ir.StringAttr,
    "axes": Any,
    "index": ir.IntegerAttr,
    "i64": ir.IntegerAttr,
    "i64_array": Any,
    "axis_array": AxisArrayAttr,
    "reduction": PartialAttr,
    "partial_kind": PartialAttr,
    "unit": ir.UnitAttr,
}


def _class_name(op_name: str) -> str:
    return "".join(p.capitalize() for p in op_name.split("_")) + "Op"


def _builder_name(attr: str) -> str:
    return attr.removeprefix("static_")


def _dynamic_lists(fmt) -> dict[str, DynamicIndexList]:
    """The dynamic index lists of a format, by builder parameter name."""
    return {_builder_name(el.attr): el for el in fmt.dynamic_index_lists}


def _annotations(opdef: OpDef) -> dict[str, Any]:
    ann: dict[str, Any] = {}
    for o in opdef.operands:
        t = ext.Operand[_OPERAND_CONSTRAINTS[o.kind]]
        ann[o.name] = Sequence[t] if o.variadic else t
    for a in opdef.attributes:
        if not a.optional:
            ann[a.name] = _ATTR_CONSTRAINTS[a.kind]
    for r in opdef.results:
        t = ext.Result[_OPERAND_CONSTRAINTS[r.kind]]
        ann[r.name] = Sequence[t] if r.variadic else t
    return ann


def _make_op_class(opdef: OpDef) -> type:
    fmt = compiled_formats()[opdef.name]
    traits = [ext.Pure] if "Pure" in opdef.traits else []

    def verify_invariants(op):
        return verifiers.verify(op, opdef, fmt)

    namespace = {
        "__annotations__": _annotations(opdef),
        "__doc__": f"``{opdef.full_name}``: {opdef.summary}\n\nExample: ``{opdef.example}``",
        "verify_invariants": staticmethod(verify_invariants),
        "OPDEF": opdef,
    }
    cls = type(_class_name(opdef.name), (MeshDialect.Operation,), namespace, name=opdef.name, traits=traits)
    dynamic = _dynamic_lists(fmt)
    _add_accessors(cls, opdef, dynamic)
    cls.__init__ = _make_builder(opdef, dynamic)
    return cls


# ------------------------------------------------------------------ accessors


def _add_accessors(cls, opdef: OpDef, dynamic: dict[str, DynamicIndexList]) -> None:
    for a in opdef.attributes:
        kind = KINDS[a.kind]

        def get(self, name=a.name, kind=kind):
            attrs = self.operation.attributes
            return kind.value_of(attrs[name]) if name in attrs else kind.default

        setattr(cls, a.name, property(get, doc=f"``{a.name}`` as a Python value ({a.kind})."))

    for o in opdef.operands:
        if o.variadic:
            getter = lambda self, name=o.name: verifiers.operand_group(self.operation, opdef, name)
        else:
            getter = lambda self, name=o.name: verifiers.operand_group(self.operation, opdef, name)[0]
        setattr(cls, o.name, property(getter))

    for i, r in enumerate(opdef.results):
        if r.variadic:
            getter = lambda self: list(self.operation.results)
        else:
            getter = lambda self, i=i: self.operation.results[i]
        setattr(cls, r.name, property(getter))

    for param, el in dynamic.items():
        kind = KINDS["i64_array"]

        def mixed(self, el=el, kind=kind):
            attrs = self.operation.attributes
            static = kind.value_of(attrs[el.attr]) if el.attr in attrs else ()
            values = iter(verifiers.operand_group(self.operation, opdef, el.operands))
            return tuple(next(values) if s is None else s for s in static)

        setattr(cls, param, property(mixed, doc=f"``{param}``: ints, with ``ir.Value`` for dynamic entries."))


# ------------------------------------------------------------------ builders


def _make_builder(opdef: OpDef, dynamic: dict[str, DynamicIndexList]):
    dynamic_operands = {el.operands for el in dynamic.values()}
    dynamic_attrs = {el.attr for el in dynamic.values()}
    plain_operands = [o for o in opdef.operands if o.name not in dynamic_operands]
    plain_attrs = [a for a in opdef.attributes if a.name not in dynamic_attrs]

    def __init__(self, *args, loc=None, ip=None, **kwargs):
        kwargs = dict(kwargs)
        operands: dict[str, list[ir.Value]] = {}
        if len(args) > len(plain_operands):
            raise TypeError(f"{opdef.full_name} takes {len(plain_operands)} positional operands")
        for o, value in zip(plain_operands, args):
            operands[o.name] = list(value) if o.variadic else [value]
        for o in plain_operands[len(args) :]:
            if o.name not in kwargs:
                raise TypeError(f"{opdef.full_name}: missing operand '{o.name}'")
            value = kwargs.pop(o.name)
            operands[o.name] = list(value) if o.variadic else [value]
        attributes: dict[str, ir.Attribute] = {}
        for param, el in dynamic.items():
            entries = kwargs.pop(param, None)
            if entries is None:
                operands[el.operands] = []
                continue
            static = tuple(e if isinstance(e, int) else None for e in entries)
            attributes[el.attr] = KINDS["i64_array"].to_attr(static)
            operands[el.operands] = [e for e in entries if not isinstance(e, int)]
        for a in plain_attrs:
            if a.name not in kwargs:
                if not a.optional:
                    raise TypeError(f"{opdef.full_name}: missing attribute '{a.name}'")
                continue
            value = kwargs.pop(a.name)
            if a.kind == "symbol" and isinstance(value, ir.OpView):
                value = ir.StringAttr(value.operation.attributes["sym_name"]).value
            if a.kind == "unit" and not value:
                continue
            if value is None or (a.optional and KINDS[a.kind].is_default(value)):
                continue
            attributes[a.name] = KINDS[a.kind].to_attr(value)
        results = _result_types(opdef, operands, attributes, kwargs)
        if kwargs:
            raise TypeError(f"{opdef.full_name}: unexpected arguments {sorted(kwargs)}")
        flat = [v for o in opdef.operands for v in operands.get(o.name, ())]
        if opdef.variadic_operand_groups > 1:
            attributes["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get(
                [len(operands.get(o.name, ())) for o in opdef.operands]
            )
        op = ir.Operation.create(
            opdef.full_name, results=results, operands=flat, attributes=attributes, loc=loc, ip=ip
        )
        ir.OpView.__init__(self, op)

    __init__.__doc__ = _builder_doc(opdef, plain_operands, plain_attrs, dynamic)
    return __init__


def _result_types(opdef, operands, attributes, kwargs) -> list[ir.Type]:
    types: list[ir.Type] = []
    for r in opdef.results:
        if r.variadic:
            given = kwargs.pop("result_types", None)
            if given is None:
                count = _inferred_result_count(opdef, attributes)
                if count is None:
                    raise TypeError(f"{opdef.full_name}: pass result_types")
                given = [ir.IndexType.get()] * count
            types.extend(given)
            continue
        given = kwargs.pop("result_type", None)
        if given is None:
            if r.kind == "sharding":
                given = ShardingType.get()
            elif r.kind == "index":
                given = ir.IndexType.get()
            elif r.name in opdef.same_type.values():
                source = next(o for o, target in opdef.same_type.items() if target == r.name)
                given = operands[source][0].type
            else:
                raise TypeError(f"{opdef.full_name}: pass result_type")
        types.append(given)
    return types


def _inferred_result_count(opdef, attributes) -> int | None:
    for name in ("axes", "shape"):
        if name in attributes:
            return len(KINDS["axes" if name == "axes" else "i64_array"].from_attr(attributes[name]))
    return None


def _builder_doc(opdef, operands, attrs, dynamic) -> str:
    params = [o.name for o in operands]
    params += [f"{a.name}=" for a in attrs] + [f"{p}=" for p in dynamic]
    return f"Builds ``{opdef.full_name}``: {opdef.summary} Parameters: {', '.join(params)}."


# ------------------------------------------------------------------ the classes

OP_CLASSES: dict[str, type] = {name: _make_op_class(op) for name, op in mesh_defs().ops.items()}
globals().update({cls.__name__: cls for cls in OP_CLASSES.values()})

__all__ = ["MeshDialect", "ShardingType", "PartialAttr", "AxisArrayAttr", "ShardingAttr", "OP_CLASSES"] + [
    cls.__name__ for cls in OP_CLASSES.values()
]
