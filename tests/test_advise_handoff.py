"""qoslab advise on a sub-rate handoff: a Gigabit port to a Metro-Ethernet provider that sells
1.5 Mbit/s on it and polices it (`examples/metro-e-small-branch.yaml`).

What is checked: the handoff is found (from the scenario's shaper, or from the provider's
policer alone); the contract is searched, each candidate a shaper at the contract over a
child policy on the line as it is, with the provider's policer moved to the contract; the
shaper's bursts follow their rule; IOS XE's second priority level is tried; the advice is
no dearer than the cheapest contract at which a hand-written design works, passes
`qoslab ios check` and keeps every budget with fresh seeds.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import qoslab
from qoslab._core import ios_check
from qoslab.advise import AdviceError, Executor, advise, parse_speeds
from qoslab.advise.handoff import shaper_bursts
from qoslab.advise.problem import read_problem
from qoslab.advise.template import candidates, classes

EXAMPLE = Path(__file__).parent.parent / "examples" / "metro-e-small-branch.yaml"
BUDGETED = ("voice", "video", "interactive")
LINE_KEY = "topology.links[1].rate"
POLICER_KEY = "interfaces.pe.br1.input.classes[0].police"
CONTRACT_BPS = 1_536_000
TARGET_PCT = 95.0


def _qoslab(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "qoslab", *arguments], capture_output=True, text=True, check=False
    )


def _worst_in_contract(settings: dict[str, str], seeds: range) -> dict[str, float]:
    """Each budgeted application's smallest in-contract share end to end over ``seeds``."""
    worst: dict[str, float] = {}
    for seed in seeds:
        contracts = qoslab.run(EXAMPLE, seed=seed, set=settings).contracts
        rows = contracts[(contracts["point"] == "end_to_end") & contracts["app"].isin(BUDGETED)]
        for app, share in zip(rows["app"], rows["in_contract_pct"], strict=True):
            worst[app] = min(worst.get(app, 100.0), float(share))
    return worst


def _problem(*overrides: tuple[str, str], scheduler: str | None = None):
    return read_problem(
        EXAMPLE,
        interface=None,
        overrides=overrides,
        target_pct=TARGET_PCT,
        confidence=0.95,
        scheduler=scheduler,
    )


@pytest.fixture(scope="module")
def advised(tmp_path_factory):
    """The advice of the command line over two contracts, and its folder."""
    folder = tmp_path_factory.mktemp("advice") / "metro"
    done = _qoslab(
        "advise", str(EXAMPLE), "--links", "1024kbps,1536kbps", "--reps", "3", "-o", str(folder)
    )
    return done, folder


def test_the_shaper_and_the_provider_policer_make_a_handoff():
    problem = _problem()
    handoff = problem.handoff
    assert (handoff.line_bps, handoff.contract_bps, handoff.shaped) == (10**9, CONTRACT_BPS, True)
    assert handoff.policer.key == POLICER_KEY
    assert handoff.policer.bc_bytes == 12_000
    assert problem.scheduler == "xe"
    # The policer's burst read as the scenario reads sizes.
    in_kilobytes = _problem((f"{POLICER_KEY}.bc", "12.5kB")).handoff.policer
    assert in_kilobytes.bc_bytes == 12_500
    # Moved to another contract, the policer keeps its ratio to it, and its burst in time.
    key, value = handoff.policer_change(1_024_000)
    assert key == POLICER_KEY
    assert json.loads(value) == {
        "cir": "1024000bps",
        "bc": "8000B",
        "conform_action": "transmit",
        "exceed_action": "drop",
    }
    # Without the shaper, the provider's policer alone says what the contract is.
    policed = _problem(("interfaces.br1.pe.output", "{kind: fifo}")).handoff
    assert (policed.contract_bps, policed.shaped) == (CONTRACT_BPS, False)
    # Without either, the interface is its line.
    unshaped = ("interfaces.br1.pe.output", "{kind: fifo}")
    flat = _problem(unshaped, ("interfaces.pe.br1.input", "null"))
    assert flat.handoff is None


def test_each_candidate_is_a_shaper_at_the_contract_on_the_line_as_it_is():
    problem = _problem()
    made = classes(problem, "llq")
    pool = candidates(problem, made, 1_024_000, {})
    assert pool
    for candidate in pool:
        line, (_key, settings), policer = candidate.changes
        assert line == (LINE_KEY, "1000000000bps")
        output = json.loads(settings)["output"]
        assert (output["kind"], output["rate"]) == ("tbf", "1024000bps")
        # Tc = 10 ms would be 1280 B, less than a 1500-byte packet, which could never leave.
        assert (output["bc"], output["be"]) == ("1500B", "1500B")
        assert output["child"]["scheduler"] == "xe"
        assert "max_reserved" not in output["child"]
        assert policer[0] == POLICER_KEY
        assert json.loads(policer[1])["cir"] == "1024000bps"
    # The video conference (held by its jitter limit) in priority, at level 2 beside voice,
    # and with a bandwidth.
    video = next(c for c in made if c.app.name == "video")
    assert video.movable
    assert "priority levels 1 and 2" in video.reason
    places = {(c.placed, c.second) for c in pool}
    assert places == {(("video",), ()), ((), ("video",)), ((), ())}
    second = next(c for c in pool if c.second)
    rows = {row["name"]: row for row in second.policy["classes"]}
    assert rows["video"]["priority_level"] == 2
    # Pre-HQF IOS: no second level, and a child under a shaper fits within 75 %.
    classic = _problem(scheduler="pre-hqf")
    for candidate in candidates(classic, classes(classic, "llq"), 1_024_000, {}):
        child = json.loads(candidate.changes[1][1])["output"]["child"]
        assert "scheduler" not in child
        assert "max_reserved" not in child
        assert not candidate.second
        assert candidate.reserved_kbps <= 1024 * 75 // 100


def test_the_shaper_bursts_follow_their_rule():
    # 10 ms at the contract, and Be = Bc.
    assert shaper_bursts(1_536_000, 1500, True, None)[0] == {"bc": "1920B", "be": "1920B"}
    # Bc + Be within the provider's policer's burst.
    assert shaper_bursts(1_536_000, 1500, True, 3000)[0] == {"bc": "1920B", "be": "1080B"}
    # No more than the policer's burst, when that is at least a packet (and then no Be).
    bursts, why = shaper_bursts(8_000_000, 1500, True, 6000)
    assert bursts == {"bc": "6000B", "be": "0B"}
    assert "policer's burst" in why
    assert "Tc = 6 ms" in why
    # At least the largest packet.
    assert shaper_bursts(512_000, 1500, True, None)[0]["bc"] == "1500B"
    # No delay limit: IOS's defaults.
    assert shaper_bursts(1_536_000, 1500, False, None)[0] == {}


def test_without_be_a_shaper_loses_the_credit_an_interval_leaves():
    """The reason for Be: under backlog, Bc = 1920 B sends one 1500-byte packet an interval
    (1.2 Mbit/s of a 1.536 Mbit/s contract) when unused credit is lost, and the contract
    when it is kept."""
    rates = {}
    for be in ("0B", "1920B"):
        results = qoslab.run(
            EXAMPLE,
            set={
                "interfaces.br1.pe.output": f"{{kind: tbf, rate: 1536kbps, bc: 1920B, be: {be}}}",
                "run.duration": "20s",
            },
        )
        ports = results.ports
        rates[be] = float(ports.loc[ports["port"] == "br1->pe", "throughput_l3_bps"].iloc[0])
    assert rates["0B"] < 0.82 * CONTRACT_BPS
    assert rates["1920B"] > 0.97 * CONTRACT_BPS


def test_the_advice_is_a_shaper_over_a_child_policy_that_keeps_every_budget(advised):
    done, folder = advised
    assert done.returncode == 0, done.stderr
    assert "recommended: 1536 kbit/s contract" in done.stdout
    ios = (folder / "policy.ios").read_text()
    assert "shape average 1536000 15360 15360" in ios
    assert "service-policy br1-to-pe-child" in ios
    assert "version 17.9" in ios
    assert [f for f in ios_check(ios) if f[0] == "error"] == []
    page = (folder / "advice.md").read_text()
    assert "The interface is a sub-rate handoff: its line runs at 1 Gbit/s" in page
    assert "A contract of **1536 kbit/s**" in page
    assert "| 1024 kbit/s | no |" in page
    # IOS XE's default queue limit is a time, not IOS's 64 packets.
    assert "| IOS XE's default (50 ms) |" in page
    # The check command keeps the line and sets the provider's policer at the contract.
    check = next(line.strip() for line in done.stdout.splitlines() if "qoslab run" in line)
    words = shlex.split(check)
    assert LINE_KEY not in check
    assert POLICER_KEY in check
    settings = dict(words[i + 1].split("=", 1) for i, w in enumerate(words) if w == "--set")
    worst = _worst_in_contract(settings, range(2001, 2006))
    assert set(worst) == set(BUDGETED)
    assert min(worst.values()) >= TARGET_PCT, worst


HAND_WRITTEN = ("two-levels", "one-level", "video-bandwidth")
"""The scenario's policies: IOS XE's two priority levels, one level, the video in a
bandwidth class."""


def test_no_hand_written_design_works_at_a_cheaper_contract(advised):
    """Each hand-written design at the contract below the advised one misses a budget in
    some replication (so the advice is no dearer than the cheapest hand-written design);
    at the advised contract the two-level design keeps them all."""
    done, _ = advised
    assert "recommended: 1536 kbit/s contract" in done.stdout

    def worst(design: str, contract_bps: int) -> dict[str, float]:
        bc = max(1500, contract_bps // 800)
        return _worst_in_contract(
            {
                "interfaces.br1.pe.output": design,
                f"policies.{design}.rate": f"{contract_bps}bps",
                f"policies.{design}.bc": f"{bc}B",
                f"{POLICER_KEY}.cir": f"{contract_bps}bps",
            },
            range(101, 106),
        )

    for design in HAND_WRITTEN:
        assert min(worst(design, 1_024_000).values()) < TARGET_PCT, design
    assert min(worst("two-levels", CONTRACT_BPS).values()) >= TARGET_PCT


def test_contracts_above_the_line_are_refused():
    with pytest.raises(AdviceError, match="every contract listed is above the interface's"):
        advise(
            EXAMPLE,
            speeds=parse_speeds("2Gbps"),
            reps=2,
            executor=Executor(jobs=1),
            overrides=(("topology.links[1].rate", "1Gbps"),),
        )
