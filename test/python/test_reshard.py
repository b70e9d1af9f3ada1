"""Resharding, proven in the SPMD simulator: spec 004's examples and every pair of shardings."""

import itertools

import numpy as np
import pytest

import mlir_mesh
from mlir_mesh import ir
from mlir_mesh._mlir import func
from mlir_mesh.dialect import ops as m
from mlir_mesh.reshard import ReshardBuilder, local_type, plan
from mlir_mesh.sharding import Mesh, Sharding
from mlir_mesh.sim import distribute, simulate_devices


def reshard_module(mesh: Mesh, shape, src: Sharding, dsts: list[Sharding], dtype=None):
    """A module with @f(x local under src) -> (x resharded to each dst)."""
    module = ir.Module.create()
    gt = ir.RankedTensorType.get(list(shape), dtype or ir.F32Type.get())
    with ir.InsertionPoint(module.body):
        m.MeshOp(sym_name=mesh.name, shape=mesh.shape)
        f = func.FuncOp("f", ir.FunctionType.get([local_type(gt, src, mesh)], [local_type(gt, d, mesh) for d in dsts]))
    block = f.add_entry_block()
    with ir.InsertionPoint(block):
        outs = [ReshardBuilder(mesh).reshard(block.arguments[0], src, d, gt) for d in dsts]
        func.ReturnOp(outs)
    assert module.operation.verify()
    return module


def run_reshard(mesh, x, src, dsts, inputs=None):
    module = reshard_module(mesh, x.shape, src, dsts)
    return simulate_devices(module, "f", [inputs or distribute(x, src, mesh)], mesh), module


def S(split, **kw):
    return Sharding("grid", split, **kw)


def grid(*shape):
    return Mesh("grid", shape)


def spec_tensor(rows, cols):
    """Spec 004's tensors: element (i, j) is the number "i+1 j+1" (11, 12, ...)."""
    return np.array([[10 * (i + 1) + j + 1 for j in range(cols)] for i in range(rows)], dtype=np.float32)


# ---------------------------------------------------------------- spec 004, one test per example


def test_swap_axes_of_one_dim(ctx):
    # The picture holds the six values 11 12 13 21 22 23, one per device.
    x = np.array([11, 12, 13, 21, 22, 23], dtype=np.float32)
    (out,), _ = run_reshard(grid(2, 3), x, S([[0, 1]]), [S([[1, 0]])])
    expected = {(0, 0): 11, (0, 1): 13, (0, 2): 22, (1, 0): 12, (1, 1): 21, (1, 2): 23}
    assert {d: out[d].tolist() for d in out} == {d: [v] for d, v in expected.items()}


def test_all_gather_along_axis_0(ctx):
    # The picture's devices hold the tensor's columns after the gather (axis 1 keeps splitting dim 1).
    x = spec_tensor(2, 3)
    (out,), module = run_reshard(grid(2, 3), x, S([[0], [1]]), [S([[], [1]])])
    for (i, j), v in out.items():
        assert v.tolist() == [[x[0, j]], [x[1, j]]]
    assert "mesh.all_gather" in mlir_mesh.print_op(module)


def test_all_gather_along_axis_1(ctx):
    x = spec_tensor(2, 6)
    (out,), _ = run_reshard(grid(2, 3), x, S([[], [0, 1]]), [S([[], [0]])])
    for (i, j), v in out.items():
        assert v.tolist() == [[11 + 3 * i, 12 + 3 * i, 13 + 3 * i], [21 + 3 * i, 22 + 3 * i, 23 + 3 * i]]


def test_unsplit_the_major_axis(ctx):
    # [[0], [1, 2]] -> [[0], [2]]: not one all-gather; the planner reorders, then gathers.
    x = spec_tensor(4, 8)
    (out,), module = run_reshard(grid(2, 2, 2), x, S([[0], [1, 2]]), [S([[0], [2]])])
    for (i, j, k), v in out.items():
        rows = [10 * (2 * i + r + 1) for r in range(2)]
        assert v.tolist() == [[r + 4 * k + c + 1 for c in range(4)] for r in rows]
    kinds = [s.kind for s in plan(S([[0], [1, 2]]), S([[0], [2]]), (4, 8), grid(2, 2, 2))]
    assert kinds == ["permute", "all_gather"]


def _transposed_expectation(x, M, N):
    """Spec 004's inverse map for [[1], [0]]: d(m, n)[k, l] = t[n (K ceildiv N) + k, m (L ceildiv M) + l]."""
    K, L = x.shape
    rk, rl = -(-K // N), -(-L // M)
    return {(mm, nn): x[nn * rk : (nn + 1) * rk, mm * rl : (mm + 1) * rl] for mm in range(M) for nn in range(N)}


@pytest.mark.parametrize("mesh_shape", [(2, 3), (2, 6)])
def test_swap_dims_todo_examples(ctx, mesh_shape):
    # Spec 004 marks these TODO; both pictures are reproduced exactly.
    x = spec_tensor(6, 6)
    (out,), _ = run_reshard(grid(*mesh_shape), x, S([[0], [1]]), [S([[1], [0]])])
    expected = _transposed_expectation(x, *mesh_shape)
    for d, v in out.items():
        np.testing.assert_array_equal(v, expected[d])
    if mesh_shape == (2, 3):
        assert out[(0, 0)].tolist() == [[11, 12, 13], [21, 22, 23]]
        assert out[(0, 1)].tolist() == [[31, 32, 33], [41, 42, 43]]
        assert out[(1, 2)].tolist() == [[54, 55, 56], [64, 65, 66]]
    else:
        assert out[(1, 4)].tolist() == [[54, 55, 56]]


def test_all_to_all_moves_an_axis(ctx):
    x = spec_tensor(6, 6)
    (out,), module = run_reshard(grid(3), x, S([[0], []]), [S([[], [0]])])
    for (n,), v in out.items():
        np.testing.assert_array_equal(v, x[:, 2 * n : 2 * n + 2])
    text = mlir_mesh.print_op(module)
    assert "mesh.all_to_all %arg0 on @grid mesh_axes = [0] split_axis = 1 concat_axis = 0 : tensor<2x6xf32> -> tensor<6x2xf32>" in text


def test_todo_example_move_minor_axis(ctx):
    # [[0], [1, 2]] -> [[0, 1], [2]] (spec 004 TODO); the picture's "13 41" on device (0, 0, 1) is a typo for 13 14.
    x = spec_tensor(4, 4)
    (out,), _ = run_reshard(grid(2, 2, 2), x, S([[0], [1, 2]]), [S([[0, 1], [2]])])
    assert out[(0, 0, 0)].tolist() == [[11, 12]]
    assert out[(0, 0, 1)].tolist() == [[13, 14]]
    assert out[(0, 1, 0)].tolist() == [[21, 22]]
    assert out[(1, 1, 1)].tolist() == [[43, 44]]


def test_spec_basis_decomposition(ctx):
    # The last example of spec 004: the planner finds its four steps.
    steps = plan(S([[3, 2], [], [0, 1]]), S([[0], [1, 2], []]), (4, 4, 4), grid(2, 2, 2, 2))
    assert [(s.kind, s.axes) for s in steps] == [
        ("all_to_all", (1,)), ("all_to_all", (2,)), ("all_gather", (3,)), ("all_to_all", (0,))
    ]
    x = np.arange(64, dtype=np.float32).reshape(4, 4, 4)
    (out,), _ = run_reshard(grid(2, 2, 2, 2), x, S([[3, 2], [], [0, 1]]), [S([[0], [1, 2], []])])
    expected = distribute(x, S([[0], [1, 2], []]), grid(2, 2, 2, 2))
    for d in out:
        np.testing.assert_array_equal(out[d], expected[d])


# ---------------------------------------------------------------- partial, halos, uneven


def partial_inputs(x, src: Sharding, mesh: Mesh, seed=0):
    """Per-device partial values whose reduction over src's partial axes is x's shard."""
    rng = np.random.default_rng(seed)
    shards = distribute(x, src.replace(partial_axes=()), mesh)
    from mlir_mesh.sim.collectives import groups

    out = {}
    for group in groups(mesh, src.partial_axes):
        parts = [rng.integers(-5, 5, size=shards[group[0]].shape).astype(x.dtype) for _ in group]
        for d, p in zip(group, parts):
            out[d] = p
        out[group[0]] = shards[group[0]] - sum(parts[1:])
    return out


@pytest.mark.parametrize(
    "dst,collective",
    [(S([[], []]), "mesh.all_reduce"), (S([[0], []]), "mesh.reduce_scatter"), (S([[1], [0]]), "mesh.reduce_scatter")],
)
def test_partial_to_replicated_or_split(ctx, dst, collective):
    mesh = grid(2, 2)
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    src = S([[]], partial_axes=[0])
    (out,), module = run_reshard(mesh, x, src, [dst], partial_inputs(x, src, mesh))
    expected = distribute(x, dst, mesh)
    for d in out:
        np.testing.assert_array_equal(out[d], expected[d])
    assert collective in mlir_mesh.print_op(module)


def test_replicated_to_partial_sum(ctx):
    mesh = grid(4)
    x = np.arange(8, dtype=np.float32)
    (out,), _ = run_reshard(mesh, x, S([[]]), [S([[]], partial_axes=[0])])
    np.testing.assert_array_equal(sum(out.values()), x)


def test_halos_added_and_removed(ctx):
    mesh = grid(4)
    x = np.arange(1, 17, dtype=np.float32).reshape(8, 2)
    halo = S([[0]], halo_sizes=[1, 2])
    (out,), module = run_reshard(mesh, x, S([[0]]), [halo])
    expected = distribute(x, halo, mesh)
    for d in out:
        np.testing.assert_array_equal(out[d], expected[d])
    assert out[(1,)][:, 0].tolist() == [3, 5, 7, 9, 11]  # rows 1..5 of column 0: halo 1 below, 2 above
    assert "mesh.update_halo" in mlir_mesh.print_op(module)
    (back,), _ = run_reshard(mesh, x, halo, [S([[]])])
    for d in back:
        np.testing.assert_array_equal(back[d], x)


@pytest.mark.parametrize(
    "src,dst",
    [
        (S([[0]], sharded_dims_offsets=[0, 1, 4, 4, 8]), S([[]])),
        (S([[]]), S([[0]], sharded_dims_offsets=[0, 3, 3, 7, 8])),
        (S([[0]], sharded_dims_offsets=[0, 1, 4, 4, 8]), S([[0]], sharded_dims_offsets=[0, 2, 4, 6, 8])),
        (S([[0]]), S([[], [0]])),  # 7 rows over 4 devices: ceildiv shards 2, 2, 2, 1
    ],
)
def test_uneven_shards(ctx, src, dst):
    mesh = grid(4)
    x = np.arange(7 * 4 if not src.sharded_dims_offsets and not dst.sharded_dims_offsets else 8 * 4,
                  dtype=np.float32).reshape(-1, 4)
    (out,), _ = run_reshard(mesh, x, src, [dst])
    expected = distribute(x, dst, mesh)
    for d in out:
        np.testing.assert_array_equal(out[d], expected[d])


# ---------------------------------------------------------------- property: every pair


def all_shardings(mesh: Mesh, rank: int):
    """Every split of a rank-``rank`` tensor over the mesh's axes (each axis unused or in one dim, any order)."""
    out = []
    for assignment in itertools.product(range(rank + 1), repeat=mesh.rank):
        dims = [[a for a in range(mesh.rank) if assignment[a] == d] for d in range(rank)]
        for orders in itertools.product(*[list(itertools.permutations(g)) for g in dims]):
            out.append(S([list(o) for o in orders]))
    return out


MESHES = [(1,), (4,), (3, 2), (2, 1, 3), (2, 2, 2)]


@pytest.mark.parametrize("mesh_shape", MESHES, ids=lambda s: "x".join(map(str, s)))
def test_every_pair_of_shardings(ctx, mesh_shape):
    rng = np.random.default_rng(sum(mesh_shape))
    mesh = grid(*mesh_shape)
    shape = tuple(mesh.size * int(rng.integers(1, 3)) for _ in range(2))
    x = rng.integers(-100, 100, size=shape).astype(np.float32)
    shardings = all_shardings(mesh, 2)
    # sources also include partial values on the axes they leave free
    sources = list(shardings)
    for s in shardings[:: max(1, len(shardings) // 6)]:
        free = [a for a in range(mesh.rank) if a not in s.used_axes]
        if free:
            sources.append(s.replace(partial_axes=(free[0],)))
    for src in sources:
        inputs = partial_inputs(x, src, mesh) if src.partial_axes else None
        outs, _ = run_reshard(mesh, x, src, shardings, inputs)
        for dst, out in zip(shardings, outs):
            expected = distribute(x, dst, mesh)
            for d in mesh.devices():
                assert out[d].shape == expected[d].shape and np.array_equal(out[d], expected[d]), (src, dst, d)
