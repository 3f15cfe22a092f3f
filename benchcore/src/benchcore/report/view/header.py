"""The report's header: the two axis badges, the run's facts (meta) and the jump to the first failure."""

from __future__ import annotations

from typing import Optional

from attrs import frozen

from ...model import AxisVerdict, RunData, SkillResult
from ...results import undecided
from .. import fmt


@frozen
class Badge:
    axis: str
    text: str  # "pass" | "fail" | "n/a" | "incomplete"
    css: str  # "pass" | "fail" | "na" | "incomplete"
    net: str  # "net +14", or "" on n/a
    chip: Optional[str]  # narrowest margin, green badges only
    chip_href: Optional[str]
    label: Optional[str] = None  # "fragile" beside a green badge one flip (or one loss) from failing, as the leaderboard


@frozen
class MetaItem:
    label: str
    value: str
    title: Optional[str] = None  # the full value when ``value`` is abbreviated


def first_failure(result: SkillResult) -> Optional[str]:
    """The first case, in case order, that fails an axis whatever its missing trials turn out to be; None
    when no verdict is red (a loss in a passing case, or a trial still unjudged, is not a failure)."""
    for case in result.cases:
        for key, axis in (("efficacy", case.efficacy), ("regression", case.regression)):
            if axis is not None and not axis.passed and not undecided(key, axis):
                return case.id
    return None


def axis_badge(axis: str, verdict: AxisVerdict, chip: Optional[tuple[str, str]]) -> Badge:
    if verdict.incomplete:  # fails only for want of judgments: not a finding yet, so not red
        net = "" if verdict.net is None else f"net {fmt.signed(verdict.net)} so far"
        return Badge(axis=axis, text="incomplete", css="incomplete", net=net, chip=None, chip_href=None)
    css = {"pass": "pass", "fail": "fail"}.get(verdict.status, "na")
    net = "" if verdict.net is None or verdict.status == "n/a" else f"net {fmt.signed(verdict.net)}"
    green = verdict.status == "pass"
    return Badge(axis=axis, text=verdict.status, css=css, net=net,
                 chip=chip[0] if green and chip else None,
                 chip_href=chip[1] if green and chip else None)


def efficacy_flips(result: SkillResult) -> Optional[int]:
    """flips_to_fail of the efficacy fragile case (the verdict's, else the case's own)."""
    verdict = result.verdicts.efficacy
    if verdict.fragile_flips is not None:
        return verdict.fragile_flips
    for case in result.cases:
        if case.id == verdict.fragile_case:
            return case.efficacy.flips_to_fail
    return None


FRAGILE = "fragile"  # the leaderboard's word for it (index.CATEGORY_LABELS)


def fragile_efficacy(result: SkillResult) -> Optional[str]:
    """The case that makes a passing efficacy verdict fragile (one flip from failing), or None."""
    if result.verdicts.efficacy.status == "pass" and efficacy_flips(result) == 1:
        return result.verdicts.efficacy.fragile_case or ""
    return None


def fragile_regression(result: SkillResult) -> Optional[str]:
    """The first case at one loss that makes a passing regression verdict fragile, or None."""
    if result.verdicts.regression.status != "pass":
        return None
    return next((c.id for c in result.cases if c.regression is not None and c.regression.losses == 1), None)


def efficacy_chip(result: SkillResult) -> Optional[tuple[str, str]]:
    case = result.verdicts.efficacy.fragile_case
    if case is None:
        return None
    flips = efficacy_flips(result)
    text = f"narrowest: {case}"
    if flips is not None:
        text += f", {fmt.plural(flips, 'flip')} from failing"
    return text, fmt.case_href(case)


def regression_chip(result: SkillResult) -> Optional[tuple[str, str]]:
    case = result.verdicts.regression.fragile_case
    if case is None:
        return None
    return f"narrowest: {case}, at 1 loss: 1 more loss fails it", fmt.case_href(case)


def header_meta(result: SkillResult, run: RunData) -> tuple[MetaItem, ...]:
    info = run.run
    items = [
        MetaItem("Skill", f"{info.skill.name} ({info.skill.path})"),
        MetaItem("Run", f"{info.run_id}, started {info.started_at}"),
        MetaItem("Shape", f"{info.shape}: " + ", ".join(fmt.arm_label(a) for a in info.arms)),
    ]
    if info.default_branch is not None:
        items.append(MetaItem(
            "Default branch",
            f"{info.default_branch.name} @ {fmt.short_commit(info.default_branch.commit)}"
            + (f" (the local branch; {info.default_branch.remote} is at "
               f"{fmt.short_commit(info.default_branch.remote_commit)})" if info.default_branch.remote_commit else ""),
            title=info.default_branch.commit))
    else:
        items.append(MetaItem("Default branch", "not resolved"))
    items.append(MetaItem(
        "Trials", f"{info.trials} per case, {fmt.plural(len(result.cases), 'case')}"))
    items.append(MetaItem("Temperature", temperature_text(info.temperature.requested,
                                                          info.temperature.applied)))
    items.append(MetaItem("Seed", str(info.seed)))
    items.extend(_models(result, run))
    if result.model:
        items.append(MetaItem("Arms asked to run on", result.model))
    judge_models = result.judges.models if result.judges else ()
    if result.judge_model or judge_models:
        asked = f"asked for {result.judge_model}" if result.judge_model else "session default"
        ran = f"; ran on {', '.join(judge_models)}" if judge_models else ""
        items.append(MetaItem("Judges", asked + ran))
    items.extend(_agent_types(run))
    return tuple(items)


def _agent_types(run: RunData) -> list[MetaItem]:
    """The Claude Code agent type each arm really ran as (from the transcripts' meta files)."""
    per_arm = [(arm, ", ".join(run.run.agent_types[arm])) for arm in ("new", "previous", "baseline")
               if arm in run.run.arms and run.run.agent_types.get(arm)]
    if not per_arm:
        return []
    if len({t for _, t in per_arm}) == 1 and len(per_arm) == len(run.run.arms):
        return [MetaItem("Agent type", f"{per_arm[0][1]} (every arm)")]
    return [MetaItem(f"Agent type, {fmt.arm_label(arm)}", types) for arm, types in per_arm]


def _models(result: SkillResult, run: RunData) -> list[MetaItem]:
    """The resolved model of each arm (from run.json, else from the arm's usage);
    one line when every arm ran the same."""
    per_arm = []
    for arm in ("new", "previous", "baseline"):
        if arm not in run.run.arms:
            continue
        models = run.run.resolved_models.get(arm)
        if not models and arm in result.arms:
            models = result.arms[arm].models
        if models:
            per_arm.append((arm, ", ".join(models)))
    if not per_arm:
        return []
    if len({m for _, m in per_arm}) == 1 and len(per_arm) == len(run.run.arms):
        return [MetaItem("Model", f"{per_arm[0][1]} (every arm)")]
    return [MetaItem(f"Model, {fmt.arm_label(arm)}", models) for arm, models in per_arm]


# Claude Code's subagents run at temperature 1 (measured on the real CLI: docs/internals.md).
SESSION_DEFAULT_TEMPERATURE = 1.0


def temperature_text(requested: float, applied: str) -> str:
    """What temperature ran, saying so plainly when it is not what was requested."""
    req = fmt.temperature(requested)
    try:
        same = float(applied) == requested
    except ValueError:
        same = False
    if same:
        return req
    if applied.strip().lower() == "session default":
        if requested == SESSION_DEFAULT_TEMPERATURE:
            return f"{req} (the session default, as requested)"
        return (f"requested {req}, ran at the session default: "
                "Claude Code cannot set a subagent's temperature")
    return f"requested {req}, ran at {applied}"
