"""Fresh worlds (one per case x trial x arm) and the temp root that holds them.

Everything a run creates outside the repository lives under one temp root,
``<tmp>/benchcore/benchcore-<run-id>-<random>``, so ``clean`` removes exactly
that. Every run's temp root sits in the same folder, ``<tmp>/benchcore``, so
that one Claude Code setting (``additionalDirectories``) covers every run. A
world's folder name is an opaque token: the arm never reads its arm's name in
its own working directory, and no judge reads it in an output.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Optional

from ...errors import BenchError

TEMP_PREFIX = "benchcore-"
TEMP_TAG = ".benchcore-temp-root"
SETUP_TIMEOUT = 300


def default_temp_base() -> Path:
    """The folder that holds every run's temp root unless --temp-dir names another: ``<tmp>/benchcore``."""
    return Path(tempfile.gettempdir()) / "benchcore"


def make_temp_root(run_id: str, repo_root: Path, base: Optional[Path] = None, nonce: str = "") -> Path:
    """A fresh temp root tagged with the run id and ``nonce`` (a secret kept in plan.json, which ``clean``
    checks before it removes anything: a tag an arm writes cannot name it)."""
    base = Path(base) if base is not None else default_temp_base()
    base = base.resolve()
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
    return world


_STOPS = (signal.SIGINT, signal.SIGTERM)


def run_setup(world: Path, command: str, case_path: str) -> None:
    """Run a case's ``setup:`` command inside a fresh world; a failure is a BenchError naming the case."""
    env = dict(os.environ, WORLD=str(world))
    # Standard input closed: a setup command never reads benchcore's (each world gets the same). Its own
    # session, so that a setup cut short (timed out, or plan stopped by SIGTERM or Ctrl-C) is stopped with
    # every process it started: one left running would write into its world after plan removed it.
    # A stop (Ctrl-C, SIGTERM) that comes while the setup is being started is held until it has started and is
    # known, then raised where it is killed with its group: raised inside Popen, it left the setup running, to
    # write into its world after plan removed it (seen under load, when the stop came as a setup started).
    held: list[int] = []
    hold = threading.current_thread() is threading.main_thread()
    before = {s: signal.signal(s, lambda signum, frame: held.append(signum)) for s in _STOPS} if hold else {}
    try:
        proc = subprocess.Popen(["bash", "-c", command], cwd=world, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL, start_new_session=True)
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
    try:
        for signum in held:
            signal.raise_signal(signum)  # as it would have been, with the handler it would have met
        out, err = proc.communicate(timeout=SETUP_TIMEOUT)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raise BenchError(case_path, f"the setup command timed out after {SETUP_TIMEOUT}s: {command}",
                         fix="make the setup command finish quickly (it runs once per world)") from None
    except BaseException:
        _kill_group(proc)
        raise
    if proc.returncode != 0:
        detail = (err or out).strip()[-800:]
        raise BenchError(case_path, f"the setup command failed (exit {proc.returncode}): {command}\n  {detail}",
                         fix="run it by hand in a copy of the fixture and correct it; nothing was planned")


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill a setup command and everything it started (its session's process group), then reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.communicate(timeout=10)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        proc.kill()
        proc.wait()
