"""The calibration read from a run (summarize) and read beside a later run (floor), on planted judges."""

import random

import pytest

from benchcore import calibration, noise
from benchcore.model import (ArmUsage, BranchRef, Case, ComparisonRecord, Judgment, RunData, RunInfo, SkillRef,
                             Temperature, TrialData)

CASES = tuple(Case(id=f"0{i}-case", path=f"0{i}-case/case.md", description="d", prompt=f"task {i}",
                   soft_criteria=("good",)) for i in range(1, 6))


def run_info(shape="calibration", judge_model=None, cases=CASES):
    comparisons = {"calibration": ("new", "twin")} if shape == "calibration" else \
        {"efficacy": ("new", "baseline"), "regression": ("new", "previous")}
    arms = ("new", "twin") if shape == "calibration" else ("new", "baseline", "previous")
    return RunInfo(run_id="20261204T000000Z-cafe", skill=SkillRef("greet", "skills/greet"),
                   started_at="2026-12-04T00:00:00Z", shape=shape, arms=arms, comparisons=comparisons, trials=5,
                   temperature=Temperature(), seed=1, default_branch=BranchRef("main", "0" * 40),
                   cases=tuple(c.id for c in cases), judge_model=judge_model)


def planted_run(seed: int, decisive: float, first: float, judge_model=None) -> RunData:
    """A calibration run whose judges are decisive at ``decisive`` and name the first shown at ``first``."""
    rng = random.Random(seed)
    trials = []
    for c in CASES:
        for n in range(1, 6):
            order = {"A": "new", "B": "twin"} if rng.random() < 0.5 else {"A": "twin", "B": "new"}
            v = "TIE" if rng.random() >= decisive else ("A" if rng.random() < first else "B")
            trials.append(TrialData(case=c.id, trial=n, comparisons={
                "calibration": ComparisonRecord(order=order, judgments=(Judgment(verdict=v),))}))
    return RunData(run=run_info(judge_model=judge_model), cases=CASES, trials=tuple(trials))


def test_summarize_counts_per_case_and_pooled():
    cal = calibration.summarize(planted_run(1, 0.4, 0.5))
    assert [c.case for c in cal.cases] == [c.id for c in CASES]
    assert cal.pooled.judgments == 25 == sum(c.judgments for c in cal.cases)
    assert cal.pooled.decisive == sum(c.decisive for c in cal.cases)
    lo, hi = noise.wilson(cal.pooled.decisive, 25)
    assert (cal.pooled.low, cal.pooled.high) == (round(lo, 4), round(hi, 4))
    assert cal.cases_key == noise.cases_key(CASES) and cal.interval == "Wilson score, 95%"


def test_an_invalid_trial_is_not_counted():
    data = planted_run(1, 1.0, 0.5)
    trials = (data.trials[0].__class__(case=data.trials[0].case, trial=1, invalid="contaminated",
                                       comparisons=data.trials[0].comparisons),) + data.trials[1:]
    data = RunData(run=data.run, cases=data.cases, trials=trials)
    assert calibration.summarize(data).pooled.judgments == 24


@pytest.mark.parametrize("decisive,first", [(0.4, 0.5), (0.6, 0.8), (0.15, 0.5)],
                         ids=["issue-rate", "biased", "quiet-judges"])
def test_calibration_recovers_the_planted_rate_within_its_interval_over_repeated_seeds(decisive, first):
    # A 95% interval must hold the planted rate in about 95 of 100 calibrations (seeds fixed: 0..199).
    seeds = range(200)
    held_rate = held_bias = 0
    for seed in seeds:
        cal = calibration.summarize(planted_run(seed, decisive, first))
        held_rate += cal.pooled.low <= decisive <= cal.pooled.high
        if cal.first_shown_share is not None:
            held_bias += cal.first_shown_low <= first <= cal.first_shown_high
    assert held_rate / len(seeds) >= 0.9
    assert held_bias / len(seeds) >= 0.88


def test_floor_reads_the_calibration_with_its_uncertainty_never_at_a_bare_point():
    cal = calibration.summarize(planted_run(3, 0.4, 0.5))
    later = RunData(run=run_info("three-arm"), cases=CASES, trials=())
    nf = calibration.floor(cal, later, {}, None)
    assert nf.status == "calibrated" and nf.calibration_run == cal.run_id and nf.partial is False
    posts = calibration.case_posteriors([(c.decisive, c.judgments) for c in cal.cases])
    bias = noise.Beta.of(cal.pooled.first_shown_won, cal.pooled.decisive)
    want = noise.run_fail_p(noise.predictive(noise.case_fail_p, p, bias) for p in posts)
    assert nf.false_alarm_p == round(want, 6)
    point = noise.false_alarm([cal.pooled.decisive_rate] * 5, cal.first_shown_share)
    assert nf.false_alarm_p != round(point, 6) and nf.false_alarm_p_high > nf.false_alarm_p
    assert f"{cal.pooled.decisive} of 25 judgments" in nf.sentence and "complete: 25 of 25 trials judged" in nf.sentence
    assert "exact" not in nf.sentence and nf.reds == () and nf.red_sentence is None  # nothing red was passed


@pytest.mark.parametrize("judge_model,cases,why", [
    ("opus", CASES, "judge model"),
    (None, CASES[:4], "cases changed"),
    (None, CASES[:4] + (Case(id="05-case", path="x", description="d", prompt="another task",
                             soft_criteria=("good",)),), "cases changed"),
], ids=["other-judge", "a-case-gone", "a-prompt-changed"])
def test_a_calibration_for_another_judge_or_other_cases_is_void(judge_model, cases, why):
    cal = calibration.summarize(planted_run(3, 0.4, 0.5))
    later = RunData(run=run_info("three-arm", judge_model=judge_model, cases=cases), cases=cases, trials=())
    nf = calibration.floor(cal, later, {}, None)
    assert nf.status == "void" and why in nf.sentence and nf.false_alarm_p is None
    assert "would: 'benchcore plan --calibrate greet'" in nf.sentence
    assert calibration.red_sentence(nf) is None


def test_no_calibration_says_so_and_what_one_would_cost():
    later = RunData(run=run_info("three-arm"), cases=CASES, trials=())
    new = ArmUsage(cost_equivalent_tokens=1000.0, cost_usd=1.5)
    judges = ArmUsage(cost_equivalent_tokens=400.0, cost_usd=0.4)
    nf = calibration.floor(None, later, {"new": new}, judges)
    assert nf.status == "none" and nf.cost_usd == 3.2 and nf.cost_equivalent_tokens == 2200.0
    assert nf.sentence.startswith("No calibration of the judges exists for greet") and "$3.20" in nf.sentence
