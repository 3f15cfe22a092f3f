"""The leaderboard's order and rows (index.html), from each skill's latest result."""

from __future__ import annotations

import pytest

from benchcore.model import AxisVerdict, evolve
from benchcore.report import LeaderboardEntry, build_index_view
from benchcore.report.index import category, fragile_note

from report_sample import GENERATED_AT, clean_two_arm, failing_three_arm, reg


def with_verdicts(result, efficacy=None, regression=None, **changes):
    verdicts = result.verdicts
    if efficacy is not None:
        verdicts = evolve(verdicts, efficacy=efficacy)
    if regression is not None:
        verdicts = evolve(verdicts, regression=regression)
    return evolve(result, verdicts=verdicts, **changes)


CLEAN = clean_two_arm()[0]  # efficacy pass, narrowest case 2 flips away, regression n/a
FAILING = failing_three_arm()[0]  # both red
EFFICACY_RED = with_verdicts(CLEAN, efficacy=AxisVerdict("fail", net=1))
FRAGILE_EFFICACY = with_verdicts(
    CLEAN, efficacy=AxisVerdict("pass", net=4, fragile_case="02-beta", fragile_flips=1))
REGRESSION_AT_ONE_LOSS = with_verdicts(
    CLEAN, regression=AxisVerdict("pass", net=-1, fragile_case="01-alpha"), shape="three-arm",
    cases=(evolve(CLEAN.cases[0], regression=reg(["TIE", "LOSS", "TIE", "TIE", "TIE"],
                                                 passed=True)),
           evolve(CLEAN.cases[1], regression=reg(["TIE"] * 5, passed=True))))
ONLY_REGRESSION_RED = with_verdicts(CLEAN, regression=AxisVerdict("fail", net=-4))


@pytest.mark.parametrize("result, expected", [
    (FAILING, "gated"),  # its regression fails only where the new version failed a hard assertion
    (ONLY_REGRESSION_RED, "regression-red"),
    (EFFICACY_RED, "efficacy-red"),
    (FRAGILE_EFFICACY, "fragile"),
    (REGRESSION_AT_ONE_LOSS, "fragile"),
    (CLEAN, "green"),
    (None, "no-run"),
], ids=["both-red", "regression-red", "efficacy-red", "efficacy-one-flip",
        "regression-one-loss", "clean", "no-run"])
def test_category(result, expected):
    assert category(result) == expected


def test_fragile_note_says_why():
    assert fragile_note(FRAGILE_EFFICACY) == "efficacy: 02-beta, 1 flip from failing"
    assert fragile_note(REGRESSION_AT_ONE_LOSS) == "regression: 01-alpha at 1 loss"
    assert fragile_note(CLEAN) is None


def test_efficacy_flips_fall_back_to_the_fragile_case_own_count():
    # A verdict that names its fragile case but not the flips: the case's flips_to_fail counts.
    cases = (evolve(CLEAN.cases[0], efficacy=evolve(CLEAN.cases[0].efficacy, flips_to_fail=1)),
             CLEAN.cases[1])
    result = with_verdicts(CLEAN, efficacy=AxisVerdict("pass", net=4, fragile_case="01-alpha"),
                           cases=cases)
    assert category(result) == "fragile"


def test_order_regression_red_then_efficacy_red_then_fragile_then_clean_then_by_name():
    entries = [
        LeaderboardEntry("a-clean", CLEAN, "a-clean.html"),
        LeaderboardEntry("b-fragile", FRAGILE_EFFICACY, "b-fragile.html"),
        LeaderboardEntry("a-fragile", REGRESSION_AT_ONE_LOSS, "a-fragile.html"),
        LeaderboardEntry("c-efficacy", EFFICACY_RED, "c-efficacy.html"),
        LeaderboardEntry("d-regressed", FAILING, "d-regressed.html"),
        LeaderboardEntry("b-regressed", ONLY_REGRESSION_RED, "b-regressed.html"),
        LeaderboardEntry("0-untested", None, "0-untested.html"),
    ]
    view = build_index_view(entries, GENERATED_AT)
    assert [(r.skill, r.category) for r in view.rows] == [
        ("b-regressed", "regression-red"),
        ("d-regressed", "gated"),
        ("c-efficacy", "efficacy-red"),
        ("a-fragile", "fragile"),
        ("b-fragile", "fragile"),
        ("a-clean", "green"),
        ("0-untested", "no-run"),
    ]
    assert view.summary == ("7 skills: 1 regressed, 1 failed a hard assertion, 1 not yet effective, 2 fragile, "
                            "1 clean, 1 not run")
    assert view.generated_at == GENERATED_AT


def test_rows_carry_badges_nets_links_and_headline():
    view = build_index_view([LeaderboardEntry("commit-message", FAILING, "commit-message.html"),
                             LeaderboardEntry("new one", CLEAN, "new one.html"),
                             LeaderboardEntry("never", None, "never.html")], GENERATED_AT)
    failing, clean, never = view.rows
    assert (failing.href, failing.efficacy_net, failing.regression_net, failing.headline) == (
        "commit-message.html", "+6", "-3", FAILING.headline)
    assert [b.text for b in failing.badges] == ["fail", "fail"]
    assert all(b.chip is None for b in failing.badges)
    assert (clean.href, clean.regression_net) == ("new%20one.html", "n/a")
    assert (never.href, never.badges, never.headline) == (
        None, (), "No benchmark run rendered yet.")
