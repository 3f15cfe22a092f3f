"""The report as a new user reads it (issue 39, item 9): the fragile label on the skill's own page beside the
badge it concerns, the Claude Code version marker as visible text, a run recorded below the supported floor
said so, and the leaderboard agreeing with the headline on a gated skill."""

from __future__ import annotations

from benchcore.model import evolve
from benchcore.report.index import CATEGORY_LABELS, category
from benchcore.report.render import render_report
from benchcore.report.view.page import build_report_view
from benchcore.report.view.trend import build_ribbon

from report_sample import GENERATED_AT, clean_two_arm, failing_three_arm, reg
from test_report_index import FRAGILE_EFFICACY, REGRESSION_AT_ONE_LOSS
from test_report_served import served


def _page(result, floor=None):
    _, run, history = clean_two_arm()
    view = build_report_view(result, run, history, generated_at=GENERATED_AT, floor=floor)
    return view, render_report(view)


def test_the_fragile_label_sits_beside_the_badge_it_concerns():
    # Bug: the leaderboard said "fragile", the skill's own page did not.
    view, html = _page(FRAGILE_EFFICACY)
    assert [(b.axis, b.label) for b in view.badges] == [("Efficacy", "fragile"), ("Regression", None)]
    badge = html.index('<span class="badge-axis">Efficacy</span>')
    assert html.index('<span class="standing standing-fragile">fragile</span>', badge) < \
        html.index('<span class="badge-axis">Regression</span>')
    view, html = _page(REGRESSION_AT_ONE_LOSS)
    assert [(b.axis, b.label) for b in view.badges] == [("Efficacy", None), ("Regression", "fragile")]
    assert html.index('<span class="badge-axis">Regression</span>') < \
        html.index('<span class="standing standing-fragile">fragile</span>')
    view, html = _page(clean_two_arm()[0])  # two flips away: not fragile, and no label
    assert [b.label for b in view.badges] == [None, None] and '<span class="standing standing-fragile">' not in html
    assert category(FRAGILE_EFFICACY) == category(REGRESSION_AT_ONE_LOSS) == "fragile"  # the leaderboard agrees


def test_the_claude_code_version_marker_is_visible_text_not_only_a_tooltip():
    # Bug: the marker was an SVG <title>, shown on no phone and in no screenshot.
    result, run, history = failing_three_arm()
    history = served(history, at_from=len(history) - 1, model="claude-opus-5-5", version="2.1.332")
    ribbon = build_ribbon("efficacy", result, history)
    assert ribbon.changes == (f"CC: {result.run_id} (this run): Claude Code 2.1.328 -> 2.1.332",)
    assert [d.mark for d in ribbon.dots if d.changed] == ["CC"]
    html = render_report(build_report_view(result, run, history, generated_at=GENERATED_AT))
    assert html.count('<text class="changed-mark"') == 2  # on both ribbons, drawn, not a tooltip
    assert html.count(f"<li>CC: {result.run_id} (this run): Claude Code 2.1.328 -&gt; 2.1.332</li>") == 2
    same = served(history, at_from=0, model="claude-opus-5-5", version="2.1.328")
    assert build_ribbon("efficacy", result, same).changes == ()


def test_a_run_below_the_supported_floor_says_it_predates_it():
    # Bug: the bundled example showed Claude Code 2.1.178, below the floor, with no note.
    old = evolve(clean_two_arm()[0], claude_code=("2.1.178",))
    view, html = _page(old, floor="2.1.328")
    [note] = [n for n in view.notices if "predates" in n]
    assert note.startswith("Recorded on Claude Code 2.1.178, older than 2.1.328, the oldest version this benchmark "
                           "supports: this run predates it")
    assert note in html
    for versions, floor in ((("2.1.328",), "2.1.328"), (("2.1.332",), "2.1.328"), (("2.1.178",), None), ((), "2.1.328")):
        view, _ = _page(evolve(old, claude_code=versions), floor=floor)
        assert not any("predates" in n for n in view.notices), (versions, floor)


def test_a_gated_skill_is_not_called_regressed_where_its_headline_says_it_regressed_none():
    # Bug: the leaderboard row said "regressed" while the headline said "regressed none where compared". The
    # sample's regression fails only on 02-breaking-change, whose new version failed a hard assertion.
    gated = failing_three_arm()[0]
    assert [c.id for c in gated.cases if c.regression and not c.regression.passed] == ["02-breaking-change"]
    assert category(gated) == "gated" and CATEGORY_LABELS["gated"] == "failed a hard assertion"
    # A regression the judges found is still called one.
    judged = evolve(gated, cases=tuple(
        evolve(c, regression=reg(["LOSS", "LOSS", "TIE", "TIE", "TIE"], passed=False)) if c.id == "01-small-diff"
        else c for c in gated.cases))
    assert category(judged) == "regression-red"


def test_the_bundled_example_says_it_predates_the_supported_floor(tmp_path, capsys):
    from benchcore.cli import main

    main(["render", "--example", "--reports", str(tmp_path)])
    capsys.readouterr()
    html = (tmp_path / "commit-message.html").read_text(encoding="utf-8")
    assert "Recorded on Claude Code 2.1.178, older than 2.1.328, the oldest version this benchmark supports: this " \
           "run predates it" in html
