"""Whether a Claude Code session is still running (I/O: Claude Code's session files and the process table).

Claude Code 2.1.328 writes ``<config>/sessions/<pid>.json`` when a session starts (``{"pid", "sessionId", "cwd",
"startedAt", "procStart", "status", ...}``) and removes it when the session ends (measured on the real CLI: in tmux,
present while the session ran and gone once its terminal closed; ``claude -p`` likewise, from start to exit). A file left by a session that was killed outright
names a process that no longer exists (or a process id reused by another program, which ``procStart``, the
process's start time in clock ticks as /proc/<pid>/stat gives it, tells apart).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

from attrs import frozen

from .agents import config_dir


@frozen
class LiveSession:
    session: str
    pid: int
    started_ms: Optional[int]  # when the session started (ms since the epoch), as Claude Code recorded it


def _running(pid: int, proc_start: object) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: it exists
    stat = Path(f"/proc/{pid}/stat")
    if isinstance(proc_start, str) and proc_start.isdigit() and stat.is_file():
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            return fields[19] == proc_start  # field 22: the start time, ticks after boot
        except (OSError, IndexError):
            return True
    return True


def live_sessions(config: Optional[Path] = None) -> Optional[dict[str, LiveSession]]:
    """Every running session by its id; None when Claude Code keeps no session files here (an older CLI, or a
    configuration folder never used by an interactive session), so that nothing is known."""
    folder = (config or config_dir()) / "sessions"
    if not folder.is_dir():
        return None
    out: dict[str, LiveSession] = {}
    for f in sorted(folder.glob("*.json")):
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        sid, pid = data.get("sessionId"), data.get("pid")
        if isinstance(sid, str) and isinstance(pid, int) and pid > 0 and _running(pid, data.get("procStart")):
            started = data.get("startedAt")
            out[sid] = LiveSession(sid, pid, started if isinstance(started, int) else None)
    return out
