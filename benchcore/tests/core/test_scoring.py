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


# ----------------------------------------------------------------------------- confirmed judging (issue 28)

NEW_FIRST = {"A": "new", "B": "previous"}


def _record(*pairs):
    """ComparisonRecord with the new arm shown first: (verdict, confirmation verdict or None) per judgment."""
    return ComparisonRecord(order=NEW_FIRST, judgments=tuple(Judgment(verdict=v) for v, _ in pairs),
                            confirmations=tuple(None if c is None else Judgment(verdict=c) for _, c in pairs))


@pytest.mark.parametrize("reading,confirmation,expected", [
    ("A", "B", "WIN"),     # new first then second: named both times
    ("A", "A", "TIE"),     # the first shown both times: position, not quality
    ("B", "A", "LOSS"),
    ("B", "TIE", "TIE"),   # the second reading would not pick: a disagreement
    ("TIE", None, "TIE"),  # nothing to confirm
    ("A", None, None),     # awaiting its second reading
], ids=["confirmed-win", "position-flip", "confirmed-loss", "tie-on-swap", "tie-unconfirmed", "pending"])
def test_confirmed(reading, confirmation, expected):
    c = None if confirmation is None else Judgment(verdict=confirmation)
    assert scoring.confirmed(reading, c, NEW_FIRST) == expected


@pytest.mark.parametrize("record,confirm,expected", [
    (_record(("A", "A")), False, "WIN"),
    (_record(("A", "A")), True, "TIE"),
    (_record(("B", "A")), True, "LOSS"),
    (_record(("A", None)), True, None),
    (_record(("A", "B"), ("B", "A"), ("B", "B")), True, "TIE"),  # WIN, LOSS, flipped TIE: no majority
    (_record(("B", "A"), ("B", "A"), ("A", "A")), True, "LOSS"),
], ids=["unconfirmed", "flipped", "confirmed-loss", "pending", "panel-no-majority", "panel-loss"])
def test_trial_outcome_with_confirmation(record, confirm, expected):
    assert scoring.trial_outcome(record, confirm) == expected


@pytest.mark.parametrize("record,expected", [
    (_record(("A", "B")), (1, 0)),
    (_record(("A", "A")), (1, 1)),
    (_record(("TIE", None)), (0, 0)),
    (_record(("A", None)), (0, 0)),
    (_record(("A", "A"), ("B", "A"), ("B", "TIE")), (3, 2)),
], ids=["agreed", "flipped", "tie", "pending", "panel"])
def test_flips(record, expected):
    assert scoring.flips(record) == expected


def test_swapped():
    assert scoring.swapped({"A": "new", "B": "baseline"}) == {"A": "baseline", "B": "new"}


@pytest.mark.parametrize("decisive,first", [(0.4, 0.5), (0.6, 0.8)], ids=["unbiased", "biased"])
def test_confirmed_judging_lowers_false_losses_on_equal_pairs_as_predicted(decisive, first):
    # Equal pairs through the real collapse rules: planted judges, a coin for the order, seed fixed.
    import random

    from benchcore import noise

    rng = random.Random(28)

    def pick(new_first: bool) -> str:
        if rng.random() >= decisive:
            return "TIE"
        return "A" if rng.random() < first else "B"

    n = 40000
    plain = confirmed = 0
    for _ in range(n):
        order = NEW_FIRST if rng.random() < 0.5 else {"A": "previous", "B": "new"}
        reading = Judgment(verdict=pick(order["A"] == "new"))
        swap = Judgment(verdict=pick(order["B"] == "new")) if reading.verdict != "TIE" else None
        record = ComparisonRecord(order=order, judgments=(reading,), confirmations=(swap,))
        plain += scoring.trial_outcome(record) == "LOSS"
        confirmed += scoring.trial_outcome(record, confirm=True) == "LOSS"
    for got, want in ((plain / n, noise.loss_p(decisive, first)),
                      (confirmed / n, noise.loss_p(decisive, first, confirmed=True))):
        assert abs(got - want) < 4 * (want * (1 - want) / n) ** 0.5
    assert confirmed < plain / 2
