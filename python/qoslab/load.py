"""``qoslab.load``: what a results folder holds, read back."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from qoslab.readback import ReadError, exists, open_folder, read_text

if TYPE_CHECKING:
    from qoslab.experiment.sweep import Sweep
    from qoslab.results import Results


def load(directory: str | os.PathLike[str]) -> Results | Sweep:
    """The :class:`Sweep` written by ``qoslab sweep`` or :func:`qoslab.sweep`, or the
    :class:`Results` written by ``qoslab run`` or :meth:`Results.write`, in ``directory``
    (with the run's per-packet trace, ``Results.trace()``, when the folder holds one).

    Raises ``qoslab.readback.ReadError``, naming the file and what is wrong with it, for a
    folder that holds neither, or whose files do not read as a run or a sweep wrote them
    (edited, truncated, damaged, or links to other files).
    """
    # Imported here, so that importing qoslab does not load pandas and pyarrow.
    from qoslab.experiment.store import MANIFEST
    from qoslab.experiment.sweep import Sweep
    from qoslab.results import RESULTS_JSON, Results
    from qoslab.trace import TRACE_PARQUET

    path = Path(directory)
    folder = open_folder(path)
    try:
        if exists(folder, MANIFEST):
            return Sweep.load(path)
        if exists(folder, RESULTS_JSON):
            text = read_text(folder, RESULTS_JSON, path / RESULTS_JSON)
            trace = None
            if exists(folder, TRACE_PARQUET):
                # pyarrow opens the trace by its path when it is asked for: a link is
                # refused here.
                _check_regular(folder, TRACE_PARQUET, path / TRACE_PARQUET)
                trace = path / TRACE_PARQUET
            return Results.read(text, path / RESULTS_JSON, trace_path=trace)
    finally:
        os.close(folder)
    raise ReadError(
        path,
        f"holds neither a sweep ({MANIFEST}) nor a run's results ({RESULTS_JSON})",
        "Give the folder a sweep or a run wrote",
    )


def _check_regular(folder: int, name: str, shown: Path) -> None:
    mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
    if not stat.S_ISREG(mode):
        raise ReadError(
            shown, "is not a regular file", "qoslab reads only the files a folder holds itself"
        )
