"""convert-mesh-to-shard / convert-shard-to-mesh: every lit test input goes
to upstream's shard dialect and back to the same text, or, where it uses
something shard cannot say, gets a located error and stays unchanged."""

import glob
import os

import pytest

import mlir_mesh
from mlir_mesh import ir
from mlir_mesh._mlir import passmanager
from mlir_mesh.asm import DiagnosticError
from mlir_mesh.diagnostics import from_mlir
from mlir_mesh.passes import PassFailure
from mlir_mesh.passes.convert_shard import convert_mesh_to_shard, convert_shard_to_mesh

ROOT = os.path.join(os.path.dirname(__file__), "..")
INPUTS = sorted(
    p for p in glob.glob(os.path.join(ROOT, "**", "*.mlir"), recursive=True) if "/Output/" not in p and "/Inputs/" not in p
)


def chunks(path):
    for i, chunk in enumerate(open(path).read().split("// -----")):
        if "mesh." in chunk:
            yield i, chunk


def _valid(chunk) -> bool:
    """Parses and verifies (the invalid-input tests' chunks do not, and are not converted)."""
    with mlir_mesh.Context() as ctx, ir.Location.unknown():
        ctx.allow_unregistered_dialects = True
        handler = ctx.attach_diagnostic_handler(lambda d: True)
        try:
            return mlir_mesh.parse(chunk).operation.verify()
        except (DiagnosticError, ir.MLIRError):
            return False
        finally:
            handler.detach()


CASES = [(os.path.relpath(p, ROOT), i) for p in INPUTS for i, chunk in chunks(p) if _valid(chunk)]


@pytest.mark.parametrize("path,index", CASES, ids=[f"{p}#{i}" for p, i in CASES])
def test_round_trip(path, index):
    chunk = dict(chunks(os.path.join(ROOT, path)))[index]
    with mlir_mesh.Context() as ctx, ir.Location.unknown():
        ctx.allow_unregistered_dialects = True
        module = mlir_mesh.parse(chunk, source_name=path)
        original = mlir_mesh.print_op(module)
        errors = []
        handler = ctx.attach_diagnostic_handler(lambda d: errors.append(from_mlir(d)) or True)
        try:
            convert_mesh_to_shard(module)
        except PassFailure:
            # shard cannot say something here: each error is located, and nothing changed
            assert errors and all(e.line > 0 and "no counterpart" in e.message for e in errors)
            assert mlir_mesh.print_op(module) == original
            return
        finally:
            handler.detach()
        assert module.operation.verify()
        text = str(module)
        assert "mesh.mesh" not in text and "mesh.all_" not in text
        convert_shard_to_mesh(module)
        assert mlir_mesh.print_op(module) == original


def test_most_inputs_convert():
    """The round trip is not vacuous: most chunks convert."""
    converted = 0
    for path, index in CASES:
        chunk = dict(chunks(os.path.join(ROOT, path)))[index]
        with mlir_mesh.Context() as ctx, ir.Location.unknown():
            ctx.allow_unregistered_dialects = True
            module = mlir_mesh.parse(chunk)
            handler = ctx.attach_diagnostic_handler(lambda d: True)
            try:
                convert_mesh_to_shard(module)
                converted += 1
            except PassFailure:
                pass
            finally:
                handler.detach()
    assert converted >= 40, converted


def test_converted_program_runs_upstream_passes(ctx):
    """After spmdization, the shard program lowers with upstream's convert-shard-to-mpi."""
    from mlir_mesh.passes.propagation import propagate
    from mlir_mesh.passes.spmdization import spmdize

    module = mlir_mesh.parse(open(os.path.join(ROOT, "..", "examples", "mlp_1d.mlir")).read())
    propagate(module.operation)
    spmdize(module.operation)
    convert_mesh_to_shard(module)
    passmanager.PassManager.parse("builtin.module(convert-shard-to-mpi)").run(module.operation)
    text = str(module)
    assert "mpi.allgather" in text and "mpi.reduce_scatter_block" in text and "shard." not in text.replace("shard.grid", "")


def test_shard_only_ops_are_located_errors(ctx):
    module = ir.Module.parse(
        """
        shard.grid @g(shape = 2)
        func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
          %s = shard.get_sharding %x : tensor<4xf32> -> !shard.sharding
          return %x : tensor<4xf32>
        }
        """
    )
    errors = []
    handler = ctx.attach_diagnostic_handler(lambda d: errors.append(from_mlir(d)) or True)
    try:
        with pytest.raises(PassFailure):
            convert_shard_to_mesh(module)
    finally:
        handler.detach()
    assert len(errors) == 1 and "get_sharding" in errors[0].message and errors[0].line == 4
    assert "shard.grid" in str(module)  # unchanged
