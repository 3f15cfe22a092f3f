"""End to end, issue 13: the pre-launch estimate, the budget that stops launches, the judges' model and
several arm models, through the real commands and the stand-in (tests/standin) playing Claude Code."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from standin import repo as R
from standin.agent import Script
from test_e2e_benchmark import CASE1, CASE2, GREET, Bench, greet_files, greet_repo, next_script

NODE = shutil.which("node")


@pytest.fixture
def bench(tmp_path, monkeypatch):
    b = Bench(tmp_path, monkeypatch)
    greet_repo(tmp_path)
    return b


def full_run(b: Bench, *plan_args: str, script: Script | None = None) -> tuple[Path, str]:
    """plan -> arms -> collect -> judges -> collect -> render; returns the run and what plan printed."""
    script = script or Script(files=greet_files())
    before = set(b.runs()) if (b.repo / "tests/.reports/runs").is_dir() else set()
    rc, plan_out, err = b.plan("greet", *plan_args)
    assert rc == 0, err
    [run_dir] = sorted(set(b.runs()) - before)
    b.arms(next_script(plan_out), script)
    rc, out, _ = b.run("collect", str(run_dir))
    b.judges(run_dir, script)
    rc, out, _ = b.run("collect", str(run_dir))
    assert "next: run: benchcore render" in out, out
    b.run("render", str(run_dir))
    return run_dir, plan_out


def new_run(b: Bench, before: list[Path]) -> Path:
    """The run a plan just made (run ids of one second sort by their random suffix, not by time)."""
    [run_dir] = sorted(set(b.runs()) - set(before))
    return run_dir


def history(b: Bench, skill: str = "greet") -> list[dict]:
    return [json.loads(l) for l in (b.repo / f"tests/.reports/{skill}.history.jsonl").read_text().splitlines()]


def results(b: Bench, name: str = "greet") -> dict:
    return json.loads((b.repo / f"tests/.reports/{name}.results.json").read_text())


def actual_raw(r: dict) -> int:
    return sum(a["raw_tokens"] for a in r["arms"].values()) + (r["judges"]["raw_tokens"] if r.get("judges") else 0)


def test_the_first_run_is_estimated_from_the_prior_and_the_second_from_it(bench):
    run1, out1 = full_run(bench, "--seed", "3")
    # Bug (issue 39, item 3): the first run said "cannot estimate the tokens", and the launch dialog showed no
    # figure. Now a rough figure from the documented prior per cell, with dollars, labelled as rough.
    [line1] = [l for l in out1.splitlines() if l.startswith("estimate: ")]
    assert line1.startswith("estimate: 30 arm cells and about 20 judge packets, about ") and " raw tokens (" in line1
    assert re.search(r"cost-equivalent\), \$[0-9]+\.[0-9]{2} \(a rough first-run prior per cell \(docs/cost\.md\), on .*; up to 2x either way", line1), line1
    assert "  estimate: " not in out1 and out1.count("a rough first-run prior per cell") == 1  # said once
    prior = json.loads((run1 / "run.json").read_text())["estimate"]
    assert prior["basis"] == "prior" and prior["cost_usd"] > 0 and prior["arms"]["baseline"]["cells"] == 10
    assert "cell_costs" not in bench.plan_json(run1)  # a ceiling is never held to the rough prior
    [line] = history(bench)
    # The history line records each arm's and the judges' usage, with the median cell.
    assert set(line["usage"]) == {"new", "baseline", "previous", "judges"}
    assert line["usage"]["new"]["cells"] == 10 and line["usage"]["judges"]["cells"] == 20
    assert line["usage"]["new"]["median_cell"]["raw_tokens"] > 0
    r1 = results(bench)
    assert r1["judges"]["raw_tokens"] == line["usage"]["judges"]["raw_tokens"]
    report1 = (bench.repo / "tests/.reports/greet.html").read_text()
    assert "a rough first-run prior per cell" in report1  # estimate against actual: how rough it was

    run2, out2 = full_run(bench, "--seed", "4")
    assert "(from greet's 1 earlier run)" in out2
    est = json.loads((run2 / "run.json").read_text())["estimate"]
    assert est["basis"] == "this skill" and est["arms"]["new"]["cells"] == 10 and est["judges"]["cells"] == 20
    r2 = results(bench)
    # Nothing changed between the runs: the estimate is within 10% of what the run really used.
    assert abs(actual_raw(r2) - est["raw_tokens"]) <= 0.10 * actual_raw(r2)
    print(f"\nstand-in: second run estimated {est['raw_tokens']:,.0f} raw tokens, used {actual_raw(r2):,}")
    report2 = (bench.repo / "tests/.reports/greet.html").read_text()
    assert "Estimate against actual" in report2 and "greet&#39;s 1 earlier run" in report2
    assert history(bench)[-1]["estimate"]["raw_tokens"] == est["raw_tokens"]


def test_a_skill_with_no_runs_is_estimated_from_the_other_skills(tmp_path, monkeypatch):
    b = Bench(tmp_path, monkeypatch)
    greet_repo(tmp_path)
    full_run(b, "--seed", "5")
    R.case(b.repo, "docs/untested", "01-first")
    rc, out, err = b.plan("untested", "--seed", "5")
    assert rc == 0, err
    assert "from the median of 1 other skill (greet)" in out


def test_the_judges_run_on_the_judge_model_and_the_report_shows_the_model_each_really_ran_on(bench):
    R.write(bench.repo / "tests" / GREET / "benchmark.yaml", "judge_model: claude-haiku-4-5\n")
    R.commit_all(bench.repo, "judge model")
    R.skill(bench.repo, GREET, "Greet the reader by name, warmly.")  # edited again after the commit
    run_dir, out = full_run(bench, "--seed", "6")
    assert "judges run on claude-haiku-4-5" in out
    plan = bench.plan_json(run_dir)
    assert {p["model"] for p in plan["packets"]} == {"claude-haiku-4-5"}
    assert all("model" not in c for c in plan["cells"])  # the arms stay on the session default
    eff = json.loads((run_dir / "cases" / CASE1 / "t1" / "efficacy.json").read_text())
    assert eff["judgments"][0]["model"] == "claude-haiku-4-5"  # read from the judge's transcript
    assert (run_dir / "cases" / CASE1 / "t1" / "judges" / "efficacy-1.jsonl").is_file()
    r = results(bench)
    assert r["judge_model"] == "claude-haiku-4-5" and r["judges"]["models"] == ["claude-haiku-4-5"]
    assert r["arms"]["new"]["models"] == ["claude-opus-5-5"]
    html = (bench.repo / "tests/.reports/greet.html").read_text()
    assert "asked for claude-haiku-4-5; ran on claude-haiku-4-5" in html
    assert '<th scope="row">judges</th>' in html


@pytest.mark.skipif(NODE is None, reason="node runs the workflow script's budget logic")
def test_a_ceiling_stops_the_launches_and_the_report_says_so(bench):
    full_run(bench, "--seed", "7")  # the history the estimate comes from
    r1 = results(bench)
    per_trial = sum(history(bench)[-1]["usage"][a]["median_cell"]["raw_tokens"] for a in ("new", "baseline", "previous"))
    ceiling = int(per_trial * 3.5)  # room for 3 whole trials of arm cells, and no judges after them
    before = bench.runs()
    rc, out, err = bench.plan("greet", "--seed", "8", "--budget-tokens", str(ceiling))
    assert rc == 0, err
    run_dir = new_run(bench, before)
    assert f"budget: ceiling {ceiling:,} raw tokens (plan flag) reached: 7 of 10 trials (21 cells) will not be launched" in out
    plan = bench.plan_json(run_dir)
    skipped = [c["id"] for c in plan["cells"] if c.get("skip")]
    assert len(skipped) == 21 and all(c.startswith(CASE1 + "/t4") or c.startswith(CASE1 + "/t5") or
                                       c.startswith(CASE2) for c in skipped)
    bench.arms(next_script(out), Script(files=greet_files()))
    # Only what the script launched has a transcript.
    rc, out, _ = bench.run("collect", str(run_dir))
    assert "9/9 cells collected" in out  # the cells the budget left out are neither collected nor missing
    assert "missing transcripts" not in out and "--rerun" not in out
    run = json.loads((run_dir / "run.json").read_text())
    assert run["not_run"][f"{CASE2}/t1"] == "budget reached"
    # The arms spent the ceiling's worth: the judges are held back too.
    assert "not run (budget reached" in out
    rc, out, _ = bench.run("render", str(run_dir))
    assert rc == 1
    r = results(bench)
    assert r["incomplete"] is True
    c2 = {c["id"]: c for c in r["cases"]}[CASE2]
    assert c2["efficacy"]["outcomes"] == [None] * 5
    assert "trials 1, 2, 3, 4, 5 not run: budget reached" in c2["efficacy"]["reason"]
    html = (bench.repo / "tests/.reports/greet.html").read_text()
    assert "It was reached" in html and "never launched (budget reached)" in html


def test_each_model_gets_its_own_run_verdicts_ribbons_and_cost_rows_in_one_report(bench):
    R.write(bench.repo / "tests" / GREET / "benchmark.yaml",
            "models: [claude-haiku-4-5, claude-opus-4-6]\njudge_model: claude-sonnet-4-6\n")
    R.commit_all(bench.repo, "two models")  # the default branch's HEAD: the previous version (not origin's)
    R.skill(bench.repo, GREET, "Greet the reader by name, warmly and briefly.")
    rc, out, err = bench.plan("greet", "--seed", "11")
    assert rc == 0, err
    assert "greet on claude-haiku-4-5: three-arm" in out and "greet on claude-opus-4-6: three-arm" in out
    runs = bench.runs()
    assert len(runs) == 2
    by_model = {json.loads((r / "run.json").read_text())["model"]: r for r in runs}
    assert set(by_model) == {"claude-haiku-4-5", "claude-opus-4-6"}
    for model, r in by_model.items():
        assert {c["model"] for c in bench.plan_json(r)["cells"]} == {model}
    bench.arms(next_script(out), Script(files=greet_files()))
    # The skill helps the small model and not the large one: each run is judged on its own.
    helps = Script(files=greet_files(), verdict=lambda c, t, comp, r: "WIN")
    nothing = Script(files=greet_files(), verdict=lambda c, t, comp, r: "TIE")
    for model, script in (("claude-haiku-4-5", helps), ("claude-opus-4-6", nothing)):
        bench.run("collect", str(by_model[model]))
        bench.judges(by_model[model], script)
        rc, out, _ = bench.run("collect", str(by_model[model]))
        assert "next: run: benchcore render" in out
    # One render of both runs (the next: line of collect names every run), as the protocol does.
    rc, out, _ = bench.run("render", *(str(r) for _, r in sorted(by_model.items())))
    assert rc == 1 and out.count("greet  run ") == 2 and out.strip().splitlines()[-1].startswith("next: benchcore clean ")
    small, large = results(bench, "greet@claude-haiku-4-5"), results(bench, "greet@claude-opus-4-6")
    assert (small["model"], large["model"]) == ("claude-haiku-4-5", "claude-opus-4-6")
    assert small["verdicts"]["efficacy"]["status"] == "pass" and large["verdicts"]["efficacy"]["status"] == "fail"
    # The transcripts' models: each run's arms ran on its model, the judges on the judge model.
    assert {m for a in small["arms"].values() for m in a["models"]} == {"claude-haiku-4-5"}
    assert {m for a in large["arms"].values() for m in a["models"]} == {"claude-opus-4-6"}
    assert small["judges"]["models"] == large["judges"]["models"] == ["claude-sonnet-4-6"]
    assert not (bench.repo / "tests/.reports/greet.results.json").exists()
    html = (bench.repo / "tests/.reports/greet.html").read_text()
    assert html.count('<h2 class="model-title">Arms on ') == 2
    assert html.index('id="model-claude-haiku-4-5"') < html.index('id="model-claude-opus-4-6"')
    assert html.count('<section class="cost"') == 2 and html.count('class="ribbon ribbon-efficacy"') == 2
    assert 'id="model-claude-opus-4-6-cost-h"' in html  # ids stay unique on the page
    assert len(set(__import__("re").findall(r'\sid="([^"]+)"', html))) == len(__import__("re").findall(r'\sid="([^"]+)"', html))
    index = (bench.repo / "tests/.reports/index.html").read_text()
    assert "greet on claude-haiku-4-5" in index and "greet on claude-opus-4-6" in index
    assert 'href="greet.html#model-claude-opus-4-6"' in index
    lines = history(bench)
    assert [l["model"] for l in lines] == ["claude-haiku-4-5", "claude-opus-4-6"]
    # The next plan estimates each model from its own earlier run.
    rc, out, _ = bench.plan("greet", "--seed", "12")
    assert "(from greet's 1 earlier run on claude-haiku-4-5)" in out
    assert "(from greet's 1 earlier run on claude-opus-4-6)" in out


@pytest.mark.skipif(NODE is None, reason="node runs the workflow script's budget logic")
def test_a_rerun_is_held_to_the_ceiling_from_what_was_really_spent(bench):
    full_run(bench, "--seed", "13")
    per_trial = sum(history(bench)[-1]["usage"][a]["median_cell"]["raw_tokens"] for a in ("new", "baseline", "previous"))
    before = bench.runs()
    rc, out, err = bench.plan("greet", "--seed", "14", "--budget-tokens", str(int(per_trial * 3.5)))
    run_dir = new_run(bench, before)
    bench.arms(next_script(out), Script(files=greet_files(), peek={(CASE1, 1)}))  # t1's baseline reads a SKILL.md
    rc, out, _ = bench.run("collect", str(run_dir))
    assert f"INVALID trial {CASE1}/t1" in out
    rc, out, _ = bench.run("collect", str(run_dir), "--rerun")
    # Three trials' worth is spent already: the re-run of trial 1 would pass the ceiling, so it is not launched.
    assert f"{CASE1}/t1" in json.loads((run_dir / "run.json").read_text())["not_run"]
    assert all(c.get("skip") for c in bench.plan_json(run_dir)["cells"] if c["id"].startswith(f"{CASE1}/t1/"))
    assert "launch the re-planned arm cells" not in out


def test_a_dollar_ceiling_with_no_price_to_go_by_says_it_cannot_stop_a_launch(bench):
    full_run(bench, "--seed", "15", script=Script(files=greet_files(), model="claude-nova-1"))  # a model with no price
    before = bench.runs()
    rc, out, err = bench.plan("greet", "--seed", "16", "--budget-usd", "0.01")
    assert rc == 0, err
    assert "the estimate has no dollar figure (a model with no price), so the dollar ceiling cannot stop a launch" in out
    assert not any(c.get("skip") for c in bench.plan_json(new_run(bench, before))["cells"])
