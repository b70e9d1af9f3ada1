"""Communication report: the bytes each device sends and receives per collective.

The cost model is the ring model of the resharding planner
(:mod:`mlir_mesh.reshard`), per device, for a group of ``n`` devices and a
local operand of ``S`` bytes (the op's input on one device):

==================  ======================  ======================
op                  sent                    received
==================  ======================  ======================
all_gather          (n-1) S                 (n-1) S
all_reduce          2 (n-1)/n S             2 (n-1)/n S
reduce_scatter      (n-1)/n S               (n-1)/n S
all_to_all          (n-1)/n S               (n-1)/n S
broadcast           S                       S          (a pipeline along the ring)
gather              S                       (n-1) S    (the root receives every block)
scatter             (n-1)/n S               (n-1)/n S  (the root sends every other block)
reduce              S                       2 (n-1)/n S (reduce-scatter, then gather at the root)
shift, send         S                       0 / S
recv                0                       S
update_halo         the halo slabs          the halo slabs
all_slice, index    0                       0
==================  ======================  ======================

Where devices differ (roots), the figure is the busiest device's, so the
totals bound what any one device moves.  A group of one device moves
nothing.  A collective on a dynamic shape or mesh axis has unknown cost
(``None``), and the totals then count only the known ones.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field

from .._mlir import ir
from ..dialect.kinds import attr_value
from ..irutil import walk
from ..sharding import Mesh

# mesh ops that are not communication: not in the report
_QUERIES = {
    "mesh.mesh", "mesh.sharding", "mesh.shard", "mesh.sharding_group", "mesh.process_multi_index",
    "mesh.process_linear_index", "mesh.mesh_shape", "mesh.shard_shape", "mesh.neighbors_linear_indices",
}


@dataclass
class CommRow:
    """One collective: where it is and what one device sends and receives (bytes)."""

    function: str
    location: str
    op: str
    mesh: str
    mesh_axes: tuple[int, ...]
    group_size: int | None
    sent: float | None
    received: float | None


@dataclass
class CommReport:
    """Every collective of a module, and the per-device totals."""

    rows: list[CommRow] = field(default_factory=list)

    @property
    def total_sent(self) -> float:
        return sum(r.sent for r in self.rows if r.sent is not None)

    @property
    def total_received(self) -> float:
        return sum(r.received for r in self.rows if r.received is not None)

    def to_dict(self) -> dict:
        return {
            "collectives": [asdict(r) for r in self.rows],
            "total": {"sent": self.total_sent, "received": self.total_received, "count": len(self.rows)},
            "model": "ring; bytes per device (see mlir_mesh.analysis.comm)",
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_table(self) -> str:
        header = ("function", "location", "op", "mesh", "axes", "group", "sent B", "received B")
        lines = [header]
        for r in self.rows:
            lines.append((
                "@" + r.function, r.location, r.op, "@" + r.mesh, "[" + ", ".join(map(str, r.mesh_axes)) + "]",
                _num(r.group_size), _num(r.sent), _num(r.received),
            ))
        lines.append(("total", "", f"{len(self.rows)} ops", "", "", "", _num(self.total_sent), _num(self.total_received)))
        widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
        numeric = {5, 6, 7}
        out = []
        for k, row in enumerate(lines):
            cells = [c.rjust(w) if i in numeric else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
            out.append("  ".join(cells).rstrip())
            if k == 0 or k == len(lines) - 2:
                out.append("  ".join("-" * w for w in widths))
        return "\n".join(out) + "\n"


def _num(x) -> str:
    if x is None:
        return "?"
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


def element_bytes(t) -> int:
    """Bytes of one element of the shaped type ``t`` (i1 counts as a byte)."""
    et = ir.ShapedType(t).element_type
    if isinstance(et, ir.IndexType):
        return 8
    if isinstance(et, ir.ComplexType):
        return 2 * element_bytes(ir.RankedTensorType.get([], et.element_type))
    width = getattr(et, "width", None)
    if width is None:
        raise ValueError(f"no byte size for element type {et}")
    return max(1, (width + 7) // 8)


def tensor_bytes(t) -> int | None:
    """Bytes of a static ranked tensor type, None if a size is dynamic."""
    shape = ir.RankedTensorType(t).shape
    if any(ir.ShapedType.is_dynamic_size(d) for d in shape):
        return None
    return math.prod(shape) * element_bytes(t)


def collective_bytes(op, mesh: Mesh) -> tuple[float | None, float | None, int | None]:
    """(sent, received, group size) of one mesh op on one device, by the ring model above."""
    op = op.operation if hasattr(op, "operation") else op
    name = op.name
    if name in _QUERIES:
        return 0.0, 0.0, None
    axes = attr_value(op, "mesh_axes", "axes")
    n = mesh.group_size(axes)
    if name == "mesh.update_halo":
        return (*_halo_bytes(op), n)
    size = tensor_bytes(op.operands[0].type)
    if n is None or size is None:
        return None, None, n
    if n == 1 or name == "mesh.all_slice":  # each device keeps a block of what it has
        return 0.0, 0.0, n
    part = (n - 1) / n * size
    costs = {
        "mesh.all_gather": ((n - 1) * size, (n - 1) * size),
        "mesh.all_reduce": (2 * part, 2 * part),
        "mesh.reduce_scatter": (part, part),
        "mesh.all_to_all": (part, part),
        "mesh.broadcast": (size, size),
        "mesh.gather": (size, (n - 1) * size),
        "mesh.scatter": (part, part),
        "mesh.reduce": (size, 2 * part),
        "mesh.shift": (size, size),
        "mesh.send": (size, 0.0),
        "mesh.recv": (0.0, size),
    }
    if name not in costs:
        return None, None, n
    sent, received = costs[name]
    return float(sent), float(received), n


def _halo_bytes(op) -> tuple[float | None, float | None]:
    """The halo slabs one device receives (and sends) in an update_halo."""
    t = op.results[0].type
    shape = ir.RankedTensorType(t).shape
    halos = attr_value(op, "static_destination_halo_sizes", "i64_array")
    split = attr_value(op, "split_axes", "axis_array")
    if any(h is None for h in halos) or any(ir.ShapedType.is_dynamic_size(d) for d in shape):
        return None, None
    total = 0
    pairs = iter(halos)
    for dim, axes in enumerate(split):
        if not axes:
            continue
        lo, hi = next(pairs, 0), next(pairs, 0)
        others = math.prod(s for d, s in enumerate(shape) if d != dim)
        total += (lo + hi) * others
    total *= element_bytes(t)
    return float(total), float(total)


def comm_report(module, remap=None) -> CommReport:
    """The communication of every mesh op in every function of ``module``.

    ``remap(file, line, col) -> (line, col)`` may move locations back to a
    source the module was translated from (mesh-opt passes its parser's).
    """
    module = module.operation if hasattr(module, "operation") else module
    top = [op.operation for op in module.regions[0].blocks[0].operations]
    meshes = {m.name: m for m in (Mesh.from_op(op) for op in top if op.name == "mesh.mesh")}
    report = CommReport()
    for func in top:
        if func.name != "func.func":
            continue
        fname = ir.StringAttr(func.attributes["sym_name"]).value
        for op in walk(func):
            if not op.name.startswith("mesh.") or op.name in _QUERIES or "mesh" not in op.attributes:
                continue
            mesh_name = attr_value(op, "mesh", "symbol")
            mesh = meshes.get(mesh_name)
            if mesh is None:
                continue
            sent, received, n = collective_bytes(op, mesh)
            axes = attr_value(op, "mesh_axes", "axes")
            report.rows.append(CommRow(fname, location_text(op, remap), op.name.split(".", 1)[1], mesh_name, tuple(axes), n,
                                       sent, received))
    return report



def location_text(op, remap) -> str:
    loc = op.location
    if not isinstance(loc, ir.FileLineColLoc):
        text = str(loc)  # fused, name or unknown locations
        return "?" if text == "loc(unknown)" else text[4:-1]
    line, col = loc.start_line, loc.start_col
    if remap is not None:
        line, col = remap(loc.filename, line, col)
    return f"{loc.filename}:{line}:{col}"
