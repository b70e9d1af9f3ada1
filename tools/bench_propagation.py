#!/usr/bin/env python3
"""Benchmark: sharding propagation on generated MLP stacks.

Times mlir-mesh's ``mesh-sharding-propagation`` against upstream MLIR's C++
``sharding-propagation`` on the same program (written in the ``shard``
dialect for upstream), in the same process and MLIR build.  Only the pass
is timed: each run starts from a freshly parsed module.

The program is a stack of MLP layers in linalg (upstream implements the
sharding interface for linalg, not for arith): per layer a
``linalg.matmul`` against a weight and a ``linalg.add`` (each with its
``tensor.empty`` init), the batch of the input split over the mesh.

    python tools/bench_propagation.py                 # 1k, 10k, 100k ops
    python tools/bench_propagation.py --ops 10000 --repeat 5
"""

from __future__ import annotations

import argparse
import time

import mlir_mesh
from mlir_mesh import ir
from mlir_mesh._mlir import passmanager
from mlir_mesh.passes.propagation import propagate

_LAYER = """  %e{i} = tensor.empty() : tensor<64x128xf32>
  %m{i} = linalg.matmul ins(%x{i}, %w : tensor<64x128xf32>, tensor<128x128xf32>) outs(%e{i} : tensor<64x128xf32>) -> tensor<64x128xf32>
  %f{i} = tensor.empty() : tensor<64x128xf32>
  %x{j} = linalg.add ins(%m{i}, %m{i} : tensor<64x128xf32>, tensor<64x128xf32>) outs(%f{i} : tensor<64x128xf32>) -> tensor<64x128xf32>"""
_OPS_PER_LAYER = 4


def generate(n_ops: int, dialect: str) -> str:
    """An MLP stack of about ``n_ops`` payload ops; ``dialect`` is "mesh" or "shard"."""
    mesh_op = "mesh.mesh @mesh0(shape = 8)" if dialect == "mesh" else "shard.grid @mesh0(shape = 8)"
    layers = max(1, n_ops // _OPS_PER_LAYER)
    out = [
        mesh_op,
        "func.func @mlp(%in: tensor<64x128xf32>, %w: tensor<128x128xf32>) -> tensor<64x128xf32> {",
        f"  %s = {dialect}.sharding @mesh0 split_axes = [[0]] : !{dialect}.sharding",
        f"  %x0 = {dialect}.shard %in to %s : tensor<64x128xf32>",
    ]
    out += [_LAYER.format(i=i, j=i + 1) for i in range(layers)]
    out += [f"  return %x{layers} : tensor<64x128xf32>", "}"]
    return "\n".join(out) + "\n"


def best_ours(text: str, repeat: int, timed, before=None) -> float:
    """Best time of ``timed(module)`` on a freshly parsed mesh module, after an untimed ``before``."""
    best = float("inf")
    for _ in range(repeat):
        ctx = mlir_mesh.Context()
        module = mlir_mesh.parse(text, ctx)
        with ctx, ir.Location.unknown():
            if before is not None:
                before(module)
            t0 = time.perf_counter()
            timed(module)
            best = min(best, time.perf_counter() - t0)
    return best


def best_upstream(text: str, repeat: int, timed: str, before: str | None = None) -> float | str:
    """Best time of upstream pipeline ``timed`` on a freshly parsed shard module, after ``before``.

    A failing pipeline gives "failed: <its first message>" instead of a time.
    """
    best = float("inf")
    for _ in range(repeat):
        ctx = mlir_mesh.Context()
        with ctx:
            module = ir.Module.parse(text)
            if before is not None:
                passmanager.PassManager.parse(before).run(module.operation)
            pm = passmanager.PassManager.parse(timed)
            t0 = time.perf_counter()
            try:
                pm.run(module.operation)
            except ir.MLIRError as e:
                first = str(e).split("\n")[1].strip() if "\n" in str(e) else str(e)
                return f"failed: {first}"
            best = min(best, time.perf_counter() - t0)
    return best


def time_ours(text: str, repeat: int) -> float:
    return best_ours(text, repeat, propagate)


def time_upstream(text: str, repeat: int) -> float | str:
    return best_upstream(text, repeat, "builtin.module(func.func(sharding-propagation))")


def run_table(doc: str, generate, time_ours, time_upstream) -> None:
    """Parses ``--ops``/``--repeat`` and prints the markdown table of ours against upstream.

    ``time_upstream`` returns seconds, or a string saying why upstream failed.
    """
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ops", type=int, action="append", help="program size in ops (repeatable)")
    p.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = p.parse_args()
    sizes = args.ops or [1_000, 10_000, 100_000]
    print("| ops | mlir-mesh | upstream C++ | ratio | mlir-mesh per op |")
    print("|---:|---:|---:|---:|---:|")
    for n in sizes:
        repeat = args.repeat if n <= 10_000 else 1
        ours = time_ours(generate(n, "mesh"), repeat)
        upstream = time_upstream(generate(n, "shard"), repeat)
        if isinstance(upstream, float):
            theirs, ratio = f"{upstream:.3f} s", f"{ours / upstream:.1f}x"
        else:
            theirs, ratio = upstream, "-"
        print(f"| {n:,} | {ours:.3f} s | {theirs} | {ratio} | {ours / n * 1e6:.0f} us |", flush=True)


def main() -> None:
    run_table(__doc__, generate, time_ours, time_upstream)


if __name__ == "__main__":
    main()
