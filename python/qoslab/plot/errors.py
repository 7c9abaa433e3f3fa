"""The error a plot raises when the data cannot give it."""

from __future__ import annotations


class PlotError(ValueError):
    """A plot asked of data that cannot give it: a table without rows, a metric not in the
    table, a run where a sweep is needed. The message names what is missing and the fix."""
