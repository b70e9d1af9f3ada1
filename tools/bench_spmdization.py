#!/usr/bin/env python3
"""Benchmark: spmdization of generated MLP stacks.

Times mlir-mesh's ``mesh-spmdization`` against upstream MLIR's C++
``shard-partition`` on the same program (the linalg MLP stack of
``bench_propagation.py``, written in the ``shard`` dialect for upstream),
in the same process and MLIR build.  Each side first completes the
annotations with its own propagation pass (not timed); only the partition
pass is timed, on a freshly parsed module each run.

    python tools/bench_spmdization.py                 # 1k, 10k, 100k ops
    python tools/bench_spmdization.py --ops 10000 --repeat 5
"""

from __future__ import annotations

import os
import re
import sys

from mlir_mesh.passes.propagation import propagate
from mlir_mesh.passes.spmdization import spmdize

sys.path.insert(0, os.path.dirname(__file__))
import bench_propagation  # noqa: E402  (the same programs)


def generate(n_ops: int, dialect: str) -> str:
    """bench_propagation's MLP stack, the weight annotated (replicated) once.

    Upstream's shard-partition wants every block argument used once, so
    the shared weight goes through one ``shard`` op that all layers use,
    and wants the returned value annotated for users.
    """
    text = bench_propagation.generate(n_ops * 2, dialect)  # 4 ops per layer there, 2 here
    annotate = (
        f"  %r = {dialect}.sharding @mesh0 split_axes = [[]] : !{dialect}.sharding\n"
        f"  %wr = {dialect}.shard %w to %r : tensor<128x128xf32>\n"
    )
    head, sep, body = text.partition(f"  %s = {dialect}.sharding")
    body = body.replace(", %w :", ", %wr :")
    # Upstream cannot partition a tensor.empty its propagation annotated for users: the
    # layers accumulate into their input instead (same ops otherwise, 2 per layer).
    lines = [line for line in body.split("\n") if "tensor.empty" not in line]
    body = "\n".join(lines)
    # ... and wants the returned value annotated for its user, the return.
    body = re.sub(r"  return %(\w+) : (\S+)", rf"  %ret = {dialect}.shard %\1 to %s annotate_for_users : \2\n  return %ret : \2", body)
    body = re.sub(r"outs\(%e(\d+)", r"outs(%x\1", body)
    body = re.sub(r"outs\(%f(\d+)", r"outs(%m\1", body)
    return head + annotate + sep + body


def time_ours(text: str, repeat: int) -> float:
    return bench_propagation.best_ours(text, repeat, spmdize, before=propagate)


def time_upstream(text: str, repeat: int) -> float | str:
    return bench_propagation.best_upstream(
        text, repeat, "builtin.module(func.func(shard-partition))", before="builtin.module(func.func(sharding-propagation))"
    )


def main() -> None:
    bench_propagation.run_table(__doc__, generate, time_ours, time_upstream)


if __name__ == "__main__":
    main()
