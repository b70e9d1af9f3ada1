"""A numpy SPMD simulator for mesh programs.

* :mod:`.collectives`: every collective of spec 001 over the devices of a
  static mesh;
* :mod:`.payload`: numpy semantics of the payload ops (every op with a
  sharding rule, plus what spmdization emits);
* :mod:`.machine`: running functions, globally (:func:`simulate`) or on
  every device (:func:`simulate_spmd`, :func:`simulate_devices`).
"""

from . import collectives
from .machine import Machine, assemble, distribute, function_mesh, simulate, simulate_devices, simulate_spmd
from .payload import SimulationError, register_evaluator

__all__ = [
    "Machine",
    "SimulationError",
    "assemble",
    "collectives",
    "distribute",
    "function_mesh",
    "register_evaluator",
    "simulate",
    "simulate_devices",
    "simulate_spmd",
]
