"""``mesh-spmdization``: rewrite each annotated function into the program one device runs.

Spec 000's "Sharding Partition".  The input is a global program whose
tensors carry shardings: ``mesh.shard`` ops (the output of propagation, or
written by hand) and ``mesh.sharding`` attributes on function arguments
and results.  The output works on local tensors:

* every value gets the type of its shard (``reshard.local_type``: shard
  shapes with ``sharded_dims_offsets`` and halos, ``?`` where shards differ);
* every op is partitioned through its sharding rule: the loops are split
  as the op's result annotations (then its operands) say, operands are
  resharded to what the op needs, and a split reduction loop leaves a
  partial result that the next ``mesh.shard`` resolves with an all_reduce or
  a reduce_scatter;
* ``mesh.shard`` ops become reshards (:mod:`mlir_mesh.reshard`) and vanish;
* an op without a rule is run replicated on every device.

Function boundary (spec 000's two cases), the ``boundary`` option:

``local`` (default)
    arguments are already partitioned: the signature has local types;
``global``
    arguments are whole tensors that each device slices itself
    (``mesh.process_multi_index`` and ``tensor.extract_slice``), and results
    are whole (gathered) tensors.

The function keeps its ``mesh.sharding`` argument/result attributes and gets
``mesh.spmdized = "local" | "global"``; spmdized functions are skipped when
the pass runs again, and the simulator reads both to feed a function.
"""

from __future__ import annotations

from .._mlir import ir
from ..diagnostics import emit
from ..dialect.verifiers import shape_of_type
from ..irutil import attributes, rebuild
from ..reshard import ReshardBuilder, local_type
from ..rules import REDUCTION, get_rule
from ..sharding import (
    SHARDING_ATTR_NAME,
    Mesh,
    Sharding,
    argument_sharding,
    function_sharding_errors,
    result_sharding,
)
from ..sim.machine import SPMDIZED_ATTR
from . import PassFailure, register

BOUNDARIES = ("local", "global")

_CONSTANTS = ("arith.constant", "stablehlo.constant", "tosa.const")


class Failed(Exception):
    """Spmdization of one function stopped after an error diagnostic."""


def _fail(op, message: str):
    emit("error", op.location, message)
    raise Failed()


def _is_tensor(t) -> bool:
    return isinstance(t, ir.RankedTensorType)


class FunctionSpmdizer:
    """Rewrites one ``func.func`` in place."""

    def __init__(self, func, meshes: dict[str, Mesh], boundary: str, callee_shardings):
        self.func = func
        self.meshes = meshes
        self.boundary = boundary
        self.callee_shardings = callee_shardings
        self.block = func.regions[0].blocks[0]
        self.local: dict = {}  # global value -> (local value, sharding or None)
        self.index_cache: dict[str, list] = {}
        self.old_ops: list = []
        self.shardings_to_drop: list = []
        self.arg_types: dict = {}  # block argument -> its global type (local mode retypes them)
        # memo tables: a function has few distinct shardings and types, and many ops using them
        self._sharding_of: dict = {}  # !mesh.sharding value -> closed Sharding or None
        self._valid: set = set()  # shardings already checked against their mesh
        self._local_types: dict = {}  # (global type, sharding) -> local type
        self._made: dict = {}  # Sharding fields -> the one Sharding object with them
        self._annotations: dict = {}  # value -> its plain (not annotate_for_users) mesh.shard op
        self._rules: dict = {}  # (name, types, attributes) -> rule, for ops without a free body

    # ------------------------------------------------------------ helpers

    def mesh_of(self, sharding: Sharding, where) -> Mesh:
        mesh = self.meshes.get(sharding.mesh)
        if mesh is None:
            _fail(where, f"sharding refers to @{sharding.mesh}, which is not a mesh.mesh of this module")
        return mesh

    def process_index(self, mesh: Mesh) -> list:
        """The device's ``mesh.process_multi_index`` values, created once at the top of the function."""
        if mesh.name not in self.index_cache:
            from ..dialect.ops import ProcessMultiIndexOp

            ops = list(self.block.operations)
            ip = ir.InsertionPoint(ops[0]) if ops else ir.InsertionPoint(self.block)
            op = ProcessMultiIndexOp(
                mesh=mesh.name, result_types=[ir.IndexType.get()] * mesh.rank, loc=self.func.location, ip=ip
            )
            self.index_cache[mesh.name] = list(op.result)
        return self.index_cache[mesh.name]

    def builder(self, mesh: Mesh, loc) -> ReshardBuilder:
        return ReshardBuilder(mesh, loc, self.process_index)

    def reshard(self, value, src: Sharding | None, dst: Sharding | None, global_type, where):
        """``value`` (local under ``src``; None = whole tensor) as the shard of ``dst``."""
        if dst is None:
            if src is None or src.closed().is_replicated:
                return value
            dst = Sharding(src.mesh)
        if src is None:
            src = Sharding(dst.mesh)
            local_splat = self._local_splat(value, dst, global_type, where)
            if local_splat is not None:
                return local_splat
        if src.mesh != dst.mesh:
            _fail(where, f"cannot reshard between meshes @{src.mesh} and @{dst.mesh}")
        mesh = self.checked_mesh(dst, where)
        if src is dst or src == dst:
            return value
        try:
            return self.builder(mesh, where.location).reshard(value, src, dst, global_type)
        except ValueError as e:
            _fail(where, str(e))

    def checked_mesh(self, sharding: Sharding, where) -> Mesh:
        """The mesh of ``sharding``, after checking the sharding is valid on it."""
        mesh = self.mesh_of(sharding, where)
        if sharding not in self._valid:
            problem = sharding.check(mesh)
            if problem:
                _fail(where, f"invalid sharding {sharding}: {problem}")
            self._valid.add(sharding)
        return mesh

    def sharding_of(self, value) -> Sharding | None:
        """The closed sharding a ``!mesh.sharding`` value is defined with, if known."""
        try:
            return self._sharding_of[value]
        except KeyError:
            s = Sharding.of_value(value)
            if s is not None:
                s = s.closed()
                if not s.halo_sizes and not s.sharded_dims_offsets:  # the object make() gives
                    s = self.make(s.mesh, s.split_axes, s.partial_axes, s.partial_type)
            self._sharding_of[value] = s
            return s

    def make(self, mesh: str, split: tuple, partial: tuple = (), kind: str = "sum") -> Sharding:
        """``Sharding(mesh, split, partial, kind)``, one shared object per distinct value."""
        while split and not split[-1]:
            split = split[:-1]
        key = (mesh, split, partial, kind)
        s = self._made.get(key)
        if s is None:
            s = self._made[key] = Sharding(mesh, split, partial, kind)
        return s

    def global_type(self, value):
        return self.arg_types.get(value, value.type)

    def _local_splat(self, value, dst: Sharding, global_type, where):
        """A whole splat constant needed as a shard: a splat of the shard's type, no slicing."""
        owner = value.owner
        if not isinstance(owner, ir.OpView) or owner.operation.name not in ("arith.constant", "stablehlo.constant"):
            return None
        if dst.partial_axes or dst.halo_sizes:
            return None
        return _splat_at(owner.operation, self.local_type_of(global_type, dst, where))

    def lookup(self, value):
        return self.local.get(value, (value, None))

    def local_type_of(self, global_type, sharding: Sharding | None, where):
        if sharding is None or not _is_tensor(global_type):
            return global_type
        key = (global_type, sharding)
        t = self._local_types.get(key)
        if t is None:
            t = self._local_types[key] = self._local_type(global_type, sharding, where)
        return t

    def _local_type(self, global_type, sharding: Sharding, where):
        shape = shape_of_type(global_type)
        for d, axes in enumerate(sharding.split_axes):
            if axes and shape[d] is None:
                _fail(where, f"cannot partition dimension {d} of {global_type}: its size is dynamic")
        return local_type(global_type, sharding, self.mesh_of(sharding, where))

    # ------------------------------------------------------------ the function

    def run(self) -> None:
        original = [op.operation for op in self.block.operations]
        self.first_op = original[0]
        # rules read the global types: take them all before arguments get local types
        rules = []
        for op in original:
            name = op.name
            if name == "mesh.shard":
                # value -> its plain mesh.shard (the last one wins, like the use list's first
                # entry): one walk here instead of a walk of every result's uses later
                if "annotate_for_users" not in op.attributes:
                    self._annotations[op.operands[0]] = op
                rules.append(None)
            else:
                rules.append(self._rule(op, name))
        for i, arg in enumerate(self.block.arguments):
            self._arg_sharding(i, arg)
        for op, rule in zip(original, rules):
            self.old_ops.append(op)
            with ir.InsertionPoint(op), op.location:
                self.visit(op, rule)
        for op in reversed(self.old_ops):
            op.erase()
        for op in reversed(list(self.block.operations)):  # whole constants that only fed local splats
            op = op.operation
            if op.name in _CONSTANTS and not any(True for r in op.results for _ in r.uses):
                op.erase()
        self._finish_signature()

    def _arg_sharding(self, i, arg) -> None:
        s = argument_sharding(self.func, i)
        where = self.func
        if s is None and arg in self._annotations:  # hand-annotated: a plain mesh.shard of the argument
            where = self._annotations[arg]
            s = Sharding.of_value(where.operands[1])
        if s is None or not _is_tensor(arg.type):
            return
        s = s.closed()
        if self.boundary == "local":
            self.local[arg] = (arg, s)
            self.arg_types[arg] = arg.type
            arg.set_type(self.local_type_of(arg.type, s, where))
        else:
            self.local[arg] = (self._slice_argument(arg, s), s)

    def _slice_argument(self, arg, s: Sharding):
        """Global boundary: each device extracts its shard of a whole argument."""
        mesh = self.mesh_of(s, self.func)
        shape = shape_of_type(arg.type)
        if None in shape:
            _fail(self.func, f"cannot slice argument #{arg.arg_number} of type {arg.type}: its size is dynamic")
        with ir.InsertionPoint(self.first_op), self.func.location:
            builder = self.builder(mesh, self.func.location)
            return builder.slice_for_device(arg, Sharding(s.mesh), s, shape, arg.type)

    def _finish_signature(self) -> None:
        arg_types = [a.type for a in self.block.arguments]
        terminator = list(self.block.operations)[-1]
        result_types = [v.type for v in terminator.operands]
        self.func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(arg_types, result_types))
        self.func.attributes[SPMDIZED_ATTR] = ir.StringAttr.get(self.boundary)

    # ------------------------------------------------------------ ops

    def _rule(self, op, name):
        if name.startswith(("mesh.", "func.")):
            return None
        operands, results = op.operands, op.results
        types = tuple(v.type for v in operands) + tuple(r.type for r in results)
        if not any(_is_tensor(t) for t in types):
            return None
        if not _rule_is_a_function_of_signature(op):
            return get_rule(op)
        # named ops: the rule depends only on the name, types and attributes
        attrs = op.attributes
        key = (name, len(operands), types, tuple(attrs[i].attr for i in range(len(attrs))))
        try:
            return self._rules[key]
        except KeyError:
            rule = self._rules[key] = get_rule(op)
            return rule

    def visit(self, op, rule) -> None:
        name = op.name
        if name == "mesh.sharding":
            self.old_ops.pop()  # kept until its users are gone; erased afterwards if unused
            self.shardings_to_drop.append(op)
            return
        if name == "mesh.shard":
            self.visit_shard(op)
        elif name == "mesh.sharding_group":
            pass
        elif name.startswith("mesh."):
            _fail(op, f"'{name}' is already a per-device op; mesh-spmdization takes the global program")
        elif name == "func.return":
            self.visit_return(op)
        elif name == "func.call":
            self.visit_call(op)
        else:
            if rule is None:
                self.replicate(op)
            else:
                self.partition(op, rule)

    def visit_shard(self, op) -> None:
        src_value, src = self.lookup(op.operands[0])
        target = self.sharding_of(op.operands[1])
        if target is None:
            _fail(op, "mesh-spmdization needs the sharding of a mesh.shard to be defined by a mesh.sharding op")
        value = self.reshard(src_value, src, target, self.global_type(op.operands[0]), op)
        self.local[op.results[0]] = (value, target)

    def visit_return(self, op) -> None:
        operands = []
        for i, v in enumerate(op.operands):
            local, s = self.lookup(v)
            if not _is_tensor(v.type):
                operands.append(local)
                continue
            target = result_sharding(self.func, i) if self.boundary == "local" else None
            target = target.closed() if target is not None else (s if self.boundary == "local" else None)
            operands.append(self.reshard(local, s, target, self.global_type(v), op))
        ir.Operation.create("func.return", operands=operands, loc=op.location)

    def visit_call(self, op) -> None:
        callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
        args, results = self.callee_shardings(callee)
        operands = []
        for i, v in enumerate(op.operands):
            local, s = self.lookup(v)
            target = args[i] if i < len(args) else None
            operands.append(self.reshard(local, s, target, self.global_type(v), op) if _is_tensor(v.type) else local)
        types = []
        for i, r in enumerate(op.results):
            target = results[i] if i < len(results) else None
            types.append(self.local_type_of(r.type, target, op))
        new = self.clone(op, operands, types)
        for i, r in enumerate(op.results):
            self.local[r] = (new.results[i], results[i] if i < len(results) else None)

    def replicate(self, op) -> None:
        """An op without a rule runs on whole tensors on every device."""
        operands = []
        for v in op.operands:
            local, s = self.lookup(v)
            operands.append(self.reshard(local, s, None, self.global_type(v), op) if _is_tensor(v.type) else local)
        self._replace_nested_uses(op)
        new = self.clone(op, operands, [r.type for r in op.results])
        for r, n in zip(op.results, new.results):
            self.local[r] = (n, None)

    def _replace_nested_uses(self, op) -> None:
        """Values from above used inside the regions of an op run whole: use their whole version."""
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    inner = inner.operation
                    for i, v in enumerate(inner.operands):
                        if v in self.local:
                            local, s = self.local[v]
                            inner.operands[i] = self.reshard(local, s, None, self.global_type(v), op) if _is_tensor(v.type) else local
                    self._replace_nested_uses(inner)

    # ------------------------------------------------------------ partitioning through a rule

    def partition(self, op, rule) -> None:
        # binding accessors build new Python objects on each call: read everything once
        name = op.name
        operands = list(op.operands)
        results = list(op.results)
        result_types = [r.type for r in results]
        current = [self.lookup(v) for v in operands]
        result_targets = [self._result_annotation(r) for r in results]
        shardings = [s for _, s in current if s is not None] + [s for s in result_targets if s is not None]
        if not shardings:  # nothing sharded: the op stays as it is
            self.keep(op, current)
            return
        mesh_names = {s.mesh for s in shardings}
        if len(mesh_names) > 1:
            _fail(op, f"operands and results are sharded on different meshes: {', '.join('@' + n for n in sorted(mesh_names))}")
        mesh_name = mesh_names.pop()
        loops = self._loop_axes(rule, current, result_targets)
        # results: split like their loops, partial over the split reduction loops
        partial, kinds = [], set()
        for l, axes in loops.items():
            if rule.loops[l] == REDUCTION:
                partial.extend(axes)
                kinds.add(rule.reductions[l])
        if len(kinds) > 1:
            _fail(op, f"split reduction loops combine with different kinds ({', '.join(sorted(kinds))})")
        kind = kinds.pop() if kinds else "sum"
        partial = tuple(sorted(partial))
        result_shardings = []
        for j, t in enumerate(result_types):
            amap = rule.result_maps[j] if j < len(rule.result_maps) else None
            if amap is None or not _is_tensor(t):
                result_shardings.append(None)
                continue
            result_shardings.append(self.make(mesh_name, _split_of(amap, loops), partial, kind))
        # operands: what the loop split asks of each; inits take the result's partial axes
        first_init = _first_init(name, len(operands), len(results))
        new_operands = []
        for i, v in enumerate(operands):
            local, s = current[i]
            amap = rule.operand_maps[i] if i < len(rule.operand_maps) else None
            if amap is None or not _is_tensor(v.type):
                new_operands.append(local)
                continue
            need = self.make(mesh_name, _split_of(amap, loops), *((partial, kind) if i >= first_init else ()))
            new_operands.append(self.reshard(local, s, need, self.global_type(v), op))
        if name in _CONSTANTS or name in ("tensor.empty", "tensor.splat"):
            self.partition_source(op, new_operands, result_shardings)
            return
        types = [self.local_type_of(t, s, op) for t, s in zip(result_types, result_shardings)]
        new = self.clone(op, new_operands, types)
        for r, n, s in zip(results, new.results, result_shardings):
            self.local[r] = (n, s)

    def keep(self, op, current) -> None:
        new = self.clone(op, [local for local, _ in current], [r.type for r in op.results])
        for r, n in zip(op.results, new.results):
            self.local[r] = (n, None)

    def _result_annotation(self, result) -> Sharding | None:
        shard = self._annotations.get(result)
        return self.sharding_of(shard.operands[1]) if shard is not None else None

    def _loop_axes(self, rule, current, result_targets) -> dict[int, tuple[int, ...]]:
        """Mesh axes of each loop: result annotations first, then operands; an axis splits one loop."""
        loops: dict[int, tuple[int, ...]] = {}
        used: set[int] = set()

        def offer(l, axes):
            if l is None or not axes or l in loops or not rule.shardable(l) or used & set(axes):
                return
            loops[l] = tuple(axes)
            used.update(axes)

        for j, s in enumerate(result_targets):
            amap = rule.result_maps[j] if j < len(rule.result_maps) else None
            if s is None or amap is None:
                continue
            for d, l in enumerate(amap):
                if l is not None and rule.loops[l] != REDUCTION:  # partial axes choose reduction loops below
                    offer(l, s.axes_of(d))
        for i, (_, s) in enumerate(current):
            amap = rule.operand_maps[i] if i < len(rule.operand_maps) else None
            if s is None or amap is None:
                continue
            for d, l in enumerate(amap):
                offer(l, s.axes_of(d))
        for s in result_targets:  # partial results asked for: split a matching reduction loop
            if s is None:
                continue
            free = tuple(a for a in s.partial_axes if a not in used)
            if not free:
                continue
            for l, kind in enumerate(rule.loops):
                if kind == REDUCTION and l not in loops and rule.reductions[l] == s.partial_type:
                    offer(l, free)
                    break
        return loops

    def partition_source(self, op, operands, shardings) -> None:
        """Constants, ``tensor.empty`` and ``tensor.splat``: made locally at the shard's size."""
        r = op.results[0]
        s = shardings[0]
        if s is None or s.closed().replace(partial_axes=()).is_replicated:
            self.keep(op, [(v, None) for v in operands])
            self.local[r] = (self.local[r][0], s)
            return
        t = self.local_type_of(r.type, s, op)
        if op.name == "tensor.empty" or op.name == "tensor.splat":
            if len(operands) > (1 if op.name == "tensor.splat" else 0):
                _fail(op, f"cannot partition '{op.name}' with dynamic sizes")
            new = self.clone(op, operands, [t])
            self.local[r] = (new.results[0], s)
            return
        splat = _splat_at(op, t)
        if splat is not None:
            self.local[r] = (splat, s)
            return
        whole = self.clone(op, [], [r.type])
        self.local[r] = (self.reshard(whole.results[0], None, s, r.type, op), s)

    # ------------------------------------------------------------ cloning

    def clone(self, op, operands, result_types):
        """A copy of ``op`` with new operands and result types; regions are moved over."""
        return rebuild(op, operands, result_types)


def _splat_at(op, t):
    """A copy of the splat constant ``op`` with the static type ``t``, or None if ``op`` is not a splat."""
    key = "values" if op.name == "tosa.const" else "value"
    dense = op.attributes[key]
    if not isinstance(dense, ir.DenseElementsAttr) or not dense.is_splat or any(d < 0 for d in t.shape):
        return None
    attrs = attributes(op)
    attrs[key] = ir.DenseElementsAttr.get_splat(t, dense.get_splat_value())
    return ir.Operation.create(op.name, results=[t], attributes=attrs, loc=op.location).results[0]


def _split_of(amap, loops) -> tuple:
    """The split axes of a tensor indexed by ``amap`` (dim -> loop) when ``loops`` are split."""
    return tuple(loops.get(l, ()) if l is not None else () for l in amap)


def _first_init(name: str, n_operands: int, n_results: int) -> int:
    """Where the operands that initialise the results start (linalg's ``outs``, stablehlo.reduce's inits).

    Such an init is combined into the result on every device, so under a
    split reduction it is made partial like the result: one device keeps it,
    the others start from the neutral element.
    """
    if name.startswith("linalg."):
        return n_operands - n_results
    if name == "stablehlo.reduce":
        return n_operands // 2
    return n_operands


# ops with regions whose body is not fixed by their name, so not by (name, types, attributes)
_FREE_BODY = ("linalg.generic", "linalg.map", "linalg.reduce")


def _rule_is_a_function_of_signature(op) -> bool:
    """Whether two ops with equal names, types and attributes have equal rules."""
    if op.name.startswith("linalg."):
        return op.name not in _FREE_BODY
    return not len(op.regions)


# ------------------------------------------------------------------ the pass


def spmdize(module, boundary: str = "local") -> None:
    """Runs mesh-spmdization on every annotated function of ``module``.

    Raises :class:`PassFailure` after emitting located diagnostics.
    """
    module = module.operation if hasattr(module, "operation") else module
    if boundary not in BOUNDARIES:
        emit("error", module.location, f"unknown boundary '{boundary}'; expected one of {', '.join(BOUNDARIES)}")
        raise PassFailure()
    errors = function_sharding_errors(module)
    for loc, message in errors:
        emit("error", loc, message)
    if errors:
        raise PassFailure()
    top = [op.operation for op in module.regions[0].blocks[0].operations]
    meshes = {m.name: m for m in (Mesh.from_op(op) for op in top if op.name == "mesh.mesh")}
    funcs = {ir.StringAttr(op.attributes["sym_name"]).value: op for op in top if op.name == "func.func"}

    def callee_shardings(name):
        f = funcs.get(name)
        if f is None or boundary == "global" or not len(f.regions[0].blocks):
            return [], []
        ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
        return (
            [argument_sharding(f, i) for i in range(len(ftype.inputs))],
            [result_sharding(f, i) for i in range(len(ftype.results))],
        )

    # every function's boundary shardings are read before any function changes
    boundaries = {name: callee_shardings(name) for name in funcs}
    failed = False
    for name, func in funcs.items():
        if not len(func.regions[0].blocks) or SPMDIZED_ATTR in func.attributes or not _annotated(func):
            continue
        spmdizer = FunctionSpmdizer(func, meshes, boundary, lambda n: boundaries.get(n, ([], [])))
        try:
            spmdizer.run()
        except Failed:
            failed = True
            continue
        for op in reversed(spmdizer.shardings_to_drop):
            if not any(True for _ in op.results[0].uses):
                op.erase()
    if failed:
        raise PassFailure()


def _annotated(func) -> bool:
    for key in ("arg_attrs", "res_attrs"):
        if key in func.attributes and SHARDING_ATTR_NAME in str(func.attributes[key]):
            return True
    for op in func.regions[0].blocks[0].operations:
        if op.operation.name == "mesh.shard":
            return True
    return False


@register(
    "mesh-spmdization",
    "Partition annotated functions into the program each device runs (spec 000's sharding partition).",
    options={
        "boundary": (str, "local", "function arguments/results: 'local' (already partitioned) or 'global' (whole tensors)"),
    },
)
def _pass(module, boundary: str = "local") -> None:
    spmdize(module, boundary)
