"""Fresh worlds (one per case x trial x arm) and the temp root that holds them.

Everything a run creates outside the repository lives under one temp root,
``<tmp>/benchcore-<run-id>-<random>``, so ``clean`` removes exactly that. A
world's folder name is an opaque token: the arm never reads its arm's name in
its own working directory, and no judge reads it in an output.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Optional

from ..errors import BenchError

TEMP_PREFIX = "benchcore-"
TEMP_TAG = ".benchcore-temp-root"
SETUP_TIMEOUT = 300


def make_temp_root(run_id: str, repo_root: Path, base: Optional[Path] = None) -> Path:
    base = Path(base) if base is not None else Path(tempfile.gettempdir())
    base = base.resolve()
    if base == repo_root or base.is_relative_to(repo_root):
        raise BenchError(str(base), "is inside the repository; worlds must live outside it",
                         fix="pass --temp-dir with a folder outside the repository (or set TMPDIR)")
    base.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{run_id}-", dir=base))
    (root / TEMP_TAG).write_text(run_id + "\n", encoding="utf-8")
    return root


def is_temp_root(path: Path, run_id: str) -> bool:
    """True when ``path`` is a temp root this run created (the tag file names the run)."""
    tag = Path(path) / TEMP_TAG
    try:
        return tag.read_text(encoding="utf-8").strip() == run_id
    except OSError:
        return False


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
        shutil.copytree(fixture, world, symlinks=True)
    else:
        world.mkdir()
        shutil.copy2(fixture, world / fixture.name)
    return world


def run_setup(world: Path, command: str, case_path: str) -> None:
    """Run a case's ``setup:`` command inside a fresh world; a failure is a BenchError naming the case."""
    env = dict(os.environ, WORLD=str(world))
    try:
        proc = subprocess.run(["bash", "-c", command], cwd=world, env=env, capture_output=True, text=True,
                              timeout=SETUP_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise BenchError(case_path, f"the setup command timed out after {SETUP_TIMEOUT}s: {command}",
                         fix="make the setup command finish quickly (it runs once per world)") from None
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip()[-800:]
        raise BenchError(case_path, f"the setup command failed (exit {proc.returncode}): {command}\n  {detail}",
                         fix="run it by hand in a copy of the fixture and correct it; nothing was planned")
