"""The Python API of the dialect: every op built with its builder, every accessor read back."""

import pytest

import mlir_mesh
from mlir_mesh import dialect as mesh
from mlir_mesh import ir
from mlir_mesh._mlir import func


def tensor(*shape, elem=None):
    return ir.RankedTensorType.get(list(shape), elem or ir.F32Type.get())


@pytest.fixture
def body(ctx):
    """A module with meshes and a function whose arguments the tests use."""
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        mesh.MeshOp(sym_name="mesh0", shape=(2, 4))
        mesh.MeshOp(sym_name="mesh3d", shape=(2, None, 4))
        f = func.FuncOp(
            "f",
            ir.FunctionType.get(
                [tensor(4, 8), tensor(2, 2, elem=ir.IntegerType.get_signless(8)), ir.IndexType.get(),
                 ir.IntegerType.get_signless(64), tensor(6, 4)],
                [],
            ),
        )
    block = f.add_entry_block()
    with ir.InsertionPoint(block):
        ret = func.ReturnOp([])
    return module, block, ret


def build(body, fn):
    module, block, ret = body
    with ir.InsertionPoint(ret):
        op = fn(*block.arguments)
    module.operation.verify()
    return op, module


def test_mesh(body):
    module, _, _ = body
    meshes = [op for op in module.body.operations if isinstance(op, mesh.MeshOp)]
    assert meshes[0].sym_name == "mesh0"
    assert meshes[0].shape == (2, 4)
    assert meshes[1].shape == (2, None, 4)
    assert "mesh.mesh @mesh3d(shape = 2x?x4)" in mlir_mesh.print_op(module)


def test_queries(body):
    op, _ = build(body, lambda *a: mesh.MeshShapeOp(mesh="mesh0", axes=(1,)))
    assert op.mesh == "mesh0" and op.axes == (1,) and len(op.result) == 1
    op, _ = build(body, lambda *a: mesh.MeshShapeOp(mesh="mesh0", result_types=[ir.IndexType.get()] * 2))
    assert op.axes == () and len(op.result) == 2
    op, _ = build(body, lambda *a: mesh.ProcessLinearIndexOp(mesh="mesh0"))
    assert op.mesh == "mesh0" and str(op.result.type) == "index"
    op, module = build(body, lambda *a: mesh.ProcessMultiIndexOp(mesh="mesh0", axes=(1, 0)))
    assert op.axes == (1, 0) and len(op.result) == 2
    assert "mesh.process_multi_index on @mesh0 axes = [1, 0] : index, index" in mlir_mesh.print_op(module)


def test_sharding_and_shard(body):
    def make(x, y, i, h, z):
        s = mesh.ShardingOp(mesh="mesh0", split_axes=((0,), ()), partial_axes=(1,), partial_type="max")
        halo = mesh.ShardingOp(mesh="mesh0", split_axes=((0,),), halo_sizes=(1, h))
        offs = mesh.ShardingOp(mesh="mesh0", split_axes=((), (1,)), sharded_dims_offsets=(0, 2, 4, 6, 8))
        shard = mesh.ShardOp(x, s.result, annotate_for_users=True)
        return s, halo, offs, shard

    (s, halo, offs, shard), module = build(body, make)
    assert s.mesh == "mesh0"
    assert s.split_axes == ((0,), ())
    assert s.partial_axes == (1,) and s.partial_type == "max"
    assert s.halo_sizes == () and s.sharded_dims_offsets == ()
    assert str(s.result.type) == str(mesh.ShardingType.get())
    assert halo.static_halo_sizes == (1, None)
    assert halo.halo_sizes[0] == 1 and isinstance(halo.halo_sizes[1], ir.Value)
    assert halo.dynamic_halo_sizes[0] == halo.halo_sizes[1]
    assert offs.sharded_dims_offsets == (0, 2, 4, 6, 8)
    assert shard.annotate_for_users is True
    assert shard.src.type == shard.result.type
    assert shard.sharding == s.result
    text = mlir_mesh.print_op(module)
    assert "split_axes = [[0], []] partial = max[1] : !mesh.sharding" in text
    assert "halo_sizes = [1, %arg3]" in text
    assert "annotate_for_users : tensor<4x8xf32>" in text


def test_sharding_group_and_open_dims(body):
    op, module = build(body, lambda t, *a: mesh.ShardingGroupOp(t, group_id=4))
    assert op.group_id == 4 and op.input.type == body[1].arguments[0].type
    assert "mesh.sharding_group %arg0 id = 4 : tensor<4x8xf32>" in mlir_mesh.print_op(module)
    op, module = build(body, lambda *a: mesh.ShardingOp(mesh="mesh0", split_axes=((0, -1), (-1,))))
    assert op.split_axes == ((0, -1), (-1,))
    assert "split_axes = [[0, ?], [?]]" in mlir_mesh.print_op(module)


def test_shard_shape(body):
    def make(x, y, i, h, z):
        s = mesh.ShardingOp(mesh="mesh0", split_axes=((0,),))
        return mesh.ShardShapeOp(sharding=s.result, device=i, shape=(8, 16))

    op, _ = build(body, make)
    assert op.shape == (8, 16) and len(op.result) == 2


def test_collectives(body):
    i8 = ir.IntegerType.get_signless(8)

    def make(x, y, i, h, z):
        return [
            mesh.AllGatherOp(y, mesh="mesh0", mesh_axes=(1,), gather_axis=1, result_type=tensor(2, 8, elem=i8)),
            mesh.AllReduceOp(x, mesh="mesh0", mesh_axes=(1, 0), reduction="max", result_type=tensor(4, 8)),
            mesh.AllSliceOp(x, mesh="mesh0", mesh_axes=(1,), slice_axis=1, result_type=tensor(4, 2)),
            mesh.AllToAllOp(x, mesh="mesh0", mesh_axes=(1,), split_axis=1, concat_axis=0, result_type=tensor(16, 2)),
            mesh.BroadcastOp(x, mesh="mesh0", mesh_axes=(0, 1), root=(i, 3), result_type=tensor(4, 8)),
            mesh.GatherOp(y, mesh="mesh0", mesh_axes=(0,), gather_axis=0, root=(1,), result_type=tensor(4, 2, elem=i8)),
            mesh.ReduceOp(x, mesh="mesh0", mesh_axes=(0,), reduction="min", root=(0,), result_type=tensor(4, 8)),
            mesh.ReduceScatterOp(x, mesh="mesh0", mesh_axes=(1,), scatter_axis=1, result_type=tensor(4, 2)),
            mesh.ScatterOp(x, mesh="mesh0", mesh_axes=(0,), scatter_axis=0, root=(1,), result_type=tensor(2, 8)),
            mesh.SendOp(x, mesh="mesh0", mesh_axes=(1,), destination=(2,), result_type=tensor(4, 8)),
            mesh.RecvOp(x, mesh="mesh0", mesh_axes=(1,), source=(i,), result_type=tensor(4, 8)),
            mesh.ShiftOp(x, mesh="mesh0", mesh_axes=(1,), shift_axis=1, offset=-1, rotate=True, result_type=tensor(4, 8)),
            mesh.UpdateHaloOp(z, z, mesh="mesh0", split_axes=((0,),), destination_halo_sizes=(1, h)),
        ]

    ops, module = build(body, make)
    ag, ar, sl, a2a, bc, ga, rd, rs, sc, se, rv, sh, uh = ops
    assert (ag.mesh, ag.mesh_axes, ag.gather_axis) == ("mesh0", (1,), 1)
    assert (ar.mesh_axes, ar.reduction) == ((1, 0), "max")
    assert sl.slice_axis == 1
    assert (a2a.split_axis, a2a.concat_axis) == (1, 0)
    assert bc.root[1] == 3 and isinstance(bc.root[0], ir.Value) and bc.root_dynamic == [bc.root[0]]
    assert (ga.gather_axis, ga.root) == (0, (1,))
    assert (rd.reduction, rd.root) == ("min", (0,))
    assert (rs.scatter_axis, rs.reduction) == (1, "sum")  # the default kind
    assert (sc.scatter_axis, sc.root) == (0, (1,))
    assert se.destination == (2,)
    assert isinstance(rv.source[0], ir.Value)
    assert (sh.shift_axis, sh.offset, sh.rotate) == (1, -1, True)
    assert uh.split_axes == ((0,),) and uh.destination_halo_sizes[0] == 1
    assert uh.source_halo_sizes == () and uh.result.type == uh.destination.type
    for op in ops:
        assert op.input if hasattr(op, "input") else op.source
    text = mlir_mesh.print_op(module)
    assert "mesh.all_to_all %arg0 on @mesh0 mesh_axes = [1] split_axis = 1 concat_axis = 0" in text
    assert "mesh.broadcast %arg0 on @mesh0 mesh_axes = [0, 1] root = [%arg2, 3] : (tensor<4x8xf32>, index)" in text
    assert "mesh.shift %arg0 on @mesh0 mesh_axes = [1] shift_axis = 1 offset = -1 rotate" in text
    assert "mesh.reduce_scatter %arg0 on @mesh0 mesh_axes = [1] scatter_axis = 1" in text


def test_pure_trait_only_on_collectives(ctx):
    module = mlir_mesh.parse(
        """
        mesh.mesh @m(shape = 4)
        func.func @f(%x: tensor<4xf32>) {
          %0 = mesh.all_reduce %x on @m mesh_axes = [0] : tensor<4xf32> -> tensor<4xf32>
          %1 = mesh.send %x on @m mesh_axes = [0] destination = [1] : (tensor<4xf32>) -> tensor<4xf32>
          %2 = mesh.recv %x on @m mesh_axes = [0] source = [1] : (tensor<4xf32>) -> tensor<4xf32>
          return
        }"""
    )
    from mlir_mesh._mlir import passmanager

    passmanager.PassManager.parse("builtin.module(canonicalize)").run(module)
    text = mlir_mesh.print_op(module)
    assert "mesh.all_reduce" not in text
    assert "mesh.send" in text and "mesh.recv" in text


def test_builder_errors(body):
    module, block, ret = body
    with ir.InsertionPoint(ret):
        with pytest.raises(TypeError, match="missing attribute 'gather_axis'"):
            mesh.AllGatherOp(block.arguments[0], mesh="mesh0", result_type=tensor(4, 8))
        with pytest.raises(TypeError, match="pass result_type"):
            mesh.AllGatherOp(block.arguments[0], mesh="mesh0", gather_axis=0)
        with pytest.raises(TypeError, match="unexpected arguments"):
            mesh.ProcessLinearIndexOp(mesh="mesh0", colour="red")


def test_verifier_error_through_api(body):
    module, block, ret = body
    with ir.InsertionPoint(ret):
        mesh.AllGatherOp(block.arguments[0], mesh="mesh0", mesh_axes=(1,), gather_axis=0, result_type=tensor(4, 8))
    with pytest.raises(ir.MLIRError) as info:
        module.operation.verify()
    messages = [d.message for d in info.value.error_diagnostics]
    assert any("result dimension 0 has size 4, expected 16 (4 x group size 4)" in m for m in messages)


def test_load_is_idempotent_and_keeps_upstream_dialects():
    ctx = mlir_mesh.Context()
    assert mlir_mesh.load(ctx) is ctx
    with ctx:
        m = mlir_mesh.parse("shard.grid @g(shape = 2)\nmesh.mesh @m(shape = 2)")
        assert "shard.grid @g(shape = 2)" in mlir_mesh.print_op(m)


def test_every_op_has_a_class():
    names = set(mesh.mesh_defs().ops)
    assert names == {
        "mesh", "mesh_shape", "process_linear_index", "process_multi_index", "sharding", "shard",
        "shard_shape", "all_gather", "all_reduce", "all_slice", "all_to_all", "broadcast", "gather",
        "reduce", "reduce_scatter", "scatter", "send", "recv", "shift", "update_halo", "sharding_group",
    }
    assert set(mesh.OP_CLASSES) == names
