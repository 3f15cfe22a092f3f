"""The verdict headline (benchcore.headline): one sentence that reads both verdicts together, one form per
crossing (both green, efficacy red, regression red, both red; two-arm; not final), each clause backed by what the
report shows beside it: the failing cases named with their counts or gated trials, and each axis's net margin."""

from __future__ import annotations

import pytest

from benchcore import scoring
from benchcore.headline import headline, undecided, why_fails
from benchcore.model import AxisResult, CaseResult, Escalation

CODE = {"W": "WIN", "T": "TIE", "L": "LOSS", "-": None}


def axis(strip: str, key: str, gated: bool = False) -> AxisResult:
    outcomes = tuple(CODE[c] for c in strip)
    w, t, l = scoring.counts(outcomes)
    incomplete = None in outcomes
    passed = (scoring.efficacy_pass(w, l, gated, incomplete) if key == "efficacy"
              else scoring.regression_pass(l, incomplete, gated))
    return AxisResult(outcomes=outcomes, wins=w, ties=t, losses=l, passed=passed, flagged=l > 0,
                      incomplete=incomplete, gated=gated if key == "efficacy" else (True if gated else None))


def case(cid: str, eff: str, reg: str | None = None, gated: bool = False) -> CaseResult:
    # A failed hard assertion gates the case on both axes.
    return CaseResult(id=cid, description="", efficacy=axis(eff, "efficacy", gated),
                      regression=None if reg is None else axis(reg, "regression", gated), expanded=False)


# The golden table: (shape, cases, gated trials, pending escalations, the sentence).
GOLDEN = {
    # -- the four crossings of a three-arm run
    "both-green": ("three-arm", [case("01-a", "WWWTT", "TTTTL"), case("02-b", "WWWWT", "TTTTT")], {}, (),
                   "Safe and valuable: the skill beats no skill on all 2 cases and this edit regressed none; "
                   "efficacy net +7, regression net -1."),
    "regression-red": ("three-arm", [case("01-a", "WWWWW", "TTTTT"), case("02-b", "WWWTT", "TLTLW")], {}, (),
                       "Still valuable, but this edit regressed 1 case: 02-b (2 losses to the previous version: "
                       "allows at most 1); efficacy net +8, regression net -1."),
    # Bug (before cb80723): "Adds nothing" beside a positive net; the sentence now says what fails and the net.
    "efficacy-red": ("three-arm", [case("01-a", "WWTTT", "TTTTT"), case("02-b", "WWWWW", "TTTWT")], {}, (),
                     "Does not beat no skill on 1 of 2 cases, though this edit regressed none: 01-a (2 wins, 3 "
                     "ties, 0 losses: needs at least 3 wins); efficacy net +7, regression net +1."),
    # The gate fails a case on both axes; efficacy names the gate, and the edit is not said to have regressed a
    # case it never compared with the previous version (bug: "this edit regressed 2 cases", one of them gated).
    "both-red": ("three-arm", [case("01-a", "WWWWW", "TTTTT"), case("02-b", "WWLWT", "TTLTT", gated=True),
                               case("03-c", "WWWWT", "TLTLW")], {"02-b": (3,)}, (),
                 "Does not beat no skill on 1 of 3 cases, and this edit regressed 1 case where compared (02-b was "
                 "not: the new version failed a hard assertion): efficacy on 02-b (a hard assertion failed on trial "
                 "3); regression on 03-c (2 losses to the previous version: allows at most 1); efficacy net +11, "
                 "regression net -2."),
    "gated-only": ("three-arm", [case("01-a", "WWWWW", "TTTTT"), case("02-b", "WWLWT", "TTLTT", gated=True)],
                   {"02-b": (3,)}, (),
                   "Does not beat no skill on 1 of 2 cases, though this edit regressed none where compared (02-b "
                   "was not: the new version failed a hard assertion): 02-b (a hard assertion failed on trial 3); "
                   "efficacy net +7, regression net -1."),
    "one-case": ("three-arm", [case("01-a", "WWWTT", "TTTTL")], {}, (),
                 "Safe and valuable: the skill beats no skill on its 1 case and this edit regressed none; efficacy "
                 "net +3, regression net -1."),
    # -- two-arm: one verdict, no regression clause
    "two-arm-green": ("two-arm", [case("01-a", "WWWTT"), case("02-b", "WWWWL")], {}, (),
                      "Valuable: the skill beats no skill on all 2 cases; efficacy net +6."),
    "two-arm-short-of-wins": ("two-arm", [case("01-a", "WWTTT"), case("02-b", "WWWWW")], {}, (),
                              "Does not beat no skill on 1 of 2 cases: 01-a (2 wins, 3 ties, 0 losses: needs at "
                              "least 3 wins); efficacy net +7."),
    "two-arm-two-losses": ("two-arm", [case("01-a", "WWWLL")], {}, (),
                           "Does not beat no skill on 1 of 1 case: 01-a (3 wins, 0 ties, 2 losses: allows at most "
                           "1 loss); efficacy net +1."),
    # A case that fails whatever its missing trial says is a failure already.
    "failed-though-incomplete": ("two-arm", [case("01-a", "WLL-T")], {}, (),
                                 "Does not beat no skill on 1 of 1 case: 01-a (1 win, 1 tie, 2 losses (trial 4 not "
                                 "judged yet): needs at least 3 wins and allows at most 1 loss); efficacy net -1."),
    "many-cases-counted": ("two-arm", [case(f"0{n}-x", "TTTTT") for n in range(1, 6)], {}, (),
                           "Does not beat no skill on 5 of 5 cases: 01-x (0 wins, 5 ties, 0 losses: needs at least 3 "
                           "wins), 02-x (0 wins, 5 ties, 0 losses: needs at least 3 wins), 03-x (0 wins, 5 ties, 0 "
                           "losses: needs at least 3 wins) and 2 more cases; efficacy net 0."),
    # -- not final: never read as red
    "not-final-unjudged": ("three-arm", [case("01-a", "WWTT-", "TTTT-")], {}, (),
                           "Not final: 01-a efficacy (no judgment yet for trial 5) and 01-a regression (no judgment "
                           "yet for trial 5); efficacy net +2, regression net 0 so far."),
    # Bug: a split awaiting its panel read as efficacy-red ("Fails efficacy on 01-a (3 wins, 0 ties, 2 losses)").
    "not-final-awaiting-panel": ("two-arm", [case("01-a", "WWLLW")], {},
                                 (Escalation("01-a", "efficacy", (1, 2, 3, 4, 5)),),
                                 "Not final: 01-a efficacy (the judges split; trials 1, 2, 3, 4, 5 await two more "
                                 "judges); efficacy net +1 so far."),
    "not-final-with-a-decided-failure": (
        "three-arm", [case("01-a", "WWLLW", "TTTTT"), case("02-b", "WWLWT", "TTLTT", gated=True)], {"02-b": (3,)},
        (Escalation("01-a", "efficacy", (1, 2, 3, 4, 5)),),
        "Not final: 01-a efficacy (the judges split; trials 1, 2, 3, 4, 5 await two more judges); already failing: "
        "efficacy on 02-b (a hard assertion failed on trial 3); efficacy net +3, regression net -1 so far."),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_headline(name):
    shape, cases, gated, escs, expected = GOLDEN[name]
    assert headline(shape, cases, gated, escs) == expected


def test_every_crossing_has_a_golden_sentence():
    leads = {GOLDEN[k][4].split(":")[0].split(",")[0] for k in GOLDEN}
    assert {"Safe and valuable", "Still valuable", "Does not beat no skill on 1 of 2 cases",
            "Does not beat no skill on 1 of 3 cases", "Valuable", "Not final"} <= leads


def test_an_undecided_axis_is_not_a_failure_and_says_which_trials_it_waits_for():
    eff = axis("WW-T-", "efficacy")
    assert undecided("efficacy", eff) and why_fails("efficacy", eff) == "no judgment yet for trials 3, 5"
    assert not undecided("efficacy", axis("WT-TT", "efficacy"))
    # a gated case is decided, missing trials or not
    assert not undecided("regression", axis("TT-TT", "regression", gated=True))
