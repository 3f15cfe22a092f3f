"""The session made ready for the runs plan made: the guard told of them, what the baseline can see recorded,
``tests/.reports/`` kept out of git, the benchmark's permissions and guard hook in the project's settings."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from attrs import frozen

from ..claude.settings import LOCAL, allow_benchmark, guard_command
from ..confine.registry import benchmark_skill_dir, register_runs
from ..repo import git
from ...errors import BenchError
from ..store.files import shown_path
from ..store.planfile import read_plan
from ..worlds.temp import default_temp_base
from . import blind


@frozen
class Ready:
    """The lines plan says of what it set up (empty: nothing to say)."""
    seen_lines: list
    exclude_note: str
    settings_note: str


def make_ready(root: Path, runs, command: str, temp_dir: Optional[Path], keep_settings: bool) -> Ready:
    """Register the runs with the guard (it confines their arms until clean), record and word what shows a skill
    to the baseline, keep the reports out of git, and (unless ``keep_settings``) grant the benchmark's
    permissions and add the guard hook."""
    register_runs(r for _, r, _ in runs)
    seen_lines = baseline_sees(root, runs, command)
    base = temp_dir or default_temp_base()
    # Under a folder of the user's, only each run's own temp root is granted (clean takes it out again).
    grants = [base] if temp_dir is None else [Path(read_plan(r).temp_root) for _, r, _ in runs]
    settings_note = "" if keep_settings else allow_benchmark(
        root, grants, os.environ.get("BENCHCORE_COMMAND"),
        guard=guard_command(benchmark_skill_dir(root), base))
    return Ready(seen_lines=seen_lines, exclude_note=keep_out_note(root, reports=True), settings_note=settings_note)


# What plan writes into the user's repository, and what each holds (named once, when first kept out of git).
WRITTEN = {"tests/.reports/": "transcripts, reports, history",
           str(LOCAL): "the settings benchcore adds for this clone"}


def keep_out_note(root: Path, reports: bool) -> str:
    """Keep what benchcore wrote into the repository out of git in this clone (``.git/info/exclude``): the
    reports folder when ``reports``, and .claude/settings.local.json when it exists; the one line saying so,
    empty when nothing was added now (already ignored, tracked, or no git)."""
    paths = (["tests/.reports/"] if reports else []) + ([str(LOCAL)] if (root / LOCAL).is_file() else [])
    excluded, added = git.keep_out_of_git(root, *paths)
    if not added:
        return ""
    what = " and ".join(f"{p} ({WRITTEN[p]})" for p in added)
    return (f"note: {what} {'is' if len(added) == 1 else 'are'} kept out of git in this clone: added to "
            f"{shown_path(Path(excluded))} (no tracked file changed)")


def baseline_sees(root: Path, runs, command: str) -> list[str]:
    """Before launch: what shows a skill under test to the baseline (``blind``), recorded in each
    run's run.json for the verdict's caveat; the warning lines, with the one command that prevents it."""
    found, status = blind.git_status_names(root, [d.skill for d, _, _ in runs])
    if status is None:  # no session transcript: only an edited skill is known to be listed
        found = {k: v for k, v in found.items() if any(d.skill.name == k and d.shape == "three-arm" for d, _, _ in runs)}
    for d, r, _ in runs:
        if d.skill.name in found:
            blind.record(r, found[d.skill.name])
    if not found:
        return []
    return [f"warning: the baseline can see {name}: {why}" for name, why in sorted(found.items())] + [
        f"  to keep it out: run benchcore plan --hide-git-status (it writes \"includeGitInstructions\": false to "
        f"{LOCAL}), restart Claude Code and type {command} again; if you go on, the verdict says so"]


def hide_git_status_next(root: Path, invoked_as: Optional[str], names: list[str], every: bool) -> str:
    """The step after ``plan --hide-git-status``: the command to type, with the skill's name. From a session (the
    skill passes ``--invoked-as``) that is restarting it and typing the command again; run by hand, before any
    session, it is starting Claude Code here and typing it (the setting is read when a session starts)."""
    from ..repo.tree import case_dirs, discover_skills
    from .resume import slash_command

    if not names and not every:
        try:
            tested = [s.name for s in discover_skills(root).values() if case_dirs(root, s)]
        except BenchError:
            tested = []
        names = tested if len(tested) == 1 else ["<skill>"]
        which = f" (skills with tests: {', '.join(tested)})" if len(tested) > 1 else ""
    else:
        which = ""
    command = slash_command(invoked_as, [] if every else list(names))
    here = "here" if Path.cwd().resolve() == root.resolve() else f"in {root}"
    if invoked_as:
        return (f"restart Claude Code (exit, then start claude again {here}: a setting is read when a session "
                f"starts) and type {command} again{which}")
    return (f"start Claude Code {here} (claude; a session already open reads the setting only after a restart) "
            f"and type {command}{which}")
