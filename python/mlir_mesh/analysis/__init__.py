"""Analyses of per-device (spmdized) programs."""

from .comm import CommReport, CommRow, comm_report, collective_bytes

__all__ = ["CommReport", "CommRow", "comm_report", "collective_bytes"]
