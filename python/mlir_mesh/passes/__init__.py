"""mlir-mesh passes, registered by name.

A pass is a Python function over a ``builtin.module`` op.  Registered passes
get a ``mesh-opt`` flag of their name, may appear in ``--pass-pipeline``
beside upstream C++ passes, and can be added to an ``ir.PassManager``:

    pm = PassManager.parse("builtin.module(canonicalize)")
    mlir_mesh.passes.add(pm, "mesh-sharding-propagation", traversal="forward")
    pm.run(module)

A pass reports problems as MLIR diagnostics at the offending op's location
and then raises :class:`PassFailure` (or calls ``signal_pass_failure``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .._mlir import ir, passmanager


class PassFailure(Exception):
    """Raised by a pass after it emitted its error diagnostics."""


@dataclass
class PassInfo:
    """A registered pass: its name (the flag), what it does, its options and body."""

    name: str
    description: str
    run: Callable[..., None]
    options: dict[str, tuple[type, object, str]] = field(default_factory=dict)

    def parse_options(self, text: str) -> dict[str, object]:
        """Reads ``key=value key2=value2`` (the inside of ``{...}``) into typed options."""
        values = {k: default for k, (_, default, _) in self.options.items()}
        for item in text.replace(",", " ").split():
            key, eq, value = item.partition("=")
            if key not in self.options:
                raise ValueError(f"'{self.name}' has no option '{key}'")
            kind = self.options[key][0]
            if kind is bool:
                values[key] = (value or "true").lower() in ("1", "true", "yes", "on")
            else:
                values[key] = kind(value)
        return values

    def callback(self, **options) -> Callable:
        """A callable for ``PassManager.add``: runs the pass on the op it is given."""

        def run(op, pass_):
            try:
                with op.context, op.location:
                    self.run(op.opview if hasattr(op, "opview") else op, **options)
            except PassFailure:
                pass_.signal_pass_failure()
            except Exception as e:  # a bug in the pass: still a located diagnostic
                op.location.emit_error(f"internal error in pass '{self.name}': {type(e).__name__}: {e}")
                pass_.signal_pass_failure()

        run.__name__ = self.name
        return run


PASSES: dict[str, PassInfo] = {}


def register(name: str, description: str, options: dict | None = None):
    """Decorator registering ``fn(module_op, **options)`` as pass ``name``."""

    def wrap(fn):
        PASSES[name] = PassInfo(name, description, fn, dict(options or {}))
        return fn

    return wrap


def add(pm: passmanager.PassManager, name: str, **options) -> None:
    """Appends the registered mesh pass ``name`` to a pass manager (top level)."""
    info = PASSES[name]
    values = info.parse_options("")
    values.update(options)
    pm.add(info.callback(**values), name=name)


def emit_error(op: ir.Operation | ir.OpView, message: str) -> None:
    """Emits an error diagnostic at ``op``'s location."""
    op.location.emit_error(message)


__all__ = ["PASSES", "PassFailure", "PassInfo", "add", "emit_error", "register"]


def _load_builtin_passes() -> None:
    from . import propagation  # noqa: F401  (registers mesh-sharding-propagation)
    from . import spmdization  # noqa: F401  (registers mesh-spmdization)
    from . import fold_collectives  # noqa: F401  (registers mesh-fold-collectives)
    from . import convert_shard  # noqa: F401  (registers convert-mesh-to-shard, convert-shard-to-mesh)


_load_builtin_passes()

