"""What the orchestrating session itself was given and records of itself, read from its own transcript (I/O):
the git status it was given; Claude Code's version, its model and that model's context window.

Claude Code 2.1.328 records the context it attaches at session start in the
session's transcript (``<projects>/<slug>/<session-id>.jsonl``): an
``attachment`` record of type ``session_context`` whose ``context.gitStatus``
is the git status text (branch, "Status:" lines, recent commits), or an empty
``context`` when ``includeGitInstructions`` is false (measured on the real CLI
in tmux). Every subagent is given the same text, the baseline arm included:
when its "Status:" lines name the skill under test, the baseline can learn
that the skill exists. The session is ``$CLAUDE_CODE_SESSION_ID`` (its Bash
tool exports it), else the newest transcript of this project's folder.

Before launch, plan also reads what the session records of itself. The session's id comes from ``CLAUDE_CODE_SESSION_ID`` (see provenance.py); its transcript is
``<projects>/<project>/<session-id>.jsonl``. Every record carries the CLI's ``version``; assistant records
carry the model served (``message.model``); the model's ``contextWindow`` is in a headless session's init
record and in its model usage (``modelUsage.<model>.contextWindow``: 1,000,000 for claude-opus-5-5 in 2.1.328's
catalog), both on ``claude -p``'s output, and is read here from any transcript record that holds it. Measured
on 2.1.328, no transcript record does (a terminal session's ``cost-state`` record has ``modelUsage`` without
``contextWindow``, written when the conversation ends), so the window is then the one Claude Code's own model
catalog gives the served model (``benchcore/data/context_windows.json``, copied from the CLI's catalog:
``context.window``, the window without the 1M beta); a model it does not list has none (None), and the
Agent-tool path takes the conservative figure. Run by hand, outside a session, nothing is known and every
field is None.

The versions the benchmark declares (``benchcore/data/claude_code.json``: the floor it was tested on and
the newest tested; the plugin's ``engines`` and the README say the same) turn the version into plan's
note: below the floor, or newer than the newest tested (a note, never a refusal).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Optional

from attrs import frozen

from ...errors import BenchError
from .projects import projects_dir
from .provenance import current_session
from .transcript import read_records


def project_slug(repo_root: Path) -> str:
    """Claude Code's folder name for a project: its absolute path with every character but [A-Za-z0-9-]
    replaced by '-'."""
    return re.sub(r"[^A-Za-z0-9-]", "-", str(Path(repo_root).resolve()))


def session_transcript(repo_root: Path, projects: Optional[Path] = None) -> Optional[Path]:
    """The orchestrating session's transcript file, or None when none is found."""
    projects = projects_dir() if projects is None else projects
    sid = current_session()
    if sid:
        for hit in sorted(projects.glob(f"*/{sid}.jsonl")) if projects.is_dir() else ():
            return hit
    folder = projects / project_slug(repo_root)
    files = [f for f in folder.glob("*.jsonl") if f.is_file()] if folder.is_dir() else []
    return max(files, key=lambda f: f.stat().st_mtime) if files else None


def session_git_status(transcript: Path, limit: int = 200) -> Optional[str]:
    """The git status text the session was given (its first ``session_context`` attachment), "" when that
    attachment holds none (git instructions off), None when the transcript has no such record in its
    first ``limit`` lines (an older CLI, or a transcript that is not Claude Code's)."""
    try:
        with transcript.open(encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh):
                if n >= limit:
                    break
                if '"session_context"' not in line:
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                attachment = record.get("attachment") if isinstance(record, dict) else None
                if isinstance(attachment, dict) and attachment.get("type") == "session_context":
                    context = attachment.get("context")
                    status = context.get("gitStatus") if isinstance(context, dict) else None
                    return status if isinstance(status, str) else ""
    except OSError:
        return None
    return None


VERSIONS_RESOURCE = "data/claude_code.json"
_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)")


@frozen
class SessionFacts:
    """What the session's transcript says of itself (None: not recorded, or no session)."""

    version: Optional[str] = None
    model: Optional[str] = None
    context_window: Optional[int] = None


@frozen
class Supported:
    """The Claude Code versions the benchmark declares: the floor it was tested on, the newest tested."""

    floor: str
    newest_tested: str


@lru_cache(maxsize=1)
def supported() -> Supported:
    """The declared versions (``benchcore/data/claude_code.json``)."""
    source = f"benchcore/{VERSIONS_RESOURCE}"
    try:
        from importlib import resources
        data = json.loads(resources.files("benchcore").joinpath(VERSIONS_RESOURCE).read_text(encoding="utf-8"))
        return Supported(floor=str(data["floor"]), newest_tested=str(data["newest_tested"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BenchError(source, f"cannot be read: {exc}", fix="reinstall benchcore") from None


def version_key(version: Optional[str]) -> Optional[tuple[int, int, int]]:
    """``2.1.332`` as (2, 1, 332); None for anything else."""
    m = _VERSION.match(version or "")
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


def session_file(session: Optional[str], root: Optional[Path] = None) -> Optional[Path]:
    """The session's own transcript, ``<projects>/<project>/<session>.jsonl``, or None."""
    if not session:
        return None
    root = root or projects_dir()
    try:
        found = sorted(root.glob(f"*/{session}.jsonl"))
    except OSError:
        return None
    return found[0] if found else None


def _window(rec: dict, model: Optional[str]) -> dict[str, int]:
    """``contextWindow`` figures a record holds, by model ("" when the record names none)."""
    out: dict[str, int] = {}
    usage = rec.get("modelUsage")
    if isinstance(usage, dict):
        for name, u in usage.items():
            if isinstance(u, dict) and isinstance(u.get("contextWindow"), int) and u["contextWindow"] > 0:
                out[str(name)] = u["contextWindow"]
    cw = rec.get("contextWindow")
    if isinstance(cw, int) and cw > 0:
        out[str(rec.get("model") or model or "")] = cw
    return out


WINDOWS_RESOURCE = "data/context_windows.json"
_DATED = re.compile(r"-\d{8}$")


@lru_cache(maxsize=1)
def catalog_windows() -> dict[str, int]:
    """Claude Code's catalog windows (``benchcore/data/context_windows.json``): each entry's id and first-party id,
    without a trailing date, to its window in tokens."""
    source = f"benchcore/{WINDOWS_RESOURCE}"
    try:
        from importlib import resources
        data = json.loads(resources.files("benchcore").joinpath(WINDOWS_RESOURCE).read_text(encoding="utf-8"))
        out: dict[str, int] = {}
        for entry in data["models"]:
            window = int(entry["window"])
            for name in (entry["id"], entry.get("first_party_id") or entry["id"]):
                out[_DATED.sub("", str(name).lower())] = window
        return out
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BenchError(source, f"cannot be read: {exc}", fix="reinstall benchcore") from None


def catalog_window(model: Optional[str]) -> Optional[int]:
    """The served ``model``'s window in Claude Code's catalog (a dated id as its model), None when not listed."""
    return catalog_windows().get(_DATED.sub("", model.strip().lower())) if model else None


def read_session(path: Optional[Path]) -> SessionFacts:
    """The version, model and context window the session's transcript records (the last of each); when it
    records no window, the served model's window in Claude Code's catalog (:func:`catalog_window`)."""
    if path is None:
        return SessionFacts()
    version = model = None
    windows: dict[str, int] = {}
    for rec in read_records(path):
        if isinstance(rec.get("version"), str) and version_key(rec["version"]):
            version = rec["version"]
        msg = rec.get("message")
        if rec.get("type") == "assistant" and isinstance(msg, dict):
            m = msg.get("model")
            if isinstance(m, str) and m and not m.startswith("<"):
                model = m
        windows.update(_window(rec, model))
    window = windows.get(model or "") or windows.get("")
    if window is None and model:  # a dated or provider id of the same model
        window = next((w for name, w in windows.items() if name and (name in model or model in name)), None)
    if window is None and len(set(windows.values())) == 1:
        window = next(iter(windows.values()))
    if window is None:
        window = catalog_window(model)
    return SessionFacts(version=version, model=model, context_window=window)


def session_cwd(path: Optional[Path], limit: int = 50) -> Optional[str]:
    """The working directory the session was started in: the ``cwd`` of the first of its transcript's records that
    has one (every record carries it; a later one may follow a ``cd``), or None (no session, or not recorded)."""
    if path is None:
        return None
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh):
                if n >= limit:
                    break
                if '"cwd"' not in line:
                    continue
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                cwd = record.get("cwd") if isinstance(record, dict) else None
                if isinstance(cwd, str) and cwd.startswith("/"):
                    return cwd
    except OSError:
        return None
    return None


def current_cwd() -> Optional[str]:
    """The working directory of the session running this command (None outside a session)."""
    return session_cwd(session_file(current_session()))


def current_facts() -> SessionFacts:
    """What the session running this command records of itself (empty outside a session)."""
    return read_session(session_file(current_session()))


def version_note(version: Optional[str], declared: Optional[Supported] = None) -> str:
    """plan's line when the running Claude Code is outside the tested range ("" inside it, or unknown)."""
    declared = declared or supported()
    have, floor, newest = version_key(version), version_key(declared.floor), version_key(declared.newest_tested)
    if have is None or floor is None or newest is None:
        return ""
    if have < floor:
        return (f"note: Claude Code {version} is older than {declared.floor}, the oldest version the benchmark "
                f"was tested on: what it relies on (hooks, transcripts, agent types) may differ; run "
                f"'claude update' before benchmarking")
    if have > newest:
        return (f"note: Claude Code {version} is newer than {declared.newest_tested}, the newest version the "
                f"benchmark was tested on; the run goes ahead, and results.json records the version, so a "
                f"verdict that changes with it shows as such")
    return ""
