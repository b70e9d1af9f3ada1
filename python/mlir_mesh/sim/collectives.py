"""The mesh collectives of spec 001 on numpy arrays, one array per device.

A *state* maps each device (its multi-index on a static mesh) to its local
array.  Every function takes a state and returns the new one.  Devices are
grouped as spec 001 says: devices with the same coordinates outside
``mesh_axes`` form a group, and inside a group they are ordered by their
coordinates along ``mesh_axes``, the first axis being the outermost.

A result spec 001 calls undefined (gather/reduce on non-root devices, a
shift without a source) is ``None``.
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence

import numpy as np

from ..sharding import Mesh

State = dict  # tuple[int, ...] -> np.ndarray | None


def _stacked(fn):
    return lambda arrays: fn(np.stack(arrays), axis=0)


_REDUCE: dict[str, Callable[[list[np.ndarray]], np.ndarray]] = {
    "sum": _stacked(np.sum),
    "max": _stacked(np.max),
    "min": _stacked(np.min),
    "product": _stacked(np.prod),
    "average": _stacked(np.mean),
    "bitwise_and": _stacked(np.bitwise_and.reduce),
    "bitwise_or": _stacked(np.bitwise_or.reduce),
    "bitwise_xor": _stacked(np.bitwise_xor.reduce),
}


def reduce_arrays(arrays: Sequence[np.ndarray], kind: str) -> np.ndarray:
    """Combines equal-shaped arrays with a reduction kind, keeping the dtype (average gives floats)."""
    if kind not in _REDUCE:
        raise ValueError(f"reduction kind '{kind}' cannot be simulated")
    out = _REDUCE[kind](list(arrays))
    return out.astype(arrays[0].dtype) if kind != "average" else out


def groups(mesh: Mesh, axes: Sequence[int]) -> Iterator[list[tuple[int, ...]]]:
    """The device groups along ``axes``, each in in-group order."""
    axes = list(axes)  # no axes: every device is a group of its own (spec 001's device groups)
    seen: dict[tuple, list] = {}
    for device in mesh.devices():
        key = tuple(c for a, c in enumerate(device) if a not in axes)
        seen.setdefault(key, []).append(device)
    for members in seen.values():
        members.sort(key=lambda d: mesh.in_group_index(d, axes))
        yield members


def in_group_device(group: list[tuple[int, ...]], mesh: Mesh, axes: Sequence[int], coords: Sequence[int]):
    """The member of ``group`` whose coordinates along ``axes`` are ``coords``."""
    axes = list(axes)
    for d in group:
        if all(d[a] == c for a, c in zip(axes, coords)):
            return d
    raise ValueError(f"no device with coordinates {tuple(coords)} along axes {axes}")


def all_gather(state: State, mesh: Mesh, axes: Sequence[int], gather_axis: int) -> State:
    out = {}
    for group in groups(mesh, axes):
        whole = np.concatenate([state[d] for d in group], axis=gather_axis)
        out.update({d: whole for d in group})
    return out


def all_reduce(state: State, mesh: Mesh, axes: Sequence[int], kind: str = "sum") -> State:
    out = {}
    for group in groups(mesh, axes):
        total = reduce_arrays([state[d] for d in group], kind)
        out.update({d: total for d in group})
    return out


def all_slice(state: State, mesh: Mesh, axes: Sequence[int], slice_axis: int) -> State:
    out = {}
    for group in groups(mesh, axes):
        for i, d in enumerate(group):
            out[d] = _piece(state[d], len(group), i, slice_axis)
    return out


def _piece(array: np.ndarray, count: int, index: int, axis: int) -> np.ndarray:
    size = array.shape[axis]
    if size % count:
        raise ValueError(f"tensor axis {axis} of size {size} does not split evenly {count} ways")
    chunk = size // count
    return np.take(array, range(index * chunk, (index + 1) * chunk), axis=axis)


def all_to_all(state: State, mesh: Mesh, axes: Sequence[int], split_axis: int, concat_axis: int) -> State:
    out = {}
    for group in groups(mesh, axes):
        k = len(group)
        for j, d in enumerate(group):
            out[d] = np.concatenate([_piece(state[src], k, j, split_axis) for src in group], axis=concat_axis)
    return out


def broadcast(state: State, mesh: Mesh, axes: Sequence[int], root: Sequence[int]) -> State:
    out = {}
    for group in groups(mesh, axes):
        value = state[in_group_device(group, mesh, axes, root)]
        out.update({d: value for d in group})
    return out


def gather(state: State, mesh: Mesh, axes: Sequence[int], gather_axis: int, root: Sequence[int]) -> State:
    out = {}
    for group in groups(mesh, axes):
        root_device = in_group_device(group, mesh, axes, root)
        whole = np.concatenate([state[d] for d in group], axis=gather_axis)
        out.update({d: (whole if d == root_device else None) for d in group})
    return out


def reduce(state: State, mesh: Mesh, axes: Sequence[int], root: Sequence[int], kind: str = "sum") -> State:
    out = {}
    for group in groups(mesh, axes):
        root_device = in_group_device(group, mesh, axes, root)
        total = reduce_arrays([state[d] for d in group], kind)
        out.update({d: (total if d == root_device else None) for d in group})
    return out


def reduce_scatter(state: State, mesh: Mesh, axes: Sequence[int], scatter_axis: int, kind: str = "sum") -> State:
    out = {}
    for group in groups(mesh, axes):
        total = reduce_arrays([state[d] for d in group], kind)
        for i, d in enumerate(group):
            out[d] = _piece(total, len(group), i, scatter_axis)
    return out


def scatter(state: State, mesh: Mesh, axes: Sequence[int], scatter_axis: int, root: Sequence[int]) -> State:
    out = {}
    for group in groups(mesh, axes):
        source = state[in_group_device(group, mesh, axes, root)]
        for i, d in enumerate(group):
            out[d] = _piece(source, len(group), i, scatter_axis)
    return out


def shift(
    state: State, mesh: Mesh, axes: Sequence[int], shift_axis: int, offset: int, rotate: bool = False
) -> State:
    """Each device sends to the device ``offset`` further along ``shift_axis`` in its group."""
    out = {}
    size = mesh.shape[shift_axis]
    for device, value in state.items():
        target = device[shift_axis] + offset
        if rotate:
            target %= size
        if 0 <= target < size:
            out[device[:shift_axis] + (target,) + device[shift_axis + 1 :]] = value
    return {d: out.get(d) for d in state}


def send_recv(
    state: State, mesh: Mesh, axes: Sequence[int], destination: Sequence[int], source: Sequence[int]
) -> State:
    """A matched ``mesh.send`` (to ``destination``) and ``mesh.recv`` (from ``source``) in every group.

    The result is what each device receives: the source's tensor on the
    destination device, ``None`` elsewhere.
    """
    out = {}
    for group in groups(mesh, axes):
        src = in_group_device(group, mesh, axes, source)
        dst = in_group_device(group, mesh, axes, destination)
        out.update({d: (state[src] if d == dst else None) for d in group})
    return out


def _all_if_empty(mesh: Mesh, axes: Sequence[int]) -> list[int]:
    """The index ops' reading of ``axes``: none listed means all of them (spec 001)."""
    return list(axes) if axes else list(range(mesh.rank))


def process_multi_index(mesh: Mesh, axes: Sequence[int] = ()) -> State:
    axes = _all_if_empty(mesh, axes)
    return {d: tuple(d[a] for a in axes) for d in mesh.devices()}


def process_linear_index(mesh: Mesh) -> State:
    return {d: mesh.linear_index(d) for d in mesh.devices()}


def mesh_shape(mesh: Mesh, axes: Sequence[int] = ()) -> tuple[int, ...]:
    return tuple(mesh.shape[a] for a in _all_if_empty(mesh, axes))
