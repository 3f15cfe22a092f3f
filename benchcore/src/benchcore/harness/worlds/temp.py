"""Fresh worlds (one per case x trial x arm) and the temp root that holds them.

Everything a run creates outside the repository lives under one temp root,
``<tmp>/benchcore-<uid>/benchcore-<run-id>-<random>``, so ``clean`` removes exactly
that. Every run's temp root of one user sits in the same folder, ``<tmp>/benchcore-<uid>``,
so that one Claude Code setting (``additionalDirectories``) covers every run; each user
of a shared machine has a folder of their own (0700, refused when another user owns it). A
world's folder name is an opaque token: the arm never reads its arm's name in
its own working directory, and no judge reads it in an output.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Optional

from ...errors import BenchError
from ..confine.sandbox import make_scratch, scratch_dirs
from ..store.sandboxentry import Sandbox
from .shell import run_shell

TEMP_PREFIX = "benchcore-"
TEMP_TAG = ".benchcore-temp-root"
SETUP_TIMEOUT = 300


def default_temp_base() -> Path:
    """The folder that holds every run's temp root unless --temp-dir names another: ``<tmp>/benchcore-<uid>``, one
    per user (a shared ``<tmp>/benchcore`` made 0700 by its first user refused every other user's plan)."""
    return Path(tempfile.gettempdir()) / f"benchcore-{user_tag()}"


def user_tag() -> str:
    """This user's part of the temp base's name: the numeric user id (the login name where there is none)."""
    getuid = getattr(os, "getuid", None)
    if getuid is not None:
        return str(getuid())
    import getpass
    import re

    return re.sub(r"[^A-Za-z0-9._-]", "_", getpass.getuser()) or "user"


def _check_own_base(base: Path) -> None:
    """The default base, when it exists, must be a real folder of this user's that no one else may write: another
    user who made ``<tmp>/benchcore-<your uid>`` first (or a link there) would see, or swap, every world. A
    folder of ours that others may write is closed to them."""
    try:
        st = os.lstat(base)
    except FileNotFoundError:
        return
    fix = f"remove {base} (it is not yours: ask its owner or an administrator), or pass --temp-dir with a folder of yours"
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise BenchError(str(base), "is a link or not a folder, so benchcore will not put worlds there", fix=fix)
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise BenchError(str(base), f"belongs to another user (uid {st.st_uid}), so benchcore will not put your "
                         "worlds there", fix=fix)
    if st.st_mode & 0o077:
        os.chmod(base, 0o700)


def make_temp_root(run_id: str, repo_root: Path, base: Optional[Path] = None, nonce: str = "") -> Path:
    """A fresh temp root tagged with the run id and ``nonce`` (a secret kept in plan.json, which ``clean``
    checks before it removes anything: a tag an arm writes cannot name it)."""
    if base is None:
        base = default_temp_base()
        _check_own_base(base)
    base = Path(base).resolve()
    if base == repo_root or base.is_relative_to(repo_root):
        raise BenchError(str(base), "is inside the repository; worlds must live outside it",
                         fix="pass --temp-dir with a folder outside the repository (or set TMPDIR)")
    if base.exists() and not base.is_dir():
        raise BenchError(str(base), "is not a folder; --temp-dir names the folder that holds a run's temp worlds",
                         fix="pass --temp-dir with a folder (it is created when missing)")
    try:
        base.mkdir(mode=0o700, parents=True, exist_ok=True)
        root = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{run_id}-", dir=base))
    except OSError as exc:
        raise BenchError(str(base), f"cannot create the run's temp folder there ({exc.strerror})",
                         fix="pass --temp-dir with a writable folder outside the repository") from None
    try:
        (root / TEMP_TAG).write_text(run_id + "\n" + (nonce + "\n" if nonce else ""), encoding="utf-8")
    except BaseException:  # a disk error or a signal before the tag is written: no untagged folder stays
        shutil.rmtree(root, ignore_errors=True)
        raise
    return root


def is_temp_root(path: Path, run_id: str, nonce: str = "") -> bool:
    """True when ``path`` is a temp root this run created: a real folder (not a symlink) named
    ``benchcore-<run id>-...`` whose tag names the run and, for runs planned with one, the plan's nonce."""
    path = Path(path)
    if path.is_symlink() or not path.is_dir() or not path.name.startswith(f"{TEMP_PREFIX}{run_id}-"):
        return False
    tag = path / TEMP_TAG
    if tag.is_symlink():
        return False
    try:
        lines = tag.read_text(encoding="utf-8").split()
    except (OSError, UnicodeDecodeError):
        return False
    if not lines or lines[0] != run_id:
        return False
    return not nonce or (len(lines) > 1 and secrets.compare_digest(lines[1], nonce))


def new_nonce() -> str:
    return secrets.token_hex(16)


def _make_writable(func, path, _exc) -> None:
    """rmtree's error hook: a read-only folder (an arm may chmod its world) is made writable, then retried."""
    parent = os.path.dirname(path)
    for p in (parent, path):
        try:
            if not os.path.islink(p):
                os.chmod(p, os.lstat(p).st_mode | stat.S_IWUSR | stat.S_IXUSR | stat.S_IRUSR)
        except OSError:
            pass
    func(path)


def remove_temp_root(root: Path, run_id: str, nonce: str, repo: Path) -> bool:
    """Remove a run's temp root, the only deletion benchcore makes outside its run folder. Refuses (BenchError,
    nothing removed) unless ``root`` is that run's temp root (is_temp_root) and neither the repository, inside it,
    nor above it. Links are removed, never followed. The tag is removed last, so a clean cut off half-way is
    recognised and finished by the next one. Returns whether the folder existed."""
    root = Path(root)
    if not root.exists() and not root.is_symlink():
        return False
    repo = Path(repo).resolve()
    real = root.resolve()
    if root.is_symlink() or real == repo or real.is_relative_to(repo) or repo.is_relative_to(real):
        raise BenchError(str(root), "is a link, the repository, inside it or above it; nothing was removed",
                         fix="check plan.json's temp_root and remove the run's temp folder by hand")
    if not is_temp_root(root, run_id, nonce):
        raise BenchError(str(root), f"is not the temp root of run {run_id} (its name, tag file or secret differs); "
                         "nothing was removed", fix="check plan.json's temp_root and remove the folder by hand")
    os.chmod(root, os.lstat(root).st_mode | stat.S_IRWXU)
    for child in list(root.iterdir()):
        if child.name == TEMP_TAG:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, onerror=_make_writable)
        else:
            child.unlink()
    (root / TEMP_TAG).unlink()
    root.rmdir()
    return True


def token() -> str:
    return secrets.token_hex(4)


def remove_world(world: Path) -> None:
    """Remove a world and the scratch folders beside it (its arm's /tmp and HOME), as make_world made them."""
    shutil.rmtree(world, ignore_errors=True)
    shutil.rmtree(os.path.dirname(scratch_dirs(str(world))[0]), ignore_errors=True)


def make_world(world_root: Path, case_id: str, trial: int, fixture: Optional[Path]) -> Path:
    """A fresh world: a copy of the fixture (a folder's contents, or one file), or an empty folder.

    Its path is ``<world_root>/<token>``: the arm reads it in its prompt, so it names neither the arm nor
    the case (a case id such as ``05-staged-secret`` would tell every arm what the case tests) nor the
    trial. ``case_id`` and ``trial`` are the cell's, kept for callers; plan.json ties world to cell."""
    world_root.mkdir(parents=True, exist_ok=True)
    world = world_root / token()
    while world.exists():
        world = world_root / token()
    if fixture is None:
        world.mkdir()
    elif fixture.is_dir():
        shutil.copytree(fixture, world, symlinks=True)  # validate (load_case) refused links and special files
    else:
        world.mkdir()
        shutil.copy2(fixture, world / fixture.name)
    make_scratch(str(world))  # its /tmp and HOME inside the sandbox, kept across the arm's calls
    return world


def run_setup(world: Path, command: str, case_path: str, sandbox: Optional[Sandbox] = None) -> None:
    """Run a case's ``setup:`` command inside a fresh world; a failure is a BenchError naming the case.

    It runs the way the case's hard assertions do (``worlds/shell.py``): in ``sandbox``, the run's, when there is
    one, so setup has exactly what an arm's Bash has (the world read-write, the system and the session's toolchain
    read-only, no network unless benchmark.yaml says ``network: true``, no home folder, no session secrets, no
    git identity but the one it names); unconfined, with the session's environment, when the run has none
    (``plan --no-sandbox``). ``$WORLD`` is the world, cwd the world, standard input closed (each world gets the
    same), and at the time limit, or when plan is stopped (SIGTERM, Ctrl-C), every process it started is
    killed: one left running would write into its world after plan removed it."""
    try:
        ran = run_shell(command, str(world), sandbox=sandbox, timeout=SETUP_TIMEOUT, env={"WORLD": str(world)})
    except OSError as exc:
        raise BenchError(case_path, f"the setup command could not start ({exc}): {command}",
                         fix="check that bash (and, sandboxed, the sandbox: benchcore sandbox) runs here") from None
    if ran.timed_out:
        raise BenchError(case_path, f"the setup command timed out after {SETUP_TIMEOUT}s: {command}",
                         fix="make the setup command finish quickly (it runs once per world)")
    if ran.exit != 0:
        detail = (ran.stderr or ran.stdout).strip()[-800:]
        where = "" if sandbox is None else " in the arms' sandbox (no network, no home folder, no session secrets)"
        raise BenchError(case_path, f"the setup command failed (exit {ran.exit}){where}: {command}\n  {detail}",
                         fix="run it by hand in a copy of the fixture and correct it (it may use only the world, "
                             "the system's programs and the toolchain on your PATH; benchmark.yaml network: true "
                             "gives it the network); nothing was planned")
