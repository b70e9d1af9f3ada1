"""Sharding rules: the ShardingInterface of spec 000 as a Python registry.

A rule describes an op as a loop nest: one iterator type per loop
(parallel, reduction with its reduction kind, or invalid: never sharded)
and, for every operand and result, an indexing map from its tensor
dimensions to loops.  Propagation and spmdization only ever look at ops
through their rule.

A map is a tuple with one entry per tensor dimension: the loop index the
dimension is indexed by, or ``None`` when the dimension cannot be sharded
(a broadcast size-1 dimension, a constant or a sum of loops such as a
convolution window).  An operand whose map is ``None`` is not a tensor the
rule cares about (a scalar, an index); an all-``None`` map replicates the
operand (tosa zero points, the shift of ``tosa.mul``).

Users add rules for their own ops without touching mlir-mesh::

    from mlir_mesh.rules import OpRule, register_rule

    @register_rule("my.softmax")
    def softmax(op):
        rank = len(op.results[0].type.shape)
        # parallel over every dimension but the last, which must stay whole
        return OpRule(("parallel",) * (rank - 1) + ("invalid",),
                      operand_maps=(tuple(range(rank)),), result_maps=(tuple(range(rank)),))

A rule returns ``None`` when it does not apply to this instance; the op is
then treated as replicated.  Registering a name again replaces the rule.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from ._mlir import _linalg_ext, ir, stablehlo_ext
from .dialect.verifiers import shape_of_type

PARALLEL = "parallel"
REDUCTION = "reduction"
INVALID = "invalid"

Map = Optional[tuple]


@dataclass(frozen=True)
class OpRule:
    """Loop iterator types and indexing maps of one op instance.

    ``reductions[l]`` is the reduction kind of reduction loop ``l``
    (``"sum"``, ``"max"``, ...), ``None`` for other loops or a combiner that
    is not a known reduction (such a loop is never sharded).
    """

    loops: tuple[str, ...]
    operand_maps: tuple[Map, ...]
    result_maps: tuple[Map, ...]
    reductions: tuple[Optional[str], ...] = field(default=())
    #: Loops of different groups are unrelated: the same mesh axis may split
    #: one loop of each group (``func.return``: one group per operand).
    loop_groups: tuple[int, ...] = field(default=())

    def __post_init__(self):
        if not self.reductions:
            object.__setattr__(
                self, "reductions", tuple("sum" if kind == REDUCTION else None for kind in self.loops)
            )
        if not self.loop_groups:
            object.__setattr__(self, "loop_groups", (0,) * len(self.loops))

    def shardable(self, loop: int) -> bool:
        """Whether ``loop`` may be split over mesh axes."""
        kind = self.loops[loop]
        return kind == PARALLEL or (kind == REDUCTION and self.reductions[loop] not in (None, "generic"))

    @staticmethod
    def elementwise(operand_shapes: Sequence, result_shapes: Sequence) -> "OpRule":
        """All-parallel rule: operand dims equal to the result's follow its loops,
        broadcast (size-1) dims and non-tensors do not."""
        rank = len(result_shapes[0])
        out = result_shapes[0]
        maps = []
        for shape in operand_shapes:
            if shape is None:
                maps.append(None)
            elif len(shape) != rank:
                maps.append((None,) * len(shape))
            else:
                maps.append(tuple(d if shape[d] == out[d] else None for d in range(rank)))
        return OpRule((PARALLEL,) * rank, tuple(maps), tuple(tuple(range(rank)) for _ in result_shapes))

    @staticmethod
    def independent(operand_shapes: Sequence, result_shapes: Sequence) -> "OpRule":
        """Every operand and result gets loops of its own: no sharding flows between them."""
        loops, groups, next_loop = [], [], 0
        maps = []
        for i, shape in enumerate(list(operand_shapes) + list(result_shapes)):
            if shape is None:
                maps.append(None)
                continue
            maps.append(tuple(range(next_loop, next_loop + len(shape))))
            next_loop += len(shape)
            loops += [PARALLEL] * len(shape)
            groups += [i] * len(shape)
        n = len(operand_shapes)
        return OpRule(tuple(loops), tuple(maps[:n]), tuple(maps[n:]), loop_groups=tuple(groups))


RuleFn = Callable[[ir.Operation], Optional[OpRule]]

_RULES: dict[str, RuleFn] = {}
_PREFIX_RULES: dict[str, RuleFn] = {}


def register_rule(name: str, fn: RuleFn | None = None):
    """Registers ``fn(op) -> OpRule | None`` for ops named ``name``.

    ``name`` may end with ``.*`` to cover a whole dialect (``"mydialect.*"``);
    an exact name wins over a dialect rule.  Usable as a decorator.
    """

    def wrap(f: RuleFn) -> RuleFn:
        if name.endswith(".*"):
            _PREFIX_RULES[name[:-1]] = f
        else:
            _RULES[name] = f
        return f

    return wrap(fn) if fn is not None else wrap


def unregister_rule(name: str) -> None:
    """Removes a rule (for tests and experiments)."""
    if name.endswith(".*"):
        _PREFIX_RULES.pop(name[:-1], None)
    else:
        _RULES.pop(name, None)


def rule_for(name: str) -> RuleFn | None:
    """The rule function registered for an op name, if any."""
    fn = _RULES.get(name)
    if fn is None:
        dot = name.find(".")
        fn = _PREFIX_RULES.get(name[: dot + 1]) if dot >= 0 else None
    return fn


def get_rule(op) -> OpRule | None:
    """The rule of one op instance, or None if it has none."""
    op = op.operation if hasattr(op, "operation") else op
    fn = rule_for(op.name)
    return fn(op) if fn is not None else None


# ------------------------------------------------------------------ helpers


def tensor_shape(value_or_type) -> tuple | None:
    """The shape of a ranked tensor value or type (``None`` entries are dynamic), else None."""
    t = value_or_type.type if isinstance(value_or_type, ir.Value) else value_or_type
    return None if isinstance(t, ir.MemRefType) else shape_of_type(t)


def _shapes(values) -> list:
    return [tensor_shape(v) for v in values]


def _elementwise(op) -> OpRule | None:
    results = _shapes(op.results)
    if not results or results[0] is None:
        return None
    return OpRule.elementwise(_shapes(op.operands), results)


def _results_only(op) -> OpRule | None:
    results = _shapes(op.results)
    if not results or results[0] is None:
        return None
    rank = len(results[0])
    return OpRule((PARALLEL,) * rank, tuple(None for _ in op.operands), (tuple(range(rank)),))


def _independent(op) -> OpRule:
    return OpRule.independent(_shapes(op.operands), _shapes(op.results))


def _with_replicated(base: RuleFn, replicated: Sequence[int]) -> RuleFn:
    def rule(op):
        r = base(op)
        if r is None:
            return None
        maps = list(r.operand_maps)
        for i in replicated:
            if i < len(maps) and maps[i] is not None:
                maps[i] = (None,) * len(maps[i])
        return OpRule(r.loops, tuple(maps), r.result_maps, r.reductions, r.loop_groups)

    return rule


def _i64s(attr) -> tuple[int, ...]:
    try:
        return tuple(ir.DenseI64ArrayAttr(attr))
    except (ValueError, TypeError):
        return tuple(int(x) for x in ir.DenseIntElementsAttr(attr))


# Combiner ops and the reduction kind they make.
_COMBINERS = {
    "add": "sum",
    "addf": "sum",
    "addi": "sum",
    "mul": "product",
    "multiply": "product",
    "mulf": "product",
    "muli": "product",
    "maximumf": "max",
    "maxnumf": "max",
    "maxsi": "max",
    "maxui": "max",
    "maximum": "max",
    "max": "max",
    "minimumf": "min",
    "minnumf": "min",
    "minsi": "min",
    "minui": "min",
    "minimum": "min",
    "min": "min",
    "andi": "bitwise_and",
    "and": "bitwise_and",
    "ori": "bitwise_or",
    "or": "bitwise_or",
    "xori": "bitwise_xor",
    "xor": "bitwise_xor",
}


def combiner_kind(block: ir.Block, result_index: int, acc_arg: int) -> str | None:
    """The reduction kind of the value yielded at ``result_index`` of a body.

    It is a known kind when the yielded value is computed by one combiner op
    (``arith.addf``, ``arith.maximumf``, ``stablehlo.add``, ...) of which one
    operand is the accumulator block argument ``acc_arg``.
    """
    ops = list(block.operations)
    if not ops:
        return None
    terminator = ops[-1]
    if result_index >= len(terminator.operands):
        return None
    value = terminator.operands[result_index]
    owner = value.owner
    if not isinstance(owner, ir.OpView):
        return None
    kind = _COMBINERS.get(owner.operation.name.split(".", 1)[1])
    if kind is None:
        return None
    acc = block.arguments[acc_arg]
    if any(o == acc for o in owner.operation.operands):
        return kind
    return None


# ------------------------------------------------------------------ linalg


@functools.lru_cache(maxsize=4096)
def _linalg_maps(maps_attr: ir.ArrayAttr) -> tuple[int, tuple[tuple, ...]]:
    """(loop count, per-operand dim -> loop maps); a non-dimension expression maps to None."""
    out = []
    n_dims = 0
    for a in maps_attr:
        amap = ir.AffineMapAttr(a).value
        n_dims = amap.n_dims
        out.append(tuple(e.position if isinstance(e, ir.AffineDimExpr) else None for e in amap.results))
    return n_dims, tuple(out)


def linalg_rule(op) -> OpRule | None:
    """Every linalg structured op, named or generic, through its indexing maps.

    Loops that appear in no output map are reductions; the reduction kind of
    each is read from the combiner of the body (spec 000).
    """
    try:
        maps_attr = _linalg_ext().get_indexing_maps(op)
    except Exception:  # not a structured op (linalg.yield, linalg.index, ...)
        return None
    if maps_attr is None:
        return None
    n_loops, maps = _linalg_maps(maps_attr)
    n_results = len(op.results)
    n_operands = len(op.operands)
    if len(maps) != n_operands or n_results == 0:
        return None
    n_inputs = n_operands - n_results
    output_loops = {l for m in maps[n_inputs:] for l in m if l is not None}
    loops, reductions = [], []
    iterators = None
    if "iterator_types" in op.attributes:
        iterators = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    block = op.regions[0].blocks[0] if op.regions and len(op.regions[0].blocks) else None
    for l in range(n_loops):
        reduction = "reduction" in iterators[l] if iterators is not None else l not in output_loops
        if not reduction:
            loops.append(PARALLEL)
            reductions.append(None)
            continue
        loops.append(REDUCTION)
        kinds = {
            combiner_kind(block, j, n_inputs + j) if block is not None else None for j in range(n_results)
        }
        reductions.append(kinds.pop() if len(kinds) == 1 else None)
    operand_shapes = _shapes(op.operands)
    operand_maps = tuple(
        None if operand_shapes[i] is None else maps[i] for i in range(n_operands)
    )
    return OpRule(tuple(loops), operand_maps, tuple(maps[n_inputs:]), tuple(reductions))


# ------------------------------------------------------------------ tosa

_TOSA_ELEMENTWISE = """abs add arithmetic_right_shift bitwise_and bitwise_not bitwise_or bitwise_xor cast
ceil clamp cos equal erf exp floor greater greater_equal int_div log logical_and logical_left_shift
logical_not logical_or logical_right_shift logical_xor maximum minimum mul pow reciprocal rsqrt select
sigmoid sin sub tanh""".split()


def _tosa_matmul(op) -> OpRule | None:
    a, b = _shapes(op.operands[:2])
    if a is None or b is None or len(a) != 3:
        return None
    # loops: n, h, w, c  a: (n, h, c)  b: (n, c, w)  out: (n, h, w)
    maps = [(0, 1, 3), (0, 3, 2)] + [((None,) * len(s) if s is not None else None) for s in _shapes(op.operands[2:])]
    return OpRule((PARALLEL, PARALLEL, PARALLEL, REDUCTION), tuple(maps), ((0, 1, 2),), (None, None, None, "sum"))


# ------------------------------------------------------------------ stablehlo

_STABLEHLO_ELEMENTWISE = """abs add and atan2 cbrt ceil compare convert cosine divide exponential
exponential_minus_one floor log log_plus_one logistic maximum minimum multiply negate not or power
remainder round_nearest_even rsqrt select sign sine sqrt subtract tan tanh xor clamp""".split()


def _stablehlo_dot_general(op) -> OpRule | None:
    lhs, rhs = _shapes(op.operands[:2])
    if lhs is None or rhs is None:
        return None
    dims = stablehlo_ext().DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
    lb, rb = list(dims.lhs_batching_dimensions), list(dims.rhs_batching_dimensions)
    lc, rc = list(dims.lhs_contracting_dimensions), list(dims.rhs_contracting_dimensions)
    lfree = [d for d in range(len(lhs)) if d not in lb and d not in lc]
    rfree = [d for d in range(len(rhs)) if d not in rb and d not in rc]
    # loops: batch..., lhs free..., rhs free..., contracting...
    nb, nl, nr = len(lb), len(lfree), len(rfree)
    lmap, rmap = [None] * len(lhs), [None] * len(rhs)
    for i, (x, y) in enumerate(zip(lb, rb)):
        lmap[x] = rmap[y] = i
    for i, d in enumerate(lfree):
        lmap[d] = nb + i
    for i, d in enumerate(rfree):
        rmap[d] = nb + nl + i
    for i, (x, y) in enumerate(zip(lc, rc)):
        lmap[x] = rmap[y] = nb + nl + nr + i
    n_par = nb + nl + nr
    loops = (PARALLEL,) * n_par + (REDUCTION,) * len(lc)
    reds = (None,) * n_par + ("sum",) * len(lc)
    return OpRule(loops, (tuple(lmap), tuple(rmap)), (tuple(range(n_par)),), reds)


def _stablehlo_broadcast_in_dim(op) -> OpRule | None:
    src, out = tensor_shape(op.operands[0]), tensor_shape(op.results[0])
    if src is None or out is None:
        return None
    bdims = _i64s(op.attributes["broadcast_dimensions"])
    smap = tuple(b if src[i] == out[b] else None for i, b in enumerate(bdims))
    return OpRule((PARALLEL,) * len(out), (smap,), (tuple(range(len(out))),))


def _transpose(attr_name: str) -> RuleFn:
    def rule(op) -> OpRule | None:
        out = tensor_shape(op.results[0])
        if out is None:
            return None
        perm = _i64s(op.attributes[attr_name])
        # result dim i is operand dim perm[i]; loops follow the result.
        smap = [None] * len(perm)
        for i, p in enumerate(perm):
            smap[p] = i
        return OpRule((PARALLEL,) * len(out), (tuple(smap),), (tuple(range(len(out))),))

    return rule


def _stablehlo_reduce(op) -> OpRule | None:
    n = len(op.results)
    inputs = _shapes(op.operands[:n])
    if not inputs or inputs[0] is None:
        return None
    rank = len(inputs[0])
    reduced = set(_i64s(op.attributes["dimensions"]))
    kept = [d for d in range(rank) if d not in reduced]
    block = op.regions[0].blocks[0]
    kinds = {combiner_kind(block, j, j) for j in range(n)}
    kind = kinds.pop() if len(kinds) == 1 else None
    loops = tuple(REDUCTION if d in reduced else PARALLEL for d in range(rank))
    reds = tuple(kind if d in reduced else None for d in range(rank))
    imap = tuple(range(rank))
    init_maps = [(None,) * len(s) if s is not None else None for s in _shapes(op.operands[n:])]
    return OpRule(loops, tuple([imap] * n + init_maps), tuple(tuple(kept) for _ in range(n)), reds)


# ------------------------------------------------------------------ registration


def _register_builtin_rules() -> None:
    register_rule("linalg.*", linalg_rule)
    for name in _TOSA_ELEMENTWISE:
        register_rule(f"tosa.{name}", _elementwise)
    register_rule("tosa.mul", _with_replicated(_elementwise, [2]))
    register_rule("tosa.negate", _with_replicated(_elementwise, [1, 2]))
    register_rule("tosa.matmul", _tosa_matmul)
    register_rule("tosa.const", _results_only)
    register_rule("arith.*", _arith_or_math)
    register_rule("math.*", _arith_or_math)
    register_rule("arith.constant", _results_only)
    register_rule("tensor.empty", _results_only)
    register_rule("tensor.splat", _results_only)
    register_rule("func.return", _independent)
    register_rule("func.call", _independent)
    for name in _STABLEHLO_ELEMENTWISE:
        register_rule(f"stablehlo.{name}", _elementwise)
    register_rule("stablehlo.constant", _results_only)
    register_rule("stablehlo.dot_general", _stablehlo_dot_general)
    register_rule("stablehlo.broadcast_in_dim", _stablehlo_broadcast_in_dim)
    register_rule("stablehlo.transpose", _transpose("permutation"))
    register_rule("stablehlo.reduce", _stablehlo_reduce)


def _arith_or_math(op) -> OpRule | None:
    if not op.results or tensor_shape(op.results[0]) is None:
        return None
    return _elementwise(op)


_register_builtin_rules()

__all__ = [
    "INVALID",
    "OpRule",
    "PARALLEL",
    "REDUCTION",
    "combiner_kind",
    "get_rule",
    "register_rule",
    "rule_for",
    "tensor_shape",
    "unregister_rule",
]
