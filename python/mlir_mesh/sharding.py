"""The sharding value model: meshes and shardings as Python values.

:class:`Mesh` and :class:`Sharding` are immutable and hashable, so passes use
them as dictionary keys and compare them with ``==``.  A sharding is kept in
its normal form (trailing unsplit dimensions dropped, the reduction kind
reset when nothing is partial), so two spellings of the same sharding are
equal: ``[[0], []]`` and ``[[0]]`` are one sharding.

Shard shapes follow spec 004: a dimension of size ``K`` split ``M`` ways
gives every shard ``K ceildiv M`` elements, except that the last shards hold
what is left (possibly nothing).  ``sharded_dims_offsets`` give uneven
shards explicitly and ``halo_sizes`` widen every shard of a split dimension.

Conversions:

* :meth:`Sharding.from_op` / :meth:`Sharding.build` read and create
  ``mesh.sharding`` ops;
* :meth:`Sharding.from_attr` / :meth:`Sharding.to_attr` read and create the
  ``#mesh.sharding`` attribute of function arguments and results.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence

from ._mlir import ir
from .dialect.kinds import KINDS, OPEN_AXIS, attr_value
from .dialect.sharding_attr import ShardingSpec
from .dialect.verifiers import lookup_mesh

#: Name of the function argument/result attribute holding an input/output sharding.
SHARDING_ATTR_NAME = "mesh.sharding"


def ceildiv(a: int, b: int) -> int:
    return -(-a // b)


# ----------------------------------------------------------------------- mesh


@dataclass(frozen=True)
class Mesh:
    """A device mesh: its symbol name and shape (``None`` for a dynamic axis)."""

    name: str
    shape: tuple[int | None, ...]

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def is_static(self) -> bool:
        return None not in self.shape

    @property
    def size(self) -> int | None:
        """Number of devices, ``None`` if an axis is dynamic."""
        return math.prod(self.shape) if self.is_static else None

    def group_size(self, axes: Iterable[int]) -> int | None:
        """Number of devices in a device group along ``axes``."""
        sizes = [self.shape[a] for a in axes]
        return None if None in sizes else math.prod(sizes)

    def devices(self) -> Iterator[tuple[int, ...]]:
        """Every device's multi-index, in linear (row-major) order."""
        if not self.is_static:
            raise ValueError(f"mesh @{self.name} has dynamic axes")
        yield from _product(self.shape)

    def linear_index(self, coords: Sequence[int]) -> int:
        index = 0
        for c, s in zip(coords, self.shape):
            index = index * s + c
        return index

    def coords(self, linear: int) -> tuple[int, ...]:
        out = []
        for s in reversed(self.shape):
            out.append(linear % s)
            linear //= s
        return tuple(reversed(out))

    def in_group_index(self, coords: Sequence[int], axes: Sequence[int]) -> int:
        """The index of a device inside its group along ``axes`` (first axis major)."""
        index = 0
        for a in axes:
            index = index * self.shape[a] + coords[a]
        return index

    @classmethod
    def from_op(cls, op) -> "Mesh":
        """The mesh of a ``mesh.mesh`` op."""
        op = op.operation if hasattr(op, "operation") else op
        name = ir.StringAttr(op.attributes["sym_name"]).value
        return cls(name, KINDS["i64_array"].value_of(op.attributes["shape"]))

    @classmethod
    def lookup(cls, anchor, name: str) -> "Mesh | None":
        """The mesh ``@name`` of the module enclosing ``anchor`` (or of ``anchor``, a module), or None."""
        op = anchor.operation if hasattr(anchor, "operation") else anchor
        if op.name == "builtin.module" and len(op.regions[0].blocks[0].operations):
            op = op.regions[0].blocks[0].operations[0].operation  # search the module itself
        found = lookup_mesh(op, name)
        return None if found is None else cls.from_op(found)


def _product(shape: Sequence[int]) -> Iterator[tuple[int, ...]]:
    if not shape:
        yield ()
        return
    for head in range(shape[0]):
        for rest in _product(shape[1:]):
            yield (head, *rest)


# ------------------------------------------------------------------- sharding


@dataclass(frozen=True)
class Sharding:
    """How a tensor is laid out on a mesh.

    ``split_axes[d]`` lists the mesh axes tensor dimension ``d`` is split
    along (the first axis is the major one); ``partial_axes`` are the axes
    along which every device holds a partial value still to be reduced with
    ``partial_type``.  ``open_dims`` are the dimensions propagation may still
    split further (spec 002); every other dimension is closed.
    """

    mesh: str
    split_axes: tuple[tuple[int, ...], ...] = ()
    partial_axes: tuple[int, ...] = ()
    partial_type: str = "sum"
    halo_sizes: tuple[int | None, ...] = ()
    sharded_dims_offsets: tuple[int | None, ...] = ()
    open_dims: frozenset[int] = field(default=frozenset())

    def __post_init__(self):
        split = self.split_axes
        set_ = object.__setattr__
        if (
            type(split) is tuple
            and (not split or split[-1])
            and all(type(g) is tuple and (not g or g[-1] != OPEN_AXIS) for g in split)
            and type(self.open_dims) is frozenset
            and not self.open_dims
        ):
            pass  # already in normal form (the common case: built by passes)
        else:
            split = [tuple(g) for g in split]
            open_dims = set(self.open_dims)
            for d, g in enumerate(split):
                if g and g[-1] == OPEN_AXIS:
                    split[d] = g[:-1]
                    open_dims.add(d)
            while split and not split[-1] and (len(split) - 1) not in open_dims:
                split.pop()
            set_(self, "split_axes", tuple(split))
            set_(self, "open_dims", frozenset(open_dims))
        if type(self.partial_axes) is not tuple:
            set_(self, "partial_axes", tuple(self.partial_axes))
        if not self.partial_axes and self.partial_type != "sum":
            set_(self, "partial_type", "sum")
        if type(self.halo_sizes) is not tuple:
            set_(self, "halo_sizes", tuple(self.halo_sizes))
        if type(self.sharded_dims_offsets) is not tuple:
            set_(self, "sharded_dims_offsets", tuple(self.sharded_dims_offsets))

    # ------------------------------------------------------------ queries

    @classmethod
    def replicated(cls, mesh: str) -> "Sharding":
        return cls(mesh)

    def axes_of(self, dim: int) -> tuple[int, ...]:
        """The mesh axes tensor dimension ``dim`` is split along."""
        return self.split_axes[dim] if dim < len(self.split_axes) else ()

    @property
    def used_axes(self) -> frozenset[int]:
        """Mesh axes that split a dimension or are partial."""
        return frozenset(a for g in self.split_axes for a in g) | frozenset(self.partial_axes)

    @property
    def is_replicated(self) -> bool:
        return not self.split_axes and not self.partial_axes

    @property
    def is_closed(self) -> bool:
        return not self.open_dims

    def closed(self) -> "Sharding":
        """The same sharding with every dimension closed."""
        if not self.open_dims:
            return self
        return self.replace(open_dims=frozenset())

    def replace(self, **changes) -> "Sharding":
        """A copy with some fields changed."""
        values = {
            "mesh": self.mesh,
            "split_axes": self.split_axes,
            "partial_axes": self.partial_axes,
            "partial_type": self.partial_type,
            "halo_sizes": self.halo_sizes,
            "sharded_dims_offsets": self.sharded_dims_offsets,
            "open_dims": self.open_dims,
        }
        values.update(changes)
        return Sharding(**values)

    def padded_split(self, rank: int) -> tuple[tuple[int, ...], ...]:
        """``split_axes`` extended with empty groups to ``rank`` dimensions."""
        return self.split_axes + ((),) * (rank - len(self.split_axes))

    def same_distribution(self, other: "Sharding") -> bool:
        """Equal, ignoring which dimensions are open."""
        if self is other:
            return True
        return self.closed() == other.closed()

    def check(self, mesh: Mesh) -> str | None:
        """Why this sharding is invalid on ``mesh`` (the rules of ``mesh.sharding``), or None."""
        seen: set[int] = set()
        for what, axes in [(f"split axes of dimension {d}", g) for d, g in enumerate(self.split_axes)] + [
            ("partial axes", self.partial_axes)
        ]:
            for a in axes:
                if not 0 <= a < mesh.rank:
                    return f"{what} use mesh axis {a}, out of range for mesh @{mesh.name} of rank {mesh.rank}"
                if a in seen:
                    return f"mesh axis {a} is used more than once"
                seen.add(a)
        if self.partial_axes and self.partial_type == "generic":
            return "reduction kind 'generic' is not allowed in a sharding"
        if self.halo_sizes and self.sharded_dims_offsets:
            return "halo_sizes and sharded_dims_offsets are mutually exclusive"
        split_dims = [g for g in self.split_axes if g]
        if self.halo_sizes and len(self.halo_sizes) != 2 * len(split_dims):
            return f"halo_sizes has {len(self.halo_sizes)} entries, expected {2 * len(split_dims)}"
        if self.sharded_dims_offsets and mesh.is_static:
            expected = sum(mesh.group_size(g) + 1 for g in split_dims)
            if len(self.sharded_dims_offsets) != expected:
                return f"sharded_dims_offsets has {len(self.sharded_dims_offsets)} entries, expected {expected}"
        return None

    # ------------------------------------------------------------ shard shapes

    def shard_shape(self, shape: Sequence[int | None], mesh: Mesh, device: Sequence[int] | None = None) -> tuple:
        """The local shape on ``device`` (a multi-index) of a tensor of global ``shape``.

        Without a device, the shape every device shares if the split is even,
        with ``None`` where shards differ (or a size is dynamic).
        """
        return tuple(
            self.dim_slice(shape, mesh, dim, device)[2] if device is not None else self._uniform_size(shape, mesh, dim)
            for dim in range(len(shape))
        )

    def dim_slice(
        self, shape: Sequence[int | None], mesh: Mesh, dim: int, device: Sequence[int]
    ) -> tuple[int, int, int]:
        """(start, stop, local size) of dimension ``dim`` on ``device``.

        ``start``/``stop`` bound the part of the global tensor the device
        owns; the local size adds the halos, which extend beyond it.
        """
        axes = self.axes_of(dim)
        size = shape[dim]
        if not axes:
            return 0, size, size
        index = mesh.in_group_index(device, axes)
        count = mesh.group_size(axes)
        split_index = sum(1 for g in self.split_axes[:dim] if g)
        if self.sharded_dims_offsets:
            base = sum(mesh.group_size(g) + 1 for g in self.split_axes[:dim] if g)
            start = self.sharded_dims_offsets[base + index]
            stop = self.sharded_dims_offsets[base + index + 1]
            return start, stop, stop - start
        chunk = ceildiv(size, count)
        start = min(index * chunk, size)
        stop = min(start + chunk, size)
        local = stop - start
        if self.halo_sizes:
            lo, hi = self.halo_sizes[2 * split_index : 2 * split_index + 2]
            local += lo + hi
        return start, stop, local

    def _uniform_size(self, shape, mesh: Mesh, dim: int) -> int | None:
        axes = self.axes_of(dim)
        size = shape[dim]
        if not axes:
            return size
        count = mesh.group_size(axes)
        if size is None or count is None or self.sharded_dims_offsets:
            if self.sharded_dims_offsets and mesh.is_static:
                sizes = {self.dim_slice(shape, mesh, dim, d)[2] for d in mesh.devices()}
                return sizes.pop() if len(sizes) == 1 else None
            return None
        if size % count:
            return None
        local = size // count
        if self.halo_sizes:
            i = sum(1 for g in self.split_axes[:dim] if g)
            lo, hi = self.halo_sizes[2 * i : 2 * i + 2]
            local = None if lo is None or hi is None else local + lo + hi
        return local

    # ------------------------------------------------------------ spelling

    def _split_with_open(self) -> tuple[tuple[int, ...], ...]:
        rank = max([len(self.split_axes)] + [d + 1 for d in self.open_dims])
        split = self.padded_split(rank)
        return tuple(g + (OPEN_AXIS,) if d in self.open_dims else g for d, g in enumerate(split)) or ((),)

    def spec(self) -> ShardingSpec:
        return ShardingSpec(
            self.mesh,
            self._split_with_open(),
            self.partial_axes,
            self.partial_type,
            self.halo_sizes,
            self.sharded_dims_offsets,
        )

    def __str__(self) -> str:
        from .dialect.sharding_attr import format_custom

        return format_custom(self.spec())

    # ------------------------------------------------------------ IR conversions

    @classmethod
    def from_spec(cls, spec: ShardingSpec) -> "Sharding":
        return cls(
            spec.mesh, spec.split_axes, spec.partial_axes, spec.partial_type, spec.halo_sizes, spec.sharded_dims_offsets
        )

    @classmethod
    def from_op(cls, op) -> "Sharding":
        """The sharding a ``mesh.sharding`` op defines.

        Dynamic halo sizes or offsets (SSA operands) are ``None``.
        """
        op = op.operation if hasattr(op, "operation") else op
        if op.name != "mesh.sharding":
            raise ValueError(f"expected a mesh.sharding op, got {op.name}")
        return cls(
            attr_value(op, "mesh", "symbol"),
            attr_value(op, "split_axes", "axis_array"),
            attr_value(op, "partial_axes", "axes"),
            attr_value(op, "partial_type", "partial_kind"),
            attr_value(op, "static_halo_sizes", "i64_array"),
            attr_value(op, "static_sharded_dims_offsets", "i64_array"),
        )

    @classmethod
    def of_value(cls, value: ir.Value) -> "Sharding | None":
        """The sharding an SSA value of type ``!mesh.sharding`` is defined with, if known."""
        owner = value.owner
        if isinstance(owner, ir.OpView) and owner.operation.name == "mesh.sharding":
            return cls.from_op(owner)
        return None

    def build(self, loc=None, ip=None) -> ir.Value:
        """Creates the ``mesh.sharding`` op of this sharding and returns its value."""
        from .dialect.ops import ShardingOp

        kwargs = {}
        if self.partial_axes:
            kwargs.update(partial_axes=self.partial_axes, partial_type=self.partial_type)
        if self.halo_sizes:
            kwargs["halo_sizes"] = list(self.halo_sizes)
        if self.sharded_dims_offsets:
            kwargs["sharded_dims_offsets"] = list(self.sharded_dims_offsets)
        op = ShardingOp(mesh=self.mesh, split_axes=self._split_with_open(), loc=loc, ip=ip, **kwargs)
        return op.result

    @classmethod
    def from_attr(cls, attr: ir.Attribute) -> "Sharding":
        """The sharding of a ``#mesh.sharding`` attribute."""
        from .dialect.sharding_attr import parse_generic

        text = str(attr)
        prefix = "#mesh.sharding_attr<"
        if not text.startswith(prefix):
            raise ValueError(f"expected a #mesh.sharding attribute, got {text}")
        return cls.from_spec(parse_generic(text[len(prefix) : -1]))

    def to_attr(self, context=None) -> ir.Attribute:
        """The ``#mesh.sharding`` attribute of this sharding."""
        from .dialect.sharding_attr import format_generic

        spec = self.spec()
        if any(v is None for v in spec.halo_sizes + spec.sharded_dims_offsets):
            raise ValueError("a #mesh.sharding attribute cannot hold dynamic halo sizes or offsets")
        return ir.Attribute.parse(format_generic(spec), context=context)


# -------------------------------------------------------------- function I/O


def argument_sharding(func, index: int) -> Sharding | None:
    """The input sharding of a function argument (``mesh.sharding`` arg attribute)."""
    return _io_sharding(func, "arg_attrs", index)


def result_sharding(func, index: int) -> Sharding | None:
    """The output sharding of a function result (``mesh.sharding`` result attribute)."""
    return _io_sharding(func, "res_attrs", index)


def _io_sharding(func, key: str, index: int) -> Sharding | None:
    attrs = func.operation.attributes
    if key not in attrs:
        return None
    entries = ir.ArrayAttr(attrs[key])
    if index >= len(entries):
        return None
    d = ir.DictAttr(entries[index])
    if SHARDING_ATTR_NAME not in d:
        return None
    return Sharding.from_attr(d[SHARDING_ATTR_NAME])


def _function_type(func) -> ir.FunctionType:
    return ir.FunctionType(ir.TypeAttr(func.operation.attributes["function_type"]).value)


def set_argument_sharding(func, index: int, sharding: Sharding | None) -> None:
    """Sets (or with None removes) the input sharding of a function argument."""
    _set_io_sharding(func, "arg_attrs", index, sharding, len(_function_type(func).inputs))


def set_result_sharding(func, index: int, sharding: Sharding | None) -> None:
    """Sets (or with None removes) the output sharding of a function result."""
    _set_io_sharding(func, "res_attrs", index, sharding, len(_function_type(func).results))


def _set_io_sharding(func, key: str, index: int, sharding: Sharding | None, count: int) -> None:
    attrs = func.operation.attributes
    entries = [dict((n.name, n.attr) for n in ir.DictAttr(e)) for e in ir.ArrayAttr(attrs[key])] if key in attrs else []
    entries += [{} for _ in range(count - len(entries))]
    if sharding is None:
        entries[index].pop(SHARDING_ATTR_NAME, None)
    else:
        entries[index][SHARDING_ATTR_NAME] = sharding.to_attr()
    attrs[key] = ir.ArrayAttr.get([ir.DictAttr.get(e) for e in entries])


def function_sharding_errors(module) -> list[tuple[ir.Location, str]]:
    """Checks every ``mesh.sharding`` attribute of the functions of a module.

    IRDL attributes cannot verify themselves, so this plays the part of a
    dialect attribute verifier: the value is a ``#mesh.sharding``, its mesh
    is a ``mesh.mesh`` of the module, and the rules of ``mesh.sharding`` hold.
    """
    module = module.operation if hasattr(module, "operation") else module
    ops = [op.operation for op in module.regions[0].blocks[0].operations]
    meshes = {m.name: m for m in (Mesh.from_op(op) for op in ops if op.name == "mesh.mesh")}
    errors = []
    for op in ops:
        if op.name != "func.func":
            continue
        for key, what in (("arg_attrs", "argument"), ("res_attrs", "result")):
            if key not in op.attributes:
                continue
            for i, entry in enumerate(ir.ArrayAttr(op.attributes[key])):
                d = ir.DictAttr(entry)
                if SHARDING_ATTR_NAME not in d:
                    continue
                try:
                    s = Sharding.from_attr(d[SHARDING_ATTR_NAME])
                except ValueError:
                    errors.append((op.location, f"'{SHARDING_ATTR_NAME}' of {what} #{i} must be a #mesh.sharding attribute"))
                    continue
                mesh = meshes.get(s.mesh)
                problem = f"refers to @{s.mesh}, which is not a mesh.mesh of this module" if mesh is None else s.check(mesh)
                if problem:
                    errors.append((op.location, f"invalid sharding of {what} #{i}: {problem}"))
    return errors
