"""Hard assertions run git in the arm's world; nothing the world's git setup names may run from collect.

Regression tests for issue 18, item 2: the sanitising listed the world's git configuration from
collect's own folder (the user's repository), so an ``includeIf "gitdir:..."`` section that matches only
inside the world, or a ``.git`` file pointing at a hidden git folder, hid a ``filter.<x>.clean`` that
then ran when a predicate such as ``git diff --quiet -- docs/adr`` touched a file.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from benchcore.harness.worlds.assertions import gated, run_assertions, world_git_problem
from benchcore.model import HardAssertion

PREDICATES = ("git diff --quiet -- docs/adr", "git status --porcelain", "git add -A && git diff --cached --stat",
              "git log -p | cat", "git show HEAD")


def _git(world: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(world), *args], check=True, capture_output=True,
                   env={"PATH": "/usr/bin:/bin", "HOME": str(world.parent), "GIT_CONFIG_NOSYSTEM": "1",
                        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


@pytest.fixture
def world(tmp_path: Path):
    """A world under .../worlds/w1 with one commit, an evil program beside it, and the marker it would write."""
    w = tmp_path / "worlds" / "w1"
    (w / "docs" / "adr").mkdir(parents=True)
    (w / "docs" / "adr" / "0001.md").write_text("# ADR\n")
    _git(w.parent, "init", "-q", "w1")
    _git(w, "add", "-A")
    _git(w, "commit", "-qm", "init")
    (w / "docs" / "adr" / "0001.md").write_text("# ADR, edited by the arm\n")
    marker = tmp_path / "PWNED"
    evil = tmp_path / "evil.sh"
    evil.write_text(f"#!/bin/sh\necho ran \"$@\" >> {marker}\ncat\n")
    evil.chmod(0o755)
    return w, evil, marker


def _check(w: Path, tmp_path: Path):
    out = tmp_path / "output.md"
    out.write_text("feat: x\n")
    return run_assertions([HardAssertion(command=c, line=i) for i, c in enumerate(PREDICATES, 1)], out, w, timeout=20)


def test_an_include_if_that_matches_only_inside_the_world_is_refused_and_its_filter_never_runs(world, tmp_path):
    w, evil, marker = world
    (tmp_path / "evil.cfg").write_text(f'[filter "x"]\n\tclean = {evil}\n\tsmudge = {evil}\n')
    with open(w / ".git" / "config", "a") as fh:
        fh.write(f'[includeIf "gitdir:**/worlds/**"]\n\tpath = {tmp_path / "evil.cfg"}\n')
    (w / ".gitattributes").write_text("* filter=x\n")
    assert "includeif" in (world_git_problem(w) or "")
    results = _check(w, tmp_path)
    assert not marker.exists()
    assert gated(results) and all(r.exit is None and "refused" in r.stderr for r in results)


def test_a_plain_include_is_refused(world, tmp_path):
    w, evil, marker = world
    (tmp_path / "evil.cfg").write_text(f'[filter "x"]\n\tclean = {evil}\n')
    with open(w / ".git" / "config", "a") as fh:
        fh.write(f'[include]\n\tpath = {tmp_path / "evil.cfg"}\n')
    (w / ".gitattributes").write_text("* filter=x\n")
    results = _check(w, tmp_path)
    assert not marker.exists() and gated(results)


def test_a_git_file_pointing_at_a_hidden_git_folder_is_refused(world, tmp_path):
    w, evil, marker = world
    (w / ".git").rename(w / ".hidden.git")
    (w / ".git").write_text("gitdir: .hidden.git\n")
    with open(w / ".hidden.git" / "config", "a") as fh:
        fh.write(f'[filter "x"]\n\tclean = {evil}\n')
    (w / ".gitattributes").write_text("* filter=x\n")
    assert "not a plain folder" in (world_git_problem(w) or "")
    results = _check(w, tmp_path)
    assert not marker.exists() and gated(results)


def test_a_linked_git_folder_is_refused(world, tmp_path):
    w, evil, marker = world
    (w / ".git").rename(tmp_path / "elsewhere.git")
    (w / ".git").symlink_to(tmp_path / "elsewhere.git")
    assert world_git_problem(w)
    assert gated(_check(w, tmp_path)) and not marker.exists()


@pytest.mark.parametrize("config", [
    "[core]\n\tfsmonitor = {evil}\n",
    "[core]\n\thooksPath = {hooks}\n",
    "[diff]\n\texternal = {evil}\n",
    '[diff "x"]\n\ttextconv = {evil}\n',
    "[core]\n\tpager = {evil}\n",
    '[filter "x"]\n\tclean = {evil}\n\tsmudge = {evil}\n\tprocess = {evil}\n',
    "[alias]\n\tst = !{evil}\n",
], ids=["core.fsmonitor", "core.hooksPath", "diff.external", "textconv", "core.pager", "filter", "alias"])
def test_a_program_named_by_the_worlds_own_config_never_runs(world, tmp_path, config):
    w, evil, marker = world
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for name in ("pre-commit", "post-index-change", "fsmonitor-watchman", "post-checkout"):
        (hooks / name).write_text(evil.read_text())
        (hooks / name).chmod(0o755)
    with open(w / ".git" / "config", "a") as fh:
        fh.write(config.format(evil=evil, hooks=hooks))
    (w / ".gitattributes").write_text("* filter=x diff=x\n")
    assert world_git_problem(w) is None  # nothing to refuse: the keys are overridden instead
    results = run_assertions([HardAssertion(command=c, line=1) for c in
                              PREDICATES + ("git st; true", "git commit -qm t; true", "git -p log -p")],
                             tmp_path / "none.md", w, timeout=20)
    assert not marker.exists(), marker.read_text()
    assert results[1].exit == 0


def test_a_plain_world_with_an_ordinary_config_runs_its_checks(world, tmp_path):
    w, _, marker = world
    assert world_git_problem(w) is None
    results = _check(w, tmp_path)
    assert [r.exit for r in results][1:] == [0, 0, 0, 0] and results[0].exit == 1  # the ADR was edited
    assert not marker.exists()


def _logging_git(tmp_path: Path, monkeypatch) -> Path:
    """Put a git on PATH that logs each call collect's own listing makes, then runs the real git."""
    real = subprocess.run(["which", "git"], capture_output=True, text=True).stdout.strip()
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "git-calls.log"
    (bindir / "git").write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {real} "$@"\n')
    (bindir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{Path(real).parent}:/usr/bin:/bin")
    return log


def test_a_trials_checks_share_one_listing_of_the_worlds_git_config(world, tmp_path, monkeypatch):
    # Two git processes list the configuration for all of a trial's checks (not two for each check): the
    # checks themselves run no git here, so every line logged is collect's own listing.
    w, _, _ = world
    log = _logging_git(tmp_path, monkeypatch)
    out = tmp_path / "output.md"
    out.write_text("feat: x\n")
    results = run_assertions([HardAssertion(command=f"test -s \"$OUTPUT\" && echo {i} >/dev/null", line=i)
                              for i in range(1, 6)], out, w, timeout=20)
    assert [r.exit for r in results] == [0] * 5
    calls = log.read_text().splitlines()
    assert len(calls) == 2 and all(c.startswith("config ") for c in calls), calls


def test_a_config_changed_between_checks_is_listed_again_before_the_next(world, tmp_path, monkeypatch):
    # A check (or anything else) that writes a filter into the world's config between two checks: the next
    # check's git is given that filter's override, so the program never runs.
    w, evil, marker = world
    log = _logging_git(tmp_path, monkeypatch)
    (w / ".gitattributes").write_text("* filter=x\n")
    write = f"printf '[filter \"x\"]\\n\\tclean = {evil}\\n' >> .git/config"
    results = run_assertions([HardAssertion(command=write, line=1),
                              HardAssertion(command="git add -A && git diff --cached --stat", line=2)],
                             tmp_path / "none.md", w, timeout=20)
    assert [r.exit for r in results] == [0, 0], results
    assert not marker.exists(), marker.read_text()
    listings = [c for c in log.read_text().splitlines() if c.startswith("config ")]
    assert len(listings) == 4, listings  # two before the first check, two again before the second


def test_worlds_without_git_share_one_listing_of_the_users_config_until_it_changes(tmp_path, monkeypatch):
    # Most worlds have no .git: there git reads only the user's config, the same from every world, so collect
    # lists it once for all of them (not once a trial). An alias naming a program, added to the user's config
    # between two trials, is listed again before the second and overridden there.
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    (home / ".gitconfig").write_text("[user]\n\tname = someone\n")
    log = _logging_git(tmp_path, monkeypatch)

    def listings() -> list[str]:  # collect's listings of the user's config (the checks' own git calls aside)
        return [c for c in log.read_text().splitlines() if c.startswith("config --includes ")]

    check = [HardAssertion(command='test -z "$(git config alias.evil)"', line=1)]
    worlds = [tmp_path / "worlds" / f"w{i}" for i in range(4)]
    for w in worlds:
        w.mkdir(parents=True)
    for w in worlds[:3]:
        assert [r.exit for r in run_assertions(check, tmp_path / "none.md", w, timeout=20)] == [0]
    assert listings() == ["config --includes --name-only --list"]
    with open(home / ".gitconfig", "a") as fh:
        fh.write("[alias]\n\tevil = !touch PWNED\n")
    results = run_assertions(check + [HardAssertion(command="git evil; test ! -e PWNED", line=2)],
                             tmp_path / "none.md", worlds[3], timeout=20)
    assert [r.exit for r in results] == [0, 0], results
    assert len(listings()) == 2
    # A world with a .git of its own is listed on its own (the user's includeIf can match by where it is).
    _git(worlds[0], "init", "-q")
    run_assertions(check, tmp_path / "none.md", worlds[0], timeout=20)
    assert len(listings()) == 3


def test_a_git_file_made_between_two_checks_of_a_world_without_git_is_refused_before_the_next(tmp_path):
    # A check can run the arm's code (unittest discover imports its test files); in a world that had no .git,
    # that code makes a .git file pointing at a folder whose config names a filter. .git/config cannot be read
    # before or after, so only .git's own type tells: the next check is refused, and the filter never runs.
    w = tmp_path / "worlds" / "w1"
    w.mkdir(parents=True)
    (w / "a.txt").write_text("a\n")
    marker = tmp_path / "PWNED"
    evil = tmp_path / "evil.sh"
    evil.write_text(f"#!/bin/sh\necho ran >> {marker}\ncat\n")
    evil.chmod(0o755)
    plant = ("git init -q .hidden && mv .hidden/.git .hidden.git && rmdir .hidden && "
             "printf 'gitdir: .hidden.git\\n' > .git && "
             f"printf '[filter \"x\"]\\n\\tclean = {evil}\\n' >> .hidden.git/config && "
             "echo '* filter=x' > .gitattributes")
    results = run_assertions([HardAssertion(command=plant, line=1),
                              HardAssertion(command="git add -A; true", line=2)], tmp_path / "none.md", w, timeout=20)
    assert results[0].exit == 0, results
    assert not marker.exists(), marker.read_text()
    assert results[1].exit is None and "refused before this check" in results[1].stderr, results
