"""Whether each verdict survives what the study leaves unsaid.

A study folder picks a value for every testbed parameter the study does not give (a
transmit ring, a think time, a probe period), and a verdict may hinge on that pick. Each
such assumption can be declared as a range in ``study.yaml`` (``sensitivity``: the scenario
keys it sets and the two ends of the values the study's context and the vendor's documents
allow, cited). The experiments it concerns are then run again at each end, with the same
replications and seeds, and every published value is judged again on those runs, the other
experiments' runs unchanged. An end that is the folder's own value is not run again (its
outcomes are the study's own), and a range may run some of its experiments' variants only
(a long timeline's base run) when no value judged on them is read at another. A value
whose outcome is the same at both ends of every range is **robust**; otherwise the outcome
at each end that changes it is kept, for the page to say which assumption the verdict
depends on and what it would become.
"""

from __future__ import annotations

from dataclasses import dataclass

from qoslab.experiment.release import release
from qoslab.output import folder_name
from qoslab.reproduce.judged import Judged, judge_all
from qoslab.reproduce.measure import Measurements
from qoslab.reproduce.model import Study
from qoslab.reproduce.run import Ran, Setting, run_experiment


@dataclass(frozen=True)
class Change:
    """A value's outcome at one end of an assumption's range, where it differs."""

    assumption: str
    end: str
    outcome: str


@dataclass(frozen=True)
class Robustness:
    """How a value's outcome fares over the ranges of the study's assumptions."""

    changes: tuple[Change, ...] = ()

    @property
    def robust(self) -> bool:
        """Whether the outcome is the same at both ends of every range."""
        return not self.changes

    def text(self) -> str:
        """What the outcome depends on, in words: ``tx-ring 1 packet → differs``; empty when
        robust."""
        return "; ".join(f"{c.assumption} {c.end} → {c.outcome}" for c in self.changes)


def outcomes_at_ends(
    study: Study, setting: Setting, ran: Ran
) -> dict[tuple[str, str], dict[str, str]]:
    """Every published value's outcome at each end of each range of ``study.sensitivity``
    (keyed by assumption and end, then by id; empty when the study declares none), but
    the end that is the folder's own value, whose outcomes are the study's own. The
    runs of the ends are read and let go one end at a time, before the study's own runs
    (``ran``, whose sweeps of the other experiments are shared) are read for its
    documents, so that no two copies of an experiment's tables are held at once; the
    warnings of the ends' runs go into ``ran``."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for assumption in study.sensitivity:
        for end in assumption.run_ends:
            sweeps = dict(ran.sweeps)
            for name in assumption.experiments:
                sweeps[name] = run_experiment(
                    study,
                    study.experiments[name],
                    setting,
                    ran.warnings,
                    changes=assumption.ends.settings_at(end),
                    folder=folder_name(f"{name}@{assumption.name}={end}"),
                    only=assumption.variants,
                )
            out[assumption.name, end] = {
                j.row.id: j.outcome for j in judge_all(Measurements(study, sweeps))
            }
            # This end's runs go, and their memory with them, before the next end runs.
            del sweeps
            release()
    return out


def robustness(
    judged: list[Judged], at_ends: dict[tuple[str, str], dict[str, str]]
) -> dict[str, Robustness]:
    """Each value's robustness, by id: its outcome at each end (``at_ends``, from
    :func:`outcomes_at_ends`) where that differs from its outcome on the study's own runs
    (``judged``); empty when the study declares no ranges."""
    if not at_ends:
        return {}
    return {
        j.row.id: Robustness(
            tuple(
                Change(assumption, end, outcomes[j.row.id])
                for (assumption, end), outcomes in at_ends.items()
                if outcomes[j.row.id] != j.outcome
            )
        )
        for j in judged
    }
