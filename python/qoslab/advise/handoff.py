"""A sub-rate handoff: an interface whose line is faster than the service bought on it (a
Gigabit port to a Metro-Ethernet provider sold as 1.5 Mbit/s), and the shaper the advice
puts at the contract.

The line never congests there; the contract does, where the provider polices (or shapes)
it. So the advice searches the contracted rate, not the line's: each candidate is a parent
shaper at the contract over a child queuing policy (IOS ``shape average`` in a parent
policy's class-default with ``service-policy CHILD``), on the line as the scenario has it.

An interface is a handoff when the scenario shapes it below its line rate (a ``tbf`` at the
root of its output, written in YAML or read from IOS), or when the interface's peer polices
everything it receives from it below that rate (a class of the peer's ``input`` that
matches every packet and has ``police``): the provider's policer of the contract. The run
that judges a candidate keeps that policer, at the candidate's contract: its rate, and its
burst in time (its ``bc`` scaled with the rate), in the ratio the scenario gives them to
its own contract.

The shaper's bursts (``shaper_bursts``):

* **Bc** holds Tc = 10 ms at the contract, the interval recommended for voice under a shaper
  (at IOS's default Tc of 25 ms, a voice packet may wait 25 ms for credit; networkjutsu,
  "Manipulating shaping values"; cisco-nsp, "Shaping", December 2008), but no less than the
  largest packet crossing the interface (a packet larger than Bc + Be could never leave),
  and no more than the provider's policer's ``bc`` where that is deeper than the largest
  packet (a shaper sending more in one interval than the policer holds has the excess
  dropped). Without a class with a delay limit the shaper keeps IOS's default.
* **Be** is Bc, IOS's default, unless the provider's policer holds less than Bc + Be: then
  what it holds beyond Bc (possibly nothing). Credit is given an interval at a time and a
  packet larger than what is left waits for the next interval, so without Be the credit an
  interval leaves unused is lost: with Bc little above a full packet, a backlogged shaper
  sends one 1500-byte packet an interval and loses up to a fifth of the contract. Be keeps
  that credit, and Bc + Be within the policer's burst passes a burst after a quiet spell.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from qoslab._core import parse_size_bytes
from qoslab.advise.rates import parse_rate

VOICE_TC_MS = 10
"""The shaping interval the advice writes when a class has a delay limit."""


@dataclass(frozen=True)
class Policer:
    """The provider's policer of the contract: a class of the peer's input policy that
    matches everything and polices it."""

    key: str
    """The scenario key of the class's ``police`` settings."""
    police: dict
    """The settings as the scenario writes them."""
    cir_bps: int
    bc_bytes: int | None
    """Its committed burst, if the scenario gives one."""


@dataclass(frozen=True)
class Handoff:
    """A sub-rate service on the advised interface."""

    line_bps: int
    """The line's physical rate, kept in every run."""
    contract_bps: int
    """The scenario's own contract: its shaper's rate, else its provider's policer's."""
    shaped: bool
    """Whether the scenario shapes the interface (else only the provider's policer says
    what the contract is)."""
    policer: Policer | None

    def policer_change(self, contract_bps: int) -> tuple[str, str] | None:
        """The scenario change that puts the provider's policer at ``contract_bps``: its
        rate and burst scaled from the scenario's contract in the same ratio."""
        if self.policer is None:
            return None
        scale = contract_bps / self.contract_bps
        police = dict(self.policer.police)
        police["cir"] = f"{round(self.policer.cir_bps * scale)}bps"
        bc_bytes = self.policer_bc_bytes(contract_bps)
        if bc_bytes is not None:
            police["bc"] = f"{bc_bytes}B"
        return self.policer.key, json.dumps(police)

    def policer_bc_bytes(self, contract_bps: int) -> int | None:
        """The provider's policer's committed burst at ``contract_bps``, when the scenario
        gives one."""
        if self.policer is None or self.policer.bc_bytes is None:
            return None
        return max(1, round(self.policer.bc_bytes * contract_bps / self.contract_bps))


def find_handoff(
    node: str, peer: str, line_bps: int, shaper_rate_bps: int | None, peer_input: object
) -> Handoff | None:
    """The handoff on ``node``'s interface to ``peer`` (a line of ``line_bps``) whose output
    shaper, if any, runs at ``shaper_rate_bps``, and whose peer conditions what it receives
    from it with the input policy ``peer_input`` (as the scenario writes it); None for an
    interface whose line is the service."""
    policer = _provider_policer(peer_input, node, peer)
    if shaper_rate_bps is not None and shaper_rate_bps < line_bps:
        return Handoff(line_bps, shaper_rate_bps, True, policer)
    if policer is not None and policer.cir_bps < line_bps:
        return Handoff(line_bps, policer.cir_bps, False, policer)
    return None


def _provider_policer(conditioner: object, node: str, peer: str) -> Policer | None:
    """The first class of ``peer``'s input policy from ``node``, ``conditioner``, that
    matches every packet and polices at a rate the advice can scale."""
    rows = conditioner.get("classes") if isinstance(conditioner, dict) else None
    for index, row in enumerate(rows if isinstance(rows, list) else []):
        if not isinstance(row, dict) or row.get("match") not in ({}, None):
            continue
        police = row.get("police")
        if not isinstance(police, dict):
            continue
        cir = parse_rate(police.get("cir"))
        if cir:
            bc = police.get("bc")
            return Policer(
                key=f"interfaces.{peer}.{node}.input.classes[{index}].police",
                police=police,
                cir_bps=cir,
                bc_bytes=_bytes(bc) if bc is not None else None,
            )
    return None


def _bytes(written: object) -> int | None:
    """A size as the scenario writes it (``12000B``, ``12.5kB``, or a number of bytes) in
    bytes; None if it is not one."""
    if isinstance(written, int) and not isinstance(written, bool):
        return written
    try:
        return parse_size_bytes(str(written))
    except ValueError:
        return None


def shaper_bursts(
    contract_bps: int, largest_bytes: int, delay_limited: bool, policer_bc_bytes: int | None
) -> tuple[dict, str]:
    """The shaper's ``bc`` and ``be`` at ``contract_bps`` (empty for IOS's defaults) and why,
    in words (see the module's description)."""
    if not delay_limited:
        return {}, "IOS's default bursts: no class has a delay limit"
    bc = math.ceil(contract_bps * VOICE_TC_MS / 1000 / 8)
    why = f"Bc = {VOICE_TC_MS} ms at the contract, the interval recommended for voice"
    if policer_bc_bytes is not None and largest_bytes <= policer_bc_bytes < bc:
        bc = policer_bc_bytes
        why = "Bc = the provider's policer's burst, less than 10 ms at the contract"
    if bc < largest_bytes:
        bc = largest_bytes
        why = "Bc = the largest packet, more than 10 ms at the contract"
    tc_ms = bc * 8 * 1000 / contract_bps
    be = bc
    said = "Be = Bc (IOS's default), so credit an interval leaves unused is kept"
    if policer_bc_bytes is not None and policer_bc_bytes < 2 * bc:
        be = max(0, policer_bc_bytes - bc)
        said = f"Be = {be} B, so that Bc + Be is within the provider's policer's burst"
    return {"bc": f"{bc}B", "be": f"{be}B"}, f"{why} (Tc = {tc_ms:.3g} ms); {said}"
