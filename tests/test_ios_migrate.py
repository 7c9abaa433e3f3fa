"""``qoslab ios migrate``: the ISR 2900 branch of examples/metro-e-branch.yaml run as
configured (HQF), the same text on IOS XE, and the text rewritten for IOS XE — the rewrite
restores HQF's split of the link; the Catalyst 8200's own policy rewritten back for HQF
restores IOS XE's; bad input is an error at its place, exit status 2."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from conftest import qoslab_process

ROOT = Path(__file__).resolve().parent.parent


def _branch(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "examples" / "metro-e-branch.yaml", tmp_path / "branch.yaml")
    (tmp_path / "ios").mkdir()
    for config in (ROOT / "examples" / "ios").glob("metro-e-branch-*.txt"):
        shutil.copy(config, tmp_path / "ios" / config.name)
    return tmp_path / "branch.yaml"


def _on_router(scenario: Path, config: str, name: str) -> Path:
    """A copy of the branch ``scenario``, named ``name``, whose router runs ``config`` (one of
    the Catalyst 8200's, interface Gi0/0/1)."""
    copy = scenario.parent / name
    copy.write_text(
        scenario.read_text(encoding="utf-8").replace(
            "{config: ios/metro-e-branch-isr2900.txt, interface: Gi0/1}",
            f"{{config: ios/{config}, interface: Gi0/0/1}}",
            1,
        ),
        encoding="utf-8",
    )
    return copy


def test_the_rewrite_restores_the_hqf_split(tmp_path):
    scenario = _branch(tmp_path)
    done = qoslab_process(
        "ios", "migrate", scenario, "--interface", "br1.hq", "-o", "xe.txt", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    verdict = re.search(r"The rewrite restores the hqf split: .* within ([\d.]+) percentage", out)
    assert verdict, out
    assert float(verdict[1]) <= 2.0, out
    # The same text on IOS XE gives the bulk group far more than HQF did: its 5 % is a
    # minimum there, and the excess is shared equally.
    bulk = re.search(r"^bulk\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", out, re.MULTILINE)
    hqf, same_text, rewritten = (float(bulk[i]) for i in (1, 2, 3))
    assert same_text > 1.5 * hqf, out
    assert abs(rewritten - hqf) / hqf < 0.05, out
    assert "line 24: `bandwidth percent 5` → `bandwidth remaining ratio 167`" in out
    text = (tmp_path / "xe.txt").read_text(encoding="utf-8")
    assert "version 17.9" in text
    assert "bandwidth percent" not in text
    check = qoslab_process("ios", "check", "xe.txt", cwd=tmp_path)
    assert "the `xe` class scheduler" in check.stdout
    assert check.returncode == 0, check.stdout


def test_the_way_back_restores_the_ios_xe_split(tmp_path):
    levels = _on_router(_branch(tmp_path), "metro-e-branch-c8200-levels.txt", "levels.yaml")
    done = qoslab_process(
        "ios", "migrate", levels, "--interface", "br1.hq", "--to", "hqf", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    # Classic IOS refuses `priority level`: the same text cannot run there.
    assert "The same text on HQF: refused" in done.stdout
    verdict = re.search(
        r"The rewrite restores the xe split: .* within ([\d.]+) percentage", done.stdout
    )
    assert verdict, done.stdout
    assert float(verdict[1]) <= 2.0
    assert "line 24: `bandwidth remaining ratio 5` → `bandwidth percent 30`" in done.stdout


def test_what_cannot_be_migrated_is_an_error(tmp_path):
    scenario = _branch(tmp_path)
    # Already IOS XE.
    xe_scenario = _on_router(scenario, "metro-e-branch-c8200.txt", "xe.yaml")
    xe = qoslab_process("ios", "migrate", xe_scenario, "--interface", "br1.hq", cwd=tmp_path)
    assert xe.returncode == 2, xe.stdout + xe.stderr
    assert "already for IOS XE" in xe.stdout
    # An interface not configured from IOS.
    other = qoslab_process("ios", "migrate", scenario, "--interface", "hq.br1", cwd=tmp_path)
    assert other.returncode == 2, other.stdout
    assert "interfaces.hq.br1.ios: the interface is not configured from IOS text" in other.stderr
    assert "Traceback" not in other.stderr
