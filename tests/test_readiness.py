"""qoslab readiness on the Metro-E branch (`examples/metro-e-small-branch.yaml`): the number
of G.729 and G.711 calls each policy carries at each contract, checked against the
arithmetic of the voice class's policer and verified by independent runs at N and N + 1.

Under the designs that police voice at 400 kbit/s (`priority 400kbps`), counting each
packet's 14-byte Ethernet header as IOS does, a G.729 call sends 50 packets a second of 60
bytes, 74 to the policer (29.6 kbit/s), and a G.711 call 50 of 200 bytes, 214 to the policer
(85.6 kbit/s): the policer passes 13 G.729 calls (384.8 kbit/s; 14 would need 414.4) and 4
G.711 calls (342.4 kbit/s; 5 would need 428). One call more and the policer drops a share of
every second's voice, which the worst call's MOS shows.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from scipy import stats

import qoslab
from qoslab.advise import AdviceError
from qoslab.advise.readiness import readiness

EXAMPLE = Path(__file__).parent.parent / "examples" / "metro-e-small-branch.yaml"
REPS = 5
OTHERS = ("video", "interactive")


@pytest.fixture(scope="module")
def found():
    return readiness(
        EXAMPLE,
        flow="voice",
        calls=(1, 24),
        codecs=("g729", "g711"),
        variants=("base", "one-level", "video-bandwidth"),
        links=(1_536_000, 2_048_000),
        reps=REPS,
    )


def _verdict(found, variant: str, link_bps: int, codec: str):
    return next(
        v
        for v in found.verdicts
        if (v.setting.variant, v.setting.link_bps, v.setting.codec) == (variant, link_bps, codec)
    )


def _independent(variant: str, contract_bps: int, codec: str, calls: int) -> bool:
    """Whether ``calls`` calls are carried, judged from plain runs: the lower 95 % bound
    (Student's t) of the worst call's MOS at least 3.6, and of every other budgeted
    application's in-contract share at least 95 %."""
    worst_mos, shares = [], {}
    for replication in range(REPS):
        results = qoslab.run(
            EXAMPLE,
            variant=variant,
            replication=replication,
            set=_named(variant, contract_bps, calls, codec),
        )
        worst_mos.append(float(results.voice["mos"].fillna(1.0).min()))
        contracts = results.contracts
        for app in OTHERS:
            shares.setdefault(app, []).append(
                float(contracts.loc[contracts["app"] == app, "in_contract_pct"].min())
            )

    def low(values: list[float]) -> float:
        if len(set(values)) == 1:
            return values[0]
        mean = sum(values) / len(values)
        spread = pd.Series(values).std() / math.sqrt(len(values))
        return mean - stats.t.ppf(0.975, len(values) - 1) * spread

    return low(worst_mos) >= 3.6 and all(low(v) >= 95.0 for v in shares.values())


POLICY = {"base": "two-levels", "one-level": "one-level", "video-bandwidth": "video-bandwidth"}


def _named(variant: str, contract_bps: int, calls: int, codec: str) -> dict[str, str]:
    policy = POLICY[variant]
    return {
        "traffic.voice.copies": str(calls),
        "traffic.voice.pattern.codec": codec,
        "measure.voice.flows[0].codec": codec,
        f"policies.{policy}.rate": f"{contract_bps}bps",
        "interfaces.pe.br1.input.classes[0].police.cir": f"{contract_bps}bps",
        "interfaces.pe.br1.input.classes[0].police.bc": f"{12000 * contract_bps // 1536000}B",
    }


def test_the_voice_policer_sets_the_number_of_calls(found):
    for link in (1_536_000, 2_048_000):
        for variant in ("base", "one-level"):
            assert _verdict(found, variant, link, "g729").most(1) == 13, (variant, link)
            assert _verdict(found, variant, link, "g711").most(1) == 4, (variant, link)
            beyond = _verdict(found, variant, link, "g729").counts[14]
            assert "worst call's MOS" in beyond.shortfall


def test_a_policy_that_fails_another_budget_carries_no_call(found):
    for link in (1_536_000, 2_048_000):
        verdict = _verdict(found, "video-bandwidth", link, "g711")
        assert verdict.most(1) == 0
        assert "`video` in contract" in verdict.counts[1].shortfall


def test_every_answer_is_verified_by_runs_at_n_and_n_plus_one(found):
    for verdict in found.verdicts:
        s = verdict.setting
        n = verdict.most(1)
        if n >= 1:
            assert verdict.counts[n].carried
            assert _independent(s.variant, s.link_bps, s.codec, n), (s, n)
        assert not verdict.counts[n + 1].carried
        assert not _independent(s.variant, s.link_bps, s.codec, n + 1), (s, n + 1)


def test_one_count_asks_which_contracts_carry_it(tmp_path):
    arguments = ["readiness", str(EXAMPLE), "--flow", "voice", "--calls", "4"]
    arguments += ["--codecs", "g711", "--variants", "base", "--links", "1024kbps,1536kbps"]
    arguments += ["--reps", "5", "-o", str(tmp_path / "r")]
    done = subprocess.run(
        [sys.executable, "-m", "qoslab", *arguments],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:4] == ["policy", "codec", "contract", "carries"]
    rows = {line.split()[2]: line for line in lines[1:3]}
    assert " no " in rows["1024"]
    assert "`video` in contract" in rows["1024"]
    assert " yes " in rows["1536"]
    assert "cheapest contract for 4 calls, base g711: 1536 kbit/s" in done.stdout
    answers = pd.read_csv(tmp_path / "r" / "readiness.csv")
    assert list(answers["link_bps"]) == [1_024_000, 1_536_000]
    assert (tmp_path / "r" / "counts.csv").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"flow": "phone"}, "no traffic entry of that name"),
        ({"flow": "video", "codecs": ("g729",)}, "is not a codec flow"),
        ({"calls": (5, 2)}, "the smaller first"),
        ({"variants": ("two-level",)}, "is not a variant of the scenario"),
        ({"reps": 1}, "at least 2 replications"),
        ({"mos_target": 5.0}, "from 1 to 4.5"),
        ({"links": (2_000_000_000,)}, "2 Gbit/s is above the interface's 1 Gbit/s line"),
    ],
)
def test_bad_requests_are_refused_with_the_reason(options, message):
    arguments = {"flow": "voice", "calls": (1, 4), **options}
    with pytest.raises(AdviceError, match=message):
        readiness(EXAMPLE, **arguments)
