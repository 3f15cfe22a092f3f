"""RunData -> SkillResult: the whole results model of docs/run-format.md, results.json, pure.

Rounding (so results.json is byte-stable): cost-equivalent tokens and dollars
to 6 decimals, ratios to 4, the sign-test p-value to 6.
"""

from __future__ import annotations

import re

from typing import Optional

from attrs import evolve, field, frozen

from . import scoring
from .calibration import Stored, floor
from .model import LOSS, NOT_SANDBOXED, ArmUsage, Calibration, AxisResult, AxisVerdict, Case, CaseResult, Escalation, Judgment, Ratios, RunData, SkillResult, TrialData, Verdicts
from .environment import baseline_caveats, environment_card, sandbox_card, toolchain_card
from .headline import counts_phrase, gate_phrase, headline, trials_phrase, undecided, unjudged, why_fails
from .usage import sum_usage

__all__ = ["build_results", "check_result", "counts_phrase", "efficacy_axis", "escalations", "gate_phrase", "headline",
           "regression_axis", "undecided", "unjudged", "why_fails"]


def _trial_map(data: RunData) -> dict[tuple[str, int], TrialData]:
    return {(t.case, t.trial): t for t in data.trials}


def _describe_failures(failed) -> str:
    parts = []
    for r in failed:
        what = "timed out" if r.timed_out else f"exited {r.exit}"
        stderr = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "no stderr"
        parts.append(f"`{r.command}` {what} ({stderr})")
    return "; ".join(parts)


@frozen
class _Trials:
    """One comparison of one case, trial by trial, before the pass rule."""

    outcomes: list = field(factory=list)
    judgments: list = field(factory=list)
    gate_notes: list = field(factory=list)
    missing: list = field(factory=list)
    invalid: list = field(factory=list)
    not_run: list = field(factory=list)  # (trial, reason)
    refused: dict = field(factory=dict)  # invalid trial -> the tool calls Claude Code refused its arms


def _walk(trials: list[Optional[TrialData]], comparison: str,
          not_run: Optional[dict[int, str]] = None, confirm: bool = False) -> _Trials:
    """Outcomes of one comparison: invalid trials unjudged, gated trials LOSS (on both axes), else the judges'.
    ``not_run``: trial -> why it (or its judge) was never launched (the budget)."""
    t = _Trials()
    for n, td in enumerate(trials, start=1):
        if not_run and n in not_run and (td is None or not td.comparisons.get(comparison)):
            failed = scoring.failed_assertions(td.assertions if td else None)
            if not failed:
                t.outcomes.append(None)
                t.not_run.append((n, not_run[n]))
                continue
        if td is not None and td.invalid:
            t.outcomes.append(None)
            t.invalid.append(n)
            if calls := refused_calls(td.invalid):
                t.refused[n] = calls
            continue
        failed = scoring.failed_assertions(td.assertions if td else None)
        if failed:
            t.outcomes.append(LOSS)
            t.gate_notes.append(f"trial {n}: {_describe_failures(failed)}")
            continue
        record = td.comparisons.get(comparison) if td else None
        outcome = scoring.trial_outcome(record, confirm)
        t.outcomes.append(outcome)
        if outcome is None:
            t.missing.append(n)
        else:
            t.judgments.extend(record.judgments)
    return t


def _not_run_of(not_run: Optional[dict[str, str]], case: str, comparison: str) -> dict[int, str]:
    """trial -> why it was never launched, from run.json ``not_run`` ("<case>/t<N>" or "<case>/t<N>/<comparison>")."""
    out = {}
    for key, why in (not_run or {}).items():
        parts = key.split("/")
        if parts[0] == case and len(parts) >= 2 and parts[1][1:].isdigit() and \
                (len(parts) == 2 or parts[2] == comparison):
            out[int(parts[1][1:])] = why
    return out


def efficacy_axis(case: Case, trials: list[Optional[TrialData]],
                  not_run: Optional[dict[str, str]] = None, confirm: bool = False) -> tuple[AxisResult, list[Judgment]]:
    """One case's efficacy over its trials, and the judgments that count for position bias."""
    t = _walk(trials, "efficacy", not_run=_not_run_of(not_run, case.id, "efficacy"), confirm=confirm)
    wins, ties, losses = scoring.counts(t.outcomes)
    gated, incomplete = bool(t.gate_notes), bool(t.missing or t.invalid or t.not_run)
    passed = scoring.efficacy_pass(wins, losses, gated, incomplete)
    reason = None
    if gated:
        reason = "gated: a hard assertion failed on " + "; ".join(t.gate_notes)
    elif incomplete:
        reason = _incomplete_reason(t.missing, t.invalid, t.not_run, t.refused)
    elif not passed:
        reason = f"{wins} wins and {losses} losses: efficacy needs at least 3 wins and at most 1 loss"
    axis = AxisResult(outcomes=tuple(t.outcomes), wins=wins, ties=ties, losses=losses, passed=passed,
                      flagged=losses >= 1, incomplete=incomplete, gated=gated,
                      flips_to_fail=scoring.flips_to_fail(wins, losses, passed), reason=reason)
    return axis, t.judgments


def regression_axis(case: Case, trials: list[Optional[TrialData]],
                    not_run: Optional[dict[str, str]] = None, confirm: bool = False) -> tuple[AxisResult, list[Judgment]]:
    """One case's regression over its trials. A trial whose new output failed the gate is a LOSS without judging,
    as on efficacy, and fails the case outright (``gated``: true, which is left out when false)."""
    t = _walk(trials, "regression", not_run=_not_run_of(not_run, case.id, "regression"), confirm=confirm)
    wins, ties, losses = scoring.counts(t.outcomes)
    gated, incomplete = bool(t.gate_notes), bool(t.missing or t.invalid or t.not_run)
    passed = scoring.regression_pass(losses, incomplete, gated)
    reason = None
    if gated:
        reason = "gated: the new version failed a hard assertion on " + "; ".join(t.gate_notes)
    elif incomplete:
        reason = _incomplete_reason(t.missing, t.invalid, t.not_run, t.refused)
    elif not passed:
        reason = f"{losses} losses to the previous version: regression allows at most 1"
    axis = AxisResult(outcomes=tuple(t.outcomes), wins=wins, ties=ties, losses=losses, passed=passed,
                      flagged=losses >= 1, incomplete=incomplete, gated=True if gated else None, reason=reason)
    return axis, t.judgments


# How the audit words a tool call Claude Code refused (harness/collect/contamination.py): "<arm>: Claude Code
# refused its tool call <Tool> <its input, shortened>: <what Claude Code answered>", problems joined by "; ".
_REFUSAL = re.compile(r"(?:^|; )([A-Za-z0-9_-]+): Claude Code refused its tool call (.+?): ")
REFUSED_SHOWN = 3  # refused calls named in a reason


def refused_calls(invalid: str) -> tuple[str, ...]:
    """The tool calls Claude Code refused a trial's arms, from its invalid reason ("new: Bash pytest -q"), in
    order, each once; empty when nothing was refused."""
    seen: dict[str, None] = {}
    for m in _REFUSAL.finditer(invalid):
        call = m.group(2) if len(m.group(2)) <= 80 else m.group(2)[:77] + "..."
        seen.setdefault(f"{m.group(1)}: {call}", None)
    return tuple(seen)


def _incomplete_reason(missing: list[int], invalid: list[int], not_run: Optional[list] = None,
                       refused: Optional[dict] = None) -> str:
    parts = []
    by_reason: dict[str, list[int]] = {}
    for n, why in not_run or ():
        by_reason.setdefault(why, []).append(n)
    for why, trials in by_reason.items():
        parts.append(f"{trials_phrase(trials)} not run: {why}")
    if missing:
        parts.append(f"no judgment for {trials_phrase(missing)}")
    refused = refused or {}
    # A trial whose arms Claude Code refused a call was stopped by the permission mode or settings: its other
    # problems (a skill copy never read) follow from the refusal, so the refusal is what it is blamed on.
    if blocked := [n for n in invalid if n in refused]:
        calls = list(dict.fromkeys(c for n in blocked for c in refused[n]))
        named = "; ".join(calls[:REFUSED_SHOWN]) + (f"; and {len(calls) - REFUSED_SHOWN} more" if len(calls) >
                                                    REFUSED_SHOWN else "")
        parts.append(f"{trials_phrase(blocked)} invalid because Claude Code refused the arms' tool calls "
                     f"({named}): the permission mode or settings stopped them, not the skill; allow those calls "
                     "(docs/permissions.md) and re-run")
    if others := [n for n in invalid if n not in refused]:
        parts.append(f"{trials_phrase(others)} invalid (contaminated or skill not engaged) and must be re-run")
    return "incomplete: " + "; ".join(parts)


def escalations(data: RunData) -> tuple[Escalation, ...]:
    """Split comparisons that still need two more judges on some judged trial (docs/run-format.md, the rules)."""
    tm = _trial_map(data)
    out = []
    for case_id in data.run.cases:
        for comparison in data.run.comparisons:
            firsts, judged = [], []
            for n in range(1, data.run.trials + 1):
                td = tm.get((case_id, n))
                if td is None or td.invalid:
                    continue
                if scoring.failed_assertions(td.assertions):  # gated: a LOSS on both axes, never judged
                    continue
                record = td.comparisons.get(comparison)
                first = scoring.first_outcome(record, data.run.confirm_judgments)
                if first is None:
                    continue
                firsts.append(first)
                judged.append((n, len(record.judgments)))
            if scoring.is_split(firsts):
                pending = tuple(n for n, k in judged if k < 3)
                if pending:
                    out.append(Escalation(case=case_id, comparison=comparison, trials=pending))
    return tuple(out)


def _round_usage(u: ArmUsage) -> ArmUsage:
    from attrs import evolve

    return evolve(u, cost_equivalent_tokens=round(u.cost_equivalent_tokens, 6),
                  cost_usd=None if u.cost_usd is None else round(u.cost_usd, 6))


def _ratio(a: ArmUsage, b: Optional[ArmUsage]) -> Optional[float]:
    if b is None or not b.cost_equivalent_tokens:
        return None
    return round(a.cost_equivalent_tokens / b.cost_equivalent_tokens, 4)


def build_results(data: RunData, calibration: Stored = None) -> SkillResult:
    """Apply every rule of docs/run-format.md, the rules to a run and return its results model; ``calibration``:
    the skill's stored calibrations (docs/calibration.md), the one that applies read beside the verdicts as
    ``noise``."""
    run = data.run
    tm = _trial_map(data)
    three_arm = "regression" in run.comparisons
    cases: list[CaseResult] = []
    eff_judgments: list[Judgment] = []
    reg_judgments: list[Judgment] = []
    for case in data.cases:
        trials = [tm.get((case.id, n)) for n in range(1, run.trials + 1)]
        eff, ej = efficacy_axis(case, trials, run.not_run, run.confirm_judgments)
        eff_judgments.extend(ej)
        reg = None
        if three_arm:
            reg, rj = regression_axis(case, trials, run.not_run, run.confirm_judgments)
            reg_judgments.extend(rj)
        expanded = (not eff.passed or eff.flagged) or (reg is not None and (not reg.passed or reg.flagged))
        cases.append(CaseResult(id=case.id, description=case.description, efficacy=eff, regression=reg,
                                expanded=expanded, predicates_proven=False if case.id in run.unproven else None))

    eff_outcomes = [o for c in cases for o in c.efficacy.outcomes]
    eff_pass = all(c.efficacy.passed for c in cases)
    eff_case, eff_flips = scoring.efficacy_fragile([(c.id, c.efficacy.flips_to_fail) for c in cases])
    w, _, l = scoring.counts(eff_outcomes)
    efficacy = AxisVerdict(
        status="pass" if eff_pass else "fail",
        net=scoring.net(eff_outcomes),
        fragile_case=eff_case if eff_pass else None,
        fragile_flips=eff_flips if eff_pass else None,
        position_bias=scoring.position_bias(eff_judgments),
        sign_test_p=_round_p(scoring.sign_test_p(w, l)),
    )
    if three_arm:
        reg_outcomes = [o for c in cases for o in c.regression.outcomes]
        reg_pass = all(c.regression.passed for c in cases)
        w, _, l = scoring.counts(reg_outcomes)
        regression = AxisVerdict(
            status="pass" if reg_pass else "fail",
            net=scoring.net(reg_outcomes),
            fragile_case=scoring.regression_fragile([(c.id, c.regression.losses) for c in cases]) if reg_pass else None,
            position_bias=scoring.position_bias(reg_judgments),
            sign_test_p=_round_p(scoring.sign_test_p(w, l)),
        )
        reg_failed: Optional[int] = sum(1 for c in cases if not c.regression.passed)
    else:
        regression = AxisVerdict(status="n/a")
        reg_failed = None

    arms: dict[str, ArmUsage] = {}
    for arm in run.arms:
        cells = [t.usage[arm] for t in data.trials if arm in t.usage and t.case in run.cases]
        arms[arm] = _round_usage(sum_usage(cells))
    ratios = Ratios(new_vs_baseline=_ratio(arms["new"], arms.get("baseline")),
                    new_vs_previous=_ratio(arms["new"], arms.get("previous")) if three_arm else None)

    judge_cells = [u for t in data.trials if t.case in run.cases for u in t.judge_usage]
    judges = _round_usage(sum_usage(judge_cells)) if judge_cells else None
    # Duplicates the run's own sessions launched (a fan-out launched twice): not the arms' nor the judges'
    # usage, but paid for.
    ignored_cells = [u for t in data.trials if t.case in run.cases for u in t.ignored_usage]
    ignored_usage = _round_usage(sum_usage(ignored_cells)) if ignored_cells else None
    ignored = tuple(f"{t.case} t{t.trial}: {line}" for t in data.trials if t.case in run.cases for line in t.ignored)

    incomplete_cases = sum(1 for c in cases
                           if c.efficacy.incomplete or (c.regression is not None and c.regression.incomplete))
    incomplete = incomplete_cases > 0
    escs = escalations(data)
    # An axis that fails only for want of judgments (unjudged trials, or a split awaiting its panel) is
    # incomplete, not red (its status stays "fail").
    if efficacy.status == "fail" and not_final("efficacy", cases, escs):
        efficacy = evolve(efficacy, incomplete=True)
    if regression.status == "fail" and not_final("regression", cases, escs):
        regression = evolve(regression, incomplete=True)
    caveats = baseline_caveats(data.environment, run.skill.path, run.baseline_sees, run.agent_types.get("baseline", ()))
    gated_trials = {case.id: _gated_trials([tm.get((case.id, n)) for n in range(1, run.trials + 1)])
                    for case in data.cases}
    return SkillResult(
        run_id=run.run_id,
        skill=run.skill.name,
        shape=run.shape,
        verdicts=Verdicts(efficacy=efficacy, regression=regression),
        headline=headline(run.shape, cases, gated_trials, escs) + _unsandboxed_note(run.sandbox) + (
            f" Caveat: the baseline may have known of the skill: {'; '.join(caveats)}." if caveats else ""),
        caveats=caveats,
        cases=tuple(cases),
        arms=arms,
        ratios=ratios,
        incomplete=incomplete,
        escalations=escs,
        model=run.model,
        judges=judges,
        judge_model=run.judge_model,
        estimate=run.estimate,
        budget=run.budget,
        not_run=dict(run.not_run),
        environment=toolchain_card(sandbox_card(environment_card(data.environment, run.arms, run.skill.name,
                                                                 run.skill.path), run.sandbox), run.toolchain),
        sandboxed=None if run.sandbox is None else run.sandbox != NOT_SANDBOXED,
        claude_code=tuple(sorted({v for c in (data.environment.cells if data.environment else ()) for v in c.versions})),
        served={**{arm: tuple(u.models) for arm, u in arms.items() if u.models},
                **({"judges": tuple(judges.models)} if judges is not None and judges.models else {})},
        noise=floor(calibration, data, arms, judges, *_confirmations(data), cases=cases, escs=escs,
                    regression_final=not regression.incomplete),
        ignored=ignored,
        ignored_usage=ignored_usage,
    )


def _confirmations(data: RunData) -> tuple[bool, Optional[int], Optional[int]]:
    """(confirmed judging on, readings that flipped, confirmations answered) over the run's judged trials."""
    if not data.run.confirm_judgments:
        return False, None, None
    answered = flipped = 0
    for t in data.trials:
        if t.case not in data.run.cases or t.invalid:
            continue
        for record in t.comparisons.values():
            a, f = scoring.flips(record)
            answered, flipped = answered + a, flipped + f
    return True, flipped, answered


def _unsandboxed_note(sandbox: Optional[str]) -> str:
    return (" Not sandboxed: the arms were not confined (plan --no-sandbox): their commands ran on this machine as "
            "you and could reach anything you can; the guard only parsed each one and refused what it could not "
            "show stays in the arm's world.") if sandbox == NOT_SANDBOXED else ""


def not_final(key: str, cases, escs) -> bool:
    """Every case that fails the axis could still pass it: trials are unjudged, or its judges split and the
    panel has not answered. A gated case is decided."""
    waiting = {e.case for e in escs if e.comparison == key}
    axes = [(c.id, getattr(c, key)) for c in cases if getattr(c, key) is not None]
    return all(a.passed or (not a.gated and (undecided(key, a) or cid in waiting)) for cid, a in axes)


def _gated_trials(trials: list[Optional[TrialData]]) -> tuple[int, ...]:
    return tuple(n for n, td in enumerate(trials, start=1)
                 if td is not None and not td.invalid and scoring.failed_assertions(td.assertions))


def _round_p(p: Optional[float]) -> Optional[float]:
    return None if p is None else round(p, 6)


# ----------------------------------------------------------------------------- a results.json read back


def check_result(result: SkillResult) -> list[str]:
    """What in a results.json read back (another skill's, beside index.html) disagrees with the pass rules
    applied to its own numbers: each case's counts against its trial outcomes, each axis's pass against the
    rule, each verdict's status, net and fragile case against its cases. Empty when it is consistent. A file
    that is not (hand-edited, forged by anything that can write the reports folder) must never show green."""
    problems: list[str] = []
    if result.shape not in ("two-arm", "three-arm"):
        return [f"shape {result.shape!r} is neither two-arm nor three-arm"]
    if not result.cases:
        return ["it lists no cases"]
    three = result.shape == "three-arm"
    for c in result.cases:
        problems += _check_axis(f"case {c.id} efficacy", c.efficacy, efficacy=True)
        if three and c.regression is None:
            problems.append(f"case {c.id} has no regression in a three-arm run")
        elif not three and c.regression is not None:
            problems.append(f"case {c.id} has a regression in a two-arm run")
        elif c.regression is not None:
            problems += _check_axis(f"case {c.id} regression", c.regression, efficacy=False)
            if bool(c.regression.gated) != bool(c.efficacy.gated):
                problems.append(f"case {c.id} is gated on one axis only: a failed hard assertion fails both")
    if problems:
        return problems
    axes = [("efficacy", result.verdicts.efficacy, [c.efficacy for c in result.cases])]
    if three:
        axes.append(("regression", result.verdicts.regression, [c.regression for c in result.cases]))
    elif result.verdicts.regression.status != "n/a":
        problems.append(f"regression is {result.verdicts.regression.status!r} in a two-arm run, not 'n/a'")
    for key, verdict, cases in axes:
        status = "pass" if all(a.passed for a in cases) else "fail"
        if verdict.status != status:
            problems.append(f"{key} is {verdict.status!r}, but its cases make it {status!r}")
        outcomes = [o for a in cases for o in a.outcomes]
        if verdict.net != scoring.net(outcomes):
            problems.append(f"{key} net is {verdict.net}, but its trials make it {scoring.net(outcomes):+d}")
        if verdict.incomplete and (status == "pass" or not not_final(key, result.cases, result.escalations)):
            problems.append(f"{key} is marked incomplete, but a case fails it whatever its missing trials bring")
    if result.verdicts.efficacy.status == "pass" and not problems:
        case, flips = scoring.efficacy_fragile([(c.id, c.efficacy.flips_to_fail) for c in result.cases])
        v = result.verdicts.efficacy
        if v.fragile_case != case or v.fragile_flips not in (None, flips):
            problems.append(f"efficacy's narrowest case is {v.fragile_case!r} ({v.fragile_flips} flips), but its "
                            f"cases make it {case!r} ({flips} flips)")
    if result.incomplete != any(c.efficacy.incomplete or (c.regression is not None and c.regression.incomplete)
                                for c in result.cases):
        problems.append(f"incomplete is {str(result.incomplete).lower()}, which its cases contradict")
    return problems


def _check_axis(name: str, a: AxisResult, efficacy: bool) -> list[str]:
    from .model import TIE, TRIALS, WIN

    if len(a.outcomes) != TRIALS or any(o not in (WIN, TIE, LOSS, None) for o in a.outcomes):
        return [f"{name} has outcomes {list(a.outcomes)}, not {TRIALS} of WIN, TIE, LOSS or null"]
    out = []
    wins, ties, losses = scoring.counts(a.outcomes)
    if (a.wins, a.ties, a.losses) != (wins, ties, losses):
        out.append(f"{name} counts {a.wins} wins, {a.ties} ties, {a.losses} losses, but its outcomes hold "
                   f"{wins}, {ties}, {losses}")
    incomplete = None in a.outcomes
    if a.incomplete != incomplete:
        out.append(f"{name} is {'' if a.incomplete else 'not '}marked incomplete, but "
                   f"{'no' if not incomplete else 'some'} trial is missing an outcome")
    passed = (scoring.efficacy_pass(wins, losses, bool(a.gated), incomplete) if efficacy
              else scoring.regression_pass(losses, incomplete, bool(a.gated)))
    if a.passed != passed:
        out.append(f"{name} says pass {str(a.passed).lower()}, but {wins} wins and {losses} losses"
                   f"{' (incomplete)' if incomplete else ''}{' (gated)' if a.gated else ''} make it "
                   f"{str(passed).lower()}")
    if a.flagged != (losses >= 1):
        out.append(f"{name} flagged is {str(a.flagged).lower()}, but it has {losses} losses")
    if efficacy and a.flips_to_fail != scoring.flips_to_fail(wins, losses, passed):
        out.append(f"{name} flips_to_fail is {a.flips_to_fail}, but its outcomes make it "
                   f"{scoring.flips_to_fail(wins, losses, passed)}")
    return out
