"""Readiness: how many calls of a codec (or copies of any flow) a policy and a link carry
while every call keeps its quality and every other application its budget — and, the other
way round, the cheapest link that carries a given number.

The counted flow is a traffic entry; its ``copies`` is the number of calls. A count is
**carried** when, over the replications (each seeded by the scenario's seed and its
number), the lower confidence bound (Student's t) of the worst call's MOS (ITU-T G.107, the
``voice`` table; a call that played nothing counts as MOS 1) reaches the MOS target — for a
codec flow — and every other budgeted
application's lower bound of its share of intervals in contract reaches the target share,
as the advisor judges a candidate (:func:`qoslab.advise.evaluate.contract_bounds`). A flow
that is not a codec is judged by its own budget instead of a MOS.

For each policy (the scenario as written and its variants), link and codec, the largest
count carried is found by bisection between the smallest and largest counts asked for,
assuming that a count not carried is not carried with one call more: the answer N comes
with the runs at N (carried) and at N + 1 (not), the latter's shortfall being the "why not
one more". Given a single count, every link is judged at it and the cheapest that carries
it is the answer for each policy and codec.

Links are varied as the advisor varies them: the interface's line rate, or on a sub-rate
handoff (:mod:`qoslab.advise.handoff`) the contract — the shaper's rate and the provider's
policer moved with it, the rest of the policy as written.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import pandas as pd

from qoslab._core import interface_output, sweep_plan
from qoslab.advise.error import AdviceError
from qoslab.advise.evaluate import Executor, contract_bounds
from qoslab.advise.problem import Located, locate
from qoslab.advise.rates import rate_words
from qoslab.analysis.summary import summarize
from qoslab.experiment.sweep import Tables
from qoslab.scenario import Scenario, ScenarioError

DEFAULT_MOS = 3.6
"""MOS target by default: R = 70 (ITU-T G.107's mapping), the lower edge of ITU-T G.109's
"medium" category of speech transmission quality, below which many users are
dissatisfied."""

MAX_CALLS = 1000
"""Largest count asked for: a thousand calls cross few access links."""


@dataclass(frozen=True)
class Setting:
    """One policy, link and codec whose calls are counted."""

    variant: str
    """The scenario's variant (``base``: as written)."""
    link_bps: int | None
    """The line's rate, or the contract on a handoff; None as the scenario has it."""
    codec: str | None
    """The codec of the calls; None for a flow that is not a codec."""


@dataclass(frozen=True)
class Count:
    """A number of calls judged under a setting."""

    calls: int
    carried: bool
    mos_low: float | None
    """Lower confidence bound of the worst call's MOS (None without a codec)."""
    low_pct: dict[str, float]
    """Each other budgeted application's lower bound of its share in contract, %."""
    shortfall: str
    """Why the count is not carried, in words (empty when it is)."""


@dataclass
class Verdict:
    """What is known of one setting."""

    setting: Setting
    counts: dict[int, Count] = field(default_factory=dict)

    def most(self, smallest: int) -> int:
        """The largest count carried (``smallest`` - 1 when not even ``smallest`` is)."""
        carried = [n for n, c in self.counts.items() if c.carried]
        return max(carried, default=smallest - 1)


@dataclass
class Readiness:
    """The outcome of :func:`readiness`."""

    flow: str
    interface: str
    handoff: bool
    calls: tuple[int, int]
    reps: int
    target_pct: float
    mos_target: float
    verdicts: list[Verdict]
    runs: int

    @property
    def reverse(self) -> bool:
        """Whether one count was asked for: the cheapest link is the answer."""
        return self.calls[0] == self.calls[1]

    def cheapest(self, variant: str, codec: str | None) -> Verdict | None:
        """The verdict of the cheapest link that carries the count (one count asked for)."""
        fitting = [
            v
            for v in self.verdicts
            if (v.setting.variant, v.setting.codec) == (variant, codec)
            and v.counts.get(self.calls[0], None) is not None
            and v.counts[self.calls[0]].carried
        ]
        return min(fitting, key=lambda v: v.setting.link_bps or 0, default=None)


def readiness(
    scenario: Scenario,
    *,
    flow: str,
    calls: tuple[int, int],
    codecs: tuple[str, ...] | None = None,
    variants: tuple[str, ...] | None = None,
    links: tuple[int, ...] | None = None,
    interface: str | None = None,
    reps: int = 5,
    target_pct: float = 95.0,
    mos_target: float = DEFAULT_MOS,
    confidence: float = 0.95,
    overrides: tuple[tuple[str, str], ...] = (),
    executor: Executor | None = None,
) -> Readiness:
    """The largest number of copies of the traffic entry ``flow`` (calls of each of
    ``codecs``, default its own) in ``calls`` (smallest, largest) that each of ``variants``
    (default: the scenario as written and every variant) carries on each of ``links``
    (default: the interface's link as written), or with one count asked for, which links
    carry it. Raises :class:`AdviceError` for a request that cannot be answered."""
    smallest, largest = calls
    if not 1 <= smallest <= largest <= MAX_CALLS:
        raise AdviceError(
            f"--calls {smallest}..{largest}: give counts from 1 to {MAX_CALLS}, the smaller first"
        )
    if reps < 2:
        raise AdviceError(f"--reps {reps}: a confidence bound needs at least 2 replications")
    if not 0 < target_pct <= 100:
        raise AdviceError(f"--target {target_pct:g}%: give a share above 0 and at most 100 %")
    if not 1 <= mos_target <= 4.5:
        raise AdviceError(f"--mos {mos_target:g}: give a MOS from 1 to 4.5 (ITU-T G.107's scale)")
    if not 0 < confidence < 1:
        raise AdviceError(f"--confidence {confidence:.0%}: give a level above 0 and below 100 %")
    located = locate(scenario, interface, overrides)
    entry = _entry(located, flow)
    written = entry.get("pattern")
    pattern: dict = written if isinstance(written, dict) else {}
    own_codec = pattern.get("codec") if pattern.get("kind") == "codec" else None
    if codecs and own_codec is None:
        raise AdviceError(
            f"--codecs: `{flow}` is not a codec flow (its pattern is "
            f"`{pattern.get('kind', 'an application')}`); count it without --codecs"
        )
    handoff = located.handoff
    above = [bps for bps in links or () if handoff is not None and bps > handoff.line_bps]
    if above:
        assert handoff is not None
        raise AdviceError(
            f"--links: {rate_words(above[0])} is above the interface's "
            f"{rate_words(handoff.line_bps)} line; list contracts the line can carry"
        )
    chosen_codecs: tuple[str | None, ...] = codecs or (own_codec,)
    defined = json.loads(sweep_plan(located.text, located.origin))["defined_variants"]
    chosen_variants = variants or ("base", *defined)
    for name in chosen_variants:
        if name != "base" and name not in defined:
            known = ", ".join(["base", *defined])
            raise AdviceError(f"--variants: `{name}` is not a variant of the scenario ({known})")
    options = {
        "reps": reps,
        "target_pct": target_pct,
        "mos_target": mos_target,
        "confidence": confidence,
        "overrides": overrides,
    }
    judge = _Judge(scenario, located, flow, options)
    verdicts = [
        Verdict(Setting(variant, link, codec))
        for variant in chosen_variants
        for link in (links or (None,))
        for codec in chosen_codecs
    ]
    wanted = [smallest] if smallest == largest else [smallest, largest]
    pending = {id(v): wanted for v in verdicts}
    executor = executor or Executor()
    while pending:
        batch = [(v, n) for v in verdicts for n in pending.get(id(v), ())]
        judged = judge.counts([(v.setting, n) for v, n in batch], executor)
        for (verdict, _), count in zip(batch, judged, strict=True):
            verdict.counts[count.calls] = count
        pending = {id(v): _next(v, smallest, largest) for v in verdicts}
        pending = {k: n for k, n in pending.items() if n}
    return Readiness(
        flow=flow,
        interface=located.interface.port,
        handoff=located.handoff is not None,
        calls=calls,
        reps=reps,
        target_pct=target_pct,
        mos_target=mos_target,
        verdicts=verdicts,
        runs=judge.runs,
    )


def _next(verdict: Verdict, smallest: int, largest: int) -> list[int]:
    """The count to judge next under ``verdict``'s setting: none once the largest carried
    and the smallest not carried are neighbours (or the bounds of the range)."""
    carried = [n for n, c in verdict.counts.items() if c.carried]
    refused = [n for n, c in verdict.counts.items() if not c.carried]
    low = max(carried, default=smallest - 1)
    high = min(refused, default=largest + 1)
    if high - low <= 1 or smallest == largest:
        return []
    return [(low + high) // 2]


def _entry(located: Located, flow: str) -> dict:
    """The traffic entry named ``flow``."""
    traffic = located.document.get("traffic") or []
    for entry in traffic:
        if isinstance(entry, dict) and entry.get("name") == flow:
            return entry
    names = ", ".join(str(e.get("name")) for e in traffic if isinstance(e, dict))
    raise AdviceError(f"--flow {flow}: no traffic entry of that name (the scenario has {names})")


class _Judge:
    """Runs counts of calls under settings, on the sweep engine, and judges them."""

    def __init__(self, scenario: Scenario, located: Located, flow: str, options: dict) -> None:
        self.scenario = scenario
        self.located = located
        self.flow = flow
        self.reps: int = options["reps"]
        self.target_pct: float = options["target_pct"]
        self.mos_target: float = options["mos_target"]
        self.confidence: float = options["confidence"]
        self.overrides: tuple[tuple[str, str], ...] = options["overrides"]
        self.runs = 0
        self.voice_key = _voice_key(located.document, flow)
        self.counted_app = _app_of(located.document, flow)

    def counts(self, batch: list[tuple[Setting, int]], executor: Executor) -> list[Count]:
        """Each (setting, count) of ``batch`` judged, in order: one sweep per variant."""
        changes = [self._changes(setting, calls) for setting, calls in batch]
        judged: dict[int, Count] = {}
        for variant in dict.fromkeys(setting.variant for setting, _ in batch):
            chosen = [i for i, (setting, _) in enumerate(batch) if setting.variant == variant]
            keys = [key for key, _ in changes[chosen[0]]]
            vary = {
                key: [changes[i][k][1] for i in chosen for _ in range(self.reps)]
                for k, key in enumerate(keys)
            }
            vary["run.replication"] = [str(r) for _ in chosen for r in range(self.reps)]
            try:
                done = executor.sweep(
                    self.scenario,
                    vary=vary,
                    zip=True,
                    variants=[variant],
                    set=[f"{key}={value}" for key, value in self.overrides],
                )
            except ScenarioError as error:
                raise AdviceError(f"a count was refused: {error}") from None
            self.runs += len(chosen) * self.reps
            if not done.failures.empty:
                failure = done.failures.iloc[0]
                raise AdviceError(f"a run failed: {failure['status']}: {failure['error']}")
            for i in chosen:
                values = tuple(value for _, value in changes[i])
                setting, calls = batch[i]
                judged[i] = self._judge(done.runs, keys, values, setting, calls)
        return [judged[i] for i in range(len(batch))]

    def _changes(self, setting: Setting, calls: int) -> list[tuple[str, str]]:
        """The scenario changes that run ``calls`` calls under ``setting``."""
        changes = [(f"traffic.{self.flow}.copies", str(calls))]
        if setting.codec is not None:
            changes.append((f"traffic.{self.flow}.pattern.codec", setting.codec))
            if self.voice_key is not None:
                changes.append((self.voice_key, setting.codec))
        if setting.link_bps is not None:
            changes += self._link(setting.variant, setting.link_bps)
        return changes

    def _link(self, variant: str, bps: int) -> list[tuple[str, str]]:
        """The changes that put the interface's line (or contract) at ``bps``."""
        located = self.located
        handoff = located.handoff
        if handoff is None:
            return [(located.interface.rate_key, f"{bps}bps")]
        name = f"{located.interface.node}.{located.interface.peer}"
        running = json.loads(
            interface_output(located.text, located.origin, name, list(self.overrides), variant)
        )
        output = running["output"]
        if running["from_ios"] or not isinstance(output, dict) or output.get("kind") != "tbf":
            raise AdviceError(
                f"--links on {located.interface.port}: variant `{variant}` does not shape the "
                "interface with a YAML `tbf` whose rate could be moved to each contract; give "
                "the contract in the policy and leave out --links"
            )
        shaped = json.dumps({**output, "rate": f"{bps}bps"})
        policer = handoff.policer_change(bps)
        return [(f"{located.interface.key}.output", shaped), *([policer] if policer else [])]

    def _judge(
        self, runs: Tables, keys: list[str], values: tuple[str, ...], setting: Setting, calls: int
    ) -> Count:
        """The count judged on its replications' tables."""
        contracts = _rows(runs.contracts, keys, values)
        budgeted = contracts["delay_budget_ms"].notna() | contracts["loss_budget_pct"].notna()
        judged = contracts[budgeted & ~contracts["app"].isin(["all", "quality"])]
        mos_low = None
        if setting.codec is not None:
            # The calls are judged by their MOS, in place of their application's budget.
            judged = judged[judged["app"] != self.counted_app]
            mos_low = self._mos_low(_rows(runs.voice, keys, values))
        low_pct = contract_bounds(judged, self.confidence)[0] if not judged.empty else {}
        short = []
        if mos_low is not None and mos_low < self.mos_target:
            short.append(f"worst call's MOS {mos_low:.2f}, below {self.mos_target:g}")
        for app, low in sorted(low_pct.items(), key=lambda item: (item[1], item[0])):
            if low < self.target_pct:
                short.append(f"`{app}` in contract {low:.1f} %, below {self.target_pct:g} %")
        return Count(
            calls=calls,
            carried=not short,
            mos_low=mos_low,
            low_pct={app: float(low) for app, low in low_pct.items()},
            shortfall="; ".join(short),
        )

    def _mos_low(self, voice: pd.DataFrame) -> float:
        """The lower confidence bound of the worst call's MOS over the replications."""
        flows = voice["flow"].astype(str)
        calls = voice[(flows == self.flow) | flows.str.startswith(f"{self.flow}.")]
        if calls.empty:
            raise AdviceError(
                f"--flow {self.flow}: its calls have no MOS (the `voice` table has no rows "
                "for them); name a codec flow"
            )
        # A call that played nothing has no rating: it counts as G.107's lowest MOS, 1.
        worst = calls.assign(mos=calls["mos"].fillna(1.0))
        worst = worst.groupby("replication")["mos"].min().reset_index()
        worst["what"] = "worst call"
        stats = summarize(worst, keys=["what"], metrics=["mos"], confidence=self.confidence)
        row = stats.iloc[0]
        bound = row["ci_low"] if row["n"] > 1 else row["mean"]
        return float(row["mean"] if math.isnan(bound) else bound)


def _rows(table: pd.DataFrame, keys: list[str], values: tuple[str, ...]) -> pd.DataFrame:
    """The rows of a sweep's table run with ``keys`` at ``values``, numbered by the
    replication each run was given (``run.replication``)."""
    chosen = pd.Series(True, index=table.index)
    for key, value in zip(keys, values, strict=True):
        chosen &= table[key].astype(str) == value
    rows = table[chosen]
    return rows.assign(replication=rows["run.replication"].astype(int))


def _voice_key(document: dict, flow: str) -> str | None:
    """The key of the codec ``measure.voice`` gives ``flow``, when it names one."""
    voice = (document.get("measure") or {}).get("voice") or {}
    for index, entry in enumerate(voice.get("flows") or []):
        if isinstance(entry, dict) and entry.get("flow") == flow and "codec" in entry:
            return f"measure.voice.flows[{index}].codec"
    return None


def _app_of(document: dict, flow: str) -> str:
    """The budgeted application the entry ``flow`` belongs to (its own name if none)."""
    for budget in (document.get("measure") or {}).get("budgets") or []:
        if isinstance(budget, dict) and flow in (budget.get("flows") or [budget.get("app")]):
            return str(budget.get("app"))
    return flow


def link_words(bps: int | None) -> str:
    """A setting's link for people."""
    return "as written" if bps is None else rate_words(bps)
