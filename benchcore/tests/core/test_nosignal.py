"""benchcore.nosignal: which hard assertions and cases carried no signal, table by table (issue 41)."""

from __future__ import annotations

import pytest

from benchcore import nosignal
from benchcore.model import AssertionResult, AxisResult, Case, CaseResult, HardAssertion, HistoryEntry, AxisSummary
from benchcore.nosignal import CaseCounts

CASE = Case(id="01-a", path="tests/x/01-a/case.md", description="d", prompt="p", soft_criteria=("s",),
            hard_assertions=(HardAssertion(command="grep -q x \"$OUTPUT\"", line=10),
                             HardAssertion(command="test -s \"$OUTPUT\"", line=11)))


def res(*exits):
    return tuple(AssertionResult(command="c", exit=e, timed_out=e is None) for e in exits)


@pytest.mark.parametrize("baseline,named", [
    ({1: res(1, 0), 2: res(1, 0), 3: res(0, 0)}, [2]),           # the second passes every trial
    ({1: res(0, 0), 2: res(0, 0)}, [1, 2]),                       # both pass: both named
    ({1: res(1, 1)}, []),                                          # fails for the baseline: it tells
    ({1: res(0, None)}, [1]),                                      # a timeout is a failure
    ({}, []),                                                      # never checked: nothing to say
    ({1: res(0)}, []),                                             # a result of another length is not counted
], ids=["one-of-two", "both", "baseline-fails", "timeout", "unchecked", "stale-length"])
def test_an_assertion_is_named_when_the_baseline_passed_it_in_every_trial_checked(baseline, named):
    found = nosignal.silent_assertions([CASE], {("01-a", 1): res(0, 0)},
                                       {("01-a", t): r for t, r in baseline.items()})
    assert [a.index for a in found] == named
    for a in found:
        assert a.baseline_passed == a.baseline_checked == len(baseline)
        assert f"in {len(baseline)} of {len(baseline)} trial" in a.statement
        assert "the skill's output passed it in 1 of 1" in a.statement


def axis(*outcomes):
    w, t, l = (sum(1 for o in outcomes if o == k) for k in ("WIN", "TIE", "LOSS"))
    return AxisResult(outcomes=outcomes, wins=w, ties=t, losses=l, passed=False, flagged=l > 0,
                      incomplete=None in outcomes, gated=False)


def entry(run_id, counts, model=None):
    return HistoryEntry(run_id=run_id, at="2026-12-01T00:00:00Z", shape="two-arm", default_branch_commit=None,
                        efficacy=AxisSummary(net=0, passed=False, wins=0, ties=0, losses=0), model=model,
                        efficacy_cases=counts)


TIES = ("TIE",) * 5
TIED = {"01-a": CaseCounts(wins=0, ties=5, losses=0)}
WON = {"01-a": CaseCounts(wins=1, ties=4, losses=0)}


@pytest.mark.parametrize("outcomes,earlier,expect", [
    (TIES, [], (0, 0)),                                            # first run: named, says no earlier run
    (TIES, [entry("r1", TIED)], (1, 5)),
    (TIES, [entry("r1", WON), entry("r2", TIED)], None),  # a win within the last 3: not named
    (TIES, [entry("r0", WON), entry("r1", TIED), entry("r2", TIED), entry("r3", TIED)], (3, 15)),  # older win
    (TIES, [entry("r1", {})], (0, 0)),                             # an older line without cases: passed over
    (TIES, [entry("r1", WON, model="m")], (0, 0)),                 # another model's history: passed over
    (("TIE",) * 4 + ("WIN",), [], None),
    (("TIE",) * 4 + (None,), [], None),                           # incomplete: not all ties
    (("TIE",) * 4 + ("LOSS",), [], None),                         # gated trials are losses
], ids=["first-run", "tied-before", "won-recently", "won-long-ago", "old-line", "other-model", "a-win",
        "incomplete", "a-loss"])
def test_a_case_is_named_when_it_only_tied_here_and_in_recent_history(outcomes, earlier, expect):
    cr = CaseResult(id="01-a", description="d", efficacy=axis(*outcomes), regression=None, expanded=False)
    found = nosignal.silent_cases([cr], earlier)
    if expect is None:
        assert found == ()
        return
    [c] = found
    assert (c.earlier_runs, c.earlier_ties) == expect
    assert "tie in 5 of 5 trials of this run" in c.statement
    if expect == (0, 0):
        assert "no earlier run of it is on record" in c.statement


def test_find_is_none_when_everything_carried_signal_and_counts_both_otherwise():
    cr = CaseResult(id="01-a", description="d", efficacy=axis(*TIES), regression=None, expanded=False)
    won = CaseResult(id="01-a", description="d", efficacy=axis("WIN", *TIES[1:]), regression=None, expanded=False)
    assert nosignal.find([CASE], [won], {}, {("01-a", 1): res(1, 1)}, []) is None
    ns = nosignal.find([CASE], [cr], {}, {("01-a", 1): res(0, 1)}, [])
    assert nosignal.leaderboard_count(ns) == "1 case, 1 assertion"
    assert ns.summary.startswith("Carried no signal: 1 case (01-a) tied in every trial; 1 hard assertion passed")
    assert nosignal.leaderboard_count(None) == ""
