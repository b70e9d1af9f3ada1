"""Sharding pictures: which device holds which block of a tensor.

:func:`draw_layout` draws the mesh as a grid of devices, like the pictures
of spec 004: mesh axis ``rank-1`` runs to the right, axis ``rank-2`` down,
and a mesh of rank 3 or more gets one grid per index of its leading axes.
Each cell shows what that device holds:

* ``values=True`` (small tensors): the elements themselves, labelled as in
  spec 004 (row ``i``, column ``j`` is ``10 i + j`` counting from 1, for a
  2-D tensor; a 1-D tensor's elements are ``1, 2, ...``);
* otherwise the global index ranges of the block, ``[0:4, 2:4]``.

A partial sharding adds ``partial <kind>`` to the cells of devices that
hold a partial value; halos show as ranges wider than the owned block.
:func:`layout_png` draws the same as an image: each device's cell is the
whole (2-D, or flattened to 2-D) tensor in grey with its block coloured.
"""

from __future__ import annotations

import math
import struct
import zlib
from typing import Sequence

import numpy as np

from ..sharding import Mesh, Sharding


def device_block(sharding: Sharding, shape: Sequence[int], mesh: Mesh, device) -> list[tuple[int, int]]:
    """The global (start, stop) per dimension of the block ``device`` holds, halos included."""
    block = []
    split_index = 0
    for d in range(len(shape)):
        start, stop, _ = sharding.dim_slice(shape, mesh, d, device)
        if sharding.axes_of(d):
            if sharding.halo_sizes:
                lo, hi = sharding.halo_sizes[2 * split_index : 2 * split_index + 2]
                start, stop = max(0, start - lo), min(shape[d], stop + hi)
            split_index += 1
        block.append((start, stop))
    return block


def _label(index: Sequence[int]) -> str:
    if len(index) == 1:
        return str(index[0] + 1)
    return "".join(str(i + 1) for i in index)


def _cell_lines(sharding: Sharding, shape, mesh: Mesh, device, values: bool) -> list[str]:
    block = device_block(sharding, shape, mesh, device)
    if values and len(shape) <= 2:
        rows = range(*block[0]) if len(shape) == 2 else [None]
        cols = range(*block[-1]) if shape else [None]
        lines = []
        for r in rows:
            labels = [_label((c,)) if r is None else _label((r, c)) for c in cols]
            lines.append(" ".join(labels))
        lines = lines or [""]
    else:
        lines = ["[" + ", ".join(f"{a}:{b}" for a, b in block) + "]"]
    if sharding.partial_axes:
        lines.append(f"partial {sharding.partial_type}")
    return lines


def draw_layout(shape: Sequence[int], sharding: Sharding, mesh: Mesh, values: bool | None = None) -> str:
    """A text picture of how a tensor of ``shape`` is laid out on ``mesh`` under ``sharding``.

    ``values`` defaults to True for tensors of rank 1 or 2 with at most 99
    elements (whose labels stay two digits per index).
    """
    if not mesh.is_static or any(s is None for s in shape):
        raise ValueError("a picture needs a static mesh and a static shape")
    problem = sharding.check(mesh)
    if problem:
        raise ValueError(f"invalid sharding {sharding}: {problem}")
    if values is None:
        values = len(shape) <= 2 and math.prod(shape) <= 99 and all(s <= 9 for s in shape)
    title = f"tensor<{'x'.join(map(str, shape))}> sharded {sharding} on @{mesh.name} ({'x'.join(map(str, mesh.shape))})"
    out = [title, ""]
    rank = mesh.rank
    lead = mesh.shape[: max(0, rank - 2)]
    for prefix in np.ndindex(*lead) if lead else [()]:
        if lead:
            out.append("devices (" + ", ".join(map(str, prefix)) + ", *, *):")
        out.extend(_grid(shape, sharding, mesh, tuple(prefix), values))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _grid(shape, sharding: Sharding, mesh: Mesh, prefix: tuple, values: bool) -> list[str]:
    rank = mesh.rank
    rows = mesh.shape[rank - 2] if rank >= 2 else 1
    cols = mesh.shape[rank - 1] if rank >= 1 else 1

    def device(i, j):
        if rank == 0:
            return ()
        if rank == 1:
            return (j,)
        return prefix + (i, j)

    cells = [[_cell_lines(sharding, shape, mesh, device(i, j), values) for j in range(cols)] for i in range(rows)]
    width = max(len(line) for row in cells for cell in row for line in cell)
    height = [max(len(cell) for cell in row) for row in cells]
    rule = "+" + "+".join("-" * (width + 2) for _ in range(cols)) + "+"
    across = f"mesh axis {rank - 1}" if rank else "one device"
    lines = [across, "-" * max(len(across), len(rule) - 1) + ">"]
    down = f" mesh axis {rank - 2} |" if rank >= 2 else ""
    lines.append(rule + down)
    for i, row in enumerate(cells):
        for k in range(height[i]):
            text = "|" + "|".join(" " + (cell[k] if k < len(cell) else "").ljust(width) + " " for cell in row) + "|"
            lines.append(text + (" |" if rank >= 2 else ""))
        last = i == rows - 1
        lines.append(rule + ((" ↓" if last else " |") if rank >= 2 else ""))
    return lines


# ------------------------------------------------------------------ PNG

_GREY = (220, 220, 220)
_OWNED = (52, 120, 200)
_PARTIAL = (230, 140, 40)
_BORDER = (40, 40, 40)
_WHITE = (255, 255, 255)


def layout_image(shape: Sequence[int], sharding: Sharding, mesh: Mesh, cell: int = 96) -> np.ndarray:
    """An RGB array: the mesh grid, each device showing its block of the tensor in colour."""
    if not mesh.is_static or any(s is None for s in shape):
        raise ValueError("a picture needs a static mesh and a static shape")
    rows2d = math.prod(shape[:-1]) if len(shape) > 1 else 1
    cols2d = shape[-1] if shape else 1
    rank = mesh.rank
    lead = int(math.prod(mesh.shape[: max(0, rank - 2)])) if rank > 2 else 1
    grid_rows = (mesh.shape[rank - 2] if rank >= 2 else 1) * lead
    grid_cols = mesh.shape[rank - 1] if rank >= 1 else 1
    pad = 6
    image = np.full((grid_rows * (cell + pad) + pad, grid_cols * (cell + pad) + pad, 3), _WHITE, dtype=np.uint8)
    colour = _PARTIAL if sharding.partial_axes else _OWNED
    for n, dev in enumerate(mesh.devices()):
        i, j = divmod(n, grid_cols)
        y0, x0 = pad + i * (cell + pad), pad + j * (cell + pad)
        image[y0 - 1 : y0 + cell + 1, x0 - 1 : x0 + cell + 1] = _BORDER
        image[y0 : y0 + cell, x0 : x0 + cell] = _GREY
        block = device_block(sharding, shape, mesh, dev)
        mask = np.zeros((rows2d, cols2d), dtype=bool)
        if shape:
            full = np.zeros(shape, dtype=bool)
            full[tuple(slice(a, b) for a, b in block)] = True
            mask = full.reshape(rows2d, cols2d)
        else:
            mask[:] = True
        ys = (np.arange(cell) * rows2d) // cell
        xs = (np.arange(cell) * cols2d) // cell
        owned = mask[np.ix_(ys, xs)]
        image[y0 : y0 + cell, x0 : x0 + cell][owned] = colour
    return image


def write_png(path: str, image: np.ndarray) -> None:
    """Writes an RGB uint8 array as a PNG (no imaging library needed)."""
    height, width, _ = image.shape
    raw = b"".join(b"\x00" + image[y].tobytes() for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def layout_png(path: str, shape: Sequence[int], sharding: Sharding, mesh: Mesh) -> None:
    """Writes :func:`layout_image` to ``path``."""
    write_png(path, layout_image(shape, sharding, mesh))


# ------------------------------------------------------------------ a module's tensors


def module_layouts(module, remap=None):
    """(label, shape, sharding, mesh) of every sharded tensor of ``module`` with a static shape.

    The tensors are the function arguments and results with a
    ``mesh.sharding`` attribute and the values of ``mesh.shard`` ops whose
    sharding is a ``mesh.sharding`` op; ``remap`` is as in ``comm_report``.
    """
    from .._mlir import ir
    from ..sharding import argument_sharding, result_sharding
    from .comm import location_text

    module = module.operation if hasattr(module, "operation") else module
    top = [op.operation for op in module.regions[0].blocks[0].operations]
    meshes = {m.name: m for m in (Mesh.from_op(op) for op in top if op.name == "mesh.mesh")}
    out = []

    def add(label, t, s):
        mesh = meshes.get(s.mesh) if s is not None else None
        if mesh is None or not mesh.is_static or not isinstance(t, ir.RankedTensorType):
            return
        if any(ir.ShapedType.is_dynamic_size(d) for d in t.shape):
            return
        out.append((label, tuple(t.shape), s.closed(), mesh))

    for func in top:
        if func.name != "func.func" or not len(func.regions[0].blocks):
            continue
        name = ir.StringAttr(func.attributes["sym_name"]).value
        ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
        for i, t in enumerate(ftype.inputs):
            add(f"@{name} argument #{i}", t, argument_sharding(func, i))
        for i, t in enumerate(ftype.results):
            add(f"@{name} result #{i}", t, result_sharding(func, i))
        for op in func.regions[0].blocks[0].operations:
            op = op.operation
            if op.name == "mesh.shard":
                kind = "mesh.shard annotate_for_users" if "annotate_for_users" in op.attributes else "mesh.shard"
                add(f"@{name} {kind} at {location_text(op, remap)}", op.results[0].type, Sharding.of_value(op.operands[1]))
    return out
