"""Candidate policies of a template family, within what IOS accepts.

A template turns the applications crossing the interface into classes and spans a small
grid of settings for one link speed:

* **classes.** Each budgeted application gets a class of its own, matched by its DSCP when no
  other application crossing the interface carries that DSCP, else by protocol and its
  server port in either direction (an access list). Applications without a budget share
  ``class-default``, which is fair-queued. With ``llq``, an application is a priority class
  when it is UDP (inelastic: it does not back off under loss), has a delay limit of at
  most :data:`PRIORITY_DELAY_MS` (per hop where its budget gives one, else end to end) and
  is smooth (its one-second peak at most :data:`BURSTY_PEAK_RATIO` times its mean). A UDP
  application held only by a jitter limit, or tight but bursty — a variable-rate video
  conference — is tried both ways, in a priority class and in a bandwidth class, and the
  runs decide; under IOS XE's scheduler, beside a priority class that stays at level 1, also
  at priority level 2 (``priority level 2``: served after level 1, before every bandwidth
  class). Every other class has a bandwidth; with ``cbwfq`` every class has one. The policy
  is written for the router's class scheduler (pre-HQF, HQF or IOS XE;
  ``docs/qdisc/cbwfq.md``).
* **priority rate** of each priority class: its mean, its one-second peak or 1.25 x that
  peak, in whole kbit/s with layer-2 headers, with the policer's burst at IOS's default
  (200 ms at the rate); or its mean with a burst of one second at the rate (IOS ``priority
  KBPS [BURST]``).
* **bandwidth** of each other class: 1, 1.5 or 2 x its mean or its one-second peak, with
  layer-2 headers; all that may be reserved, shared in proportion to the means; or, when the
  scenario declares an order of failure, 1, 1.5, 2 ... x the mean from the class declared to
  fail first to the last, so that the later ones keep their rate longer (IOS ``bandwidth
  KBPS``). A TCP class asks for no more than an equal share of what the UDP classes leave.
* **queue limit**: IOS's 64 packets, or what drains within the class's delay limit at its
  bandwidth (IOS ``queue-limit``, 2 to 64 packets).
* **WRED** (IOS ``random-detect dscp-based``) on the TCP classes, or not.
* **transmit ring**: the scenario's, or one packet (IOS ``tx-ring-limit 1``): a packet of
  a priority class waits behind at most one frame already handed to the interface.
* **LFI** (``ppp multilink fragment delay 10``) on a PPP link whose largest frame takes more
  than 10 ms, or not (IOS fragments and interleaves with multilink PPP only).

Pre-HQF IOS admits a policy whose reservations (priority plus bandwidth) fit within
``max-reserved-bandwidth`` (75 % of the interface bandwidth by default, up to 100 %;
Cisco IOS Quality of Service Solutions Command Reference, ``max-reserved-bandwidth``), and
rates from 8 kbit/s (``priority``, ``bandwidth``). A grid point whose classes do not fit at
75 % raises ``max-reserved-bandwidth`` to 100 %; one that does not fit at 100 % either is
shrunk in proportion, and left out if even 8 kbit/s a class does not fit. A child policy
under a shaper has no ``max-reserved-bandwidth`` of its own (an interface command), so it
fits within 75 % of the shaping rate; HQF and IOS XE admit reservations up to the whole
bandwidth.

On a sub-rate handoff (:mod:`qoslab.advise.handoff`) the speed is the contract: the policy
is the child of a shaper at the speed, on the line as it is, and the transmit ring is kept
(it drains at the line's rate).

For a Linux router (``htb``, ``--target-os linux``) the classes are placed as with ``llq``
and each grid point's policy becomes an HTB tree (``docs/qdisc/htb.md``): a root class at the
speed (on a handoff the contract: the root shapes, so no shaper is needed), a priority class
as a leaf at ``prio 0`` with the priority rate as its rate, a bandwidth class as a leaf at
``prio 1`` with its bandwidth as its rate and its queue limit as its ``pfifo``, and
``class-default`` at ``prio 1`` with what the others leave (at least 8 kbit/s), every leaf
borrowing up to the root. Reservations may take the whole speed. WRED, LFI and IOS XE's second
priority level have no place in it (tc export writes no RED, Linux has no multilink
fragmentation).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass, field, replace

from qoslab.advise.error import AdviceError
from qoslab.advise.handoff import shaper_bursts
from qoslab.advise.problem import App, Problem
from qoslab.advise.rates import kbps_ceiling

TEMPLATES = ("llq", "cbwfq")
"""The IOS policy families."""

LINUX_TEMPLATE = "htb"
"""The Linux policy family."""
"""The template families: LLQ (priority and bandwidth classes) and CBWFQ (bandwidth only)."""

PRIORITY_DELAY_MS = 150.0
"""Largest delay limit for which an inelastic application goes to a priority class in the
``llq`` template: ITU-T G.114's bound on one-way delay for interactive voice."""

BURSTY_PEAK_RATIO = 1.5
"""One-second peak over mean above which an application is bursty: a priority class's
policer, sized for its mean, would drop its peaks, and one sized for its peaks takes that
much more from the other classes, so the ``llq`` template tries it both ways."""

LEVELS = {"priority": 1, "level 2": 2}
"""The priority level of each place a class tried both ways may have."""

MIN_RATE_KBPS = 8
"""IOS's smallest ``priority`` and ``bandwidth`` rate."""

DEFAULT_QUEUE_LIMIT = 64
"""IOS's default class queue limit, packets."""

DEFAULT_MAX_RESERVED_PCT = 75
"""IOS's default ``max-reserved-bandwidth``."""

LFI_DELAY_MS = 10
"""Fragment delay of the LFI candidates: the usual target for voice."""

PRIORITY_LEVELS = ("mean", "mean, 1 s burst", "peak", "1.25 peak")

LONG_BURST_S = 1.0
"""Depth of the policer of the ``mean, 1 s burst`` level, in seconds at the priority rate:
enough to carry a class's one-second peaks at its mean rate."""

MAX_BURST_BYTES = 2_000_000
"""IOS's largest ``priority`` burst."""
BANDWIDTH_LEVELS = ("1 mean", "1.5 mean", "2 mean", "peak", "fill", "by order")

ORDER_STEP = 0.5
"""With the ``by order`` level, how much more of its ask each class gets than the class
declared to fail just before it."""

DEFAULT_CLASS = "class-default"

HTB_ROOT = "link"
"""The name of the HTB tree's root class (no application's class takes it)."""
"""IOS's class of everything no other class matches."""

IOS_WORDS = ("match-all", "match-any", "type")
"""Words IOS reads after ``class-map`` that cannot name a class."""

MAX_IOS_NAME_CHARS = 40
"""Longest class-map name the advice writes (IOS takes them longer; kept short to read)."""


@dataclass(frozen=True)
class Class:
    """One class of the template: its application, its name in IOS and how it is matched
    and served."""

    app: App
    match: dict
    priority: bool
    """Whether the class is a priority class (in a candidate: whether it is placed there)."""
    name: str
    """The class map's name: the application's, made an IOS name (:func:`ios_name`)."""
    movable: bool = False
    """Whether the template tries the class both in priority and with a bandwidth."""
    reason: str = ""
    """Why the class is served as it is, in words."""
    level: int = 1
    """Its priority level (IOS XE ``priority level``), when it is a priority class."""


@dataclass(frozen=True)
class Candidate:
    """One policy of the grid at one link speed, with the settings that made it."""

    speed_bps: int
    placed: tuple[str, ...]
    """The classes tried both ways that this candidate puts in priority (level 1)."""
    second: tuple[str, ...]
    """The classes tried both ways that this candidate puts at priority level 2."""
    priority_level: str
    bandwidth_level: str
    queue_limit: str
    wred: bool
    lfi: bool
    tx_ring: int | None
    """The transmit ring set by the advice; None keeps the scenario's."""
    policy: dict
    reserved_kbps: int
    settings: dict = field(compare=False)
    """The interface's settings in the scenario: output, bandwidth, LFI and transmit ring,
    beside those the advice keeps."""
    changes: tuple[tuple[str, str], ...] = field(compare=False)
    """The scenario changes that run this candidate: the link's rate (the speed; on a
    handoff, the line's own), the interface's settings and, on a handoff the provider
    polices, the policer at the contract."""
    shaper_reason: str = field(default="", compare=False)
    """On a handoff, why the shaper has the bursts it has."""

    @property
    def principal(self) -> tuple:
        """The settings that shape the policy: all but queue limits and WRED."""
        return (
            self.placed,
            self.second,
            self.priority_level,
            self.bandwidth_level,
            self.lfi,
            self.tx_ring,
        )

    @property
    def grid_point(self) -> tuple:
        """Every grid setting the candidate was made with, whatever the speed."""
        return (*self.principal, self.queue_limit, self.wred)

    @property
    def label(self) -> str:
        """A short description of the settings."""
        parts = [f"{', '.join(self.placed)} in priority"] if self.placed else []
        if self.second:
            parts.append(f"{', '.join(self.second)} in priority level 2")
        if self.priority_level != "-":
            parts.append(f"priority {self.priority_level}")
        parts.append(f"bandwidth {self.bandwidth_level}")
        parts.append(f"queue {self.queue_limit}")
        parts.append("WRED" if self.wred else "no WRED")
        if self.lfi:
            parts.append(f"LFI {LFI_DELAY_MS} ms")
        if self.tx_ring is not None:
            parts.append(f"tx-ring-limit {self.tx_ring}")
        return ", ".join(parts)


def classes(problem: Problem, template: str) -> list[Class]:
    """The template's classes for the budgeted applications, in the contracts' order."""
    made: list[Class] = []
    # IOS XE's second priority level is tried beside a class that is always at the first.
    fixed = any(_placement(a, template, "priority")[0] == "priority" for a in problem.budgeted)
    ways = "priority levels 1 and 2" if problem.scheduler == "xe" and fixed else "priority"
    for app in problem.budgeted:
        others = [a for a in problem.apps if a is not app]
        shared = sorted({d for a in others for d in a.dscps} & set(app.dscps))
        if not shared:
            match: dict = {"dscp": list(app.dscps)}
        else:
            clash = [
                a.name
                for a in others
                if set(a.server_ports) & set(app.server_ports) or not app.server_ports
            ]
            if clash:
                mate = next(a.name for a in others if shared[0] in a.dscps)
                raise AdviceError(
                    f"the {template} template classifies by DSCP or by protocol and server "
                    f"port, and `{app.name}` shares DSCP {shared[0]} with `{mate}` and its "
                    f"ports with `{clash[0]}`: mark the applications differently "
                    "(traffic[].dscp) so that a class map can tell them apart"
                )
            match = {
                "any": [
                    {"protocol": protocol, side: port}
                    for protocol, port in app.server_ports
                    for side in ("dst_port", "src_port")
                ]
            }
        taken = {c.name.lower() for c in made} | {DEFAULT_CLASS, HTB_ROOT}
        placement, reason = _placement(app, template, ways)
        made.append(
            Class(
                app,
                match,
                placement != "bandwidth",
                ios_name(app.name, taken),
                movable=placement == "either",
                reason=reason,
            )
        )
    return made


def _placement(app: App, template: str, ways: str) -> tuple[str, str]:
    """Where the template serves ``app`` — ``priority``, ``bandwidth`` or ``either`` (both
    are tried: ``ways`` says which priority places) — and why, in words."""
    if template == "cbwfq":
        return "bandwidth", "the cbwfq template gives every class a bandwidth"
    if app.elastic:
        return "bandwidth", "TCP: it backs off under loss, so it needs no priority"
    delay = app.delay_limit_ms
    burst = app.peak_l2_bps / app.mean_l2_bps if app.mean_l2_bps > 0 else 1.0
    tight = delay is not None and delay <= PRIORITY_DELAY_MS
    limit = "no delay limit" if delay is None else f"a {delay:g} ms delay limit"
    if tight and burst <= BURSTY_PEAK_RATIO:
        return "priority", f"UDP, smooth (peak {burst:.1f} x mean), {limit}"
    if tight:
        return "either", (
            f"UDP with {limit} but bursty (peak {burst:.1f} x mean): "
            f"{ways} and bandwidth compared by runs"
        )
    if app.jitter_limited:
        return "either", (
            f"UDP held by a jitter limit, with {limit}: {ways} and bandwidth compared by runs"
        )
    return "bandwidth", f"UDP with {limit} and no jitter limit: a bandwidth keeps it"


def ios_name(name: str, taken: set[str]) -> str:
    """``name`` as an IOS class-map name: letters, digits, ``-``, ``_`` and ``.``, every run
    of other characters one ``-`` (``web video`` → ``web-video``), not one of IOS's words
    (``match-all``, ``match-any``, ``type``) and not in ``taken`` (lower case; a number is
    added), at most :data:`MAX_IOS_NAME_CHARS` long."""
    kept = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")[:MAX_IOS_NAME_CHARS] or "app"
    if kept.lower() in IOS_WORDS:
        kept = f"app-{kept}"
    candidate, number = kept, 2
    while candidate.lower() in taken:
        candidate = f"{kept[: MAX_IOS_NAME_CHARS - 4]}-{number}"
        number += 1
    return candidate


def infeasible(problem: Problem, made: list[Class], speed_bps: int) -> str | None:
    """Why no policy can work at ``speed_bps``, by arithmetic alone; None if one may."""
    speed = _kbit(speed_bps)
    noun = "link" if problem.handoff is None else "contract"
    priority = sum(c.app.mean_l2_bps for c in made if c.priority and not c.movable)
    if priority > speed_bps:
        return (
            f"the priority traffic offers {_kbit(priority)} kbit/s with its layer-2 headers, "
            f"more than the {speed} kbit/s {noun}"
        )
    inelastic = sum(c.app.mean_l2_bps for c in made if not c.app.elastic)
    if inelastic > speed_bps:
        return (
            f"the budgeted UDP applications offer {_kbit(inelastic)} kbit/s with their "
            f"layer-2 headers, more than the {speed} kbit/s {noun} carries"
        )
    return None


def candidates(problem: Problem, made: list[Class], speed_bps: int, base: dict) -> list[Candidate]:
    """Every distinct admissible policy of the grid at ``speed_bps``; ``base`` holds the
    interface's other settings in the scenario (kept as they are). A class tried both ways
    is placed in priority, then (under IOS XE, beside a priority class that stays at level
    1) at priority level 2, then with a bandwidth (all such classes in priority first)."""
    largest = max(app.largest_bytes for app in problem.apps)
    linux = problem.target_os == "linux"
    lfi_options = [False]
    if (
        problem.interface.l2 == "ppp"
        and largest * 8 * 1000 / speed_bps > LFI_DELAY_MS
        and not linux
    ):
        lfi_options.append(True)
    # On a handoff the ring drains at the line's rate, far above the contract's.
    keep_ring = base.get("tx_ring") == 1 or problem.handoff is not None
    rings: tuple[int | None, ...] = (None,) if keep_ring else (None, 1)
    movable = [c.name for c in made if c.movable]
    options = ["priority", "bandwidth"]
    if problem.scheduler == "xe" and not linux and any(c.priority and not c.movable for c in made):
        options.insert(1, "level 2")
    found: dict[str, Candidate] = {}
    for choice in itertools.product(options, repeat=len(movable)):
        place = dict(zip(movable, choice, strict=True))
        arranged = [
            replace(
                c,
                priority=place[c.name] != "bandwidth",
                level=2 if place[c.name] == "level 2" else 1,
            )
            if c.movable
            else c
            for c in made
        ]
        placed = tuple(n for n in movable if place[n] == "priority")
        second = tuple(n for n in movable if place[n] == "level 2")
        _add_candidates(
            found, problem, arranged, (placed, second), speed_bps, base, lfi_options, rings
        )
    return list(found.values())


def _add_candidates(
    found: dict[str, Candidate],
    problem: Problem,
    made: list[Class],
    placed: tuple[tuple[str, ...], tuple[str, ...]],
    speed_bps: int,
    base: dict,
    lfi_options: list[bool],
    rings: tuple[int | None, ...],
) -> None:
    """Adds to ``found`` the grid's distinct admissible policies with the classes ``made``
    placed as they are; ``placed`` names the classes tried both ways that are at priority
    levels 1 and 2."""
    speed_kbps = speed_bps // 1000
    linux = problem.target_os == "linux"
    has_priority = any(c.priority for c in made)
    has_elastic = any(c.app.elastic and not c.priority for c in made) and not linux
    grid = itertools.product(
        PRIORITY_LEVELS if has_priority else ("-",),
        BANDWIDTH_LEVELS,
        ("default", "delay"),
        (False, True) if has_elastic else (False,),
        lfi_options,
        rings,
    )
    for priority_level, bandwidth_level, queue_limit, wred, lfi, ring in grid:
        if bandwidth_level == "by order" and not problem.order:
            continue
        made_policy = _policy(
            made,
            speed_kbps,
            (priority_level, bandwidth_level, queue_limit, wred),
            problem.order,
            _reservation_steps(
                "xe" if linux else problem.scheduler, shaped=problem.handoff is not None
            ),
        )
        if made_policy is None:
            continue
        policy, reserved_kbps = made_policy
        if linux:
            policy = _as_htb(policy, speed_kbps)
        elif problem.scheduler != "pre-hqf":
            policy = {"kind": "cbwfq", "scheduler": problem.scheduler, **policy}
        settings, line, policer, why = _interface_settings(problem, made, policy, speed_bps, base)
        if lfi:
            settings["lfi"] = {"fragment_delay": f"{LFI_DELAY_MS}ms"}
        if ring is not None:
            settings["tx_ring"] = ring
        changes = (line, (problem.interface.key, json.dumps(settings)), *policer)
        key = json.dumps(settings, sort_keys=True)
        if key in found:
            continue
        found[key] = Candidate(
            speed_bps=speed_bps,
            placed=placed[0],
            second=placed[1],
            priority_level=priority_level,
            bandwidth_level=bandwidth_level,
            queue_limit=queue_limit,
            wred=wred,
            lfi=lfi,
            tx_ring=ring,
            policy=policy,
            reserved_kbps=reserved_kbps,
            settings=settings,
            changes=changes,
            shaper_reason=why,
        )


def _interface_settings(
    problem: Problem, made: list[Class], policy: dict, speed_bps: int, base: dict
) -> tuple[dict, tuple[str, str], tuple[tuple[str, str], ...], str]:
    """The interface's settings with ``policy`` at ``speed_bps``, the change of the line's
    rate, the change of the provider's policer (none or one) and, on a handoff, why the
    shaper has its bursts. A flat interface gets the policy with its QoS bandwidth at the
    speed, on a line of that speed; a handoff a shaper at the speed over the policy, on its
    line as it is, with the provider's policer at the speed."""
    interface = problem.interface
    handoff = problem.handoff
    if handoff is None:
        settings = {**base, "output": policy, "bandwidth": f"{speed_bps // 1000}kbps"}
        return settings, (interface.rate_key, f"{speed_bps}bps"), (), ""
    policer = handoff.policer_change(speed_bps)
    line = (interface.rate_key, f"{handoff.line_bps}bps")
    if policy["kind"] == "htb":
        why = "HTB's root class at the contract shapes the traffic"
        return {**base, "output": policy}, line, () if policer is None else (policer,), why
    bursts, why = shaper_bursts(
        speed_bps,
        max(app.largest_bytes for app in problem.apps),
        any(c.app.delay_limit_ms is not None for c in made),
        handoff.policer_bc_bytes(speed_bps),
    )
    shaper = {"kind": "tbf", "rate": f"{speed_bps}bps", **bursts, "child": policy}
    return {**base, "output": shaper}, line, () if policer is None else (policer,), why


def _reservation_steps(scheduler: str, *, shaped: bool) -> tuple[tuple[int, bool], ...]:
    """The reservation limits (% of the policy's bandwidth) a policy is fitted into, in
    turn, each without and then with shrinking: pre-HQF IOS admits 75 % by default and
    ``max-reserved-bandwidth`` raises it to 100 %, an interface command that a child policy
    under a shaper does not have; HQF admits 100 % and IOS XE lets the classes take it all
    (``docs/qdisc/cbwfq.md``, ``max_reserved``)."""
    if scheduler != "pre-hqf":
        return ((100, False), (100, True))
    if shaped:
        return ((DEFAULT_MAX_RESERVED_PCT, False), (DEFAULT_MAX_RESERVED_PCT, True))
    return ((DEFAULT_MAX_RESERVED_PCT, False), (100, False), (100, True))


def _policy(
    made: list[Class],
    speed_kbps: int,
    levels: tuple[str, str, str, bool],
    order: tuple[str, ...],
    steps: tuple[tuple[int, bool], ...],
) -> tuple[dict, int] | None:
    """The policy at these grid settings (priority level, bandwidth level, queue limit,
    WRED) and the kbit/s it reserves, fitted into the reservation limits ``steps`` in turn;
    None if IOS would not admit it."""
    priority_level, bandwidth_level, queue_limit, wred = levels
    priorities = {
        c.app.name: max(MIN_RATE_KBPS, kbps_ceiling(_priority_bps(c.app, priority_level)))
        for c in made
        if c.priority
    }
    plain = [c for c in made if not c.priority]
    for max_reserved, shrink in steps:
        reservable = speed_kbps * max_reserved // 100 - sum(priorities.values())
        shares = _bandwidths(plain, bandwidth_level, reservable, order, shrink=shrink)
        if shares is not None:
            break
    else:
        return None
    rows = []
    for c in made:
        row: dict = {"name": c.name, "match": c.match}
        if c.priority:
            row["priority"] = f"{priorities[c.app.name]}kbps"
            if c.level != 1:
                row["priority_level"] = c.level
            if priority_level == "mean, 1 s burst":
                burst = priorities[c.app.name] * 1000 * LONG_BURST_S / 8
                row["burst"] = f"{min(MAX_BURST_BYTES, round(burst))}B"
        else:
            kbps = shares[c.app.name]
            row["bandwidth"] = f"{kbps}kbps"
            if queue_limit == "delay" and c.app.delay_limit_ms is not None:
                row["queue_limit"] = _delay_queue_limit(c.app, kbps)
            if wred and c.app.elastic:
                row["random_detect"] = {"based_on": "dscp"}
        rows.append(row)
    rows.append({"name": DEFAULT_CLASS, "fair_queue": True})
    policy: dict = {"kind": "cbwfq", "classes": rows}
    if max_reserved != steps[0][0]:
        policy["max_reserved"] = f"{max_reserved}%"
    return policy, sum(priorities.values()) + sum(shares.values())


def _as_htb(policy: dict, speed_kbps: int) -> dict:
    """The CBWFQ ``policy`` at ``speed_kbps`` as an HTB tree: a root class at the speed, each
    priority class a ``prio 0`` leaf at its rate, each bandwidth class a ``prio 1`` leaf at its
    bandwidth with its queue limit, ``class-default`` a ``prio 1`` leaf with what is left;
    every leaf may borrow up to the root."""
    root = HTB_ROOT
    ceil = f"{speed_kbps}kbps"
    tree: list[dict] = [{"name": root, "rate": ceil}]
    reserved_kbps = 0
    for row in policy["classes"]:
        if row["name"] == DEFAULT_CLASS:
            continue
        rate = row.get("priority", row.get("bandwidth"))
        reserved_kbps += int(rate.removesuffix("kbps"))
        leaf = {"name": row["name"], "parent": root, "rate": rate, "ceil": ceil}
        leaf |= {"prio": 0 if "priority" in row else 1, "match": row["match"]}
        if "burst" in row:
            leaf["burst"] = row["burst"]
        if "queue_limit" in row:
            leaf["limit"] = row["queue_limit"]
        tree.append(leaf)
    rest = max(MIN_RATE_KBPS, speed_kbps - reserved_kbps)
    tree.append(
        {"name": DEFAULT_CLASS, "parent": root, "rate": f"{rest}kbps", "ceil": ceil, "prio": 1}
    )
    return {"kind": "htb", "classes": tree, "default": DEFAULT_CLASS}


def _priority_bps(app: App, level: str) -> float:
    if level.startswith("mean"):
        return app.mean_l2_bps
    return app.peak_l2_bps if level == "peak" else 1.25 * app.peak_l2_bps


def _bandwidths(
    plain: list[Class], level: str, reservable_kbps: int, order: tuple[str, ...], *, shrink: bool
) -> dict[str, int] | None:
    """Each bandwidth class's kbit/s at ``level``, within ``reservable_kbps``: None if they
    do not fit, unless ``shrink``, which shrinks them in proportion (None if even the
    smallest rates do not fit).

    An inelastic application asks for its mean (its peak at ``peak``) times the level's
    factor; an elastic one the same, but no more than an equal share of what the inelastic
    ones leave, since a TCP transfer without an end takes all it is given and its rate on
    the fast calibration link says nothing of its need. ``fill`` shares all that may be
    reserved in proportion to those asks."""
    if not plain:
        return {} if reservable_kbps >= 0 else None
    if len(plain) * MIN_RATE_KBPS > reservable_kbps:
        return None
    factor = _factors(plain, level, order)
    peak = level == "peak"
    asked = {
        c.app.name: factor[c.app.name] * (c.app.peak_l2_bps if peak else c.app.mean_l2_bps)
        for c in plain
    }
    elastic = [c.app.name for c in plain if c.app.elastic]
    fixed = sum(v for n, v in asked.items() if n not in elastic)
    share = max(reservable_kbps * 1000 - fixed, 0.0) / len(elastic) if elastic else 0.0
    wanted = {n: min(v, share) if n in elastic else v for n, v in asked.items()}
    if level == "fill":
        total = sum(max(w, 1.0) for w in wanted.values())
        wanted = {n: reservable_kbps * 1000 * max(w, 1.0) / total for n, w in wanted.items()}
    kbps = {n: max(MIN_RATE_KBPS, kbps_ceiling(bps)) for n, bps in wanted.items()}
    if sum(kbps.values()) > reservable_kbps:
        if not shrink:
            return None
        scale = reservable_kbps / sum(kbps.values())
        kbps = {n: max(MIN_RATE_KBPS, math.floor(k * scale)) for n, k in kbps.items()}
        while sum(kbps.values()) > reservable_kbps:
            largest = max(kbps, key=lambda n: (kbps[n], n))
            kbps[largest] -= 1
    return kbps


def _factors(plain: list[Class], level: str, order: tuple[str, ...]) -> dict[str, float]:
    """Each class's multiple of its ask: the level's, or with ``by order`` 1 for the class
    declared to fail first and ORDER_STEP more for each later one (classes the order does
    not name count as failing first)."""
    if level != "by order":
        factor = 1.0 if level in ("peak", "fill") else float(level.split()[0])
        return {c.app.name: factor for c in plain}
    ranked = sorted(plain, key=lambda c: order.index(c.app.name) if c.app.name in order else -1)
    return {c.app.name: 1.0 + ORDER_STEP * i for i, c in enumerate(ranked)}


def _delay_queue_limit(app: App, kbps: int) -> int:
    """Packets of the application's largest size that leave within its delay limit at
    ``kbps``: a longer queue could only deliver them late."""
    assert app.delay_limit_ms is not None
    packets = math.floor(app.delay_limit_ms / 1000 * kbps * 1000 / (8 * app.largest_bytes))
    return min(DEFAULT_QUEUE_LIMIT, max(2, packets))


def _kbit(bps: float) -> str:
    return f"{bps / 1000:,.1f}"
