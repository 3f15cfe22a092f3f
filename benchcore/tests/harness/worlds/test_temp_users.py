"""Two Unix users plan on one machine with one shared temp folder: each gets a worlds folder of their own, and
neither can be made to put worlds in a folder the other made (issue 39, item 10).

Bug: the worlds' base was ``<temp>/benchcore``, created 0700 by the first user, so the second user's plan failed.
The users are made with useradd and each plan runs in a forked child that has dropped to that user (setuid), so
the benchcore under test is the one this interpreter has imported (the interpreter's own files may be unreadable
to a new user, as under /root here)."""

from __future__ import annotations

import io
import os
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from benchcore.cli import main

REPO_ROOT = Path(__file__).resolve().parents[4]
SKILL_DIR = REPO_ROOT / "skills" / "benchmark-skill"

pytestmark = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("useradd"),
                                reason="making two Unix users needs root and useradd (CI and the build machine run as root)")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t", *args], check=True,
                   capture_output=True)


def _repo(folder: Path) -> Path:
    repo = folder / "repo"
    (repo / "skills/greet").mkdir(parents=True)
    (repo / "skills/greet/SKILL.md").write_text("---\nname: greet\ndescription: greets\n---\nSay hi.\n")
    (repo / "tests/greet/01-a").mkdir(parents=True)
    (repo / "tests/greet/01-a/case.md").write_text(
        "---\ndescription: case\n---\n## Prompt\nGreet me.\n## Soft criteria\n- Greets.\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "init")
    for sub in ("home", "config"):
        (folder / sub).mkdir()
    return repo


def _plan(folder: Path, shared_tmp: Path) -> tuple[int, str]:
    """benchcore plan in ``folder``'s repository, with ``shared_tmp`` as the system temp folder."""
    os.environ.update(TMPDIR=str(shared_tmp), HOME=str(folder / "home"), CLAUDE_CONFIG_DIR=str(folder / "config"),
                      BENCHMARK_SKILL_DIR=str(SKILL_DIR))
    tempfile.tempdir = None
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(out):
        code = main(["plan", "greet", "--repo", str(folder / "repo"), "--seed", "1", "--no-sandbox",
                     "--default-agent-type", "--keep-settings"])
    return code, out.getvalue()


def _as_user(uid: int, gid: int, fn, *args) -> tuple[int, str]:
    """``fn(*args)`` -> (exit code, output), run in a child process that is user ``uid`` and nothing more."""
    log = tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:  # the child: drop to the user, run, report, and never return into pytest
        code = 99
        try:
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            code, text = fn(*args)
            log.write(text.encode())
        except BaseException:  # noqa: BLE001 - the parent reads it
            log.write(traceback.format_exc().encode())
        finally:
            log.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    log.seek(0)
    return os.waitstatus_to_exitcode(status), log.read().decode()


@pytest.fixture
def two_users():
    made, top = [], Path(tempfile.mkdtemp(prefix="bc-users-"))
    try:
        os.chmod(top, 0o755)
        shared = top / "tmp"
        shared.mkdir()
        os.chmod(shared, 0o1777)  # a machine's /tmp: everyone writes, only the owner removes
        users = []
        for who in ("a", "b"):
            name = f"bc{who}{secrets.token_hex(4)}"
            subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
            made.append(name)
            import pwd
            entry = pwd.getpwnam(name)
            folder = top / who
            folder.mkdir()
            _repo(folder)
            subprocess.run(["chown", "-R", f"{entry.pw_uid}:{entry.pw_gid}", str(folder)], check=True)
            users.append((entry.pw_uid, entry.pw_gid, folder))
        # Plan once as this user first, so every module a plan imports is loaded before a child drops to a user
        # who could not read the interpreter's files.
        (top / "root").mkdir()
        _repo(top / "root")
        saved = dict(os.environ)
        try:
            assert _plan(top / "root", shared)[0] == 0
        finally:
            os.environ.clear()
            os.environ.update(saved)
            tempfile.tempdir = None
        yield shared, users
    finally:
        shutil.rmtree(top, ignore_errors=True)
        for name in made:
            subprocess.run(["userdel", name], check=False, capture_output=True)


def test_two_users_each_get_a_worlds_folder_of_their_own(two_users):
    shared, [(uid_a, gid_a, a), (uid_b, gid_b, b)] = two_users
    for uid, gid, folder in ((uid_a, gid_a, a), (uid_b, gid_b, b)):
        code, out = _as_user(uid, gid, _plan, folder, shared)
        assert code == 0, out
        base = shared / f"benchcore-{uid}"
        st = os.lstat(base)
        assert st.st_uid == uid and stat.S_IMODE(st.st_mode) == 0o700, out
        [root] = list(base.iterdir())
        [run] = list((folder / "repo/tests/.reports/runs").iterdir())
        assert (root / "worlds").is_dir() and str(root) in (run / "plan.json").read_text()


@pytest.mark.parametrize("planted", ["folder", "link"])
def test_a_base_another_user_made_first_is_refused_with_the_fix(two_users, planted):
    shared, [(uid_a, gid_a, a), (uid_b, gid_b, b)] = two_users
    trap = shared / f"benchcore-{uid_b}"

    def plant() -> tuple[int, str]:
        (a / "mine").mkdir()
        trap.mkdir() if planted == "folder" else trap.symlink_to(a / "mine")
        return 0, ""

    assert _as_user(uid_a, gid_a, plant)[0] == 0
    code, out = _as_user(uid_b, gid_b, _plan, b, shared)
    assert code == 2, out
    what = f"belongs to another user (uid {uid_a})" if planted == "folder" else "is a link or not a folder"
    assert f"benchcore plan: error: {trap}: {what}" in out
    assert f"fix: remove {trap} (it is not yours" in out and "--temp-dir" in out
    assert not any((a / "mine").iterdir()) and not (b / "repo/tests/.reports/runs").exists()  # nothing made
