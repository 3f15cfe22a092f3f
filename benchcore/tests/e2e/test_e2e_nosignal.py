"""End to end (issue 41): collect runs the hard assertions on the baseline's output too, for information, and
render names what carried no signal: an assertion the baseline passes in every trial, a case that only ties
(in this run and in the skill's recent history). The gate still applies to the new arm alone."""

from __future__ import annotations

import json

from standin.agent import Script
from test_e2e_benchmark import CASE1, CASE2, bench, greet_files, next_script  # noqa: F401 (fixture)


def ties_on_case1(case, trial, comp, rnd):
    return "TIE" if case == CASE1 or comp == "regression" else "WIN"


def benchmark(bench, seed: int, verdict=ties_on_case1, output=None):
    rc, out, err = bench.plan("greet", "--seed", str(seed))
    assert rc == 0, err
    run_dir = bench.runs()[-1]
    # Every arm writes greeting.txt, so CASE1's predicate (test -f "$WORLD/greeting.txt") passes without the skill.
    bench.arms(next_script(out), Script(files=greet_files(), output=output))
    rc, out, err = bench.run("collect", str(run_dir))
    assert rc == 0, err
    bench.judges(run_dir, Script(verdict=verdict))
    rc, out, err = bench.run("collect", str(run_dir))
    assert rc == 0, err
    rc, out, err = bench.run("render", str(run_dir))
    results = json.loads((bench.repo / "tests/.reports/greet.results.json").read_text())
    return run_dir, rc, out, results


def test_an_assertion_the_baseline_passes_and_a_case_that_only_ties_are_named(bench):
    run_dir, rc, out, results = benchmark(bench, 9)
    for n in range(1, 6):
        base = json.loads((run_dir / "cases" / CASE1 / f"t{n}" / "baseline" / "assertions.json").read_text())
        assert [r["exit"] for r in base] == [0]
        assert not (run_dir / "cases" / CASE1 / f"t{n}" / "previous" / "assertions.json").exists()
    assert not (run_dir / "cases" / CASE2 / "t1" / "baseline" / "assertions.json").exists()  # no predicates
    ns = results["no_signal"]
    [a] = ns["assertions"]
    assert (a["case"], a["index"], a["baseline_passed"], a["baseline_checked"]) == (CASE1, 1, 5, 5)
    assert a["statement"].startswith(f'{CASE1}: hard assertion 1 (`test -f "$WORLD/greeting.txt"`) passed for the '
                                     "baseline (no skill) in 5 of 5 trials; the skill's output passed it in 5 of 5")
    [c] = ns["cases"]
    assert (c["case"], c["ties"], c["earlier_runs"]) == (CASE1, 5, 0)
    assert "tie in 5 of 5 trials of this run; no earlier run of it is on record" in c["statement"]
    # Information only: the baseline passing does not gate or change a verdict.
    case1 = results["cases"][0]["efficacy"]
    assert case1["outcomes"] == ["TIE"] * 5 and case1["gated"] is False
    page = (bench.repo / "tests/.reports/greet.html").read_text()
    assert '<h2 id="nosignal-h">What carried no signal</h2>' in page
    assert "passed for the baseline (no skill) in 5 of 5 trials" in page
    index = (bench.repo / "tests/.reports/index.html").read_text()
    assert '<span class="fragile no-signal">no signal: 1 case, 1 assertion</span>' in index
    hist = [json.loads(line) for line in (bench.repo / "tests/.reports/greet.history.jsonl").read_text().splitlines()]
    assert hist[-1]["efficacy_cases"] == {CASE1: {"wins": 0, "ties": 5, "losses": 0},
                                          CASE2: {"wins": 5, "ties": 0, "losses": 0}}


def test_a_case_that_tied_now_but_won_in_recent_history_is_not_named(bench):
    benchmark(bench, 9, verdict=lambda case, trial, comp, rnd: "WIN" if comp == "efficacy" else "TIE")
    _, _, _, results = benchmark(bench, 10)
    assert results["cases"][0]["efficacy"]["outcomes"] == ["TIE"] * 5
    assert results["no_signal"]["cases"] == []  # the earlier run's wins: the case can tell, some days
    assert [a["case"] for a in results["no_signal"]["assertions"]] == [CASE1]


def test_a_case_that_tied_in_the_earlier_run_too_says_so(bench):
    benchmark(bench, 9)
    _, _, _, results = benchmark(bench, 10)
    [c] = results["no_signal"]["cases"]
    assert (c["case"], c["ties"], c["earlier_runs"], c["earlier_ties"]) == (CASE1, 5, 1, 5)
    assert ("tie in 5 of 5 trials of this run, and all 5 trials of its 1 earlier run on record tied too"
            in c["statement"])
