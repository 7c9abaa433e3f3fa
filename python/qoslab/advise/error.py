"""The advisor's refusal: a scenario or request it cannot work from."""

from __future__ import annotations


class AdviceError(ValueError):
    """A scenario or request the advisor cannot work from, with the reason and the fix."""
