"""Finding Claude Code subagent transcripts on disk, and what each one's first prompt says.

Layouts under ``$CLAUDE_CONFIG_DIR/projects`` (default ``~/.claude/projects``):

- ``<project>/<session>/subagents/agent-<id>.jsonl`` (Agent tool; flat at any depth)
- ``<project>/<session>/subagents/workflows/<runId>/agent-<id>.jsonl`` (Workflow tool)

A transcript is tied to its cell or packet only by a marker in its first user
record (the prompt): an arm cell's world path, a judge's ``Packet id:`` line.
Never by timing: file times only skip files older than the run, to keep the
scan short.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Iterable, Mapping, Optional

from attrs import field, frozen

from ..store.files import not_regular
from .transcript import read_records, text_of

_PACKET_LINE = re.compile(r"Packet id:\s*(\S+)")


def projects_dir() -> Path:
    config = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(config) / "projects" if config else Path.home() / ".claude" / "projects"


@frozen
class AgentFile:
    """One subagent transcript file and what its first user record says. Its path is held as text and made a
    ``Path`` when asked for: a Path keeps its parts and their case-folded copies once it has been compared or
    printed, about 1 KB a file, and a collect holds every file it found (2 MB more at 3,000 cells and 2,000
    judges, measured). The text is ``sys.intern``'s: ``transcripts-read.json``'s entries share it."""

    _where: str = field(alias="path", converter=lambda p: sys.intern(str(p)))
    agent_id: str
    prompt: str  # the task it was given: its first user record, unwrapped (see ``unwrap``)
    started: str  # timestamp of the first record ("" when absent)
    relayed: str = ""  # the user's request a Workflow agent got before its task, when it got one

    @property
    def path(self) -> Path:
        return Path(self._where)

    @property
    def where(self) -> str:
        """The path as text (``str(self.path)`` without making a Path)."""
        return self._where


class PathsById(Mapping):
    """agent id -> its transcript's path: held as text, each a ``Path`` when looked up (see ``AgentFile``); every
    way of reading it (``[]``, ``get``, ``values``, ``items``) gives Paths."""

    def __init__(self, pairs: Iterable[tuple[str, str]] = ()):
        self._where = dict(pairs)

    def __getitem__(self, agent_id: str) -> Path:
        return Path(self._where[agent_id])

    def __contains__(self, agent_id: object) -> bool:
        return agent_id in self._where

    def __iter__(self):
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


RELAY_HEAD = "[Workflow harness \u2014 user request]"
TASK_HEAD = "[Workflow harness \u2014 computed task]"
TASK_FOLLOWS = "The computed task text follows:\n"


def _line_start(text: str, head: str) -> int:
    """Where ``head`` starts a line of ``text`` (context Claude Code put before it aside), or -1."""
    if text.startswith(head):
        return 0
    at = text.find("\n" + head)
    return at + 1 if at >= 0 else -1


def unwrap(text: str) -> str:
    """The task as it was planned, from the text Claude Code delivered: a Workflow agent's computed task
    comes after the harness's preamble with every line indented by two spaces (measured on the real CLI: docs/internals.md);
    any other text is returned as it is."""
    at = _line_start(text, TASK_HEAD)
    if at < 0 or TASK_FOLLOWS not in text[at:]:
        return text
    body = text[at:].split(TASK_FOLLOWS, 1)[1]
    return "\n".join(line[2:] if line.startswith("  ") else line.lstrip(" ") for line in body.split("\n"))


def _first_prompt(path: Path) -> tuple[str, str, str]:
    """(the delivered task, the first record's timestamp, the relayed user request or "").

    In the turn the user typed, a Workflow agent's first user record relays the user's command and the
    computed task is the second; otherwise the first user record is the task."""
    texts: list[str] = []
    started = ""
    for n, rec in enumerate(read_records(path)):
        if n == 0:
            started = str(rec.get("timestamp", ""))
        if rec.get("type") == "assistant":
            break
        if rec.get("type") == "user" and isinstance(rec.get("message"), dict) and not rec.get("isMeta"):
            texts.append(text_of(rec["message"].get("content")))
            if _line_start(texts[0], RELAY_HEAD) < 0 or len(texts) == 2:
                break
        if n > 20:
            break
    if not texts:
        return "", started, ""
    if _line_start(texts[0], RELAY_HEAD) >= 0:
        return (unwrap(texts[1]) if len(texts) > 1 else ""), started, texts[0]
    return unwrap(texts[0]), started, ""


def first_prompt(path: Path) -> str:
    """The task a transcript's agent was given (unwrapped, after any relayed request), or ""."""
    return _first_prompt(path)[0]


def first_agent_id(path: Path) -> str:
    """The ``agentId`` of a transcript's first record ("" when absent)."""
    for rec in read_records(path):
        return str(rec.get("agentId") or "")
    return ""


def scan(root: Optional[Path] = None, since: Optional[float] = None,
         refused: Optional[list] = None, planned: Optional[Mapping[str, str]] = None) -> list[AgentFile]:
    """Every subagent transcript under ``root`` (both layouts), skipping files last written before ``since``.

    A transcript name on anything but a regular file (a named pipe, a link, a device; found by lstat, never
    opened, as opening a pipe waits for a writer forever) is skipped, and ``refused`` receives
    (path, what it is). ``planned``: the prompts the runs planned (each mapped to itself); a transcript whose
    prompt is one of them holds the plan's string instead of its own copy (an arm's or judge's prompt is
    kilobytes: for 3,000 cells and 2,000 judges the copies held 8 MB beside the plan's)."""
    root = root if root is not None else projects_dir()
    out: list[AgentFile] = []
    planned = planned if planned is not None else {}
    relays: dict[str, str] = {}  # every agent of a workflow is relayed the same request: held once
    if not root.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        here = Path(dirpath)
        in_subagents = here.name == "subagents" or (here.parent.name == "workflows" and here.parent.parent.name == "subagents")
        if not in_subagents:
            continue
        for name in sorted(filenames):
            if not (name.startswith("agent-") and name.endswith(".jsonl")):
                continue
            path = here / name
            what = not_regular(path)
            if what is not None:
                if refused is not None and what != "missing":
                    refused.append((path, what))
                continue
            try:
                if since is not None and path.lstat().st_mtime < since:
                    continue
            except OSError:
                continue
            prompt, started, relayed = _first_prompt(path)
            out.append(AgentFile(path=path, agent_id=name[len("agent-"):-len(".jsonl")],
                                 prompt=planned.get(prompt, prompt), started=started,
                                 relayed=relays.setdefault(relayed, relayed)))
    return out


_WORD = re.compile(r"(?<=/)[A-Za-z0-9_.-]+")  # a word a slash comes before: where a marker's last part starts
_TAIL = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*\Z")


_PATH_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_/.-")


def _marker_pattern(marker: str) -> re.Pattern:
    return re.compile(re.escape(marker) + r"(?![A-Za-z0-9_/.-]*[A-Za-z0-9_-])")


def holds_marker(text: str, marker: str) -> bool:
    """``_marker_pattern(marker).search(text)`` without compiling a pattern per marker (a collect looks up
    each cell's world once: a compile each was a twentieth of a first collect at 3,000 cells): an occurrence
    counts when the path characters right after it are only slashes and dots (it is no prefix of a longer
    path or token)."""
    start = text.find(marker)
    while start >= 0:
        i = start + len(marker)
        while i < len(text) and text[i] in _PATH_CHARS:
            if text[i] not in "/.":
                break
            i += 1
        else:
            return True  # the path ends here (only slashes and dots after the marker)
        start = text.find(marker, start + 1)
    return False


@frozen
class Index:
    """Every transcript of one scan, looked up by agent id, by a marker in its prompt (a world path) or by
    its ``Packet id:`` line. Built once per collect: a lookup costs the files that hold the marker's last
    word, not every file."""

    files: tuple[AgentFile, ...]
    by_id: PathsById = field(factory=PathsById)
    _by_word: dict[str, list[AgentFile]] = field(factory=dict, init=False, repr=False, eq=False)

    @classmethod
    def build(cls, files: Iterable[AgentFile]) -> "Index":
        files = tuple(files)
        return cls(files=files, by_id=PathsById((f.agent_id, f.where) for f in files))

    def _words(self) -> dict[str, list[AgentFile]]:
        """word -> the files whose prompt holds it as a whole word right after a slash (trailing dots dropped),
        built once. Only the words a slash comes before: a marker's last part is looked up here only when a slash
        comes before it in the marker, so in any prompt holding the marker too; indexing every word of every
        prompt held 2 MB at 3,000 cells."""
        if not self._by_word and self.files:
            for f in self.files:
                for word in {w.rstrip(".") for w in _WORD.findall(f.prompt)}:
                    self._by_word.setdefault(word, []).append(f)
        return self._by_word

    def with_marker(self, marker: str) -> list[AgentFile]:
        """Files whose prompt holds ``marker`` as a whole path or token (not as a prefix of a longer one)."""
        tail = marker.rsplit("/", 1)[-1]
        if "/" in marker and _TAIL.match(tail) and not tail.endswith("."):
            # The marker's last part starts a word (a slash comes before it), and a whole-token occurrence
            # ends that word (only dots or slashes may follow), so the files holding it are the only candidates.
            cands = self._words().get(tail, [])
        else:
            cands = self.files
        return [f for f in cands if holds_marker(f.prompt, marker)]

    def packet_refs(self) -> dict[str, list[AgentFile]]:
        out: dict[str, list[AgentFile]] = {}
        for f in self.files:
            m = _PACKET_LINE.search(f.prompt)
            if m:
                out.setdefault(m.group(1), []).append(f)
        return out


# --------------------------------------------------------------------------- one transcript
