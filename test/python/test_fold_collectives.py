"""mesh-fold-collectives keeps what every device computes (SPMD simulator).

Each function of test/FoldCollectives/patterns.mlir (the lit test of the
patterns' output) runs on every device with random inputs, before and after
the pass; every device's results must agree.  Arguments whose
``mesh.sharding`` uses no mesh axis get the same value on every device,
the others a different value per device.
"""

import os
import re

import numpy as np
import pytest

import mlir_mesh
from mlir_mesh import ir
from mlir_mesh.passes.fold_collectives import fold_collectives, replicated_over
from mlir_mesh.sharding import Mesh, argument_sharding
from mlir_mesh.sim import simulate_devices

PATTERNS = os.path.join(os.path.dirname(__file__), "..", "FoldCollectives", "patterns.mlir")


def chunks():
    text = open(PATTERNS).read()
    return [c for c in text.split("// -----") if "func.func" in c]


def functions(chunk):
    return re.findall(r"^func\.func @(\w+)", chunk, re.MULTILINE)


CASES = [(i, name) for i, chunk in enumerate(chunks()) for name in functions(chunk)]


def _func(module, name):
    return next(op for op in module.body.operations if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name)


def _mesh(module):
    return next(Mesh.from_op(op.operation) for op in module.body.operations if op.operation.name == "mesh.mesh")


def _inputs(module, name, rng):
    f = _func(module, name)
    mesh = _mesh(module)
    inputs = []
    for i, arg in enumerate(f.regions[0].blocks[0].arguments):
        shape = tuple(ir.RankedTensorType(arg.type).shape)
        s = argument_sharding(f.operation, i)
        if s is not None and not s.used_axes:
            x = rng.standard_normal(shape).astype(np.float32)
            inputs.append({d: x for d in mesh.devices()})
        else:
            inputs.append({d: rng.standard_normal(shape).astype(np.float32) for d in mesh.devices()})
    return inputs


@pytest.mark.parametrize("chunk,name", CASES, ids=[name for _, name in CASES])
def test_pattern_keeps_device_results(chunk, name):
    text = chunks()[chunk]
    with mlir_mesh.Context(), ir.Location.unknown():
        module = mlir_mesh.parse(text)
        mesh = _mesh(module)
        inputs = _inputs(module, name, np.random.default_rng(7))
        before = simulate_devices(module, name, inputs, mesh)
        printed = mlir_mesh.print_op(_func(module, name))
        fold_collectives(module)
        assert module.operation.verify()
        after = simulate_devices(module, name, inputs, mesh)
        changed = mlir_mesh.print_op(_func(module, name)) != printed
    # the cases named *_no are where a pattern must not apply
    assert changed == (not name.endswith("_no")), mlir_mesh.print_op(module)
    for b, a in zip(before, after):
        assert set(b) == set(a)
        for d in b:
            np.testing.assert_allclose(a[d], b[d], rtol=1e-5, atol=1e-5, err_msg=f"device {d}")


def test_replicated_over(ctx):
    module = mlir_mesh.parse(
        """
        mesh.mesh @m(shape = 2x2)
        func.func @f(%x: tensor<4xf32>, %w: tensor<4xf32> {mesh.sharding = #mesh.sharding<@m, [[1]]>}) -> tensor<4xf32> {
          %r = mesh.all_reduce %x on @m mesh_axes = [0] : tensor<4xf32> -> tensor<4xf32>
          %c = arith.constant dense<1.0> : tensor<4xf32>
          %a = arith.addf %r, %c : tensor<4xf32>
          %i = mesh.process_linear_index on @m : index
          return %a : tensor<4xf32>
        }
        """
    )
    f = _func(module, "f")
    x, w = f.regions[0].blocks[0].arguments
    r, c, a, i = [op.results[0] for op in list(f.regions[0].blocks[0].operations)[:4]]
    assert replicated_over(a, "m", [0]) and replicated_over(c, "m", [0, 1])
    assert not replicated_over(a, "m", [1]) and not replicated_over(x, "m", [0])
    assert replicated_over(w, "m", [0]) and not replicated_over(w, "m", [1])
    assert not replicated_over(i, "m", [0])
    assert replicated_over(r, "m", [])
