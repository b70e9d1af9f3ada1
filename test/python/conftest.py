import pytest

import mlir_mesh
from mlir_mesh import ir


@pytest.fixture
def ctx():
    """A context with the mesh dialect loaded, entered, with an unknown location."""
    with mlir_mesh.Context() as context, ir.Location.unknown():
        yield context
