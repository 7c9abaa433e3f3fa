"""Running a study's experiments: one sweep each, on the sweep engine (local cores or a
Dask cluster), at the study's replications or a quick setting for checks."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from qoslab.experiment.engine import sweep
from qoslab.experiment.sweep import Sweep
from qoslab.reproduce.model import Experiment, Study


@dataclass
class Setting:
    """How a study is run: ``quick`` (the study's quick setting: fewer replications, shorter
    runs), ``replications`` (instead of the study's), the executor and its ``jobs`` or
    ``scheduler``, and ``runs`` (a folder to keep every run in; without it a private
    temporary folder, removed with the sweeps)."""

    quick: bool = False
    replications: int | None = None
    jobs: int | None = None
    executor: str = "local"
    scheduler: object = None
    runs: Path | None = None
    progress: bool | None = None


@dataclass
class Ran:
    """What running a study gave: a sweep per experiment, the replications used, the wall
    time, and the warnings the sweeps gave."""

    sweeps: dict[str, Sweep]
    replications: dict[str, int]
    seconds: float
    warnings: list[str] = field(default_factory=list)

    @property
    def took(self) -> str:
        """The wall time as the documents print it: to a tenth of a second under 10 s (quick
        runs, and runs found done in a ``--runs`` folder, take less than one), whole seconds
        above."""
        if self.seconds < 0.05:
            return "under 0.1 s"
        return f"{self.seconds:.1f} s" if self.seconds < 9.95 else f"{self.seconds:.0f} s"


def run_study(study: Study, setting: Setting) -> Ran:
    """Runs every experiment of ``study`` as ``setting`` says."""
    start = time.perf_counter()
    sweeps: dict[str, Sweep] = {}
    replications: dict[str, int] = {}
    warnings: list[str] = []
    for experiment in study.experiments.values():
        sweeps[experiment.name] = run_experiment(study, experiment, setting, warnings)
        replications[experiment.name] = _replications(study, experiment, setting)
    return Ran(sweeps, replications, time.perf_counter() - start, warnings)


def run_experiment(
    study: Study,
    experiment: Experiment,
    setting: Setting,
    warnings: list[str],
    changes: dict[str, str] | None = None,
    folder: str | None = None,
    only: tuple[str, ...] | None = None,
) -> Sweep:
    """Runs one experiment of ``study`` as ``setting`` says, with the scenario ``changes``
    (an assumption set to one end of its range) on top of the experiment's own, kept in the
    runs folder under ``folder`` (default the experiment's name); ``only`` those of its
    variants (None: all those the setting runs)."""
    overrides = dict(experiment.overrides)
    variants = list(experiment.variants) if experiment.variants is not None else None
    if setting.quick:
        overrides.update(study.quick.overrides)
        overrides.update(experiment.quick_overrides)
        if experiment.quick_variants is not None:
            variants = list(experiment.quick_variants)
    if only is not None and variants is not None:
        variants = [v for v in variants if v in only]
    overrides.update(changes or {})
    return sweep(
        str(experiment.scenario),
        vary={
            key: [axis.settings_at(value)[key] for value in axis.values]
            for axis in experiment.axes
            for key in axis.keys
        },
        # The keys of one axis advance together.
        zip=[axis.keys for axis in experiment.axes if len(axis.keys) > 1],
        variants=variants,
        reps=_replications(study, experiment, setting),
        set=overrides,
        jobs=setting.jobs,
        executor=setting.executor,
        scheduler=setting.scheduler,
        out=setting.runs / (folder or experiment.name) if setting.runs is not None else None,
        resume=setting.runs is not None,
        progress=setting.progress,
        warn=partial(_warn, warnings, folder or experiment.name),
        use_section=False,
    )


def _replications(study: Study, experiment: Experiment, setting: Setting) -> int:
    """The replications of ``experiment``: the setting's, the quick setting's, the
    experiment's own or the study's."""
    return setting.replications or (
        study.quick.replications if setting.quick else experiment.replications or study.replications
    )


def _warn(warnings: list[str], experiment: str, message: str) -> None:
    """Keeps ``message``, a warning of ``experiment``'s sweep."""
    warnings.append(f"{experiment}: {message}")
