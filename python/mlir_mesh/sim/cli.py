"""``mesh-sim``: run a function of a ``.mlir`` file on numpy inputs.

    mesh-sim model.mlir -f mlp                       # global program, random inputs
    mesh-sim model.mlir -f mlp --inputs x.npz        # given inputs (arg0, arg1, ... or in order)
    mesh-sim model.mlir -f mlp --pass-pipeline="builtin.module(mesh-sharding-propagation, mesh-spmdization)"
    mesh-sim model.mlir -f mlp --check               # global run == propagate + spmdize + SPMD run?

A function marked ``mesh.spmdized`` (the output of mesh-spmdization) runs on
every device of its mesh and its results are assembled from the shards.
Exit code 0 on success, 1 on bad input (a located diagnostic) or a failed
``--check``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from .._mlir import ir
from ..asm import parse_with_map
from ..diagnostics import Diagnostic, DiagnosticError, from_mlir, location_of
from ..dialect import load
from ..driver import remap_diagnostics, parse_pipeline
from .machine import SPMDIZED_ATTR, _func, simulate, simulate_spmd
from .payload import SimulationError, numpy_dtype

CHECK_PIPELINE = "builtin.module(mesh-sharding-propagation, mesh-spmdization)"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mesh-sim", description="Run a function of an MLIR file on numpy arrays.")
    p.add_argument("input", help="input .mlir file ('-' for stdin)")
    p.add_argument("-f", "--func", required=True, help="the function to run")
    p.add_argument("--inputs", metavar="NPZ", help="arguments as a .npz file (arg0, arg1, ... or in order); random otherwise")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    p.add_argument("--pass-pipeline", metavar="PIPELINE", help="passes to run before simulating")
    p.add_argument("--check", action="store_true",
                   help=f"compare the global run with the SPMD run after {CHECK_PIPELINE} (or --pass-pipeline)")
    p.add_argument("-o", dest="output", metavar="NPZ", help="write the results to a .npz file")
    p.add_argument("--rtol", type=float, default=1e-4, help="tolerance of --check")
    return p


def _inputs(func, path: str | None, seed: int) -> list[np.ndarray]:
    types = list(ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).inputs)
    if path:
        data = np.load(path)
        keys = [f"arg{i}" for i in range(len(types))]
        names = keys if all(k in data for k in keys) else list(data.keys())
        if len(names) < len(types):
            raise ValueError(f"{path} holds {len(names)} arrays, @{ir.StringAttr(func.attributes['sym_name']).value} takes {len(types)}")
        return [data[n] for n in names[: len(types)]]
    rng = np.random.default_rng(seed)
    out = []
    for t in types:
        shaped = ir.RankedTensorType(t)
        if any(d < 0 for d in shaped.shape):
            raise ValueError(f"random inputs need static shapes, not {t}; pass --inputs")
        dtype = numpy_dtype(shaped.element_type)
        if np.issubdtype(dtype, np.floating):
            out.append(rng.standard_normal(shaped.shape).astype(dtype))
        else:
            out.append(rng.integers(-8, 8, size=shaped.shape).astype(dtype))
    return out


def _run_pipeline(module, pipeline: str, ctx) -> None:
    for step in parse_pipeline(pipeline, ctx):
        step.pass_manager(ctx).run(module)


def _run(func_op, module, name, inputs):
    spmd = SPMDIZED_ATTR in func_op.attributes
    return simulate_spmd(module, name, inputs) if spmd else simulate(module, name, inputs)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out, err = sys.stdout, sys.stderr
    try:
        text = sys.stdin.read() if args.input == "-" else open(args.input, encoding="utf-8").read()
    except OSError as e:
        err.write(f"mesh-sim: error: could not open input file '{args.input}': {e.strerror}\n")
        return 1
    source = "<stdin>" if args.input == "-" else args.input
    sources = {source: text}
    ctx = load(ir.Context())
    parsed = None
    try:
        with ctx, ir.Location.unknown():
            parsed = parse_with_map(text, source, ctx)
            module = parsed.module
            try:
                func = _func(module, args.func)
            except ValueError as e:
                err.write(f"mesh-sim: error: {e}\n")
                return 1
            inputs = _inputs(func, args.inputs, args.seed)
            if args.check:
                expected = simulate(module, args.func, inputs)
                _run_pipeline(module, args.pass_pipeline or CHECK_PIPELINE, ctx)
                results = _run(_func(module, args.func), module, args.func, inputs)
                worst = max((float(np.max(np.abs(r - e))) if r.size else 0.0 for r, e in zip(results, expected)), default=0.0)
                ok = all(np.allclose(r, e, rtol=args.rtol, atol=args.rtol) for r, e in zip(results, expected))
                out.write(f"@{args.func}: SPMD {'matches' if ok else 'DIFFERS FROM'} the global run "
                          f"({len(results)} results, max abs difference {worst:.3g})\n")
                return 0 if ok else 1
            if args.pass_pipeline:
                _run_pipeline(module, args.pass_pipeline, ctx)
            results = _run(_func(module, args.func), module, args.func, inputs)
    except DiagnosticError as e:
        for d in e.diagnostics:
            err.write(d.render(sources))
        return 1
    except ir.MLIRError as e:
        for diag in remap_diagnostics([from_mlir(d) for d in e.error_diagnostics], parsed):
            err.write(diag.render(sources))
        return 1
    except SimulationError as e:
        diag = Diagnostic("error", str(e), *location_of(e.op.location))
        err.write(remap_diagnostics([diag], parsed)[0].render(sources))
        return 1
    except ValueError as e:
        err.write(f"mesh-sim: error: {e}\n")
        return 1
    if args.output:
        np.savez(args.output, **{f"result{i}": r for i, r in enumerate(results)})
    with np.printoptions(precision=4, suppress=True, threshold=64):
        for i, r in enumerate(results):
            out.write(f"result #{i}: {r.dtype}{list(r.shape)}\n{r}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
