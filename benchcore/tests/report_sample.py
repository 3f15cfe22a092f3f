"""Small, hand-written runs for the report tests and the browser check.

Each builder returns ``(SkillResult, RunData, history)`` that agree with one
another the way ``benchcore render`` would produce them: the per-case counts
below follow docs/run-format.md, the rules and are spelled out, not computed by the code
under test.

Run as a script to write sample pages for a look in a browser:
``python benchcore/tests/report_sample.py OUTDIR`` writes
``OUTDIR/sample-skill.html``, ``OUTDIR/clean-skill.html``, ``OUTDIR/index.html``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

from benchcore.model import ArmEstimate, ArmUsage, AssertionResult, AxisResult, AxisSummary, AxisVerdict, BranchRef, Case, CaseResult, CellCost, ComparisonRecord, Escalation, Estimate, HistoryEntry, Judgment, PositionBias, Ratios, RunData, RunInfo, SkillRef, SkillResult, Temperature, TrialData, Verdicts
from benchcore.environment import CellEvidence, EnvironmentEvidence, SettingsFile, environment_card

HOSTILE = "<script>alert(1)</script> </details> {{ 7*7 }} {% if %}"


def sample_environment():
    """The card of a three-arm run whose sealed arms kept CLAUDE.md out but still saw git status, a user
    hook with hostile text, and the with-skill arms' skill listing."""
    def cell(arm, n, **kw):
        return CellEvidence(cell=f"01-small-diff/t{n}/{arm}", arm=arm, agent_type="bench-arm",
                            versions=("2.1.328",), models=("claude-opus-5-5",), efforts=("medium",),
                            permission_modes=("bypassPermissions",),
                            hooks=("PreToolUse: benchcore guard", "PostToolUse: " + HOSTILE),
                            git_status=" M skills/git/commit-message/SKILL.md", **kw)
    cells = tuple(cell(arm, n, **({"skills": ("dataviz", "simplify")} if arm != "baseline" else {}))
                  for n in range(1, 6) for arm in ("new", "baseline", "previous"))
    evidence = EnvironmentEvidence(cells=cells, settings=(
        SettingsFile(".claude/settings.local.json", include_git_instructions=True),))
    return environment_card(evidence, ("new", "baseline", "previous"), "commit-message", "skills/git/commit-message")
GENERATED_AT = "2026-12-02T17:00:00Z"
W, T, L = "WIN", "TIE", "LOSS"


def eff(outcomes, *, passed, flips=None, gated=False, reason=None) -> AxisResult:
    return AxisResult(
        outcomes=tuple(outcomes), wins=outcomes.count(W), ties=outcomes.count(T),
        losses=outcomes.count(L), passed=passed, flagged=L in outcomes,
        incomplete=None in outcomes and not gated, gated=gated, flips_to_fail=flips,
        reason=reason)


def reg(outcomes, *, passed, gated=False, reason=None) -> AxisResult:
    return AxisResult(
        outcomes=tuple(outcomes), wins=outcomes.count(W), ties=outcomes.count(T),
        losses=outcomes.count(L), passed=passed, flagged=L in outcomes,
        incomplete=None in outcomes, gated=True if gated else None, reason=reason)


def usage(turns, raw, cost_eq, usd: Optional[float], model="claude-sonnet-4-6") -> ArmUsage:
    return ArmUsage(turns=turns, input=raw // 10, output=raw // 20, cache_read=raw - raw // 10
                    - raw // 20, raw_tokens=raw, cost_equivalent_tokens=cost_eq,
                    cost_usd=usd, models=(model,),
                    unpriced_models=(model,) if usd is None else ())


def run_info(skill: str, shape: str, cases, *, applied="session default",
             requested=1.0) -> RunInfo:
    three = shape == "three-arm"
    return RunInfo(
        run_id="20261202T160000Z-3f2a", skill=SkillRef(skill, f"skills/git/{skill}"),
        started_at="2026-12-02T16:00:00Z", shape=shape,
        arms=("new", "baseline", "previous") if three else ("new", "baseline"),
        comparisons={"efficacy": ("new", "baseline"), **(
            {"regression": ("new", "previous")} if three else {})},
        trials=5, temperature=Temperature(requested=requested, applied=applied), seed=1234567,
        default_branch=BranchRef("trunk", "0123456789abcdef0123456789abcdef01234567"),
        cases=tuple(cases),
        resolved_models={"new": ("claude-sonnet-4-6",), "baseline": ("claude-sonnet-4-6",),
                         **({"previous": ("claude-sonnet-4-6",)} if three else {})})


def case(cid: str, description: str) -> Case:
    return Case(id=cid, path=f"tests/git/x/{cid}/case.md", description=description,
                prompt="Write a commit message.", soft_criteria=("names the change",))


def history_entry(run_id, eff_net, eff_pass, reg_net=None, reg_pass=None) -> HistoryEntry:
    regression = None if reg_net is None else AxisSummary(reg_net, reg_pass, 0, 0, 0)
    return HistoryEntry(run_id=run_id, at=run_id, shape="three-arm" if regression else "two-arm",
                        default_branch_commit="0123456789abcdef0123456789abcdef01234567",
                        efficacy=AxisSummary(eff_net, eff_pass, 0, 0, 0), regression=regression)


def failing_three_arm():
    """Three cases: a fragile pass with a regression loss, a gated regression, an incomplete
    hostile one. Efficacy red, regression red."""
    c1 = CaseResult(
        id="01-small-diff", description="A one-line fix gets a one-line message",
        efficacy=eff([W, W, T, W, L], passed=True, flips=1),
        regression=reg([T, L, T, T, T], passed=True), expanded=True)
    c2 = CaseResult(
        id="02-breaking-change", description="An API removal is flagged as BREAKING",
        efficacy=eff([W, L, W, W, W], passed=False, gated=True,
                     reason="hard assertion failed on trial 2"),
        regression=reg([T, L, T, L, T], passed=False, gated=True,
                       reason="gated: the new version failed a hard assertion on trial 2"), expanded=True)
    c3 = CaseResult(
        id="03-hostile", description="Hostile text " + HOSTILE,
        efficacy=eff([W, W, W, W, None], passed=False, reason="no judgment for trial 5"),
        regression=reg([W, L, T, T, T], passed=True), expanded=True)
    result = SkillResult(
        run_id="20261202T160000Z-3f2a", skill="commit-message", shape="three-arm",
        verdicts=Verdicts(
            efficacy=AxisVerdict("fail", net=6, fragile_case=None,
                                 position_bias=PositionBias(9, 14), sign_test_p=0.0313),
            regression=AxisVerdict("fail", net=-3, fragile_case=None,
                                   position_bias=PositionBias(3, 5), sign_test_p=0.375)),
        # The sentence headline() writes for these cases, with this sample's badge nets (+6, -3).
        headline=("Not final: 03-hostile efficacy (no judgment yet for trial 5); already failing: efficacy on "
                  "02-breaking-change (a hard assertion failed on trial 2); efficacy net +6, regression net -3 so far."),
        cases=(c1, c2, c3),
        arms={"new": usage(61, 1_234_567, 180_000.4, 1.2345),
              "baseline": usage(48, 900_000, 100_000.0, 0.75),
              "previous": usage(55, 1_100_000, 190_000.0, None, model="claude-mystery-9")},
        ratios=Ratios(new_vs_baseline=1.8, new_vs_previous=0.9474),
        incomplete=True,
        escalations=(Escalation("02-breaking-change", "regression", (1, 3, 4, 5)),),
        environment=sample_environment())

    def trial(cid, n, **kw):
        return TrialData(case=cid, trial=n, **kw)

    order_ab = {"A": "baseline", "B": "new"}
    trials = []
    for n in range(1, 6):
        trials.append(trial(
            "01-small-diff", n,
            outputs={"new": f"fix: handle empty diff (trial {n})",
                     "baseline": f"Fixed a bug in trial {n}",
                     "previous": f"fix: empty diff, previous version, trial {n}"},
            assertions=(AssertionResult("test -s \"$OUTPUT\"", 0),),
            comparisons={
                "efficacy": ComparisonRecord(order_ab, (Judgment(
                    "A" if n == 5 else "B", "baseline names the file" if n == 5 else "B is specific",
                    "clear", "Fixed a bug"),)),
                "regression": ComparisonRecord({"A": "new", "B": "previous"}, (Judgment(
                    "B" if n == 2 else "TIE", "previous mentions the scope" if n == 2 else "same",
                    "slight" if n == 2 else None, "fix(diff):" if n == 2 else None),)),
            }))
        trials.append(trial(
            "02-breaking-change", n,
            outputs={"new": "feat: drop v1 API" if n == 2 else "feat!: drop v1 API\n\nBREAKING CHANGE: v1 is gone",
                     "baseline": "Remove v1", "previous": "feat!: remove the v1 API"},
            assertions=(AssertionResult("grep -q 'BREAKING CHANGE' \"$OUTPUT\"",
                                        1 if n == 2 else 0,
                                        stderr="grep: no BREAKING CHANGE line" if n == 2 else ""),
                        AssertionResult("sleep 100", None, timed_out=True) if n == 2 else
                        AssertionResult("true", 0)),
            comparisons={
                "efficacy": ComparisonRecord(order_ab, (Judgment("B", "B flags it", "clear"),)),
                "regression": ComparisonRecord({"A": "previous", "B": "new"}, (
                    Judgment("A" if n in (2, 4) else "TIE", "A keeps the footer", "clear"
                             if n in (2, 4) else None, "BREAKING CHANGE:" if n in (2, 4) else None),
                    Judgment("A" if n in (2, 4) else "TIE", "second judge agrees"),
                    Judgment("TIE", "third judge: " + HOSTILE))),
            }))
        comparisons = {"regression": ComparisonRecord({"A": "new", "B": "previous"}, (
            Judgment({1: "A", 2: "B"}.get(n, "TIE"), HOSTILE, "clear" if n in (1, 2) else None,
                     HOSTILE),))}
        if n != 5:
            comparisons["efficacy"] = ComparisonRecord(order_ab, (Judgment("B", HOSTILE, "clear"),))
        trials.append(trial(
            "03-hostile", n,
            outputs={"new": HOSTILE, "baseline": "plain", "previous": HOSTILE},
            assertions=(), comparisons=comparisons,
            invalid=("the arm read the tests/ folder: " + HOSTILE) if n == 3 else None))
    run = RunData(
        run=run_info("commit-message", "three-arm", [c.id for c in result.cases],
                     requested=0.0),
        cases=(case("01-small-diff", c1.description),
               case("02-breaking-change", c2.description),
               case("03-hostile", c3.description)),
        trials=tuple(sorted(trials, key=lambda t: (t.case, t.trial))))
    history = (
        history_entry("20261125T100000Z-aaaa", 2, False),
        history_entry("20261126T100000Z-bbbb", 5, True, 1, True),
        history_entry("20261127T100000Z-cccc", 9, True, 3, True),
        history_entry("20261128T100000Z-dddd", 11, True),
        history_entry("20261129T100000Z-eeee", 10, True, 2, True),
        history_entry("20261130T100000Z-ffff", 12, True, 4, True),
        history_entry("20261201T100000Z-gggg", 8, True, 1, True),
        history_entry("20261202T160000Z-3f2a", 6, False, -3, False),
    )
    return result, run, history


def clean_two_arm():
    """A new skill: two arms, every case passes without a loss. Nothing opens."""
    cases = tuple(
        CaseResult(id=cid, description=f"case {cid}",
                   efficacy=eff([W, W, W, T, W], passed=True, flips=2), regression=None,
                   expanded=False)
        for cid in ("01-alpha", "02-beta"))
    result = SkillResult(
        run_id="20261202T160000Z-3f2a", skill="clean-skill", shape="two-arm",
        verdicts=Verdicts(
            efficacy=AxisVerdict("pass", net=8, fragile_case="01-alpha", fragile_flips=2,
                                 position_bias=PositionBias(4, 8), sign_test_p=0.0078),
            regression=AxisVerdict("n/a")),
        headline="Valuable: the skill beats no skill on all 2 cases; efficacy net +8.",
        cases=cases,
        arms={"new": usage(20, 300_000, 40_000.0, 0.31),
              "baseline": usage(18, 250_000, 30_000.0, 0.22)},
        ratios=Ratios(new_vs_baseline=1.3333),
        # plan's estimate (its table is the widest on the page: it must fit a phone too)
        estimate=Estimate(
            basis="this skill", source="the last 3 runs of clean-skill",
            arms={"new": ArmEstimate(10, CellCost(29_000.0, 3_900.0, 0.03), 290_000.0, 39_000.0, 0.3),
                  "baseline": ArmEstimate(10, CellCost(26_000.0, 3_100.0, 0.02), 260_000.0, 31_000.0, 0.2)},
            raw_tokens=550_000.0, cost_equivalent_tokens=70_000.0, cost_usd=0.5))
    trials = tuple(
        TrialData(case=c.id, trial=n, outputs={"new": "ok", "baseline": "meh"},
                  assertions=(AssertionResult("true", 0),),
                  comparisons={"efficacy": ComparisonRecord({"A": "new", "B": "baseline"},
                                                            (Judgment("A", "fine", "clear"),))})
        for c in cases for n in range(1, 6))
    run = RunData(run=run_info("clean-skill", "two-arm", [c.id for c in cases],
                               applied="1", requested=1.0),
                  cases=tuple(case(c.id, c.description) for c in cases), trials=trials)
    history = (history_entry("20261202T160000Z-3f2a", 8, True),)
    return result, run, history


def main(argv: list[str]) -> int:
    from benchcore.report import LeaderboardEntry, build_index_view, build_report_view
    from benchcore.report.render import render_index, render_report

    if len(argv) != 1:
        print("usage: report_sample.py OUTDIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for name, build in (("sample-skill", failing_three_arm), ("clean-skill", clean_two_arm)):
        result, run, history = build()
        view = build_report_view(result, run, history, generated_at=GENERATED_AT)
        (out / f"{name}.html").write_text(render_report(view), encoding="utf-8")
        entries.append(LeaderboardEntry(result.skill, result, f"{name}.html"))
    index = build_index_view(entries, GENERATED_AT)
    (out / "index.html").write_text(render_index(index), encoding="utf-8")
    print(f"wrote {out}/sample-skill.html, {out}/clean-skill.html, {out}/index.html")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
