"""Running functions on numpy arrays: the global program and the SPMD program.

:func:`simulate` runs a function on full tensors, as the program means
before partitioning (``mesh.shard`` is the identity there).  The SPMD mode
runs a partitioned function on every device of a static mesh at once: each
value is a map from device to its local value, payload ops run device by
device, and mesh collectives run over the devices' values with the spec 001
semantics of :mod:`mlir_mesh.sim.collectives`.

* :func:`simulate_devices` takes and returns per-device values;
* :func:`simulate_spmd` takes global inputs, gives each device its shard
  (by the ``mesh.sharding`` of each argument of a function spmdized with
  local arguments, the full input otherwise) and assembles the results
  from the shards again, checking that replicas agree.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .._mlir import ir
from ..dialect.kinds import attr_value
from ..irutil import walk
from ..sharding import Mesh, Sharding, argument_sharding, result_sharding
from . import collectives as cc
from .payload import SimulationError, evaluator_for, linalg_evaluator, numpy_dtype

SPMDIZED_ATTR = "mesh.spmdized"

Device = tuple


def _func(module, name: str):
    module = module.operation if hasattr(module, "operation") else module
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.operation.attributes["sym_name"]).value == name:
            return op
    raise ValueError(f"no function @{name} in the module")


class Machine:
    """Runs functions of one module on a set of devices (one unnamed device for the global program)."""

    def __init__(self, module, mesh: Mesh | None = None):
        self.module = module.operation if hasattr(module, "operation") else module
        self.mesh = mesh
        self.devices: list[Device] = list(mesh.devices()) if mesh is not None else [()]
        self.mailbox: dict[tuple, list] = {}

    # ------------------------------------------------------------ functions

    def call(self, name: str, args: list[dict]) -> list[dict]:
        func = _func(self.module, name)
        block = func.regions[0].blocks[0]
        if len(args) != len(block.arguments):
            raise ValueError(f"@{name} takes {len(block.arguments)} arguments, got {len(args)}")
        env = {}
        for arg, value in zip(block.arguments, args):
            env[arg] = {d: self._coerce(value[d], arg.type) for d in self.devices}
        return self.run_block(block, env)

    @staticmethod
    def _coerce(value, t):
        if isinstance(t, ir.RankedTensorType):
            array = np.asarray(value, dtype=numpy_dtype(ir.RankedTensorType(t).element_type))
            expected = ir.RankedTensorType(t).shape
            if len(expected) != array.ndim or any(e >= 0 and e != s for e, s in zip(expected, array.shape)):
                raise ValueError(f"argument of shape {array.shape} does not fit {t}")
            return array
        return value

    def run_block(self, block: ir.Block, env: dict) -> list[dict]:
        for op in block.operations:
            op = op.operation
            if op.name == "func.return":
                return [env[v] for v in op.operands]
            results = self.step(op, env)
            env.update(zip(op.results, results))
        raise SimulationError(block.owner, "function without a return")

    # ------------------------------------------------------------ ops

    def step(self, op, env: dict) -> list[dict]:
        name = op.name
        args = [env[v] for v in op.operands]
        if name.startswith("mesh."):
            return self._mesh_op(op, args)
        if name == "func.call":
            callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
            return self.call(callee, args)
        fn = evaluator_for(name) or linalg_evaluator(name)
        if fn is None:
            raise SimulationError(op, f"the simulator has no semantics for '{name}'")
        per_device = {d: fn(op, [a[d] for a in args]) for d in self.devices}
        return [{d: per_device[d][i] for d in self.devices} for i in range(len(op.results))]

    def _need_mesh(self, op) -> Mesh:
        if self.mesh is None:
            raise SimulationError(op, f"'{op.name}' is a per-device op: run the partitioned program (simulate_spmd)")
        name = attr_value(op, "mesh", "symbol")
        if name != self.mesh.name:
            raise SimulationError(op, f"'{op.name}' is on @{name}, the simulation runs on @{self.mesh.name}")
        return self.mesh

    def _mesh_op(self, op, args: list[dict]) -> list[dict]:
        kind = op.name[len("mesh.") :]
        if kind == "sharding":
            return [{d: Sharding.from_op(op) for d in self.devices}]
        if kind in ("shard", "sharding_group"):
            return [args[0]] if op.results else []
        mesh = self._need_mesh(op)
        axes = attr_value(op, "axes" if kind in ("process_multi_index", "mesh_shape") else "mesh_axes", "axes")
        state = args[0] if args else None
        if kind == "all_gather":
            return [cc.all_gather(state, mesh, axes, attr_value(op, "gather_axis", "index"))]
        if kind == "all_reduce":
            return [_retype(cc.all_reduce(state, mesh, axes, attr_value(op, "reduction", "reduction")), op)]
        if kind == "all_slice":
            return [cc.all_slice(state, mesh, axes, attr_value(op, "slice_axis", "index"))]
        if kind == "all_to_all":
            return [cc.all_to_all(state, mesh, axes, attr_value(op, "split_axis", "index"), attr_value(op, "concat_axis", "index"))]
        if kind == "reduce_scatter":
            return [_retype(cc.reduce_scatter(state, mesh, axes, attr_value(op, "scatter_axis", "index"),
                                              attr_value(op, "reduction", "reduction")), op)]
        if kind == "shift":
            return [cc.shift(state, mesh, axes, attr_value(op, "shift_axis", "index"), attr_value(op, "offset", "i64"),
                             attr_value(op, "rotate", "unit"))]
        if kind in ("broadcast", "gather", "reduce", "scatter"):
            root = self._uniform_index(op, "root", args[1:])
            if kind == "broadcast":
                return [cc.broadcast(state, mesh, axes, root)]
            if kind == "gather":
                return [cc.gather(state, mesh, axes, attr_value(op, "gather_axis", "index"), root)]
            if kind == "reduce":
                return [_retype(cc.reduce(state, mesh, axes, root, attr_value(op, "reduction", "reduction")), op)]
            return [cc.scatter(state, mesh, axes, attr_value(op, "scatter_axis", "index"), root)]
        if kind == "send":
            self._send(op, mesh, axes, state, args[1:])
            return [state]
        if kind == "recv":
            return [self._recv(op, mesh, axes, state, args[1:])]
        if kind == "process_multi_index":
            index = cc.process_multi_index(mesh, axes)
            return [{d: index[d][i] for d in self.devices} for i in range(len(op.results))]
        if kind == "process_linear_index":
            return [cc.process_linear_index(mesh)]
        if kind == "mesh_shape":
            shape = cc.mesh_shape(mesh, axes)
            return [{d: s for d in self.devices} for s in shape]
        if kind == "shard_shape":
            return self._shard_shape(op, mesh, args)
        if kind == "update_halo":
            return [self._update_halo(op, mesh, args)]
        raise SimulationError(op, f"the simulator has no semantics for '{op.name}'")

    # ------------------------------------------------------------ helpers

    def _per_device_index(self, op, attr: str, dynamic: list[dict], device) -> tuple[int, ...]:
        static = attr_value(op, attr, "i64_array")
        it = iter(dynamic)
        return tuple(int(next(it)[device]) if s is None else s for s in static)

    def _uniform_index(self, op, attr: str, dynamic: list[dict]) -> tuple[int, ...]:
        values = {self._per_device_index(op, attr, dynamic, d) for d in self.devices}
        if len(values) != 1:
            raise SimulationError(op, f"'{attr}' differs between devices")
        return values.pop()

    def _full_device(self, mesh: Mesh, axes, device, coords) -> Device:
        out = list(device)
        for a, c in zip(axes, coords):
            out[a] = c
        return tuple(out)

    def _send(self, op, mesh, axes, state, dynamic):
        for d in self.devices:
            dest = self._full_device(mesh, axes, d, self._per_device_index(op, "destination", dynamic, d))
            self.mailbox.setdefault((d, dest), []).append(state[d])

    def _recv(self, op, mesh, axes, state, dynamic):
        out = {}
        for d in self.devices:
            if "source" not in op.attributes:
                raise SimulationError(op, "the simulator needs the source of a mesh.recv")
            src = self._full_device(mesh, axes, d, self._per_device_index(op, "source", dynamic, d))
            queue = self.mailbox.get((src, d))
            out[d] = queue.pop(0) if queue else None
        return out

    def _shard_shape(self, op, mesh, args):
        shape = attr_value(op, "shape", "i64_array")
        out = []
        per_device = {}
        for d in self.devices:
            sharding = args[0][d]
            device = mesh.coords(int(args[1][d]))
            per_device[d] = sharding.shard_shape(shape, mesh, device)
        for i in range(len(op.results)):
            out.append({d: per_device[d][i] for d in self.devices})
        return out

    def _update_halo(self, op, mesh: Mesh, args):
        """Core from the source, halos from the neighbouring shards' cores along each split dimension."""
        split = attr_value(op, "split_axes", "axis_array")
        n_split = sum(1 for g in split if g)
        src_halos = self._halos(op, "source_halo_sizes", n_split)
        dst_halos = self._halos(op, "destination_halo_sizes", n_split)
        source, dest = args[0], args[1]
        out = {}
        for d in self.devices:
            buf = np.array(dest[d], copy=True)
            core = source[d]
            index_src, index_dst = [], []
            k = 0
            for dim in range(buf.ndim):
                groups = split[dim] if dim < len(split) else ()
                if groups:
                    s_lo, s_hi = src_halos[2 * k : 2 * k + 2]
                    d_lo, d_hi = dst_halos[2 * k : 2 * k + 2]
                    k += 1
                    n = core.shape[dim] - s_lo - s_hi
                    index_src.append(slice(s_lo, s_lo + n))
                    index_dst.append(slice(d_lo, d_lo + n))
                else:
                    index_src.append(slice(None))
                    index_dst.append(slice(None))
            buf[tuple(index_dst)] = core[tuple(index_src)]
            out[d] = buf
        k = 0
        for dim, groups in enumerate(split):
            if not groups:
                continue
            d_lo, d_hi = dst_halos[2 * k : 2 * k + 2]
            k += 1
            count = mesh.group_size(groups)
            current = {d: out[d] for d in self.devices}
            for d in self.devices:
                i = mesh.in_group_index(d, groups)
                buf = np.array(current[d], copy=True)
                n = buf.shape[dim] - d_lo - d_hi
                if d_lo and i > 0:
                    left = current[self._neighbour(mesh, groups, d, i - 1)]
                    left_n = left.shape[dim] - d_lo - d_hi
                    _put(buf, dim, 0, _take(left, dim, d_lo + left_n - d_lo, d_lo))
                if d_hi and i < count - 1:
                    right = current[self._neighbour(mesh, groups, d, i + 1)]
                    _put(buf, dim, d_lo + n, _take(right, dim, d_lo, d_hi))
                out[d] = buf
        return out

    def _halos(self, op, name, n_split):
        values = attr_value(op, f"static_{name}", "i64_array")
        if any(v is None for v in values):
            raise SimulationError(op, "the simulator needs static halo sizes")
        return tuple(values) or (0,) * (2 * n_split)

    def _neighbour(self, mesh: Mesh, axes, device, index: int) -> Device:
        coords = []
        for a in reversed(axes):
            coords.append(index % mesh.shape[a])
            index //= mesh.shape[a]
        return self._full_device(mesh, axes, device, list(reversed(coords)))


def _take(array, dim, start, length):
    index = [slice(None)] * array.ndim
    index[dim] = slice(start, start + length)
    return array[tuple(index)]


def _put(array, dim, start, block):
    index = [slice(None)] * array.ndim
    index[dim] = slice(start, start + block.shape[dim])
    array[tuple(index)] = block


def _retype(state: dict, op) -> dict:
    dtype = numpy_dtype(ir.RankedTensorType(op.results[0].type).element_type)
    return {d: (None if v is None else np.asarray(v).astype(dtype)) for d, v in state.items()}


# ------------------------------------------------------------------ the API


def simulate(module, func: str, inputs: Sequence) -> list[np.ndarray]:
    """Runs ``func`` on full tensors: the program before partitioning."""
    machine = Machine(module)
    results = machine.call(func, [{(): x} for x in inputs])
    return [r[()] for r in results]


def simulate_devices(module, func: str, inputs: Sequence[dict], mesh: Mesh | None = None) -> list[dict]:
    """Runs a partitioned ``func`` on every device; inputs and results map device -> local value."""
    mesh = mesh or function_mesh(module, func)
    return Machine(module, mesh).call(func, list(inputs))


def simulate_spmd(module, func: str, inputs: Sequence, mesh: Mesh | None = None) -> list[np.ndarray]:
    """Runs a partitioned ``func`` on global inputs and assembles the global results.

    Each device gets the shard its argument's ``mesh.sharding`` assigns it
    when the function takes local arguments (``mesh.spmdized = "local"``),
    the whole input otherwise.  Results are put together from the shards by
    each result's ``mesh.sharding`` (replicated when it has none), reducing
    partial values; replicas that disagree are an error.
    """
    f = _func(module, func)
    mesh = mesh or function_mesh(module, func)
    local = _boundary(f) == "local"
    per_device = []
    for i, x in enumerate(inputs):
        s = argument_sharding(f, i) if local else None
        per_device.append(distribute(np.asarray(x), s, mesh) if s is not None else {d: x for d in mesh.devices()})
    results = Machine(module, mesh).call(func, per_device)
    out = []
    for i, r in enumerate(results):
        s = result_sharding(f, i) if local else None
        out.append(assemble(r, s or Sharding(mesh.name), mesh))
    return out


def _boundary(f) -> str:
    attrs = f.operation.attributes
    return ir.StringAttr(attrs[SPMDIZED_ATTR]).value if SPMDIZED_ATTR in attrs else "global"


def function_mesh(module, func: str) -> Mesh:
    """The one mesh a function uses (in its argument/result shardings or its mesh ops)."""
    f = _func(module, func)
    names = set()
    for i in range(len(f.regions[0].blocks[0].arguments)):
        s = argument_sharding(f, i)
        if s is not None:
            names.add(s.mesh)
    for op in walk(f.operation):
        if op.name.startswith("mesh.") and "mesh" in op.attributes:
            names.add(attr_value(op, "mesh", "symbol"))
    if len(names) != 1:
        raise ValueError(f"@{func} uses {len(names)} meshes ({', '.join(sorted(names)) or 'none'}); pass mesh=")
    mesh = Mesh.lookup(module, names.pop())
    if mesh is None or not mesh.is_static:
        raise ValueError("the SPMD simulation needs a static mesh")
    return mesh



def distribute(x: np.ndarray, sharding: Sharding, mesh: Mesh) -> dict:
    """Each device's local shard of ``x`` (halo cells outside the tensor are zero)."""
    out = {}
    for d in mesh.devices():
        index, pads = [], []
        for dim in range(x.ndim):
            start, stop, local = sharding.dim_slice(x.shape, mesh, dim, d)
            lo = _halo(sharding, dim, 0)
            hi = local - (stop - start) - lo
            a, b = max(0, start - lo), min(x.shape[dim], stop + hi)
            index.append(slice(a, b))
            pads.append((a - (start - lo), (stop + hi) - b))
        out[d] = np.pad(x[tuple(index)], pads)
    return out


def _halo(sharding: Sharding, dim: int, side: int) -> int:
    if not sharding.halo_sizes or not sharding.axes_of(dim):
        return 0
    k = sum(1 for g in sharding.split_axes[:dim] if g)
    return sharding.halo_sizes[2 * k + side]


def assemble(state: dict, sharding: Sharding, mesh: Mesh, rtol: float = 1e-5) -> np.ndarray:
    """The global tensor held by ``state`` under ``sharding``: shards placed, partials reduced.

    Raises ValueError when replicas (devices holding the same block) disagree.
    """
    devices = list(mesh.devices())
    if any(state[d] is None for d in devices):
        raise ValueError("a device holds no value")
    rank = np.ndim(state[devices[0]])
    cores = {}
    for d in devices:
        index = []
        for dim in range(rank):
            lo, hi = _halo(sharding, dim, 0), _halo(sharding, dim, 1)
            index.append(slice(lo, np.shape(state[d])[dim] - hi))
        cores[d] = np.asarray(state[d])[tuple(index)]
    if sharding.partial_axes:
        reduced = {}
        for group in cc.groups(mesh, sharding.partial_axes):
            total = cc.reduce_arrays([cores[d] for d in group], sharding.partial_type)
            reduced.update({d: total for d in group})
        cores = reduced
    shape = []
    for dim in range(rank):
        axes = sharding.axes_of(dim)
        if not axes:
            shape.append(cores[devices[0]].shape[dim])
            continue
        first = [d for d in devices if all(d[a] == 0 for a in range(mesh.rank) if a not in axes)]
        shape.append(sum(cores[d].shape[dim] for d in first))
    out = np.zeros(shape, dtype=cores[devices[0]].dtype)
    seen = np.zeros(shape, dtype=bool)
    for d in devices:
        index = tuple(slice(*sharding.dim_slice(shape, mesh, dim, d)[:2]) for dim in range(rank))
        block = cores[d]
        if block.shape != out[index].shape:
            raise ValueError(f"device {d} holds a block of shape {block.shape}, its shard is {out[index].shape}")
        if np.any(seen[index]) and not np.allclose(out[index][seen[index]], block[seen[index]], rtol=rtol, atol=rtol):
            raise ValueError(f"replicas disagree on device {d}")
        out[index] = block
        seen[index] = True
    return out
