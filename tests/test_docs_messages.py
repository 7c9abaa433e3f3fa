"""Every message the documentation quotes is one qoslab gives now.

The documents quote qoslab's messages in two ways: inline, between double backticks
(``` `` unknown key `x-note` `` ```), and as plain fenced blocks (a fence without a language).
Each quote must be either produced here — by the input that makes qoslab say it, the
message compared with the quote — or listed in :data:`NOT_OUTPUT` with the reason it is not
a message (a formula, a layout). A quote may stand for a family of messages with
placeholders: ``[j]`` for any list index, ``...`` for any text; every other character must
be in the message as written. A new quote that is neither fails the completeness test, so a
quote cannot be added without being checked.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from functools import cache
from pathlib import Path

import pytest
import yaml

import qoslab
from conftest import MISSPELT_KEY, qoslab_process, small_scenario

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "crates" / "qoslab-core" / "tests" / "config_cases" / "bad_inputs.yaml"

FENCE = re.compile(r"^```(\S*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
GENERATED = re.compile(r"<!-- (output|table): .*?<!-- end (output|table) -->", re.DOTALL)
"""Blocks ``scripts/make_doc_outputs.py`` writes and ``test_docs_outputs.py`` checks."""
INLINE = re.compile(r"``\s(\S.*?)\s``", re.DOTALL)


def documents() -> list[Path]:
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [path for path in paths if "studies" not in path.relative_to(ROOT).parts]


def quotes() -> list[tuple[str, str]]:
    """Every quote of the documents: (document, text), the text's white space made one
    space."""
    found = []
    for path in documents():
        text = GENERATED.sub("", path.read_text(encoding="utf-8"))
        name = str(path.relative_to(ROOT))
        for block in FENCE.finditer(text):
            if block[1] == "":
                found.append((name, " ".join(block[2].split())))
        prose = FENCE.sub("", text)
        found += [(name, " ".join(span.split())) for span in INLINE.findall(prose)]
    return found


NOT_OUTPUT = {
    "FILE:LINE:COLUMN: KEY.PATH: what is wrong. How to fix it.": "the form of every message",
    "packet ──► discipline ──► transmit ring ──► serializer (wire) ──► propagation ──► peer "
    "node fifo, prio… FIFO, tx_ring rate_bps, + L2 delay drops, order packets incl. overhead "
    "per frame the one on the wire": "a drawing of the egress port",
    "results/congestion-lab-sweep/ manifest.json the grid, every run's identity in grid order, "
    "versions, command line runs/<key>.arrow one finished run's results: every table, compact "
    "and columnar runs/<key>.error.json one failed run: its status and message runs.csv one "
    "row per run: parameters, replication, key, status, error summary/<table>.csv the summary "
    "of each table but the per-interval ones summary/<table>.parquet with --series-summary "
    "parquet: the per-interval tables' summaries .qoslab-written the ledger of every file the "
    "sweeps wrote here, with its SHA-256 .lock held by the sweep writing the folder": "the "
    "layout of a sweep's folder",
    "run failed: invariant violated, results discarded: packet conservation: created 4290 != "
    "delivered 2152 + dropped 2098 + in flight 41": "the form an invariant failure takes; "
    "no valid scenario breaks an invariant, so none can be made to",
}
"""Quotes that are not qoslab's messages, with why."""

FORMULA = re.compile(r"[=≈⌈⌊Σ]| \+ |^# `<kind>`|^\(`?[a-z_]+`?\)[,;]?$|^\(also ")
"""A formula or an equation written as code, a page's title pattern, a parenthesized key."""


def _scenario_error(document: object, **settings: object) -> str:
    try:
        qoslab.validate(document, set={k: str(v) for k, v in settings.items()})
    except qoslab.ScenarioError as error:
        return str(error)
    raise AssertionError(f"accepted: {settings}")


def _small(**changes: object) -> dict:
    """The small test scenario (two hosts through a router) with ``changes`` laid over it."""
    scenario = small_scenario()
    for path, value in changes.items():
        target = scenario
        keys = path.split(".")
        for key in keys[:-1]:
            target = target[int(key)] if isinstance(target, list) else target.setdefault(key, {})
        target[keys[-1]] = value
    return scenario


def _cbwfq(*classes: dict, **policy: object) -> str:
    """The error of the small scenario with a CBWFQ policy of ``classes`` on the router."""
    return _scenario_error(
        _small(**{"policies.short": {"kind": "cbwfq", "classes": list(classes), **policy}})
    )


WIDE_CLASS = "{name: a, match: {}, bandwidth: 441kbps}"
"""A class reserving more than voice-vs-flood's serial link allows."""

GRE = "{between: [r1, r2], kind: gre}"

VOICE_CLASS = {"name": "voice", "match": {"dscp": "EF"}, "priority": "64kbps"}


def _policy(policy: dict) -> str:
    return _scenario_error(_small(**{"policies.short": policy}))


def _input(classes: list) -> str:
    return _scenario_error(_small(**{"interfaces.r.a": {"input": {"classes": classes}}}))


def _red(**red: object) -> str:
    return _policy({"kind": "fifo", "random_detect": red})


def _routed(routes: list[dict]) -> dict:
    """The small scenario with two more routers, x and y, between r and b, and ``routes``."""
    scenario = _small()
    scenario["topology"]["nodes"] |= {"x": {"kind": "router"}, "y": {"kind": "router"}}
    scenario["topology"]["links"] = [
        {"between": ["a", "r"], "rate": "10Mbps"},
        {"between": ["r", "x"], "rate": "1Mbps"},
        {"between": ["r", "y"], "rate": "1Mbps"},
        {"between": ["x", "b"], "rate": "1Mbps"},
    ]
    scenario["topology"]["routes"] = routes
    scenario["interfaces"] = {}
    return scenario


def _chain(middle: str, routes: list[dict]) -> dict:
    """a, r1, ``middle`` and b in a row (``middle`` a router r2, or the host h), a flow
    from a to b, and ``routes``."""
    scenario = _small()
    kinds = {
        "a": "host",
        "r1": "router",
        middle: "router" if middle != "h" else "host",
        "b": "host",
    }
    scenario["topology"] = {
        "nodes": {name: {"kind": kind} for name, kind in kinds.items()},
        "links": [
            {"between": ["a", "r1"], "rate": "10Mbps"},
            {"between": ["r1", middle], "rate": "1Mbps"},
            {"between": [middle, "b"], "rate": "1Mbps"},
        ],
        "routes": routes,
    }
    scenario["interfaces"] = {}
    return scenario


def _htb(classes: list[dict], **policy: object) -> str:
    return _policy({"kind": "htb", "classes": classes, **policy})


def _neighbours() -> dict:
    """A scenario whose interfaces name r3 as a neighbour of r1, which it is not."""
    scenario = _small()
    scenario["topology"]["nodes"] = {
        name: {"kind": "router" if name.startswith("r") else "host"}
        for name in ("a", "r1", "r2", "r3", "b")
    }
    scenario["topology"]["links"] = [
        {"between": ["a", "r1"], "rate": "10Mbps"},
        {"between": ["r1", "r2"], "rate": "1Mbps"},
        {"between": ["r2", "r3"], "rate": "1Mbps"},
        {"between": ["r3", "b"], "rate": "1Mbps"},
    ]
    scenario["interfaces"] = {"r1": {"r3": {"output": "short"}}}
    return scenario


def _app_with_packets() -> dict:
    return {"name": "ftp", "from": "a", "to": "b", "packets": 10, "app": {"kind": "bulk"}}


def _prio_match(match: dict) -> str:
    return _policy(
        {"kind": "prio", "preset": "ios", "classify": [{"band": "high", "match": match}]}
    )


def _reserving(kbps: int) -> dict:
    """Two hosts, tx and rx, on a 1000 kbit/s link whose output is a CBWFQ policy
    reserving ``kbps``."""
    scenario = _small()
    scenario["topology"] = {
        "nodes": {"tx": {"kind": "host"}, "rx": {"kind": "host"}},
        "links": [{"between": ["tx", "rx"], "rate": "1000kbps"}],
    }
    policy = {"kind": "cbwfq", "classes": [{"name": "a", "match": {}, "bandwidth": f"{kbps}kbps"}]}
    scenario["interfaces"] = {"tx": {"rx": {"output": policy}}}
    scenario["traffic"] = []
    scenario.pop("policies")
    return scenario


VARIANT_FILE = """name: s
run: {duration: 10s}
topology:
  nodes: {a: {kind: host}, r: {kind: router}, b: {kind: host}}
  links:
    - {between: [a, r], rate: 10Mbps}
    - {between: [r, b], rate: 1Mbps}
traffic: []
variants:
  branch-office:
    add:
      topology.nodes.c: {kind: host}
      topology.links: [{between: [r, c], rate: fast}]
"""

SWEEP_FILE = """name: s
run: {duration: 10s}
topology:
  nodes: {a: {kind: host}, r1: {kind: router}, r2: {kind: router}, b: {kind: host}}
  links:
    - {between: [a, r1], rate: 10Mbps}
    - {between: [r1, r2], rate: 1Mbps}
    - {between: [r2, b], rate: 1Mbps}
traffic: []
sweep:
  vary:
    topology.links.2.rate: [128kbps, 0kbps]
"""


def _study_error() -> str:
    """The error of the congestion lab's study with an axis value misspelt, read from a
    copy in the current folder."""
    from qoslab.reproduce import StudyError
    from qoslab.reproduce.study import load

    study = ROOT / "python" / "qoslab" / "studies" / "congestion-mgmt-lab"
    shutil.copytree(study, "congestion-mgmt-lab")
    published = Path("congestion-mgmt-lab") / "published.yaml"
    text = published.read_text()
    published.write_text(
        text.replace("at: {variant: base, scheme: llq}", "at: {variant: base, scheme: lq}", 1)
    )
    try:
        load("./congestion-mgmt-lab")
    except StudyError as error:
        return str(error)
    raise AssertionError("the study loaded")


def _written_files() -> list[str]:
    """The messages about files, each named as the documents name it, read in a folder of
    their own."""
    cwd = Path.cwd()
    produced = []
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            Path("s.yaml").write_text(MISSPELT_KEY)
            produced.append(_scenario_error("s.yaml"))
            Path("s.yaml").write_text(VARIANT_FILE)
            produced.append(_scenario_error("s.yaml"))
            Path("s.yaml").write_text(SWEEP_FILE)
            try:
                qoslab.sweep("s.yaml", progress=False)
            except qoslab.ScenarioError as error:
                produced.append(str(error))
            produced.append(_study_error())
            Path("mpeg4.csv").write_text(
                "".join(f"{k * 0.04:.2f},100\n" for k in range(11)) + "0.44,1.5\n"
            )
            pattern = {"kind": "trace", "file": "mpeg4.csv"}
            Path("t.yaml").write_text(yaml.safe_dump(_small(**{"traffic.0.pattern": pattern})))
            produced.append(_scenario_error("t.yaml"))
        finally:
            os.chdir(cwd)
    return produced


def _ios_check_output() -> list[str]:
    """What ``qoslab ios check`` prints for the IOS XE branch configuration claiming to be
    12.4 (ios.md)."""
    text = (ROOT / "tests" / "ios" / "metro-e-branch-xe.txt").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as scratch:
        (Path(scratch) / "br1.cfg").write_text(text.replace("version 17.6", "version 12.4"))
        return qoslab_process("ios", "check", "br1.cfg", cwd=Path(scratch)).stdout.splitlines()


def _produced_here() -> list[str]:
    """The messages the documents quote beyond the bad scenarios' cases, each made by the
    input that gives it."""
    vvf = ROOT / "examples" / "voice-vs-flood.yaml"
    return [
        # scenario.md
        _scenario_error(_small(**{"traffic.0.pattern.size": "1.5kb"})),
        _scenario_error(_small(**{"run.duration": "fast"})),
        _scenario_error(_small(**{"x-note": "a note", "topology.x-note": "b"})),
        _scenario_error(
            _small(
                **{
                    "topology.links": [
                        *_small()["topology"]["links"],
                        {"between": ["a", "r"], "rate": "1Mbps"},
                    ]
                }
            )
        ),
        _scenario_error(_routed([{"at": "y", "to": "b", "via": "x"}])),
        _scenario_error(_chain("r2", [{"at": "r2", "to": "b", "via": "r1"}])),
        _scenario_error(_chain("h", [])),
        _scenario_error(_small(**{"run.duration": 60})),
        _scenario_error(vvf, **{"topology.nodes.sink.address": "10.0.0.1"}),
        _scenario_error(vvf, **{"topology.links.2.mtu": "1400B"}),
        _scenario_error(
            vvf,
            **{"interfaces.r1.r2.output": "{kind: cbwfq, classes: [" + WIDE_CLASS + "]}"},
        ),
        _scenario_error(_small(**{"policies.short.kind": "fifoo"})),
        _scenario_error(_small(**{"traffic.0.pattern": {"kind": "cbr", "size": "500B"}})),
        _scenario_error(_small(**{"traffic.0.dscp": "AF51"})),
        _prio_match({"dst": "10.0.0.0/33"}),
        _scenario_error(_small(**{"policies.short": {"limit": 10}})),
        _scenario_error(_small(**{"interfaces": {"x": {"b": {"output": "short"}}}})),
        _scenario_error(_neighbours()),
        _scenario_error(_small(**{"interfaces.r.b.output": "x"})),
        _scenario_error(_small(**{"traffic": [_small()["traffic"][0] | {"name": "x"}] * 2})),
        _scenario_error(_small(**{"traffic": [_app_with_packets()]})),
        _scenario_error(
            _small(
                **{
                    "traffic.0.pattern": {
                        "kind": "onoff",
                        "on": "1s",
                        "off": "1s",
                        "during_on": {"kind": "flood", "rate": "1Mbps"},
                    }
                }
            )
        ),
        _prio_match({"dscp": []}),
        _prio_match({"dst": "nowhere"}),
        _prio_match({"dst_port": "5060-5000"}),
        *_written_files(),
        # conditioning.md
        _input([{"name": "x"}]),
        _input([{"name": "x", "match": {}}, {"name": "x", "match": {}}]),
        _input([{"name": "x", "match": {}, "set": {"dscp": "EF", "precedence": 5}}]),
        _input([{"name": "x", "match": {}, "set": {}}]),
        # ios.md
        _scenario_error(
            _small(
                **{
                    "interfaces.r.b": {
                        "output": "short",
                        "ios": {"config": "interface s0\n", "interface": "s0"},
                    }
                }
            )
        ),
        *_ios_check_output(),
        # qdisc/cbwfq.md
        _cbwfq(VOICE_CLASS, VOICE_CLASS),
        _cbwfq(VOICE_CLASS | {"bandwidth": "64kbps"}),
        _cbwfq({"name": "x", "priority": "64kbps"}),
        _cbwfq({"name": "x", "match": {}}),
        _cbwfq(
            {"name": "a", "match": {}, "bandwidth": "64kbps"},
            {"name": "b", "match": {"dscp": "EF"}, "bandwidth_remaining": "10%"},
        ),
        _cbwfq({"name": "a", "match": {}, "bandwidth": "64kbps", "burst": "1000B"}),
        _cbwfq(
            {"name": "a", "match": {}, "bandwidth_remaining": "60%"},
            {"name": "b", "match": {"dscp": "EF"}, "bandwidth_remaining": "60%"},
        ),
        _cbwfq(VOICE_CLASS, {"name": "class-default", "fair_queue": True, "bandwidth": "10kbps"}),
        # qdisc/custom.md
        _policy({"kind": "custom", "queues": {"two": {"byte_count": "1500B"}}}),
        _policy({"kind": "custom", "queues": {"1": {"byte_count": "1500B"}}, "lowest_custom": 0}),
        _policy({"kind": "custom", "queues": {"2": {"bytecount": "1500B"}}}),
        # qdisc/drr.md, htb.md
        _policy({"kind": "drr", "classes": [{"name": "a"}, {"name": "a"}]}),
        _policy({"kind": "drr", "classes": [{"name": "a"}], "default": "x"}),
        _policy({"kind": "drr", "classes": [{"name": "a"}, {"name": "b"}], "default": "b"}),
        _htb([{"name": "a", "parent": "a", "rate": "1Mbps", "match": {}}]),
        _htb(
            [
                {"name": "p", "rate": "1Mbps", "match": {}},
                {"name": "a", "parent": "p", "rate": "1Mbps"},
            ]
        ),
        _htb(
            [{"name": "p", "rate": "1Mbps"}, {"name": "a", "parent": "p", "rate": "1Mbps"}],
            default="p",
        ),
        _htb([{"name": "a", "rate": "1Mbps"}, {"name": "b", "rate": "1Mbps"}], default="b"),
        _policy({"kind": "wfq", "dynamic_queues": 100}),
        _policy({"kind": "wfq", "cdt": 0}),
        _policy({"kind": "wfq", "hold_queue": 0}),
        _policy({"kind": "htb", "classes": [{"name": "a", "rate": "1Mbps"}], "default": "x"}),
        # qdisc/prio.md
        _policy({"kind": "prio", "preset": "ios", "bands": [{"name": "a"}]}),
        _policy({"kind": "prio", "bands": [{"name": "x"}, {"name": "x"}]}),
        _policy({"kind": "prio", "preset": "ios", "classify": [{"band": "hihg", "match": {}}]}),
        # qdisc/tbf.md
        _policy(
            {
                "kind": "tbf",
                "rate": "2Mbps",
                "child": {"kind": "cbwfq", "classes": [VOICE_CLASS | {"priority": "1900kbps"}]},
            }
        ),
        # random-early-detection.md
        _red(based_on="none", min=40, max=30),
        _red(based_on="precedence", min=5),
        _red(based_on="dscp", profiles=[{"precedence": 0, "min": 5, "max": 10}]),
        # tunnels.md
        _scenario_error(
            vvf,
            **{
                "traffic.0.name": "x",
                "topology.tunnels": f"[{GRE}, {GRE}]",
            },
        ),
        _scenario_error(
            vvf,
            **{
                "topology.tunnels": "[{between: [r1, r2], kind: gre}]",
                "topology.links.2.mtu": "1500B",
            },
        ),
        # qdisc/cbwfq.md
        _scenario_error(_reserving(800)),
        *_configuration_errors(),
        *_scenario_errors(),
    ]


def _text_error(text: str | bytes) -> str:
    """The error of a scenario file holding ``text``."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "s.yaml"
        if isinstance(text, str):
            text = text.encode()
        path.write_bytes(text)
        return _scenario_error(path)


def _scenario_errors() -> list[str]:
    """The errors the scenario, limits, applications, conditioning and TCP pages list, each
    made by a scenario that has it."""
    flow = _small()["traffic"][0]
    link = _small()["topology"]["links"][1]
    small = yaml.safe_dump(_small())
    ptt = {"kind": "ptt", "voice": {"codec": "gsm-fr"}, "talk": "continuous", "pause": "10s"}
    bulk = {key: value for key, value in flow.items() if key not in ("pattern", "protocol")}
    bulk["app"] = {"kind": "bulk"}
    backwards_in_time = [{"at": "2s", "rate": "1Mbps"}, {"at": "1s", "rate": "2Mbps"}]
    changing = link | {"rate_changes": backwards_in_time}
    colours = {"yellow": ["AF12"], "red": ["AF12"]}
    with tempfile.TemporaryDirectory() as scratch:
        trace = Path(scratch) / "t.csv"
        trace.write_text("0.0,100\n0.5,100\n0.2,100\n")
        backwards = _scenario_error(
            _small(**{"traffic.0.pattern": {"kind": "trace", "file": str(trace)}})
        )
    return [
        # applications.md
        _scenario_error(_small(**{"traffic": [bulk | {"app": ptt}]})),
        # conditioning.md
        _police(cir="64kbps", conform_action="drop"),
        _police(cir="64kbps", pir="128kbps", color_aware=colours),
        # limits.md
        _text_error(b"#" * (17 << 20)),
        _text_error(b"name: s   \0"),
        _scenario_error(_small(**{"name": "s\x1b"})),
        _text_error(small + "---\n" + small),
        # scenario.md
        _scenario_error(_small(**{"run.duration": "1.5ns"})),
        _scenario_error(_small(**{"topology.links.1.between": ["r", "r"]})),
        _scenario_error(_small(**{"topology.links.1.tx_ring": 0})),
        _scenario_error(_small(**{"topology.links.1.bandwidth": "0bps"})),
        _scenario_error(
            _small(**{"topology.links": [*_small()["topology"]["links"][:1], changing]})
        ),
        _scenario_error(_small(**{"interfaces.r.b.hold_queue": 0})),
        _scenario_error(_small(**{"interfaces.r.b.changes": [{"at": "1s"}]})),
        _scenario_error(_small(**{"traffic.0.to": "a"})),
        _scenario_error(_small(**{"traffic.0.start": "1s", "traffic.0.stop": "1s"})),
        _scenario_error(_small(**{"traffic.0.packets": 0})),
        _scenario_error(_small(**{"traffic.0.send_jitter": "0s"})),
        _scenario_error(
            _small(**{"traffic.0.pattern": {"kind": "codec", "codec": "g729", "interval": "15ms"}})
        ),
        _scenario_error(
            _small(
                **{
                    "traffic.0.pattern": {
                        "kind": "onoff",
                        "on": {"uniform": ["18s", "1s"]},
                        "off": "1s",
                        "during_on": {"kind": "cbr", "rate_pps": 10, "size": "100B"},
                    }
                }
            )
        ),
        backwards,
        # tcp.md
        _scenario_error(_small(**{"traffic": [bulk | {"tcp": {"initial_window": 0}}]})),
        _scenario_error(_small(**{"traffic": [bulk | {"tcp": {"receive_window": "100B"}}]})),
    ]


def _police(**police: object) -> str:
    """The error of an input class of the small scenario policing to ``police``."""
    return _input([{"name": "x", "match": {}, "police": police}])


def _configuration_errors() -> list[str]:
    """The configuration errors the disciplines' and conditioning's pages list, each made
    by a policy that has it."""
    default = {"name": "class-default", "bandwidth": "64kbps"}
    data = {"name": "a", "match": {}, "bandwidth": "64kbps"}
    shaped = data | {"shape": {"rate": "64kbps", "bc": "0B"}}
    child = {"kind": "cbwfq", "classes": [{"name": "class-default"}]}
    site = {"name": "s", "match": {}, "shape": {"rate": "100kbps"}, "bandwidth_remaining_ratio": 1}
    site |= {"child": child}
    leaf = {"name": "a", "rate": "1Mbps", "match": {}}
    deep = [{"name": "l0", "rate": "1Mbps"}]
    deep += [{"name": f"l{k}", "parent": f"l{k - 1}", "rate": "1Mbps"} for k in range(1, 9)]
    deep[-1]["match"] = {}
    return [
        # conditioning.md
        _police(cir="0bps"),
        _police(cir="64kbps", bc="0B"),
        _police(cir="64kbps", pir="128kbps", be="0B"),
        _police(cir="64kbps", violate_action="drop"),
        # qdisc/cbwfq.md
        _cbwfq(default, data),
        _cbwfq(data, {"name": "class-default", "match": {"dscp": "EF"}, "bandwidth": "64kbps"}),
        _cbwfq(data, {"name": "class-default", "priority": "64kbps"}),
        _cbwfq({"name": "a", "match": {}, "priority": "0kbps"}),
        _cbwfq(data | {"queue_limit": 0}),
        _cbwfq(data | {"queue_limit": "9kB"}),
        _cbwfq({"name": "a", "match": {}, "priority": "64kbps", "burst": "8B"}),
        _cbwfq(data | {"fair_queue": True}),
        _cbwfq(shaped),
        _cbwfq(data | {"shape": {"rate": "20Gbps", "bc": "1B"}}),
        _cbwfq(data | {"priority_level": 1}),
        _cbwfq(data | {"bandwidth_remaining_ratio": 2}),
        _cbwfq(data | {"child": child}),
        *(
            _cbwfq(*classes, scheduler="xe", **policy)
            for classes, policy in [
                ([data | {"priority_level": 3}], {}),
                ([{"name": "a", "match": {}, "bandwidth_remaining_ratio": 0}], {}),
                ([{"name": "b", "match": {}, "bandwidth_remaining_ratio": 2}, data], {}),
                ([{"name": "v", "match": {}, "priority_level": 1}, data], {}),
                ([{"name": "s", "match": {}, "priority": "10%", "child": child}], {}),
                ([{"name": "s", "match": {}, "child": child}], {}),
                ([site | {"child": {"kind": "fifo"}}], {}),
                ([site | {"child": child | {"classes": [data | {"bandwidth": "200kbps"}]}}], {}),
                ([site | {"police": {"cir": "50kbps"}}], {}),
                ([{k: v for k, v in site.items() if k != "bandwidth_remaining_ratio"} | data], {}),
                ([site | {"child": child | {"scheduler": "hqf"}}], {}),
                (
                    [
                        {"name": "a/b", "match": {"dscp": "EF"}, "bandwidth": "1%"},
                        {"name": "a", "match": {}, "shape": {"rate": "100kbps"}}
                        | {"child": child | {"classes": [data | {"name": "b"}]}},
                    ],
                    {},
                ),
                ([VOICE_CLASS | {"fair_queue": True}], {}),
                ([data | {"queue_limit": "0ms"}], {}),
                ([data | {"queue_limit": "1us"}], {}),
                ([data | {"queue_limit": "5ms", "random_detect": {}}], {}),
                ([data], {"max_reserved": "80%"}),
                (
                    [
                        {"name": "a", "match": {}, "bandwidth_remaining_ratio": 2},
                        {"name": "b", "match": {}, "bandwidth_remaining": "20%"},
                    ],
                    {},
                ),
            ]
        ),
        # qdisc/custom.md
        _policy({"kind": "custom", "queues": {"17": {"byte_count": "1500B"}}}),
        _policy({"kind": "custom", "queues": {"2": {"byte_count": "0B"}}}),
        _policy({"kind": "custom", "queues": {"0": {"byte_count": "1500B"}}}),
        _policy({"kind": "custom", "queues": {"1": {"byte_count": "1500B"}}, "default_queue": 20}),
        # qdisc/drr.md
        _policy({"kind": "drr", "classes": []}),
        _policy({"kind": "drr", "classes": [{"name": "a", "quantum": "0B"}]}),
        # qdisc/fq_codel.md
        _policy({"kind": "fq_codel", "flows": 0}),
        _policy({"kind": "fq_codel", "quantum": "0B"}),
        _policy({"kind": "fq_codel", "limit": 0}),
        _policy({"kind": "fq_codel", "target": "200ms"}),
        _policy({"kind": "fq_codel", "interval": "0s"}),
        # qdisc/htb.md
        _htb([leaf | {"ceil": "512kbps"}]),
        _htb([leaf | {"rate": "0bps"}]),
        _htb([leaf | {"prio": 8}]),
        _htb(deep),
        # qdisc/tbf.md
        _policy({"kind": "tbf", "rate": "2Mbps", "bc": "0B"}),
        _policy({"kind": "tbf", "rate": "20Gbps", "bc": "1B"}),
    ]


@cache
def messages() -> list[str]:
    """Every message produced here: those of the bad scenarios the core's tests read, and
    those the documents quote beyond them."""
    produced = []
    with tempfile.TemporaryDirectory() as scratch:
        for case in yaml.safe_load(CASES.read_text(encoding="utf-8"))["cases"]:
            path = Path(scratch) / "case.yaml"
            path.write_text(case["scenario"], encoding="utf-8")
            try:
                qoslab.validate(path)
            except qoslab.ScenarioError as error:
                produced.append(str(error))
    return produced + _produced_here()


def pattern(quote: str) -> re.Pattern[str]:
    """The quote as a pattern: ``[j]`` any index, ``...`` any text, the rest as written."""
    parts = re.split(r"(\[[a-z]\]|\.\.\.|…)", quote)
    return re.compile(
        "".join(
            r"\[\d+\]"
            if re.fullmatch(r"\[[a-z]\]", part)
            else ".*"
            if part in ("...", "…")
            else re.escape(part)
            for part in parts
        )
    )


def _is_message(quote: str) -> bool:
    return quote not in NOT_OUTPUT and not FORMULA.search(quote)


def test_every_quoted_message_is_one_qoslab_gives():
    said = [" ".join(message.split()) for message in messages()]
    stale = [
        f"{document}: {quote}"
        for document, quote in quotes()
        if _is_message(quote) and not any(pattern(quote).search(message) for message in said)
    ]
    assert not stale, "quoted, not given:\n" + "\n".join(stale)


@pytest.mark.parametrize("quote", sorted(NOT_OUTPUT))
def test_what_is_not_output_is_still_quoted(quote):
    assert any(found == quote for _, found in quotes()), f"no longer quoted: {quote}"
