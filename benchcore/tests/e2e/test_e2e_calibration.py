"""End to end: a calibration (plan --calibrate -> two new-skill arms -> planted judges -> render) and the floor it
stores read beside a later run's verdicts."""

from __future__ import annotations

import json
import random

import pytest

from benchcore import noise as N
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


def stored(bench) -> list:
    """The skill's stored calibrations, newest first (issue 38: every calibration is kept)."""
    return json.loads((bench.repo / "tests/.reports/greet.calibration.json").read_text())["calibrations"]


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
    cal = stored(bench)[0]
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
    cal = stored(bench)[0]
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
    point = N.false_alarm([cal["pooled"]["decisive_rate"]] * 2, cal["first_shown_share"] or 0.5)
    assert noise["false_alarm_p_high"] > noise["false_alarm_p"] > 0 and noise["false_alarm_p_high"] > point
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


# ----------------------------------------------------------------------------- issue 38: planted noise, end to end


def independent(seed: int, decisive: float, first: float):
    """Each judgment its own draw (panel members and confirmations too): decisive at ``decisive``, naming the
    output shown first at ``first``; efficacy always sees the new arm better."""
    def verdict(case, trial, comp, rnd):
        if comp == "efficacy":
            return "WIN"
        rng = random.Random(f"{seed}/{case}/{trial}/{comp}/{rnd}")
        return "TIE" if rng.random() >= decisive else ("FIRST" if rng.random() < first else "SECOND")
    return verdict


def consistent(seed: int, decisive: float):
    """A judge that sees a difference between two equally good outputs, the same one every time it reads the pair
    (either order, any judge of the panel): decisive at ``decisive``, for either arm at even odds."""
    def verdict(case, trial, comp, rnd):
        if comp == "efficacy":
            return "WIN"
        rng = random.Random(f"{seed}/{case}/{trial}/{comp}")
        return "TIE" if rng.random() >= decisive else ("WIN" if rng.random() < 0.5 else "LOSS")
    return verdict


def judge_all(bench, run_dir, script) -> str:
    """Judges, then collect, until nothing is due (first judgments, confirmations, panels, their confirmations)."""
    out = ""
    for _ in range(6):
        bench.judges(run_dir, script)
        rc, out, err = bench.run("collect", str(run_dir))
        if "packets with no answer" not in out and "escalated" not in out:
            return out
    raise AssertionError(f"judging never finished: {out}")


def calibrate_with(bench, verdict, confirm: bool):
    from standin import repo as R
    from test_e2e_benchmark import GREET

    R.write(bench.repo / "tests" / GREET / "benchmark.yaml", "confirm_judgments: true\n" if confirm else "")
    rc, out, _ = bench.plan("greet", "--calibrate", "--seed", "3")
    assert rc == 0, out
    run_dir = bench.runs()[-1]
    bench.arms(next_script(out), Script(files=greet_files()))
    bench.run("collect", str(run_dir))
    judge_all(bench, run_dir, Script(verdict=verdict))
    rc, out, err = bench.run("render", str(run_dir))
    assert rc == 0, out + err
    return run_dir, stored(bench)[0]


def later_run(bench, verdict):
    _, out, _ = bench.plan("greet", "--seed", "9")
    run_dir = bench.runs()[-1]
    script = Script(files=greet_files(), verdict=verdict)
    bench.arms(next_script(out), script)
    bench.run("collect", str(run_dir))
    judge_all(bench, run_dir, script)
    rc, out, _ = bench.run("render", str(run_dir))
    results = json.loads((bench.repo / "tests/.reports/greet.results.json").read_text())
    html = (bench.repo / "tests/.reports/greet.html").read_text()
    return results, html, out


def _counted(run_dir):
    """What the run folder's judge records hold: (judgments, decisive, first shown won, confirmations, flips)."""
    from benchcore import scoring
    from benchcore.harness.runs.folder import read_run

    data = read_run(run_dir)
    js = decisive = first = answered = flipped = 0
    for t in data.trials:
        rec = t.comparisons.get("calibration")
        if rec is None:
            continue
        js += len(rec.judgments)
        decisive += sum(1 for j in rec.judgments if j.verdict != "TIE")
        first += sum(1 for j in rec.judgments if j.verdict == "A")
        a, f = scoring.flips(rec)
        answered, flipped = answered + a, flipped + f
    return js, decisive, first, answered, flipped


def _reds_match_the_verdicts(results, html):
    """Every red regression case the judges decided has its noise figure on the page; no other case has one."""
    nf = results["noise"]
    decided = [c["id"] for c in results["cases"] if not c["regression"]["pass"]
               and not c["regression"].get("gated") and not c["regression"]["incomplete"]]
    assert [r["case"] for r in nf.get("reds", [])] == decided
    for r in nf.get("reds", []):
        assert 0 < r["p"] <= r["p_high"] <= 1 and r["p"] <= r["p_any"] <= r["p_any_high"]
        assert r["sentence"].split(":")[0] == r["case"] and r["sentence"].replace("'", "&#39;") in html
    if decided:
        assert nf["red_sentence"].startswith("Is this red verdict noise?")
        assert ("Unlikely to be noise" in nf["red_sentence"]) == (nf["red_p_high"] < 0.05)
    else:
        assert "red_sentence" not in nf


@pytest.mark.parametrize("kind", ["independent", "position-biased", "consistent-preference"])
def test_planted_noise_through_plan_collect_and_render_gives_each_red_its_figure(bench, kind):
    verdict = {"independent": independent(5, 0.6, 0.5), "position-biased": independent(6, 0.9, 0.9),
               "consistent-preference": consistent(7, 0.7)}[kind]
    run_dir, cal = calibrate_with(bench, verdict, confirm=False)
    js, decisive, first, _, _ = _counted(run_dir)
    assert (cal["pooled"]["judgments"], cal["pooled"]["decisive"], cal["pooled"]["first_shown_won"]) == \
        (js, decisive, first)
    assert cal["trials"] == cal["judged"] == 10 and "partial" not in cal or cal["partial"] is False
    assert cal["skill_version"] and len(cal["skill_version"]) == 64
    def later(case, trial, comp, rnd):
        # The same planted judges, except that the first case really lost its first two trials: always red.
        if comp == "regression" and case == CASE1 and trial <= 2 and rnd < 10:
            return "LOSS"
        return verdict(case, trial, comp, rnd)

    results, html, out = later_run(bench, later)
    nf = results["noise"]
    assert nf["status"] == "calibrated" and nf["calibration_run"] == cal["run_id"]
    assert "complete: 10 of 10 trials judged" in nf["sentence"] and "exact" not in nf["sentence"]
    red = next(r for r in nf["reds"] if r["case"] == CASE1)
    assert f"\n    {red['sentence']}" in out
    # The figure is the stored calibration's, carried through its posterior: recomputed from the file.
    from benchcore import calibration as CAL, serde
    from benchcore.model import Calibration
    stored_cal = serde.load(Calibration, cal)
    posts = CAL.case_posteriors([(c.decisive, c.judgments) for c in stored_cal.cases])
    bias = N.Beta.of(stored_cal.pooled.first_shown_won, stored_cal.pooled.decisive)
    tails = [N.predictive(lambda x, y: N.loss_tail(x, y, red["losses"]), p, bias) for p in posts]
    assert red["p"] == round(tails[0], 6) and red["p_any"] == round(N.run_fail_p(tails), 6)
    _reds_match_the_verdicts(results, html)


def test_a_consistent_preference_is_measured_by_a_confirmed_calibration_not_assumed_away(bench):
    # The issue: such a judge is never contradicted by its swapped confirmation, so confirmation does not help;
    # assuming independent errors printed 0.07 where 7 of 12 unchanged runs were red.
    verdict = consistent(11, 0.8)
    run_dir, cal = calibrate_with(bench, verdict, confirm=True)
    js, decisive, first, answered, flipped = _counted(run_dir)
    assert cal["confirmed"] is True and run_dir.joinpath("plan.json").is_file()
    ids = [p["id"] for p in json.loads((run_dir / "plan.json").read_text())["packets"]]
    assert any(i.endswith("c") for i in ids)  # the calibration asked for confirmations
    assert (cal["pooled"]["confirmations"], cal["pooled"]["flipped"]) == (answered, 0) and answered == decisive
    results, html, out = later_run(bench, verdict)
    nf = results["noise"]
    assert nf["status"] == "calibrated" and nf["confirmed"] is True
    assumed = N.false_alarm([cal["pooled"]["decisive_rate"]] * 2, cal["first_shown_share"] or 0.5, confirmed=True)
    assert nf["false_alarm_p"] > 2 * assumed  # measured: confirmation does not quiet this judge
    assert nf["calibration_flipped"] == 0 and nf["calibration_confirmations"] == answered
    assert f"on equal outputs, in the calibration, 0 of {answered} flipped" in html
    _reds_match_the_verdicts(results, html)


def test_a_pure_position_judge_confirmed_in_calibration_reads_as_quiet_but_never_zero(bench):
    verdict = independent(13, 1.0, 1.0)  # always names the output shown first: every confirmation flips
    run_dir, cal = calibrate_with(bench, verdict, confirm=True)
    assert cal["pooled"]["decisive"] == cal["pooled"]["judgments"] == 10
    assert cal["pooled"]["flipped"] == cal["pooled"]["confirmations"] == 10
    results, html, _ = later_run(bench, verdict)
    nf = results["noise"]
    assert nf["status"] == "calibrated" and 0 < nf["false_alarm_p"] < nf["false_alarm_p_high"] < 0.5
    assert results["verdicts"]["regression"]["status"] == "pass"  # every reading flipped: ties
    assert "reds" not in nf


def test_an_unconfirmed_calibration_does_not_apply_to_a_confirmed_run_and_an_edited_skill_voids_it(bench):
    from standin import repo as R
    from test_e2e_benchmark import GREET

    verdict = independent(17, 0.5, 0.5)
    calibrate_with(bench, verdict, confirm=False)
    R.write(bench.repo / "tests" / GREET / "benchmark.yaml", "confirm_judgments: true\n")
    results, html, out = later_run(bench, verdict)
    assert results["noise"]["status"] == "void" and "it ran without confirm_judgments" in results["noise"]["sentence"]
    assert "and confirm_judgments on would" in results["noise"]["sentence"]
    R.write(bench.repo / "tests" / GREET / "benchmark.yaml", "")
    skill_md = next((bench.repo / "skills" / GREET).rglob("SKILL.md"))
    skill_md.write_text(skill_md.read_text() + "\nOne more line.\n")
    results, _, _ = later_run(bench, verdict)
    assert results["noise"]["status"] == "void" and "the skill changed since" in results["noise"]["sentence"]
