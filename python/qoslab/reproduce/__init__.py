"""``qoslab reproduce``: each of the studies qoslab was built from, run again with one
command and set beside what was published.

:func:`reproduce` reads a study folder (:mod:`qoslab.reproduce.study`), runs its
experiments on the sweep engine (:mod:`qoslab.reproduce.run`), reads its metrics from the
runs (:mod:`qoslab.reproduce.measure`), judges every published value
(:mod:`qoslab.analysis.verdict`), judges them again at the ends of the ranges of its
assumptions (:mod:`qoslab.reproduce.sensitivity`) and writes the documents
(:mod:`qoslab.reproduce.document`). :func:`catalogue` lists the five studies, reproduced
or not yet.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from qoslab._core import __version__
from qoslab.reproduce import document
from qoslab.reproduce.judged import Judged, judge_all
from qoslab.reproduce.located import StudyError, read
from qoslab.reproduce.measure import Measurements
from qoslab.reproduce.model import STUDIES, Study
from qoslab.reproduce.run import Ran, Setting, run_study
from qoslab.reproduce.sensitivity import Robustness, outcomes_at_ends, robustness
from qoslab.reproduce.study import load, names


@dataclass(frozen=True)
class Reproduction:
    """A study reproduced: the study, the runs, every verdict and the files written."""

    study: Study
    ran: Ran
    judged: list[Judged]
    written: document.Written
    robustness: dict[str, Robustness]


def reproduce(
    name: str | Path, folder: str | Path, setting: Setting, command: str, *, index: bool = False
) -> Reproduction:
    """Reproduces the study ``name`` (installed, or a folder) into ``folder``; ``command``
    is the command line shown at the top of the documents. The folder is checked before the
    runs (with ``index``, for the index too): ``qoslab.output.OutputError`` if a document
    could not be written there."""
    study = load(name)
    document.check(study.name, Path(folder), index=index)
    ran = run_study(study, setting)
    at_ends = outcomes_at_ends(study, setting, ran)
    measured = Measurements(study, ran.sweeps)
    judged = judge_all(measured)
    robust = robustness(judged, at_ends)
    written = document.write(
        study, measured, judged, robust, ran, Path(folder), command, __version__
    )
    return Reproduction(study, ran, judged, written, robust)


def catalogue() -> dict[str, str]:
    """The five source studies by short name, with what each is, reproduced or not."""
    doc = read(STUDIES / "catalogue.yaml", "studies/catalogue.yaml")
    return {name: item.text() for name, item in doc.mapping().items()}


def has_index(folder: str | Path) -> bool:
    """Whether ``folder`` holds an index a reproduction wrote, which each reproduction
    into the folder updates."""
    return document.has_index(Path(folder))


def write_index(done: Mapping[str, document.Written], folder: str | Path, command: str) -> Path:
    """``README.md`` in ``folder``: every study of the catalogue with its verdict counts,
    from ``done`` (what the reproductions done now wrote, by study) or from the verdicts
    already in ``folder``."""
    tallies = {name: written.tally for name, written in done.items()}
    return document.index(catalogue(), tallies, Path(folder), command, __version__)


__all__ = [
    "Reproduction",
    "Setting",
    "StudyError",
    "catalogue",
    "has_index",
    "names",
    "reproduce",
    "write_index",
]
