"""The translation templates and the verifier memo change speed, never results."""

import mlir_mesh
from mlir_mesh.dialect import syntax
from mlir_mesh.dialect.hitrate import HitRate


def program(distinct: int, repeated: int) -> str:
    """``distinct`` ops of different shapes, then ``repeated`` ops of one shape (SSA names differ)."""
    lines = ["mesh.mesh @mesh0(shape = 2x4)"]
    for i in range(distinct):
        r = i + 1
        lines += [
            f"func.func @d{i}(%x: tensor<{r}x4xf32>) -> tensor<{r}x16xf32> {{",
            f"  %g = mesh.all_gather %x on @mesh0 mesh_axes = [1] gather_axis = 1 : tensor<{r}x4xf32> -> tensor<{r}x16xf32>",
            f"  return %g : tensor<{r}x16xf32>",
            "}",
        ]
    lines.append("func.func @r(%x0: tensor<4x8xf32>) -> tensor<4x8xf32> {")
    for i in range(repeated):
        lines.append(
            f"  %x{i + 1} = mesh.all_reduce %x{i} on @mesh0 mesh_axes = [0, 1] reduction = <max>"
            ' {note = "{x}"} : tensor<4x8xf32> -> tensor<4x8xf32>'
        )
    lines += [f"  return %x{repeated} : tensor<4x8xf32>", "}"]
    return "\n".join(lines) + "\n"


def translate(text):
    syntax._GENERIC_TEMPLATES.clear()
    syntax._CUSTOM_TEMPLATES.clear()
    generic, _ = syntax.to_generic(text)
    with mlir_mesh.Context() as ctx:
        module = mlir_mesh.parse(text, ctx)
        return generic, mlir_mesh.print_op(module)


def test_templates_and_memo_give_the_same_text(monkeypatch):
    text = program(distinct=300, repeated=300)
    with_caches = translate(text)
    monkeypatch.setattr(HitRate, "worth_it", property(lambda self: False))
    without = translate(text)
    assert with_caches == without
    # braces inside attribute strings survive the format-string templates
    assert 'mesh.all_reduce %2 on @mesh0 mesh_axes = [0, 1] reduction = <max> {note = "{x}"}' in with_caches[1]


def test_a_cache_that_never_hits_turns_itself_off():
    rate = HitRate()
    for _ in range(300):
        rate.misses += 1
    assert not rate.worth_it
    rate.hits = 100
    assert rate.worth_it
