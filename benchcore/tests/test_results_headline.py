"""The verdict headline (results.headline): it says which cases failed which axis and how, then what is
not final yet, and nothing else; every clause is read off a case's trial strip or a badge."""

from __future__ import annotations

import pytest

from benchcore import scoring
from benchcore.model import AxisResult, CaseResult, Escalation
from benchcore.results import headline, undecided, why_fails

CODE = {"W": "WIN", "T": "TIE", "L": "LOSS", "-": None}


def axis(strip: str, key: str, gated: bool = False) -> AxisResult:
    outcomes = tuple(CODE[c] for c in strip)
    w, t, l = scoring.counts(outcomes)
    incomplete = None in outcomes
    passed = (scoring.efficacy_pass(w, l, gated, incomplete) if key == "efficacy"
              else scoring.regression_pass(l, incomplete))
    return AxisResult(outcomes=outcomes, wins=w, ties=t, losses=l, passed=passed, flagged=l > 0,
                      incomplete=incomplete, gated=gated if key == "efficacy" else None)


def case(cid: str, eff: str, reg: str | None = None, gated: bool = False) -> CaseResult:
    return CaseResult(id=cid, description="", efficacy=axis(eff, "efficacy", gated),
                      regression=None if reg is None else axis(reg, "regression"), expanded=False)


@pytest.mark.parametrize("shape,cases,gated,escs,expected", [
    ("three-arm", [case("01-a", "WWWTT", "TTTTL")], {}, (),
     "Passes: the skill beats no skill on its 1 case, and this edit regressed none."),
    ("two-arm", [case("01-a", "WWWTT"), case("02-b", "WWWWL")], {}, (),
     "Passes: the skill beats no skill on all 2 cases."),
    # Bug: "Adds nothing and this edit made it worse" beside a net +14 and a sign test p = 0.004.
    ("three-arm", [case("01-a", "WWWWW", "TTTTT"), case("02-b", "WWLWT", "TTTTT", gated=True),
                   case("03-c", "WWWWT", "TLTLW")], {"02-b": (3,)}, (),
     "Fails efficacy on 02-b (a hard assertion failed on trial 3); regression on 03-c (2 losses to the previous "
     "version: allows at most 1)."),
    # A comparison that fails without a loss: the ties kept it from passing.
    ("two-arm", [case("01-a", "WWTTT")], {}, (),
     "Fails efficacy on 01-a (2 wins, 3 ties, 0 losses: needs at least 3 wins)."),
    ("two-arm", [case("01-a", "WWWLL")], {}, (),
     "Fails efficacy on 01-a (3 wins, 0 ties, 2 losses: allows at most 1 loss)."),
    # Bug: an incomplete run read as a red finding.
    ("three-arm", [case("01-a", "WWTT-", "TTTT-")], {}, (),
     "Not final: 01-a efficacy (no judgment yet for trial 5); 01-a regression (no judgment yet for trial 5)."),
    # A case that fails whatever its missing trial says is a failure already.
    ("two-arm", [case("01-a", "WLL-T")], {}, (),
     "Fails efficacy on 01-a (1 win, 1 tie, 2 losses (trial 4 not judged yet): needs at least 3 wins and allows "
     "at most 1 loss)."),
    # Bug: the headline read as final while a split comparison awaited its panel.
    ("two-arm", [case("01-a", "WWLLW")], {}, (Escalation("01-a", "efficacy", (1, 2, 3, 4, 5)),),
     "Fails efficacy on 01-a (3 wins, 0 ties, 2 losses: allows at most 1 loss). Not final: 01-a efficacy (the "
     "judges split; trials 1, 2, 3, 4, 5 await two more judges)."),
    ("two-arm", [case(f"0{n}-x", "TTTTT") for n in range(1, 6)], {}, (),
     "Fails efficacy on 01-x (0 wins, 5 ties, 0 losses: needs at least 3 wins), 02-x (0 wins, 5 ties, 0 losses: "
     "needs at least 3 wins), 03-x (0 wins, 5 ties, 0 losses: needs at least 3 wins) and 2 more cases."),
], ids=["green-three-arm", "green-two-arm", "gated-and-regressed", "short-of-wins", "two-losses", "not-final",
        "failed-though-incomplete", "split-awaits-panel", "many-cases-counted"])
def test_headline(shape, cases, gated, escs, expected):
    assert headline(shape, cases, gated, escs) == expected


def test_an_undecided_axis_is_not_a_failure_and_says_which_trials_it_waits_for():
    eff = axis("WW-T-", "efficacy")
    assert undecided("efficacy", eff) and why_fails("efficacy", eff) == "no judgment yet for trials 3, 5"
    assert not undecided("efficacy", axis("WT-TT", "efficacy"))
