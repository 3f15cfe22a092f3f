"""Git, as the planner needs it: the default branch, and a skill folder at two points in time.

- The default branch is resolved, never assumed to be named main (docs/run-format.md): its name from a
  remote's HEAD (origin first), then ``init.defaultBranch`` when that branch exists, then whichever of
  main/master exists. The previous version is the *local* branch of that name (a commit not yet pushed
  counts); only when no local branch has the name is the remote's used. When the two differ, the remote's
  commit is kept so the report can say so.
- The ``new`` copy is the working tree's skill folder: tracked files as they
  are on disk plus untracked files that are not ignored (``git ls-files -co
  --exclude-standard``). The ``previous`` copy is the folder in the default
  branch's HEAD commit, extracted with ``git archive``.
- "Changed" compares the two file sets by blob id (``git hash-object``
  applies the same clean filters git would on commit).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Optional

from attrs import frozen

from ...errors import BenchError
from ..store.files import write_atomic


@frozen
class DefaultBranch:
    name: str
    ref: str  # the ref whose commit is used, e.g. refs/remotes/origin/trunk or refs/heads/trunk
    commit: str
    how: str  # how it was resolved, in words
    remote_ref: Optional[str] = None  # the remote's branch of that name (refs/remotes/origin/trunk), when one exists
    remote_commit: Optional[str] = None  # its commit, when it differs from ``commit``

    @property
    def remote_name(self) -> Optional[str]:
        """The remote's branch as git shows it (origin/trunk), or None."""
        return self.remote_ref[len("refs/remotes/"):] if self.remote_ref else None


def _git(root: Path, *args: str, check: bool = True, input: Optional[bytes] = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, input=input, env=env)
    except FileNotFoundError:
        raise BenchError(None, "git is not installed", fix="install git; benchcore plan needs it") from None
    if check and proc.returncode != 0:
        raise BenchError(str(root), f"git {' '.join(args)} failed: {proc.stderr.decode(errors='replace').strip()}",
                         fix="check that this folder is a git repository with at least one commit")
    return proc


def _out(root: Path, *args: str) -> Optional[str]:
    proc = _git(root, *args, check=False)
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


def is_git_repo(root: Path) -> bool:
    return _out(root, "rev-parse", "--is-inside-work-tree") == "true"


def _commit(root: Path, ref: str) -> Optional[str]:
    return _out(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")


def resolve_default_branch(root: Path) -> DefaultBranch:
    """The default branch and its HEAD commit, or a BenchError saying how to declare one."""
    if not is_git_repo(root):
        raise BenchError(str(root), "is not a git repository, so there is no default branch to compare with",
                         fix="run 'git init' and commit the released skills, or run benchcore from your clone")
    remotes = (_out(root, "remote") or "").split()
    remotes.sort(key=lambda r: (r != "origin", r))
    for remote in remotes:
        head = _out(root, "symbolic-ref", "--quiet", f"refs/remotes/{remote}/HEAD")
        if head and head.startswith(f"refs/remotes/{remote}/"):
            name = head[len(f"refs/remotes/{remote}/"):]
            remote_commit = _commit(root, head)
            local = _commit(root, f"refs/heads/{name}")
            if local:
                return DefaultBranch(name, f"refs/heads/{name}", local, f"named by the HEAD of remote {remote!r}",
                                     head if remote_commit else None,
                                     remote_commit if remote_commit and remote_commit != local else None)
            if remote_commit:
                return DefaultBranch(name, head, remote_commit, f"the HEAD of remote {remote!r} (no local branch {name!r})",
                                     head, None)
    configured = _out(root, "config", "--get", "init.defaultBranch")
    if configured:
        commit = _commit(root, f"refs/heads/{configured}")
        if commit:
            return DefaultBranch(configured, f"refs/heads/{configured}", commit, "git config init.defaultBranch")
    for name in ("main", "master"):
        commit = _commit(root, f"refs/heads/{name}")
        if commit:
            return DefaultBranch(name, f"refs/heads/{name}", commit, f"the local branch {name!r}")
    branches = (_out(root, "for-each-ref", "--format=%(refname:short)", "refs/heads") or "").split()
    have = ", ".join(branches) if branches else "none (no commit yet)"
    raise BenchError(str(root), f"cannot resolve the default branch (no remote HEAD, no init.defaultBranch branch, "
                                f"no main or master; local branches: {have})",
                     fix="run 'git remote set-head origin --auto', or 'git config init.defaultBranch <branch>' "
                         "naming the branch your released skills are on")


def worktree_files(root: Path, rel: str) -> list[str]:
    """Paths (relative to the repo root) of the skill folder's files in the working tree:
    tracked files that still exist and untracked files that are not ignored. A skill whose SKILL.md git
    ignores (a project that ignores .claude/) is copied whole: ignoring it must not leave the new arm no skill."""
    proc = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", rel)
    names = sorted({n for n in proc.stdout.decode().split("\0") if n})
    if f"{rel}/SKILL.md" not in names and (root / rel / "SKILL.md").is_file():
        names = sorted(Path(d, f).relative_to(root).as_posix() for d, _, fs in os.walk(root / rel) for f in fs)
    return [n for n in names if (root / n).is_file() or (root / n).is_symlink()]


def tree_blobs(root: Path, commit: str, rel: str) -> dict[str, str]:
    """path -> blob id of every file under ``rel`` in ``commit`` (empty when the folder is absent)."""
    proc = _git(root, "ls-tree", "-r", "-z", commit, "--", rel)
    out: dict[str, str] = {}
    for entry in proc.stdout.decode().split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
        _mode, kind, sha = meta.split()
        if kind == "blob":
            out[path] = sha
    return out


def worktree_blobs(root: Path, rel: str) -> dict[str, str]:
    """path -> blob id of the working tree's files under ``rel``, hashed as git would commit them."""
    files = worktree_files(root, rel)
    if not files:
        return {}
    proc = _git(root, "hash-object", "--stdin-paths", input="\n".join(files).encode() + b"\n")
    return dict(zip(files, proc.stdout.decode().split()))


def skill_changed(root: Path, commit: str, rel: str) -> tuple[bool, bool]:
    """(a skill exists at the commit, differs from the working tree).

    A skill exists at the commit only when ``<rel>/SKILL.md`` is a file there: a folder holding only a
    README, or a file at ``rel``, is no released skill (a previous arm would run without any skill)."""
    before = tree_blobs(root, commit, rel)
    if f"{rel}/SKILL.md" not in before:
        return False, True
    return True, worktree_blobs(root, rel) != before


def previous_contents(root: Path, commit: str, rel: str) -> list[str]:
    """What ``rel`` holds at the commit, relative to it ("" for a file at ``rel`` itself), sorted."""
    return sorted("" if p == rel else p[len(rel) + 1:] for p in tree_blobs(root, commit, rel))


def copy_worktree(root: Path, rel: str, dest: Path) -> int:
    """Copy the working tree's skill folder (uncommitted and untracked edits included) to ``dest``."""
    n = 0
    for name in worktree_files(root, rel):
        src = root / name
        target = dest / Path(name).relative_to(rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), target)
        else:
            shutil.copy2(src, target)
        n += 1
    dest.mkdir(parents=True, exist_ok=True)
    return n


def extract_at(root: Path, commit: str, rel: str, dest: Path) -> int:
    """Extract the skill folder as it is in ``commit`` to ``dest`` (file modes kept)."""
    proc = _git(root, "archive", "--format=tar", commit, "--", rel)
    n = 0
    dest.mkdir(parents=True, exist_ok=True)
    prefix = rel.rstrip("/") + "/"
    with tarfile.open(fileobj=io.BytesIO(proc.stdout)) as tar:
        for member in tar.getmembers():
            if not member.name.startswith(prefix):
                continue
            inner = member.name[len(prefix):]
            if not inner or ".." in Path(inner).parts:
                continue
            target = dest / inner
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
            elif member.issym():
                target.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(member.linkname, target)
                n += 1
            elif member.isfile():
                target.parent.mkdir(parents=True, exist_ok=True)
                fh = tar.extractfile(member)
                assert fh is not None
                target.write_bytes(fh.read())
                os.chmod(target, member.mode & 0o777)
                n += 1
    return n


def keep_out_of_git(root: Path, *paths: str) -> tuple[Optional[str], tuple[str, ...]]:
    """Have git ignore each of ``paths`` (a folder ends in '/': ``tests/.reports/``; a file:
    ``.claude/settings.local.json``) in this clone only, through ``.git/info/exclude`` (no tracked file of the
    user's is edited). Returns (the exclude file's path, the paths added now): a path git already ignores (a
    .gitignore, the user's global excludes, an earlier plan) or tracks (ignoring would not hide it) is left out;
    (None, ()) when nothing was added or the repository has no exclude file to write."""
    wanted = []
    for p in paths:
        probe = p.rstrip("/") + "/.probe" if p.endswith("/") else p
        if _git(root, "check-ignore", "-q", "--no-index", probe, check=False).returncode == 0:
            continue
        if not p.endswith("/") and _git(root, "ls-files", "--error-unmatch", "--", p, check=False).returncode == 0:
            continue
        wanted.append(p)
    if not wanted:
        return None, ()
    where = _out(root, "rev-parse", "--git-path", "info/exclude")
    if not where:
        return None, ()
    path = Path(where) if Path(where).is_absolute() else root / where
    lines = "".join(f"/{p.strip('/')}{'/' if p.endswith('/') else ''}\n" for p in wanted)
    try:
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        path.parent.mkdir(parents=True, exist_ok=True)
        sep = "" if not old or old.endswith("\n") else "\n"
        write_atomic(path, f"{old}{sep}# benchmark-skill: what the benchmark writes in this clone stays out of git\n"
                           f"{lines}")
    except OSError:
        return None, ()
    return str(path), tuple(wanted)
