#!/usr/bin/env python3
"""Write what the documentation shows of qoslab's output by running qoslab.

    python scripts/make_doc_outputs.py [--check] [FILE ...]

Every block of ``README.md`` and ``docs/`` that shows what qoslab prints or computes sits
between two markers, and this script rewrites what is between them, leaving the prose around
them as it is. Two kinds of block:

* **Output of a command** — the command is run (``qoslab`` as ``python -m qoslab``) in a
  scratch folder that shows the repository's ``examples`` and ``tests``, so that what it
  writes lands there, and the block is a fenced code block of what it printed, standard
  output then standard error, trailing spaces removed::

      <!-- output: qoslab run examples/voice-vs-flood.yaml | lines 1-7,10,... -->
      ```console
      $ qoslab run examples/voice-vs-flood.yaml
      ...
      ```
      <!-- end output -->

  Options after ``|``: ``lines A-B,C,...`` keeps those lines (counted from 1), with a line
  ``...`` (indented as the line before it) where ``...`` is given; ``plain`` writes a plain
  fence without the ``$`` line (for a printout shown on its own); ``show CMD`` shows another
  command line than the one run. A run's wall time
  (``in 1.5 ms``) differs from run to run: ``--check`` does not compare it.

* **A table or a paragraph computed from runs** — ``<!-- table: NAME -->`` ...
  ``<!-- end table -->``, written by the function ``NAME`` of :data:`TABLES` in this script.

With ``--check`` the documents are only compared: exit status 1 when one differs from what
the script would write (each difference is listed; run the script without ``--check`` to
update them), 0 when all are current. FILE limits the work to those documents.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

OUTPUT = re.compile(
    r"(?P<open><!-- output: (?P<spec>.+?) -->\n)(?P<body>.*?)(?P<close><!-- end output -->)",
    re.DOTALL,
)
TABLE = re.compile(
    r"(?P<open><!-- table: (?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)(?P<close><!-- end table -->)",
    re.DOTALL,
)

WALL_TIME = re.compile(r"(packets in )\d[\d.,]* (ms|s)$", re.MULTILINE)
"""A run's wall time in ``qoslab run``'s headline: not compared."""

ENVIRONMENT = {**os.environ, "COLUMNS": "160", "NO_COLOR": "1", "TERM": "dumb"}

PROSE_COLUMNS = 92
"""Width of the prose a table block writes, as the documents' own."""

SHOWN = ("examples", "tests")
"""The repository's folders a command's scratch folder shows (as links)."""


@functools.cache
def run_command(command: str) -> str:
    """What ``command`` (a ``qoslab`` command line) prints, as the documentation shows it
    (run once however many blocks show it)."""
    words = shlex.split(command)
    if not words or words[0] != "qoslab":
        raise SystemExit(f"not a qoslab command: {command}")
    with tempfile.TemporaryDirectory(prefix="qoslab-docs-") as scratch:
        for name in SHOWN:
            (Path(scratch) / name).symlink_to(ROOT / name)
        done = subprocess.run(
            [sys.executable, "-m", "qoslab", *words[1:]],
            cwd=scratch,
            env=ENVIRONMENT,
            capture_output=True,
            text=True,
            check=False,
        )
    text = done.stdout + done.stderr
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


def select(text: str, lines: str) -> str:
    """The lines ``lines`` (``1-7,10,...``) of ``text``."""
    all_lines = text.split("\n")
    kept: list[str] = []
    for part in lines.split(","):
        part = part.strip()
        if part == "...":
            indent = kept[-1][: len(kept[-1]) - len(kept[-1].lstrip())] if kept else ""
            kept.append(f"{indent}...")
        elif "-" in part:
            first, last = (int(n) for n in part.split("-"))
            kept.extend(all_lines[first - 1 : last])
        else:
            kept.append(all_lines[int(part) - 1])
    return "\n".join(kept)


def output_block(spec: str) -> str:
    """The fenced block of the output ``spec`` asks for."""
    command, *options = (part.strip() for part in spec.split(" | "))
    text = run_command(command)
    shown = command
    plain = False
    for option in options:
        name, _, value = option.partition(" ")
        if name == "lines":
            text = select(text, value)
        elif name == "plain":
            plain = True
        elif name == "show":
            shown = value
        else:
            raise SystemExit(f"unknown option {name!r} in <!-- output: {spec} -->")
    if plain:
        return f"```\n{text}\n```\n"
    return f"```console\n$ {shown}\n{text}\n```\n"


def comparable(text: str) -> str:
    return WALL_TIME.sub(r"\1TIME", text)


# The tables: each function returns the block's text (ending with a line break).


def _run(scenario: str, **settings: object):
    import qoslab

    return qoslab.run(ROOT / scenario, set={k: str(v) for k, v in settings.items()})


TABLES: dict[str, Callable[[], str]] = {}


def table(function: Callable[[], str]) -> Callable[[], str]:
    TABLES[function.__name__.replace("_", "-")] = function
    return function


def _ms(value: float) -> str:
    return f"{value:,.2f}"


@table
def congestion_lab_schemes() -> str:
    """README: the congestion lab's six schemes, what voice, video and FTP got."""
    lines = [
        "| scheme | voice loss % | voice mean delay ms | voice max delay ms | voice seconds in "
        "contract % | video kbit/s | FTP kbit/s |",
        "|---|---|---|---|---|---|---|",
    ]
    for scheme in ("fifo", "pq", "cq", "wfq", "cbwfq", "llq"):
        results = _run("examples/congestion-lab.yaml", **{"interfaces.r1.r2.output": scheme})
        flows = {row["flow"]: row for row in results.rows("flows")}
        voice = flows["voice"]
        contract = next(row for row in results.rows("contracts") if row["app"] == "voice")
        lines.append(
            f"| `{scheme}` | {voice['loss_pct']:.2f} | {_ms(voice['delay_mean_ms'])} | "
            f"{_ms(voice['delay_max_ms'])} | {contract['in_contract_pct']:.1f} | "
            f"{flows['video']['delivered_l3_bps'] / 1e3:.1f} | "
            f"{flows['ftp']['delivered_l3_bps'] / 1e3:.1f} |"
        )
    return "\n".join(lines) + "\n"


ADHOC_APPS = {
    "alarm": "alarm",
    "ospf": "OSPF",
    "voip": "VoIP",
    "video": "video",
    "photos": "photos",
    "rpc-normal": "normal RPC",
    "rpc-priority": "priority RPC",
}
"""The ad-hoc report's applications, as the README names them."""


def _contracts(results, point: str, interval_ms: float) -> dict[str, dict]:
    return {
        row["app"]: row
        for row in results.rows("contracts")
        if row["point"] == point and row["interval_ms"] == interval_ms
    }


def _amount(value: float) -> str:
    return f"{value:g}"


@table
def adhoc_mix_quality() -> str:
    """README: the ad-hoc report's mix at 1 Mbit/s under strict priority and FIFO, at the
    edge router's egress, and what the paragraph after it says of it."""
    point, coarse, fine = "edge->core", 250.0, 25.0
    runs = {
        scheme: _run("examples/adhoc-annex-mix.yaml", **{"interfaces.edge.core.output": scheme})
        for scheme in ("strict", "fifo")
    }
    deep = _run(
        "examples/adhoc-annex-mix.yaml",
        **{"interfaces.edge.core.output": "fifo", "policies.fifo.limit": 200},
    )
    lines = [
        "| application | budget per hop | strict priority: consumed | in contract % | FIFO: "
        "consumed | in contract % |",
        "|---|---|---|---|---|---|",
    ]
    for app, name in ADHOC_APPS.items():
        budget = _contracts(runs["strict"], point, coarse)[app]
        delay = budget["delay_budget_ms"]
        delay_text = f"{_amount(delay / 1000)} s" if delay >= 1000 else f"{_amount(delay)} ms"
        cells = [name, f"{delay_text}, {_amount(budget['loss_budget_pct'])} %"]
        for scheme in ("strict", "fifo"):
            consumed = _contracts(runs[scheme], point, coarse)[app]["consumption_mean"]
            share = _contracts(runs[scheme], point, fine)[app]["in_contract_pct"]
            cells += [f"{consumed:.2f}", f"{share:.1f}"]
        lines.append("| " + " | ".join(cells) + " |")
    quality = {
        scheme: _contracts(results, point, coarse)["quality"]["in_contract_bps"] / 1e3
        for scheme, results in runs.items()
    }
    ospf = _contracts(runs["fifo"], point, coarse)["ospf"]["consumption_mean"]
    over = [
        row["consumption_mean"] > 1
        for app, row in _contracts(deep, point, coarse).items()
        if app in ADHOC_APPS
    ]
    if not (ospf < 1 and all(over)):
        raise SystemExit("README: the paragraph after the quality table no longer holds")
    paragraph = (
        "Consumed is the mean over 250 ms intervals (above 1: over budget), in contract the "
        "share of 25 ms intervals. Quality traffic transported in contract: "
        f"{quality['strict']:.0f} kbit/s under strict priority, {quality['fifo']:.0f} kbit/s "
        "under FIFO. With IOS's default 40-packet hold queue, FIFO keeps OSPF (1 s budget) "
        "within budget; behind a 200-packet FIFO (`--set policies.fifo.limit=200`) every "
        "application is over its budget, the report's finding."
    )
    lines += ["", textwrap.fill(paragraph, PROSE_COLUMNS)]
    return "\n".join(lines) + "\n"


# The tables of the disciplines' pages and of conditioning.md. Their cells follow one style:
# a share with one decimal (0 as "0 %"), a delay with three significant digits in ms or s,
# a rate in kbit/s with one decimal, a count grouped by spaces.


def _pct(value: float) -> str:
    return "0 %" if value == 0 else f"{value:.1f} %"


def _three(value: float) -> str:
    """``value`` to three significant digits, trailing zeros kept: 1.50, 71.2, 475."""
    if value == 0:
        return "0"
    decimals = max(0, 2 - math.floor(math.log10(abs(value))))
    return f"{value:.{decimals}f}"


def _delay(ms: float) -> str:
    return f"{_three(ms / 1000)} s" if ms >= 1000 else f"{_three(ms)} ms"


def _delays(mean_ms: float, max_ms: float) -> str:
    """A mean and a maximum in the unit of the maximum: ``21.7 / 36.8 ms``."""
    if max_ms >= 1000:
        return f"{_three(mean_ms / 1000)} / {_three(max_ms / 1000)} s"
    return f"{_three(mean_ms)} / {_three(max_ms)} ms"


def _kbps(bps: float) -> str:
    return f"{bps / 1000:.1f} kbit/s"


def _count(number: int) -> str:
    return f"{number:,}".replace(",", " ")


def _flows(results) -> dict[str, dict]:
    return {row["flow"]: row for row in results.rows("flows")}


def _rows(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _sent_loss_delays(flow: dict) -> list[str]:
    """A flow's packets sent, loss, and mean and largest delay, as the tables show them."""
    return [
        _count(flow["sent_packets"]),
        _pct(flow["loss_pct"]),
        _delay(flow["delay_mean_ms"]),
        _delay(flow["delay_max_ms"]),
    ]


@table
def fifo_example() -> str:
    """docs/qdisc/fifo.md: voice and flood behind the 40-packet FIFO."""
    flows = _flows(_run("examples/voice-vs-flood.yaml"))
    return _rows(
        ["flow", "sent", "loss", "mean delay", "max delay"],
        [[name, *_sent_loss_delays(f)] for name, f in flows.items()],
    )


@table
def prio_example() -> str:
    """docs/qdisc/prio.md: the same under priority queuing; the voice's maximum to the
    hundredth of a millisecond, as the page compares it with the bound."""
    flows = _flows(_run("examples/voice-vs-flood.yaml", **{"interfaces.r1.r2.output": "pq"}))
    voice, flood = flows["voice"], flows["flood"]
    loss = _pct(voice["loss_pct"])
    if voice["in_flight_packets"]:
        loss += f" ({voice['in_flight_packets']} packets still in flight at the end)"
    return _rows(
        ["flow", "loss", "mean delay", "max delay"],
        [
            ["voice", loss, _delay(voice["delay_mean_ms"]), f"{voice['delay_max_ms']:.2f} ms"],
            ["flood", *_sent_loss_delays(flood)[1:]],
        ],
    )


@table
def custom_example() -> str:
    """docs/qdisc/custom.md: the lab's CQ configuration."""
    flows = _flows(_run("examples/custom-queuing.yaml"))
    return _rows(
        ["flow", "sent", "loss", "mean delay", "max delay", "delivered (IP)"],
        [[name, *_sent_loss_delays(f), _kbps(f["delivered_l3_bps"])] for name, f in flows.items()],
    )


@table
def custom_variations() -> str:
    """docs/qdisc/custom.md: carry-over, lowest-custom and the lab's PQ."""
    rows = []
    for label, settings in (
        ("`carry_over=true`", {"policies.lab-cq.carry_over": "true"}),
        (
            "`lowest_custom=3` (queues 1 and 2 strict priority)",
            {"policies.lab-cq.lowest_custom": 3},
        ),
        ("the lab's PQ (`lab-pq`)", {"interfaces.r1.r2.output": "lab-pq"}),
    ):
        flows = _flows(_run("examples/custom-queuing.yaml", **settings))
        voice = flows["voice"]
        ftp = flows["ftp"]["delivered_l3_bps"]
        rows.append(
            [
                label,
                _pct(voice["loss_pct"]),
                f"{_delay(voice['delay_mean_ms'])} / {_delay(voice['delay_max_ms'])}",
                _kbps(flows["video"]["delivered_l3_bps"]),
                _kbps(ftp) if ftp else "0 (starved)",
            ]
        )
    return _rows(["variation", "voice loss", "voice mean / max delay", "video", "ftp"], rows)


def _side_by_side(
    first: dict[str, dict], second: dict[str, dict], labels: dict[str, str], headings: list[str]
) -> str:
    """Each flow of ``first`` with its loss, delays and delivered rate, beside its loss and
    delays in ``second``, under ``headings``."""
    return _rows(
        ["flow", *headings],
        [
            [
                labels.get(name, name),
                _pct(f["loss_pct"]),
                _delays(f["delay_mean_ms"], f["delay_max_ms"]),
                _kbps(f["delivered_l3_bps"]),
                _pct(second[name]["loss_pct"]),
                _delays(second[name]["delay_mean_ms"], second[name]["delay_max_ms"]),
            ]
            for name, f in first.items()
        ],
    )


@table
def cbwfq_example() -> str:
    """docs/qdisc/cbwfq.md: the branch office's LLQ against FIFO."""
    llq = _flows(_run("examples/llq-voice-video-data.yaml"))
    fifo = _flows(
        _run("examples/llq-voice-video-data.yaml", **{"interfaces.edge.wan.output": "fifo"})
    )
    labels = {"voice-1": "voice-1 (G.711)", "voice-2": "voice-2 (G.729)"}
    headings = ["`llq` loss", "`llq` mean / max delay", "`llq` delivered"]
    return _side_by_side(llq, fifo, labels, [*headings, "`fifo` loss", "`fifo` mean / max delay"])


@table
def cbwfq_lab_schemes() -> str:
    """docs/qdisc/cbwfq.md: the congestion lab's six schemes and LLQ with a ring of one;
    the maxima of the priority schemes to the hundredth, as the page compares them with the
    bound."""
    rows = []
    cases = [
        (f"`{s}`", {"interfaces.r1.r2.output": s})
        for s in ("fifo", "pq", "cq", "wfq", "cbwfq", "llq")
    ]
    cases.append(
        ("`llq`, `tx_ring: 1`", {"interfaces.r1.r2.output": "llq", "topology.links.1.tx_ring": 1})
    )
    for label, settings in cases:
        flows = _flows(_run("examples/congestion-lab.yaml", **settings))
        voice = flows["voice"]
        exact = voice["loss_pct"] == 0
        rows.append(
            [
                label,
                _pct(voice["loss_pct"]),
                _delay(voice["delay_mean_ms"]),
                f"{voice['delay_max_ms']:.2f} ms" if exact else _delay(voice["delay_max_ms"]),
                f"{flows['ftp']['delivered_l3_bps'] / 1000:.1f} kbit/s".replace(
                    "0.0 kbit/s", "0 kbit/s"
                ),
                _kbps(flows["video"]["delivered_l3_bps"]),
            ]
        )
    return _rows(
        ["policy", "voice loss", "mean delay", "max delay", "ftp delivered", "video delivered"],
        rows,
    )


@table
def wfq_precedence() -> str:
    """docs/qdisc/wfq.md: radio voice against a flood, WFQ and FIFO."""
    rows = []
    for output in ("wfq", "fifo"):
        flows = _flows(_run("examples/wfq-precedence.yaml", **{"interfaces.r1.r2.output": output}))
        voice, flood = flows["voice"], flows["background"]
        rows.append(
            [
                f"`{output}`",
                _pct(voice["loss_pct"]),
                _delay(voice["delay_mean_ms"]),
                _delay(voice["delay_max_ms"]),
                _pct(flood["loss_pct"]),
                _kbps(flood["delivered_l3_bps"]),
            ]
        )
    return _rows(
        [
            "output",
            "voice loss",
            "voice mean delay",
            "voice max delay",
            "background loss",
            "background delivered",
        ],
        rows,
    )


@table
def wfq_lab() -> str:
    """docs/qdisc/wfq.md: the congestion lab under IOS fair-queue."""
    flows = _flows(_run("examples/congestion-lab.yaml", **{"interfaces.r1.r2.output": "wfq"}))
    return _rows(
        ["flow", "loss", "mean delay", "max delay", "delivered"],
        [
            [
                name,
                _pct(f["loss_pct"]),
                _delay(f["delay_mean_ms"]),
                _delay(f["delay_max_ms"]),
                _kbps(f["delivered_l3_bps"]),
            ]
            for name, f in flows.items()
        ],
    )


def _loss_and_max(flow: dict) -> str:
    return f"{_pct(flow['loss_pct'])} / {_delay(flow['delay_max_ms'])}"


@table
def tbf_hierarchical() -> str:
    """docs/qdisc/tbf.md: hierarchical shaping against a flat shaper and LLQ alone."""
    runs = {
        output: _flows(
            _run(
                "examples/hierarchical-shaping.yaml",
                **{"interfaces.branch.provider.output": output},
            )
        )
        for output in ("hqos", "flat", "llq")
    }
    return _rows(
        [
            "flow",
            "`hqos` delivered",
            "`hqos` loss / max delay",
            "`flat` (shaper, one FIFO) loss / max delay",
            "`llq` (no shaper) loss / max delay",
        ],
        [
            [
                name,
                _kbps(f["delivered_l3_bps"]),
                _loss_and_max(f),
                _loss_and_max(runs["flat"][name]),
                _loss_and_max(runs["llq"][name]),
            ]
            for name, f in runs["hqos"].items()
        ],
    )


@table
def conditioning_edge() -> str:
    """docs/conditioning.md: policing at the edge, voice-c re-marked or trusted."""
    marked = _flows(_run("examples/policing-at-the-edge.yaml"))
    trusted = _flows(
        _run(
            "examples/policing-at-the-edge.yaml",
            **{"interfaces.bar2.phone-c.input": "{classes: []}"},
        )
    )
    labels = {
        "voice-a": "voice-a (EF, within contract)",
        "video-a": "video-a (EF, over contract)",
        "voice-c": "voice-c (EF, re-marked to 0)",
    }
    headings = ["re-marked at bar2: loss", "mean / max delay", "delivered"]
    return _side_by_side(
        marked, trusted, labels, [*headings, "trusted at bar2: loss", "mean / max delay"]
    )


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


@table
def advise_adhoc() -> str:
    """docs/advise.md: what the advisor finds for the ad-hoc report's mix."""
    from qoslab.advise import Executor, advise
    from qoslab.advise.rates import rate_words

    advice = advise(ROOT / "examples" / "adhoc-annex-mix.yaml", executor=Executor())
    chosen = advice.recommended.candidate.speed_bps
    below = [speed for speed in advice.speeds if not speed.feasible and speed.best is not None]
    last = below[-1]
    weakest = last.best.weakest
    overload = advice.overload
    first = overload.sort_values(["observed_rank", "declared_rank"]).iloc[0]
    if weakest != "rpc-priority" or first["app"] != "rpc-priority" or advice.order_holds:
        raise SystemExit("docs/advise.md: the priority RPC no longer limits the ad-hoc advice")
    paragraph = (
        "On `examples/adhoc-annex-mix.yaml` (the ad-hoc report's seven applications plus best "
        f"effort) the advisor recommends {rate_words(chosen)} ({advice.runs} runs). Below it "
        "the priority RPC is what fails: its responses, 10 kB on average (seven 1500 B "
        "packets, 80 ms on the wire at 1 Mbit/s and 40 ms at 2 Mbit/s), must cross the edge "
        "within the report's 65 ms per-hop budget in 95 % of its 25 ms intervals; the best "
        f"policy found at {rate_words(last.speed_bps)} keeps it there in "
        f"{last.best.low_pct[weakest]:.1f} % of them (lower bound). Under overload the "
        "declared order does not hold: the priority RPC, declared "
        f"{ORDINALS[int(first['declared_rank']) - 1]}, fails first, for the same reason."
    )
    return textwrap.fill(paragraph, PROSE_COLUMNS) + "\n"


METRO = "examples/metro-e-small-branch.yaml"
METRO_DESIGNS = {
    "two-levels": "video at priority level 2 (as written)",
    "one-level": "voice and video at one priority level",
    "video-bandwidth": "video in a bandwidth class",
}
METRO_APPS = ("voice", "video", "interactive")


def _metro_worst(settings: dict[str, str], seeds: range) -> dict[str, float]:
    """Each budgeted application's smallest in-contract share over ``seeds``."""
    worst: dict[str, float] = {}
    for seed in seeds:
        for row in _run(METRO, **settings, **{"run.seed": seed}).rows("contracts"):
            if row["point"] == "end_to_end" and row["app"] in METRO_APPS:
                worst[row["app"]] = min(worst.get(row["app"], 100.0), row["in_contract_pct"])
    return worst


@table
def advise_metro_designs() -> str:
    """docs/advise.md: the hand-written designs of the Metro-E branch at three contracts, and
    the advice."""
    from qoslab.advise import Executor, advise

    rows = []
    for design, words in METRO_DESIGNS.items():
        for contract_kbps in (1024, 1536, 2048):
            bc = max(1500, contract_kbps * 10 // 8)
            worst = _metro_worst(
                {
                    "interfaces.br1.pe.output": design,
                    f"policies.{design}.rate": f"{contract_kbps}kbps",
                    f"policies.{design}.bc": f"{bc}B",
                    "interfaces.pe.br1.input.classes[0].police.cir": f"{contract_kbps}kbps",
                },
                range(101, 106),
            )
            held = "yes" if min(worst.values()) >= 95.0 else "no"
            rows.append([words, f"{contract_kbps}", *(_pct(worst[a]) for a in METRO_APPS), held])
    advice = advise(ROOT / METRO, executor=Executor())
    candidate = advice.recommended.candidate
    _line, settings, *policer = candidate.changes
    worst = _metro_worst(dict([settings, *policer]), range(2001, 2006))
    held = "yes" if min(worst.values()) >= 95.0 else "no"
    rows.append(
        [
            f"`qoslab advise`: {candidate.label}",
            f"{candidate.speed_bps // 1000}",
            *(_pct(worst[a]) for a in METRO_APPS),
            held,
        ]
    )
    header = [
        "design",
        "contract kbit/s",
        *(f"{a}: worst in contract" for a in METRO_APPS),
        "every budget held",
    ]
    return _rows(header, rows)


def write(document: Path, check: bool) -> bool:
    """Rewrite (or, with ``check``, compare) the blocks of ``document``; whether it was
    current."""
    text = document.read_text(encoding="utf-8")

    def output(match: re.Match[str]) -> str:
        return match["open"] + output_block(match["spec"]) + match["close"]

    def computed(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in TABLES:
            raise SystemExit(f"{document}: no table named {name!r} in {__file__}")
        return match["open"] + TABLES[name]() + match["close"]

    if not OUTPUT.search(text) and not TABLE.search(text):
        return True
    new = TABLE.sub(computed, OUTPUT.sub(output, text))
    if comparable(new) == comparable(text):
        return True
    if check:
        shown = document.relative_to(ROOT)
        diff = difflib.unified_diff(
            comparable(text).splitlines(),
            comparable(new).splitlines(),
            f"{shown} (as written)",
            f"{shown} (as qoslab gives it now)",
            lineterm="",
        )
        print("\n".join(diff))
        return False
    document.write_text(new, encoding="utf-8")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare only")
    parser.add_argument("files", nargs="*", type=Path, help="documents (default: all)")
    args = parser.parse_args()
    documents = [path.resolve() for path in args.files] or DOCUMENTS
    stale = [document for document in documents if not write(document, args.check)]
    if stale and args.check:
        names = ", ".join(str(path.relative_to(ROOT)) for path in stale)
        print(f"stale: {names}; run python scripts/make_doc_outputs.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
