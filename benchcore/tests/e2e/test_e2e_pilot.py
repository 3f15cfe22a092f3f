"""End to end (issue 41): a pilot (plan --pilot) runs one trial per arm per case with fresh arms, judged blind as
usual, and render reports per case whether the outputs differed and whether the judge decided, and what the full
run would cost; never a verdict, never a history line, never reused by the full run planned after it."""

from __future__ import annotations

import json

from standin.agent import Script
from test_e2e_benchmark import CASE1, CASE2, bench, greet_files, next_script  # noqa: F401 (fixture)


def same_for_case1(case, trial, arm, world):
    return "Wrote greeting.txt." if case == CASE1 else f"The {arm} arm greets Ada."


def test_a_pilot_reports_each_case_and_the_full_cost_and_no_verdict(bench):
    rc, out, err = bench.plan("greet", "--pilot", "--seed", "4")
    assert rc == 0, err
    assert "greet: three-arm (new, baseline, previous) - pilot, one trial per arm per case, no verdict" in out
    [run_dir] = bench.runs()
    run = json.loads((run_dir / "run.json").read_text())
    assert run["pilot"] is True and run["trials"] == 1
    plan = json.loads((run_dir / "plan.json").read_text())
    assert len(plan["cells"]) == 2 * 1 * 3 and {c["trial"] for c in plan["cells"]} == {1}
    bench.arms(next_script(out), Script(files=greet_files(), output=same_for_case1))
    rc, out, err = bench.run("collect", str(run_dir))
    assert rc == 0, err
    bench.judges(run_dir, Script(verdict=lambda case, t, comp, r: "TIE" if case == CASE1 else "WIN"))
    rc, out, err = bench.run("collect", str(run_dir))
    assert rc == 0 and "benchcore render" in out.strip().splitlines()[-1], out
    rc, out, err = bench.run("render", str(run_dir))
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("greet  pilot ")
    assert "no verdict (the pass rules need 5 trials). 1 of 2 cases are worth a look before the full run: " \
           f"{CASE1}." in out
    assert (f"{CASE1}: against no skill, the outputs were the same; the judge called a tie; against the previous "
            "version, the outputs were the same; the judge called a tie. Worth rewriting") in out
    assert (f"{CASE2}: against no skill, the outputs differed; the judge decided: the skill's output won; against the "
            "previous version, the outputs differed; the judge decided: the skill's output won.") in out
    # CASE1's predicate (test -f greeting.txt) passes for the baseline too: named already in the pilot.
    assert f"{CASE1}: hard assertion 1 (`test -f \"$WORLD/greeting.txt\"`) passed for the baseline (no skill) in 1 " \
           "of 1 trial" in out
    pilot = json.loads((run_dir / "pilot.json").read_text())
    cost = pilot["cost"]
    assert cost["cells"] == 6 and cost["judges"] == 4
    assert cost["full_raw_tokens"] == 5 * cost["raw_tokens"] > 0
    assert f"the full run (5 trials) would cost about ${cost['full_cost_usd']:,.2f}" in out
    assert lines[-1].startswith(f"next: benchcore clean {run_dir}")
    reports = bench.repo / "tests/.reports"
    assert not (reports / "greet.history.jsonl").exists() and not (reports / "greet.results.json").exists()
    assert not (reports / "index.html").exists() and not (reports / "greet.html").exists()
    # The full run planned next never reuses the pilot's arms: new worlds, five trials.
    rc, out, err = bench.plan("greet", "--seed", "4", resume=True)
    assert rc == 0, err
    full = bench.runs()[-1]
    assert full != run_dir
    assert json.loads((full / "run.json").read_text())["trials"] == 5
    worlds = {c["world"] for c in json.loads((full / "plan.json").read_text())["cells"]}
    assert not worlds & {c["world"] for c in plan["cells"]}


def test_an_unrendered_pilot_is_not_resumed_by_a_full_run(bench):
    rc, out, _ = bench.plan("greet", "--pilot", "--seed", "4")
    [pilot_dir] = bench.runs()
    rc, out, err = bench.plan("greet", "--seed", "4", resume=True)
    assert rc == 0, err
    assert "it was planned as a pilot, and this command asks for a full run" in out
    assert bench.runs()[-1] != pilot_dir


def test_pilot_and_calibrate_together_are_refused(bench):
    rc, _, err = bench.plan("greet", "--pilot", "--calibrate")
    assert rc == 2 and "give --pilot or --calibrate, not both" in err
