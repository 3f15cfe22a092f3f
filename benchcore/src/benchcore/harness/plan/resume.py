"""Plan's resume: the unfinished run of the same skills, checked against the tree, continued through collect.

``benchcore plan <names>`` first looks at the newest run of those skills. It
continues that run (never a new one, never another run's arms or judgments)
when all of these hold, and otherwise plans afresh and says why not:

- its worlds still exist and it was not rendered (``open_runs``);
- the runs planned with it are the same skills and models this command asks for;
- each run's shape, cases (their case.md), judge model and budget are what
  planning now would give, and ``--seed``, if given, is its seed;
- its ``new`` skill copy has the same files as the skill folder in the working tree;
- for a three-arm run, the default branch is still at the commit its ``previous`` copy came from.

Continuing is one ``collect`` of the runs: it finds what the arms and judges
already did and writes scripts for only what is missing.
"""

from __future__ import annotations

import contextlib
import json
from datetime import datetime
import os
import re
from pathlib import Path
from typing import Optional

from attrs import frozen

from ...errors import BenchError

from ..worlds import assertions as hard
from .. import fanout
from ..repo import git
from ..collect.launch import resume_hint  # noqa: F401 - plan prints it too
from ..collect.run import Collected, collect_runs
from ..store.files import locked_run, read_text, shown_path
from .open_runs import RunFolder, newest_of, planned_at, run_folders
from .decide import JUDGE_AGENT, Decision, baseline_agent, installed_agent
from ..runs.folder import read_run_info
from ..repo.tree import case_dirs

def slash_command(invoked_as: Optional[str], names: list[str]) -> str:
    """The command the user retypes to continue: ``--invoked-as`` (what SKILL.md passes: the command the session
    ran) or, without it, ``/<plugin>:<skill>`` when the wrapper's skill folder is in Claude Code's plugin cache
    (``.../plugins/cache/<marketplace>/<plugin>/<version>/skills/<skill>``), else ``/<skill>``; then the skill
    names as given."""
    command = (invoked_as or "").strip() or _installed_command()
    if not command.startswith("/"):
        command = "/" + command
    if invoked_as and invoked_as.strip() and not _is_benchmark_command(command):
        raise BenchError(None, f"--invoked-as {invoked_as.strip()!r} is not a benchmark-skill command (plan names it "
                               f"in the line that says how to resume, so the user would be told to type it)",
                         fix="pass the slash command that started this run, e.g. --invoked-as /benchmark-skill or "
                             "--invoked-as /benchmark-skill:benchmark-skill, or leave --invoked-as out")
    return " ".join([command, *names])


def _is_benchmark_command(command: str) -> bool:
    """``/benchmark-skill`` or ``/<plugin>:benchmark-skill`` (or the installed skill folder's own name)."""
    skill = _installed_command().rsplit(":", 1)[-1].lstrip("/")
    return re.fullmatch(r"/(?:[A-Za-z0-9][A-Za-z0-9._-]*:)?([A-Za-z0-9._-]+)", command) is not None and \
        command.rsplit(":", 1)[-1].lstrip("/") in {"benchmark-skill", skill}


def _installed_command() -> str:
    skill_dir = os.environ.get("BENCHMARK_SKILL_DIR")
    if not skill_dir:
        return "/benchmark-skill"
    skill = Path(os.path.normpath(skill_dir))
    root = skill.parent.parent
    plugin = None
    if "cache" in root.parts[:-3] and root.parts[-4:-3] == ("cache",) and root.parts[-5:-4] == ("plugins",):
        try:
            plugin = json.loads((root / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8")).get("name")
        except (OSError, ValueError, AttributeError):
            plugin = None
    return f"/{plugin}:{skill.name}" if isinstance(plugin, str) and plugin else f"/{skill.name}"


@frozen
class Resumable:
    """The runs to continue (empty: plan afresh), or the newest open run and why it is not continued."""

    runs: tuple[RunFolder, ...]
    not_resumed: Optional[RunFolder] = None
    why: str = ""


def find_resumable(root: Path, decisions: list[Decision], branch: git.DefaultBranch,
                   seed: Optional[int], baseline_override: Optional[str] = None) -> Resumable:
    runs = run_folders(root)
    newest = newest_of(runs, {d.skill.name for d in decisions})
    if newest is None or not newest.open:
        return Resumable(())
    ids = newest.plan.group or (newest.plan.run_id,)
    group = [r for r in runs if r.plan.run_id in ids]
    why = _why_not(root, group, ids, decisions, branch, seed) or _agents_changed(root, group, baseline_override)
    return Resumable(tuple(group)) if why is None else Resumable((), newest, why)


def _pairs(pairs) -> str:
    return ", ".join(sorted(f"{s} on {m}" if m else s for s, m in pairs))


def _why_not(root: Path, group: list[RunFolder], ids, decisions: list[Decision], branch: git.DefaultBranch,
             seed: Optional[int]) -> Optional[str]:
    if len(group) != len(ids) or not all(r.open and not r.rendered for r in group):
        return "a run planned with it was rendered, cleaned or removed"
    wanted = {(d.skill.name, m) for d in decisions for m in d.models}
    had = {r.key for r in group}
    if had != wanted:
        return f"it was planned for {_pairs(had)}, and this command asks for {_pairs(wanted)}"
    by_skill = {d.skill.name: d for d in decisions}
    for r in group:
        why = _changed(root, r, by_skill[r.plan.skill], branch, seed)
        if why:
            return why
    return None


def _agents_changed(root: Path, group: list[RunFolder], baseline_override: Optional[str]) -> Optional[str]:
    """Why the runs' agent types are not the ones installed now (a cell launched as a type that is gone fails)."""
    now = (baseline_agent(root, baseline_override), installed_agent(root, JUDGE_AGENT))
    for r in group:
        if (r.plan.baseline_agent_type, r.plan.judge_agent_type) != now:
            return (f"the agent types it runs as (baseline: {r.plan.baseline_agent_type or 'the default type'}, "
                    f"judges: {r.plan.judge_agent_type or 'the default type'}) are not the ones installed now "
                    f"({now[0] or 'the default type'}, {now[1] or 'the default type'})")
    return None


def _changed(root: Path, r: RunFolder, d: Decision, branch: git.DefaultBranch, seed: Optional[int]) -> str:
    """Why one run no longer fits what planning now would make ("" when it fits)."""
    plan, name = r.plan, d.skill.name
    if seed is not None and seed != plan.seed:
        return f"it was planned with seed {plan.seed}, and --seed {seed} asks for another"
    if plan.shape != d.shape:
        return f"{name} was planned {plan.shape}, and is {d.shape} now ({d.why})"
    if read_run_info(r.run_dir).pilot != d.pilot:  # a pilot's arms are never reused by a full run, nor the reverse
        was, now = ("a full run", "a pilot") if d.pilot else ("a pilot", "a full run")
        return f"it was planned as {was}, and this command asks for {now}"
    new_copy = Path(plan.skill_copies.get("new", ""))
    if not new_copy.is_dir() or _files(new_copy) != _worktree_files(root, d.skill.path):
        return f"the skill folder {d.skill.path} changed since it was planned"
    info = read_run_info(r.run_dir)
    if d.shape == "three-arm" and info.default_branch.commit != branch.commit:
        return (f"the default branch {branch.name} moved since it was planned ({info.default_branch.commit[:12]} -> "
                f"{branch.commit[:12]}), so the previous version differs")
    if tuple(info.cases) != tuple(c.id for c in d.cases) or any(
            read_text(r.run_dir / "cases" / p.name / "case.md") != read_text(p / "case.md")
            for p in case_dirs(root, d.skill)):
        return f"the cases of {name} changed since it was planned"
    if plan.judge_model != d.judge_model or plan.budget != d.budget:
        return f"the judge model or the budget of {name} changed since it was planned"
    gone = [c.id for c in plan.cells if not c.skip and not Path(c.world).is_dir()]
    if gone:
        return f"{len(gone)} of its worlds are gone ({gone[0]} ...)"
    return ""


def _entry(p: Path) -> Optional[tuple[str, bytes]]:
    """A file as the comparison sees it: a link's target, or a file's bytes and executable bit (None: neither)."""
    if p.is_symlink():
        return ("link", os.readlink(p).encode())
    if p.is_file():
        return ("x" if os.access(p, os.X_OK) else "f", p.read_bytes())
    return None


def _files(folder: Path) -> dict[str, tuple[str, bytes]]:
    """Every file under ``folder`` by relative path."""
    found = {p.relative_to(folder).as_posix(): _entry(p) for p in sorted(folder.rglob("*"))}
    return {k: v for k, v in found.items() if v is not None}


def _worktree_files(root: Path, rel: str) -> dict[str, tuple[str, bytes]]:
    """The skill folder's files as ``copy_worktree`` copies them (tracked and untracked, ignored left out)."""
    found = {Path(name).relative_to(rel).as_posix(): _entry(root / name) for name in git.worktree_files(root, rel)}
    return {k: v for k, v in found.items() if v is not None}


def resume(runs: tuple[RunFolder, ...]) -> Collected:
    """Continue the runs: one collect of them (each run's lock held), which writes scripts for what is missing."""
    dirs = [r.run_dir.resolve() for r in runs]
    with contextlib.ExitStack() as held:
        for d in sorted(dirs):
            held.enter_context(locked_run(d))
        return collect_runs(dirs, False, hard.DEFAULT_TIMEOUT)


@frozen
class Launcher:
    """The session that launched a run's arms, seen from a later session: ``alive`` or ``ended``."""

    state: str
    session: str
    minutes: int  # since the run was planned (its arms were launched right after)


def launcher(runs: tuple[RunFolder, ...], current: Optional[str], live: Optional[dict],
             now: datetime) -> Optional[Launcher]:
    """Whether the other sessions that ran plan or collect for ``runs`` (plan.json ``sessions``, this one left out)
    still run: ``alive`` when one has a live session file (harness/claude/live.py), ``ended`` when none has (every
    session writes one, interactive or ``claude -p``: measured on 2.1.328); None when nothing is known (no other
    session, or no session files: an older CLI)."""
    others = list(dict.fromkeys(s for r in runs for s in r.plan.sessions if s != current))
    if not others or live is None:
        return None
    starts = [t for r in runs if (t := planned_at(r.plan)) is not None]
    minutes = max(0, int((now - min(starts)).total_seconds() // 60)) if starts else 0
    alive = [s for s in others if s in live]
    if alive:
        return Launcher("alive", alive[-1], minutes)
    return Launcher("ended", others[-1], minutes)


def launcher_line(found: Optional[Launcher], done: Collected) -> Optional[str]:
    """What plan says of the session that launched the arms, when some arm has not finished."""
    cut = sum(len(s.unfinished) for s in done.statuses)
    if found is None or not (cut or done.launches.cells):
        return None
    who = f"the session that launched the arms ({found.session[:8]}, {found.minutes} min ago)"
    if found.state == "alive":
        return f"note: {who} is still running, and so are its arms: they have run for {found.minutes} min"
    return (f"note: {who} has ended, and its arms with it: {cut} cell{'s' if cut != 1 else ''} stopped before "
            f"{'their' if cut != 1 else 'its'} final message")


def resumed_next(done: Collected, found: Optional[Launcher] = None, command: str = "") -> str:
    """The next step of a continued run: collect's, except that arm cells not run yet are simply launched when no
    arm of the run is still running (no transcript without its final message), since a resume follows a launch
    that was refused, cancelled or has ended; and when the session that launched the arms is known to have ended,
    or to run still (``found``), one step instead of collect's two guesses ("if still running ...; if finished
    ...")."""
    launches = done.launches
    runs = " ".join(shown_path(s.run_dir) for s in launches.statuses)
    if launches.cells and not any(s.unfinished or s.rerun for s in launches.statuses):
        scripts = list(launches.arms_scripts)
        return (f"launch the arm cells that have not run with {fanout.workflow_calls(scripts)} "
                f"({fanout.agent_tasks_phrase(scripts)}); then run: benchcore collect {runs}")
    cut = sum(len(s.unfinished) for s in done.statuses)
    if found is not None and found.state == "ended" and cut:
        return (f"run: benchcore collect {runs} --rerun (the session that launched the arms has ended, so the "
                f"{cut} cell{'s' if cut != 1 else ''} it cut off {'get fresh worlds' if cut != 1 else 'gets a fresh world'}), "
                "then launch the arms it names")
    if found is not None and found.state == "alive" and (cut or launches.cells):
        return (f"wait: the arms are still running in the session that launched them ({found.session[:8]}, for "
                f"{found.minutes} min); let them finish there, then type {command or 'the command'} again here "
                f"(or run: benchcore collect {runs})")
    return done.next


def resumed_lines(done: Collected, runs: tuple[RunFolder, ...]) -> list[str]:
    """What plan prints for a continued run, before the resume hint and the next step."""
    lines = []
    for r, s in zip(runs, done.statuses):
        judged = s.packets - len(s.pending_packets)
        lines.append(f"resuming run {r.plan.run_id} (planned {r.plan.planned_at}): {s.cells_in} of {s.cells} cells "
                     f"collected, {judged} of {s.packets} packets judged; run: {shown_path(r.run_dir)}")
        if s.not_started:
            lines.append(f"  still to launch: {len(s.not_started)} cells")
        if s.unfinished:
            lines.append(f"  still running or cut off: {len(s.unfinished)} cells")
        if s.pending_packets:
            lines.append(f"  packets with no answer: {len(s.pending_packets)}")
    return lines


def not_resumed_line(res: Resumable) -> Optional[str]:
    if res.not_resumed is None:
        return None
    r = res.not_resumed
    return (f"note: run {r.plan.run_id} (planned {r.plan.planned_at}) was not resumed: {res.why}; a new run is "
            f"planned ('benchcore clean' removes the old run's worlds)")
