"""Bad scenarios fail with one ``ScenarioError`` naming the key path and what to do."""

from __future__ import annotations

import re

import pytest

import qoslab


def link(scenario, index=1):
    return scenario["topology"]["links"][index]


def flow(scenario):
    return scenario["traffic"][0]


def rename_key(mapping, old, new):
    mapping[new] = mapping.pop(old)


BAD_SCENARIOS = [
    pytest.param(
        lambda s: rename_key(link(s), "rate", "rat"),
        ["topology.links[1].rat", "unknown key", "did you mean `rate`"],
        id="misspelt key",
    ),
    pytest.param(
        lambda s: link(s).update(rate="1Mbs"),
        ["topology.links[1].rate", "Mbs", "kbps"],
        id="unknown rate unit",
    ),
    pytest.param(
        lambda s: link(s).update(rate="0.5bps"),
        ["topology.links[1].rate", "whole number"],
        id="fractional rate",
    ),
    pytest.param(
        lambda s: s["run"].update(duration="60"),
        ["run.duration", "no unit"],
        id="duration without unit",
    ),
    pytest.param(
        lambda s: s["run"].update(duration="0s"),
        ["run.duration", "greater than zero"],
        id="zero duration",
    ),
    pytest.param(lambda s: s.pop("name"), ["missing key `name`"], id="missing name"),
    pytest.param(
        lambda s: s["topology"]["nodes"]["r"].update(kind="switch"),
        ["topology.nodes.r.kind", "switch", "host, router"],
        id="unknown node kind",
    ),
    pytest.param(
        lambda s: link(s).update(between=["r", "r"]),
        ["topology.links[1].between", "two different nodes"],
        id="link to itself",
    ),
    pytest.param(
        lambda s: link(s).update(mtu="20B"),
        ["topology.links[1].mtu", "MTU"],
        id="tiny mtu",
    ),
    pytest.param(
        lambda s: flow(s).update(to="c"),
        ["traffic[0].to", "unknown node `c`", "a, b, r"],
        id="unknown node",
    ),
    pytest.param(
        lambda s: s["interfaces"]["r"]["b"].update(output="shrot"),
        ["interfaces.r.b.output", "did you mean `short`"],
        id="unknown policy",
    ),
    pytest.param(
        lambda s: s["interfaces"]["r"].update({"x": {"output": "short"}}),
        ["interfaces.r.x", "`x` is not a neighbour of `r`"],
        id="not a neighbour",
    ),
    pytest.param(
        lambda s: s["interfaces"].update({"r->b": {"output": "short"}}),
        ["interfaces.r->b.output", "expected the settings of one interface", "NEIGHBOUR"],
        id="interface written with one level",
    ),
    pytest.param(
        lambda s: s["policies"]["short"].update(limit=-1),
        ["policies.short.limit", "-1"],
        id="negative queue limit",
    ),
    pytest.param(
        lambda s: flow(s)["pattern"].update(kind="cbrr"),
        ["traffic[0].pattern.kind", "did you mean `cbr`"],
        id="unknown pattern",
    ),
    pytest.param(
        lambda s: flow(s)["pattern"].update(size="9000B"),
        ["traffic[0].pattern", "MTU"],
        id="packet larger than the mtu",
    ),
    pytest.param(
        lambda s: flow(s).update(dscp="EF2"),
        ["traffic[0].dscp", "EF2", "AF11"],
        id="unknown dscp",
    ),
    pytest.param(
        lambda s: flow(s).update(protocol="sctp"),
        ["traffic[0].protocol", "sctp", "udp"],
        id="unknown protocol",
    ),
    pytest.param(
        lambda s: flow(s).update(start="2s", stop="1s"),
        ["traffic[0].stop", "before it starts"],
        id="flow stops before it starts",
    ),
    pytest.param(
        lambda s: s["traffic"].append(dict(flow(s))),
        ["traffic[1].name", "already used"],
        id="duplicate flow name",
    ),
]


@pytest.mark.parametrize(("spoil", "fragments"), BAD_SCENARIOS)
def test_bad_scenario_names_the_key_path_and_a_fix(make_scenario, spoil, fragments):
    scenario = make_scenario()
    spoil(scenario)
    with pytest.raises(qoslab.ScenarioError) as error:
        qoslab.run(scenario)
    message = str(error.value)
    assert message.startswith("<dict>")
    for fragment in fragments:
        assert fragment.lower() in message.lower()


@pytest.mark.parametrize(
    ("overrides", "fragments"),
    [
        pytest.param(
            {"topology.linkz.0.rate": "1Mbps"},
            ["topology.linkz", "did you mean `links`"],
            id="unknown key",
        ),
        pytest.param(
            {"traffic.5.dscp": "EF"}, ["index 5", "past the end"], id="index past the end"
        ),
        pytest.param(
            {"run.duration": "{"}, ["--set run.duration={", "not valid YAML"], id="bad YAML"
        ),
        pytest.param(
            {"interfaces.r.b.output": "fifo"},
            ["--set interfaces.r.b.output=fifo", "unknown policy `fifo`"],
            id="unknown policy",
        ),
    ],
)
def test_bad_override_is_named_in_the_message(make_scenario, overrides, fragments):
    with pytest.raises(qoslab.ScenarioError) as error:
        qoslab.run(make_scenario(), set=overrides)
    for fragment in fragments:
        assert fragment.lower() in str(error.value).lower()


@pytest.mark.parametrize(
    ("text", "place"),
    [
        pytest.param("name: x\nrun: {duration: 1s\n", ":3:1:", id="unclosed flow mapping"),
        pytest.param("name: x\n  bad: indent\n", ":2:", id="bad indentation"),
        pytest.param("name: a\nname: b\n", ":2:1:", id="duplicate key"),
    ],
)
def test_yaml_problems_point_at_the_line(tmp_path, text, place):
    path = tmp_path / "broken.yaml"
    path.write_text(text)
    with pytest.raises(qoslab.ScenarioError, match=re.escape(f"{path}{place}")):
        qoslab.run(path)


def test_errors_in_files_give_line_and_column(voice_vs_flood, tmp_path):
    path = tmp_path / "typo.yaml"
    path.write_text(voice_vs_flood.read_text().replace("rate: 128kbps", "rate: 128kbs"))
    lines = path.read_text().splitlines()
    line = next(number for number, text in enumerate(lines, start=1) if "128kbs" in text)
    with pytest.raises(qoslab.ScenarioError) as error:
        qoslab.run(path)
    assert str(error.value).startswith(f"{path}:{line}:")
    assert "topology.links[2].rate" in str(error.value)


@pytest.mark.parametrize(
    ("scenario", "fragment", "kind", "origin"),
    [
        pytest.param(
            "missing.yaml", "missing.yaml: no such file", "file", "missing.yaml", id="missing file"
        ),
        pytest.param(".", "is a directory", "file", ".", id="directory"),
        pytest.param(
            {"name": object()}, "<dict>", "wrong_type", "<dict>", id="dict that is not JSON"
        ),
    ],
)
def test_unreadable_scenarios_are_scenario_errors(
    scenario, fragment, kind, origin, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(qoslab.ScenarioError, match=re.escape(fragment)) as raised:
        qoslab.run(scenario)
    # Found before the core reads the text, with the same attributes as the core's errors.
    error = raised.value
    assert (error.kind, error.origin, error.key_path, error.line) == (kind, origin, "", None)
    assert error.message == str(error)


def test_override_without_equals_sign_is_a_scenario_error(make_scenario):
    with pytest.raises(qoslab.ScenarioError, match=re.escape("key.path=value")):
        qoslab.run(make_scenario(), set=["run.seed"])
