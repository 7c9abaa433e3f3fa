"""qoslab: a deterministic, packet-level laboratory for network queuing and QoS.

The simulator itself is written in Rust; this package loads scenarios, runs them and
returns the measurements as pandas DataFrames.

    import qoslab

    results = qoslab.run("examples/voice-vs-flood.yaml", **{"interfaces.r1.r2.output": "pq"})
    print(results.flows[["flow", "loss_pct", "delay_p99_ms"]])
    results.write("results/voice-vs-flood-pq")

    sweep = qoslab.sweep(
        "examples/congestion-lab.yaml",
        vary={"interfaces.r1.r2.output": ["fifo", "wfq", "llq"]},
        reps=10,
        out="results/congestion-lab-sweep",
    )
    print(sweep.summary.flows)
    sweep = qoslab.load("results/congestion-lab-sweep")
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from qoslab import display
from qoslab._core import RunError, ScenarioError, __version__
from qoslab.load import load
from qoslab.readback import ReadError
from qoslab.run import Summary, run, schema, validate

if TYPE_CHECKING:
    from qoslab.experiment.engine import sweep
    from qoslab.experiment.failure import order_of_failure
    from qoslab.experiment.sweep import Sweep
    from qoslab.results import Results

_LAZY = {
    "Results": "qoslab.results",
    "Sweep": "qoslab.experiment.sweep",
    "order_of_failure": "qoslab.experiment.failure",
    "sweep": "qoslab.experiment.engine",
}
"""Where the names of the API that need pandas are defined: each module is imported when
one of its names is first asked for, so that a command loads pandas, pyarrow and matplotlib
only if it uses them. ``run`` and ``load`` are imported here, as their modules (light ones,
which import the rest when called) share their names."""

__all__ = [
    "ReadError",
    "Results",
    "RunError",
    "ScenarioError",
    "Summary",
    "Sweep",
    "__version__",
    "load",
    "order_of_failure",
    "run",
    "schema",
    "sweep",
    "validate",
]


def _notebook_html(results_or_sweep: Results | Sweep) -> str:
    """The short report a notebook shows (Jinja2 and matplotlib load with the first one)."""
    from qoslab.report.notebook import repr_html

    return repr_html(results_or_sweep)


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'qoslab' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


display.show_with(_notebook_html)
