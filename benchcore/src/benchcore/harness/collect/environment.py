"""Collect's environment stage: each collected arm transcript's evidence and the settings files, in environment.json."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator, Optional

import msgspec

from ... import serde
from ...environment import CellEvidence, EnvironmentEvidence, SessionEvidence, SettingsFile, cell_evidence, session_evidence
from ..claude.agents import _read_json, config_dir
from .kept import KeptTranscript
from .state import RunState, write_parts_if_changed
from ..claude.transcript import agent_type, read_records
from ..claude.projects import projects_dir

ENVIRONMENT_FILE = "environment.json"


def record_environment(run: RunState, found: dict) -> bool:
    """Every collected cell's evidence (kept when collect read its transcript, else its copy streamed once),
    the settings Claude Code loads for the project, written to the run's environment.json; whether it changed.
    The cells' evidence is made, written and let go one cell at a time (for 3,000 cells the file and its
    pieces, held whole, had added 5 MB to collect's peak)."""
    sessions_named: set[str] = set()

    def cells() -> Iterator[CellEvidence]:
        for cell in run.plan.cells:
            if cell.id not in found:
                continue
            cdir = run.tdir(cell.case, cell.trial) / cell.arm
            kind = agent_type(cdir / "meta.json")
            t = found[cell.id]
            kept = t.evidence(cell.id, cell.arm, kind) if isinstance(t, KeptTranscript) else None
            evidence = kept or cell_evidence(cell.id, cell.arm, kind, read_records(cdir / "transcript.jsonl"))
            if evidence.session:
                sessions_named.add(evidence.session)
            yield evidence

    repo = Path(run.plan.repo) if run.plan.repo else None
    path = run.run_dir / ENVIRONMENT_FILE
    before_settings, before_sessions = _previous(path)
    # The settings as the first collect after the arms found them (closest to the run; clean later takes the
    # guard out), and a session whose transcript Claude Code has since removed keeps what was read of it.
    settings = before_settings or read_settings(repo, config_dir())

    def sessions() -> Iterator[SessionEvidence]:  # asked for after the cells: the sessions they name
        found_sessions = {s.session: s for s in read_sessions(sorted(sessions_named))}
        kept = {s.session: s for s in before_sessions}
        yield from (found_sessions.get(sid) or kept[sid] for sid in sorted(set(found_sessions) | set(kept)))

    parts = serde.dumps_parts(EnvironmentEvidence(settings=settings), streamed={"cells": cells(),
                                                                                "sessions": sessions()})
    return write_parts_if_changed(path, parts)


class _Previous(msgspec.Struct):
    """What collect takes from the environment.json an earlier collect wrote: its cells are skipped unread."""

    settings: list = []
    sessions: list = []


def _previous(path: Path) -> tuple[tuple[SettingsFile, ...], tuple[SessionEvidence, ...]]:
    """The settings and sessions an earlier collect wrote, or none (missing or unreadable: read afresh)."""
    try:
        before = msgspec.json.decode(path.read_bytes(), type=_Previous)
        return (serde.load(tuple[SettingsFile, ...], before.settings),
                serde.load(tuple[SessionEvidence, ...], before.sessions))
    except Exception:  # noqa: BLE001 - a damaged file is rewritten from what is read now
        return (), ()


def read_sessions(sessions: list[str]) -> tuple[SessionEvidence, ...]:
    """Each orchestrating session's own transcript (``projects/<project>/<session>.jsonl``), streamed once,
    for the permission modes its records carry; a session whose file is gone is left out."""
    out = []
    root = projects_dir()
    for sid in sessions:
        if not re.fullmatch(r"[A-Za-z0-9_-]+", sid):  # a session id is a UUID: never a path or a pattern
            continue
        for path in sorted(root.glob(f"*/{sid}.jsonl")) if root.is_dir() else ():
            out.append(session_evidence(sid, read_records(path)))
            break
    return tuple(out)


def read_settings(repo: Optional[Path], config_dir: Path) -> tuple[SettingsFile, ...]:
    """The settings files Claude Code loads, in its precedence (local project, shared project, user), as
    they are now; a missing or unreadable file is left out (Claude Code itself reports a malformed one)."""
    places = []
    if repo is not None:
        places += [(repo / ".claude" / "settings.local.json", ".claude/settings.local.json"),
                   (repo / ".claude" / "settings.json", ".claude/settings.json")]
    places.append((config_dir / "settings.json", "~/.claude/settings.json"))
    out = []
    for path, shown in places:
        data = _read_json(path)
        if data is not None:
            out.append(settings_file(shown, data))
    return tuple(out)


def settings_file(shown: str, data: dict) -> SettingsFile:
    """The facts of one settings file's JSON: hooks ("<event>: <command>"), permissions.defaultMode,
    enabledMcpjsonServers, includeGitInstructions."""
    hooks = []
    for event, groups in (data.get("hooks") or {}).items() if isinstance(data.get("hooks"), dict) else ():
        for group in groups if isinstance(groups, list) else ():
            for h in (group.get("hooks") or ()) if isinstance(group, dict) else ():
                if isinstance(h, dict) and isinstance(h.get("command"), str):
                    hooks.append(f"{event}: {h['command']}")
    perms = data.get("permissions") if isinstance(data.get("permissions"), dict) else {}
    mode = perms.get("defaultMode")
    servers = data.get("enabledMcpjsonServers")
    git = data.get("includeGitInstructions")
    return SettingsFile(path=shown, hooks=tuple(hooks), default_mode=mode if isinstance(mode, str) else None,
                        mcp_servers=tuple(s for s in servers if isinstance(s, str)) if isinstance(servers, list) else (),
                        include_git_instructions=git if isinstance(git, bool) else None)
