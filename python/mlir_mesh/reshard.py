"""Resharding: the collectives that turn a tensor of one sharding into another.

The planner works on the basis of spec 004 plus the partial reductions:

============================  =============================  ==========================
move                          collective                     bytes received per device
============================  =============================  ==========================
split a dim further           ``mesh.all_slice``             0
unsplit (minor axes of a dim) ``mesh.all_gather``            ``(k-1) L``
move axes to another dim      ``mesh.all_to_all``            ``(k-1)/k L``
reorder the axes of a dim     ``mesh.send`` + ``mesh.recv``  ``L``
partial -> replicated         ``mesh.all_reduce``            ``2 (k-1)/k L``
partial -> split              ``mesh.reduce_scatter``        ``(k-1)/k L``
replicated -> partial         local select                   0
============================  =============================  ==========================

``L`` is the size of the local shard before the move and ``k`` the size of
the device group (a ring model).  The planner searches the sequences of
moves (Dijkstra over shardings) and keeps the one with the fewest bytes,
then the fewest ops.  Moves need even splits; halos are removed first and
added last (``mesh.update_halo``), and uneven shards (``sharded_dims_offsets``
or sizes that do not divide) go through the replicated tensor: a padded
``mesh.all_gather`` and a per-device ``tensor.extract_slice``.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import math
from dataclasses import dataclass
from typing import Sequence

from .sharding import Mesh, Sharding


@dataclass(frozen=True)
class Step:
    """One move of a plan: ``kind`` with its mesh ``axes`` and tensor dimensions."""

    kind: str  # all_slice, all_gather, all_to_all, permute, all_reduce, reduce_scatter, partialize
    axes: tuple[int, ...]
    dim: int = -1  # the dimension split, gathered, split by all_to_all, scattered or permuted
    src_dim: int = -1  # all_to_all: the dimension the axes leave (concatenated)
    reduction: str = "sum"
    before: Sharding | None = None
    after: Sharding | None = None
    cost: float = 0.0


def is_even(sharding: Sharding, shape: Sequence[int | None], mesh: Mesh) -> bool:
    """Every split dimension divides evenly and no explicit offsets are given."""
    if sharding.sharded_dims_offsets:
        return False
    for d, axes in enumerate(sharding.split_axes):
        if axes and (shape[d] is None or shape[d] % mesh.group_size(axes)):
            return False
    return True


def plan(src: Sharding, dst: Sharding, shape: Sequence[int], mesh: Mesh) -> list[Step]:
    """The cheapest sequence of even moves from ``src`` to ``dst`` (both without halos, even).

    Raises ValueError when no sequence exists (a partial kind ``dst`` keeps
    but ``src`` has another kind, say).
    """
    return list(_plan(src, dst, tuple(shape), mesh))


# The search runs on plain tuples, (split axes per dimension, sorted partial
# axes); shardings are made for the steps of the plan found.
_State = tuple


@functools.lru_cache(maxsize=4096)
def _plan(src: Sharding, dst: Sharding, shape: tuple, mesh: Mesh) -> tuple[Step, ...]:
    rank = len(shape)
    start = (src.padded_split(rank), tuple(sorted(src.partial_axes)))
    goal = (dst.padded_split(rank), tuple(sorted(dst.partial_axes)))
    if start == goal:
        return ()
    keep_partial = set(src.partial_axes) & set(dst.partial_axes)
    if keep_partial and src.partial_type != dst.partial_type:
        raise ValueError(f"cannot turn a partial '{src.partial_type}' value into a partial '{dst.partial_type}' one")
    search = _Search(src, dst, shape, mesh, sorted(src.used_axes | dst.used_axes))
    counter = itertools.count()
    frontier = [((0.0, 0), next(counter), start, ())]
    best = {start: (0.0, 0)}
    while frontier:
        cost, _, state, moves = heapq.heappop(frontier)
        if state == goal:
            return tuple(search.step(move, mesh.name) for move in moves)
        if best.get(state, cost) < cost:
            continue
        for move in search.moves(state):
            after = move[-1]
            new_cost = (cost[0] + move[1], cost[1] + 1)
            if new_cost < best.get(after, (math.inf, 0)):
                best[after] = new_cost
                heapq.heappush(frontier, (new_cost, next(counter), after, moves + (move,)))
    raise ValueError(f"no resharding from {src} to {dst} on a tensor of shape {shape}")


class _Search:
    """The moves out of a state; a move is (kind, cost, axes, dim, src_dim, before, after)."""

    def __init__(self, src: Sharding, dst: Sharding, shape: tuple, mesh: Mesh, pool: list[int]):
        self.src_partial = set(src.partial_axes)
        self.kind = src.partial_type
        self.dst = dst
        self.shape = shape
        self.mesh = mesh
        self.pool = pool
        self.dst_split = dst.padded_split(len(shape))

    def group(self, axes) -> int:
        n = 1
        for a in axes:
            n *= self.mesh.shape[a]
        return n

    def even(self, d: int, axes) -> bool:
        return self.shape[d] % self.group(axes) == 0

    def local(self, split) -> int:
        n = 1
        for size, axes in zip(self.shape, split):
            n *= size // self.group(axes)
        return n

    def moves(self, state: _State):
        split, partial = state
        rank = len(split)
        local = self.local(split)
        used = {a for g in split for a in g} | set(partial)
        free = [a for a in self.pool if a not in used]
        out = []

        def add(kind, cost, axes, dim, src_dim, new_split, new_partial):
            out.append((kind, cost, tuple(axes), dim, src_dim, state, (tuple(new_split), tuple(sorted(new_partial)))))

        to_reduce = [a for a in partial if a not in self.dst.partial_axes]
        if to_reduce:
            k = self.group(to_reduce)
            rest = [a for a in partial if a not in to_reduce]
            add("all_reduce", 2 * (k - 1) / k * local, to_reduce, -1, -1, split, rest)
            for d in range(rank):
                order = sorted(to_reduce, key=lambda a: _position(self.dst_split[d], a))
                if self.even(d, split[d] + tuple(order)):
                    new = list(split)
                    new[d] = split[d] + tuple(order)
                    add("reduce_scatter", (k - 1) / k * local, order, d, -1, new, rest)
        else:
            to_partial = [a for a in self.dst.partial_axes if a not in used]
            if to_partial:
                add("partialize", 0.0, to_partial, -1, -1, split, list(partial) + to_partial)
        for d in range(rank):
            axes = split[d]
            for n in range(1, len(axes) + 1):  # gather a suffix, or move it to another dimension
                moved = axes[-n:]
                k = self.group(moved)
                new = list(split)
                new[d] = axes[:-n]
                add("all_gather", (k - 1) * local, moved, d, -1, new, partial)
                for e in range(rank):
                    if e != d and self.even(e, split[e] + moved):
                        new = list(split)
                        new[d] = axes[:-n]
                        new[e] = split[e] + moved
                        add("all_to_all", (k - 1) / k * local, moved, e, d, new, partial)
            if len(axes) > 1:
                for perm in itertools.permutations(axes):
                    if perm != axes:
                        new = list(split)
                        new[d] = perm
                        add("permute", float(local), perm, d, -1, new, partial)
            for n in range(1, len(free) + 1):  # split further by free axes
                for extra in itertools.permutations(free, n):
                    if self.even(d, axes + extra):
                        new = list(split)
                        new[d] = axes + extra
                        add("all_slice", 0.0, extra, d, -1, new, partial)
        return out

    def step(self, move, mesh_name: str) -> Step:
        kind, cost, axes, dim, src_dim, before, after = move
        return Step(kind, axes, dim, src_dim, self.kind if kind != "partialize" else self.dst.partial_type,
                    self.sharding(before, mesh_name), self.sharding(after, mesh_name), cost)

    def sharding(self, state: _State, mesh_name: str) -> Sharding:
        split, partial = state
        kind = self.kind if set(partial) <= self.src_partial else self.dst.partial_type
        return Sharding(mesh_name, split, partial, kind if partial else "sum")


def _position(axes: tuple, a: int) -> int:
    return axes.index(a) if a in axes else len(axes) + a


def plan_bytes(steps: Sequence[Step], elem_bytes: int) -> float:
    """Bytes a device receives along a plan (the cost model above)."""
    return sum(s.cost for s in steps) * elem_bytes


# ====================================================================== IR


def local_type(global_type, sharding: Sharding, mesh: Mesh):
    """The type one device holds of a tensor of ``global_type`` under ``sharding`` (``?`` where shards differ)."""
    from ._mlir import ir

    t = ir.RankedTensorType(global_type)
    shape = [None if ir.ShapedType.is_dynamic_size(s) else s for s in t.shape]
    local = sharding.shard_shape(shape, mesh)
    dyn = ir.ShapedType.get_dynamic_size()
    return ir.RankedTensorType.get([dyn if s is None else s for s in local], t.element_type)


class ReshardBuilder:
    """Emits reshards as mesh collectives at an insertion point.

    ``index_source(mesh)`` must return the ``mesh.process_multi_index``
    values of the current device (the spmdization pass creates them once
    per function); by default they are created before each use.
    """

    def __init__(self, mesh: Mesh, loc=None, index_source=None):
        self.mesh = mesh
        self.loc = loc
        self._index_source = index_source
        self._constants: dict[int, object] = {}

    # ------------------------------------------------------------ entry

    def reshard(self, value, src: Sharding, dst: Sharding, global_type):
        """The local value of ``dst`` from the local ``value`` of ``src``."""
        from ._mlir import ir

        src, dst = src.closed(), dst.closed()
        if src == dst:
            return value
        t = ir.RankedTensorType(global_type)
        shape = tuple(None if ir.ShapedType.is_dynamic_size(s) else s for s in t.shape)
        if None in shape:
            raise ValueError(f"resharding {src} to {dst} needs static sizes, the tensor is {t}")
        plain_src = src.replace(halo_sizes=())
        plain_dst = dst.replace(halo_sizes=())
        if src.halo_sizes:
            value = self._strip_halos(value, src, shape, global_type)
        if is_even(plain_src, shape, self.mesh) and is_even(plain_dst, shape, self.mesh):
            for step in plan(plain_src, plain_dst, shape, self.mesh):
                value = self.emit_step(value, step, global_type)
        else:
            value = self._through_replicated(value, plain_src, plain_dst, shape, global_type)
        if dst.halo_sizes:
            value = self._add_halos(value, dst, global_type)
        return value

    # ------------------------------------------------------------ one move

    def emit_step(self, value, step: Step, global_type):
        from .dialect import ops as m

        out_type = local_type(global_type, step.after, self.mesh)
        common = dict(mesh=self.mesh.name, mesh_axes=step.axes, result_type=out_type, loc=self.loc)
        kind = step.kind
        if kind == "all_slice":
            return m.AllSliceOp(value, slice_axis=step.dim, **common).result
        if kind == "all_gather":
            return m.AllGatherOp(value, gather_axis=step.dim, **common).result
        if kind == "all_to_all":
            return m.AllToAllOp(value, split_axis=step.dim, concat_axis=step.src_dim, **common).result
        if kind == "all_reduce":
            return m.AllReduceOp(value, reduction=step.reduction, **common).result
        if kind == "reduce_scatter":
            return m.ReduceScatterOp(value, scatter_axis=step.dim, reduction=step.reduction, **common).result
        if kind == "permute":
            return self._permute(value, step.before.axes_of(step.dim), step.axes, out_type)
        if kind == "partialize":
            return self._partialize(value, step.axes, step.reduction)
        raise ValueError(f"unknown reshard step {kind}")

    # ------------------------------------------------------------ index arithmetic

    def _coords(self):
        if self._index_source is not None:
            return self._index_source(self.mesh)
        from ._mlir import ir
        from .dialect import ops as m

        index = [ir.IndexType.get()] * self.mesh.rank
        return list(m.ProcessMultiIndexOp(mesh=self.mesh.name, result_types=index, loc=self.loc).result)

    def _const(self, n: int):
        """An index constant, made once per builder (one builder serves one insertion point)."""
        from ._mlir import arith, ir

        if n not in self._constants:
            self._constants[n] = arith.ConstantOp(ir.IndexType.get(), n, loc=self.loc).result
        return self._constants[n]

    def _arith(self, name: str, a, b):
        from ._mlir import ir

        return ir.Operation.create(f"arith.{name}", results=[a.type], operands=[a, b], loc=self.loc).results[0]

    def _encode(self, coords, axes):
        """The linear index of a device inside its group along ``axes`` (first axis major)."""
        index = coords[axes[0]]
        for a in axes[1:]:
            index = self._arith("addi", self._arith("muli", index, self._const(self.mesh.shape[a])), coords[a])
        return index

    def _decode(self, index, axes) -> dict:
        """Coordinates along ``axes`` of the in-group ``index`` (first axis major)."""
        out = {}
        for a in reversed(axes):
            size = self._const(self.mesh.shape[a])
            out[a] = self._arith("remui", index, size)
            index = self._arith("divui", index, size)
        return out

    def _in_group_index(self, axes):
        return self._encode(self._coords(), list(axes))

    def _equals(self, index, n: int):
        """``index == n`` (``arith.cmpi eq``)."""
        from ._mlir import ir

        eq = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)
        return ir.Operation.create(
            "arith.cmpi", results=[ir.IntegerType.get_signless(1)], operands=[index, self._const(n)],
            attributes={"predicate": eq}, loc=self.loc,
        ).results[0]

    def _lookup(self, index, table: Sequence[int]):
        """``table[index]`` as a chain of selects (tables are group-sized)."""
        from ._mlir import arith

        if len(set(table)) == 1:
            return self._const(table[0])
        value = self._const(table[-1])
        for i in range(len(table) - 2, -1, -1):
            value = arith.SelectOp(self._equals(index, i), self._const(table[i]), value, loc=self.loc).result
        return value

    # ------------------------------------------------------------ permute and partialize

    def _permute(self, value, old, new, out_type):
        """Reorders the axes splitting one dimension: each device sends its block to its new owner."""
        from .dialect import ops as m

        coords = self._coords()
        chunk = self._encode(coords, list(old))
        dest = self._decode(chunk, list(new))
        mine = self._encode(coords, list(new))
        source = self._decode(mine, list(old))
        sent = m.SendOp(value, mesh=self.mesh.name, mesh_axes=tuple(old), destination=[dest[a] for a in old],
                        result_type=value.type, loc=self.loc).result
        return m.RecvOp(sent, mesh=self.mesh.name, mesh_axes=tuple(old), source=[source[a] for a in old],
                        result_type=out_type, loc=self.loc).result

    def _partialize(self, value, axes, kind: str):
        """A replicated value made partial along ``axes``: one device keeps it, the others the neutral element."""
        from ._mlir import arith, ir

        if kind in ("max", "min", "average", "bitwise_and", "bitwise_or"):
            return value  # idempotent kinds: every device may keep the value
        neutral = {"sum": 0, "bitwise_xor": 0, "product": 1}.get(kind)
        if neutral is None:
            raise ValueError(f"cannot make a value partial with reduction '{kind}'")
        fill = self._splat(ir.RankedTensorType(value.type), neutral)
        keeper = self._equals(self._in_group_index(axes), 0)
        return arith.SelectOp(keeper, value, fill, loc=self.loc).result

    # ------------------------------------------------------------ halos

    def _strip_halos(self, value, sharding: Sharding, shape, global_type):
        plain = sharding.replace(halo_sizes=())
        out_type = local_type(global_type, plain, self.mesh)
        offsets, k = [], 0
        for d in range(len(shape)):
            if sharding.axes_of(d):
                offsets.append(sharding.halo_sizes[2 * k])
                k += 1
            else:
                offsets.append(0)
        sizes = list(out_type.shape)
        if any(ir_dynamic(s) for s in sizes):
            raise ValueError(f"removing the halos of {sharding} needs static shard sizes")
        return self._extract(value, offsets, sizes, out_type)

    def _add_halos(self, core, sharding: Sharding, global_type):
        from .dialect import ops as m

        out_type = local_type(global_type, sharding, self.mesh)
        if any(ir_dynamic(s) for s in out_type.shape):
            raise ValueError(f"adding the halos of {sharding} needs static shard sizes")
        buffer = self._zeros(out_type)
        return m.UpdateHaloOp(
            core, buffer, mesh=self.mesh.name, split_axes=sharding.split_axes,
            destination_halo_sizes=list(sharding.halo_sizes), result_type=out_type, loc=self.loc,
        ).result

    # ------------------------------------------------------------ uneven shards

    def _through_replicated(self, value, src: Sharding, dst: Sharding, shape, global_type):
        if src.partial_axes and set(src.partial_axes) - set(dst.partial_axes):
            from .dialect import ops as m

            reduced = tuple(a for a in src.partial_axes if a not in dst.partial_axes)
            value = m.AllReduceOp(value, mesh=self.mesh.name, mesh_axes=reduced, reduction=src.partial_type,
                                  result_type=value.type, loc=self.loc).result
            src = src.replace(partial_axes=tuple(a for a in src.partial_axes if a in dst.partial_axes))
        whole = Sharding(self.mesh.name, partial_axes=src.partial_axes, partial_type=src.partial_type)
        value = self._gather_uneven(value, src, shape, global_type)
        return self.slice_for_device(value, whole, dst, shape, global_type)

    def _gather_uneven(self, value, src: Sharding, shape, global_type):
        """All shards of ``src`` put together on every device: padded to the largest shard, gathered, unpadded."""
        from ._mlir import ir
        from .dialect import ops as m

        rank = len(shape)
        split = [d for d in range(rank) if src.axes_of(d)]
        if not split:
            return value
        chunks = {d: self._extents(src, shape, d)[1] for d in split}
        elem = ir.RankedTensorType(global_type).element_type
        padded_shape = [max(chunks[d]) if d in chunks else shape[d] for d in range(rank)]
        padded_type = ir.RankedTensorType.get(padded_shape, elem)
        local = ir.RankedTensorType(value.type)
        sizes = [self._dim(value, d) if ir_dynamic(local.shape[d]) else local.shape[d] for d in range(rank)]
        value = self._insert(value, self._zeros(padded_type), [0] * rank, sizes, padded_type)
        for d in split:
            axes = src.axes_of(d)
            padded_shape[d] *= len(chunks[d])
            gathered_type = ir.RankedTensorType.get(padded_shape, elem)
            value = m.AllGatherOp(value, mesh=self.mesh.name, mesh_axes=axes, gather_axis=d,
                                  result_type=gathered_type, loc=self.loc).result
        for d in split:
            width = max(chunks[d])
            pieces = []
            for i, n in enumerate(chunks[d]):
                if n == 0:
                    continue
                piece_shape = list(ir.RankedTensorType(value.type).shape)
                offsets = [0] * rank
                offsets[d] = i * width
                piece_shape[d] = n
                pieces.append(self._extract(value, offsets, piece_shape, ir.RankedTensorType.get(piece_shape, elem)))
            full_shape = list(ir.RankedTensorType(value.type).shape)
            full_shape[d] = sum(chunks[d])
            value = pieces[0] if len(pieces) == 1 else self._concat(pieces, d, ir.RankedTensorType.get(full_shape, elem))
        return value

    def _extents(self, sharding: Sharding, shape, d: int) -> tuple[list[int], list[int]]:
        """Start and length of dimension ``d`` on each in-group index of its split axes."""
        axes = sharding.axes_of(d)
        starts = [0] * self.mesh.group_size(axes)
        lengths = [0] * len(starts)
        for dev in self.mesh.devices():
            start, stop, _ = sharding.dim_slice(shape, self.mesh, d, dev)
            i = self.mesh.in_group_index(dev, axes)
            starts[i], lengths[i] = start, stop - start
        return starts, lengths

    def slice_for_device(self, value, src: Sharding, dst: Sharding, shape, global_type):
        """From a value replicated on the split axes of ``dst``: each device extracts its own shard."""
        rank = len(shape)
        out_type = local_type(global_type, dst.replace(halo_sizes=(), partial_axes=()), self.mesh)
        offsets, sizes = [], []
        for d in range(rank):
            axes = dst.axes_of(d)
            if not axes:
                offsets.append(0)
                sizes.append(shape[d])
                continue
            starts, lengths = self._extents(dst, shape, d)
            index = self._in_group_index(axes)
            if not dst.sharded_dims_offsets and is_even(Sharding(dst.mesh, (axes,)), (shape[d],), self.mesh):
                offsets.append(self._arith("muli", index, self._const(lengths[0])))
            else:
                offsets.append(self._lookup(index, starts))
            sizes.append(lengths[0] if not ir_dynamic(out_type.shape[d]) else self._lookup(index, lengths))
        value = self._extract(value, offsets, sizes, out_type)
        extra = tuple(a for a in dst.partial_axes if a not in src.partial_axes)
        if extra:
            value = self._partialize(value, extra, dst.partial_type)
        return value

    # ------------------------------------------------------------ tensor ops

    def _splat(self, t, number):
        """A constant tensor of type ``t`` filled with ``number``."""
        from ._mlir import arith, ir

        elem = t.element_type
        scalar = ir.FloatAttr.get(elem, float(number)) if isinstance(elem, ir.FloatType) else ir.IntegerAttr.get(elem, number)
        return arith.ConstantOp(t, ir.DenseElementsAttr.get_splat(t, scalar), loc=self.loc).result

    def _zeros(self, t):
        return self._splat(t, 0)

    def _dim(self, value, d):
        from ._mlir import ir

        return ir.Operation.create("tensor.dim", results=[ir.IndexType.get()], operands=[value, self._const(d)],
                                   loc=self.loc).results[0]

    def _slice_op(self, name, operands, offsets, sizes, result_type):
        from ._mlir import ir

        dyn = ir.ShapedType.get_dynamic_size()
        rank = len(offsets)
        dyn_offsets = [o for o in offsets if not isinstance(o, int)]
        dyn_sizes = [s for s in sizes if not isinstance(s, int)]
        attrs = {
            "static_offsets": ir.DenseI64ArrayAttr.get([o if isinstance(o, int) else dyn for o in offsets]),
            "static_sizes": ir.DenseI64ArrayAttr.get([s if isinstance(s, int) else dyn for s in sizes]),
            "static_strides": ir.DenseI64ArrayAttr.get([1] * rank),
            "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1] * len(operands) + [len(dyn_offsets), len(dyn_sizes), 0]),
        }
        return ir.Operation.create(name, results=[result_type], operands=list(operands) + dyn_offsets + dyn_sizes,
                                   attributes=attrs, loc=self.loc).results[0]

    def _extract(self, value, offsets, sizes, result_type):
        return self._slice_op("tensor.extract_slice", [value], offsets, sizes, result_type)

    def _insert(self, value, dest, offsets, sizes, result_type):
        return self._slice_op("tensor.insert_slice", [value, dest], offsets, sizes, result_type)

    def _concat(self, pieces, dim, result_type):
        from ._mlir import ir

        return ir.Operation.create("tensor.concat", results=[result_type], operands=pieces,
                                   attributes={"dim": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dim)},
                                   loc=self.loc).results[0]


def ir_dynamic(size) -> bool:
    return size < 0
