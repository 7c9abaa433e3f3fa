"""``qoslab.load``: what a results folder holds, read back."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from qoslab.output import OutputError

if TYPE_CHECKING:
    from qoslab.experiment.sweep import Sweep
    from qoslab.results import Results


def load(directory: str | os.PathLike[str]) -> Results | Sweep:
    """The :class:`Sweep` written by ``qoslab sweep`` or :func:`qoslab.sweep`, or the
    :class:`Results` written by ``qoslab run`` or :meth:`Results.write`, in ``directory``
    (with the run's per-packet trace, ``Results.trace()``, when the folder holds one).

    Raises ``qoslab.output.OutputError`` for a folder that holds neither.
    """
    # Imported here, so that importing qoslab does not load pandas and pyarrow.
    from qoslab.experiment.store import MANIFEST
    from qoslab.experiment.sweep import Sweep
    from qoslab.results import RESULTS_JSON, Results
    from qoslab.trace import TRACE_PARQUET

    path = Path(directory)
    if (path / MANIFEST).is_file():
        return Sweep.load(path)
    if (path / RESULTS_JSON).is_file():
        trace = path / TRACE_PARQUET
        return Results(
            (path / RESULTS_JSON).read_text(encoding="utf-8"),
            trace_path=trace if trace.is_file() else None,
        )
    raise OutputError(
        f"{path}: holds neither a sweep ({MANIFEST}) nor a run's results ({RESULTS_JSON}). "
        "Give the folder a sweep or a run wrote"
    )
