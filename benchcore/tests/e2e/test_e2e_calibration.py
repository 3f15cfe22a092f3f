"""End to end: a calibration (plan --calibrate -> two new-skill arms -> planted judges -> render) and the floor it
stores read beside a later run's verdicts."""

from __future__ import annotations

import json
import random

import pytest

from standin.agent import Script
from test_e2e_benchmark import CASE1, CASE2, bench, greet_files, next_script  # noqa: F401 (fixture)


def planted(seed: int, decisive: float, first: float, log: list):
    """A judge decisive on equal pairs at ``decisive``, naming the output shown first at ``first`` (seeded)."""
    def verdict(case, trial, comp, rnd):
        rng = random.Random(f"{seed}/{case}/{trial}/{comp}/{rnd}")
        v = "TIE" if rng.random() >= decisive else ("FIRST" if rng.random() < first else "SECOND")
        log.append((case, trial, rnd, v))
        return v
    return verdict


def calibrate(bench, seed: int, decisive: float, first: float):
    rc, out, _ = bench.plan("greet", "--calibrate", "--seed", str(seed))
    assert rc == 0, out
    run_dir = bench.runs()[-1]
    bench.arms(next_script(out), Script(files=greet_files()))
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0, out
    log: list = []
    script = Script(verdict=planted(seed, decisive, first, log))
    bench.judges(run_dir, script)
    rc, out, _ = bench.run("collect", str(run_dir))
    if "escalated" in out:  # a split: the panel judges
        bench.judges(run_dir, script)
        bench.run("collect", str(run_dir))
    rc, out, err = bench.run("render", str(run_dir))
    return run_dir, rc, out, err, log


@pytest.mark.parametrize("seed,decisive,first", [(5, 0.6, 0.5), (11, 0.3, 0.8), (23, 0.8, 0.5)],
                         ids=["seed-5", "seed-11-biased", "seed-23-decisive"])
def test_calibration_plans_two_new_skill_arms_and_stores_the_planted_rate(bench, seed, decisive, first):
    run_dir, rc, out, err, log = calibrate(bench, seed, decisive, first)
    run = json.loads((run_dir / "run.json").read_text())
    assert run["shape"] == "calibration" and run["arms"] == ["new", "twin"]
    assert run["comparisons"] == {"calibration": ["new", "twin"]}
    plan = json.loads((run_dir / "plan.json").read_text())
    copies = plan["skill_copies"]
    assert set(copies) == {"new", "twin"} and copies["new"] != copies["twin"]
    worlds = [c["world"] for c in plan["cells"]]
    assert len(worlds) == len(set(worlds)) == 2 * 5 * 2  # a fresh world per cell: nothing shared or reused
    t1 = run_dir / "cases" / CASE1 / "t1"
    assert (t1 / "twin" / "output.md").read_text().startswith(f"Done [twin-arm] for {CASE1} t1.")
    assert rc == 0, err
    cal = json.loads((bench.repo / "tests/.reports/greet.calibration.json").read_text())
    picked = sum(1 for *_, v in log if v != "TIE")
    firsts = sum(1 for *_, v in log if v == "FIRST")
    assert cal["pooled"]["judgments"] == len(log) and cal["pooled"]["decisive"] == picked
    assert cal["pooled"]["first_shown_won"] == firsts
    assert cal["pooled"]["low"] <= decisive <= cal["pooled"]["high"]  # the planted rate, within its interval
    if cal["first_shown_share"] is not None:
        assert cal["first_shown_low"] <= first <= cal["first_shown_high"]
    assert [c["case"] for c in cal["cases"]] == [CASE1, CASE2]
    assert f"pooled: decisive on {picked} of {len(log)} equal pairs" in out
    # A calibration is not a benchmark of the skill: no verdict, no history line, no report page.
    assert not (bench.repo / "tests/.reports/greet.history.jsonl").exists()
    assert json.loads((run_dir / "calibration.json").read_text()) == cal


def test_a_later_run_reads_the_floor_beside_its_verdicts(bench):
    calibrate(bench, 7, 0.4, 0.5)
    cal = json.loads((bench.repo / "tests/.reports/greet.calibration.json").read_text())
    _, out, _ = bench.plan("greet", "--seed", "9")
    run_dir = bench.runs()[-1]
    script = Script(files=greet_files())
    bench.arms(next_script(out), script)
    bench.run("collect", str(run_dir))
    bench.judges(run_dir, script)
    bench.run("collect", str(run_dir))
    rc, out, _ = bench.run("render", str(run_dir))
    noise = json.loads((bench.repo / "tests/.reports/greet.results.json").read_text())["noise"]
    assert noise["status"] == "calibrated" and noise["calibration_run"] == cal["run_id"]
    assert noise["decisive_rate"] == cal["pooled"]["decisive_rate"]
    from benchcore import noise as N
    assert noise["false_alarm_p"] == round(N.false_alarm([cal["pooled"]["decisive_rate"]] * 2,
                                                         cal["first_shown_share"] or 0.5), 6)
    html = (bench.repo / "tests/.reports/greet.html").read_text()
    assert f"calibration {cal['run_id']}" in html and "Wilson interval" in html
    assert "noise: On equal outputs the judges picked a winner" in out
    # With a run in the history, the next calibration's estimate prices the twin like the new arm.
    rc, out, _ = bench.plan("greet", "--calibrate")
    assert rc == 0 and "greet: calibration (new, twin) - calibration: two independent copies" in out
    line = next(l for l in out.splitlines() if l.strip().startswith("estimate: new"))
    assert "new 10 cells" in line and "twin 10 cells" in line and "judges 10 packets" in line


def test_confirmed_judging_asks_every_decisive_judgment_again_swapped_and_a_flip_is_a_tie(bench):
    from standin import repo as R
    from test_e2e_benchmark import GREET

    R.write(bench.repo / "tests" / GREET / "benchmark.yaml", "confirm_judgments: true\n")
    _, out, _ = bench.plan("greet", "--seed", "9")
    run_dir = bench.runs()[-1]
    assert json.loads((run_dir / "run.json").read_text())["confirm_judgments"] is True

    def judge(case, trial, comp, rnd):
        # Efficacy: the new arm really is better, and says so both ways. Regression: equal outputs, and a judge
        # that always names the output shown first (decisive rate 1, position bias 1).
        return "WIN" if comp == "efficacy" else "FIRST"

    script = Script(files=greet_files(), verdict=judge)
    bench.arms(next_script(out), script)
    bench.run("collect", str(run_dir))
    bench.judges(run_dir, script)
    rc, out, _ = bench.run("collect", str(run_dir))
    ids = [p["id"] for p in json.loads((run_dir / "plan.json").read_text())["packets"]]
    confirmations = [i for i in ids if i.endswith("#c")]
    assert len(confirmations) == 20 and "packets with no answer: 20" in out
    swapped = (run_dir / "cases" / CASE1 / "t1" / "regression.confirm.packet.md").read_text()
    first = (run_dir / "cases" / CASE1 / "t1" / "regression.packet.md").read_text()
    a_first = first.split("## Output A", 1)[1].split("## Output B", 1)[0]
    b_swapped = swapped.split("## Output B", 1)[1]
    assert a_first.strip().splitlines()[0] in b_swapped  # the same outputs, letters swapped
    bench.judges(run_dir, script)
    rc, out, err = bench.run("collect", str(run_dir))
    assert "40/40 packets judged" in out, out + err
    record = json.loads((run_dir / "cases" / CASE1 / "t1" / "regression.json").read_text())
    assert len(record["confirmations"]) == 1 and record["confirmations"][0]["verdict"] == "A"
    # The confirming judge's transcript is kept beside the first one's (its tokens are the judges' cost).
    assert (run_dir / "cases" / CASE1 / "t1" / "judges" / "regression-1c.jsonl").is_file()
    assert (run_dir / "cases" / CASE1 / "t1" / "judges" / "regression-1.jsonl").is_file()
    rc, out, _ = bench.run("render", str(run_dir))
    results = json.loads((bench.repo / "tests/.reports/greet.results.json").read_text())
    for c in results["cases"]:
        assert c["efficacy"]["outcomes"] == ["WIN"] * 5      # confirmed both ways
        assert c["regression"]["outcomes"] == ["TIE"] * 5    # every position pick flipped on the swap
    assert results["verdicts"]["regression"]["status"] == "pass"
    assert results["noise"]["confirmed"] is True
    assert results["noise"]["flipped"] == 10 and results["noise"]["confirmations"] == 20
    html = (bench.repo / "tests/.reports/greet.html").read_text()
    assert "10 of 20 confirmations disagreed" in html
