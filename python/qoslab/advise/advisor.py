"""``advise``: the cheapest link and a policy of a template family that keep every budgeted
application in contract, checked under overload and written as IOS configuration.

The steps: read the problem from a calibration run (:mod:`qoslab.advise.problem`); scan the
candidate link speeds from the cheapest, searching the template's grid at each
(:mod:`qoslab.advise.search`); at the first feasible speed, raise the offered load in steps
by slowing the line under the same configuration (the interface keeps its QoS bandwidth, so
the policy's rates stay as configured) and, with a declared order of failure, recommend the
best candidate that fails in that order; run the recommended settings at two speeds above,
for the picture of in-contract share against speed; write the policy as IOS text, read that
text back into the scenario and check that it runs identically — or, for a Linux router
(``target_os="linux"``), as the tc commands ``qoslab tc export`` writes (its round trip
through the kernel is checked by the test suite, `docs/linux.md`).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass

import pandas as pd

from qoslab._core import ScenarioError, ios_from_yaml, tc_from_yaml
from qoslab.advise.error import AdviceError
from qoslab.advise.evaluate import Evaluator, Executor, Score, ranked
from qoslab.advise.problem import Problem, read_problem
from qoslab.advise.progress import AdviceProgress
from qoslab.advise.rates import rate_text, rate_words
from qoslab.advise.search import SpeedResult, estimate_runs, same_settings, search_speed
from qoslab.advise.template import (
    LINUX_TEMPLATE,
    TEMPLATES,
    Candidate,
    Class,
    candidates,
    classes,
)
from qoslab.experiment.failure import order_of_failure
from qoslab.run import run
from qoslab.scenario import Scenario

DEFAULT_SPEEDS_BPS = (
    64_000,
    128_000,
    256_000,
    384_000,
    512_000,
    768_000,
    1_024_000,
    1_536_000,
    2_048_000,
    4_096_000,
    6_144_000,
    10_000_000,
    20_000_000,
    45_000_000,
    100_000_000,
)
"""Candidate link speeds: the usual serial and leased-line rates, then Ethernet's."""

OVERLOAD_FACTORS = (1.0, 1.25, 1.5, 2.0, 3.0, 4.0)
"""Offered load relative to the link, step by step: the line runs at speed / factor."""

ORDER_TRIES = 8
"""Candidates at most whose overload check is run in search of one that fails in the
declared order."""

CURVE_SPEEDS_ABOVE = 2
"""Speeds above the recommended one at which its settings are also run (for the picture)."""


@dataclass
class Advice:
    """The outcome of :func:`advise`."""

    problem: Problem
    template: str
    classes: list[Class]
    speeds: list[SpeedResult]
    recommended: Score | None
    curve: list[tuple[int, Score]]
    overload: pd.DataFrame | None
    overload_shares: pd.DataFrame | None
    config: str | None
    """The recommended policy as the router's configuration: IOS text, or a tc script."""
    config_file: str
    """The file the configuration is written to: ``policy.ios`` or ``policy.tc``."""
    config_interface: str
    """The interface's name on the router: IOS's (``Serial0/0/0``) or a Linux device."""
    identical: bool | None
    """Whether the IOS text, read back into the scenario, runs identically (None for tc)."""
    order_examined: int
    """Candidates whose overload check was run to find one that fails in the declared
    order (0 without a declared order)."""
    runs: int
    """Every run made: the calibration, the search, the overload steps and the IOS check."""

    @property
    def linux(self) -> bool:
        """Whether the advice is for a Linux router."""
        return self.problem.target_os == "linux"

    elapsed_s: float

    @property
    def feasible(self) -> bool:
        """Whether some speed and policy meet the target."""
        return self.recommended is not None

    @property
    def order_holds(self) -> bool | None:
        """Whether the applications fail in the declared order under overload (None without
        a declared order or a recommendation)."""
        if self.overload is None:
            return None
        return bool((self.overload["fails_before"] == "").all())


def advise(
    scenario: Scenario,
    *,
    speeds: tuple[int, ...] = DEFAULT_SPEEDS_BPS,
    template: str = "llq",
    interface: str | None = None,
    reps: int = 5,
    target_pct: float = 95.0,
    confidence: float = 0.95,
    overrides: tuple[tuple[str, str], ...] = (),
    executor: Executor | None = None,
    ios_interface: str | None = None,
    progress: bool | None = None,
    scheduler: str | None = None,
    target_os: str = "ios",
    device: str | None = None,
) -> Advice:
    """Search ``speeds`` and the ``template`` family for the cheapest link and best policy
    that keep every budgeted application of ``scenario`` in contract in at least
    ``target_pct`` % of intervals (lower ``confidence`` bound over ``reps`` replications).
    ``progress`` draws a bar on stderr (default: when stderr is a terminal): the runs done
    of an estimate made before the first, the speed being tried and the best so far.
    ``scheduler`` is the IOS class scheduler to write the policy for (default: the one the
    scenario's policy runs under). ``target_os="linux"`` writes the advice for a Linux
    router instead: the ``htb`` family, as tc commands for ``device`` (default eth0). On a
    sub-rate handoff the speeds are contracts under a shaper, on the line as the scenario
    has it (:mod:`qoslab.advise.handoff`).

    Raises :class:`AdviceError` for a request that cannot be answered (no budgets, a
    template that cannot tell the applications apart, bad options).
    """
    started = time.monotonic()
    template = _family(template, target_os, scheduler, ios_interface, device)
    _check_judgement(reps, target_pct, confidence, speeds)
    problem = read_problem(
        scenario,
        interface=interface,
        overrides=overrides,
        target_pct=target_pct,
        confidence=confidence,
        scheduler=scheduler,
        target_os=target_os,
    )
    speeds = _within_line(problem, speeds)
    made = classes(problem, template)
    base = problem.kept_settings
    name = _router_name(problem, ios_interface, device)
    _check_config(problem, made, speeds, base, name)
    executor = executor or Executor()
    search = sum(estimate_runs(problem, made, s, base, reps) for s in speeds)
    after = _after_search_runs(reps, CURVE_SPEEDS_ABOVE, target_os == "ios")
    what = "contracts" if problem.handoff is not None else "link speeds"
    heading = (
        f"advise: up to {search} runs to search {len(speeds)} {what}, cheapest first "
        f"(stopping at the first that meets the target), then about {after} to check the answer"
    )
    shown = sys.stderr.isatty() if progress is None else progress
    bar = AdviceProgress(search + after, heading, shown=shown)
    try:
        evaluator = Evaluator(problem, executor, reps, on_runs=bar.ran)
        scanned: list[SpeedResult] = []
        for speed in speeds:
            bar.trying(rate_words(speed))
            result = search_speed(problem, made, speed, base, evaluator)
            scanned.append(result)
            if result.best is not None:
                bar.best(_verdict(result))
            if result.feasible:
                break
        if not any(s.scores for s in scanned):
            raise AdviceError(
                f"--links: every candidate speed is below what the traffic needs: at "
                f"{rate_text(speeds[-1])}, {scanned[-1].reason}. Offer faster links"
            )
        recommended = scanned[-1].best if scanned[-1].feasible else None
        if recommended is not None:
            above = [s for s in speeds if s > recommended.candidate.speed_bps]
            bar.expect(
                bar.done
                + _after_search_runs(reps, min(len(above), CURVE_SPEEDS_ABOVE), target_os == "ios")
            )
        else:
            bar.expect(bar.done)
        curve: list[tuple[int, Score]] = []
        overload = shares = None
        config = None
        identical = None
        examined = 0
        if recommended is not None:
            bar.trying("the overload check")
            recommended, overload, shares, examined = _choose(
                problem, scanned[-1], evaluator, executor, bar
            )
            curve = _curve(problem, made, base, evaluator, recommended, scanned, speeds)
            config = _config(problem, recommended.candidate, name)
            identical = _runs_identically(problem, recommended, config, name, base, bar)
    finally:
        bar.stop()
    return Advice(
        problem=problem,
        template=template,
        classes=made,
        speeds=scanned,
        recommended=recommended,
        curve=curve,
        overload=overload,
        overload_shares=shares,
        config=config,
        config_file="policy.tc" if target_os == "linux" else "policy.ios",
        config_interface=name,
        identical=identical,
        order_examined=examined,
        runs=1
        + evaluator.runs
        + (_checks(max(examined, 1), target_os == "ios") if recommended else 0),
        elapsed_s=time.monotonic() - started,
    )


def _family(
    template: str,
    target_os: str,
    scheduler: str | None,
    ios_interface: str | None,
    device: str | None,
) -> str:
    """The policy family for the router ``target_os``; options that describe the other
    router are refused."""
    if target_os not in ("ios", "linux"):
        raise AdviceError(f"--target-os {target_os}: unknown; give ios or linux")
    if target_os == "ios":
        if template not in TEMPLATES:
            known = ", ".join(TEMPLATES)
            raise AdviceError(f"--template {template}: unknown; give one of {known}")
        if device is not None:
            raise AdviceError(f"--dev {device}: a Linux device; give --target-os linux with it")
        return template
    if template not in ("llq", LINUX_TEMPLATE):
        raise AdviceError(
            f"--template {template}: an IOS family; for a Linux router the family is "
            f"{LINUX_TEMPLATE} (leave --template out)"
        )
    if scheduler is not None or ios_interface is not None:
        raise AdviceError(
            "--router and --ios-name describe an IOS router; with --target-os linux give --dev"
        )
    return LINUX_TEMPLATE


def _check_judgement(
    reps: int, target_pct: float, confidence: float, speeds: tuple[int, ...]
) -> None:
    """Refuse replications, a target, a confidence or speeds no advice can be judged by."""
    if reps < 2:
        raise AdviceError(f"--reps {reps}: a confidence bound needs at least 2 replications")
    if not 0 < target_pct <= 100:
        raise AdviceError(f"--target {target_pct:g}%: give a share above 0 and at most 100 %")
    if not 0 < confidence < 1:
        raise AdviceError(f"--confidence {confidence:.0%}: give a level above 0 and below 100 %")
    if not speeds:
        raise AdviceError("--links: give at least one link speed")


def _router_name(problem: Problem, ios_interface: str | None, device: str | None) -> str:
    """The interface's name on the router the advice is for: the Linux device (default
    eth0), or IOS's name (default Serial0/0/0 on serial links, GigabitEthernet0/0 else)."""
    if problem.target_os == "linux":
        return device or "eth0"
    return ios_interface or ("Serial0/0/0" if problem.interface.serial else "GigabitEthernet0/0")


def _within_line(problem: Problem, speeds: tuple[int, ...]) -> tuple[int, ...]:
    """On a handoff, the speeds (contracts) the line can carry: all of those listed, or
    an error naming those it cannot."""
    handoff = problem.handoff
    if handoff is None:
        return speeds
    kept = tuple(s for s in speeds if s <= handoff.line_bps)
    if not kept:
        raise AdviceError(
            f"--links: every contract listed is above the interface's "
            f"{rate_words(handoff.line_bps)} line; list contracts the line can carry"
        )
    return kept


def _verdict(result: SpeedResult) -> str:
    """A speed's outcome in a few words: it meets the target, or how near its best
    candidate's weakest application comes."""
    speed = rate_words(result.speed_bps)
    best = result.best
    if result.feasible or best is None or best.failed is not None:
        return f"{speed} {'meets the target' if result.feasible else 'failed'}"
    return f"{speed}, {best.weakest} {best.low_pct[best.weakest]:.1f} % in contract"


def _after_search_runs(reps: int, speeds_above: int, ios: bool) -> int:
    """The runs after the search when the first candidate tried is recommended: its
    overload steps, its settings at ``speeds_above`` speeds above, and (``ios``) the IOS
    text's two runs (with a declared order, each further candidate tried adds its overload
    steps)."""
    return _checks(1, ios) + speeds_above * reps


def _checks(tried: int, ios: bool) -> int:
    """The runs made after the search besides the evaluator's: the overload steps of each
    of the ``tried`` candidates and (``ios``) the two runs that compare the IOS text with
    the YAML policy."""
    return tried * len(OVERLOAD_FACTORS) + (2 if ios else 0)


def _choose(
    problem: Problem,
    found: SpeedResult,
    evaluator: Evaluator,
    executor: Executor,
    bar: AdviceProgress,
) -> tuple[Score, pd.DataFrame | None, pd.DataFrame, int]:
    """The recommended candidate at the speed found, with its overload check: with a
    declared order of failure, the first candidate in rank order (of those in contract
    with the replications they had, up to :data:`ORDER_TRIES`) that meets the target with
    every replication and fails in the declared order; else, or if none does, the best.
    Candidates that differ only in queue limit or WRED behave alike under overload more
    often than not, so only the best of each priority level, bandwidth level, ring and
    LFI setting is tried."""
    best = found.scores[0]
    if not problem.order:
        table, shares = _overload(problem, best, executor, bar)
        return best, table, shares, 0
    pool = []
    shapes = set()
    for score in found.scores:
        shape = score.candidate.principal
        if score.margin_pct >= 0 and score.failed is None and shape not in shapes:
            shapes.add(shape)
            pool.append(score)
    first: tuple[Score, pd.DataFrame | None, pd.DataFrame] | None = None
    examined = 0
    for score in pool[:ORDER_TRIES]:
        (full,) = evaluator.scores([score.candidate], evaluator.full_reps)
        if not full.meets_target:
            continue
        _replace(found, full)
        examined += 1
        table, shares = _overload(problem, full, executor, bar)
        assert table is not None, "asked for with an order of failure"
        if first is None:
            first = (full, table, shares)
        if (table["fails_before"] == "").all():
            return full, table, shares, examined
    assert first is not None
    return (*first, examined)


def _replace(found: SpeedResult, score: Score) -> None:
    """Put ``score`` in place of its candidate's earlier one, and rank again."""
    others = [s for s in found.scores if s.candidate is not score.candidate]
    found.scores[:] = ranked([*others, score])


def _curve(
    problem: Problem,
    made: list[Class],
    base: dict,
    evaluator: Evaluator,
    recommended: Score,
    scanned: list[SpeedResult],
    speeds: tuple[int, ...],
) -> list[tuple[int, Score]]:
    """In-contract evidence against link speed: at each speed searched, the best candidate
    found there (the recommended one at its speed); at the few speeds above, the
    recommended settings."""
    chosen = recommended.candidate.speed_bps
    points = [
        (s.speed_bps, s.best) for s in scanned if s.best is not None and s.speed_bps != chosen
    ]
    points.append((chosen, recommended))
    above = [speed for speed in speeds if speed > chosen][:CURVE_SPEEDS_ABOVE]
    for speed in above:
        twin = same_settings(recommended.candidate, candidates(problem, made, speed, base))
        if twin is not None:
            (score,) = evaluator.scores([twin], evaluator.full_reps)
            points.append((speed, score))
    return points


def _overload(
    problem: Problem, recommended: Score, executor: Executor, bar: AdviceProgress
) -> tuple[pd.DataFrame | None, pd.DataFrame]:
    interface = problem.interface
    speed = recommended.candidate.speed_bps
    rates = [f"{round(speed / factor)}bps" for factor in OVERLOAD_FACTORS]
    done = executor.sweep(
        problem.scenario,
        vary={interface.rate_key: rates},
        set=problem.assignments(*recommended.candidate.changes[1:]),
        reps=1,
    )
    bar.ran(len(rates))
    contracts = done.runs.contracts
    point = str(contracts["point"].iloc[0])
    interval = float(contracts["interval_ms"].iloc[0])
    budgeted = [a.name for a in problem.budgeted]
    rows = contracts[
        (contracts["point"] == point)
        & (contracts["interval_ms"] == interval)
        & contracts["app"].isin(budgeted)
    ]
    factor_of = dict(zip(rates, OVERLOAD_FACTORS, strict=True))
    shares = pd.DataFrame(
        {
            "load_factor": rows[interface.rate_key].map(factor_of).to_numpy(),
            "line_bps": [round(speed / factor_of[r]) for r in rows[interface.rate_key]],
            "point": point,
            "interval_ms": interval,
            "app": rows["app"].to_numpy(),
            "in_contract_pct": rows["in_contract_pct"].to_numpy(),
            "consumption_mean": rows["consumption_mean"].to_numpy(),
        }
    )
    if not problem.order:
        return None, shares
    table = order_of_failure(done, min_in_contract_pct=problem.target_pct)
    table["first_failure_at"] = table["first_failure_at"].map(
        lambda r: "never" if pd.isna(r) else f"x{factor_of[str(r)]:g}"
    )
    return table, shares


def _check_config(
    problem: Problem, made: list[Class], speeds: tuple[int, ...], base: dict, name: str
) -> None:
    """Refuse, before any run, a request whose advice the router could not take: the first
    policy of each speed is written as its configuration, and what IOS's checker or tc
    export refuses is blamed on the option that asked for it (``--ios-name``, ``--dev``,
    ``--links``)."""
    what = "tc commands" if problem.target_os == "linux" else "IOS configuration"
    for speed in speeds:
        pool = candidates(problem, made, speed, base)
        if not pool:
            continue
        try:
            _config(problem, pool[0], name)
        except ScenarioError as error:
            said = str(error)
            if "interface name" in said or "IOS interface" in said:
                option = f"--ios-name {name}"
            elif "Linux device name" in said:
                option = f"--dev {name}"
            elif "bit/s" in said or "kbit/s" in said:
                option = f"--links {rate_text(speed)}"
            else:
                option = "the scenario"
            reason = said.rsplit(": ", 1)[-1] if ": " in said else said
            raise AdviceError(
                f"{option}: the advice could not be written as {what} ({reason})"
            ) from None


def _config(problem: Problem, candidate: Candidate, name: str) -> str:
    """The candidate's policy as the router's configuration: IOS text for interface
    ``name``, or the tc commands for Linux device ``name``."""
    interface = problem.interface
    settings = [*problem.overrides, *candidate.changes]
    port = f"{interface.node}.{interface.peer}"
    if problem.target_os == "linux":
        return tc_from_yaml(problem.text, problem.origin, port, name, settings, None)
    return ios_from_yaml(problem.text, problem.origin, port, name, settings, None)


def _runs_identically(
    problem: Problem, recommended: Score, ios: str, name: str, base: dict, bar: AdviceProgress
) -> bool | None:
    """Whether the scenario configured from the IOS text gives the same contracts and flows
    tables as from the recommended YAML settings (replication 0); None for a Linux router,
    whose tc script is not read back (the test suite checks tc export through the kernel)."""
    if problem.target_os == "linux":
        return None
    bar.ran(2)
    interface = problem.interface
    rate, settings, *policer = recommended.candidate.changes
    imported = {"ios": {"config": ios, "interface": name}}
    if "observe" in base:
        imported["observe"] = base["observe"]
    from_yaml = run(problem.scenario, set=problem.assignments(rate, settings, *policer))
    from_ios = run(
        problem.scenario,
        set=problem.assignments(rate, (interface.key, json.dumps(imported)), *policer),
    )
    return from_yaml.contracts.equals(from_ios.contracts) and from_yaml.flows.equals(from_ios.flows)
