"""Whether the baseline arm can see the skill under test, found before launch (issue 26).

Claude Code gives every subagent the session's git status; when its "Status:"
lines name a file of the skill under test (an edited SKILL.md, a new skill's
untracked folder), the baseline can learn the skill exists. The session's own
transcript says what it was given (``harness/claude/session.py``); without one,
the settings say whether git status is given at all. What is found is printed
before launch with what the user can do, and recorded in run.json
``baseline_sees`` so the verdict carries it as a caveat.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from attrs import evolve

from ... import serde
from ...environment import git_status_lines, paths_naming_skill
from ..claude.session import session_git_status, session_transcript
from ..claude.settings import git_status_reaches_subagents
from ..repo.tree import SkillInfo
from ..runs.folder import read_run_info
from ..store.files import write_atomic


def git_status_names(root: Path, skills: list[SkillInfo]) -> tuple[dict[str, str], Optional[str]]:
    """(skill name -> what shows it to the baseline, in words; the session's git status lines, or None when
    the session's transcript was not found and the settings decided). Only skills it names are keys."""
    transcript = session_transcript(root)
    status = session_git_status(transcript) if transcript is not None else None
    if status is None:
        if not git_status_reaches_subagents(root):
            return {}, None
        # No transcript to read: the settings give the git status to every subagent, so an edited skill's
        # files are listed in it (benchcore saw them differ from the default branch).
        return {s.name: f"the git status Claude Code gives every subagent lists the edited {s.path}"
                for s in skills}, None
    if not status:
        return {}, ""
    lines = git_status_lines(status)
    out = {}
    for s in skills:
        named = paths_naming_skill(lines, s.path)
        if named:
            out[s.name] = f"this session's git status, which Claude Code gives every subagent, names {', '.join(named)}"
    return out, lines


def record(run_dir: Path, words: str) -> None:
    """Add ``words`` to run.json ``baseline_sees``."""
    info = read_run_info(run_dir)
    if words not in info.baseline_sees:
        write_atomic(run_dir / "run.json", serde.dumps(evolve(info, baseline_sees=(*info.baseline_sees, words))))
