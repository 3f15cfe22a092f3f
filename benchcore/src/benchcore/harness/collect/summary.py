"""What collect keeps of a collected cell's transcript beside its copy (``collected.json``), keyed by digests.

A collect with nothing new used to parse every arm transcript again (2.2-2.3 s for 391 MB) to learn what the
first collect had learnt: the final message, the subagents, the models, the refused calls, the environment
evidence and the audit's findings. ``collected.json`` keeps them, with the SHA-256 of the bytes they came
from (the transcript Claude Code wrote, the same bytes as the copy beside it) and of each subagent's. A later
collect that reads the same bytes (and finds no subagent file the transcript names that was not there then)
takes the summary instead of parsing; any other bytes are parsed as before. The summary is a cache: deleted
or damaged, the transcript is parsed again.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Optional

from ... import jsontext, serde
from ...environment import CellEvidence
from ...errors import BenchError
from ..claude.transcript import _child_ids
from ..store.files import read_regular_bytes

NAME = "collected.json"
VERSION = 1


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Known:
    """A transcript as its summary tells it, for stage 1 (what it asks of a parsed :class:`Transcript`), with
    the bytes just read (to compare with the copy, and to copy)."""

    def __init__(self, data: dict, raw: bytes, sha256: str, children_raw: dict[str, bytes]):
        self.main_id: str = data["agent_id"]
        self.raw = raw
        self.sha256 = sha256
        self.children: tuple[str, ...] = tuple(data["children"])
        self.children_raw = children_raw
        self.final: Optional[str] = data["final"]
        self.model_names = frozenset(data["models"])
        self.spawned: tuple[str, ...] = tuple(data["spawned"])
        self.refused: tuple[str, ...] = tuple(data["refused"])
        self.evidence: Optional[CellEvidence] = (serde.load(CellEvidence, data["evidence"])
                                                 if data["evidence"] is not None else None)
        self.audited: Optional[list[str]] = data["audited"]

    def final_message(self) -> Optional[str]:
        return self.final

    def models(self) -> set[str]:
        return set(self.model_names)


def known(cdir: Path, path: Path, agent_id: str, by_id: dict) -> Optional[Known]:
    """The summary of the transcript at ``path`` kept in ``cdir``, when that file (and each subagent file it
    named) holds the bytes the summary was made from; else None (parse it)."""
    try:
        data = json.loads((cdir / NAME).read_text(encoding="utf-8"))
        if data.get("version") != VERSION or data.get("source") != str(path) or data.get("agent_id") != agent_id:
            return None
        raw = read_regular_bytes(path)
        sha = digest(raw)
        if sha != data["sha256"]:
            return None
        if any(m in by_id and m not in data["children_sha256"] for m in data["mentioned"]):
            return None  # a subagent file it names came since: parsed, it would be read too
        children_raw = {}
        for child, want in data["children_sha256"].items():
            source = by_id.get(child)
            if source is None:
                return None
            children_raw[child] = read_regular_bytes(source)
            if digest(children_raw[child]) != want:
                return None
        return Known(data, raw, sha, children_raw)
    except (OSError, ValueError, KeyError, TypeError, BenchError):
        return None


def summary(t, source: Path, kept) -> dict:
    """``collected.json`` for the parsed transcript ``t`` read from ``source``, with what
    :class:`KeptTranscript` ``kept`` keeps of it; its ``sha256`` is added by :func:`text` (a small dict: the
    transcript itself is let go)."""
    calls = t.tool_calls()
    spawned = [str(u.input.get("prompt", "")) for u in calls if u.name in ("Agent", "Task") and u.agent_id == t.main_id]
    mentioned = _child_ids(list(t.records)) if any(u.name in ("Agent", "Task") for u in calls) else []
    evidence = kept._evidence
    doc = {"version": VERSION, "source": str(source), "agent_id": t.main_id, "sha256": "",
           "children": list(t.children),
           "children_sha256": {c: digest(t.children_raw[c]) for c in t.children if c in t.children_raw},
           "mentioned": sorted(set(mentioned)), "final": kept.final_message(), "models": sorted(kept.models()),
           "spawned": spawned, "refused": list(kept.refused_whys()),
           "evidence": serde.dump(evidence) if evidence is not None else None, "audited": kept.audited}
    return doc


def text(doc: dict, sha256: str, before: Optional[Path] = None) -> str:
    """The file's text: ``doc`` keyed by the digest of the bytes it was made from. Not audited in this collect,
    it keeps the findings the file ``before`` holds for the same bytes."""
    if doc["audited"] is None and before is not None:
        try:
            old = json.loads(before.read_text(encoding="utf-8"))
            if old.get("sha256") == sha256 and old.get("version") == VERSION:
                doc = dict(doc, audited=old.get("audited"))
        except (OSError, ValueError, AttributeError):
            pass
    return jsontext.dumps(dict(doc, sha256=sha256), 1) + "\n"  # json.dumps's text, no cycle left (jsontext)
