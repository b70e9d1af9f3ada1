"""``mesh-sharding-propagation``: complete the sharding annotations of a module.

The algorithm is spec 000's: sweeps over the ops that have a sharding rule
(backward then forward by default), each op choosing a sharding option
(mesh axes per loop) from the annotations around it and annotating what was
still unannotated.  The analysis runs on a Python graph of each function;
the IR is rewritten once at the end.

Vocabulary
  * A *tensor* is an SSA tensor value together with the ``mesh.shard`` ops
    that annotate it (their results alias it).
  * Its *def* sharding is how its producer makes it: a plain ``mesh.shard``
    on it, the ``mesh.sharding`` attribute of a function argument, or what
    propagation infers for the producer.
  * Each *use* by an op has a use sharding: a ``mesh.shard ...
    annotate_for_users`` feeding the op, the ``mesh.sharding`` attribute of
    a function result (for ``func.return``), or what propagation infers.
    Spmdization reshards from the def to each use.

Explicit annotations (the ones in the input) are never changed, except that
their open dimensions (``[0, ?]``) may be split further.  An op whose
explicit annotations cannot all hold is an error at both annotations.

Choosing among conflicting annotations: each annotation around an op seeds
one candidate option (explicit ones first, then results, then operands, in
order); the others are merged into it where they agree.  The candidate that
moves the fewest bytes per device wins; ties go to the earlier candidate, so
the result is deterministic.  Bytes are counted by :func:`reshard_bytes`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass, field
from typing import Iterable

from .._mlir import ir
from ..diagnostics import emit, location_of
from ..rules import INVALID, REDUCTION, OpRule, get_rule, tensor_shape
from ..sharding import (
    Mesh,
    Sharding,
    argument_sharding,
    function_sharding_errors,
    result_sharding,
    set_argument_sharding,
    set_result_sharding,
)
from . import PassFailure, register

TRAVERSALS = {
    "backward": ("backward",),
    "forward": ("forward",),
    "backward-forward": ("backward", "forward"),
    "forward-backward": ("forward", "backward"),
}

ORIGIN_ATTR = "mesh.origin"


# ------------------------------------------------------------------ cost model


def _element_bytes(t: ir.Type) -> int:
    try:
        width = ir.ShapedType(t).element_type_bitwidth
    except (ValueError, TypeError, AttributeError):
        width = 32
    return max(1, (width + 7) // 8)


#: Size assumed for a dynamic mesh axis or tensor dimension in cost estimates.
DYNAMIC_GUESS = 2


def reshard_bytes(src: Sharding | None, dst: Sharding, shape: tuple, elem_bytes: int, mesh: Mesh) -> float:
    """Bytes one device receives to turn a ``src``-sharded tensor into ``dst`` (the cost model).

    Ring model, per device, maximum over devices:

    * reducing partial axes that ``dst`` does not keep partial: an
      all-reduce moves ``2 (k-1)/k`` of the local shard, a reduce-scatter
      (the axes split a dimension in ``dst``) ``(k-1)/k``;
    * the elements of the ``dst`` shard a device does not hold under
      ``src`` are received once (gathers, all-to-alls, halos);
    * splitting further and making a value partial are local: free.

    Dynamic sizes count as :data:`DYNAMIC_GUESS`.
    """
    if src is None or src.same_distribution(dst):
        return 0.0
    return _reshard_bytes(src.closed(), dst.closed(), shape, elem_bytes, mesh)


@functools.lru_cache(maxsize=65536)
def _reshard_bytes(src: Sharding, dst: Sharding, shape: tuple, elem_bytes: int, mesh: Mesh) -> float:
    mesh = Mesh(mesh.name, tuple(DYNAMIC_GUESS if s is None else s for s in mesh.shape))
    shape = tuple(DYNAMIC_GUESS if s is None else s for s in shape)
    plain_src = src.replace(partial_axes=(), halo_sizes=(), sharded_dims_offsets=())
    cost = 0.0
    reduced = [a for a in src.partial_axes if a not in dst.partial_axes]
    if reduced:
        k = mesh.group_size(reduced)
        local = elem_bytes * math.prod(src.shard_shape(shape, mesh, (0,) * mesh.rank))
        scattered = all(any(a in g for g in dst.split_axes) for a in reduced)
        cost += (1 if scattered else 2) * (k - 1) / k * local
    worst = 0
    for device in _sample_devices(mesh):
        missing = 1
        held = 1
        for d in range(len(shape)):
            s0, s1, _ = plain_src.dim_slice(shape, mesh, d, device)
            d0, d1, local = dst.dim_slice(shape, mesh, d, device)
            missing *= local
            held *= max(0, min(s1, d1) - max(s0, d0))
        worst = max(worst, missing - held)
    return cost + worst * elem_bytes


def _sample_devices(mesh: Mesh, limit: int = 256):
    """Every device of small meshes; the corners and a diagonal of large ones."""
    if mesh.size <= limit:
        return mesh.devices()
    picks = {tuple(0 for _ in mesh.shape), tuple(s - 1 for s in mesh.shape)}
    for i in range(max(mesh.shape)):
        picks.add(tuple(min(i, s - 1) for s in mesh.shape))
    return sorted(picks)


# ------------------------------------------------------------------ the graph


@dataclass(eq=False)
class Annotation:
    """An explicit sharding from the input: a ``mesh.shard`` op or a function attribute."""

    sharding: Sharding | None  # None only for a sharding group's template
    loc: ir.Location
    what: str
    op: ir.Operation | None = None

    @property
    def where(self) -> str:
        file, line, col = location_of(self.loc)
        return f"{file}:{line}:{col}" if line else str(self.loc)

    @property
    def origin(self) -> "Origin":
        return Origin(f"{self.what} at {self.where}")


@dataclass(frozen=True, eq=False)
class Origin:
    """Where a sharding came from: the explicit annotation at its root and the op that passed it on."""

    root: str
    via: "Node | None" = None

    def render(self, role: str) -> str:
        if self.via is None:
            return self.root
        return f"{role} of {self.via.label}, propagated from {self.root}"


NO_ORIGIN = Origin("")


@dataclass(eq=False)
class Tensor:
    value: ir.Value
    shape: tuple
    elem_bytes: int
    producer: "Node | None" = None
    arg_index: int | None = None
    def_: Sharding | None = None
    def_origin: Origin = NO_ORIGIN
    def_ann: Annotation | None = None
    plain_shard: ir.Operation | None = None
    uses: list["Use"] = field(default_factory=list)
    group: list["Tensor"] | None = None
    group_ann: Annotation | None = None
    #: A constraint that is the value's own sharding (spec 002); open dims follow its uses.
    def_follows: Annotation | None = None


@dataclass(eq=False)
class Use:
    node: "Node"
    index: int
    tensor: Tensor
    sharding: Sharding | None = None
    origin: Origin = NO_ORIGIN
    ann: Annotation | None = None  # an explicit annotate_for_users shard or result attribute


@dataclass(eq=False)
class Node:
    op: ir.Operation
    rule: OpRule | None
    operands: list[Use | None]
    results: list[Tensor | None]
    done: bool = False

    def mapped_results(self):
        """(result tensor, indexing map) for each result the rule maps."""
        maps = self.rule.result_maps
        for j, t in enumerate(self.results):
            if t is not None and j < len(maps) and maps[j] is not None:
                yield t, maps[j]

    def mapped_operands(self):
        """(use, indexing map) for each tensor operand the rule maps."""
        maps = self.rule.operand_maps
        for i, use in enumerate(self.operands):
            if use is not None and i < len(maps) and maps[i] is not None:
                yield use, maps[i]

    @property
    def label(self) -> str:
        file, line, col = location_of(self.op.location)
        where = f" at {file}:{line}:{col}" if line else ""
        return f"'{self.op.name}'{where}"


class Failed(Exception):
    """Errors were emitted; the pass fails."""


def _conflict(a: Annotation, b: Annotation, why: str) -> Failed:
    emit("error", a.loc, f"conflicting sharding annotations: {a.what} {a.sharding} {why} {b.what} {b.sharding} at {b.where}")
    emit("error", b.loc, f"conflicting sharding annotations: {b.what} {b.sharding} {why} {a.what} {a.sharding} at {a.where}")
    return Failed()


class FunctionGraph:
    """The tensors, uses and rule-carrying ops of one function body."""

    def __init__(self, func, symbols: "Symbols"):
        self.func = func
        self.symbols = symbols
        self.nodes: list[Node] = []
        self.tensors: list[Tensor] = []
        self.alias: dict[ir.Value, tuple[Tensor, Annotation | None]] = {}
        self.groups: dict[int, list[tuple[Tensor, ir.Operation]]] = {}
        self.constraints: list[tuple[Tensor, Annotation, ir.Operation]] = []
        self.entry = func.regions[0].blocks[0]
        self._build()

    # -------------------------------------------------------------- building

    def _tensor(self, value: ir.Value, **kw) -> Tensor | None:
        shape = tensor_shape(value)
        if shape is None:
            return None
        t = Tensor(value, shape, _element_bytes(value.type), **kw)
        self.tensors.append(t)
        self.alias[value] = (t, None)
        return t

    def _build(self) -> None:
        func = self.func
        fname = ir.StringAttr(func.attributes["sym_name"]).value
        for i, arg in enumerate(self.entry.arguments):
            t = self._tensor(arg, arg_index=i)
            s = argument_sharding(func, i) if t is not None else None
            if s is not None:
                ann = Annotation(s, func.location, f"the input sharding of argument #{i} of @{fname}")
                self._set_explicit_def(t, ann)
        for op in self.entry.operations:
            op = op.operation
            name = op.name
            if name == "mesh.sharding":
                continue
            if name == "mesh.shard":
                self._add_shard(op)
            elif name == "mesh.sharding_group":
                t, _ = self._operand(op.operands[0])
                gid = ir.IntegerAttr(op.attributes["group_id"]).value
                if t is not None:
                    self.groups.setdefault(gid, []).append((t, op))
            else:
                self._add_node(op)
        self._constraints_as_definitions()

    def _constraints_as_definitions(self) -> None:
        """Spec 002: a constraint with no uses, or on a value it is the only user of,
        is the sharding of the value itself."""
        for t, ann, op in self.constraints:
            if t.def_ann is not None:
                continue
            dangling = not any(True for _ in op.results[0].uses)
            if dangling or (t.uses and all(u.ann is ann for u in t.uses)):
                t.def_, t.def_ann, t.def_origin, t.def_follows = ann.sharding, ann, ann.origin, ann

    def _operand(self, value: ir.Value) -> tuple[Tensor | None, Annotation | None]:
        return self.alias.get(value, (None, None))

    def _set_explicit_def(self, t: Tensor, ann: Annotation) -> None:
        if t.def_ann is not None and not t.def_ann.sharding.same_distribution(ann.sharding):
            raise _conflict(t.def_ann, ann, "of the same value conflicts with")
        t.def_, t.def_ann, t.def_origin = ann.sharding, ann, ann.origin

    def _add_shard(self, op: ir.Operation) -> None:
        src, sharding_value = op.operands[0], op.operands[1]
        s = Sharding.of_value(sharding_value)
        t, use_ann = self._operand(src)
        if t is None:
            return
        if s is None:
            emit("error", op.location, "the sharding of this mesh.shard is not defined by a mesh.sharding op")
            raise Failed()
        for_users = "annotate_for_users" in op.attributes
        kind = "the operand annotation" if for_users else "the result annotation"
        ann = Annotation(s, op.location, kind, op)
        if not for_users:
            if use_ann is not None:
                emit("error", op.location, f"a result annotation of a value that is annotated for its users (at {use_ann.where}); annotate the value itself")
                raise Failed()
            self._set_explicit_def(t, ann)
            t.plain_shard = op
            self.alias[op.results[0]] = (t, None)
        else:
            if use_ann is not None and not use_ann.sharding.same_distribution(s):
                raise _conflict(use_ann, ann, "of the same operand conflicts with")
            self.alias[op.results[0]] = (t, use_ann or ann)
            if use_ann is None:
                self.constraints.append((t, ann, op))

    def _add_node(self, op: ir.Operation) -> None:
        rule = get_rule(op)
        node = Node(op, rule, [], [])
        for i, value in enumerate(op.operands):
            t, ann = self._operand(value)
            if t is None:
                node.operands.append(None)
                continue
            use = Use(node, i, t, ann=ann)
            if ann is not None:
                use.sharding, use.origin = ann.sharding, ann.origin
            t.uses.append(use)
            node.operands.append(use)
        for r in op.results:
            node.results.append(self._tensor(r, producer=node))
        name = op.name
        if name == "func.return":
            self._add_function_results(node)
        elif name == "func.call":
            self._add_callee_shardings(node)
        if rule is None and (any(node.operands) or any(node.results)):
            emit("warning", op.location, f"no sharding rule for '{name}': its operands and results are replicated")
        self.nodes.append(node)

    def _add_function_results(self, node: Node) -> None:
        fname = ir.StringAttr(self.func.attributes["sym_name"]).value
        for i, use in enumerate(node.operands):
            s = result_sharding(self.func, i) if use is not None else None
            if s is not None:
                ann = Annotation(s, self.func.location, f"the output sharding of result #{i} of @{fname}")
                self._annotate_use(use, ann, "of the returned value conflicts with")

    @staticmethod
    def _annotate_use(use: Use, ann: Annotation, why: str) -> None:
        """Adds a function attribute's sharding to a use; an explicit one already there must agree."""
        if use.ann is not None and not use.ann.sharding.same_distribution(ann.sharding):
            raise _conflict(use.ann, ann, why)
        use.ann = use.ann or ann
        use.sharding, use.origin = use.ann.sharding, use.ann.origin

    def _add_callee_shardings(self, node: Node) -> None:
        callee = self.symbols.function(ir.FlatSymbolRefAttr(node.op.attributes["callee"]).value)
        if callee is None:
            return
        cname = ir.StringAttr(callee.attributes["sym_name"]).value
        for i, use in enumerate(node.operands):
            s = argument_sharding(callee, i) if use is not None else None
            if s is None:
                continue
            ann = Annotation(s, callee.location, f"the input sharding of argument #{i} of @{cname}")
            self._annotate_use(use, ann, "of the call operand conflicts with")
        for j, t in enumerate(node.results):
            s = result_sharding(callee, j) if t is not None else None
            if s is not None:
                self._set_explicit_def(t, Annotation(s, callee.location, f"the output sharding of result #{j} of @{cname}"))

    # -------------------------------------------------------------- groups

    def init_groups(self) -> None:
        """Links the members of each sharding group; explicit member shardings spread to all."""
        for gid, members in sorted(self.groups.items()):
            tensors: list[Tensor] = []
            first_op = members[0][1]
            for t, op in members:
                if len(t.shape) != len(members[0][0].shape):
                    file, line, col = location_of(first_op.location)
                    emit(
                        "error",
                        op.location,
                        f"sharding group {gid} mixes tensors of rank {len(members[0][0].shape)} and {len(t.shape)} "
                        f"(first member at {file}:{line}:{col})",
                    )
                    raise Failed()
                if t.group is not None and t.group is not tensors:
                    tensors.extend(m for m in t.group if m not in tensors)
                if t not in tensors:
                    tensors.append(t)
            explicit: Annotation | None = None
            for t in tensors:
                if t.def_ann is None:
                    continue
                if explicit is None:
                    explicit = t.def_ann
                elif not explicit.sharding.same_distribution(t.def_ann.sharding):
                    raise _conflict(explicit, t.def_ann, f"in sharding group {gid} conflicts with")
            group_ann = Annotation(None, first_op.location, f"sharding group {gid}")
            for t in tensors:
                t.group = tensors
                t.group_ann = group_ann
                if explicit is not None and t.def_ is None:
                    t.def_ = explicit.sharding
                    t.def_origin = Origin(f"sharding group {gid}, from {explicit.what} at {explicit.where}")

    # -------------------------------------------------------------- setting

    def set_def(self, t: Tensor, s: Sharding, origin: Origin) -> None:
        for m in t.group if t.group is not None else [t]:
            if m.def_ is None:
                m.def_, m.def_origin = s, origin


class Symbols:
    """Function lookup by name in a module (for func.call)."""

    def __init__(self, module):
        self.functions: dict[str, ir.Operation] = {}
        self.meshes: dict[str, Mesh] = {}
        for op in module.regions[0].blocks[0].operations:
            op = op.operation
            if op.name == "func.func":
                self.functions[ir.StringAttr(op.attributes["sym_name"]).value] = op
            elif op.name == "mesh.mesh":
                mesh = Mesh.from_op(op)
                self.meshes[mesh.name] = mesh

    def function(self, name: str):
        return self.functions.get(name)

    def mesh(self, name: str, where: ir.Location) -> Mesh:
        mesh = self.meshes.get(name)
        if mesh is None:
            emit("error", where, f"sharding refers to @{name}, which is not a mesh.mesh of this module")
            raise Failed()
        return mesh


# ------------------------------------------------------------------ options


@dataclass
class Source:
    """One piece of sharding information around an op."""

    sharding: Sharding
    map: tuple
    is_result: bool
    hard: bool
    origin: Origin
    ann: Annotation | None


class Option:
    """Mesh axes per loop (None: not decided yet), plus which loops may still grow."""

    __slots__ = ("axes", "growable", "mesh")

    def __init__(self, n_loops: int, mesh: str):
        self.axes: list[tuple[int, ...] | None] = [None] * n_loops
        self.growable: set[int] = set()
        self.mesh = mesh

    def used(self, rule: OpRule, skip: int) -> set[int]:
        """Mesh axes taken by the other loops of ``skip``'s loop group."""
        group = rule.loop_groups[skip]
        return {a for l, g in enumerate(self.axes) if g and l != skip and rule.loop_groups[l] == group for a in g}

    def merge(self, rule: OpRule, src: Source, strict: bool) -> bool:
        """Adds a source's axes; returns False on a conflict (left partly merged if not strict)."""
        ok = True
        s = src.sharding
        for d, loop in enumerate(src.map):
            axes = s.axes_of(d)
            is_open = d in s.open_dims
            if loop is None:
                if axes:
                    ok = False
                continue
            if not axes:
                if not is_open and self.axes[loop] is None:
                    self.axes[loop] = ()
                elif not is_open and self.axes[loop] and loop in self.growable and strict:
                    ok = False
                continue
            if not rule.shardable(loop) or set(axes) & self.used(rule, loop):
                ok = False
                continue
            current = self.axes[loop]
            if current is None or (current == () and loop in self.growable):
                self.axes[loop] = axes
            elif current != axes:
                if loop in self.growable and axes[: len(current)] == current:
                    self.axes[loop] = axes
                elif is_open and current[: len(axes)] == axes:
                    pass
                else:
                    ok = False
                    continue
            if is_open:
                self.growable.add(loop)
            else:
                self.growable.discard(loop)
        if src.is_result and s.partial_axes:
            ok = self._merge_partial(rule, s) and ok
        return ok

    def _merge_partial(self, rule: OpRule, s: Sharding) -> bool:
        loops = [l for l, k in enumerate(rule.loops) if k == REDUCTION]
        for l in loops:
            if self.axes[l] == s.partial_axes:
                return rule.reductions[l] == s.partial_type
        for l in loops:
            if self.axes[l] is None and rule.reductions[l] == s.partial_type and not set(s.partial_axes) & self.used(rule, l):
                self.axes[l] = s.partial_axes
                return True
        return False

    def key(self) -> tuple:
        return tuple(g or () for g in self.axes)

    def operand_sharding(self, m: tuple) -> Sharding:
        return Sharding(self.mesh, tuple((self.axes[l] or ()) if l is not None else () for l in m))

    def result_sharding(self, rule: OpRule, m: tuple) -> Sharding:
        partial: list[int] = []
        kind = "sum"
        for l, k in enumerate(rule.loops):
            if k == REDUCTION and self.axes[l]:
                partial.extend(self.axes[l])
                kind = rule.reductions[l]
        split = tuple((self.axes[l] or ()) if l is not None else () for l in m)
        return Sharding(self.mesh, split, tuple(partial), kind)

    def valid(self, rule: OpRule) -> bool:
        kinds = {rule.reductions[l] for l, k in enumerate(rule.loops) if k == REDUCTION and self.axes[l]}
        if len(kinds) > 1:
            return False
        return all(not g or (rule.loops[l] != INVALID) for l, g in enumerate(self.axes))


def _satisfies(required: Sharding, ann: Sharding, ignore_partial: bool) -> bool:
    """Whether ``required`` honours the explicit ``ann`` (open dims may be split further)."""
    if required.mesh != ann.mesh:
        return False
    if not ignore_partial and (set(required.partial_axes) != set(ann.partial_axes) or (ann.partial_axes and required.partial_type != ann.partial_type)):
        return False
    rank = max(len(required.split_axes), len(ann.split_axes), max(ann.open_dims, default=-1) + 1)
    for d in range(rank):
        want, got = ann.axes_of(d), required.axes_of(d)
        if d in ann.open_dims:
            if got[: len(want)] != want:
                return False
        elif got != want:
            return False
    return True


# ------------------------------------------------------------------ propagation


class Propagation:
    def __init__(self, graph: FunctionGraph, symbols: Symbols):
        self.g = graph
        self.symbols = symbols

    def run(self, traversal: str) -> None:
        self.g.init_groups()
        progress = True
        while progress:
            progress = False
            for direction in TRAVERSALS[traversal]:
                nodes = self.g.nodes if direction == "forward" else reversed(self.g.nodes)
                for node in nodes:
                    if not node.done:
                        before = self.annotated(node)
                        self.visit(node)
                        progress = progress or node.done or self.annotated(node) != before
        self.finish_arguments()

    @staticmethod
    def annotated(node: Node) -> int:
        """How many operands and results of ``node`` have a sharding."""
        return sum(1 for u in node.operands if u is not None and u.sharding is not None) + sum(
            1 for t in node.results if t is not None and t.def_ is not None
        )

    # -------------------------------------------------------------- one op

    def sources(self, node: Node) -> list[Source]:
        hard: list[Source] = []
        soft_results: list[Source] = []
        soft_operands: list[Source] = []
        for t, m in node.mapped_results():
            if t.def_ is not None:
                # a sharding the value got through its group is reported as the group's
                ann = t.def_ann
                if ann is None and t.group_ann is not None:
                    ann = dataclasses.replace(t.group_ann, sharding=t.def_)
                hard.append(Source(t.def_, m, True, True, t.def_origin, ann))
                continue
            for u in t.uses:
                if u.sharding is not None:
                    soft_results.append(Source(u.sharding.replace(partial_axes=()), m, True, False, u.origin, None))
                    break
        for use, m in node.mapped_operands():
            if use.ann is not None:
                hard.append(Source(use.sharding, m, False, True, use.origin, use.ann))
            elif use.sharding is None and use.tensor.def_ is not None:
                s = use.tensor.def_.replace(partial_axes=(), open_dims=frozenset())
                soft_operands.append(Source(s, m, False, False, use.tensor.def_origin, None))
        return hard + soft_results + soft_operands

    def visit(self, node: Node) -> None:
        if node.rule is None:
            self.visit_replicated(node)
            return
        sources = self.sources(node)
        if not sources:
            return
        meshes = {s.sharding.mesh for s in sources}
        if len(meshes) > 1:
            names = ", ".join(f"@{m}" for m in sorted(meshes))
            emit("error", node.op.location, f"operands and results of '{node.op.name}' are sharded on different meshes ({names})")
            raise Failed()
        mesh_name = meshes.pop()
        mesh = self.symbols.mesh(mesh_name, node.op.location)
        rule = node.rule
        hard = [s for s in sources if s.hard]
        self.check_hard(node, hard, mesh_name)
        best, best_cost, seen = None, None, set()
        for seed in sources:
            opt = Option(len(rule.loops), mesh_name)
            opt.merge(rule, seed, strict=False)
            if not all(opt.merge(rule, h, strict=True) for h in hard if h is not seed):
                continue
            for other in sources:
                if other is not seed and not other.hard:
                    trial = Option(len(rule.loops), mesh_name)
                    trial.axes, trial.growable = list(opt.axes), set(opt.growable)
                    if trial.merge(rule, other, strict=True):
                        opt = trial
            key = opt.key()
            if key in seen or not opt.valid(rule) or not self.honours(node, opt, hard):
                continue
            seen.add(key)
            cost = self.cost(node, opt, mesh)
            if best_cost is None or cost < best_cost:
                best, best_cost, best_seed = opt, cost, seed
        if best is None:
            self.report_unsatisfiable(node, hard)
            return
        self.apply(node, best, best_seed)

    def check_hard(self, node: Node, hard: list[Source], mesh: str) -> None:
        rule = node.rule
        for i, a in enumerate(hard):
            for b in hard[i + 1 :]:
                opt = Option(len(rule.loops), mesh)
                if not (opt.merge(rule, a, strict=True) and opt.merge(rule, b, strict=True)):
                    raise _conflict(a.ann, b.ann, f"at '{node.op.name}' conflicts with")

    def honours(self, node: Node, opt: Option, hard: list[Source]) -> bool:
        rule = node.rule
        for h in hard:
            if h.is_result:
                required = opt.result_sharding(rule, h.map)
            else:
                required = opt.operand_sharding(h.map)
            if not _satisfies(required, h.sharding, ignore_partial=not h.is_result):
                return False
        return True

    def report_unsatisfiable(self, node: Node, hard: list[Source]) -> None:
        if len(hard) == 1:
            h = hard[0]
            emit("error", h.ann.loc, f"{h.ann.what} {h.sharding} cannot hold at '{node.op.name}' ({node.label}): its sharding rule cannot shard the annotated dimensions that way")
        else:
            emit("error", node.op.location, f"no sharding of '{node.op.name}' satisfies its annotations")
        raise Failed()

    def cost(self, node: Node, opt: Option, mesh: Mesh) -> float:
        rule = node.rule
        total = 0.0
        for use, m in node.mapped_operands():
            t = use.tensor
            total += reshard_bytes(t.def_, opt.operand_sharding(m), t.shape, t.elem_bytes, mesh)
        for t, m in node.mapped_results():
            produced = opt.result_sharding(rule, m)
            for u in t.uses:
                if u.sharding is not None:
                    total += reshard_bytes(produced, u.sharding, t.shape, t.elem_bytes, mesh)
        return total

    def apply(self, node: Node, opt: Option, seed: Source) -> None:
        rule = node.rule
        origin = Origin(seed.origin.root, node)
        # With independent loop groups (func.return, func.call), a tensor no
        # source said anything about is left for a later sweep.
        independent = len(set(rule.loop_groups)) > 1
        done = True

        def undecided(m) -> bool:
            return independent and bool(m) and all(l is None or opt.axes[l] is None for l in m)

        for t, m in node.mapped_results():
            if t.def_ is None and undecided(m):
                done = False
                continue
            produced = opt.result_sharding(rule, m)
            if t.def_ is None:
                self.g.set_def(t, produced, origin)
            elif t.def_.open_dims:
                t.def_ = produced
                for u in t.uses:  # the constraint this value's sharding follows
                    if u.ann is not None and u.ann is t.def_follows and u.sharding.open_dims:
                        u.sharding = produced
        for use, m in node.mapped_operands():
            if use.sharding is None and undecided(m):
                done = False
                continue
            required = opt.operand_sharding(m)
            if use.sharding is None:
                use.sharding, use.origin = required, origin
            elif use.sharding.open_dims:
                use.sharding = required
                t = use.tensor
                if use.ann is t.def_follows and t.def_ is not None and t.def_.open_dims:
                    t.def_ = required
        node.done = done

    def visit_replicated(self, node: Node) -> None:
        meshes = [u.tensor.def_.mesh for u in node.operands if u is not None and u.tensor.def_ is not None]
        meshes += [t.def_.mesh for t in node.results if t is not None and t.def_ is not None]
        meshes += [u.sharding.mesh for t in node.results if t is not None for u in t.uses if u.sharding is not None]
        if not meshes:
            return
        replicated = Sharding(meshes[0])
        origin = Origin(f"{node.label}, which has no sharding rule")
        for use in node.operands:
            if use is not None and use.sharding is None:
                use.sharding, use.origin = replicated, origin
        for t in node.results:
            if t is not None and t.def_ is None:
                self.g.set_def(t, replicated, origin)
        node.done = True

    def finish_arguments(self) -> None:
        """An argument without an input sharding takes the sharding of its first annotated use.

        A value whose sharding is a constraint with open dimensions takes the
        completed sharding of that constraint.
        """
        for t in self.g.tensors:
            if t.def_follows is not None and t.def_ is not None and t.def_.open_dims:
                final = next((u.sharding for u in t.uses if u.ann is t.def_follows), None)
                if final is not None:
                    t.def_ = final
            if t.arg_index is None or t.def_ is not None:
                continue
            for u in t.uses:
                if u.sharding is not None:
                    self.g.set_def(t, u.sharding.closed().replace(partial_axes=()), u.origin)
                    break


# ------------------------------------------------------------------ rewriting


class Rewriter:
    """Writes the completed annotations into the function."""

    def __init__(self, graph: FunctionGraph, explain: bool):
        self.g = graph
        self.explain = explain
        self.sharding_values: dict[Sharding, ir.Value] = {}
        self.first_op = graph.entry.operations[0] if len(graph.entry.operations) else None

    def sharding_value(self, s: Sharding) -> ir.Value:
        s = s.closed()
        v = self.sharding_values.get(s)
        if v is None:
            with ir.InsertionPoint(self.g.entry) if self.first_op is None else ir.InsertionPoint(self.first_op):
                v = s.build(loc=self.g.func.location)
            self.sharding_values[s] = v
        return v

    def _shard(self, value: ir.Value, s: Sharding, for_users: bool, ip: ir.InsertionPoint, loc, origin: Origin):
        attrs = {"annotate_for_users": ir.UnitAttr.get()} if for_users else {}
        if self.explain:
            attrs[ORIGIN_ATTR] = ir.StringAttr.get(origin.render("operand" if for_users else "result"))
        # Operation.create rather than the ShardOp builder: this runs per value.
        return ir.Operation.create(
            "mesh.shard", results=[value.type], operands=[value, self.sharding_value(s)], attributes=attrs, loc=loc, ip=ip
        )

    def _update_explicit(self, op: ir.Operation, s: Sharding) -> None:
        """Closes the open dimensions of an explicit annotation with what propagation chose."""
        old = op.operands[1]
        current = Sharding.of_value(old)
        if current is not None and current.open_dims and s is not None:
            merged = s.replace(halo_sizes=current.halo_sizes, sharded_dims_offsets=current.sharded_dims_offsets)
            op.operands[1] = self.sharding_value(merged)
            if not list(old.uses):
                old.owner.operation.erase()

    def run(self) -> None:
        g = self.g
        for t in g.tensors:
            view = t.value
            if t.plain_shard is not None:
                self._update_explicit(t.plain_shard, t.def_)
                view = t.plain_shard.results[0]
            elif t.def_ is not None and t.producer is not None:
                producer = t.producer.op
                ip = ir.InsertionPoint.after(producer)
                shard = self._shard(t.value, t.def_, False, ip, producer.location, t.def_origin)
                view = shard.results[0]
            elif t.def_ is not None and t.arg_index is not None and argument_sharding(g.func, t.arg_index) is None:
                set_argument_sharding(g.func, t.arg_index, t.def_.closed())
            views: dict[Sharding, ir.Value] = {}
            for u in t.uses:
                if u.ann is not None and u.ann.op is not None:
                    self._update_explicit(u.ann.op, u.sharding)
                    if view is not t.value and u.ann.op.operands[0] == t.value:
                        u.ann.op.operands[0] = view  # a constraint reads the annotated value
                    continue
                if u.sharding is None:
                    if view is not t.value:
                        u.node.op.operands[u.index] = view
                    continue
                s = u.sharding.closed()
                w = views.get(s)
                if w is None:
                    shard = self._shard(view, s, True, ir.InsertionPoint(u.node.op), u.node.op.location, u.origin)
                    w = views[s] = shard.results[0]
                u.node.op.operands[u.index] = w
        self._set_function_results()

    def _set_function_results(self) -> None:
        g = self.g
        for node in g.nodes:
            if node.op.name != "func.return":
                continue
            for i, use in enumerate(node.operands):
                if use is None or result_sharding(g.func, i) is not None:
                    continue
                s = use.sharding or use.tensor.def_
                if s is not None:
                    set_result_sharding(g.func, i, s.closed())


# ------------------------------------------------------------------ the pass


def propagate(module, traversal: str = "backward-forward", explain: bool = False) -> None:
    """Runs sharding propagation on every function of ``module`` (a builtin.module op).

    Raises :class:`PassFailure` after emitting diagnostics when annotations
    conflict.
    """
    if traversal not in TRAVERSALS:
        emit("error", module.location, f"unknown traversal '{traversal}'; expected one of {', '.join(TRAVERSALS)}")
        raise PassFailure()
    module = module.operation if hasattr(module, "operation") else module
    errors = function_sharding_errors(module)  # modules built from Python skip the reader's check
    for loc, message in errors:
        emit("error", loc, message)
    if errors:
        raise PassFailure()
    symbols = Symbols(module)
    failed = False
    for func in _functions(module):
        try:
            graph = FunctionGraph(func, symbols)
            Propagation(graph, symbols).run(traversal)
        except Failed:
            failed = True
            continue
        Rewriter(graph, explain).run()
    if failed:
        raise PassFailure()


def _functions(module) -> Iterable:
    for op in module.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "func.func" and len(op.regions[0].blocks):
            yield op


@register(
    "mesh-sharding-propagation",
    "Complete the sharding annotations (spec 000's backward/forward propagation).",
    options={
        "traversal": (str, "backward-forward", "order of the sweeps: forward, backward, forward-backward or backward-forward"),
        "explain": (bool, False, f"attach '{ORIGIN_ATTR}' to each inserted mesh.shard: the annotation it came from"),
    },
)
def _pass(module, traversal: str = "backward-forward", explain: bool = False) -> None:
    propagate(module, traversal, explain)
