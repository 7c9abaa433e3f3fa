"""The advice as files: a Markdown and an HTML page with the two pictures, the recommended
policy as scenario YAML and as IOS configuration, and every candidate's evidence as CSV."""

from __future__ import annotations

import csv
import io
import json
import shlex
from pathlib import Path

import yaml

from qoslab._core import __version__
from qoslab.advise.advisor import Advice
from qoslab.advise.evaluate import Score
from qoslab.advise.figures import overload_figure, speed_figure
from qoslab.advise.rates import rate_text, rate_words
from qoslab.advise.template import DEFAULT_QUEUE_LIMIT, Class
from qoslab.output import replace_folder
from qoslab.plot.to_svg import to_svg
from qoslab.report.pages import html_environment, markdown_environment

FILES = (
    "advice.md",
    "advice.html",
    "candidates.csv",
    "speeds.csv",
    "overload.csv",
    "speed.svg",
    "overload.svg",
    "policy.yaml",
    "policy.ios",
    "policy.tc",
)
"""Every file an advice folder may hold."""

HTB_DEFAULT_LIMIT = "1000 (a pfifo as long as the device's txqueuelen)"
"""An HTB leaf's queue limit when the policy gives none (``docs/qdisc/htb.md``)."""

SHOWN_CANDIDATES = 10
"""Candidates listed in the page at the recommended speed (candidates.csv has them all)."""


def check_command(advice: Advice, folder: Path) -> str | None:
    """The ``qoslab run`` command that runs the scenario configured from the IOS text (for a
    Linux router, with the recommended policy's YAML)."""
    if advice.recommended is None:
        return None
    interface = advice.problem.interface
    imported: object = {
        "ios": {"config": str(folder / "policy.ios"), "interface": advice.config_interface}
    }
    if advice.linux:
        imported = json.loads(advice.recommended.candidate.changes[1][1])
    parts = ["qoslab", "run", advice.problem.origin]
    for key, value in advice.problem.overrides:
        parts += ["--set", f"{key}={value}"]
    line, _, *policer = advice.recommended.candidate.changes
    if advice.problem.handoff is None:
        parts += ["--set", f"{line[0]}={rate_text(int(line[1].removesuffix('bps')))}"]
    parts += ["--set", f"{interface.key}={_flow(imported)}"]
    for key, value in policer:
        parts += ["--set", f"{key}={_flow(json.loads(value))}"]
    return shlex.join(parts)


def _flow(value: object) -> str:
    """``value`` as one line of YAML."""
    return yaml.safe_dump(value, default_flow_style=True, width=1 << 20).strip()


def write(advice: Advice, folder: Path, command: str) -> list[Path]:
    """Write the advice into ``folder`` (replacing an earlier advice there)."""
    folder = folder.resolve()
    context = _context(advice, folder, command)
    files: dict[str, object] = {
        "candidates.csv": _candidates_csv(advice),
        "speeds.csv": _speeds_csv(advice),
    }
    if advice.recommended is not None:
        rec = advice.recommended
        files["speed.svg"] = to_svg(
            speed_figure(
                advice.curve,
                rec.candidate.speed_bps,
                advice.problem.target_pct,
                "link speed" if advice.problem.handoff is None else "contract",
            )
        )
        if advice.overload_shares is not None:
            files["overload.svg"] = to_svg(
                overload_figure(advice.overload_shares, advice.problem.target_pct)
            )
            files["overload.csv"] = advice.overload_shares.to_csv(index=False)
        files["policy.yaml"] = _policy_yaml(advice)
        assert advice.config is not None
        files[advice.config_file] = advice.config
    context["svg"] = {n: files[n] for n in ("speed.svg", "overload.svg") if n in files}
    markdown = markdown_environment("qoslab.advise")
    files["advice.md"] = markdown.get_template("advice.md.j2").render(context)
    html = html_environment("qoslab.advise")
    files["advice.html"] = html.get_template("advice.html.j2").render(context)
    writers = {
        name: (lambda path, text=text: path.write_text(str(text), encoding="utf-8"))
        for name, text in files.items()
    }
    return replace_folder(folder, writers, known=FILES)


def _context(advice: Advice, folder: Path, command: str) -> dict:
    problem = advice.problem
    rec = advice.recommended
    full = max((s.reps for sp in advice.speeds for s in sp.scores), default=0)
    at_speed = next(
        (s for s in advice.speeds if rec and s.speed_bps == rec.candidate.speed_bps), None
    )
    return {
        "advice": advice,
        "problem": problem,
        "command": command,
        "version": __version__,
        "rec": rec,
        "words": rate_words,
        "classes": _class_rows(advice),
        "speeds": [
            {
                "speed": rate_words(s.speed_bps),
                "verdict": "meets the target" if s.feasible else "no",
                "why": _why(s.reason, rec if s.feasible else s.best),
                "evidence": _evidence(rec if s.feasible else s.best),
            }
            for s in advice.speeds
        ],
        "candidates": [
            _candidate_row(i, s, full) for i, s in enumerate(at_speed.scores[:SHOWN_CANDIDATES], 1)
        ]
        if at_speed
        else [],
        "overload": advice.overload.to_dict("records") if advice.overload is not None else None,
        "check": check_command(advice, folder),
        "reps": full,
        "handoff": _handoff_text(advice),
        "overload_text": _overload_text(advice),
    }


def _handoff_text(advice: Advice) -> str | None:
    """What the advice made of a sub-rate handoff, in words; None for a flat interface."""
    problem = advice.problem
    handoff = problem.handoff
    if handoff is None:
        return None
    peer = problem.interface.peer
    line = rate_words(handoff.line_bps)
    said = (
        f"the scenario shapes it to {rate_words(handoff.contract_bps)}"
        if handoff.shaped
        else f"{peer} polices what it receives on it at {rate_words(handoff.contract_bps)}"
    )
    shaped_by = (
        "an HTB tree whose root class is at the contract"
        if advice.linux
        else "a shaper at the contract (IOS shape average in a parent policy's class-default) "
        "over a child queuing policy"
    )
    text = (
        f"The interface is a sub-rate handoff: its line runs at {line}, and {said}. The "
        f"speeds searched are contracts: each candidate is {shaped_by}, on the {line} line"
    )
    if handoff.policer is not None:
        text += f", with {peer}'s policer ({handoff.policer.key}) at the contract in every run"
    if advice.recommended is not None:
        text += f". The shaper: {advice.recommended.candidate.shaper_reason}"
    return text + "."


def _overload_text(advice: Advice) -> str:
    """How the overload check raised the load, in words."""
    if advice.problem.handoff is not None:
        return (
            "The recommended configuration with the line slowed step by step, from the "
            "contract down (the shaper and every rate of the child policy unchanged): the "
            "offered load rises to the factor shown."
        )
    return (
        "The recommended configuration with the line slowed step by step (its QoS bandwidth, "
        "and so every rate of the policy, unchanged): the offered load rises to the factor shown."
    )


def _evidence(best: Score | None) -> str:
    """Each budgeted application's lower bound under ``best``, the weakest first; a dash
    for a speed arithmetic ruled out."""
    if best is None:
        return "-"
    ordered = sorted(best.low_pct.items(), key=lambda item: (item[1], item[0]))
    return ", ".join(f"{app} {low:.1f}" for app, low in ordered)


def _why(reason: str | None, best: Score | None) -> str:
    if reason is not None:
        return reason
    assert best is not None
    return f"{best.candidate.label}; headroom {best.headroom:.2f}"


def _class_rows(advice: Advice) -> list[dict]:
    rec = advice.recommended
    if rec is None:
        return []
    by_name = {row["name"]: row for row in rec.candidate.policy["classes"]}
    # IOS XE's default queue limit is 50 ms at the level's rate, not a number of packets.
    xe = advice.problem.scheduler == "xe"
    default_queue = "IOS XE's default (50 ms)" if xe else DEFAULT_QUEUE_LIMIT
    rows = []
    for made in advice.classes:
        row = by_name[made.name]
        level = f"level {row['priority_level']} " if "priority_level" in row else ""
        if advice.linux:
            serve = f"HTB prio {row['prio']}, rate {row['rate']}, ceil {row['ceil']}"
            queue = row.get("limit", HTB_DEFAULT_LIMIT)
        elif "priority" in row:
            serve, queue = f"priority {level}{row['priority']}", "-"
        else:
            serve = f"bandwidth {row['bandwidth']}"
            queue = row.get("queue_limit", default_queue)
        rows.append(
            {
                "app": made.app.name,
                "match": _match_text(made.match),
                "serve": serve,
                "why": made.reason,
                "queue": queue,
                "wred": "yes" if "random_detect" in row else "no",
                "offered": _offered(made, rec.candidate.speed_bps),
                "mean": rec.mean_pct.get(made.app.name),
                "low": rec.low_pct.get(made.app.name),
                "consumption": rec.consumption.get(made.app.name),
            }
        )
    return rows


def _offered(made: Class, speed_bps: int) -> str:
    app = made.app
    if app.elastic and app.mean_l2_bps > speed_bps:
        return "TCP, takes what it is given"
    return f"{app.mean_l2_bps / 1000:.1f} / {app.peak_l2_bps / 1000:.1f}"


def _match_text(match: dict) -> str:
    if "dscp" in match:
        return "DSCP " + ", ".join(str(d) for d in match["dscp"])
    parts = []
    for m in match["any"]:
        side = "dst_port" if "dst_port" in m else "src_port"
        parts.append(f"{m['protocol']} {side.replace('_', ' ')} {m[side]}")
    return " or ".join(parts)


def _candidate_row(rank: int, score: Score, full: int) -> dict:
    return {
        "rank": rank,
        "settings": score.candidate.label,
        "reserved": score.candidate.reserved_kbps,
        "reps": score.reps,
        "weakest": score.weakest,
        "low": score.low_pct[score.weakest],
        "headroom": score.headroom,
        "meets": "yes"
        if score.meets_target
        else "no"
        if score.reps >= full
        else f"not run further ({score.reps} of {full} replications)",
    }


def _candidates_csv(advice: Advice) -> str:
    apps = [app.name for app in advice.problem.budgeted]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            "speed_bps",
            "rank",
            "settings",
            "reserved_kbps",
            "replications",
            "meets_target",
            "margin_pct",
            "headroom",
            *(f"{app}_in_contract_low_pct" for app in apps),
            *(f"{app}_in_contract_mean_pct" for app in apps),
            *(f"{app}_consumption" for app in apps),
            "failed",
            "policy",
        ]
    )
    for speed in advice.speeds:
        for rank, s in enumerate(speed.scores, 1):
            writer.writerow(
                [
                    speed.speed_bps,
                    rank,
                    s.candidate.label,
                    s.candidate.reserved_kbps,
                    s.reps,
                    s.meets_target,
                    f"{s.margin_pct:.6g}",
                    f"{s.headroom:.6g}",
                    *(_number(s.low_pct.get(app)) for app in apps),
                    *(_number(s.mean_pct.get(app)) for app in apps),
                    *(_number(s.consumption.get(app)) for app in apps),
                    s.failed or "",
                    json.dumps(s.candidate.settings),
                ]
            )
    return out.getvalue()


def _speeds_csv(advice: Advice) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    apps = [app.name for app in advice.problem.budgeted]
    writer.writerow(
        ["speed_bps", "meets_target", "candidates", "runs", "reason", "best"]
        + [f"low_pct_{app}" for app in apps]
    )
    for s in advice.speeds:
        chosen = advice.recommended if s.feasible else s.best
        best = chosen.candidate.label if chosen else ""
        runs = sum(score.reps for score in s.scores)
        lows = [_number(chosen.low_pct.get(app)) if chosen else "" for app in apps]
        writer.writerow([s.speed_bps, s.feasible, len(s.scores), runs, s.reason or "", best, *lows])
    return out.getvalue()


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def _policy_yaml(advice: Advice) -> str:
    rec = advice.recommended
    assert rec is not None
    interface = advice.problem.interface
    head = f"# qoslab advise: `{advice.problem.name}`, {advice.template} template.\n"
    _, _, *policer = rec.candidate.changes
    if advice.problem.handoff is None:
        head += (
            f"# The link {interface.node}-{interface.peer} "
            f"(topology.links[{interface.link_index}]) at {rate_text(rec.candidate.speed_bps)}:\n"
            f"#   --set '{interface.rate_key}={rate_text(rec.candidate.speed_bps)}'\n"
            "# and this interface section in place of the scenario's:\n"
        )
    else:
        head += (
            f"# A contract of {rate_text(rec.candidate.speed_bps)} on the "
            f"{rate_words(advice.problem.handoff.line_bps)} line.\n"
        )
        for key, value in policer:
            head += (
                "# The provider's policer at the contract:\n"
                f"#   --set '{key}={_flow(json.loads(value))}'\n"
            )
        head += "# This interface section, shaped to the contract, in place of the scenario's:\n"
    body = {"interfaces": {interface.node: {interface.peer: rec.candidate.settings}}}
    return head + yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=96)
