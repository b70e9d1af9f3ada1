"""``mesh-fold-collectives``: fewer and cheaper collectives in per-device programs.

Spec 000's "Collective Communication Optimization Passes", as Python rewrite
patterns run by MLIR's greedy driver (which also folds, and erases dead pure
ops, so a collective whose result is no longer used disappears).  Every
pattern keeps what each device computes; ``test/python/test_fold_collectives.py``
checks that in the simulator, one function per pattern.

all-reduce folder
    ``all_reduce(all_reduce(x, A), B)`` with the same kind and disjoint
    ``A``, ``B`` is ``all_reduce(x, A + B)``.
all-reduce reassociation
    ``add(all_reduce_sum(x, A), all_reduce_sum(y, A))`` is
    ``all_reduce_sum(add(x, y), A)``; likewise ``sub`` (sum), ``max`` (max)
    and ``min`` (min), for arith, linalg, stablehlo and tosa ops.
reduce-scatter reassociation
    the same with ``reduce_scatter`` along one dimension: the elementwise op
    runs on the unscattered operands, one reduce_scatter follows.
all-gather move-down
    ``f(all_gather(x, A, d), ...)`` for an elementwise ``f`` is
    ``all_gather(f(x, ...), A, d)``: the other operands are taken as their
    slice (another all_gather's input, a splat at the local size, a fresh
    ``tensor.empty``, or an ``all_slice``, which moves no data).
all_reduce then all_slice
    ``all_slice(all_reduce(x, A), B, d)`` with ``B`` a subset of ``A`` is
    ``reduce_scatter(all_reduce(x, A - B), B, d)`` (just the reduce_scatter
    when ``B = A``).
cancellations
    ``all_slice(all_gather(x, A, d), A, d)`` is ``x`` always: each device
    takes back the block it contributed.  ``all_gather(all_slice(x, A, d), A,
    d)`` is ``x`` only when ``x`` is the same on every device of the group
    (see :func:`replicated_over`); otherwise the gather rebuilds a tensor from
    blocks of different ``x`` and the pattern does not apply.
trivial groups
    mesh axes of size 1 are dropped from ``mesh_axes``; a collective over no
    axes (a group of one device) is its input.

Patterns that remove a collective only apply when the removed one has no
other user, so no pattern ever adds communication.
"""

from __future__ import annotations

from .._mlir import ir, rewrite
from ..dialect.kinds import KINDS, attr_value
from ..dialect.ops import AllGatherOp, AllReduceOp, AllSliceOp, ReduceScatterOp
from ..irutil import attributes, defining_op, only_user, rebuild
from ..rules import PARALLEL, get_rule
from ..sharding import Mesh, Sharding, argument_sharding
from . import register

# binary elementwise ops -> the reduction kind they commute with
REASSOCIATING = {
    "arith.addf": "sum", "arith.addi": "sum", "arith.subf": "sum", "arith.subi": "sum",
    "arith.maximumf": "max", "arith.maxnumf": "max", "arith.maxsi": "max",
    "arith.minimumf": "min", "arith.minnumf": "min", "arith.minsi": "min",
    "linalg.add": "sum", "linalg.sub": "sum", "linalg.max": "max", "linalg.min": "min",
    "stablehlo.add": "sum", "stablehlo.subtract": "sum", "stablehlo.maximum": "max", "stablehlo.minimum": "min",
    "tosa.add": "sum", "tosa.sub": "sum", "tosa.maximum": "max", "tosa.minimum": "min",
}

# collectives whose group is given by mesh_axes alone (no in-group device coordinates)
GROUP_COLLECTIVES = ("mesh.all_gather", "mesh.all_reduce", "mesh.all_slice", "mesh.all_to_all", "mesh.reduce_scatter")

_CONSTANTS = ("arith.constant", "stablehlo.constant", "tosa.const")
_AXES = KINDS["axes"]


def _group(op) -> tuple:
    """(mesh, mesh_axes) of a collective."""
    return attr_value(op, "mesh", "symbol"), attr_value(op, "mesh_axes", "axes")


def _reduction(op) -> str:
    return attr_value(op, "reduction", "reduction")


def _shape(t) -> list[int]:
    return list(ir.RankedTensorType(t).shape)


def _with_dim(t, dim: int, size: int):
    """The ranked tensor type ``t`` with dimension ``dim`` of size ``size``."""
    t = ir.RankedTensorType(t)
    shape = list(t.shape)
    shape[dim] = size
    return ir.RankedTensorType.get(shape, t.element_type, t.encoding)


def _same_element_type(op) -> bool:
    return ir.ShapedType(op.operands[0].type).element_type == ir.ShapedType(op.results[0].type).element_type


def _replace(rewriter, op, value) -> None:
    rewriter.replace_op(op, [value])


# ------------------------------------------------------------------ building collectives


def _all_reduce(x, mesh, axes, kind, result_type, loc, ip):
    return AllReduceOp(x, mesh=mesh, mesh_axes=tuple(axes), reduction=kind, result_type=result_type, loc=loc, ip=ip).result


def _reduce_scatter(x, mesh, axes, dim, kind, result_type, loc, ip):
    return ReduceScatterOp(
        x, mesh=mesh, mesh_axes=tuple(axes), scatter_axis=dim, reduction=kind, result_type=result_type, loc=loc, ip=ip
    ).result


def _all_gather(x, mesh, axes, dim, result_type, loc, ip):
    return AllGatherOp(x, mesh=mesh, mesh_axes=tuple(axes), gather_axis=dim, result_type=result_type, loc=loc, ip=ip).result


def _all_slice(x, mesh, axes, dim, result_type, loc, ip):
    return AllSliceOp(x, mesh=mesh, mesh_axes=tuple(axes), slice_axis=dim, result_type=result_type, loc=loc, ip=ip).result


# ------------------------------------------------------------------ the patterns


def fold_all_reduce(op, rewriter):
    """all_reduce(all_reduce(x, A), B) -> all_reduce(x, A + B)."""
    inner = defining_op(op.operands[0], "mesh.all_reduce")
    if inner is None or only_user(inner.results[0]) is None:
        return True
    (mesh, outer_axes), (inner_mesh, inner_axes) = _group(op), _group(inner)
    if mesh != inner_mesh or _reduction(op) != _reduction(inner) or _reduction(op) == "generic":
        return True
    if set(outer_axes) & set(inner_axes) or not _same_element_type(op) or not _same_element_type(inner):
        return True
    value = _all_reduce(inner.operands[0], mesh, inner_axes + outer_axes, _reduction(op), op.results[0].type,
                        op.location, rewriter.ip)
    _replace(rewriter, op, value)
    return False


def _reassociate(collective: str):
    """``f(c(x), c(y))`` -> ``c(f(x, y))`` for the collective ``c`` and a binary elementwise ``f``."""

    def pattern(op, rewriter):
        kind = REASSOCIATING[op.name]
        ins = list(op.operands)[:2]
        defs = [defining_op(v, collective) for v in ins]
        if any(d is None for d in defs) or any(only_user(d.results[0]) is None for d in defs):
            return True
        a, b = defs
        if _group(a) != _group(b) or _reduction(a) != kind or _reduction(b) != kind:
            return True
        if a.operands[0].type != b.operands[0].type or not _same_element_type(a) or not _same_element_type(b):
            return True
        if collective == "mesh.reduce_scatter" and attr_value(a, "scatter_axis", "index") != attr_value(b, "scatter_axis", "index"):
            return True
        if len(op.results) != 1:
            return True
        full_type = a.operands[0].type  # the reduced operands' type, before any scatter
        operands = [a.operands[0], b.operands[0]]
        if op.name.startswith("linalg."):  # outs: an init of the new size (these bodies never read it)
            if len(op.operands) != 3 or any(True for _ in op.regions[0].blocks[0].arguments[2].uses):
                return True
            operands.append(_empty_like(full_type, op.location, rewriter.ip))
        elif len(op.operands) != 2:
            return True
        result_type = op.results[0].type if collective == "mesh.all_reduce" else full_type
        combined = rebuild(op, operands, [result_type], ip=rewriter.ip).results[0]
        mesh, axes = _group(a)
        if collective == "mesh.all_reduce":
            value = _all_reduce(combined, mesh, axes, kind, op.results[0].type, op.location, rewriter.ip)
        else:
            dim = attr_value(a, "scatter_axis", "index")
            value = _reduce_scatter(combined, mesh, axes, dim, kind, op.results[0].type, op.location, rewriter.ip)
        _replace(rewriter, op, value)
        return False

    pattern.__name__ = f"reassociate_{collective.split('.')[1]}"
    pattern.__doc__ = f"f({collective}(x), {collective}(y)) -> {collective}(f(x, y)) for f in REASSOCIATING."
    return pattern


def _empty_like(t, loc, ip):
    return ir.Operation.create("tensor.empty", results=[t], operands=[], loc=loc, ip=ip).results[0]


def _is_elementwise(op) -> bool:
    """One result, every loop parallel, every tensor operand indexed like the result."""
    if len(op.results) != 1 or not isinstance(op.results[0].type, ir.RankedTensorType):
        return False
    rule = get_rule(op)
    if rule is None or any(kind != PARALLEL for kind in rule.loops):
        return False
    identity = tuple(range(len(rule.loops)))
    if rule.result_maps != (identity,):
        return False
    return all(m is None or m == identity for m in rule.operand_maps)


def move_all_gather_down(op, rewriter):
    """f(all_gather(x, A, d), ...) -> all_gather(f(x, ...), A, d) for elementwise f."""
    user = only_user(op.results[0])
    if user is None:
        return True
    user = user.operation
    if user.name.startswith(("mesh.", "func.")) or not _is_elementwise(user):
        return True
    mesh, axes = _group(op)
    dim = attr_value(op, "gather_axis", "index")
    local_size = _shape(op.operands[0].type)[dim]
    # first decide how each operand becomes its local block; build nothing unless all can
    plan = []
    for v in user.operands:
        if not isinstance(v.type, ir.RankedTensorType):
            plan.append(("keep", v))
            continue
        gather = defining_op(v, "mesh.all_gather")
        if (
            gather is not None
            and _group(gather) == (mesh, axes)
            and attr_value(gather, "gather_axis", "index") == dim
            and gather.operands[0].type == op.operands[0].type
            and only_user(gather.results[0]) is not None
        ):
            plan.append(("keep", gather.operands[0]))
        elif _is_splat(defining_op(v, *_CONSTANTS, "tensor.empty")):
            plan.append(("splat", v))
        elif replicated_over(v, mesh, axes):  # the same everywhere: each device slices its block
            plan.append(("slice", v))
        else:  # the blocks of different values would not rebuild it
            return True
    ip = ir.InsertionPoint(user)  # the other operands may be defined between the gather and its user
    operands = []
    for how, v in plan:
        if how == "keep":
            operands.append(v)
            continue
        local_type = _with_dim(v.type, dim, local_size)
        if how == "splat":
            operands.append(_splat(v.owner.operation, local_type, ip))
        else:
            operands.append(_all_slice(v, mesh, axes, dim, local_type, user.location, ip))
    result_type = user.results[0].type
    moved = rebuild(user, operands, [_with_dim(result_type, dim, local_size)], ip=ip).results[0]
    _replace(rewriter, user, _all_gather(moved, mesh, axes, dim, result_type, user.location, ip))
    return False


def _is_splat(op) -> bool:
    """A splat constant or a ``tensor.empty`` of static shape."""
    if op is None:
        return False
    if op.name == "tensor.empty":
        return not len(op.operands)
    dense = op.attributes["values" if op.name == "tosa.const" else "value"]
    return isinstance(dense, ir.DenseElementsAttr) and dense.is_splat


def _splat(op, t, ip):
    """The splat constant or ``tensor.empty`` ``op`` made again with type ``t``."""
    if op.name == "tensor.empty":
        return ir.Operation.create("tensor.empty", results=[t], operands=[], loc=op.location, ip=ip).results[0]
    key = "values" if op.name == "tosa.const" else "value"
    attrs = attributes(op)
    attrs[key] = ir.DenseElementsAttr.get_splat(t, op.attributes[key].get_splat_value())
    return ir.Operation.create(op.name, results=[t], attributes=attrs, loc=op.location, ip=ip).results[0]


def slice_of_all_reduce(op, rewriter):
    """all_slice(all_reduce(x, A), B, d) -> reduce_scatter(all_reduce(x, A - B), B, d) for B in A."""
    reduce = defining_op(op.operands[0], "mesh.all_reduce")
    if reduce is None or only_user(reduce.results[0]) is None or not _same_element_type(reduce):
        return True
    (mesh, axes), (reduce_mesh, reduced) = _group(op), _group(reduce)
    kind = _reduction(reduce)
    if mesh != reduce_mesh or not axes or not set(axes) <= set(reduced) or kind == "generic":
        return True
    x = reduce.operands[0]
    rest = tuple(a for a in reduced if a not in axes)
    if rest:
        x = _all_reduce(x, mesh, rest, kind, x.type, reduce.location, rewriter.ip)
    dim = attr_value(op, "slice_axis", "index")
    _replace(rewriter, op, _reduce_scatter(x, mesh, axes, dim, kind, op.results[0].type, op.location, rewriter.ip))
    return False


def _cancel(inner_name: str, inner_axis: str, outer_axis: str, needs_replicated: bool):
    """``outer(inner(x, A, d), A, d) -> x`` for an all_gather/all_slice pair."""

    def pattern(op, rewriter):
        inner = defining_op(op.operands[0], inner_name)
        if inner is None or _group(inner) != _group(op):
            return True
        if attr_value(inner, inner_axis, "index") != attr_value(op, outer_axis, "index"):
            return True
        x = inner.operands[0]
        if x.type != op.results[0].type:
            return True
        if needs_replicated and not replicated_over(x, *_group(op)):
            return True
        _replace(rewriter, op, x)
        return False

    return pattern


# all_slice(all_gather(x, A, d), A, d) -> x: each device takes back the block it contributed
slice_of_all_gather = _cancel("mesh.all_gather", "gather_axis", "slice_axis", needs_replicated=False)
# all_gather(all_slice(x, A, d), A, d) -> x only when x is the same on every device of the group
gather_of_all_slice = _cancel("mesh.all_slice", "slice_axis", "gather_axis", needs_replicated=True)


def replicated_over(value, mesh: str, axes, depth: int = 16) -> bool:
    """Whether ``value`` is known to be equal on all devices that differ only along ``axes``.

    True for constants; for the result of an all_reduce or all_gather over
    (at least) ``axes``; for a function argument whose ``mesh.sharding``
    does not use ``axes``; and for an op other than a mesh op whose operands
    all are (up to ``depth`` ops back).  Anything else is not known.
    """
    axes = set(axes)
    if not axes:
        return True
    owner = value.owner
    if isinstance(owner, ir.Block):
        return _argument_replicated(owner, value, mesh, axes)
    op = owner.operation
    if op.name in _CONSTANTS:
        return True
    if op.name in ("mesh.all_reduce", "mesh.all_gather"):
        op_mesh, op_axes = _group(op)
        return op_mesh == mesh and axes <= set(op_axes)
    if op.name.startswith("mesh.") or not len(op.operands) or depth == 0 or len(op.regions):
        return False
    return all(replicated_over(v, mesh, axes, depth - 1) for v in op.operands)


def _argument_replicated(block, arg, mesh: str, axes: set) -> bool:
    """A function argument: replicated over ``axes`` when its sharding does not use them."""
    func = block.owner
    if func is None or func.operation.name != "func.func":
        return False
    s: Sharding | None = argument_sharding(func.operation, ir.BlockArgument(arg).arg_number)
    return s is not None and s.mesh == mesh and not (s.used_axes & axes)


def _trivial_axes(meshes: dict[str, Mesh]):
    def pattern(op, rewriter):
        """Drops size-1 mesh axes; a collective over no axes is its input."""
        mesh_name, axes = _group(op)
        mesh = meshes.get(mesh_name)
        if mesh is None:
            return True
        kept = tuple(a for a in axes if not (0 <= a < mesh.rank and mesh.shape[a] == 1))
        if kept == axes and axes:
            return True
        if not kept:
            if op.operands[0].type != op.results[0].type:
                return True
            _replace(rewriter, op, op.operands[0])
            return False
        attrs = attributes(op)
        attrs["mesh_axes"] = _AXES.to_attr(kept)
        new = ir.Operation.create(op.name, results=[op.results[0].type], operands=list(op.operands),
                                  attributes=attrs, loc=op.location, ip=rewriter.ip)
        _replace(rewriter, op, new.results[0])
        return False

    return pattern


# ------------------------------------------------------------------ the pass


def patterns(module) -> "rewrite.RewritePatternSet":
    """The pass's patterns, for use in a pattern set of your own."""
    top = module.regions[0].blocks[0].operations
    meshes = {m.name: m for m in (Mesh.from_op(op.operation) for op in top if op.operation.name == "mesh.mesh")}
    ps = rewrite.RewritePatternSet()
    ps.add("mesh.all_reduce", fold_all_reduce)
    for name in REASSOCIATING:
        ps.add(name, _reassociate("mesh.all_reduce"))
        ps.add(name, _reassociate("mesh.reduce_scatter"))
    ps.add("mesh.all_gather", move_all_gather_down)
    ps.add("mesh.all_gather", gather_of_all_slice, benefit=2)
    ps.add("mesh.all_slice", slice_of_all_gather, benefit=2)
    ps.add("mesh.all_slice", slice_of_all_reduce)
    trivial = _trivial_axes(meshes)
    for name in GROUP_COLLECTIVES:
        ps.add(name, trivial, benefit=3)
    return ps


def fold_collectives(module) -> None:
    """Runs mesh-fold-collectives on ``module`` (in place)."""
    module = module.operation if hasattr(module, "operation") else module
    rewrite.apply_patterns_and_fold_greedily(module, patterns(module).freeze())


@register(
    "mesh-fold-collectives",
    "Fold, reassociate, move down and cancel mesh collectives (spec 000's collective optimisation passes).",
)
def _pass(module) -> None:
    fold_collectives(module)


__all__ = ["REASSOCIATING", "fold_collectives", "patterns", "replicated_over"]
