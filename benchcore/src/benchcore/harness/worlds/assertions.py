"""Hard assertions of a case, run against the new arm's output (docs/case-format.md, and the gate in docs/run-format.md).

Where a predicate runs (``worlds/shell.py``): in the run's OS sandbox, the same
one the arms' Bash calls ran in (plan.json ``sandbox``): the world read-write as
the arm left it, ``$OUTPUT`` a read-only copy of the arm's output.md (at
``/tmp/benchcore-check/output.md`` under bwrap), ``$WORLD`` the world and cwd, the
sandbox's fixed environment (no session secrets, no home folder), no network
unless benchmark.yaml says ``network: true``, standard input closed and a time
limit; a non-zero exit or a timeout fails it. A predicate often runs the arm's
code (``python3 -m unittest discover`` imports a test file the arm wrote), and
there that code can reach no more than it could from the arm's own Bash. Only
in a run without a sandbox (``plan --no-sandbox``, a run planned before the
sandbox) does it run unconfined, with the session's environment and a writable
copy of the output, as before; collect says so.

The world is the arm's: it may have written its own ``.git/config``. Before any
predicate runs, a world whose git setup can reach a configuration the check cannot
read as git will (``.git`` that is a file or a link, ``commondir``, a per-worktree
config, ``include`` or ``includeIf`` sections) is refused: its predicates do not run
and fail with the reason, so the trial is gated, sandboxed or not (the refusal does
not depend on where the checks run). Every git the predicate runs gets a
sanitised configuration (no system config, no repository discovery above the world,
and every key that can run a program overridden through ``GIT_CONFIG_COUNT``, the
keys listed by git itself from inside the world): in the sandbox a second wall, and
unconfined the one that keeps ``collect`` from running an arm's program through git.
That listing runs two git processes (outside the sandbox: they only read configuration
and run no program); a trial's checks share it, and it is taken again before a check whenever a file it
came from (the world's ``.git/config``, the user's git config) has changed since, or ``.git``
itself was made or replaced (a ``.git`` file an arm's code wrote between two checks is
refused before the next), so a check sees the configuration as it is when it starts. A world with no ``.git`` has no
configuration of its own: git reads only the user's there, wherever the world is, so one
listing serves every such world until the user's git config files or the environment git
reads them by (``HOME``, ``PATH``, ``GIT_*``) change. Each predicate runs in a
bash of its own, in its own session, killed whole at the limit (one process a
check: its own time limit, exit and stderr); only the tail of its stderr is kept.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path
from typing import Iterable, Optional

from ...model import AssertionResult, HardAssertion
from ..store.planfile import Sandbox
from .shell import Stop, run_shell

DEFAULT_TIMEOUT = 60.0
_STDERR_LIMIT = 2000

# Keys a repository's config can set that make git run a program; each is overridden with a harmless value.
_SAFE_CONFIG = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("core.sshCommand", "false"),
    ("core.askPass", ""),
    ("core.gitProxy", ""),
    ("diff.external", ""),
    ("credential.helper", ""),
    ("sequence.editor", "true"),
    ("gpg.program", "false"),
    ("uploadpack.packObjectsHook", ""),
)
# Per-name keys (filter.<driver>.clean, diff.<driver>.textconv, alias.<name> ...) whose value is a command.
_COMMAND_KEY = re.compile(
    r"^(filter\..+\.(clean|smudge|process)|diff\..+\.(command|textconv)|merge\..+\.driver|alias\..+"
    r"|credential\..+\.helper|pager\..+|difftool\..+\.(cmd|path)|mergetool\..+\.(cmd|path)"
    r"|gpg\..+\.program|remote\..+\.(uploadpack|receivepack|proxy))$",
    re.IGNORECASE)


def _git_config_names(args: list[str], cwd: Path) -> list[str]:
    """Config key names git lists for ``args`` (reading configuration runs no program)."""
    names = _listed(args, cwd)
    return [] if names is None else names


def _listed(args: list[str], cwd: Path) -> Optional[list[str]]:
    """:func:`_git_config_names`, None when git could not be run or did not answer in time."""
    try:
        out = subprocess.run(["git", *args, "--name-only", "--list"], cwd=cwd, capture_output=True, text=True,
                             timeout=10, stdin=subprocess.DEVNULL,
                             env=dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CEILING_DIRECTORIES=str(cwd.parent)))
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.split()


# The last listing of the user's own git config, from a world with no .git: (what it read, its names).
_USERS_LISTING: list = [None, []]


def _users_names(world: Path) -> list[str]:
    """The key names git lists from inside the world with ``--includes``.

    A world with a ``.git`` is listed on its own (its config, and the user's ``includeIf "gitdir:"`` sections
    match by where it is). Without one, git finds no repository there (the ceiling is the world's parent) and
    reads only the user's config, the same from every such world: the listing is kept and used again while
    the user's config files (path, size, mtime, inode) and the environment git reads them by are the same."""
    if os.path.lexists(world / ".git"):
        return _git_config_names(["config", "--includes"], world)
    read = (_config_stamp(world, os.environ)[2:],  # the user's files only
            tuple(sorted((k, v) for k, v in os.environ.items()
                         if k.startswith("GIT_") or k in ("HOME", "XDG_CONFIG_HOME", "PATH"))))
    if _USERS_LISTING[0] != read:
        names = _listed(["config", "--includes"], world)
        if names is None:  # not kept: the next world asks git again
            return []
        _USERS_LISTING[:] = [read, names]
    return list(_USERS_LISTING[1])


def _file_names(world: Path) -> list[str]:
    """The key names of the world's own ``.git/config`` (includes not followed), or [] when it has none."""
    config = world / ".git" / "config"
    if not config.is_file() or config.is_symlink():
        return []
    return _git_config_names(["config", "--file", str(config), "--no-includes"], world)


def world_git_problem(world: Path, names: Optional[list[str]] = None) -> Optional[str]:
    """Why the world's git setup could make a check's git read configuration the check cannot vet, or None.

    Refused: ``.git`` that is not a plain folder (a ``gitdir:`` file or a link points git at a folder the
    world chose), ``.git/commondir`` (a shared config elsewhere), ``.git/config.worktree`` or
    ``extensions.worktreeConfig``, a ``.git/config`` that is not a plain file, and ``include`` or
    ``includeIf`` sections (their targets depend on where git runs)."""
    dot = world / ".git"
    if not os.path.lexists(dot):
        return None
    if dot.is_symlink() or not dot.is_dir():
        return ".git is not a plain folder (a gitdir: file or a link points git at a configuration outside the world)"
    for name in ("commondir", "config.worktree"):
        if os.path.lexists(dot / name):
            return f".git/{name} is present (git would read configuration the check cannot vet)"
    config = dot / "config"
    if not os.path.lexists(config):
        return None
    if config.is_symlink() or not config.is_file():
        return ".git/config is not a plain file"
    names = [n.lower() for n in (_file_names(world) if names is None else names)]
    bad = sorted({n.rsplit(".", 1)[0] for n in names if n.startswith(("include.", "includeif."))})
    if bad:
        return f".git/config has {', '.join(bad)} (an included file can name a program git runs)"
    if "extensions.worktreeconfig" in names:
        return ".git/config sets extensions.worktreeConfig (a per-worktree config the check cannot vet)"
    return None


def _world_command_keys(world: Path, file_names: Optional[list[str]] = None) -> list[str]:
    """The per-name command keys git sees from inside the world (its own config and the user's), as git lists
    them; ``file_names``: the world's own config's names when already listed (:func:`_file_names`)."""
    keys = {k for k in _users_names(world) if _COMMAND_KEY.match(k)}
    keys.update(k for k in (_file_names(world) if file_names is None else file_names) if _COMMAND_KEY.match(k))
    return sorted(keys)


def _config_stamp(world: Path, env: dict) -> tuple:
    """What the git configuration a check's git reads depends on: the world's ``.git`` as (path, kind, inode),
    so that one made, replaced or turned into a file or a link between two checks is seen even where
    ``.git/config`` cannot be read before or after; then (path, size, mtime, inode) of the world's
    ``.git/config`` and of the user's (global and XDG) git config. The first two are the world's own."""
    try:
        st = os.lstat(world / ".git")
        dot = (str(world / ".git"), stat.S_IFMT(st.st_mode), st.st_ino)
    except OSError:
        dot = (str(world / ".git"), None)
    home = env.get("HOME", "")
    xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    paths = [world / ".git" / "config", Path(env.get("GIT_CONFIG_GLOBAL") or os.path.join(home, ".gitconfig")),
             Path(xdg, "git", "config")]
    stamp = [dot]
    for path in paths:
        try:
            st = os.lstat(path)
            stamp.append((str(path), st.st_size, st.st_mtime_ns, st.st_ino))
        except OSError:
            stamp.append((str(path), None))
    return tuple(stamp)


def git_safe_env(world: Path, base: dict | None = None, file_names: Optional[list[str]] = None) -> dict:
    """An environment whose every git ignores the system config and any program the world's config names."""
    env = dict(os.environ if base is None else base)
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_PAGER"] = "cat"
    env["GIT_EDITOR"] = "true"
    env["GIT_ASKPASS"] = "false"
    env["GIT_SSH_COMMAND"] = "false"
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
                "GIT_ALTERNATE_OBJECT_DIRECTORIES"):
        env.pop(var, None)
    env["GIT_CEILING_DIRECTORIES"] = str(Path(world).parent)
    pairs = list(_SAFE_CONFIG)
    pairs += [(k, "") for k in _world_command_keys(world, file_names)]
    env["GIT_CONFIG_COUNT"] = str(len(pairs))
    for i, (k, v) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{i}"] = k
        env[f"GIT_CONFIG_VALUE_{i}"] = v
    return env


def _run_one(command: str, world: Path, env: dict, timeout: float, sandbox: Optional[Sandbox],
             output: Optional[Path], stop: Optional[Stop] = None) -> AssertionResult:
    if sandbox is None:
        ran = run_shell(command, str(world), sandbox=None, timeout=timeout, base=env, output=output, stop=stop)
    else:
        ran = run_shell(command, str(world), sandbox=sandbox, timeout=timeout, env=env, output=output, stop=stop)
    err = ran.stderr
    if ran.timed_out:
        return AssertionResult(command=command, exit=None, timed_out=True,
                               stderr=(err + f"\n(timed out after {timeout:g}s)")[-_STDERR_LIMIT:])
    return AssertionResult(command=command, exit=ran.exit, timed_out=False, stderr=err[-_STDERR_LIMIT:])


def run_assertions(assertions: Iterable[HardAssertion], output: Path, world: Path,
                   timeout: float = DEFAULT_TIMEOUT, sandbox: Optional[Sandbox] = None,
                   stop: Optional[Stop] = None) -> tuple[AssertionResult, ...]:
    """Each predicate's result, in order: in ``sandbox`` (the run's), or unconfined when it is None (see the
    module's docstring). ``stop``: another thread may stop them (shell.Stopped is raised: no result)."""
    assertions = list(assertions)
    world = Path(world)
    names, refused = [], None
    if world.is_dir():
        names = _file_names(world)
        refused = world_git_problem(world, names)
    if refused:  # nothing runs: every predicate fails with the reason, so the trial is gated
        why = f"not run: the world's git setup was refused before any check ran: {refused}"
        return tuple(AssertionResult(command=a.command, exit=None, timed_out=False, stderr=why) for a in assertions)
    results = []
    scratch = Path(tempfile.mkdtemp(prefix="benchcore-check-"))
    stamp, safe = None, None
    try:
        for a in assertions:
            copy = scratch / "output.md"  # a fresh copy per check: one check cannot change what the next reads
            try:
                if copy.exists():
                    os.chmod(copy, 0o600)
                    copy.unlink()
                if Path(output).is_file():
                    shutil.copyfile(output, copy)
                now = _config_stamp(world, os.environ)
                if now != stamp:  # first check, or a config file changed since the listing: list again
                    if stamp is not None:
                        names = _file_names(world)
                        refused = world_git_problem(world, names)
                        if refused:
                            results.append(AssertionResult(
                                command=a.command, exit=None, timed_out=False,
                                stderr=f"not run: the world's git setup was refused before this check: {refused}"))
                            continue
                    # unconfined: the session's environment, sanitised; sandboxed: only the git variables,
                    # set on top of the sandbox's fixed environment
                    stamp, safe = now, git_safe_env(world, base=None if sandbox is None else {}, file_names=names)
                env = dict(safe, WORLD=str(world))
                results.append(_run_one(a.command, world, env, timeout, sandbox, copy, stop))
            except (FileNotFoundError, NotADirectoryError) as exc:  # the world is gone (cleaned)
                results.append(AssertionResult(command=a.command, exit=None, timed_out=False, stderr=str(exc)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return tuple(results)


def gated(results: Iterable[AssertionResult]) -> bool:
    """The gate: any hard assertion exited non-zero or timed out."""
    return any(r.timed_out or r.exit != 0 for r in results)
