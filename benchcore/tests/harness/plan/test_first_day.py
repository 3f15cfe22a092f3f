"""What a new user's first plan does to their repository and tells them (issue 26)."""

from __future__ import annotations

import json
import subprocess

from standin import repo as R
from test_e2e_benchmark import bench  # noqa: F401 - bench is a fixture


def _status(repo) -> str:
    return subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=all"],
                          capture_output=True, text=True, check=True).stdout


def test_plan_keeps_the_reports_out_of_git_through_info_exclude_and_says_so_once(bench):
    gitignore_before = (bench.repo / ".gitignore").exists()
    rc, out, err = bench.plan("greet", "--seed", "1")
    assert rc == 0, err
    assert "tests/.reports/ (transcripts, reports, history) is kept out of git" in out
    assert "info/exclude" in out
    assert ".reports" not in _status(bench.repo)  # the run folder exists, and git status does not show it
    assert (bench.repo / "tests/.reports/runs").is_dir()
    assert (bench.repo / ".gitignore").exists() == gitignore_before  # no tracked file of the user's edited
    exclude = (bench.repo / ".git/info/exclude").read_text()
    assert exclude.count("/tests/.reports/") == 1
    rc, out, err = bench.plan("greet", "--seed", "2")
    assert rc == 0, err
    assert "kept out of git" not in out  # said once
    assert (bench.repo / ".git/info/exclude").read_text() == exclude


def test_a_repository_that_already_ignores_the_reports_is_left_alone(bench):
    R.write(bench.repo / ".gitignore", "tests/.reports/\n")
    before = (bench.repo / ".git/info/exclude").read_text() if (bench.repo / ".git/info/exclude").exists() else None
    rc, out, err = bench.plan("greet", "--seed", "1")
    assert rc == 0, err
    assert "kept out of git" not in out
    after = (bench.repo / ".git/info/exclude").read_text() if (bench.repo / ".git/info/exclude").exists() else None
    assert after == before


def test_plan_names_the_remote_commit_when_the_local_default_branch_is_ahead(bench):
    pushed = R.git(bench.repo, "rev-parse", "trunk").strip()
    R.commit_all(bench.repo, "greet edited and committed, not pushed")
    R.skill(bench.repo, "git/greet", "Greet the reader by name, warmly and briefly.")
    rc, out, err = bench.plan("greet", "--seed", "1")
    assert rc == 0, err
    local = R.git(bench.repo, "rev-parse", "trunk").strip()
    assert f"the previous version is your local trunk at {local[:7]}; origin/trunk is at {pushed[:7]}" in out
    [run_dir] = bench.runs()
    info = json.loads((run_dir / "run.json").read_text())
    assert info["default_branch"]["commit"] == local
    assert (info["default_branch"]["remote"], info["default_branch"]["remote_commit"]) == ("origin/trunk", pushed)


def test_invoked_as_accepts_only_a_benchmark_skill_command(bench):
    # A model that passed /clear made plan say "type /clear again" (issue 26.10).
    for bad in ("/clear", "clear", "/benchmark-skill greet", "/greet"):
        rc, out, err = bench.plan("greet", "--invoked-as", bad)
        assert rc == 2 and "is not a benchmark-skill command" in err and "--invoked-as /benchmark-skill" in err, bad
    assert not (bench.repo / "tests/.reports/runs").exists()  # nothing planned
    for good in ("/benchmark-skill", "benchmark-skill", "/benchkit:benchmark-skill"):
        rc, out, err = bench.plan("greet", "--invoked-as", good)
        assert rc == 0, err
        assert f"type /{good.lstrip('/')} greet again" in out
