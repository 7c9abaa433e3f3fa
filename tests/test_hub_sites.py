"""examples/hub-sites.yaml: a hub over three levels of IOS XE policy maps keeps each site's
calls in contract; with two levels, site A's calls queue with its TCP at the provider's
4 Mbit/s access and miss their budget — what the example's comment says."""

from __future__ import annotations

from pathlib import Path

import pytest

import qoslab

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "hub-sites.yaml"


@pytest.fixture(scope="module")
def runs():
    return {variant: qoslab.run(EXAMPLE, variant=variant) for variant in (None, "flat")}


def _in_contract(results, app: str) -> float:
    contracts = results.contracts.set_index("app")
    return float(contracts.loc[app, "in_contract_pct"])


def test_the_site_level_keeps_every_call_in_contract(runs):
    three = runs[None]
    for app in ("voice-a", "voice-b", "video-b"):
        assert _in_contract(three, app) == 100.0, app
    # The site's TCP backs up at the hub, in the site's own queue, not at the provider's.
    classes = three.classes.set_index(["port", "class"])
    assert classes.loc[("hub->provider", "SITE-A/class-default"), "enqueued_packets"] > 0
    ports = three.ports.set_index("port")
    assert ports.loc["provider->site-a", "dropped_packets"] == 0


def test_without_it_site_a_calls_queue_behind_its_tcp_at_the_provider(runs):
    flat = runs["flat"]
    assert _in_contract(flat, "voice-a") < 50.0
    # Site B's calls keep their budget in all but the odd interval (one of 60 over it, on
    # an 8 Mbit/s access line whose every frame carries the preamble and gap).
    assert _in_contract(flat, "voice-b") >= 98.0
    voice = flat.voice.set_index("flow")
    three = runs[None].voice.set_index("flow")
    a_calls = [f"voice-a.{k}" for k in range(1, 5)]
    assert (voice.loc[a_calls, "r"] < three.loc[a_calls, "r"]).all()
