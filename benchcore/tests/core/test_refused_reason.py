"""A trial made invalid because Claude Code refused its arms' tool calls is blamed on the refusal, with the calls,
not on "contaminated or skill not engaged" (issue 39, item 11)."""

from benchcore.model import Case, TrialData
from benchcore.results import efficacy_axis, refused_calls, regression_axis

CASE = Case(id="01-a", path="tests/s/01-a/case.md", description="d", prompt="p", soft_criteria=("x",))
# As collect's audit words them (harness/collect/contamination.py) and the run folder joins them.
REFUSED = ("new: Claude Code refused its tool call Bash cd /w/1 && python -m pytest -q Run the tests: Permission for "
           "this action has been denied. Reason: the auto mode classifier; new: never read its skill copy's SKILL.md; "
           "baseline: Claude Code refused its tool call Bash cd /w/2 && python -m pytest -q Run the tests: denied")
LEAKED = "baseline: saw its case's criteria or assertions (the result of Read /r/case.md holds 'x')"


def test_the_refused_calls_are_read_from_the_audits_words():
    assert refused_calls(REFUSED) == ("new: Bash cd /w/1 && python -m pytest -q Run the tests",
                                      "baseline: Bash cd /w/2 && python -m pytest -q Run the tests")
    assert refused_calls(LEAKED) == ()


def test_every_trial_refused_is_blamed_on_the_permission_mode_with_the_calls():
    # Bug: with --keep-settings in auto mode every cell was given up and the verdict said "contaminated or skill
    # not engaged", though the mode's check had refused the arms' pytest.
    trials = [TrialData(case="01-a", trial=n, invalid=REFUSED) for n in range(1, 6)]
    axis, _ = efficacy_axis(CASE, trials)
    assert axis.incomplete and not axis.passed
    assert axis.reason == (
        "incomplete: trials 1, 2, 3, 4, 5 invalid because Claude Code refused the arms' tool calls (new: Bash cd /w/1 && "
        "python -m pytest -q Run the tests; baseline: Bash cd /w/2 && python -m pytest -q Run the tests): the "
        "permission mode or settings stopped them, not the skill; allow those calls (docs/permissions.md) and re-run")
    assert "contaminated" not in axis.reason
    reg, _ = regression_axis(CASE, trials)
    assert reg.reason == axis.reason


def test_refused_and_contaminated_trials_are_each_named_for_what_they_are():
    trials = [TrialData(case="01-a", trial=1, invalid=REFUSED), TrialData(case="01-a", trial=2, invalid=LEAKED)]
    axis, _ = efficacy_axis(CASE, trials + [None, None, None])
    assert "trial 1 invalid because Claude Code refused the arms' tool calls" in axis.reason
    assert "trial 2 invalid (contaminated or skill not engaged) and must be re-run" in axis.reason
