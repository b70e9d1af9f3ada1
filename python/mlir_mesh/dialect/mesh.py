"""The Python module of the mesh dialect, as ``mlir.dialects.func`` is for func.

``from mlir_mesh.dialect import mesh`` gives every op class
(``mesh.AllGatherOp``, ...).  The bindings also import this module when they
first meet a mesh op (``mlir_mesh.dialect`` is registered as a dialect
search prefix), so they find it once instead of failing to import
``<bindings>.dialects.mesh`` on every op they wrap.
"""

from .ops import *  # noqa: F401,F403
from .ops import __all__  # noqa: F401
