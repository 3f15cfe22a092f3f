"""Collect stages 5 and 6, the judges: each answer from its judge's transcript, <comparison>.json, escalation."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Optional

from attrs import evolve

from ... import serde
from ...model import ComparisonRecord, Judgment
from ..claude import projects
from ..claude.transcript import Transcript, journal_result, load
from .duplicates import ignore
from .packets import add_confirmation, add_packet, confirm_id
from .state import RunState, write_bytes_if_changed, write_if_changed
from ..store.files import read_text, write_atomic
from ...judging import AnswerError, parse_text, same_prompt, to_judgment
from ..store.planfile import Packet
from ..runs.folder import read_run_by_case


class _Unfinished(Exception):
    """A judge transcript with no answer yet."""


def _after(started: str, written_at: str) -> bool:
    """A transcript that started at ``started`` started at or after ``written_at`` (both ISO, UTC)."""
    try:
        a = datetime.fromisoformat(started.replace("Z", "+00:00"))
        b = datetime.fromisoformat(written_at.replace("Z", "+00:00"))
    except ValueError:
        return False
    return a >= b


def _not_its_judge(run: RunState, af: projects.AgentFile, packet: Packet) -> Optional[str]:
    """Why a transcript that names the packet is not its judge, or None. A judge's answer counts only
    from a transcript whose task is the planned judge prompt (as Claude Code delivers it), that started
    after the packet was written, and that no arm launched."""
    if af.agent_id in run.arm_agents:
        return "it was launched by an arm"
    if not same_prompt(packet.prompt, af.prompt):
        return "its prompt is not the planned judge prompt"
    if not _after(af.started, packet.written_at):
        return (f"it started ({af.started or 'no time'}) before its packet was written ({packet.written_at})")
    return run.launched.why_not(af.path, af.agent_id, af.started, tuple(run.plan.sessions), packet.written_at)


def read_answers(run: RunState, packets: dict[str, Packet]
                 ) -> tuple[dict[str, Judgment], dict[str, str], dict[str, str]]:
    """(packet id -> judgment, packet id -> why its answer is invalid, packet id -> why transcripts that
    claim it were ignored)."""
    answers: dict[str, Judgment] = {}
    bad: dict[str, str] = {}
    ignored: dict[str, str] = {}
    for pid, packet in packets.items():
        cands = run.packet_files.get(packet.ref, [])
        errors = []
        skipped = []
        valid = []
        for af in sorted(cands, key=lambda c: (c.started, c.where), reverse=True):
            why = _not_its_judge(run, af, packet)
            if why is not None:
                skipped.append(f"{af.path.name}: {why}")
                continue
            t = load(af.path, af.agent_id, run.index)
            try:
                answer = _answer(run, t, af, pid)
                rewritten = run.first_read.changed(af.path, t.raw, pid)
                if rewritten is not None:
                    raise AnswerError(rewritten)
                valid.append((af, t, answer))
            except AnswerError as err:
                errors.append(f"{err} ({af.path})")
                run.invalid_answers.setdefault(pid, []).append(af.where)
            except _Unfinished:
                continue
        if len(valid) > 1 and run.plan.sessions:
            # Every one is a judge this run's sessions launched for this packet, each a fresh agent with the
            # planned prompt (a fan-out launched twice, a command typed while one ran): the first to start
            # counts, whatever it answered, and the others are named as ignored (their cost is kept).
            first = valid[-1]
            for af, t, _ in valid[:-1]:
                ignore(run, pid, packet.case, packet.trial, af.path, af.agent_id,
                       f"a second judge this session launched answered it (a fan-out launched twice?); the first "
                       f"to start counts: {first[0].path.name}", t.children)
            valid = [first]
        if len(valid) > 1:  # provenance unknown (no session recorded): two judges, neither is chosen
            errors.insert(0, f"two judges answered it: {valid[0][0].path} and {valid[1][0].path}")
            run.invalid_answers.setdefault(pid, []).extend(v[0].where for v in valid)
        elif valid:
            af, t, answer = valid[0]
            models = sorted(t.models())
            answers[pid] = evolve(answer, model=", ".join(models) if models else None)
            # The judge's transcript is kept with the run: its usage is the judges' cost row.
            write_bytes_if_changed(run.judge_transcript(packet), t.raw)
        if skipped:
            ignored[pid] = "; ".join(skipped)
        if pid not in answers and errors:
            bad[pid] = errors[0]
        if pid not in answers and not cands:
            # The judge's transcript is gone (cleaned up, another machine): its recorded judgment stands.
            kept = _recorded(run, packet)
            if kept is not None:
                answers[pid] = kept
    return answers, bad, ignored


def _answer(run: RunState, t: Transcript, af: projects.AgentFile, pid: str) -> Judgment:
    """The judgment in a judge's transcript: its StructuredOutput call, else the workflow journal's
    result, else its final message as JSON. A judge that used any other tool is re-asked: it answers
    from its prompt alone."""
    used = sorted({c.name for c in t.tool_calls() if c.name != "StructuredOutput"})
    if used:
        raise AnswerError(f"the judge used the tool{'s' if len(used) > 1 else ''} {', '.join(used)}; a judge "
                          f"answers from its prompt alone")
    outputs = t.structured_outputs()
    if len({json.dumps(o, sort_keys=True) for o in outputs}) > 1:
        raise AnswerError(f"the judge gave {len(outputs)} different StructuredOutput answers, not one")
    data = outputs[-1] if outputs else journal_result(af.path, af.agent_id)
    if isinstance(data, str):
        data = parse_text(data)
    if data is None:
        final = t.final_message()
        if final is None:
            raise _Unfinished()
        data = parse_text(final)
    judgment = to_judgment(data, pid, run.plan.run_id)
    differs = _differs_from_record(run, t, af, pid, judgment)
    if differs is not None:
        raise AnswerError(differs)
    return judgment


def _judgment_in(said, pid: str, run_id: str) -> Optional[Judgment]:
    try:
        return to_judgment(parse_text(said) if isinstance(said, str) else said, pid, run_id)
    except AnswerError:
        return None


def _differs_from_record(run: RunState, t: Transcript, af: projects.AgentFile, pid: str,
                         judgment: Judgment) -> Optional[str]:
    """Why the judge's transcript does not hold what the session recorded for that agent (the Agent tool's
    result, the Workflow journal's result), or None: the answer collect took, and the transcript's own final
    message when it holds a verdict, must both be the recorded one (nothing recorded: nothing to compare)."""
    hit = run.launched.recorded(af.agent_id)
    recorded = _judgment_in(hit[1], pid, run.plan.run_id) if hit is not None else None
    where = hit[0] if hit is not None else ""
    if recorded is None:
        said = journal_result(af.path, af.agent_id)
        recorded = _judgment_in(said, pid, run.plan.run_id) if said is not None else None
        where = f"the Workflow journal's result beside {af.path.name}"
    if recorded is None:
        return None
    final = t.final_message()
    for j in (judgment, _judgment_in(final, pid, run.plan.run_id) if final is not None else None):
        if j is not None and (j.verdict, j.strength) != (recorded.verdict, recorded.strength):
            return (f"its transcript answers {j.verdict} ({j.strength or 'no strength'}), but Claude Code "
                    f"recorded {recorded.verdict} ({recorded.strength or 'no strength'}) for agent {af.agent_id} "
                    f"({where})")
    return None


def _recorded(run: RunState, packet: Packet) -> Optional[Judgment]:
    path = run.tdir(packet.case, packet.trial) / f"{packet.comparison}.json"
    if not path.is_file():
        return None
    record = serde.loads(ComparisonRecord, read_text(path), source=str(path))
    if dict(record.order) != run.plan.orders.get(packet.id.split("#", 1)[0]):
        return None
    if record.outputs_sha256 is not None and record.outputs_sha256 != packet.outputs_sha256:
        return None
    n = packet.round - 1
    if packet.round > 1 and len(record.judgments) < 3:
        return None
    held = record.confirmations if packet.id.endswith("c") else record.judgments
    return held[n] if n < len(held) else None


def write_judgments(run: RunState, packets: dict[str, Packet], answers: dict[str, Judgment]) -> None:
    for pid, packet in packets.items():
        if packet.round != 1 or "#" in pid:  # panel rounds and confirmations go into their first's record
            continue
        first = answers.get(pid)
        if first is None:
            continue
        panel = [answers.get(f"{pid}#2"), answers.get(f"{pid}#3")]
        judgments = (first, *panel) if all(panel) else (first,)
        ids = (pid, f"{pid}#2", f"{pid}#3")[:len(judgments)]
        confirmations = tuple(answers.get(confirm_id(i)) for i in ids) if run.info.confirm_judgments else ()
        order = run.plan.orders[pid]
        record = ComparisonRecord(order=order, judgments=judgments,
                                  outputs_sha256=dict(packet.outputs_sha256) or None,
                                  confirmations=confirmations if any(confirmations) else ())
        write_if_changed(run.tdir(packet.case, packet.trial) / f"{packet.comparison}.json", serde.dumps(record))


def confirm(run: RunState, packets: dict[str, Packet], answers: dict[str, Judgment]) -> int:
    """With confirm_judgments, a swapped second reading for every decisive judgment that has none yet; how
    many packets that adds."""
    if not run.info.confirm_judgments:
        return 0
    before = len(packets)
    for pid, judgment in list(answers.items()):
        if pid.endswith("c") or judgment.verdict == "TIE" or pid not in packets:
            continue
        add_confirmation(run, packets, pid)
    return len(packets) - before


def escalate(run: RunState, packets: dict[str, Packet]) -> list[str]:
    from ...results import escalations

    named = []
    # Case by case (the rule is per case), the verdicts only: what the transcripts spent is not asked.
    escs = [esc for part in read_run_by_case(run.run_dir, usage_too=False) for esc in escalations(part)]
    for esc in escs:
        named.append(f"{esc.case}/{esc.comparison}")
        for trial in esc.trials:
            for round_ in (2, 3):
                add_packet(run, packets, esc.case, trial, esc.comparison, round_)
    return named


MAX_JUDGE_ASKS = 3  # a packet is asked at most this often: the first time and two re-asks, as an arm cell


def give_up_judges(run: RunState, packets: dict[str, Packet], bad: dict[str, str]) -> list[tuple[str, str]]:
    """Packets whose judges answered invalidly MAX_JUDGE_ASKS times: recorded in run.json ``not_run`` (never
    asked again; the comparison's trial is left unjudged, so its axis is incomplete and says why), each
    packet's invalid answers kept in plan.json. Returns (packet id, why) for every packet given up."""
    out = []
    for pid in bad:
        packet = packets[pid]
        seen = tuple(dict.fromkeys([*packet.invalid_answers, *run.invalid_answers.get(pid, ())]))
        packets[pid] = evolve(packet, invalid_answers=seen)
        if len(seen) >= MAX_JUDGE_ASKS and pid not in run.info.not_run:
            why = f"its judges answered invalidly {len(seen)} times (given up; the last: {bad[pid][:200]})"
            run.info = evolve(run.info, not_run={**run.info.not_run, pid: why})
            write_atomic(run.run_dir / "run.json", serde.dumps(run.info))
    for pid, why in run.info.not_run.items():
        if pid in packets and packets[pid].invalid_answers and why.startswith("its judges answered invalidly"):
            out.append((pid, why))
    return out
