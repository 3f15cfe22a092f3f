"""The ways a determined arm, a stray file or a re-render once got a wrong verdict through (issue 11), each
tried at the seam a user meets: the exit code, results.json, the report, what collect prints.

The end-to-end ones play Claude Code with the stand-in (tests/standin), which writes real-format
transcripts and, told to, plays the attack.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchcore.cli import main
from standin import repo as R
from test_e2e_benchmark import Bench

FIXTURES = Path(__file__).resolve().parents[2] / "checks" / "fixtures" / "benchmark-core"


def render(capsys, *args):
    code = main(["render", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def small_repo(b: Bench) -> None:
    """One two-arm skill with one case (ten cells): quick to plan."""
    R.init(b.repo, "main")
    R.write(b.repo / "README.md", "skills\n")
    R.commit_all(b.repo)
    R.skill(b.repo, "text/greet", "Greet the reader by name.")
    R.case(b.repo, "text/greet", "01-hello")


# ----------------------------------------------------------------------------- 8: --assert-timeout


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "-inf"])
def test_an_assert_timeout_that_is_not_a_positive_number_is_bad_input(tmp_path, monkeypatch, value):
    # Bug: --assert-timeout 0 (or -1) gated every trial and still said "nothing missing"; nan or inf ended
    # in a traceback.
    b = Bench(tmp_path, monkeypatch)
    small_repo(b)
    b.plan("greet", "--seed", "1")
    [run_dir] = b.runs()
    before = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}
    rc, out, err = b.run("collect", str(run_dir), f"--assert-timeout={value}")
    assert rc == 2 and out == ""
    assert f"--assert-timeout {float(value)!r} is not a positive number of seconds" in err
    assert "fix: pass a number above 0, e.g. --assert-timeout 60" in err
    assert {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()} == before


# ----------------------------------------------------------------------------- 9: a fake previous version


@pytest.mark.parametrize("released", ["readme", "file"])
def test_a_default_branch_folder_without_skill_md_is_no_previous_version(tmp_path, monkeypatch, released):
    # Bug: a skill folder on the default branch holding only a README (or a file at the skill's path) was
    # planned as an edited released skill, three arms, so "regression" compared the new arm against no skill.
    b = Bench(tmp_path, monkeypatch)
    R.init(b.repo, "main")
    if released == "readme":
        R.write(b.repo / "skills/text/greet/README.md", "coming soon\n")
    else:
        R.write(b.repo / "skills/text/greet", "a file, not a folder\n")
    R.commit_all(b.repo)
    (b.repo / "skills/text/greet").unlink() if released == "file" else None
    R.skill(b.repo, "text/greet", "Greet the reader by name.")
    R.case(b.repo, "text/greet", "01-hello")
    rc, out, err = b.plan("greet", "--seed", "1")
    assert rc == 0, err
    why = ("skills/text/greet on the default branch main" if released == "readme"
           else "skills/text/greet is a file, not a skill folder, on the default branch main")
    assert f"greet: two-arm (new, baseline) - no previous version: {why}" in out
    if released == "readme":
        assert "has no SKILL.md (it holds only README.md)" in out
    [run_dir] = b.runs()
    run = json.loads((run_dir / "run.json").read_text())
    assert run["shape"] == "two-arm" and run["arms"] == ["new", "baseline"]
    assert "previous" not in json.loads((run_dir / "plan.json").read_text())["skill_copies"]


# ----------------------------------------------------------------------------- 10: files that lie


@pytest.mark.parametrize("count", [0, 2, 7])
def test_a_comparison_file_with_a_judgment_count_other_than_1_or_3_is_refused(tmp_path, capsys, count):
    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "two-arm" / "run", run)
    reports = tmp_path / "reports"
    target = run / "cases" / "03-reject-graphql" / "t1" / "efficacy.json"
    record = json.loads(target.read_text())
    record["judgments"] = (record["judgments"] * 7)[:count]
    target.write_text(json.dumps(record))
    code, _, err = render(capsys, run, "--reports", reports)
    assert code == 2
    assert f"{target}: holds {count} judgments, but a comparison has 1 judgment, or 3 when its judges split" in err
    assert "fix: delete the file and run 'benchcore collect' again" in err
    assert not reports.exists() or not any(reports.iterdir())


def test_re_rendering_an_older_run_does_not_make_it_the_latest(tmp_path, capsys):
    # Bug: the leaderboard and <skill>.html showed whichever run was rendered last, so re-rendering an
    # older run made it the skill's latest.
    reports = tmp_path / "reports"
    old, new = tmp_path / "runs" / "old", tmp_path / "runs" / "new"
    shutil.copytree(FIXTURES / "two-arm" / "run", old)
    shutil.copytree(FIXTURES / "two-arm" / "run", new)
    info = json.loads((new / "run.json").read_text())
    old_id = info["run_id"]
    info["run_id"], info["started_at"] = "20991231T235959Z-beef", "2099-12-31T23:59:59Z"
    (new / "run.json").write_text(json.dumps(info))
    # The newer run loses a judgment, so the two renders differ.
    (new / "cases" / "01-choose-database" / "t1" / "efficacy.json").unlink()
    assert render(capsys, new, "--reports", reports)[0] == 1
    page, index = (reports / "adr-writer.html").read_text(), (reports / "index.html").read_text()
    code, out, err = render(capsys, old, "--reports", reports)
    assert code == 0
    assert f"run {old_id} is older than 20991231T235959Z-beef, the latest rendered run of adr-writer" in err
    results = json.loads((reports / "adr-writer.results.json").read_text())
    assert results["run_id"] == "20991231T235959Z-beef"
    assert (reports / "adr-writer.html").read_text() == page and (reports / "index.html").read_text() == index
    assert json.loads((old / "results.json").read_text())["run_id"] == old_id and (old / "adr-writer.html").is_file()
    history = [json.loads(l)["run_id"] for l in (reports / "adr-writer.history.jsonl").read_text().splitlines()]
    assert history == [old_id, "20991231T235959Z-beef"]
