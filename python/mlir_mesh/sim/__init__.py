"""A numpy SPMD simulator for mesh programs.

:mod:`.collectives` implements every collective of spec 001 over the
devices of a static mesh.  Running whole functions (global and SPMD modes)
is the work of issue 4 and not here yet.
"""

from . import collectives

__all__ = ["collectives"]
