"""The default branch is resolved, never assumed; a skill's change counts uncommitted and untracked files."""

from __future__ import annotations

import pytest

from benchcore.errors import BenchError
from benchcore.harness.repo import git
from standin import repo as R


@pytest.fixture
def repo(tmp_path, monkeypatch):
    for k, v in R.isolate_git(tmp_path / "home").items():
        monkeypatch.setenv(k, v)
    r = tmp_path / "repo"
    R.init(r, "trunk")
    R.skill(r, "git/greet", "v1")
    R.commit_all(r, "v1")
    return r


def test_the_remote_head_wins(repo, tmp_path):
    R.git(repo, "branch", "main")
    R.add_remote_head(repo, tmp_path / "origin.git", "trunk")
    R.git(repo, "config", "init.defaultBranch", "main")
    b = git.resolve_default_branch(repo)
    assert (b.name, b.ref, b.remote_ref) == ("trunk", "refs/heads/trunk", "refs/remotes/origin/trunk")
    assert b.commit == R.git(repo, "rev-parse", "trunk").strip() and b.remote_commit is None


def test_the_previous_version_is_the_local_branch_even_when_not_pushed(repo, tmp_path):
    R.add_remote_head(repo, tmp_path / "origin.git", "trunk")
    pushed = R.git(repo, "rev-parse", "trunk").strip()
    R.skill(repo, "git/greet", "v2")
    R.commit_all(repo, "v2, committed and not pushed")
    b = git.resolve_default_branch(repo)
    assert b.name == "trunk" and b.commit == R.git(repo, "rev-parse", "trunk").strip() != pushed
    assert (b.remote_name, b.remote_commit) == ("origin/trunk", pushed)


def test_the_remote_branch_when_no_local_branch_has_its_name(repo, tmp_path):
    R.add_remote_head(repo, tmp_path / "origin.git", "trunk")
    R.git(repo, "checkout", "-q", "-b", "work")
    R.git(repo, "branch", "-D", "trunk")
    b = git.resolve_default_branch(repo)
    assert (b.name, b.ref, b.remote_commit) == ("trunk", "refs/remotes/origin/trunk", None)


def test_then_init_default_branch_when_that_branch_exists(repo):
    R.git(repo, "branch", "main")
    R.git(repo, "config", "init.defaultBranch", "trunk")
    assert git.resolve_default_branch(repo).name == "trunk"
    R.git(repo, "config", "init.defaultBranch", "nonexistent")
    assert git.resolve_default_branch(repo).name == "main"  # falls through to main/master


def test_then_master(repo):
    R.git(repo, "branch", "-m", "trunk", "master")
    assert git.resolve_default_branch(repo).name == "master"


def test_no_default_branch_names_the_local_branches_and_the_fix(repo):
    with pytest.raises(BenchError) as err:
        git.resolve_default_branch(repo)
    assert "local branches: trunk" in str(err.value) and "init.defaultBranch" in str(err.value)


def test_not_a_repository(tmp_path, monkeypatch):
    for k, v in R.isolate_git(tmp_path / "home").items():
        monkeypatch.setenv(k, v)
    (tmp_path / "plain").mkdir()
    with pytest.raises(BenchError, match="is not a git repository"):
        git.resolve_default_branch(tmp_path / "plain")


def test_changes_counted_and_not(repo):
    head = R.git(repo, "rev-parse", "HEAD").strip()
    assert git.skill_changed(repo, head, "skills/git/greet") == (True, False)
    assert git.skill_changed(repo, head, "skills/git/other") == (False, True)
    # An ignored file is not part of the skill.
    R.write(repo / ".gitignore", "*.pyc\n")
    R.write(repo / "skills/git/greet/cache.pyc", "x")
    assert git.skill_changed(repo, head, "skills/git/greet") == (True, False)
    # An untracked file is.
    R.write(repo / "skills/git/greet/extra.md", "more\n")
    assert git.skill_changed(repo, head, "skills/git/greet") == (True, True)
    (repo / "skills/git/greet/extra.md").unlink()
    # So is an uncommitted edit, and a deleted file.
    R.skill(repo, "git/greet", "v2")
    assert git.skill_changed(repo, head, "skills/git/greet") == (True, True)
    R.git(repo, "checkout", "-q", "--", "skills/git/greet/SKILL.md")
    (repo / "skills/git/greet/SKILL.md").unlink()
    assert git.skill_changed(repo, head, "skills/git/greet") == (True, True)


def test_copies_working_tree_and_commit(repo, tmp_path):
    head = R.git(repo, "rev-parse", "HEAD").strip()
    R.skill(repo, "git/greet", "v2")
    R.write(repo / "skills/git/greet/scripts/run.sh", "#!/bin/sh\necho hi\n")
    (repo / "skills/git/greet/scripts/run.sh").chmod(0o755)
    R.git(repo, "add", "skills/git/greet/scripts/run.sh")
    R.git(repo, "commit", "-q", "-m", "script")
    new_head = R.git(repo, "rev-parse", "HEAD").strip()
    assert git.copy_worktree(repo, "skills/git/greet", tmp_path / "new") == 2
    assert "v2" in (tmp_path / "new/SKILL.md").read_text()
    assert git.extract_at(repo, head, "skills/git/greet", tmp_path / "old") == 1
    assert "v1" in (tmp_path / "old/SKILL.md").read_text()
    git.extract_at(repo, new_head, "skills/git/greet", tmp_path / "mid")
    assert (tmp_path / "mid/scripts/run.sh").stat().st_mode & 0o111
