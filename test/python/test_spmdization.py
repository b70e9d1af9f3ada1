"""mesh-spmdization: the partitioned program computes what the global one does (SPMD simulator)."""

import numpy as np
import pytest

import mlir_mesh
from mlir_mesh._mlir import passmanager
from mlir_mesh.passes import PassFailure, add
from mlir_mesh.passes.propagation import propagate
from mlir_mesh.passes.spmdization import spmdize
from mlir_mesh.sim import simulate, simulate_spmd


def parse(text):
    return mlir_mesh.parse(text)


def check_equivalent(text, func, inputs, boundary="local", rtol=1e-4):
    module = parse(text)
    expected = simulate(module, func, inputs)
    propagate(module.operation)
    spmdize(module.operation, boundary)
    assert module.operation.verify()
    got = simulate_spmd(module, func, inputs)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol)
    return mlir_mesh.print_op(module)


MLP = open(__file__.rsplit("/test/", 1)[0] + "/examples/mlp_1d.mlir").read()


@pytest.mark.parametrize("boundary", ["local", "global"])
def test_mlp_1d_both_boundaries(ctx, boundary):
    rng = np.random.default_rng(1)
    inputs = [rng.standard_normal(s) for s in [(2, 4, 8), (8, 32), (32, 8)]]
    text = check_equivalent(MLP, "mlp", inputs, boundary)
    if boundary == "local":
        assert "func.func @mlp(%arg0: tensor<2x4x4xf32>" in text
    else:
        assert "mesh.process_multi_index on @mesh0" in text and "tensor.extract_slice %arg0" in text


def test_pass_manager_and_option(ctx):
    module = parse(MLP)
    pm = passmanager.PassManager.parse("builtin.module(canonicalize)")
    add(pm, "mesh-sharding-propagation")
    add(pm, "mesh-spmdization", boundary="global")
    pm.run(module.operation)
    assert 'mesh.spmdized = "global"' in mlir_mesh.print_op(module)


def test_hand_annotated_linalg(ctx):
    # No propagation: the annotations are written by hand, the reduction loop is split.
    text = """
    mesh.mesh @m(shape = 2x2)
    func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<4x6xf32> {
      %s = mesh.sharding @m split_axes = [[0], [1]] : !mesh.sharding
      %a1 = mesh.shard %a to %s annotate_for_users : tensor<4x8xf32>
      %sb = mesh.sharding @m split_axes = [[1]] : !mesh.sharding
      %b1 = mesh.shard %b to %sb annotate_for_users : tensor<8x6xf32>
      %z = arith.constant 1.0 : f32
      %e = tensor.empty() : tensor<4x6xf32>
      %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
      %sp = mesh.sharding @m split_axes = [[0]] partial = sum[1] : !mesh.sharding
      %f1 = mesh.shard %f to %sp annotate_for_users : tensor<4x6xf32>
      %mm = linalg.matmul ins(%a1, %b1 : tensor<4x8xf32>, tensor<8x6xf32>) outs(%f1 : tensor<4x6xf32>) -> tensor<4x6xf32>
      %p = mesh.shard %mm to %sp : tensor<4x6xf32>
      %r = mesh.sharding @m split_axes = [[]] : !mesh.sharding
      %out = mesh.shard %p to %r annotate_for_users : tensor<4x6xf32>
      return %out : tensor<4x6xf32>
    }"""
    module = parse(text)
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((4, 8)), rng.standard_normal((8, 6))
    spmdize(module.operation)
    printed = mlir_mesh.print_op(module)
    # the arguments are whole (no input sharding): each device slices its block, then the
    # matmul runs on 2x4 and 4x6 blocks and its init (ones) is kept by one device of each pair
    assert "tensor<2x4xf32>, tensor<4x6xf32>) outs(" in printed
    assert "mesh.reduce_scatter" in printed and "arith.select" in printed
    out, = simulate_spmd(module, "f", [a, b])
    np.testing.assert_allclose(out, a @ b + 1, rtol=1e-4, atol=1e-4)


def test_dynamic_split_dimension_is_an_error(ctx):
    text = """
    mesh.mesh @m(shape = 2)
    func.func @f(%a: tensor<?x8xf32> {mesh.sharding = #mesh.sharding<@m, [[0]]>}) -> tensor<?x8xf32> {
      return %a : tensor<?x8xf32>
    }"""
    module = parse(text)
    with pytest.raises(PassFailure):  # the located message is checked in test/Spmdization/invalid.mlir
        spmdize(module.operation)


# ---------------------------------------------------------------- property: random programs

ELEMENTWISE = ["add", "subtract", "multiply", "maximum", "minimum"]


def random_program(rng, mesh_shape):
    """A chain of stablehlo elementwise ops, matmuls and a final reduction, with random input shardings."""
    sizes = [2 * int(np.prod(mesh_shape)) * int(rng.integers(1, 3)) for _ in range(4)]
    rows, cols = sizes[0], sizes[1]
    args, arg_types, body = [], [], []
    mesh_rank = len(mesh_shape)

    def sharding(rank):
        axes = list(range(mesh_rank))
        rng.shuffle(axes)
        split = [[] for _ in range(rank)]
        for a in axes:
            slot = int(rng.integers(0, rank + 1))
            if slot < rank:
                split[slot].append(a)
        inner = ", ".join("[" + ", ".join(map(str, g)) + "]" for g in split)
        return f"#mesh.sharding<@m, [{inner}]>"

    def new_arg(shape):
        name = f"%a{len(args)}"
        t = f"tensor<{'x'.join(map(str, shape))}xf32>"
        attr = f" {{mesh.sharding = {sharding(len(shape))}}}" if rng.random() < 0.7 else ""
        args.append(f"{name}: {t}{attr}")
        arg_types.append(shape)
        return name

    cur, shape = new_arg((rows, cols)), (rows, cols)
    for i in range(int(rng.integers(2, 6))):
        t = lambda s: f"tensor<{'x'.join(map(str, s))}xf32>"
        choice = rng.random()
        if choice < 0.5:
            other = new_arg(shape)
            op = ELEMENTWISE[int(rng.integers(len(ELEMENTWISE)))]
            body.append(f"%v{i} = stablehlo.{op} {cur}, {other} : {t(shape)}")
            new_shape = shape
        else:
            k = sizes[int(rng.integers(2, 4))]
            w = new_arg((shape[1], k))
            new_shape = (shape[0], k)
            body.append(
                f"%v{i} = stablehlo.dot_general {cur}, {w}, contracting_dims = [1] x [0] : "
                f"({t(shape)}, {t((shape[1], k))}) -> {t(new_shape)}"
            )
        cur, shape = f"%v{i}", new_shape
    result_type = f"tensor<{shape[0]}xf32>"
    body.append("%zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>")
    body.append(
        f"%red = stablehlo.reduce({cur} init: %zero) applies stablehlo.add across dimensions = [1] : "
        f"(tensor<{shape[0]}x{shape[1]}xf32>, tensor<f32>) -> {result_type}"
    )
    res_attr = f" {{mesh.sharding = {sharding(1)}}}" if rng.random() < 0.5 else ""
    text = (
        f"mesh.mesh @m(shape = {'x'.join(map(str, mesh_shape))})\n"
        f"func.func @f({', '.join(args)}) -> ({result_type}{res_attr}) {{\n  "
        + "\n  ".join(body)
        + f"\n  return %red : {result_type}\n}}\n"
    )
    return text, arg_types


@pytest.mark.parametrize("seed", range(60))
def test_random_programs(ctx, seed):
    rng = np.random.default_rng(seed)
    mesh_shape = [(2,), (4,), (2, 2), (3, 2), (2, 1, 2), (2, 2, 2)][seed % 6]
    text, shapes = random_program(rng, mesh_shape)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    try:
        check_equivalent(text, "f", inputs, boundary=["local", "global"][seed % 2], rtol=1e-3)
    except AssertionError:
        print(text)
        raise


CALLS = """
mesh.mesh @mesh0(shape = 2)
func.func private @layer(%x: tensor<4x8xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[0]]>}, %w: tensor<8x8xf32>)
    -> (tensor<4x8xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[0]]>}) {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func @main(%x: tensor<4x8xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[], [0]]>}, %w: tensor<8x8xf32>)
    -> (tensor<4x8xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[0]]>}) {
  %a = func.call @layer(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %b = func.call @layer(%a, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}
"""


def test_calls_take_the_callee_shardings(ctx):
    """A call passes its operands resharded to the callee's argument shardings, and gets local results."""
    rng = np.random.default_rng(5)
    inputs = [rng.standard_normal((4, 8)), rng.standard_normal((8, 8))]
    text = check_equivalent(CALLS, "main", inputs)
    assert "mesh.all_to_all %arg0 on @mesh0 mesh_axes = [0] split_axis = 0 concat_axis = 1" in text
    assert text.count("call @layer(") == 2 and "-> tensor<2x8xf32>" in text


@pytest.mark.parametrize("kind,init", [("add", "1.5"), ("maximum", "0.25"), ("multiply", "2.0")])
def test_reduce_with_a_split_reduced_dimension_counts_its_init_once(ctx, kind, init):
    """Only one device keeps stablehlo.reduce's init; the others start from the neutral element."""
    text = f"""
    mesh.mesh @mesh0(shape = 2)
    func.func @f(%x: tensor<4x8xf32> {{mesh.sharding = #mesh.sharding<@mesh0, [[], [0]]>}})
        -> (tensor<4xf32> {{mesh.sharding = #mesh.sharding<@mesh0, [[]]>}}) {{
      %init = stablehlo.constant dense<{init}> : tensor<f32>
      %r = stablehlo.reduce(%x init: %init) applies stablehlo.{kind} across dimensions = [1]
          : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
      return %r : tensor<4xf32>
    }}
    """
    x = np.random.default_rng(2).uniform(0.5, 1.5, (4, 8))
    out = check_equivalent(text, "f", [x])
    assert "mesh.all_reduce" in out
    # max is idempotent: every device may keep the init; a sum or product must not count it twice
    assert ("arith.select" in out) == (kind != "maximum")
