"""Issue 27 item 5 through the stand-in: the judges' fan-out launched twice (a retyped command, a double
approval) from the run's own session loses no judgment: the first judge of each packet counts, the second
is named as ignored in collect.json and the report; a judge no session of the run launched stays refused.
The arms' fan-out launched twice loses no trial either: the first arm of each cell counts, the verdict is
the one a single launch gives, and the second launch's arms are named and their tokens shown as spend."""

from __future__ import annotations

import json

import pytest

from benchcore.harness.runs.costs import spent
from standin.agent import Script
from test_e2e_benchmark import CASE1, CASE2, Bench, greet_files, greet_repo, next_script, regression_script


def judged_twice(tmp_path, monkeypatch, second: Script) -> tuple[Bench, object, str]:
    b = Bench(tmp_path, monkeypatch)
    greet_repo(tmp_path)
    rc, out, err = b.plan("greet", "--seed", "9")
    assert rc == 0, err
    [run_dir] = b.runs()
    b.arms(next_script(out), Script(files=greet_files(), verdict=regression_script))
    rc, out, _ = b.run("collect", str(run_dir))
    assert rc == 0 and "30/30 cells collected; 0/20 packets judged" in out
    b.judges(run_dir, Script(files=greet_files(), verdict=regression_script))
    b.judges(run_dir, second)  # the same bound script, launched again from the same session
    rc, out, _ = b.run("collect", str(run_dir))
    assert rc == 0, out
    return b, run_dir, out


def test_a_judges_fan_out_launched_twice_counts_the_first_judge_of_each_packet(tmp_path, monkeypatch):
    # The second launch's judges all answer A: were they counted, every verdict would change.
    b, run_dir, out = judged_twice(tmp_path, monkeypatch,
                                   Script(files=greet_files(), verdict=lambda c, t, comp, r: "A"))
    assert "20/20 packets judged" in out
    judge_files = sorted(b.config.glob("projects/**/agent-*.jsonl"))
    status = json.loads((run_dir / "collect.json").read_text())
    assert len(status["ignored_judges"]) == 0  # not refused: the session's own
    ignored = json.loads((run_dir / "cases" / CASE1 / "t1" / "ignored.json").read_text())
    assert {e["packet"] for e in ignored} == {f"{CASE1}/t1/efficacy", f"{CASE1}/t1/regression"}
    assert all("the first to start counts" in e["why"] for e in ignored)
    # Every judgment is the first launch's (regression_script's), none of the second's.
    rec = json.loads((run_dir / "cases" / CASE1 / "t1" / "efficacy.json").read_text())
    assert len(rec["judgments"]) == 1
    rc, out, err = b.run("render", str(run_dir))
    assert rc in (0, 1), err
    html = (b.repo / "tests/.reports/greet.html").read_text()
    assert "trial 1, ignored by collect: 01-hello/t1/efficacy: a second judge this session launched answered it" in html
    # Each ignored answer is a transcript of its own, the second launch's, kept where Claude Code wrote it.
    assert all(e["path"] in map(str, judge_files) and e["why"].split(": ")[-1] not in e["path"] for e in ignored)


def armed(tmp, monkeypatch, twice: bool) -> tuple[Bench, object, str]:
    """A three-arm greet run to its verdict, the arms' fan-out launched once or twice (the second launch's
    arms answer otherwise: were any of them counted, its output would show it)."""
    b = Bench(tmp, monkeypatch)
    greet_repo(tmp)
    rc, out, err = b.plan("greet", "--seed", "9")
    assert rc == 0, err
    [run_dir] = b.runs()
    script = next_script(out)
    b.arms(script, Script(files=greet_files(), verdict=regression_script))
    if twice:  # the same bound script, launched again from the same session
        b.arms(script, Script(files=greet_files(), output=lambda c, t, a, w: f"SECOND LAUNCH {a} {c} t{t}"))
    rc, out, _ = b.run("collect", str(run_dir))
    assert rc == 0 and "30/30 cells collected; 0/20 packets judged" in out, out
    b.judges(run_dir, Script(files=greet_files(), verdict=regression_script))
    rc, out, _ = b.run("collect", str(run_dir))
    assert rc == 0 and "20/20 packets judged" in out, out
    rc, _, err = b.run("render", str(run_dir))
    assert rc in (0, 1), err
    return b, run_dir, out


def test_an_arms_fan_out_launched_twice_counts_the_first_arm_of_each_cell(tmp_path, monkeypatch):
    _, _, _ = once = armed(tmp_path / "once", monkeypatch, twice=False)
    b, run_dir, out = armed(tmp_path / "twice", monkeypatch, twice=True)
    results = json.loads((b.repo / "tests/.reports/greet.results.json").read_text())
    single = json.loads((once[0].repo / "tests/.reports/greet.results.json").read_text())
    # The verdict, the cases' outcomes and the arms' usage are a single launch's (the blind order of each
    # packet is drawn per run, so which letter won is not compared).
    unblind = lambda v: {axis: {k: x for k, x in a.items() if k != "position_bias"} for axis, a in v.items()}  # noqa: E731
    assert unblind(results["verdicts"]) == unblind(single["verdicts"]) and results["headline"] == single["headline"]
    assert [c["efficacy"]["outcomes"] for c in results["cases"]] == [c["efficacy"]["outcomes"] for c in single["cases"]]
    assert {a: u["turns"] for a, u in results["arms"].items()} == {a: u["turns"] for a, u in single["arms"].items()}
    assert "ignored" not in single and "ignored_usage" not in single
    # No trial is invalid or sent back: every output is the first launch's.
    status = json.loads((run_dir / "collect.json").read_text())
    assert not status["to_rerun"] and not status.get("conflicts")
    assert len(status["ignored_duplicates"]) == 30 and not status["refused_transcripts"]
    assert "ignored 30 duplicates this session launched (a fan-out launched twice?)" in out
    outputs = sorted(run_dir.glob("cases/*/t*/*/output.md"))
    assert len(outputs) == 30 and not any("SECOND LAUNCH" in p.read_text() for p in outputs)
    # Each trial names its three ignored arms, with the one that counts; results.json names all thirty.
    for case in (CASE1, CASE2):
        for n in range(1, 6):
            ignored = json.loads((run_dir / "cases" / case / f"t{n}" / "ignored.json").read_text())
            assert sorted(e["cell"] for e in ignored) == [f"{case}/t{n}/{a}" for a in ("baseline", "new", "previous")]
            assert all("a second arm this session launched" in e["why"] and "the first to start counts" in e["why"]
                       for e in ignored)
            kept = sorted((run_dir / "cases" / case / f"t{n}" / "ignored").glob("*.jsonl"))
            assert len(kept) == 3 and all("SECOND LAUNCH" in p.read_text() for p in kept)
    assert len(results["ignored"]) == 30 and all(": a second arm this session launched" in line
                                                 for line in results["ignored"])
    # Their tokens are real spend: a cost row of their own, about what the arms spent, in no arm's figures.
    arms_raw = sum(u["raw_tokens"] for u in results["arms"].values())
    assert 0.5 * arms_raw < results["ignored_usage"]["raw_tokens"] < 2 * arms_raw
    # And they count against the run's budget (what it has spent), beside the arms and the judges.
    raw, _ = spent(run_dir)
    assert raw == pytest.approx(arms_raw + results["judges"]["raw_tokens"] + results["ignored_usage"]["raw_tokens"])
    html = (b.repo / "tests/.reports/greet.html").read_text()
    assert '<th scope="row">ignored duplicates</th>' in html
    assert f"trial 1, ignored by collect: {CASE1}/t1/new: a second arm this session launched" in html
