#!/usr/bin/env python3
"""Benchmark: parse + print of a module of N mesh ops in the spec syntax.

Compares, in one process and one MLIR build, mlir-mesh's front end and
printer (custom syntax -> generic -> MLIR parser; MLIR printer -> custom
syntax, verifiers in Python) against MLIR's C++ parser and printer on the
same program written in the upstream ``shard`` dialect.  Both sides verify
the module while parsing.

    python tools/bench_syntax.py            # 100,000 ops, best of 3
    python tools/bench_syntax.py --ops 10000 --repeat 5
    python tools/bench_syntax.py --distinct # no two ops alike (caches never hit)
"""

from __future__ import annotations

import argparse
import time

import mlir_mesh
from mlir_mesh import ir

# One group of ops in both dialects; %x is the running tensor value.
_MESH = [
    "  %g{i} = mesh.all_gather %x{i} on @mesh0 mesh_axes = [1] gather_axis = 1 : tensor<8x16xf32> -> tensor<8x32xf32>",
    "  %s{i} = mesh.all_slice %g{i} on @mesh0 mesh_axes = [1] slice_axis = 1 : tensor<8x32xf32> -> tensor<8x16xf32>",
    "  %r{i} = mesh.all_reduce %s{i} on @mesh0 mesh_axes = [0, 2] reduction = <max> : tensor<8x16xf32> -> tensor<8x16xf32>",
    "  %h{i} = mesh.sharding @mesh0 split_axes = [[0], [1, 2]] : !mesh.sharding",
    "  %a{i} = mesh.shard %r{i} to %h{i} : tensor<8x16xf32>",
    "  %x{j} = mesh.all_to_all %a{i} on @mesh0 mesh_axes = [2] split_axis = 0 concat_axis = 0 : tensor<8x16xf32> -> tensor<8x16xf32>",
]
_SHARD = [
    "  %g{i} = shard.all_gather %x{i} on @mesh0 grid_axes = [1] gather_axis = 1 : tensor<8x16xf32> -> tensor<8x32xf32>",
    "  %s{i} = shard.all_slice %g{i} on @mesh0 grid_axes = [1] slice_axis = 1 : tensor<8x32xf32> -> tensor<8x16xf32>",
    "  %r{i} = shard.all_reduce %s{i} on @mesh0 grid_axes = [0, 2] reduction = max : tensor<8x16xf32> -> tensor<8x16xf32>",
    "  %h{i} = shard.sharding @mesh0 split_axes = [[0], [1, 2]] : !shard.sharding",
    "  %a{i} = shard.shard %r{i} to %h{i} : tensor<8x16xf32>",
    "  %x{j} = shard.all_to_all %a{i} on @mesh0 grid_axes = [2] split_axis = 0 concat_axis = 0 : tensor<8x16xf32> -> tensor<8x16xf32>",
]


def generate(n_ops: int, lines: list[str], mesh_decl: str) -> str:
    """A module with one function holding about ``n_ops`` ops of the group."""
    out = [mesh_decl, "func.func @f(%x0: tensor<8x16xf32>) -> tensor<8x16xf32> {"]
    groups = max(1, n_ops // len(lines))
    for i in range(groups):
        out.extend(line.format(i=i, j=i + 1) for line in lines)
    out.append(f"  return %x{groups} : tensor<8x16xf32>\n}}")
    return "\n".join(out) + "\n"


def generate_distinct(n_ops: int, lines: list[str], mesh_decl: str) -> str:
    """The worst case for mlir-mesh's caches: no two ops alike.

    Each group of ops has its own tensor size and its own function, so no
    two ops share a text shape (translation templates) or a signature
    (verifier memo).
    """
    out = [mesh_decl]
    for g in range(max(1, n_ops // len(lines))):
        r = g + 1
        out.append(f"func.func @f{g}(%x0: tensor<{r}x16xf32>) -> tensor<{r}x16xf32> {{")
        out.extend(line.replace("tensor<8x", f"tensor<{r}x").format(i=0, j=1) for line in lines)
        out.append(f"  return %x1 : tensor<{r}x16xf32>\n}}")
    return "\n".join(out) + "\n"


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ops", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--distinct", action="store_true", help="the worst case: no two ops share a shape")
    args = p.parse_args()

    make = generate_distinct if args.distinct else generate
    mesh_text = make(args.ops, _MESH, "mesh.mesh @mesh0(shape = 2x2x4)")
    shard_text = make(args.ops, _SHARD, "shard.grid @mesh0(shape = 2x2x4)")
    n = mesh_text.count(" = mesh.")

    with mlir_mesh.Context() as ctx:

        def ours():
            mlir_mesh.print_op(mlir_mesh.parse(mesh_text, ctx), assume_verified=True)

        def upstream():
            ir.Module.parse(shard_text, ctx).operation.get_asm(assume_verified=True)

        # Parse and print separately as well, for the README's breakdown.
        module = mlir_mesh.parse(mesh_text, ctx)
        ours_parse = best_of(args.repeat, lambda: mlir_mesh.parse(mesh_text, ctx))
        ours_print = best_of(args.repeat, lambda: mlir_mesh.print_op(module, assume_verified=True))
        up_module = ir.Module.parse(shard_text, ctx)
        up_parse = best_of(args.repeat, lambda: ir.Module.parse(shard_text, ctx))
        up_print = best_of(args.repeat, lambda: up_module.operation.get_asm(assume_verified=True))
        ours_total = best_of(args.repeat, ours)
        up_total = best_of(args.repeat, upstream)

    print(f"{n} mesh ops ({len(mesh_text) / 1e6:.1f} MB of text), best of {args.repeat}")
    print(f"{'':24}{'parse':>10}{'print':>10}{'parse+print':>14}")
    print(f"{'mlir-mesh (mesh syntax)':24}{ours_parse:>9.2f}s{ours_print:>9.2f}s{ours_total:>13.2f}s")
    print(f"{'MLIR C++ (shard syntax)':24}{up_parse:>9.2f}s{up_print:>9.2f}s{up_total:>13.2f}s")
    print(f"ratio: {ours_total / up_total:.2f}x the C++ time (target: at most 3x)")


if __name__ == "__main__":
    main()
