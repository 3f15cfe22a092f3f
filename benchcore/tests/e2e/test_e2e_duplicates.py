"""Issue 27 item 5 through the stand-in: the judges' fan-out launched twice (a retyped command, a double
approval) from the run's own session loses no judgment: the first judge of each packet counts, the second
is named as ignored in collect.json and the report; a judge no session of the run launched stays refused."""

from __future__ import annotations

import json

from standin.agent import Script
from test_e2e_benchmark import CASE1, Bench, greet_files, greet_repo, next_script, regression_script


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
