"""``qoslab advise``: the cheapest link and the queuing policy that keep every application
in its budget, checked under overload, written as IOS configuration.

:func:`advise` searches (:mod:`qoslab.advise.advisor`); :func:`write` puts the advice in a
folder (:mod:`qoslab.advise.document`).
"""

from __future__ import annotations

from qoslab.advise.advisor import DEFAULT_SPEEDS_BPS, Advice, advise
from qoslab.advise.error import AdviceError
from qoslab.advise.evaluate import Executor
from qoslab.advise.rates import parse_speeds, rate_text, rate_words
from qoslab.advise.template import TEMPLATES

__all__ = [
    "DEFAULT_SPEEDS_BPS",
    "TEMPLATES",
    "Advice",
    "AdviceError",
    "Executor",
    "advise",
    "parse_speeds",
    "rate_text",
    "rate_words",
]
