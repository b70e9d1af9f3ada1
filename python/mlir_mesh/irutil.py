"""Small IR helpers shared by the passes."""

from __future__ import annotations

from ._mlir import ir


def attributes(op) -> dict:
    """The attributes of ``op`` as a name -> attribute dict."""
    attrs = op.attributes
    return {a.name: a.attr for a in (attrs[i] for i in range(len(attrs)))}


def rebuild(op, operands, result_types, ip=None):
    """A copy of ``op`` with new operands and result types; its regions are moved over.

    ``op`` is left with empty regions, ready to be erased or replaced.
    """
    op = op.operation if hasattr(op, "operation") else op
    new = ir.Operation.create(
        op.name, results=result_types, operands=operands, attributes=attributes(op),
        regions=len(op.regions), loc=op.location, ip=ip,
    )
    for old_region, new_region in zip(op.regions, new.regions):
        for block in list(old_region.blocks):
            block.append_to(new_region)
    return new


def defining_op(value, *names):
    """The op defining ``value`` if it is one of ``names`` (any op if none given), else None."""
    owner = value.owner
    if not isinstance(owner, ir.OpView):
        return None
    op = owner.operation
    return op if not names or op.name in names else None


def only_user(value):
    """The op using ``value`` if exactly one op uses it (maybe several times), else None."""
    user = None
    for use in value.uses:
        if user is not None and use.owner != user:
            return None
        user = use.owner
    return user


def walk(op):
    """Every op nested in ``op`` (not ``op`` itself), in pre-order."""
    op = op.operation if hasattr(op, "operation") else op
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                child = child.operation
                yield child
                yield from walk(child)
