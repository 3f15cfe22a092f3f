"""Agents the run's own sessions launched twice for one cell or packet: one counts, the others are ignored, named, paid.

A fan-out launched twice (a retyped command, a double approval, a command typed while one ran) gives two fresh
agents with the same planned prompt, both in the session's records. Neither is a forgery, so neither
invalidates the trial: for a judge packet the first judge to start counts (answers.py), for an arm cell the
first finished transcript to start (cells.py), or the one collect already took the output from. Every other
one is named in the trial's ``ignored.json`` ({"cell" or "packet", "path", "why"}) and its transcript (with
the subagents it launched) is copied into ``t<N>/ignored/``: it was paid for, so the report's cost section
counts it, apart from the arms and the judges, never gating. A transcript no session of the run launched
is not a duplicate: it stays refused (refused.json).
"""

from __future__ import annotations

from pathlib import Path

from ... import jsontext
from ...errors import BenchError
from ..runs.folder import IGNORED_DIR
from ..store.files import read_regular_bytes
from .state import RunState, write_bytes_if_changed, write_if_changed


def ignore(run: RunState, key: str, case: str, trial: int, path: Path, agent_id: str, why: str,
           children: tuple[str, ...] = ()) -> None:
    """Record the transcript at ``path`` (agent ``agent_id``, for cell or packet ``key``) as an ignored
    duplicate, and keep a copy of it and of ``children`` (agent ids it launched) for its cost."""
    entry = (key, str(path), why)
    if entry not in run.duplicates:
        run.duplicates.append(entry)
    stem = key.replace("/", "_")
    dest = run.tdir(case, trial) / IGNORED_DIR
    for aid, src in ((agent_id, path), *((c, run.index.by_id.get(c)) for c in children)):
        if src is None:
            continue
        try:
            data = read_regular_bytes(src)
        except (OSError, BenchError):  # gone since the scan, or not a regular file: not copied
            continue
        name = f"{stem}.{agent_id}.jsonl" if aid == agent_id else f"{stem}.{agent_id}.{aid}.jsonl"
        write_bytes_if_changed(dest / name, data)


def write_ignored(run: RunState) -> None:
    """``t<N>/ignored.json`` for every trial with an arm transcript or a judge answer ignored as a duplicate
    (the report's trial details show it), removed when there is none."""
    packets = {p.id: p for p in run.plan.packets}
    cells = run.plan.cell_map()
    table: dict[tuple[str, int], list[dict]] = {}
    for key, path, why in sorted(set(run.duplicates)):
        item = packets.get(key) or cells.get(key)
        if item is not None:
            table.setdefault((item.case, item.trial), []).append(
                {"packet" if key in packets else "cell": key, "path": path, "why": why})
    for case, trial in {(c.case, c.trial) for c in run.plan.cells}:
        path = run.tdir(case, trial) / "ignored.json"
        if (case, trial) in table:
            write_if_changed(path, jsontext.dumps(table[(case, trial)], 1, ascii=True) + "\n")
        elif path.is_file():
            path.unlink()
