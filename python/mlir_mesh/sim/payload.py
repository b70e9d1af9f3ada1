"""numpy semantics of the payload ops the simulator runs.

An evaluator takes the op and its operand values (numpy arrays for tensors,
Python ints or numpy scalars for scalars) and returns the result values.
Every op that has a sharding rule in :mod:`mlir_mesh.rules` has one here,
plus the scalar and tensor ops that spmdization itself emits (index
arithmetic, slices, concatenation).  ``register_evaluator`` adds more.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from .._mlir import ir, stablehlo_ext
from ..rules import _linalg_ext, _linalg_maps, combiner_kind

Evaluator = Callable[[object, list], list]

_EVALUATORS: dict[str, Evaluator] = {}

DYNAMIC = -(2**63)  # ShapedType::kDynamic in static offset/size lists


class SimulationError(Exception):
    """An op the simulator cannot run, with the op for a located message."""

    def __init__(self, op, message: str):
        super().__init__(message)
        self.op = op


def register_evaluator(name: str, fn: Evaluator | None = None):
    """Registers the numpy semantics of an op (usable as a decorator)."""

    def wrap(f: Evaluator) -> Evaluator:
        _EVALUATORS[name] = f
        return f

    return wrap(fn) if fn is not None else wrap


def evaluator_for(name: str) -> Evaluator | None:
    return _EVALUATORS.get(name)


# ------------------------------------------------------------------ types


def numpy_dtype(t: ir.Type):
    if isinstance(t, ir.IndexType):
        return np.int64
    if isinstance(t, ir.IntegerType):
        width = ir.IntegerType(t).width
        return np.bool_ if width == 1 else {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}[width]
    if isinstance(t, ir.F64Type):
        return np.float64
    if isinstance(t, ir.F16Type):
        return np.float16
    return np.float32  # f32, and bf16/other floats computed in f32


def element_dtype(t: ir.Type):
    return numpy_dtype(ir.ShapedType(t).element_type) if isinstance(t, ir.ShapedType) else numpy_dtype(t)


def dense_value(attr: ir.Attribute, t: ir.Type) -> np.ndarray:
    """The numpy array of a dense elements attribute of type ``t``."""
    dtype = element_dtype(t)
    shape = tuple(ir.ShapedType(t).shape)
    dense = ir.DenseElementsAttr(attr)
    if dense.is_splat:
        return np.full(shape, _scalar(dense.get_splat_value()), dtype=dtype)
    return np.array(dense, copy=True).astype(dtype).reshape(shape)


def _scalar(attr: ir.Attribute):
    if isinstance(attr, ir.FloatAttr):
        return ir.FloatAttr(attr).value
    if isinstance(attr, ir.BoolAttr):
        return ir.BoolAttr(attr).value
    return ir.IntegerAttr(attr).value


def _i64s(attr) -> list[int]:
    if isinstance(attr, (ir.DenseI64ArrayAttr, ir.DenseI32ArrayAttr)):
        return [int(x) for x in attr]
    return [int(x) for x in np.array(ir.DenseIntElementsAttr(attr)).ravel()]


# ------------------------------------------------------------------ elementwise

_BINARY = {
    "add": np.add, "addf": np.add, "addi": np.add,
    "sub": np.subtract, "subtract": np.subtract, "subf": np.subtract, "subi": np.subtract,
    "mul": np.multiply, "multiply": np.multiply, "mulf": np.multiply, "muli": np.multiply,
    "divf": np.divide, "divide": np.divide,
    "maximum": np.maximum, "maximumf": np.maximum, "maxnumf": np.fmax, "maxsi": np.maximum, "maxui": np.maximum,
    "minimum": np.minimum, "minimumf": np.minimum, "minnumf": np.fmin, "minsi": np.minimum, "minui": np.minimum,
    "andi": np.bitwise_and, "and": np.bitwise_and, "bitwise_and": np.bitwise_and,
    "ori": np.bitwise_or, "or": np.bitwise_or, "bitwise_or": np.bitwise_or,
    "xori": np.bitwise_xor, "xor": np.bitwise_xor, "bitwise_xor": np.bitwise_xor,
    "power": np.power, "pow": np.power, "powf": np.power,
}
_UNARY = {
    "negf": np.negative, "negate": np.negative, "neg": np.negative,
    "exp": np.exp, "exponential": np.exp, "log": np.log, "tanh": np.tanh, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "abs": np.abs, "absf": np.abs, "absi": np.abs,
    "sin": np.sin, "sine": np.sin, "cos": np.cos, "cosine": np.cos, "floor": np.floor, "ceil": np.ceil,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "logistic": lambda x: 1 / (1 + np.exp(-x)),
    "reciprocal": lambda x: 1 / x, "erf": np.vectorize(math.erf),
}
# integer division rounds toward zero in arith.divsi / stablehlo.divide on integers
_INT_DIV = {"divsi": lambda a, b: np.trunc(np.divide(a, b)), "divui": np.floor_divide, "floordivsi": np.floor_divide,
            "ceildivsi": lambda a, b: -np.floor_divide(-a, b), "ceildivui": lambda a, b: -np.floor_divide(-a, b),
            "remsi": np.fmod, "remui": np.remainder, "remf": np.fmod, "remainder": np.fmod}


_NUMPY_FUNCS = {**_BINARY, **_UNARY, **_INT_DIV}  # op name without dialect -> numpy function


def _cast(value, op):
    t = op.results[0].type
    dtype = element_dtype(t)
    if isinstance(t, ir.ShapedType):
        return np.asarray(value).astype(dtype)
    if isinstance(t, ir.IndexType) or isinstance(t, ir.IntegerType):
        return int(value)
    return dtype(value)


def _elementwise(fn):
    def run(op, args):
        return [_cast(fn(*args), op)]

    return run


for _dialect in ("arith", "math", "stablehlo", "tosa"):
    for _name, _fn in _NUMPY_FUNCS.items():
        register_evaluator(f"{_dialect}.{_name}", _elementwise(_fn))

register_evaluator("tosa.mul", lambda op, args: [_cast(args[0] * args[1], op)])
register_evaluator("tosa.negate", lambda op, args: [_cast(-args[0], op)])
for _name in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci",
              "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.extf", "arith.truncf", "stablehlo.convert",
              "tosa.cast", "tensor.cast"):
    register_evaluator(_name, lambda op, args: [_cast(args[0], op)])


_CMP = {"eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal, "sgt": np.greater,
        "sge": np.greater_equal, "ult": np.less, "ule": np.less_equal, "ugt": np.greater, "uge": np.greater_equal}
_CMP_BY_CODE = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


@register_evaluator("arith.cmpi")
def _cmpi(op, args):
    pred = _CMP_BY_CODE[ir.IntegerAttr(op.attributes["predicate"]).value]
    return [_CMP[pred](args[0], args[1])]


@register_evaluator("arith.select")
def _select(op, args):
    return [np.where(args[0], args[1], args[2]) if isinstance(args[1], np.ndarray) else (args[1] if args[0] else args[2])]


@register_evaluator("arith.constant")
def _constant(op, args):
    t = op.results[0].type
    attr = op.attributes["value"]
    if isinstance(t, ir.ShapedType):
        return [dense_value(attr, t)]
    return [_cast(_scalar(attr), op)]


register_evaluator("stablehlo.constant", _constant)
register_evaluator("tosa.const", lambda op, args: [dense_value(op.attributes["values"], op.results[0].type)])


# ------------------------------------------------------------------ tensor


def _zeros(t: ir.Type, sizes=None) -> np.ndarray:
    shaped = ir.RankedTensorType(t)
    dims = list(shaped.shape)
    sizes = iter(sizes or ())
    dims = [next(sizes) if ir.ShapedType.is_dynamic_size(d) else d for d in dims]
    return np.zeros(dims, dtype=element_dtype(t))


register_evaluator("tensor.empty", lambda op, args: [_zeros(op.results[0].type, args)])


@register_evaluator("tensor.collapse_shape")
@register_evaluator("tensor.expand_shape")
@register_evaluator("stablehlo.reshape")
def _reshape(op, args):
    """Row-major order is kept: a reshape to the (static) result shape."""
    shape = ir.RankedTensorType(op.results[0].type).shape
    if any(ir.ShapedType.is_dynamic_size(d) for d in shape):
        raise SimulationError(op, "the simulator needs a static result shape")
    return [np.reshape(args[0], shape)]


@register_evaluator("tensor.splat")
def _splat(op, args):
    out = _zeros(op.results[0].type, args[1:])
    out[...] = args[0]
    return [out]


def _mixed(op, name: str, dynamic: Sequence) -> list[int]:
    static = _i64s(op.attributes[f"static_{name}"])
    it = iter(dynamic)
    return [int(next(it)) if s == DYNAMIC else s for s in static]


def _slice_operands(op, args, n_fixed: int):
    sizes = _i64s(op.attributes["operandSegmentSizes"])
    groups, pos = [], 0
    for s in sizes:
        groups.append(args[pos : pos + s])
        pos += s
    offsets = _mixed(op, "offsets", groups[n_fixed])
    lengths = _mixed(op, "sizes", groups[n_fixed + 1])
    strides = _mixed(op, "strides", groups[n_fixed + 2])
    return groups, tuple(slice(o, o + n * s, s) for o, n, s in zip(offsets, lengths, strides)), lengths


@register_evaluator("tensor.extract_slice")
def _extract_slice(op, args):
    groups, index, _ = _slice_operands(op, args, 1)
    out = groups[0][0][index]
    rank = ir.RankedTensorType(op.results[0].type).rank
    if out.ndim != rank:  # rank-reducing: the dropped dimensions have size 1
        out = out.reshape([s for s in out.shape if s != 1] or [1] * rank)
    return [out.copy()]


@register_evaluator("tensor.insert_slice")
def _insert_slice(op, args):
    groups, index, lengths = _slice_operands(op, args, 2)
    dest = np.array(groups[1][0], copy=True)
    dest[index] = np.asarray(groups[0][0]).reshape(dest[index].shape)
    return [dest]


@register_evaluator("tensor.concat")
def _concat(op, args):
    return [np.concatenate(args, axis=ir.IntegerAttr(op.attributes["dim"]).value)]


@register_evaluator("tensor.dim")
def _dim(op, args):
    return [int(args[0].shape[int(args[1])])]


@register_evaluator("tensor.extract")
def _extract(op, args):
    return [args[0][tuple(int(i) for i in args[1:])].item()]


# ------------------------------------------------------------------ linalg


def _identity(kind: str, dtype):
    if kind == "sum":
        return 0
    if kind == "product":
        return 1
    if kind in ("max", "min"):
        if np.issubdtype(dtype, np.floating):
            return -np.inf if kind == "max" else np.inf
        info = np.iinfo(dtype)
        return info.min if kind == "max" else info.max
    return None


_NP_REDUCE = {"sum": np.sum, "product": np.prod, "max": np.max, "min": np.min}
_NP_COMBINE = {"sum": np.add, "product": np.multiply, "max": np.maximum, "min": np.minimum}


def _to_loop_space(array: np.ndarray, amap: tuple, n_loops: int) -> np.ndarray:
    """Views an operand indexed by ``amap`` (dim -> loop) as an array over all loops (size 1 elsewhere)."""
    keep = [d for d, l in enumerate(amap) if l is not None]
    array = array.reshape([array.shape[d] for d in keep]) if len(keep) != array.ndim else array
    loops = [amap[d] for d in keep]
    order = sorted(range(len(loops)), key=lambda i: loops[i])
    array = np.transpose(array, order)
    shape = [1] * n_loops
    for i in order:
        shape[loops[i]] = array.shape[order.index(i)]
    return array.reshape(shape)


def run_block(block: ir.Block, values: list) -> list:
    """Evaluates a region's single block on arrays (vectorised over a loop space)."""
    env = {arg: v for arg, v in zip(block.arguments, values)}
    for op in block.operations:
        op = op.operation
        if op.name in ("linalg.yield", "stablehlo.return", "tosa.yield", "scf.yield"):
            return [env[o] for o in op.operands]
        fn = evaluator_for(op.name)
        if fn is None:
            raise SimulationError(op, f"the simulator has no semantics for '{op.name}'")
        args = [env[o] for o in op.operands]
        if op.name.startswith("arith.") and op.results and not isinstance(op.results[0].type, ir.ShapedType):
            results = [np.asarray(r) for r in _array_elementwise(op, args, fn)]
        else:
            results = fn(op, args)
        env.update(zip(op.results, results))
    raise SimulationError(block.owner, "region without a terminator")


def _array_elementwise(op, args, fn):
    """Scalar arith ops inside bodies run on whole arrays: skip the scalar cast."""
    name = op.name.split(".", 1)[1]
    if name in _NUMPY_FUNCS:
        return [_NUMPY_FUNCS[name](*args)]
    if name in ("constant",):
        return [np.asarray(_scalar(op.attributes["value"]))]
    return fn(op, args)


def _linalg(op, args):
    maps_attr = _linalg_ext().get_indexing_maps(op)
    n_loops, maps = _linalg_maps(maps_attr)
    n_results = len(op.results)
    n_inputs = len(args) - n_results
    loop_sizes = [1] * n_loops
    for a, m in zip(args, maps):
        for d, l in enumerate(m):
            if l is not None:
                loop_sizes[l] = max(loop_sizes[l], np.shape(a)[d])
    block = op.regions[0].blocks[0]
    outs = []
    for j in range(n_results):
        out_map = maps[n_inputs + j]
        reduced = [l for l in range(n_loops) if l not in out_map]
        kind = combiner_kind(block, j, n_inputs + j) if reduced else None
        if reduced and kind not in _NP_REDUCE:
            raise SimulationError(op, "the simulator runs linalg reductions with sum/product/max/min combiners only")
        outs.append((out_map, reduced, kind))
    inputs = [_to_loop_space(np.asarray(a), m, n_loops) for a, m in zip(args[:n_inputs], maps)]
    inits = []
    for j, (out_map, reduced, kind) in enumerate(outs):
        init = np.asarray(args[n_inputs + j])
        if reduced:
            inits.append(np.asarray(_identity(kind, init.dtype), dtype=init.dtype))
        else:
            inits.append(_to_loop_space(init, out_map, n_loops))
    values = run_block(block, inputs + inits)
    results = []
    for j, (out_map, reduced, kind) in enumerate(outs):
        init = np.asarray(args[n_inputs + j])
        v = np.broadcast_to(values[j], loop_sizes)
        if reduced:
            v = _NP_REDUCE[kind](v, axis=tuple(reduced), keepdims=True)
        v = v.reshape([loop_sizes[l] for l in range(n_loops) if l not in reduced])
        kept = [l for l in range(n_loops) if l not in reduced]
        v = np.transpose(v, [kept.index(l) for l in out_map if l is not None]).reshape(init.shape)
        if reduced:
            v = _NP_COMBINE[kind](init, v)
        results.append(v.astype(init.dtype))
    return results


# ------------------------------------------------------------------ stablehlo


@register_evaluator("stablehlo.dot_general")
def _dot_general(op, args):
    dims = stablehlo_ext().DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
    lhs, rhs = args
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    lhs_sub = [None] * lhs.ndim
    rhs_sub = [None] * rhs.ndim
    batch = []
    for l, r in zip(dims.lhs_batching_dimensions, dims.rhs_batching_dimensions):
        c = next(letters)
        lhs_sub[l] = rhs_sub[r] = c
        batch.append(c)
    for l, r in zip(dims.lhs_contracting_dimensions, dims.rhs_contracting_dimensions):
        lhs_sub[l] = rhs_sub[r] = next(letters)
    lhs_free = []
    for i in range(lhs.ndim):
        if lhs_sub[i] is None:
            lhs_sub[i] = next(letters)
            lhs_free.append(lhs_sub[i])
    rhs_free = []
    for i in range(rhs.ndim):
        if rhs_sub[i] is None:
            rhs_sub[i] = next(letters)
            rhs_free.append(rhs_sub[i])
    spec = f"{''.join(lhs_sub)},{''.join(rhs_sub)}->{''.join(batch + lhs_free + rhs_free)}"
    return [_cast(np.einsum(spec, lhs, rhs), op)]


@register_evaluator("stablehlo.broadcast_in_dim")
def _broadcast_in_dim(op, args):
    out_shape = list(ir.RankedTensorType(op.results[0].type).shape)
    dims = _i64s(op.attributes["broadcast_dimensions"])
    shape = [1] * len(out_shape)
    for i, d in enumerate(dims):
        shape[d] = args[0].shape[i]
    return [np.broadcast_to(args[0].reshape(shape), out_shape).copy()]


@register_evaluator("stablehlo.transpose")
def _transpose(op, args):
    return [np.transpose(args[0], _i64s(op.attributes["permutation"])).copy()]


@register_evaluator("stablehlo.reduce")
def _reduce(op, args):
    n = len(op.results)
    dims = tuple(_i64s(op.attributes["dimensions"]))
    block = op.regions[0].blocks[0]
    out = []
    for j in range(n):
        kind = combiner_kind(block, j, j)
        if kind not in _NP_REDUCE:
            raise SimulationError(op, "the simulator runs stablehlo.reduce with add/mul/max/min bodies only")
        v = _NP_REDUCE[kind](args[j], axis=dims)
        out.append(_NP_COMBINE[kind](v, args[n + j]).astype(args[j].dtype))
    return out


# ------------------------------------------------------------------ tosa


@register_evaluator("tosa.matmul")
def _tosa_matmul(op, args):
    return [_cast(np.matmul(args[0], args[1]), op)]


def linalg_evaluator(name: str) -> Evaluator | None:
    """linalg structured ops share one evaluator driven by their indexing maps and body."""
    return _linalg if name.startswith("linalg.") else None
