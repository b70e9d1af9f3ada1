"""Verifiers of the mesh ops: every rule spec 001 states or implies.

Each op lists its rules in ``dialect_defs/mesh.toml`` as ``rule`` or
``rule:argument``; :func:`verify` runs them.  A rule raises
:class:`VerifyError`, which becomes an MLIR error at the op's location
(``'mesh.all_gather' op ...``), never a Python exception for the user.
Checks every op gets without listing them: attribute kinds, operand kinds,
the ``mesh`` symbol naming a ``mesh.mesh``, and dynamic index lists whose
``?`` entries match their SSA operands.
"""

from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass
from typing import Callable, Iterator

from .._mlir import ir
from .defs import OpDef
from .hitrate import HitRate
from .kinds import DYNAMIC, KINDS, OPEN_AXIS, REDUCTION_KINDS


class VerifyError(Exception):
    """A verifier rule failed; the message becomes the op's diagnostic."""


class OpView:
    """What the rules see of one op: attribute values (read once), operand groups, its mesh."""

    __slots__ = ("op", "opdef", "_attrs", "_values", "_groups", "_mesh_shape")

    def __init__(self, op: ir.OpView, opdef: OpDef):
        self.op = op
        self.opdef = opdef
        self._attrs = op.operation.attributes
        self._values: dict[str, object] = {}
        self._groups: dict[str, list[ir.Value]] | None = None
        self._mesh_shape = False

    def attr(self, name: str):
        """The Python value of an attribute, or its kind's default when absent."""
        if name in self._values:
            return self._values[name]
        kind = KINDS[self.opdef.attr_by_name[name].kind]
        attrs = self._attrs
        value = kind.value_of(attrs[name]) if name in attrs else kind.default
        self._values[name] = value
        return value

    def has(self, name: str) -> bool:
        return name in self._attrs

    def group(self, name: str) -> list[ir.Value]:
        """The operands of group ``name``."""
        if self._groups is None:
            self._groups = operand_groups(self.op.operation, self.opdef)
        return self._groups[name]

    def value(self, name: str) -> ir.Value:
        """The single operand or result called ``name``."""
        for r_index, r in enumerate(self.opdef.results):
            if r.name == name:
                return self.op.operation.results[r_index]
        return self.group(name)[0]

    @property
    def mesh_shape(self) -> tuple[int | None, ...] | None:
        """The shape of the op's mesh (None entries are dynamic), or None if unknown."""
        if self._mesh_shape is False:
            self._mesh_shape = _mesh_shape(self.op.operation, self.attr("mesh"))
        return self._mesh_shape

    def group_size(self, axes) -> int | None:
        """Devices in one group over ``axes``, or None if a size is dynamic."""
        shape = self.mesh_shape
        if shape is None:
            return None
        sizes = [shape[a] for a in axes if 0 <= a < len(shape)]
        if any(s is None for s in sizes):
            return None
        return math.prod(sizes)


# ------------------------------------------------------------------ helpers


def lookup_mesh(op: ir.Operation, name: str) -> ir.Operation | None:
    """The ``mesh.mesh`` op called ``name`` in the nearest enclosing module."""
    parent = _enclosing_module(op)
    if parent is None:
        return None
    for candidate in parent.regions[0].blocks[0].operations:
        candidate = candidate.operation
        if candidate.name == "mesh.mesh":
            attrs = candidate.attributes
            if "sym_name" in attrs and ir.StringAttr(attrs["sym_name"]).value == name:
                return candidate
    return None


def _enclosing_module(op: ir.Operation) -> ir.Operation | None:
    parent = op.parent
    while parent is not None and parent.name != "builtin.module":
        parent = parent.parent
    return parent


def _mesh_shape(op: ir.Operation, name: str) -> tuple[int | None, ...] | None:
    """The shape of mesh ``@name`` seen from ``op`` (remembered per module inside a memo window)."""
    if _MEMO is None:
        mesh = lookup_mesh(op, name)
        return None if mesh is None else mesh_shape_of(mesh)
    module = _enclosing_module(op)
    key = (module, name)
    shape = _MEMO.meshes.get(key, _MEMO)
    if shape is _MEMO:
        mesh = lookup_mesh(op, name)
        shape = _MEMO.meshes[key] = None if mesh is None else mesh_shape_of(mesh)
    return shape


def mesh_shape_of(mesh: ir.Operation) -> tuple[int | None, ...]:
    attrs = mesh.attributes
    if "shape" not in attrs or not isinstance(attrs["shape"], ir.DenseI64ArrayAttr):
        return ()
    return KINDS["i64_array"].value_of(attrs["shape"])


_SHAPES: dict[ir.Type, tuple | None] = {}


def shape_of(value: ir.Value) -> tuple[int | None, ...] | None:
    """The shape of a ranked tensor or memref value, None entries dynamic.

    Cached on the type: MLIR uniques types and the bindings hash them by
    storage, and reading a shape through the bindings is slow.
    """
    return shape_of_type(value.type)


def shape_of_type(t: ir.Type) -> tuple[int | None, ...] | None:
    """``shape_of`` for a type."""
    shape = _SHAPES.get(t, _SHAPES)
    if shape is _SHAPES:
        if len(_SHAPES) >= 4096:
            _SHAPES.clear()
        shape = _SHAPES[t] = _read_shape(t)
    return shape


def _read_shape(t: ir.Type) -> tuple[int | None, ...] | None:
    if not isinstance(t, (ir.RankedTensorType, ir.MemRefType)):
        try:
            t = ir.RankedTensorType(t)
        except ValueError:
            return None
    return tuple(None if d == DYNAMIC else d for d in t.shape)


def element_type(value: ir.Value) -> ir.Type:
    return ir.ShapedType(value.type).element_type


def _fmt_dims(shape) -> str:
    return "x".join("?" if d is None else str(d) for d in shape)


def _axis_attr(v: OpView, name: str, rank: int) -> int:
    axis = v.attr(name)
    if not 0 <= axis < rank:
        raise VerifyError(f"{name} {axis} is out of range for a tensor of rank {rank}")
    return axis


def _check_mesh_axes(v: OpView, axes, what: str) -> None:
    shape = v.mesh_shape
    if shape is None:
        return
    seen = set()
    for a in axes:
        if not 0 <= a < len(shape):
            raise VerifyError(f"{what} contains axis {a}, out of range for mesh of rank {len(shape)}")
        if a in seen:
            raise VerifyError(f"{what} contains axis {a} more than once")
        seen.add(a)


def _shapes(v: OpView):
    src, dst = shape_of(v.value("input")), shape_of(v.value("result"))
    if len(src) != len(dst):
        raise VerifyError(f"result rank {len(dst)} differs from input rank {len(src)}")
    return src, dst


def _check_other_dims(src, dst, skip) -> None:
    for d, (a, b) in enumerate(zip(src, dst)):
        if d not in skip and a is not None and b is not None and a != b:
            raise VerifyError(
                f"result dimension {d} has size {b}, expected {a} (the input's)"
            )


def _expect_size(dim: int, got, expected, why: str) -> None:
    if got is not None and expected is not None and got != expected:
        raise VerifyError(f"result dimension {dim} has size {got}, expected {expected} ({why})")


# ------------------------------------------------------------------ rules

RULES: dict[str, Callable[..., None]] = {}


def rule(fn):
    RULES[fn.__name__] = fn
    return fn


@rule
def axes(v: OpView, name: str) -> None:
    _check_mesh_axes(v, v.attr(name), name)


@rule
def index_per_axis(v: OpView, name: str) -> None:
    axes_ = v.attr(name)
    expected = len(axes_) if axes_ else (None if v.mesh_shape is None else len(v.mesh_shape))
    got = len(v.op.operation.results)
    if expected is not None and got != expected:
        what = f"{len(axes_)} axes" if axes_ else f"a mesh of rank {expected}"
        raise VerifyError(f"has {got} results, expected {expected} (one per axis of {what})")


@rule
def mesh_shape(v: OpView) -> None:
    shape = v.attr("shape")
    if not shape:
        raise VerifyError("rank of mesh is expected to be a positive integer")
    for d in shape:
        if d is not None and d < 0:
            raise VerifyError(f"dimension size {d} of mesh is negative; sizes are >= 0 or ?")


@rule
def split_axes(v: OpView, name: str) -> None:
    seen = set()
    shape = v.mesh_shape
    for dim, group in enumerate(v.attr(name)):
        if group and group[-1] == OPEN_AXIS:
            if not v.opdef.name == "sharding":
                raise VerifyError(f"{name} of tensor dimension {dim} is open ('?'), which only a sharding allows")
            group = group[:-1]
        for a in group:
            if shape is not None and not 0 <= a < len(shape):
                raise VerifyError(
                    f"{name} uses mesh axis {a} (tensor dimension {dim}), out of range for mesh of rank {len(shape)}"
                )
            if a in seen:
                raise VerifyError(f"mesh axis {a} is used more than once in {name}")
            seen.add(a)


@rule
def partial(v: OpView) -> None:
    axes_ = v.attr("partial_axes")
    _check_mesh_axes(v, axes_, "partial_axes")
    split = {a for g in v.attr("split_axes") for a in g}
    for a in axes_:
        if a in split:
            raise VerifyError(f"mesh axis {a} is both a split axis and a partial axis")
    if axes_ and v.attr("partial_type") == "generic":
        raise VerifyError("reduction kind 'generic' is not allowed in a sharding")


@rule
def halo_and_offsets(v: OpView) -> None:
    halos = v.attr("static_halo_sizes")
    offsets = v.attr("static_sharded_dims_offsets")
    split = v.attr("split_axes")
    if halos and offsets:
        raise VerifyError("halo_sizes and sharded_dims_offsets are mutually exclusive")
    split = [g[:-1] if g and g[-1] == OPEN_AXIS else g for g in split]
    split_dims = [g for g in split if g]
    if halos:
        if len(halos) != 2 * len(split_dims):
            raise VerifyError(
                f"halo_sizes has {len(halos)} entries, expected {2 * len(split_dims)} "
                f"(2 per split tensor dimension)"
            )
        for h in halos:
            if h is not None and h < 0:
                raise VerifyError(f"halo size {h} is negative")
    if offsets:
        shape = v.mesh_shape
        if shape is None:
            return
        i = 0
        for dim, group in enumerate(split):
            if not group:
                continue
            sizes = [shape[a] for a in group]
            if any(s is None for s in sizes):
                return  # dynamic mesh: the count cannot be checked
            count = math.prod(sizes) + 1
            dim_offsets = offsets[i : i + count]
            if len(dim_offsets) != count:
                break
            known = [o for o in dim_offsets if o is not None]
            if any(b < a for a, b in zip(known, known[1:])):
                raise VerifyError(f"sharded_dims_offsets of tensor dimension {dim} are not non-decreasing")
            i += count
        expected = sum(
            math.prod(shape[a] for a in g) + 1 for g in split if g
        )
        if len(offsets) != expected:
            raise VerifyError(
                f"sharded_dims_offsets has {len(offsets)} entries, expected {expected} "
                f"(shards + 1 per split tensor dimension)"
            )


@rule
def same_type(v: OpView, a: str, b: str) -> None:
    ta, tb = v.value(a).type, v.value(b).type
    if ta != tb:
        raise VerifyError(f"type of '{b}' ({tb}) differs from type of '{a}' ({ta})")


@rule
def same_element_type(v: OpView) -> None:
    a, b = element_type(v.value("input")), element_type(v.value("result"))
    if a != b:
        raise VerifyError(f"result element type {b} differs from input element type {a}")


@rule
def same_shape(v: OpView) -> None:
    src, dst = shape_of(v.value("input")), shape_of(v.value("result"))
    if src != dst:
        raise VerifyError(
            f"result shape {_fmt_dims(dst)} differs from input shape {_fmt_dims(src)}"
        )


def _check_multiplied(src, dst, axis: int, g: int | None) -> None:
    """Result dimension ``axis`` holds the group's pieces side by side."""
    if g is not None and src[axis] is not None:
        _expect_size(axis, dst[axis], src[axis] * g, f"{src[axis]} x group size {g}")


def _check_divided(src, dst, axis: int, g: int | None) -> None:
    """Input dimension ``axis`` splits evenly over the group into the result's."""
    if g is not None and src[axis] is not None:
        if g == 0 or src[axis] % g:
            raise VerifyError(
                f"input dimension {axis} of size {src[axis]} is not divisible by the group size {g}"
            )
        _expect_size(axis, dst[axis], src[axis] // g, f"{src[axis]} / group size {g}")


@rule
def concat_shape(v: OpView, name: str) -> None:
    src, dst = _shapes(v)
    axis = _axis_attr(v, name, len(src))
    _check_other_dims(src, dst, {axis})
    _check_multiplied(src, dst, axis, v.group_size(v.attr("mesh_axes")))


@rule
def split_shape(v: OpView, name: str) -> None:
    src, dst = _shapes(v)
    axis = _axis_attr(v, name, len(src))
    _check_other_dims(src, dst, {axis})
    _check_divided(src, dst, axis, v.group_size(v.attr("mesh_axes")))


@rule
def all_to_all_shape(v: OpView) -> None:
    src, dst = _shapes(v)
    split = _axis_attr(v, "split_axis", len(src))
    concat = _axis_attr(v, "concat_axis", len(src))
    _check_other_dims(src, dst, {split, concat})
    g = v.group_size(v.attr("mesh_axes"))
    if g is None or split == concat:
        _check_other_dims(src, dst, set())
        return
    _check_divided(src, dst, split, g)
    _check_multiplied(src, dst, concat, g)


@rule
def device(v: OpView, name: str) -> None:
    if not v.has(name):
        return
    coords = v.attr(name)
    mesh_axes = v.attr("mesh_axes")
    if len(coords) != len(mesh_axes):
        raise VerifyError(
            f"{name} has {len(coords)} coordinates, expected {len(mesh_axes)} (one per mesh axis in mesh_axes)"
        )
    shape = v.mesh_shape
    if shape is None:
        return
    for c, a in zip(coords, mesh_axes):
        if c is None or not 0 <= a < len(shape):
            continue
        if c < 0 or (shape[a] is not None and c >= shape[a]):
            raise VerifyError(
                f"{name} coordinate {c} is out of range for mesh axis {a} of size {_fmt_dims([shape[a]])}"
            )


@rule
def shift_axis(v: OpView) -> None:
    axis = v.attr("shift_axis")
    if axis not in v.attr("mesh_axes"):
        raise VerifyError(f"shift_axis {axis} is not one of mesh_axes {list(v.attr('mesh_axes'))}")


@rule
def shard(v: OpView) -> None:
    sharding = v.value("sharding").owner
    if not isinstance(sharding, ir.OpView) or sharding.operation.name != "mesh.sharding":
        return
    split = list(KINDS["axis_array"].value_of(sharding.operation.attributes["split_axes"]))
    while split and not split[-1]:
        split.pop()  # trailing unsplit dimensions: [[]] fits a 0-d tensor
    shape = shape_of(v.value("src"))
    if len(split) > len(shape):
        raise VerifyError(
            f"sharding splits {len(split)} tensor dimensions, but the tensor has rank {len(shape)}"
        )


@rule
def sharding_group(v: OpView) -> None:
    if v.attr("group_id") < 0:
        raise VerifyError(f"sharding group id {v.attr('group_id')} is negative")


@rule
def shard_shape(v: OpView) -> None:
    shape = v.attr("shape")
    got = len(v.op.operation.results)
    if got != len(shape):
        raise VerifyError(f"has {got} results, expected {len(shape)} (one per dimension of the shape)")


@rule
def update_halo(v: OpView) -> None:
    split_dims = sum(1 for g in v.attr("split_axes") if g)
    for name in ("static_source_halo_sizes", "static_destination_halo_sizes"):
        halos = v.attr(name)
        if halos and len(halos) != 2 * split_dims:
            raise VerifyError(
                f"{name.removeprefix('static_')} has {len(halos)} entries, expected {2 * split_dims} "
                f"(2 per split tensor dimension)"
            )


# ------------------------------------------------------------------ driver

_ATTR_CLASSES = {
    "axes": ir.DenseI16ArrayAttr,
    "i64_array": ir.DenseI64ArrayAttr,
    "index": ir.IntegerAttr,
    "i64": ir.IntegerAttr,
    "symbol": ir.FlatSymbolRefAttr,
    "sym_name": ir.StringAttr,
    "unit": ir.UnitAttr,
}


@dataclass(frozen=True)
class _Plan:
    """What to check for one op, worked out once from its definition."""

    attributes: tuple
    operand_checks: tuple
    dynamic_lists: tuple
    rules: tuple
    has_mesh: bool
    # what the memo key reads: every attribute the checks read
    key_attributes: tuple = ()


@functools.cache
def _plan(opdef: OpDef, fmt) -> _Plan:
    attributes = tuple((a, KINDS[a.kind], _ATTR_CLASSES.get(a.kind)) for a in opdef.attributes)
    operand_checks = tuple(
        (o.name, o.kind) for o in opdef.operands if o.kind in ("nonzero_ranked_tensor", "shaped", "i64")
    )
    rules = []
    for spec in opdef.verify:
        name, *args = spec.split(":")
        rules.append((RULES[name], tuple(args)))
    key_attributes = tuple(a.name for a in opdef.attributes)
    if opdef.variadic_operand_groups > 1:
        key_attributes += ("operandSegmentSizes",)
    return _Plan(
        attributes, operand_checks, fmt.dynamic_index_lists, tuple(rules), "mesh" in opdef.attr_by_name, key_attributes
    )


_BAD = object()  # an attribute that is not of its kind


def _attr_value(a, kind, cls, attr):
    """The Python value of attribute ``attr`` declared as ``a``, or _BAD if it is not of its kind."""
    if cls is not None:
        if not isinstance(attr, cls):
            return _BAD
        if a.kind in ("index", "i64"):
            t = attr.type
            if not (isinstance(t, ir.IndexType) if a.kind == "index" else _is_i64(t)):
                return _BAD
    try:
        return kind.value_of(attr)
    except (ValueError, TypeError):
        return _BAD


def _check_structure(v: OpView, plan: _Plan) -> None:
    attrs = v._attrs
    # inside a memo window, attribute values are remembered by attribute (MLIR uniques them)
    known = _MEMO.attr_values if _MEMO is not None else None
    for a, kind, cls in plan.attributes:
        if a.name not in attrs:
            if not a.optional:
                raise VerifyError(f"requires attribute '{a.name}'")
            continue
        attr = attrs[a.name]
        if known is None:
            value = _attr_value(a, kind, cls, attr)
        else:
            key = (a.kind, attr)
            value = known.get(key, known)
            if value is known:
                value = known[key] = _attr_value(a, kind, cls, attr)
        if value is _BAD:
            raise VerifyError(f"attribute '{a.name}' is not a valid {a.kind.replace('_', ' ')} attribute: {attr}")
        if a.kind in ("reduction", "partial_kind") and value not in REDUCTION_KINDS:
            raise VerifyError(f"attribute '{a.name}' has unknown reduction kind '{value}'")
        v._values[a.name] = value
    for name, kind in plan.operand_checks:
        for val in v.group(name):
            if kind == "i64":
                if not _is_i64(val.type):
                    raise VerifyError(f"operand '{name}' must be i64, got {val.type}")
            else:
                shape = shape_of(val)
                if shape is not None and len(shape) == 0:
                    raise VerifyError(f"operand '{name}' must have rank > 0")
    for el in plan.dynamic_lists:
        static = v.attr(el.attr)
        dynamic = len(v.group(el.operands))
        wanted = sum(1 for s in static if s is None)
        if wanted != dynamic:
            raise VerifyError(
                f"'{el.attr}' has {wanted} dynamic entries but {dynamic} '{el.operands}' operands"
            )
    if plan.has_mesh and v.mesh_shape is None:
        raise VerifyError(f"symbol '@{v.attr('mesh')}' does not name a 'mesh.mesh' op")


def _is_i64(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and t.width == 64 and t.is_signless


def operand_groups(op: ir.Operation, opdef: OpDef) -> dict[str, list[ir.Value]]:
    """Every operand group of ``op`` by name (segment sizes read when there are several variadics)."""
    operands = list(op.operands)
    if opdef.variadic_operand_groups > 1:
        sizes = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    else:
        fixed = sum(1 for o in opdef.operands if not o.variadic)
        sizes = [len(operands) - fixed if o.variadic else 1 for o in opdef.operands]
    out, i = {}, 0
    for o, n in zip(opdef.operands, sizes):
        out[o.name] = operands[i : i + n]
        i += n
    return out


def operand_group(op: ir.Operation, opdef: OpDef, name: str) -> list[ir.Value]:
    """The operands of group ``name``."""
    return operand_groups(op, opdef)[name]


# ------------------------------------------------------------------ memo

# While a module is only read (parsed, printed), ops that agree in everything
# the checks read agree in their verdict: during such a window, verified
# signatures are remembered and an op with a known-good signature passes
# without running the checks again.  The signature is the op name, its
# attributes (uniqued by MLIR), its operand and result types, its parent op
# (so the same symbol table resolves its mesh) and, for ``mesh.shard``, the
# split axes of the op defining its sharding (the only rule that reads
# another op).  A rule that reads anything else must extend the signature.
class _Memo:
    """The verified signatures of one window, and whether they still pay for themselves."""

    def __init__(self):
        self.verified: set = set()
        self.rate = HitRate()
        self.attr_values: dict = {}  # (kind, attribute) -> Python value or _BAD
        self.meshes: dict = {}  # (module op, mesh name) -> mesh shape or None


_MEMO: _Memo | None = None


@contextlib.contextmanager
def memo() -> Iterator[None]:
    """Remembers verified op signatures while the IR does not change (parse, print)."""
    global _MEMO
    outer = _MEMO
    _MEMO = _Memo()
    try:
        yield
    finally:
        _MEMO = outer


def _signature(op: ir.Operation, opdef: OpDef, plan: _Plan) -> tuple:
    attrs = op.attributes
    values = tuple(attrs[n] if n in attrs else None for n in plan.key_attributes)
    extra = None
    if opdef.name == "shard":
        owner = op.operands[1].owner
        if isinstance(owner, ir.OpView) and owner.operation.name == "mesh.sharding":
            extra = owner.operation.attributes["split_axes"]
    return (
        opdef.name, values, tuple(v.type for v in op.operands), tuple(r.type for r in op.results), op.parent, extra,
    )


def verify(op: ir.OpView, opdef: OpDef, fmt) -> bool:
    """Runs every check of ``op``; emits an error at its location and returns False on failure."""
    plan = _plan(opdef, fmt)
    signature = None
    memo_ = _MEMO
    if memo_ is not None and memo_.rate.worth_it:
        signature = _signature(op.operation, opdef, plan)
        if signature in memo_.verified:
            memo_.rate.hits += 1
            return True
        memo_.rate.misses += 1
    v = OpView(op, opdef)
    try:
        _check_structure(v, plan)
        for rule_fn, args in plan.rules:
            rule_fn(v, *args)
    except VerifyError as e:
        op.location.emit_error(f"'{opdef.full_name}' op {e}")
        return False
    except Exception as e:  # a bug in a rule: still a located error, never a crash
        op.location.emit_error(f"'{opdef.full_name}' op internal verifier error: {type(e).__name__}: {e}")
        return False
    if signature is not None:
        memo_.verified.add(signature)
    return True
