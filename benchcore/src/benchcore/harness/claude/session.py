"""What the orchestrating session itself was given: its git status, read from its own transcript (I/O).

Claude Code 2.1.328 records the context it attaches at session start in the
session's transcript (``<projects>/<slug>/<session-id>.jsonl``): an
``attachment`` record of type ``session_context`` whose ``context.gitStatus``
is the git status text (branch, "Status:" lines, recent commits), or an empty
``context`` when ``includeGitInstructions`` is false (measured on the real CLI
in tmux). Every subagent is given the same text, the baseline arm included:
when its "Status:" lines name the skill under test, the baseline can learn
that the skill exists. The session is ``$CLAUDE_CODE_SESSION_ID`` (its Bash
tool exports it), else the newest transcript of this project's folder.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Optional

from .projects import projects_dir
from .provenance import current_session


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
