"""One transcript read from disk: its records, with those of the subagents it launched, and what they say.

From Claude Code's records: the tool calls and their results, the models that
answered, the final message. Finding the files is :mod:`benchcore.harness.claude.projects`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Optional, Protocol

from attrs import field, frozen

from ...errors import BenchError
from ...usage.lines import loads_line
from ..store.files import not_regular, open_regular, read_regular_bytes
from ..store.regular import open_regular_fd


class AgentPaths(Protocol):
    """What :func:`load` needs of an index (``projects.Index`` is one): each agent id's transcript path."""
    by_id: Mapping[str, Path]

SYNTHETIC = "<synthetic>"
# How Claude Code 2.1.328 refuses one part of a compound Bash command in headless default mode (measured):
# "This Bash command contains multiple operations. The following part requires approval: python3 -".
REQUIRES_APPROVAL = "requires approval"
_AGENT_ID_LINE = re.compile(r"agentId:\s*([A-Za-z0-9_-]+)")


def _lines(data: bytes) -> Iterator[bytes]:
    """The non-empty runs of ``data`` between line breaks (``\\n`` or ``\\r``: what ``splitlines`` gives), one at
    a time: a transcript line is long and there are few, so a ``find`` per line runs at memory speed where a
    regular expression stepping through every byte took longer than parsing the JSON."""
    start, end = 0, len(data)
    while start < end:
        stop = data.find(b"\n", start)
        stop = end if stop < 0 else stop
        if stop > start:
            line = data[start:stop]
            if b"\r" in line:
                yield from (part for part in line.split(b"\r") if part)
            else:
                yield line
        start = stop + 1


try:
    from msgspec import MsgspecError as _FastError
    from msgspec.json import decode as _fast_decode
except ImportError:  # not installed (it is a dependency; a Python without it still reads every line, as json does)
    _fast_decode = None
    _FastError = ValueError


def _fast_record(raw: str | bytes) -> Optional[dict]:
    """A line as msgspec's JSON decoder reads it, when it reads it: 2.2x json's C scanner on transcripts full
    of tool output, the most of a first collect's time. Where msgspec succeeds its value equals json.loads' to
    the type (integers of any size stay exact, floats are correctly rounded, the last of repeated keys wins);
    what it refuses and json accepts (NaN, a lone surrogate, 1e400, bytes json reads as UTF-16, bytes with
    encoded surrogates) is read by json, so which lines are records, and what they hold, is as before.
    None: not read here (json reads it)."""
    if _fast_decode is None:
        return None
    try:
        rec = _fast_decode(raw)
    except (_FastError, ValueError, RecursionError):
        return None
    return rec if isinstance(rec, dict) else None


def record_of(raw: str | bytes) -> Optional[dict]:
    """One transcript line as a record; None for a blank, malformed or truncated line, or one that is not an
    object (such lines are skipped, never fatal)."""
    if not raw.strip():
        return None
    rec = _fast_record(raw)
    if rec is None:
        try:
            # A record starts with '{': json's C scanner on it directly (usage.lines.loads_line), without the
            # steps json.loads adds for any input (7% of parsing a transcript); anything else as json.loads reads it.
            opens = raw[:1] == (b"{" if isinstance(raw, bytes) else "{")
            rec = loads_line(raw) if opens else json.loads(raw)
        except ValueError:
            return None
    return rec if isinstance(rec, dict) else None


def text_of(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def read_records(path: Path) -> Iterator[dict]:
    """The readable records of a transcript; malformed or truncated lines are skipped."""
    for _, rec in records_at(path):
        yield rec


def records_at(path: Path | str) -> Iterator[tuple[int, dict]]:
    """:func:`read_records`, each record with the offset of its line in the file (for :func:`record_at`)."""
    try:
        with open_regular(path) as fh:
            at = 0
            for raw in fh:
                if (rec := record_of(raw)) is not None:
                    yield at, rec
                at += len(raw)
    except (OSError, BenchError):  # gone, unreadable, or not a regular file: no records
        return


def record_at(path: Path | str, at: int) -> Optional[dict]:
    """The record on the line that starts at offset ``at`` of ``path`` (None when it is gone or no record)."""
    try:
        fd = open_regular_fd(path)
    except (OSError, BenchError):
        return None
    try:
        parts, step = [], 1 << 16
        while True:
            chunk = os.pread(fd, step, at)
            end = chunk.find(b"\n")
            parts.append(chunk if end < 0 else chunk[:end])
            if end >= 0 or len(chunk) < step:
                break
            at += step
    except OSError:
        return None
    finally:
        os.close(fd)
    return record_of(b"".join(parts))


@frozen
class ToolUse:
    name: str
    input: dict
    agent_id: str


# How Claude Code words a tool call it did not run (measured on the real CLI: docs/internals.md): a refused call is still a
# tool_use in the transcript, with an is_error result, but some results carry no flag.
REFUSALS = ("requested permissions to", "but you haven't granted it yet", "This command requires approval",
            "Permission to use", "was blocked", "The user doesn't want to proceed",
            "denied by your permission settings")


@frozen
class ToolCall:
    """A tool call and what came back: ``ok`` when it ran (a result, not an error, not a refusal)."""

    name: str
    input: dict
    agent_id: str
    id: str
    result: str  # the tool_result's text ("" when none came back)
    ok: bool
    refused: bool
    error: bool = False  # the result was flagged is_error (or none came back)


def _result_text(block: dict, rec: dict) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


@frozen
class Transcript:
    """A cell's transcript: its own records, then those of the subagents it launched (recursively)."""

    main_id: str
    records: tuple[dict, ...]
    children: tuple[str, ...]  # agent ids of launched subagents found on disk
    raw: bytes = b""  # the main file's bytes as read, exactly: what collect copies into the run
    own_count: int = -1  # how many of ``records`` (the first ones) came from the main file; -1: not known
    children_raw: Mapping[str, bytes] = field(factory=dict, eq=False, repr=False)  # each child's bytes as read
    _memo: dict = field(factory=dict, init=False, eq=False, repr=False)  # tool_calls, final_message: once

    def main_file_records(self) -> tuple[dict, ...]:
        """The records read from the main file (its subagents' files aside)."""
        return self.records if self.own_count < 0 else self.records[:self.own_count]

    def own(self) -> Iterator[dict]:
        for r in self.records:
            if r.get("agentId", self.main_id) == self.main_id:
                yield r

    def blocks(self, role: str, kind: str) -> Iterator[tuple[dict, dict]]:
        """(record, content block) for every block of type ``kind`` in the ``role`` records ("assistant" for
        tool calls, "user" for tool results), in order."""
        for r in self.records:
            msg = r.get("message")
            if r.get("type") != role or not isinstance(msg, dict) or not isinstance(msg.get("content"), list):
                continue
            for b in msg["content"]:
                if isinstance(b, dict) and b.get("type") == kind:
                    yield r, b

    def tool_uses(self) -> list[ToolUse]:
        """Every tool call as asked for: :meth:`tool_calls` without what came back (one walk of the records)."""
        return [ToolUse(c.name, c.input, c.agent_id) for c in self.tool_calls()]

    def refused_calls(self) -> list[ToolCall]:
        """The tool calls Claude Code refused (denied, or one part of a compound Bash command needing approval)."""
        return [c for c in self.tool_calls() if c.refused or (c.error and REQUIRES_APPROVAL in c.result)]

    def tool_calls(self) -> list[ToolCall]:
        """Every tool call, each with its result: what the agent really saw, not only what it asked for
        (worked out once: collect asks for the refusals, the audit and the sandbox check)."""
        if "calls" not in self._memo:
            self._memo["calls"] = tuple(self._tool_calls())
        return list(self._memo["calls"])

    def _tool_calls(self) -> list[ToolCall]:
        # One walk of the records: the results (user records) by id, the calls (assistant records) in order.
        results: dict[str, tuple[str, bool]] = {}
        uses: list[tuple[dict, dict]] = []
        for r in self.records:
            kind = r.get("type")
            if kind != "user" and kind != "assistant":
                continue
            msg = r.get("message")
            if not isinstance(msg, dict) or not isinstance(msg.get("content"), list):
                continue
            for b in msg["content"]:
                if not isinstance(b, dict):
                    continue
                if kind == "user":
                    if b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str):
                        results[b["tool_use_id"]] = (_result_text(b, r), bool(b.get("is_error")))
                elif b.get("type") == "tool_use":
                    uses.append((r, b))
        out = []
        for r, b in uses:
            tid = str(b.get("id", ""))
            text, error = results.get(tid, ("", True))
            # Unflagged, a refusal is Claude Code's one sentence: looked for in a short result's first line only
            # (an Edit's snippet or a short read of a file holding "Permission to use" under a licence ran).
            said = text if error else (text.partition("\n")[0] if len(text) < 600 else "")
            refused = bool(said) and any(p in said for p in REFUSALS)  # no scan of long output
            out.append(ToolCall(name=str(b.get("name", "")),
                                input=b.get("input") if isinstance(b.get("input"), dict) else {},
                                agent_id=str(r.get("agentId", self.main_id)), id=tid, result=text,
                                ok=tid in results and not error and not refused, refused=refused,
                                error=error))
        return out

    def skill_loads(self) -> list[tuple[str, str]]:
        """(agent id, the skill body) of every skill Claude Code loaded into the conversation: the
        ``isMeta`` user record that follows a Skill call's result and names it in ``sourceToolUseID``."""
        skill_calls = {u.id for u in self.tool_calls() if u.name == "Skill"}
        out = []
        for r in self.records:
            msg = r.get("message")
            if r.get("type") == "user" and r.get("isMeta") and r.get("sourceToolUseID") and isinstance(msg, dict):
                text = text_of(msg.get("content"))
                if r["sourceToolUseID"] in skill_calls or "Base directory for this skill:" in text:
                    out.append((str(r.get("agentId", self.main_id)), text))
        return out

    def models(self) -> set[str]:
        out = set()
        for r in self.records:
            msg = r.get("message")
            if r.get("type") == "assistant" and isinstance(msg, dict):
                model = msg.get("model")
                if isinstance(model, str) and model and model != SYNTHETIC:
                    out.add(model)
        return out

    def final_message(self) -> Optional[str]:
        """The text of the agent's last API response, or None while it is unfinished (ends in a tool call);
        worked out once (collect asks for it when it picks a cell's transcript, then to keep it)."""
        if "final" not in self._memo:
            self._memo["final"] = self._final_message()
        return self._memo["final"]

    def _final_message(self) -> Optional[str]:
        # The last API response: the agent's own assistant records (synthetic ones aside) at the end that share
        # one message id, found from the end (a response's records are consecutive among them).
        last: list[dict] = []
        key = None
        for r in reversed(self.records):
            msg = r.get("message")
            if (r.get("agentId", self.main_id) != self.main_id or r.get("type") != "assistant"
                    or not isinstance(msg, dict) or msg.get("model") == SYNTHETIC):
                continue
            k = str(msg.get("id") or r.get("requestId") or r.get("uuid"))
            if key is not None and k != key:
                break
            key = k
            last.append(msg)
        if not last:
            return None
        last.reverse()
        blocks = [b for m in last for b in (m.get("content") if isinstance(m.get("content"), list) else [])
                  if isinstance(b, dict)]
        if any(b.get("type") == "tool_use" for b in blocks):
            return None
        texts = [b.get("text", "") for b in blocks if b.get("type") == "text"]
        text = "\n".join(t for t in texts if t)
        return text if text.strip() else None

    def structured_output(self) -> Optional[dict]:
        """The input of the agent's last StructuredOutput call (a Workflow ``schema`` answer), if any."""
        found = None
        for u in self.tool_calls():
            if u.name == "StructuredOutput" and u.agent_id == self.main_id:
                found = u.input
        return found

    def structured_outputs(self) -> list[dict]:
        """The inputs of the agent's StructuredOutput calls that were accepted (a rejected one is retried)."""
        return [c.input for c in self.tool_calls()
                if c.name == "StructuredOutput" and c.agent_id == self.main_id and not (c.error and c.result)]


_JOURNALS: dict[Path, tuple[tuple[int, int, int], dict]] = {}
_JOURNALS_KEPT = 8  # journals whose results stay read (one per workflow run: a collect reads a few)


def _journal_results(journal: Path) -> dict:
    """agent id -> the last result a workflow journal recorded for it, read once per version of the file
    (its inode, size and modification time), so the judges of one workflow cost one read, not one each."""
    try:
        st = journal.stat()
    except OSError:
        return {}
    version = (st.st_ino, st.st_size, st.st_mtime_ns)
    kept = _JOURNALS.get(journal)
    if kept is not None and kept[0] == version:
        return kept[1]
    results = {}
    for rec in read_records(journal):
        if rec.get("type") == "result" and isinstance(rec.get("agentId"), str):
            results[rec["agentId"]] = rec.get("result")
    while len(_JOURNALS) >= _JOURNALS_KEPT:
        _JOURNALS.pop(next(iter(_JOURNALS)))
    _JOURNALS[journal] = (version, results)
    return results


def journal_result(path: Path, agent_id: str):
    """What a workflow's ``journal.jsonl`` (beside a workflow agent's transcript) recorded as that
    agent's result (an object for a ``schema`` answer, else text), or None."""
    journal = path.parent / "journal.jsonl"
    if path.parent.parent.name != "workflows" or not_regular(journal) is not None:
        return None
    return _journal_results(journal).get(agent_id)


def _child_ids(records: Iterable[dict]) -> list[str]:
    """Agent ids of subagents launched through Task/Agent tool calls, from their tool results."""
    records = records if isinstance(records, (list, tuple)) else list(records)
    spawns = ChildIds()
    spawns.extend(r for r in records if r.get("type") == "assistant")  # the calls first: the same ids, in order
    if not spawns.launched:  # launched none (most arms): no results to read
        return []
    spawns.extend(r for r in records if r.get("type") == "user")
    return spawns.ids()


class ChildIds:
    """:func:`_child_ids` over records given one at a time, so a long transcript (a session's main one, with an
    Agent call and result per cell) is read without holding its records: of each record only its tool results'
    parts that name an agent are kept, and only until it is known whether their call launched one."""

    def __init__(self) -> None:
        self._spawns: set = set()  # the ids of the Task/Agent tool calls seen so far
        # In record order: the agent ids of a result whose call was seen (a list), or a result whose call was
        # not seen yet (its call id, toolUseResult, content), decided once every call is seen.
        self._results: list = []

    @property
    def launched(self) -> bool:
        """Whether a Task/Agent call was seen."""
        return bool(self._spawns)

    def add(self, r: dict) -> None:
        self.extend((r,))

    def extend(self, records: Iterable[dict]) -> None:
        spawns, results = self._spawns, self._results
        for r in records:
            msg = r.get("message")
            if not isinstance(msg, dict) or not isinstance(content := msg.get("content"), list):
                continue
            kind = r.get("type")
            if kind == "assistant":
                for b in content:
                    if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") in ("Task", "Agent"):
                        spawns.add(b.get("id"))
            elif kind == "user":
                for b in content:
                    if isinstance(b, dict) and b.get("type") == "tool_result":
                        call = b.get("tool_use_id")
                        if spawns and _launched(call, spawns):
                            results.append(_named(r.get("toolUseResult"), b.get("content")))
                        else:
                            results.append((call, r.get("toolUseResult"), b.get("content")))

    def ids(self) -> list[str]:
        out: list[str] = []
        if not self._spawns:  # launched none (most arms): no results to read
            return out
        for kept in self._results:
            if type(kept) is tuple:
                call, result, content = kept
                if not _launched(call, self._spawns):
                    continue
                kept = _named(result, content)
            for i in kept:
                if i not in out:
                    out.append(i)
        return out


def _launched(call, spawns: set) -> bool:
    """The result's call id is one of a Task/Agent call (an id that is not a string matches none)."""
    try:
        return call in spawns
    except TypeError:  # a list or an object where the id goes: not a call Claude Code made
        return False


def _named(result, content) -> list[str]:
    """The agent ids a Task/Agent call's result names: toolUseResult's agentId, then ``agentId:`` lines."""
    ids = []
    if isinstance(result, dict) and isinstance(result.get("agentId"), str):
        ids.append(result["agentId"])
    text = content if isinstance(content, str) else text_of(content)
    ids.extend(_AGENT_ID_LINE.findall(text))
    return ids


def load(path: Path, agent_id: str, index: AgentPaths) -> Transcript:
    """Read a transcript and, recursively, the transcripts of the subagents it launched."""
    records: list[dict] = []
    children: list[str] = []
    main_bytes = b""
    children_raw: dict[str, bytes] = {}
    own_count = -1
    seen = {agent_id}
    queue = [(agent_id, path)]
    while queue:
        aid, p = queue.pop(0)
        try:
            data = read_regular_bytes(p)
        except (OSError, BenchError):
            continue
        if aid == agent_id:
            main_bytes = data
        else:
            children_raw[aid] = data
        recs = []
        fast = _fast_decode
        for line in _lines(data):  # one at a time (no list of copies)
            try:  # record_of, with its commonest case inline (50,000 lines in a first collect of 400 MB)
                rec = fast(line) if fast is not None else record_of(line)
            except (_FastError, ValueError, RecursionError):
                rec = record_of(line)
            if isinstance(rec, dict):
                rec.setdefault("agentId", aid)
                recs.append(rec)
        records.extend(recs)
        if aid == agent_id:
            own_count = len(records)
        for child in _child_ids(recs):
            if child in seen or child not in index.by_id:
                continue
            seen.add(child)
            children.append(child)
            queue.append((child, index.by_id[child]))
    return Transcript(main_id=agent_id, records=tuple(records), children=tuple(children),
                      raw=main_bytes, own_count=own_count, children_raw=children_raw)


def meta_path(transcript: Path) -> Path:
    """Claude Code's ``agent-<id>.meta.json`` beside ``agent-<id>.jsonl``."""
    return Path(transcript).with_name(Path(transcript).name.removesuffix(".jsonl") + ".meta.json")


def agent_type(meta: Path) -> Optional[str]:
    """The ``agentType`` a subagent ran as, from its meta file (None when absent or unreadable)."""
    try:
        data = json.loads(Path(meta).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get("agentType") if isinstance(data, dict) else None
    return value if isinstance(value, str) and value else None
