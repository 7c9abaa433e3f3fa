"""What an advice is asked for: the interface to configure, the applications crossing it with
their budgets and measured rates, and the quality target.

The applications are read from one calibration run of the scenario as written, with the
interface's link at :data:`CALIBRATION_BPS`, but at most half the slowest other link's (so
that the interface stays the bottleneck and nothing is lost before it), and a long FIFO:
what arrives at the interface is what the applications offer. The calibration does not
depend on the speeds searched, so neither do the candidates a speed is judged by. The
``flows`` table gives each flow's protocol, ports, DSCP and packet size, the ``hops`` table
which flows cross the interface, the ``contracts`` table each application's budgets and its
offered load with layer-2 framing, and the 1-second ``series`` its peak.

The interface's policy as the scenario runs it (written in YAML or read from IOS) says two
more things: whether it is a sub-rate handoff (:mod:`qoslab.advise.handoff`), and the IOS
class scheduler of the router (that of its CBWFQ policy, at the root or under a shaper;
pre-HQF IOS's without one), in which the advice is written unless another is asked for.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pandas as pd
import yaml

from qoslab._core import interface_output
from qoslab.advise.error import AdviceError
from qoslab.advise.handoff import Handoff, find_handoff
from qoslab.advise.rates import parse_rate
from qoslab.results import Results
from qoslab.run import run, validate
from qoslab.scenario import Scenario, scenario_text

PEAK_INTERVAL = "1s"
"""Interval over which an application's peak rate is measured: a priority class's policer
holds 200 ms of its rate by default, so a one-second peak is what it must carry."""

CALIBRATION_BPS = 100_000_000
"""Rate of the calibration link: the fastest of the advisor's default candidate speeds,
whatever speeds a request lists (a TCP application offers what the link lets it, so a
calibration at the fastest listed speed would change the problem, and every speed's
verdict, with the list)."""

CALIBRATION_QUEUE_PACKETS = 1000
"""FIFO limit of the calibration run: long enough that nothing is dropped at the interface."""


KEPT_KEYS = ("tx_ring", "input", "observe")
"""Interface settings the advice leaves as the scenario has them."""

SCHEDULERS = ("pre-hqf", "hqf", "xe")
"""The IOS class schedulers a CBWFQ policy may run under (``scheduler``)."""


@dataclass(frozen=True)
class Interface:
    """The egress interface the advice configures: NODE's output towards PEER."""

    node: str
    peer: str
    link_index: int
    l2: str

    @property
    def key(self) -> str:
        """The scenario key of the interface's settings."""
        return f"interfaces.{self.node}.{self.peer}"

    @property
    def port(self) -> str:
        """The port's name in the results."""
        return f"{self.node}->{self.peer}"

    @property
    def rate_key(self) -> str:
        """The scenario key of the link's physical rate."""
        return f"topology.links[{self.link_index}].rate"

    @property
    def serial(self) -> bool:
        """Whether the link is a serial (HDLC or PPP) line, where IOS fragments with LFI."""
        return self.l2 in ("hdlc", "ppp")


@dataclass(frozen=True)
class App:
    """An application crossing the interface, as the calibration run saw it."""

    name: str
    budgeted: bool
    protocols: tuple[str, ...]
    dscps: tuple[int, ...]
    server_ports: tuple[tuple[str, int], ...]
    """``(protocol, port)`` of the application's well-known port, in either direction."""
    mean_l2_bps: float
    peak_l2_bps: float
    largest_bytes: int
    delay_limit_ms: float | None
    """The delay the application may spend at this interface: its per-hop delay budget, or
    else its end-to-end one; None without a delay budget."""
    jitter_limited: bool
    """Whether its budget limits jitter."""

    @property
    def elastic(self) -> bool:
        """TCP traffic, which backs off under loss (WRED is meant for it)."""
        return "tcp" in self.protocols


@dataclass(frozen=True)
class Problem:
    """Everything the search works from."""

    scenario: Scenario
    text: str
    origin: str
    name: str
    interface: Interface
    overrides: tuple[tuple[str, str], ...]
    apps: tuple[App, ...]
    order: tuple[str, ...]
    kept_settings: dict
    """The interface's settings in the scenario that the advice keeps: all but its queuing,
    bandwidth, LFI and scheduled changes."""
    target_pct: float
    confidence: float
    handoff: Handoff | None
    """The sub-rate service on the interface, if it is one: the advice searches the
    contract, under a shaper, on the line as it is."""
    scheduler: str
    """The IOS class scheduler the advice is written for (one of :data:`SCHEDULERS`)."""
    target_os: str = "ios"
    """The router the advice is written for: ``ios`` (Cisco IOS, a CBWFQ/LLQ policy) or
    ``linux`` (an HTB tree written as tc commands)."""

    def assignments(self, *pairs: tuple[str, str]) -> list[str]:
        """The scenario's ``--set`` overrides followed by ``pairs``, as ``KEY=VALUE``."""
        return [f"{key}={value}" for key, value in (*self.overrides, *pairs)]

    @property
    def budgeted(self) -> list[App]:
        """The applications with a budget, in the order of the contracts table."""
        return [app for app in self.apps if app.budgeted]


@dataclass(frozen=True)
class Located:
    """A scenario's interface to advise, found."""

    text: str
    origin: str
    document: dict
    """The scenario as plain data, as written."""
    interface: Interface
    output: object
    """Its output policy as the scenario runs it (``qoslab._core.interface_output``)."""
    handoff: Handoff | None


def locate(
    scenario: Scenario, interface: str | None, overrides: tuple[tuple[str, str], ...]
) -> Located:
    """The interface ``NODE.PEER`` of ``scenario`` (or the one interface it configures),
    its policy as run, and the handoff it is, if it is one; a scenario a run would refuse
    is refused."""
    validate(scenario, set=[f"{key}={value}" for key, value in overrides])
    text, origin = scenario_text(scenario)
    document = _document(text)
    chosen = _interface(document, interface, origin)
    name = f"{chosen.node}.{chosen.peer}"
    running = json.loads(interface_output(text, origin, name, list(overrides)))
    handoff = find_handoff(
        chosen.node,
        chosen.peer,
        running["line_rate_bps"],
        running["shaper_rate_bps"],
        running["peer_input"],
    )
    return Located(text, origin, document, chosen, running["output"], handoff)


def read_problem(
    scenario: Scenario,
    *,
    interface: str | None,
    overrides: tuple[tuple[str, str], ...],
    target_pct: float,
    confidence: float,
    scheduler: str | None = None,
    target_os: str = "ios",
) -> Problem:
    """The problem posed by ``scenario``: its interface (``NODE.PEER``, or the one interface
    the scenario configures), its applications measured in a calibration run, and the
    quality target; the advice is written for ``scheduler`` (default: the scenario's)."""
    if scheduler is not None and scheduler not in SCHEDULERS:
        raise AdviceError(f"--router {scheduler}: unknown; give one of {', '.join(SCHEDULERS)}")
    located = locate(scenario, interface, overrides)
    text, origin, document = located.text, located.origin, located.document
    chosen, handoff = located.interface, located.handoff
    calibration_bps = min(CALIBRATION_BPS, _slowest_other_link_bps(document, chosen) // 2)
    calibration = _calibrate(scenario, chosen, calibration_bps, overrides, document, handoff)
    contracts = calibration.contracts
    if contracts.empty or (
        contracts["delay_budget_ms"].isna().all() and (contracts["loss_budget_pct"].isna().all())
    ):
        raise AdviceError(
            f"{origin}: measure.budgets: the scenario sets no quality budget, so no policy can "
            "be judged. Give each application that matters a budget (docs/quality.md)"
        )
    apps = _apps(calibration, chosen)
    if not any(app.budgeted for app in apps):
        raise AdviceError(
            f"{origin}: no application with a budget crosses {chosen.port}. Budget the "
            "applications that cross it, or choose another interface with --interface"
        )
    order = tuple(calibration.run.get("order_of_failure") or ())
    return Problem(
        scenario=scenario,
        text=text,
        origin=origin,
        name=str(calibration.run["scenario"]),
        interface=chosen,
        overrides=overrides,
        apps=apps,
        order=order,
        kept_settings=_kept_settings(document, chosen),
        target_pct=target_pct,
        confidence=confidence,
        handoff=handoff,
        scheduler=scheduler or _scheduler(located.output),
        target_os=target_os,
    )


def _scheduler(output: object) -> str:
    """The class scheduler of the CBWFQ policy in ``output`` (at its root or under a
    shaper), pre-HQF IOS's without one."""
    while isinstance(output, dict):
        if output.get("kind") == "cbwfq":
            return str(output.get("scheduler", "pre-hqf"))
        output = output.get("child")
    return "pre-hqf"


def _document(text: str) -> dict:
    """The scenario as plain data; the core has checked it (a mapping of sections), and
    named the place of any problem."""
    return yaml.safe_load(text)


def _interface(document: dict, given: str | None, origin: str) -> Interface:
    """The interface named ``NODE.PEER``, or the only one the scenario's ``interfaces``
    section gives an output policy."""
    if given is None:
        configured = [
            (node, peer)
            for node, peers in (document.get("interfaces") or {}).items()
            for peer, settings in (peers or {}).items()
            if isinstance(settings, dict) and ("output" in settings or "ios" in settings)
        ]
        if len(configured) != 1:
            listed = ", ".join(f"{n}.{p}" for n, p in configured) or "none"
            raise AdviceError(
                f"{origin}: interfaces: give the interface to configure with --interface "
                f"NODE.PEER (the scenario configures {len(configured)}: {listed})"
            )
        node, peer = configured[0]
    else:
        node, _, peer = given.partition(".")
        if not node or not peer:
            raise AdviceError(f"--interface {given}: write it as NODE.PEER, e.g. r1.r2")
    links = (document.get("topology") or {}).get("links") or []
    for index, link in enumerate(links):
        between = link.get("between") if isinstance(link, dict) else None
        if isinstance(between, list) and sorted(map(str, between)) == sorted([node, peer]):
            return Interface(str(node), str(peer), index, str(link.get("l2", "ethernet")))
    raise AdviceError(
        f"{origin}: topology.links: no link between `{node}` and `{peer}`. Name an interface "
        "as NODE.PEER of two linked nodes"
    )


def _slowest_other_link_bps(document: dict, interface: Interface) -> int:
    """The slowest rate of the scenario's other links (a very large number if none gives
    one)."""
    links = (document.get("topology") or {}).get("links") or []
    rates = [
        parse_rate(link.get("rate"))
        for index, link in enumerate(links)
        if isinstance(link, dict) and index != interface.link_index
    ]
    return min((r for r in rates if r), default=1 << 62)


def _kept_settings(document: dict, interface: Interface) -> dict:
    peers = (document.get("interfaces") or {}).get(interface.node) or {}
    settings = peers.get(interface.peer) or {}
    return {k: v for k, v in settings.items() if k in KEPT_KEYS}


def _calibrate(
    scenario: Scenario,
    interface: Interface,
    rate_bps: int,
    overrides: tuple[tuple[str, str], ...],
    document: dict,
    handoff: Handoff | None,
) -> Results:
    at = (document.get("measure") or {}).get("at") or ["end_to_end"]
    at = [at] if isinstance(at, str) else list(at)
    if interface.port not in at:
        at.append(interface.port)
    settings = [
        *overrides,
        (interface.rate_key, f"{rate_bps}bps"),
        (
            f"{interface.key}.output",
            json.dumps({"kind": "fifo", "limit": CALIBRATION_QUEUE_PACKETS}),
        ),
        (f"{interface.key}.observe", "true"),
        ("measure.at", json.dumps(at)),
        ("measure.series", PEAK_INTERVAL),
    ]
    policer = handoff.policer_change(rate_bps) if handoff is not None else None
    if policer is not None:
        settings.append(policer)
    return run(scenario, set=[f"{key}={value}" for key, value in settings])


def _apps(results: Results, interface: Interface) -> tuple[App, ...]:
    flows = results.flows.set_index("flow")
    crossing = set(results.hops.loc[results.hops["port"] == interface.port, "flow"])
    app_of = results.series.dropna(subset=["app"]).groupby("flow")["app"].first()
    contracts = results.contracts
    at_port = contracts[
        (contracts["point"] == interface.port)
        & (contracts["interval_ms"] == contracts["interval_ms"].iloc[0])
    ].set_index("app")
    series = results.series[results.series["flow"].isin(crossing)]
    peaks = series.groupby(["app", "start_s"])["delivered_bps"].sum().groupby("app").max()
    apps = []
    for name, row in at_port.iterrows():
        if name in ("all", "quality") or row["offered_packets"] == 0:
            continue
        members = [f for f in crossing if app_of.get(f) == name]
        if not members:
            continue
        table = flows.loc[sorted(members)]
        mean_l2 = row["offered_link_pct"] * row["link_bps"] / 100
        l2_per_ip = mean_l2 / row["offered_bps"] if row["offered_bps"] > 0 else 1.0
        apps.append(
            App(
                name=str(name),
                budgeted=not (pd.isna(row["delay_budget_ms"]) and pd.isna(row["loss_budget_pct"])),
                protocols=tuple(sorted(set(table["protocol"]))),
                dscps=tuple(sorted(int(d) for d in set(table["dscp"]))),
                server_ports=_server_ports(flows, name, app_of),
                mean_l2_bps=float(mean_l2),
                peak_l2_bps=float(max(peaks.get(name, 0.0) * l2_per_ip, mean_l2)),
                largest_bytes=int(
                    flows.loc[flows.index.map(app_of.get) == name, "packet_size_bytes"].max()
                ),
                delay_limit_ms=_delay_limit(contracts, name, interface),
                jitter_limited=bool(
                    contracts.loc[contracts["app"] == name, "jitter_budget_ms"].notna().any()
                ),
            )
        )
    return tuple(apps)


def _server_ports(flows: pd.DataFrame, app: str, app_of: pd.Series) -> tuple[tuple[str, int], ...]:
    """The destination port of the application's forward flows, by protocol."""
    forward = [
        f for f, a in app_of.items() if a == app and not str(f).endswith((".reverse", ".echo"))
    ]
    table = flows.loc[sorted(map(str, forward))] if forward else flows.iloc[0:0]
    pairs = zip(table["protocol"], table["dst_port"], strict=True)
    return tuple(sorted({(str(protocol), int(port)) for protocol, port in pairs}))


def _delay_limit(contracts: pd.DataFrame, app: str, interface: Interface) -> float | None:
    rows = contracts[contracts["app"] == app]
    limits = rows["delay_budget_ms"].dropna()
    here = rows.loc[rows["point"] == interface.port, "delay_budget_ms"].dropna()
    chosen = here if not here.empty else limits
    return None if chosen.empty else float(chosen.min())
