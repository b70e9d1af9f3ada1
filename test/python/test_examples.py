"""The shipped examples end to end: propagate, spmdize, fold; the SPMD run
equals the global run, the collectives are the expected ones, and the
communication report equals the analytic ring-model formula."""

import os

import numpy as np
import pytest

import mlir_mesh
from mlir_mesh import ir
from mlir_mesh.analysis import comm_report
from mlir_mesh.passes.fold_collectives import fold_collectives
from mlir_mesh.passes.propagation import propagate
from mlir_mesh.passes.spmdization import spmdize
from mlir_mesh.sim import simulate, simulate_spmd

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
F32 = 4


def ring_all_gather(n, local):  # local: bytes of one device's block
    return (n - 1) * local


def ring_reduce_scatter(n, full):  # full: bytes of the unscattered operand
    return (n - 1) / n * full


def ring_all_reduce(n, size):
    return 2 * (n - 1) / n * size


# example -> (function, input shapes, [(collective, mesh_axes)], analytic bytes per device)
CASES = {
    "mlp_1d": (
        "mlp", [(2, 4, 8), (8, 32), (32, 8)],
        [("all_gather", (0,)), ("reduce_scatter", (0,))],
        # x: BLE/2 gathered over 2; y: BLE partial, scattered over 2
        ring_all_gather(2, 2 * 4 * 4 * F32) + ring_reduce_scatter(2, 2 * 4 * 8 * F32),
    ),
    "mlp_2d": (
        "mlp", [(2, 4, 16), (16, 32), (32, 16)],
        [("all_gather", (1, 2)), ("reduce_scatter", (0,)), ("all_gather", (0,)), ("reduce_scatter", (1, 2))],
        # BLE/8 gathered over yz (4); BLF/4 scattered over x (2); BLF/8 gathered over x; BLE/2 scattered over yz
        ring_all_gather(4, 2 * 4 * 16 // 8 * F32) + ring_reduce_scatter(2, 2 * 4 * 32 // 4 * F32)
        + ring_all_gather(2, 2 * 4 * 32 // 8 * F32) + ring_reduce_scatter(4, 2 * 4 * 16 // 2 * F32),
    ),
    "attention": (
        "attention", [(2, 4, 8), (8, 4, 2), (8, 4, 2), (8, 4, 2), (4, 2, 8)],
        [("all_reduce", (1,))],
        # the output projection's BSD/2 (batch split over axis 0) summed over the 2 head groups
        ring_all_reduce(2, 1 * 4 * 8 * F32),
    ),
    "dp_fsdp": (
        "train_step", [(8, 4), (8, 6), (4, 6)],
        [("all_gather", (1,)), ("reduce_scatter", (1, 0)), ("all_slice", (0,)), ("all_gather", (0,))],
        # W/2 gathered over axis 1; dW scattered over all 4 devices; the updated W/4 gathered over axis 0
        ring_all_gather(2, 2 * 6 * F32) + ring_reduce_scatter(4, 4 * 6 * F32) + ring_all_gather(2, 1 * 6 * F32),
    ),
}


@pytest.mark.parametrize("example", sorted(CASES))
def test_example_end_to_end(ctx, example):
    func, shapes, expected_collectives, analytic = CASES[example]
    module = mlir_mesh.parse(open(os.path.join(EXAMPLES, example + ".mlir")).read())
    rng = np.random.default_rng(3)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    expected = simulate(module, func, inputs)
    propagate(module.operation)
    spmdize(module.operation)
    unfolded = simulate_spmd(module, func, inputs)
    fold_collectives(module)
    assert module.operation.verify()
    got = simulate_spmd(module, func, inputs)
    for g, u, e in zip(got, unfolded, expected):
        np.testing.assert_allclose(u, e, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4)
    report = comm_report(module)
    assert [(r.op, r.mesh_axes) for r in report.rows] == expected_collectives
    assert report.total_sent == pytest.approx(analytic)
    assert report.total_received == pytest.approx(analytic)
