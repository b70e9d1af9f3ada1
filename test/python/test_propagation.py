"""The sharding value model, the rule registry and propagation from Python."""

import pytest

import mlir_mesh
from mlir_mesh import ir, passes
from mlir_mesh._mlir import passmanager
from mlir_mesh.passes.propagation import propagate, reshard_bytes
from mlir_mesh.rules import OpRule, get_rule, register_rule, unregister_rule
from mlir_mesh.sharding import Mesh, Sharding, argument_sharding, result_sharding, set_argument_sharding


# ------------------------------------------------------------------ value model


def test_normal_form_and_equality():
    assert Sharding("m", [[0], [], []]) == Sharding("m", [[0]])
    assert Sharding("m", [[0]], partial_type="max") == Sharding("m", [[0]])  # no partial axes: kind irrelevant
    assert Sharding("m", [[0]], (1,), "max") != Sharding("m", [[0]], (1,), "sum")
    assert Sharding("m", [[0, -1]]).open_dims == {0}
    assert Sharding("m", [[]]).is_replicated
    assert hash(Sharding("m", [[1], []])) == hash(Sharding("m", [[1]]))


def test_shard_shapes_follow_ceildiv():
    mesh = Mesh("m", (3,))
    s = Sharding("m", [[0]])
    # 16 split 3 ways: 6, 6, 4 (spec 004)
    assert [s.shard_shape((16, 5), mesh, (d,)) for d in range(3)] == [(6, 5), (6, 5), (4, 5)]
    assert s.shard_shape((16, 5), mesh) == (None, 5)  # uneven: no common shape
    assert s.shard_shape((15, 5), mesh) == (5, 5)


def test_shard_shapes_with_two_axes_offsets_and_halos():
    mesh = Mesh("m", (2, 2))
    # the first axis is the major one
    s = Sharding("m", [[1, 0]])
    assert [s.dim_slice((8,), mesh, 0, d)[:2] for d in mesh.devices()] == [(0, 2), (4, 6), (2, 4), (6, 8)]
    offsets = Sharding("m", [[], [0]], sharded_dims_offsets=(0, 3, 8))
    assert offsets.shard_shape((4, 8), mesh, (0, 0)) == (4, 3)
    assert offsets.shard_shape((4, 8), mesh, (1, 0)) == (4, 5)
    halo = Sharding("m", [[0]], halo_sizes=(1, 2))
    assert halo.shard_shape((8, 3), mesh, (1, 1)) == (7, 3)
    assert halo.shard_shape((8, 3), mesh) == (7, 3)


def test_op_and_attribute_round_trip(ctx):
    module = ir.Module.create()
    s = Sharding("m", [[0], [], [1, -1]], (2,), "max", halo_sizes=(1, 1, 0, 2))
    with ir.InsertionPoint(module.body):
        value = s.build()
    assert Sharding.of_value(value) == s
    assert "split_axes = [[0], [], [1, ?]] partial = max[2] halo_sizes = [1, 1, 0, 2]" in mlir_mesh.print_op(
        value.owner, assume_verified=True
    )
    attr = s.to_attr()
    assert Sharding.from_attr(attr) == s
    assert str(s) == "#mesh.sharding<@m, [[0], [], [1, ?]], partial = max[2], halo_sizes = [1, 1, 0, 2]>"


def test_function_io_shardings(ctx):
    module = mlir_mesh.parse(
        """
        mesh.mesh @m(shape = 4)
        func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32> {mesh.sharding = #mesh.sharding<@m, [[0]]>})
            -> (tensor<8xf32> {mesh.sharding = #mesh.sharding<@m, [[]], partial = sum[0]>}) {
          return %a : tensor<8xf32>
        }
        """,
        ctx,
    )
    f = list(module.regions[0].blocks[0].operations)[1]
    assert argument_sharding(f, 0) is None
    assert argument_sharding(f, 1) == Sharding("m", [[0]])
    assert result_sharding(f, 0) == Sharding("m", [], (0,), "sum")
    set_argument_sharding(f, 0, Sharding("m", [[0]]))
    assert argument_sharding(f, 0) == Sharding("m", [[0]])
    assert "%arg0: tensor<8xf32> {mesh.sharding = #mesh.sharding<@m, [[0]]>}" in mlir_mesh.print_op(module)


def test_reshard_cost_model():
    mesh = Mesh("m", (4,))
    split = Sharding("m", [[0]])
    full = Sharding("m")
    partial = Sharding("m", [], (0,), "sum")
    shape = (16, 8)  # 512 bytes in f32
    assert reshard_bytes(split, split, shape, 4, mesh) == 0
    assert reshard_bytes(full, split, shape, 4, mesh) == 0  # slicing is local
    assert reshard_bytes(split, full, shape, 4, mesh) == 512 - 128  # all-gather receives 3/4
    assert reshard_bytes(partial, full, shape, 4, mesh) == pytest.approx(2 * 3 / 4 * 512)  # ring all-reduce
    assert reshard_bytes(partial, split, shape, 4, mesh) == pytest.approx(3 / 4 * 512)  # reduce-scatter


# ------------------------------------------------------------------ rules


MODULE = """
mesh.mesh @m(shape = 4)
func.func @f(%a: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@m, [[0]]>}) -> tensor<8x16xf32> {
  %0 = "user.scale"(%a) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %1 = math.exp %0 : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}
"""


def _propagated(ctx, capsys=None):
    module = mlir_mesh.parse(MODULE, ctx)
    propagate(module)
    return module, mlir_mesh.print_op(module)


def test_user_rule_changes_propagation(ctx, capsys):
    ctx.allow_unregistered_dialects = True
    # Without a rule the op is replicated, with a warning at its location.
    _, text = _propagated(ctx)
    assert "no sharding rule for 'user.scale'" in capsys.readouterr().err
    assert "-> (tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@m, [[]]>})" in text

    @register_rule("user.scale")
    def scale(op):
        return OpRule.elementwise([(8, 16)], [(8, 16)])

    try:
        module, text = _propagated(ctx)
        assert capsys.readouterr().err == ""
        assert "-> (tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@m, [[0]]>})" in text
        op = list(list(module.regions[0].blocks[0].operations)[1].regions[0].blocks[0].operations)
        scale_op = next(o for o in op if o.operation.name == "user.scale")
        assert get_rule(scale_op).loops == ("parallel", "parallel")
    finally:
        unregister_rule("user.scale")


def test_dialect_wide_rule(ctx):
    ctx.allow_unregistered_dialects = True
    register_rule("user.*", lambda op: OpRule(("invalid", "parallel"), ((0, 1),), ((0, 1),)))
    try:
        _, text = _propagated(ctx)
        # dimension 0 may not be split by user ops: the input is gathered for it
        assert "mesh.shard %arg0 to %0 annotate_for_users" in text
        assert "mesh.sharding @m split_axes = [[]]" in text
    finally:
        unregister_rule("user.*")


def test_pass_manager_and_options(ctx):
    module = mlir_mesh.parse(
        """
        mesh.mesh @m(shape = 2x2)
        func.func @f(%a: tensor<8xf32> {mesh.sharding = #mesh.sharding<@m, [[0]]>})
            -> (tensor<8xf32> {mesh.sharding = #mesh.sharding<@m, [[1]]>}) {
          %0 = math.exp %a : tensor<8xf32>
          %1 = math.sin %0 : tensor<8xf32>
          return %1 : tensor<8xf32>
        }
        """,
        ctx,
    )
    pm = passmanager.PassManager.parse("builtin.module(canonicalize)")
    passes.add(pm, "mesh-sharding-propagation", traversal="forward", explain=True)
    pm.run(module)
    text = mlir_mesh.print_op(module)
    assert 'mesh.origin = "result of \'math.exp\'' in text
    assert "propagated from the input sharding of argument #0 of @f" in text


def test_conflict_raises_with_diagnostics(ctx):
    module = mlir_mesh.parse(
        """
        mesh.mesh @m(shape = 2x2)
        func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
          %s0 = mesh.sharding @m split_axes = [[0]] : !mesh.sharding
          %s1 = mesh.sharding @m split_axes = [[1]] : !mesh.sharding
          %0 = mesh.shard %a to %s0 : tensor<8xf32>
          %1 = mesh.shard %a to %s1 : tensor<8xf32>
          return %0 : tensor<8xf32>
        }
        """,
        ctx,
    )
    pm = passmanager.PassManager()
    passes.add(pm, "mesh-sharding-propagation")
    with pytest.raises(ir.MLIRError) as e:
        pm.run(module)
    messages = [d.message for d in e.value.error_diagnostics]
    assert len(messages) == 2
    assert all(m.startswith("conflicting sharding annotations") for m in messages)


def test_invalid_function_sharding_built_from_python(ctx):
    module = mlir_mesh.parse(
        """
        mesh.mesh @m(shape = 2)
        func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
          return %a : tensor<8xf32>
        }
        """,
        ctx,
    )
    f = list(module.regions[0].blocks[0].operations)[1]
    set_argument_sharding(f, 0, Sharding("m", [[3]]))  # the mesh has one axis
    pm = passmanager.PassManager()
    passes.add(pm, "mesh-sharding-propagation")
    with pytest.raises(ir.MLIRError) as e:
        pm.run(module)
    assert [d.message for d in e.value.error_diagnostics] == [
        "invalid sharding of argument #0: split axes of dimension 0 use mesh axis 3, out of range for mesh @m of rank 1"
    ]
