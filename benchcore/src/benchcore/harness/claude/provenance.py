"""Whether a transcript is an agent the orchestrating session launched: its journals and Agent results, read once.

Claude Code 2.1.328 exports ``CLAUDE_CODE_SESSION_ID`` to every Bash command
it runs (measured on the real CLI: the same id as the session's
``<projects>/<project-slug>/<session-id>.jsonl``). ``plan`` and ``collect``
record it in plan.json ``sessions``. A transcript then counts for a cell or a
packet only when one of those sessions launched it: its agent id is in a
``started`` line of the session's Workflow journals
(``<session>/subagents/workflows/wf_<id>/journal.jsonl``) or in an Agent tool
result of the session's own transcript, the file sits where Claude Code wrote
that agent, and it started after its cell or packet was written and not after
collect's clock. An agent another agent launched is never in the session's
records: an arm's children are copied with the arm, they never stand for a
cell. With no session recorded (benchcore run by hand), provenance is unknown
and only the marker and the times decide, as collect.json says.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterable, Optional

from attrs import Factory, evolve, field, frozen

from ... import jsontext
from ..store.files import locked_run, not_regular, write_atomic
from ...judging import same_prompt
from ..store.planfile import read_plan, write_plan
from .transcript import ChildIds, record_at, records_at

SESSION_ENV = "CLAUDE_CODE_SESSION_ID"
# How far a transcript's first timestamp may run ahead of collect's clock (clocks of one machine, rounding).
CLOCK_SLACK = timedelta(seconds=120)
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")


def current_session() -> Optional[str]:
    """The Claude Code session running this command (its Bash tool exports the id), or None."""
    sid = os.environ.get(SESSION_ENV, "").strip()
    return sid if _SESSION_ID.match(sid) else None


def with_current(sessions: Iterable[str]) -> tuple[str, ...]:
    """``sessions`` and the current one (when there is one), in the order first seen."""
    now = current_session()
    return tuple(dict.fromkeys([*sessions, *([now] if now else [])]))


def now_utc() -> datetime:
    return datetime.now(timezone.utc)


def _when(stamp: str) -> Optional[datetime]:
    try:
        t = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


@frozen
class Launched:
    """Every agent the given sessions launched: agent id -> (session id, the folder Claude Code writes its
    transcript in: ``<folder>/agent-<id>.jsonl``). The folder's text is held once per session or Workflow, not a
    path per agent (thousands of agents)."""

    sessions: tuple[str, ...]
    agents: dict[str, tuple[str, str]]
    clock: datetime  # collect's own clock, read once: a transcript cannot start after it
    # agent id -> where the session recorded that agent's final answer: ((what to call the place, the file, whether
    # it is a Workflow journal), the line's offset in it). The Workflow journal's ``result`` line (text, or an object
    # for a schema answer), or the Agent tool's result content, read again from that line when asked for
    # (:meth:`recorded`): a user's answers are kilobytes, and holding every agent's from the session's records took
    # a collect's memory up with the cells (Claude Code only appends to those files, so the line stays where it was).
    answers: dict[str, tuple[tuple[str, str, bool], int]] = field(default=Factory(dict))

    @classmethod
    def read(cls, root: Path, sessions: Iterable[str], clock: Optional[datetime] = None) -> "Launched":
        """One pass over each session's main transcript and Workflow journals under ``root`` (projects)."""
        sessions = tuple(dict.fromkeys(sessions))
        agents: dict[str, tuple[str, str]] = {}
        answers: dict[str, tuple[tuple[str, str, bool], int]] = {}
        projects = sorted(p for p in root.iterdir() if p.is_dir()) if sessions and root.is_dir() else []
        for project in projects:
            for sid in sessions:
                sdir = project / sid
                main = project / f"{sid}.jsonl"
                if not_regular(main) is None:
                    # One record at a time: at thousands of cells the session's transcript, held whole, took
                    # more memory than the run's plan.
                    spawns, src = ChildIds(), (f"the Agent tool's result in {main}", str(main), False)
                    for at, record in records_at(main):
                        spawns.add(record)
                        if (done := _agent_result(record)) is not None:
                            answers[done[0]] = (src, at)
                    held = (sid, f"{sdir}/subagents")
                    for aid in spawns.ids():
                        agents.setdefault(aid, held)
                wf = sdir / "subagents" / "workflows"
                for journal in sorted(wf.glob("*/journal.jsonl")) if wf.is_dir() else ():
                    # Held per agent of thousands: the folder once for all its agents.
                    held, src = (sid, str(journal.parent)), (f"the Workflow journal's result in {journal}",
                                                             str(journal), True)
                    for at, rec in records_at(journal):
                        aid = rec.get("agentId")
                        if rec.get("type") == "started" and isinstance(aid, str):
                            agents.setdefault(aid, held)
                        elif rec.get("type") == "result" and isinstance(aid, str) and "result" in rec:
                            answers[aid] = (src, at)
        return cls(sessions=sessions, agents=agents, clock=clock or now_utc(), answers=answers)

    def recorded(self, agent_id: str) -> Optional[tuple[str, object]]:
        """(where, what) the launching session recorded as this agent's final answer, or None (no session
        known, or the agent has not ended in its records)."""
        hit = self.answers.get(agent_id) if self.sessions else None
        if hit is None:
            return None
        (where, path, journal), at = hit
        rec = record_at(path, at)
        if rec is None:
            return None
        if journal:
            if rec.get("type") == "result" and rec.get("agentId") == agent_id and "result" in rec:
                return where, _without_notes(rec["result"])
            return None
        done = _agent_result(rec)
        return (where, done[1]) if done is not None and done[0] == agent_id else None

    def answer_differs(self, agent_id: str, final: str) -> Optional[str]:
        """Why ``final`` (an arm's final message as its transcript holds it) is not what the session recorded
        for that agent, or None (the same text, whitespace aside, or nothing recorded to compare with)."""
        hit = self.recorded(agent_id)
        if hit is None or not isinstance(hit[1], str):
            return None
        where, said = hit
        if " ".join(said.split()) == " ".join(final.split()):
            return None
        return (f"its transcript's final answer is not what Claude Code recorded for agent {agent_id} ({where}): "
                f"the transcript says {_cut(final)!r}, the session's record {_cut(said)!r}")

    def why_not(self, path: Path, agent_id: str, started: str, sessions: tuple[str, ...],
                written_at: str) -> Optional[str]:
        """Why the transcript at ``path`` is not an agent one of ``sessions`` launched after ``written_at``
        (its cell's or packet's time), or None. With no session, only the clock is checked."""
        t = _when(started)
        if t is not None and t > self.clock + CLOCK_SLACK:
            return (f"it claims to start at {started}, after collect's clock "
                    f"({self.clock.isoformat(timespec='seconds').replace('+00:00', 'Z')})")
        if not sessions:
            return None
        hit = self.agents.get(agent_id)
        if hit is None or hit[0] not in sessions:
            return (f"no session that ran plan or collect for this run ({', '.join(sessions)}) launched it: its "
                    f"agent id is in none of their Workflow journals or Agent results")
        expected = f"{hit[1]}/agent-{agent_id}.jsonl"
        if os.path.normpath(path) != os.path.normpath(expected):
            return f"it is not where Claude Code wrote that session's agent {agent_id} ({expected})"
        w = _when(written_at)
        if t is None or (w is not None and t < w):
            return f"it started ({started or 'no time'}) before its cell or packet was written ({written_at})"
        return None


def _cut(text: str, n: int = 80) -> str:
    flat = " ".join(text.split())
    return flat[:n] + ("..." if len(flat) > n else "")


# When an agent called some tools (seen on 2.1.328 for an arm whose Agent call the guard refused), Claude Code
# puts a text block of its own before the agent's final text in the Agent tool's result.
_TOOLS_NOTE = re.compile(r"\s*<tools-used-before-summary>[^<]*</tools-used-before-summary>\s*")
# In auto mode Claude Code puts a paragraph of its own before a Workflow agent's result in the journal when its
# safety classifier did not review the agent's work (seen on 2.1.328: "Note: claude-opus-5-5 (the safety
# classifier) was unavailable when reviewing this subagent's work. Please carefully verify ..."): not the agent's.
_CLASSIFIER_NOTE = re.compile(r"\s*Note: [^\n]*\(the safety classifier\)[^\n]*\n\n")


def _without_notes(result):
    """A journal result without the paragraph Claude Code's auto mode may put before the agent's own text."""
    if isinstance(result, str) and (m := _CLASSIFIER_NOTE.match(result)) and result[m.end():].strip():
        return result[m.end():]
    return result


def _agent_result(r: dict) -> Optional[tuple[str, str]]:
    """(agent id, final text) when ``r`` ends an Agent tool call in this transcript: ``toolUseResult`` of a
    completed synchronous spawn holds the agent's id and its final text (``content``)."""
    tur = r.get("toolUseResult")
    if r.get("type") != "user" or not isinstance(tur, dict) or tur.get("status") != "completed":
        return None
    aid, content = tur.get("agentId"), tur.get("content")
    if not (isinstance(aid, str) and isinstance(content, list)):
        return None
    texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    if len(texts) > 1 and _TOOLS_NOTE.fullmatch(texts[0]):
        texts = texts[1:]  # Claude Code's own note before the answer, not the agent's text
    return aid, "\n".join(t for t in texts if t)


def record_session(run_dir: Path, plan=None):
    """Add the session running this collect to the run's plan.json ``sessions`` (``plan``: the plan as read
    already, so collect reads plan.json once); the plan with it."""
    plan = read_plan(run_dir) if plan is None else plan
    sessions = with_current(plan.sessions)
    if sessions != tuple(plan.sessions):
        plan, before = evolve(plan, sessions=sessions), plan
        write_plan(run_dir, plan, before)
    return plan


def mark_cleaned(run_dir: Path) -> None:
    """Record in plan.json when benchcore clean first removed the run's worlds and skill copies (under the
    run's collect lock: a collect running meanwhile would write its own plan.json over it)."""
    with locked_run(run_dir):
        plan = read_plan(run_dir)
        if not plan.cleaned_at:
            write_plan(run_dir, evolve(plan, cleaned_at=now_utc().isoformat(timespec="milliseconds")
                                       .replace("+00:00", "Z")))


def sift(run, key: str, cands: list, written_at: str, children=lambda af: ()) -> list:
    """The candidates for cell or packet ``key`` that its run's sessions launched, with the agents those
    launched (``children``: kept for the nesting rules, which never let a child stand for a cell); every
    other one is named in ``run.refused`` (key, path, why)."""
    sessions = tuple(run.plan.sessions)
    why = {af.agent_id: run.launched.why_not(af.path, af.agent_id, af.started, sessions, written_at) for af in cands}
    kids = {k for af in cands if why[af.agent_id] is None for k in children(af)}
    out = []
    for af in cands:
        if why[af.agent_id] is None or af.agent_id in kids:
            out.append(af)
        elif (key, af.where, why[af.agent_id]) not in run.refused:
            run.refused.append((key, af.where, why[af.agent_id]))
    return out


def rival(pick, own: list, prompt: str, done, children=lambda af: ()) -> Optional[object]:
    """Another finished candidate whose task is also ``prompt`` (not one the others launched), or None: two
    finished transcripts for one cell or packet are never settled by choosing one."""
    kids = {k for c in own for k in children(c)}
    for c in own:
        if c is not pick and c.agent_id not in kids and same_prompt(prompt, c.prompt) and done(c):
            return c
    return None




def twins(own: list, prompt: str, done, children=lambda af: ()) -> list:
    """The finished candidates whose task is ``prompt`` (none an agent the others launched), first to start
    first: with the run's sessions known, each one is an agent they launched for this cell (a fan-out launched
    twice), so one counts and the others are ignored duplicates, not rivals."""
    kids = {k for c in own for k in children(c)}
    return sorted((c for c in own if c.agent_id not in kids and same_prompt(prompt, c.prompt) and done(c)),
                  key=lambda c: (c.started, c.where))


def refused_whys(t) -> tuple[str, ...]:
    """For each tool call Claude Code refused in transcript ``t``, the line the report shows (few, short)."""
    out = []
    for call in t.refused_calls():
        shown = " ".join(str(call.input.get("command") or call.input.get("file_path") or "").split())
        out.append(f"Claude Code refused its {call.name} call: {shown[:120] + ('...' if len(shown) > 120 else '')}")
    return tuple(out)


def refusals(run, found: dict) -> dict[tuple[str, int], list[dict]]:
    """(case, trial) -> what was refused for it: transcripts no session of the run launched (cell, path, why),
    and the arms' tool calls Claude Code refused (cell, the call)."""
    cells = run.plan.cell_map()
    out: dict[tuple[str, int], list[dict]] = {}
    for key, path, why in run.refused:
        if key in cells:
            out.setdefault((cells[key].case, cells[key].trial), []).append({"cell": key, "path": path, "why": why})
    for cid, t in found.items():
        if cid not in cells:
            continue
        # A collected transcript (collect's KeptTranscript) kept these when it was read: not read again.
        for why in (t.refused_whys() if hasattr(t, "refused_whys") else refused_whys(t)):
            out.setdefault((cells[cid].case, cells[cid].trial), []).append({"cell": cid, "why": why})
    return out


def write_refusals(run, found: dict) -> None:
    """``t<N>/refused.json`` for every trial something was refused for (the report's trial details show it)."""
    table = refusals(run, found)
    run.refused_calls = [(e["cell"], e["why"]) for t in sorted(table) for e in table[t] if "path" not in e]
    for case, trial in {(c.case, c.trial) for c in run.plan.cells}:
        path = run.tdir(case, trial) / "refused.json"
        if (case, trial) in table:
            text = jsontext.dumps(table[(case, trial)], 1, ascii=True) + "\n"
            if not (path.is_file() and path.read_text(encoding="utf-8") == text):
                write_atomic(path, text)
        elif path.is_file():
            path.unlink()


def state(sessions: tuple[str, ...]) -> str:
    """collect.json's ``provenance``: which sessions' launches were checked, or that none was known."""
    return ("checked: launched by session " + ", ".join(sessions)) if sessions else \
        "unknown: no Claude Code session id was recorded for this run (benchcore run by hand)"
