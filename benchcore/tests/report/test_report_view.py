"""The report's view model: every sentence and number the page shows, before any HTML."""

from __future__ import annotations

import pytest

from benchcore.model import AxisResult, HistoryEntry, evolve
from benchcore.report import fmt
from benchcore.report.view.trend import build_ribbon
from benchcore.report.view.page import build_report_view
from benchcore.report.view.cases import axis_summary
from benchcore.report.view.header import temperature_text

from report_sample import GENERATED_AT, clean_two_arm, failing_three_arm, history_entry


def view_of(build):
    result, run, history = build()
    return build_report_view(result, run, history, generated_at=GENERATED_AT)


def panel(view, case_id):
    return next(c for c in view.cases if c.id == case_id)


# --- formatting -------------------------------------------------------------

@pytest.mark.parametrize("trials, text", [
    ([5], "5"), ([3, 4], "3, 4"), ([1, 2, 3, 4, 5], "1-5"), ([1, 2, 3, 5], "1-3, 5"),
    ([4, 1, 3], "1, 3, 4"), ([], ""),
])
def test_trial_list_compresses_runs_of_three_or_more(trials, text):
    assert fmt.trial_list(trials) == text


@pytest.mark.parametrize("value, text", [
    (1.8, "1.80x"), (0.9474, "0.95x"), (None, "n/a"), (12.0, "12.00x"),
])
def test_ratio(value, text):
    assert fmt.ratio(value) == text


@pytest.mark.parametrize("value, text", [
    (1.2345, "$1.23"), (1234.5, "$1,234.50"), (0.0, "$0.00"), (0.001, "< $0.01"),
])
def test_dollars(value, text):
    assert fmt.dollars(value) == text


@pytest.mark.parametrize("p, text", [
    (0.0313, "p = 0.031"), (0.0004, "p < 0.001"), (1.0, "p = 1"), (0.625, "p = 0.625"),
])
def test_p_value(p, text):
    assert fmt.p_value(p) == text


def test_hrefs_are_percent_encoded_so_no_scheme_survives():
    assert fmt.file_href("javascript:alert(1).html") == "javascript%3Aalert%281%29.html"
    assert fmt.case_href("02 x/y") == "#case-02%20x%2Fy"
    assert fmt.case_href("01-small-diff") == "#case-01-small-diff"


# --- header -----------------------------------------------------------------

def test_temperature_says_plainly_when_the_requested_one_was_not_applied():
    assert temperature_text(0.0, "session default") == (
        "requested 0, ran at the session default: "
        "Claude Code cannot set a subagent's temperature")
    assert temperature_text(1.0, "1") == "1"
    # Regression test: the default request (1) was reported as if it had not been honoured.
    assert temperature_text(1.0, "session default") == "1 (the session default, as requested)"
    assert temperature_text(1.0, "0.7") == "requested 1, ran at 0.7"


def test_badges_of_a_failing_three_arm_run_carry_no_chip():
    view = view_of(failing_three_arm)
    assert [(b.axis, b.text, b.css, b.net) for b in view.badges] == [
        ("Efficacy", "fail", "fail", "net +6"), ("Regression", "fail", "fail", "net -3")]
    assert all(b.chip is None for b in view.badges)


def test_green_badge_names_its_narrowest_case_and_regression_reads_na_on_two_arm():
    view = view_of(clean_two_arm)
    efficacy, regression = view.badges
    assert (efficacy.text, efficacy.chip, efficacy.chip_href) == (
        "pass", "narrowest: 01-alpha, 2 flips from failing", "#case-01-alpha")
    assert (regression.text, regression.css, regression.net, regression.chip) == (
        "n/a", "na", "", None)


def test_green_regression_badge_names_the_first_case_at_one_loss():
    result, run, history = failing_three_arm()
    result = evolve(result, verdicts=evolve(result.verdicts, regression=evolve(
        result.verdicts.regression, status="pass", fragile_case="01-small-diff")))
    view = build_report_view(result, run, history, generated_at=GENERATED_AT)
    assert view.badges[1].chip == "narrowest: 01-small-diff, at 1 loss: 1 more loss fails it"


def test_jump_link_targets_the_first_case_that_fails():
    view = view_of(failing_three_arm)
    assert (view.jump_href, view.jump_label) == ("#case-02-breaking-change",
                                                 "Jump to the first failure: 02-breaking-change")
    assert view_of(clean_two_arm).jump_href is None


def test_no_jump_link_on_a_run_whose_verdicts_are_green():
    # Bug: one regression loss in a passing case put "Jump to the first failure" on a green run.
    result, run, history = failing_three_arm()
    green = (evolve(result.cases[0]),)  # 01-small-diff: passes both axes, one regression loss
    result = evolve(result, cases=green, verdicts=evolve(result.verdicts, efficacy=evolve(
        result.verdicts.efficacy, status="pass"), regression=evolve(result.verdicts.regression, status="pass")))
    view = build_report_view(result, run, history, generated_at=GENERATED_AT)
    assert view.jump_href is None and view.jump_label is None


def test_meta_names_branch_commit_trials_and_models():
    view = view_of(failing_three_arm)
    meta = {m.label: m for m in view.meta}
    assert meta["Default branch"].value == "trunk @ 0123456789"
    assert meta["Default branch"].title == "0123456789abcdef0123456789abcdef01234567"
    assert meta["Trials"].value == "5 per case, 3 cases"
    assert meta["Model"].value == "claude-sonnet-4-6 (every arm)"


def test_meta_says_when_the_remote_branch_differs_from_the_local_one_used():
    result, run, history = failing_three_arm()
    branch = evolve(run.run.default_branch, remote="origin/trunk", remote_commit="fedcba9876543210" * 2 + "fedcba98")
    run = evolve(run, run=evolve(run.run, default_branch=branch))
    meta = {m.label: m for m in build_report_view(result, run, history, generated_at=GENERATED_AT).meta}
    assert meta["Default branch"].value == "trunk @ 0123456789 (the local branch; origin/trunk is at fedcba9876)"


def test_models_per_arm_when_they_differ():
    result, run, history = clean_two_arm()
    run = evolve(run, run=evolve(run.run, resolved_models={
        "new": ("claude-opus-4-5",), "baseline": ("claude-sonnet-4-6",)}))
    meta = {m.label: m.value for m in build_report_view(
        result, run, history, generated_at=GENERATED_AT).meta}
    assert meta["Model, new skill"] == "claude-opus-4-5"
    assert meta["Model, no skill"] == "claude-sonnet-4-6"


# --- ribbons ----------------------------------------------------------------

def test_ribbons_read_current_net_change_and_green_count():
    efficacy, regression = view_of(failing_three_arm).ribbons
    assert (efficacy.current_net, efficacy.change, efficacy.green) == (
        "net +6", "-2 vs previous run", "6 of 7 green")
    assert (regression.current_net, regression.change, regression.green) == (
        "net -3", "-4 vs previous run", "5 of 6 green; 1 two-arm run without one")
    assert efficacy.readouts == (
        "position bias: first-shown output won 9 of 14 decisive verdicts (64%)",
        "sign test: p = 0.031 over 11 wins vs 2 losses")


def test_regression_ribbon_leaves_a_gap_for_a_two_arm_run():
    result, _, history = failing_three_arm()
    ribbon = build_ribbon("regression", result, history)
    # 7 runs shown, one of them two-arm: 6 dots; the line breaks on both sides of the gap.
    assert len(ribbon.dots) == 6
    assert len(ribbon.lines) == 4  # runs 1-2 joined, runs 4-7 joined
    gap_x = {d.cx for d in ribbon.dots}
    efficacy = build_ribbon("efficacy", result, history)
    assert len(efficacy.dots) == 7 and len(efficacy.lines) == 6
    assert len({d.cx for d in efficacy.dots} - gap_x) == 1  # the missing dot is the gap


def test_only_the_current_run_is_ringed_and_it_sits_at_the_right_end():
    result, _, history = failing_three_arm()
    ribbon = build_ribbon("efficacy", result, history)
    current = [d for d in ribbon.dots if d.current]
    assert len(current) == 1
    assert current[0] is ribbon.dots[-1]
    assert current[0].css == "fail"
    assert "(this run)" in current[0].title


def test_first_run_and_change_against_an_older_three_arm_run():
    result, _, _ = failing_three_arm()
    first = build_ribbon("efficacy", result, (history_entry(result.run_id, 6, False, -3, False),))
    assert first.change == "first run"
    assert first.green == "0 of 1 green"
    skipping = (history_entry("r1", 1, True, 1, True), history_entry("r2", 2, True),
                history_entry(result.run_id, 6, False, -3, False))
    assert build_ribbon("regression", result, skipping).change == "-4 vs previous three-arm run"


def test_two_arm_ribbon_is_na_with_an_empty_sparkline():
    regression = view_of(clean_two_arm).ribbons[1]
    assert regression.current_net == "n/a"
    assert regression.dots == () and regression.empty == "no three-arm run yet"
    assert regression.readouts == ("position bias and sign test: n/a on a two-arm run",)


def test_sign_test_without_decisive_trials():
    result, _, history = clean_two_arm()
    result = evolve(result, verdicts=evolve(result.verdicts, efficacy=evolve(
        result.verdicts.efficacy, sign_test_p=None, position_bias=None)))
    assert build_ribbon("efficacy", result, history).readouts == (
        "position bias: not recorded", "sign test: n/a: no decisive trials")


# --- verdict ----------------------------------------------------------------

def test_counts_and_notices_back_the_headline():
    view = view_of(failing_three_arm)
    assert view.headline == failing_three_arm()[0].headline  # the results' sentence, as written
    assert view.counts == "Efficacy: 1 of 3 cases pass · Regression: 2 of 3 cases hold"
    assert view.notices == (
        "This run is incomplete: no judgment for 03-hostile efficacy (trial 5). "
        "An incomplete axis does not pass; finish judging, then render again.",
        "02-breaking-change regression: judges split on trials 1, 3-5; "
        "ask two more judges per trial (collect names them)",
        "1 trial must be re-run: 03-hostile trial 3",
    )
    assert view_of(clean_two_arm).counts == (
        "Efficacy: 2 of 2 cases pass · Regression: n/a (two-arm run)")
    assert view_of(clean_two_arm).notices == ()


# --- cost -------------------------------------------------------------------

def test_cost_table_rows_and_ratios():
    cost = view_of(failing_three_arm).cost
    assert [(r.label, r.turns, r.raw_tokens, r.cost_equivalent, r.cost) for r in cost.rows] == [
        ("new skill", "61", "1,234,567", "180,000", "$1.23"),
        ("previous version", "55", "1,100,000", "190,000", "no price for claude-mystery-9"),
        ("no skill", "48", "900,000", "100,000", "$0.75"),
    ]
    assert [(r.label, r.value) for r in cost.ratios] == [
        ("new / no-skill", "1.80x"), ("new / previous", "0.95x")]
    assert "cache overhead" in cost.footnote and "ratios" in cost.footnote


def test_two_arm_cost_table_has_no_previous_row_nor_ratio():
    cost = view_of(clean_two_arm).cost
    assert [r.label for r in cost.rows] == ["new skill", "no skill"]
    assert [r.label for r in cost.ratios] == ["new / no-skill"]


# --- cases ------------------------------------------------------------------

@pytest.mark.parametrize("key, outcomes, passed, gated_trials, text", [
    ("efficacy", ["WIN", "WIN", "TIE", "WIN", "LOSS"], True, (),
     "3 wins, 1 tie, 1 loss: passes (needs >= 3 wins and <= 1 loss)"),
    ("efficacy", ["WIN", "WIN", "TIE", "TIE", "LOSS"], False, (),
     "2 wins, 2 ties, 1 loss: fails (needs >= 3 wins and <= 1 loss)"),
    ("efficacy", ["WIN", "LOSS", "WIN", "WIN", "LOSS"], False, (2, 5),
     "gated: a hard assertion failed on trials 2, 5"),
    ("efficacy", ["WIN", "WIN", None, None, "WIN"], False, (),
     "incomplete: no judgment for trials 3, 4"),
    ("regression", ["TIE", "LOSS", "TIE", "LOSS", "TIE"], False, (),
     "0 wins, 3 ties, 2 losses: fails (holds with <= 1 loss)"),
    ("regression", ["WIN", "TIE", "TIE", "TIE", "LOSS"], True, (),
     "1 win, 3 ties, 1 loss: passes (holds with <= 1 loss)"),
])
def test_axis_summary(key, outcomes, passed, gated_trials, text):
    axis = AxisResult(outcomes=tuple(outcomes), wins=outcomes.count("WIN"),
                      ties=outcomes.count("TIE"), losses=outcomes.count("LOSS"), passed=passed,
                      flagged="LOSS" in outcomes, incomplete=None in outcomes,
                      gated=bool(gated_trials) if key == "efficacy" else None)
    assert axis_summary(key, axis, gated_trials) == text


def test_cases_keep_result_order_and_open_exactly_when_expanded():
    result, run, history = failing_three_arm()
    cases = tuple(evolve(c, expanded=(c.id == "02-breaking-change")) for c in result.cases)
    view = build_report_view(evolve(result, cases=cases), run, history,
                             generated_at=GENERATED_AT)
    assert [(c.id, c.anchor, c.open) for c in view.cases] == [
        ("01-small-diff", "case-01-small-diff", False),
        ("02-breaking-change", "case-02-breaking-change", True),
        ("03-hostile", "case-03-hostile", False)]


def test_a_losing_trial_shows_both_outputs_and_every_judge():
    efficacy, regression = panel(view_of(failing_three_arm), "01-small-diff").axes
    [loss] = efficacy.losses
    assert loss.title == "Trial 5: lost to no skill"
    assert [(o.label, o.text) for o in loss.outputs] == [
        ("new skill", "fix: handle empty diff (trial 5)"), ("no skill", "Fixed a bug in trial 5")]
    assert [(j.label, j.verdict, j.rationale, j.quote) for j in loss.judges] == [
        ("Judge 1", "preferred no skill (clear)", "baseline names the file", "Fixed a bug")]
    [reg_loss] = regression.losses
    assert reg_loss.title == "Trial 2: lost to previous version"
    assert reg_loss.outputs[1].text == "fix: empty diff, previous version, trial 2"
    assert reg_loss.judges[0].verdict == "preferred previous version (slight)"


def test_a_gated_trial_shows_its_failed_commands_and_no_judging():
    efficacy, regression = panel(view_of(failing_three_arm), "02-breaking-change").axes
    assert efficacy.summary == "gated: a hard assertion failed on trial 2"
    assert efficacy.losses == ()  # the gated loss is shown as a gate, not as a judged loss
    [gate] = efficacy.gates
    assert [(c.command, c.outcome, c.stderr) for c in gate.commands] == [
        ("grep -q 'BREAKING CHANGE' \"$OUTPUT\"", "exit 1", "grep: no BREAKING CHANGE line"),
        ("sleep 100", "timed out", "")]
    assert gate.output.text == "feat: drop v1 API"
    assert [c.note for c in efficacy.cells] == [None, "gated", None, None, None]
    # The gate fails the case on both axes: regression's trial 2 says the new version failed the gate (the
    # previous version did not win it); trial 4 is a judged loss.
    assert regression.summary == "gated: the new version failed a hard assertion on trial 2"
    assert [c.note for c in regression.cells] == [None, "gated", None, None, None]
    assert [g.commands[0].command for g in regression.gates] == ["grep -q 'BREAKING CHANGE' \"$OUTPUT\""]
    assert [l.title for l in regression.losses] == ["Trial 4: lost to previous version"]
    assert [j.verdict for j in regression.losses[0].judges] == [
        "preferred previous version (clear)", "preferred previous version",
        "called it a tie"]


def test_missing_and_invalid_trials():
    case = panel(view_of(failing_three_arm), "03-hostile")
    efficacy = case.axes[0]
    assert [(c.text, c.css) for c in efficacy.cells][-1] == ("—", "missing")
    assert efficacy.summary == "incomplete: no judgment for trial 5"
    assert efficacy.cells[2].note == "invalid"
    assert case.invalid[0].startswith("trial 3 is invalid and must be re-run: the arm read")


def test_a_two_arm_case_shows_efficacy_only():
    case = view_of(clean_two_arm).cases[0]
    assert [a.axis for a in case.axes] == ["Efficacy"]
    assert [p.text for p in case.pills] == ["Efficacy: pass"]
    assert view_of(clean_two_arm).cost.footnote.endswith("the trustworthy figure is the ratio new / no-skill, "
                                                         "in cost-equivalent tokens.")


def test_a_failed_predicate_shows_the_comment_above_it_in_case_md():
    # The README says the comment above a predicate is what a reader sees; the report showed the command only.
    from benchcore.model import HardAssertion
    result, run, history = failing_three_arm()
    cases = tuple(evolve(c, hard_assertions=(HardAssertion("grep -q 'BREAKING CHANGE' \"$OUTPUT\"", 9,
                                                           comment="the message has a BREAKING CHANGE footer"),))
                  if c.id == "02-breaking-change" else c for c in run.cases)
    view = build_report_view(result, evolve(run, cases=cases), history, generated_at=GENERATED_AT)
    [gate] = panel(view, "02-breaking-change").axes[0].gates
    assert [(c.comment, c.outcome) for c in gate.commands] == [
        ("the message has a BREAKING CHANGE footer", "exit 1"), (None, "timed out")]


def test_a_fenced_block_keeps_its_lines_and_prose_wraps():
    from benchcore.report.view.evidence import segments
    text = "Here it is:\n```text\nfix(billing): round once\n\n" + "x" * 72 + "\n```\nCommit it yourself."
    assert [(s.css, s.text) for s in segments(text)] == [
        ("prose", "Here it is:"),
        ("code", "```text\nfix(billing): round once\n\n" + "x" * 72 + "\n```"),
        ("prose", "Commit it yourself."),
    ]
    assert [s.css for s in segments("~~~\nunclosed")] == ["code"]


def test_an_incomplete_run_in_the_history_is_not_a_red_dot():
    from benchcore.model import AxisSummary, HistoryEntry
    result, _, history = clean_two_arm()
    waiting = HistoryEntry(run_id="20261201T100000Z-wait", at="x", shape="two-arm", default_branch_commit=None,
                           efficacy=AxisSummary(4, False, 4, 0, 0, incomplete=True))
    ribbon = build_ribbon("efficacy", result, (*history[:-1], waiting, history[-1]))
    dot = next(d for d in ribbon.dots if d.title.startswith("20261201T100000Z-wait"))
    assert dot.css == "incomplete" and dot.title.endswith("not final")
    assert "(1 not final)" in ribbon.green and "+4 not final" in ribbon.description


def test_a_missing_output_is_said_not_left_blank():
    result, run, history = failing_three_arm()
    trials = tuple(evolve(t, outputs={"new": t.outputs["new"]})
                   if (t.case, t.trial) == ("01-small-diff", 5) else t for t in run.trials)
    view = build_report_view(result, evolve(run, trials=trials), history,
                             generated_at=GENERATED_AT)
    other = panel(view, "01-small-diff").axes[0].losses[0].outputs[1]
    assert other.missing and other.text == "no output.md was collected for the no skill arm"


def test_footer_and_purity():
    result, run, history = failing_three_arm()
    a = build_report_view(result, run, history, generated_at="T1")
    b = build_report_view(result, run, history, generated_at="T1")
    assert a == b
    assert a.generated_at == "T1"
    assert isinstance(history[0], HistoryEntry)


def test_the_view_modules_do_not_import_jinja2():
    # Only render.py may pull in Jinja2, so every other command starts without it.
    import subprocess
    import sys
    code = ("import sys, benchcore.report, benchcore.report.view.page, benchcore.report.index; "
            "print('jinja2' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_an_empty_history_still_gives_readable_ribbons():
    result, run, _ = failing_three_arm()
    efficacy, regression = build_report_view(result, run, (), generated_at=GENERATED_AT).ribbons
    assert (efficacy.current_net, efficacy.change, efficacy.empty) == (
        "net +6", "first run", "no runs yet")
    assert (regression.current_net, regression.empty) == ("net -3", "no three-arm run yet")
