"""Table-driven tests of the pass rules (docs/run-format.md, the rules), one table per function."""

import pytest

from benchcore import scoring
from benchcore.model import AssertionResult, ComparisonRecord, Judgment

NEW_IS_B = {"A": "baseline", "B": "new"}
NEW_IS_A = {"A": "new", "B": "previous"}


@pytest.mark.parametrize("verdict,order,expected", [
    ("B", NEW_IS_B, "WIN"),
    ("A", NEW_IS_B, "LOSS"),
    ("A", NEW_IS_A, "WIN"),
    ("B", NEW_IS_A, "LOSS"),
    ("TIE", NEW_IS_A, "TIE"),
], ids=["new-is-B-wins", "other-letter-loses", "new-is-A-wins", "new-is-A-loses", "tie"])
def test_collapse(verdict, order, expected):
    assert scoring.collapse(verdict, order) == expected


def test_collapse_rejects_unknown_verdict():
    with pytest.raises(ValueError):
        scoring.collapse("C", NEW_IS_B)


@pytest.mark.parametrize("outcomes,expected", [
    (["WIN"], "WIN"),
    (["LOSS", "WIN", "WIN"], "WIN"),  # the original judge is outvoted
    (["WIN", "LOSS", "LOSS"], "LOSS"),
    (["WIN", "LOSS", "TIE"], "TIE"),  # no strict majority
    (["TIE", "TIE", "WIN"], "TIE"),
    (["WIN", "LOSS"], "TIE"),
], ids=["single", "panel-overrules", "panel-loss", "three-way", "tie-majority", "two-split"])
def test_majority(outcomes, expected):
    assert scoring.majority(outcomes) == expected


def test_strength_never_changes_an_outcome():
    weak = ComparisonRecord(order=NEW_IS_B, judgments=(Judgment("B", "x", "slight"),))
    strong = ComparisonRecord(order=NEW_IS_B, judgments=(Judgment("B", "x", "clear"),))
    assert scoring.trial_outcome(weak) == scoring.trial_outcome(strong) == "WIN"


def test_trial_outcome_without_judgment_is_none():
    assert scoring.trial_outcome(None) is None
    assert scoring.trial_outcome(ComparisonRecord(order=NEW_IS_B)) is None


@pytest.mark.parametrize("results,n_failed", [
    (None, 0),
    ([AssertionResult("true", 0)], 0),
    ([AssertionResult("true", 0), AssertionResult("false", 1, stderr="no")], 1),
    ([AssertionResult("sleep 99", None, timed_out=True)], 1),
], ids=["not-run", "all-pass", "one-fails", "timed-out"])
def test_failed_assertions(results, n_failed):
    assert len(scoring.failed_assertions(results)) == n_failed


@pytest.mark.parametrize("wins,losses,gated,incomplete,expected", [
    (3, 1, False, False, True),
    (3, 2, False, False, False),
    (2, 0, False, False, False),
    (5, 0, True, False, False),
    (4, 0, False, True, False),
    (3, 0, False, False, True),
], ids=["3w1l-pass", "two-losses", "two-wins", "gated", "incomplete", "3w-2t"])
def test_efficacy_pass(wins, losses, gated, incomplete, expected):
    assert scoring.efficacy_pass(wins, losses, gated, incomplete) is expected


@pytest.mark.parametrize("losses,incomplete,gated,expected", [
    (0, False, False, True), (1, False, False, True), (2, False, False, False), (0, True, False, False),
    (0, False, True, False),
], ids=["steady", "one-loss-holds", "two-losses-regress", "incomplete", "gated-fails-whatever-the-judges-say"])
def test_regression_pass(losses, incomplete, gated, expected):
    # The gate fails the case outright on both axes (a failed hard assertion, not a lost head-to-head).
    assert scoring.regression_pass(losses, incomplete, gated) is expected


@pytest.mark.parametrize("wins,losses,passed,expected", [
    (3, 0, True, 1), (3, 1, True, 1), (4, 1, True, 1), (4, 0, True, 2), (5, 0, True, 2),
    (2, 0, False, None),
], ids=["3-0", "3-1", "4-1", "4-0", "5-0", "failing-is-null"])
def test_flips_to_fail(wins, losses, passed, expected):
    assert scoring.flips_to_fail(wins, losses, passed) == expected


@pytest.mark.parametrize("firsts,expected", [
    (["WIN", "WIN", "LOSS", "LOSS", "TIE"], True),
    (["WIN", "WIN", "LOSS", None, None], False),  # missing trials are not counted
    (["WIN", "WIN", "WIN", "LOSS", "TIE"], False),
    (["LOSS", "LOSS", "WIN", "WIN"], True),
], ids=["2-2-split", "missing-not-counted", "3-1-clear", "4-trials-split"])
def test_is_split(firsts, expected):
    assert scoring.is_split(firsts) is expected


@pytest.mark.parametrize("wins,losses,expected", [
    (0, 0, None),
    (1, 0, 1.0),
    (5, 0, 0.0625),           # 2 * (1/32)
    (12, 2, 0.012939453125),  # 2 * (1 + 14 + 91) / 16384
    (3, 3, 1.0),              # capped at 1
    (0, 6, 0.03125),          # symmetric: 2 * 1/64
], ids=["none", "single", "5-0", "12-2", "even", "all-losses"])
def test_sign_test_p(wins, losses, expected):
    assert scoring.sign_test_p(wins, losses) == expected


def test_position_bias_counts_decisive_and_first_shown():
    js = [Judgment("A"), Judgment("A"), Judgment("B"), Judgment("TIE")]
    pb = scoring.position_bias(js)
    assert (pb.first_shown_won, pb.decisive) == (2, 3)


@pytest.mark.parametrize("cases,expected", [
    ([("01", 2), ("02", 1), ("03", 1)], ("02", 1)),  # first in case order on a tie
    ([("01", 2), ("02", 2)], ("01", 2)),             # named whatever the minimum
    ([("01", None)], (None, None)),
], ids=["first-of-tie", "named-at-two", "none-passing"])
def test_efficacy_fragile(cases, expected):
    assert scoring.efficacy_fragile(cases) == expected


@pytest.mark.parametrize("cases,expected", [
    ([("01", 0), ("02", 1), ("03", 1)], "02"), ([("01", 0)], None),
], ids=["first-at-one-loss", "none"])
def test_regression_fragile(cases, expected):
    assert scoring.regression_fragile(cases) == expected


@pytest.mark.parametrize("wins,losses,missing,gated,expected", [
    (2, 0, 1, False, True),    # W W T T -: a win on the last trial passes it
    (1, 0, 1, False, False),   # a win on the one missing trial still leaves 2
    (3, 2, 1, False, False),   # two losses already
    (4, 0, 1, True, False),    # gated
    (4, 0, 0, False, False),   # complete: decided, nothing to wait for
], ids=["could-pass", "short-of-wins", "two-losses", "gated", "complete"])
def test_efficacy_undecided(wins, losses, missing, gated, expected):
    assert scoring.efficacy_undecided(wins, losses, missing, gated) is expected


@pytest.mark.parametrize("losses,missing,gated,expected", [(1, 1, False, True), (2, 1, False, False),
                                                          (0, 0, False, False), (0, 1, True, False)],
                         ids=["one-loss-could-hold", "two-losses", "complete", "gated"])
def test_regression_undecided(losses, missing, gated, expected):
    assert scoring.regression_undecided(losses, missing, gated) is expected
