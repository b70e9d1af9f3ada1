#!/usr/bin/env python3
"""Benchmark: the whole mlir-mesh pipeline against upstream's, time and bytes.

mlir-mesh: parse, ``mesh-sharding-propagation``, ``mesh-spmdization``,
``mesh-fold-collectives``, print.  Upstream (C++, same process and MLIR
build): parse, ``sharding-propagation``, ``shard-partition``,
``shard-simplify``, print, on the same program in ``shard`` syntax.

Bytes are what one device sends per run of the partitioned program under
the ring model of ``mlir_mesh.analysis.comm``; upstream's output is
converted back with ``convert-shard-to-mesh`` and measured the same way.

Programs: the generated MLP stacks of ``bench_spmdization.py`` (1k, 10k,
100k ops); the 1D and 2D weight-stationary MLPs written in linalg with the
same ``shard`` annotations for both sides (upstream implements the sharding
interface for linalg, not for stablehlo, and has no partial annotations, so
these carry only the weights' and the boundary's shardings); and the
shipped stablehlo examples, which upstream rejects.  The examples'
boundary shardings are ``mesh.sharding`` attributes (spec 002), which
upstream does not read: for upstream they become ``shard.shard`` ops on the
arguments and (annotate_for_users) on the returned values, and partial
annotations are dropped.

    python tools/bench_vs_upstream.py                 # stacks and examples
    python tools/bench_vs_upstream.py --ops 1000 --no-examples
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import mlir_mesh
from mlir_mesh import ir
from mlir_mesh._mlir import passmanager
from mlir_mesh.analysis import comm_report
from mlir_mesh.irutil import walk
from mlir_mesh.passes.convert_shard import convert_mesh_to_shard, convert_shard_to_mesh
from mlir_mesh.passes.fold_collectives import fold_collectives
from mlir_mesh.passes.propagation import propagate
from mlir_mesh.passes.spmdization import spmdize
from mlir_mesh.sharding import argument_sharding, result_sharding

sys.path.insert(0, os.path.dirname(__file__))
import bench_spmdization  # noqa: E402  (the same stacks)

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")
UPSTREAM = "builtin.module(func.func(sharding-propagation, shard-partition, shard-simplify))"


def ours(text: str) -> tuple[float, float | str]:
    """(seconds for parse .. print, bytes a device sends)."""
    ctx = mlir_mesh.Context()
    with ctx, ir.Location.unknown():
        t0 = time.perf_counter()
        module = mlir_mesh.parse(text)
        propagate(module.operation)
        spmdize(module.operation)
        fold_collectives(module)
        mlir_mesh.print_op(module, assume_verified=True)
        seconds = time.perf_counter() - t0
        return seconds, comm_report(module).total_sent


def upstream(text: str) -> tuple[float | str, float | str]:
    """(seconds, bytes) of upstream's pipeline; a failure is a short string instead."""
    ctx = mlir_mesh.Context()
    with ctx, ir.Location.unknown():
        handler = ctx.attach_diagnostic_handler(lambda d: True)
        try:
            t0 = time.perf_counter()
            module = ir.Module.parse(text)
            passmanager.PassManager.parse(UPSTREAM).run(module.operation)
            module.operation.get_asm(assume_verified=True)
            seconds = time.perf_counter() - t0
        except ir.MLIRError as e:
            first = next((d.message for d in e.error_diagnostics), str(e).split("\n")[0])
            return f"failed: {first[:70]}{'...' if len(first) > 70 else ''}", "-"
        finally:
            handler.detach()
        try:
            convert_shard_to_mesh(module)
        except Exception:  # an op with no mesh counterpart: no byte count
            return seconds, "n/a"
        return seconds, comm_report(module).total_sent


def _mlp_linalg(d: str, mesh: str, t: int, e: int, f: int, shardings: dict) -> str:
    """A weight-stationary MLP on ``t`` tokens in linalg, annotated with ``shardings`` (dialect ``d``)."""
    grid = f"mesh.mesh @mesh(shape = {mesh})" if d == "mesh" else f"shard.grid @mesh(shape = {mesh})"
    lines = [
        grid,
        f"func.func @mlp(%x: tensor<{t}x{e}xf32>, %w_in: tensor<{e}x{f}xf32>, %w_out: tensor<{f}x{e}xf32>) -> tensor<{t}x{e}xf32> {{",
    ]
    for name, axes in shardings.items():
        lines.append(f"  %s_{name} = {d}.sharding @mesh split_axes = {axes} : !{d}.sharding")
    lines += [
        f"  %xs = {d}.shard %x to %s_x : tensor<{t}x{e}xf32>",
        f"  %wi = {d}.shard %w_in to %s_in : tensor<{e}x{f}xf32>",
        f"  %wo = {d}.shard %w_out to %s_out : tensor<{f}x{e}xf32>",
        "  %c0 = arith.constant 0.0 : f32",
        f"  %e0 = tensor.empty() : tensor<{t}x{f}xf32>",
        f"  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<{t}x{f}xf32>) -> tensor<{t}x{f}xf32>",
        f"  %h = linalg.matmul ins(%xs, %wi : tensor<{t}x{e}xf32>, tensor<{e}x{f}xf32>) outs(%z0 : tensor<{t}x{f}xf32>) -> tensor<{t}x{f}xf32>",
        f"  %e1 = tensor.empty() : tensor<{t}x{f}xf32>",
        f"  %r = linalg.max ins(%h, %z0 : tensor<{t}x{f}xf32>, tensor<{t}x{f}xf32>) outs(%e1 : tensor<{t}x{f}xf32>) -> tensor<{t}x{f}xf32>",
    ]
    hidden = "%r"
    if "hidden" in shardings:
        lines.append(f"  %rs = {d}.shard %r to %s_hidden : tensor<{t}x{f}xf32>")
        hidden = "%rs"
    lines += [
        f"  %e2 = tensor.empty() : tensor<{t}x{e}xf32>",
        f"  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<{t}x{e}xf32>) -> tensor<{t}x{e}xf32>",
        f"  %y = linalg.matmul ins({hidden}, %wo : tensor<{t}x{f}xf32>, tensor<{f}x{e}xf32>) outs(%z2 : tensor<{t}x{e}xf32>) -> tensor<{t}x{e}xf32>",
        f"  %ys = {d}.shard %y to %s_x annotate_for_users : tensor<{t}x{e}xf32>",
        f"  return %ys : tensor<{t}x{e}xf32>",
        "}",
    ]
    return "\n".join(lines) + "\n"


LINALG_MLPS = {
    # fig. 2a: x E_x, W_in F_x, W_out F_x
    "MLP 1D (linalg)": lambda d: _mlp_linalg(d, "2", 8, 8, 32, {"x": "[[], [0]]", "in": "[[], [0]]", "out": "[[0]]"}),
    # fig. 2b: x E_xyz, W_in E_x F_yz, W_out F_yz E_x, hidden F_yzx
    "MLP 2D (linalg)": lambda d: _mlp_linalg(
        d, "2x2x2", 8, 16, 32,
        {"x": "[[], [0, 1, 2]]", "in": "[[0], [1, 2]]", "out": "[[1, 2], [0]]", "hidden": "[[], [1, 2, 0]]"},
    ),
}


def upstream_text(path: str) -> str:
    """An example in the shard dialect, its boundary shardings as shard.shard ops."""
    ctx = mlir_mesh.Context()
    with ctx, ir.Location.unknown():
        module = mlir_mesh.parse(open(path).read())
        for func in module.body.operations:
            if func.operation.name != "func.func":
                continue
            _boundary_to_ops(func.operation)
        for op in walk(module.operation):
            if op.name == "mesh.sharding":
                for key in ("partial_axes", "partial_type"):
                    if key in op.attributes:
                        del op.attributes[key]
        convert_mesh_to_shard(module)
        return str(module)


def _boundary_to_ops(func) -> None:
    from mlir_mesh.dialect.ops import ShardOp

    block = func.regions[0].blocks[0]
    first = list(block.operations)[0]
    for i, arg in enumerate(block.arguments):
        s = argument_sharding(func, i)
        if s is None:
            continue
        uses = [(u.owner, u.operand_number) for u in arg.uses]
        with ir.InsertionPoint(first):
            shard = ShardOp(arg, s.build(), result_type=arg.type).result
        for owner, n in uses:
            owner.operands[n] = shard
    ret = list(block.operations)[-1]
    for i in range(len(ret.operands)):
        s = result_sharding(func, i)
        if s is not None:
            with ir.InsertionPoint(ret):
                v = ret.operands[i]
                ret.operands[i] = ShardOp(v, s.build(), annotate_for_users=True, result_type=v.type).result
    for key in ("arg_attrs", "res_attrs"):
        if key in func.attributes:
            del func.attributes[key]



def _fmt_time(t) -> str:
    return f"{t:.3f} s" if isinstance(t, float) else t


def _fmt_bytes(b) -> str:
    return f"{b:,.0f}" if isinstance(b, float) else str(b)


def row(name: str, mesh_text: str, shard_text: str, repeat: int) -> str:
    ours(mesh_text)  # warm up: the first run imports and builds the rule tables
    runs = [ours(mesh_text) for _ in range(repeat)]
    our_time, our_bytes = min(r[0] for r in runs), runs[0][1]
    up_runs = [upstream(shard_text) for _ in range(repeat)]
    times = [r[0] for r in up_runs if isinstance(r[0], float)]
    up_time = min(times) if times else up_runs[0][0]
    up_bytes = up_runs[0][1]
    ratio = f"{our_time / up_time:.1f}x" if isinstance(up_time, float) else "-"
    return f"| {name} | {our_time:.3f} s | {_fmt_time(up_time)} | {ratio} | {_fmt_bytes(our_bytes)} | {_fmt_bytes(up_bytes)} |"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ops", type=int, action="append", help="stack size in ops (repeatable)")
    p.add_argument("--repeat", type=int, default=3, help="best of this many runs (1 above 10k ops)")
    p.add_argument("--no-examples", action="store_true", help="only the generated stacks")
    args = p.parse_args()
    print("| program | mlir-mesh | upstream C++ | ratio | bytes/device mlir-mesh | bytes/device upstream |")
    print("|---|---:|---:|---:|---:|---:|")
    for n in args.ops or [1_000, 10_000, 100_000]:
        repeat = args.repeat if n <= 10_000 else 1
        mesh_text, shard_text = bench_spmdization.generate(n, "mesh"), bench_spmdization.generate(n, "shard")
        print(row(f"stack {n:,} ops", mesh_text, shard_text, repeat), flush=True)
    if not args.no_examples:
        for name, generate in LINALG_MLPS.items():
            print(row(name, generate("mesh"), generate("shard"), args.repeat), flush=True)
        for name in sorted(os.listdir(EXAMPLES)):
            path = os.path.join(EXAMPLES, name)
            if not name.endswith(".mlir") or "func.func" not in open(path).read() or name == "collectives.mlir":
                continue
            print(row(f"examples/{name}", open(path).read(), upstream_text(path), args.repeat), flush=True)


if __name__ == "__main__":
    main()
