"""benchcore collect <run-dir>... [--rerun]: transcripts -> outputs, usage, assertions, packets, judgments.

Run it after the arm subagents and again after the judges; it is safe to run
any number of times (each file is rewritten only when its content changes).
Per run directory:

1. Find each cell's subagent transcript under ``$CLAUDE_CONFIG_DIR/projects``
   (both layouts) by the world path in its prompt; copy it, with the
   transcripts of subagents the arm launched (``subagents/agent-<id>.jsonl``);
   write the arm's final message to ``output.md``.
2. When a trial's cells are all in: audit them (``audit.json``; an invalid
   trial is not judged and must be re-run with ``--rerun``).
3. Run the new arm's hard assertions (``assertions.json``).
4. Write one blind judge packet per valid trial and comparison, except
   efficacy in a gated trial; list it in plan.json.
5. Read each judge's JSON answer from its transcript (found by the
   ``Packet id:`` line) and write ``<comparison>.json``; an invalid answer is
   named, and its packet goes back to the judges.
6. Name the split comparisons and add two more judge packets (``#2``, ``#3``)
   for each of their judged trials.
7. Write bound workflow scripts for what is still to run, and end with what is
   missing and the exact next step.

``--rerun`` plans every cell of an invalid trial and every cell whose transcript
stopped without a final message afresh (new world, new prompt), keeping the old
files under ``cases/<case>/t<N>/.invalid-<k>/``. A cell that no transcript
names yet has not run (the arms were not launched, or are still starting): it
is neither re-planned nor counted as an attempt, and the next step is to launch
it (or wait for the running launch).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Optional

from attrs import evolve, frozen

from .. import serde
from ..casefile import parse_case
from ..errors import BenchError
from ..model import Audit, AuditProblem, Case, ComparisonRecord, Judgment, RunInfo
from ..harness import assertions as hard
from ..estimate import JUDGES
from ..harness import costs, fanout, transcripts
from ..harness.audit import Fingerprints, audit_cell, distinctive_lines, guard_problems, prompt_problem
from ..harness.confine import read_log
from ..harness.files import locked_run, not_regular, read_regular_bytes, read_text, write_atomic
from ..harness.judging import AnswerError, draw_order, parse_text, same_prompt, to_judgment
from ..harness.planfile import Cell, Packet, Plan, agent_tool_model, read_plan, write_plan
from ..harness.prompts import Templates, find_skill_dir, redact, run_redactions
from ..harness.rundir import read_run, read_run_info
from ..harness.tree import fixture_path
from ..harness.worlds import is_temp_root, make_world, run_setup

MAX_ATTEMPTS = 3  # a cell is planned at most this often: the first time and two --rerun rounds
SCAN_SLACK = 600  # seconds before the plan time that a transcript file may date from
LIST_LIMIT = 8  # names printed per kind; the full lists are in <run>/collect.json


def add_arguments(p) -> None:
    p.add_argument("run_dirs", nargs="+", type=Path, metavar="run-dir", help="run directory (tests/.reports/runs/<id>)")
    p.add_argument("--rerun", action="store_true",
                   help="plan invalid trials and cells with no transcript afresh (new worlds) for another arms launch")
    p.add_argument("--assert-timeout", type=float, default=hard.DEFAULT_TIMEOUT,
                   help="seconds per hard assertion (default: %(default)g)")
    p.add_argument("--json", action="store_true", help="print a machine-readable status")


@frozen
class Status:
    run_dir: Path
    skill: str
    cells: int
    cells_in: int
    missing_cells: tuple[str, ...]
    invalid_trials: tuple[tuple[str, str], ...]  # (trial id, problems)
    gated: tuple[str, ...]
    packets: int
    pending_packets: tuple[str, ...]
    bad_answers: tuple[tuple[str, str], ...]  # (packet id, what is wrong)
    escalated: tuple[str, ...]  # "<case>/<comparison>"
    rerun: tuple[str, ...] = ()  # cells this call planned afresh
    to_rerun: tuple[str, ...] = ()  # cells that --rerun would plan afresh
    given_up: tuple[str, ...] = ()  # cells that need it but were planned MAX_ATTEMPTS times: left incomplete
    not_started: tuple[str, ...] = ()  # cells no transcript names yet: not run, not failed
    unfinished: tuple[str, ...] = ()  # cells whose transcript has no final message: still running or cut off
    not_run: tuple[tuple[str, str], ...] = ()  # (trial or packet id, why): never launched (the budget)
    unchecked: tuple[str, ...] = ()  # trials whose hard assertions could not run: their world is gone
    ignored_judges: tuple[tuple[str, str], ...] = ()  # (packet id, why transcripts naming it are not its judge)


def _write_if_changed(path: Path, text: str) -> bool:
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    write_atomic(path, text)
    return True


def _write_bytes_if_changed(path: Path, data: bytes) -> bool:
    """Copy a transcript byte for byte: bytes that are not UTF-8 stay the bytes Claude Code wrote."""
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    write_atomic(path, data)
    return True


def _flat(text: str) -> str:
    return " ".join(text.split())


def _pick_transcript(cands: list[transcripts.AgentFile], prompt: str,
                     done: Callable[[transcripts.AgentFile], bool],
                     children: Callable[[transcripts.AgentFile], tuple[str, ...]] = lambda af: (),
                     spawned: Callable[[transcripts.AgentFile], tuple[str, ...]] = lambda af: ()
                     ) -> Optional[transcripts.AgentFile]:
    """The planned subagent itself among the files carrying a cell's marker, never one it launched: a file
    another candidate launched (its agent id in that one's Agent results, or its prompt that one's Agent
    call, made before it started) is out, whatever its prompt. Then those whose task is the planned prompt,
    else those that hold it inside a wrapper, else the rest; finished before unfinished, newest last."""
    asked = {c.agent_id: {_flat(p) for p in spawned(c)} for c in cands}
    launched = {child for c in cands for child in children(c)}
    for c in cands:
        if any(o is not c and _flat(c.prompt) in asked[o.agent_id] and o.started <= c.started for o in cands):
            launched.add(c.agent_id)
    own = [c for c in cands if c.agent_id not in launched]
    flat = _flat(prompt)
    exact = [c for c in own if same_prompt(prompt, c.prompt)]
    wrapped = [c for c in own if flat in _flat(c.prompt)]
    pool = exact or wrapped or own
    if not pool:
        return None
    pool = sorted(pool, key=lambda c: (done(c), c.started, str(c.path)))
    return pool[-1]


class RunCollector:
    def __init__(self, run_dir: Path, index: transcripts.Index, packet_files: dict, templates: Templates,
                 assert_timeout: float):
        self.run_dir = run_dir
        self.plan: Plan = read_plan(run_dir)
        self.info: RunInfo = read_run_info(run_dir)
        self.index = index
        self.packet_files = packet_files
        self.templates = templates
        self.assert_timeout = assert_timeout
        self.received: dict[str, str] = {}  # cell id -> the first message its subagent got
        self.unfinished: set[str] = set()  # cell ids whose transcript exists but has no final message
        self._fingerprints: dict[str, Fingerprints] = {}
        self.arm_agents: set[str] = set()  # agent ids of arm transcripts and of every subagent they launched
        # The same replacements for every output, so no placeholder tells the arms apart.
        self.redactions = run_redactions([c.world for c in self.plan.cells], self.plan.skill_copies.values(),
                                         self.plan.temp_root)
        self.cases: dict[str, Case] = {}
        for cid in self.info.cases:
            path = run_dir / "cases" / cid / "case.md"
            self.cases[cid] = parse_case(read_text(path), str(path), cid)

    # ------------------------------------------------------------------ paths

    def tdir(self, case: str, trial: int) -> Path:
        return self.run_dir / "cases" / case / f"t{trial}"

    def judge_transcript(self, packet: Packet) -> Path:
        """Where a judge's transcript is kept: cases/<case>/t<N>/judges/<comparison>-<round>.jsonl."""
        return self.tdir(packet.case, packet.trial) / "judges" / f"{packet.comparison}-{packet.round}.jsonl"

    def ref(self, packet_id: str) -> str:
        return f"{self.plan.run_id}:{packet_id}"

    # ------------------------------------------------------------------ arms

    def collect_cells(self) -> tuple[dict[str, transcripts.Transcript], set[str]]:
        """cell id -> its finished transcript; and the ids whose copy changed in this call."""
        found: dict[str, transcripts.Transcript] = {}
        changed: set[str] = set()
        for cell in self.plan.cells:
            cands = self.index.with_marker(cell.world)
            loaded: dict[Path, transcripts.Transcript] = {}

            def get(af: transcripts.AgentFile) -> transcripts.Transcript:
                if af.path not in loaded:
                    loaded[af.path] = transcripts.load(af.path, af.agent_id, self.index)
                return loaded[af.path]

            for af in cands:  # every transcript naming a world is an arm's or one an arm launched: no judge
                self.arm_agents.add(af.agent_id)
                self.arm_agents.update(get(af).children)
            pick = _pick_transcript(cands, cell.prompt, lambda af: get(af).final_message() is not None,
                                    lambda af: get(af).children,
                                    lambda af: tuple(str(u.input.get("prompt", "")) for u in get(af).tool_uses()
                                                     if u.name in ("Agent", "Task") and u.agent_id == af.agent_id))
            cdir = self.tdir(cell.case, cell.trial) / cell.arm
            if pick is None:
                # Gone from Claude Code's folder (cleaned up, another machine): what was collected stands.
                kept = _collected(cdir)
                if kept is not None:
                    found[cell.id] = kept
                    self.received[cell.id] = transcripts.first_prompt(cdir / "transcript.jsonl")
                continue
            t = loaded.get(pick.path) or transcripts.load(pick.path, pick.agent_id, self.index)
            final = t.final_message()
            dirty = _write_bytes_if_changed(cdir / "transcript.jsonl", t.raw)
            meta = transcripts.meta_path(pick.path)
            if not_regular(meta) is None:
                _write_if_changed(cdir / "meta.json", read_text(meta))
            for child in t.children:
                try:
                    data = read_regular_bytes(self.index.by_id[child])
                except (OSError, BenchError):  # gone since the scan, or swapped for a pipe: not copied
                    continue
                dirty |= _write_bytes_if_changed(cdir / "subagents" / f"agent-{child}.jsonl", data)
            if final is None:
                self.unfinished.add(cell.id)  # still running or cut off: not collected yet
                continue
            dirty |= _write_if_changed(cdir / "output.md", final.rstrip("\n") + "\n")
            found[cell.id] = t
            self.received[cell.id] = pick.prompt
            if dirty:
                changed.add(cell.id)
        return found, changed

    def fingerprints(self, case_id: str) -> Fingerprints:
        """What an arm of this case must not see in a tool result (see harness/audit.py), from the skill
        copies (the repository's skill when a copy is gone), the case, the skill's other cases and the run
        folder; lines the arm may see (its prompt, its case's fixture) are left out."""
        if case_id in self._fingerprints:
            return self._fingerprints[case_id]
        repo = Path(self.plan.repo) if self.plan.repo else None
        case = self.cases[case_id]
        tests_dir = repo / ("tests/" + self.info.skill.path[len("skills/"):]) if repo else None
        allowed = [c.prompt for c in self.plan.cells if c.case == case_id]
        if tests_dir is not None and (tests_dir / case_id).is_dir():
            fixture = fixture_path(repo, tests_dir / case_id, case)
            allowed.extend(_texts(fixture) if fixture is not None and fixture.exists() else [])
        skill: dict[str, tuple[str, ...]] = {}
        skill_md: dict[str, tuple[str, ...]] = {}
        sources = dict(self.plan.skill_copies)
        for arm, copy in sources.items():
            folder = Path(copy)
            if not folder.is_dir() and arm == "new" and repo is not None:
                folder = repo / self.info.skill.path
            texts = _texts(folder)
            md = folder / "SKILL.md"
            skill_md[arm] = distinctive_lines(read_text(md), allowed) if md.is_file() else ()
            skill[arm] = tuple(dict.fromkeys(l for t in texts for l in distinctive_lines(t, allowed))) + \
                (self.info.skill.path + "/",)
        skill_text = "\n".join(l for ls in skill.values() for l in ls)
        own = [*case.soft_criteria, *(a.command for a in case.hard_assertions), f"description: {case.description}"]
        case_lines = tuple(l for l in distinctive_lines("\n".join(own), allowed) if l not in skill_text)
        tests: list[str] = []
        if tests_dir is not None and tests_dir.is_dir():
            rel = str(tests_dir.relative_to(repo))
            tests += [rel + "/", rel + ":"]
            for other in sorted(tests_dir.glob("*/case.md")):
                if other.parent.name != case_id:
                    tests += [l for l in distinctive_lines(read_text(other), allowed) if l not in skill_text]
        run = (f'"run_id": "{self.plan.run_id}"', '"cells_collected":', "const BOUND = {",
               f"# Judge packet {self.plan.run_id}:", "cells: the world path in the prompt; packets:",
               f".reports/runs/{self.plan.run_id}")
        fp = Fingerprints(skill=skill, skill_md=skill_md, case=case_lines, tests=tuple(dict.fromkeys(tests)), run=run)
        self._fingerprints[case_id] = fp
        return fp

    def audit(self, found: dict[str, transcripts.Transcript], changed: set[str] = frozenset()
              ) -> dict[tuple[str, int], list[dict]]:
        """(case, trial) -> problems, for every trial whose cells are all in; writes audit.json."""
        out: dict[tuple[str, int], list[dict]] = {}
        by_trial: dict[tuple[str, int], list[Cell]] = {}
        for cell in self.plan.cells:
            by_trial.setdefault((cell.case, cell.trial), []).append(cell)
        repo = self.plan.repo
        skill_rel = self.info.skill.path
        tests_rel = "tests/" + skill_rel[len("skills/"):]
        for key, cells in by_trial.items():
            if not all(c.id in found for c in cells):
                continue
            # Absolute and repository-relative: a subagent starts in the repository, so "cat tests/..." reads it.
            run_rel = os.path.relpath(self.run_dir, repo) if repo else str(self.run_dir)
            case_files = [f"{repo}/{tests_rel}/{key[0]}/case.md", str(self.run_dir / "cases" / key[0] / "case.md"),
                          f"{tests_rel}/{key[0]}/case.md", f"{run_rel}/cases/{key[0]}/case.md"]
            apath = self.tdir(*key) / "audit.json"
            if apath.is_file() and not any(c.id in changed for c in cells):
                # Nothing in the trial changed since it was audited: the verdict stands (after clean the skill
                # copies it was checked against are gone).
                kept = serde.loads(Audit, read_text(apath), source=str(apath))
                out[key] = [{"arm": p.arm, "problem": p.problem} for p in kept.problems]
                continue
            fingerprints = self.fingerprints(key[0])
            problems = []
            for cell in cells:
                changed_prompt = prompt_problem(cell.prompt, self.received.get(cell.id, ""))
                if changed_prompt:
                    problems.append({"arm": cell.arm, "problem": changed_prompt})
                for p in audit_cell(cell.arm, found[cell.id], repo=repo, run_dir=str(self.run_dir),
                                    skill_copies=self.plan.skill_copies, own_copy=cell.skill_dir, case_files=case_files,
                                    skill_rel=skill_rel, tests_rel=tests_rel, run_rel=run_rel, world=cell.world,
                                    fingerprints=fingerprints):
                    problems.append({"arm": cell.arm, "problem": p})
            problems += guard_problems(read_log(self.run_dir), cells)
            out[key] = problems
            audit = Audit(invalid=bool(problems), problems=tuple(AuditProblem(**p) for p in problems))
            _write_if_changed(self.tdir(*key) / "audit.json", serde.dumps(audit))
        return out

    def run_assertions(self, found: dict) -> tuple[dict[tuple[str, int], bool], set[tuple[str, int]]]:
        """((case, trial) -> gated, for every trial whose new output went through the gate; the trials whose
        gate could not be applied because their world is gone).

        assertions.json is keyed to the sha256 of the output.md bytes it ran against: a result for other
        bytes (the output changed, or collect was stopped between writing the output and running the
        assertions) is run again. Nothing runs in a world that is gone (benchcore clean ran): that trial's
        gate stays unknown, so its efficacy stays unjudged and incomplete, never a loss."""
        gated: dict[tuple[str, int], bool] = {}
        unchecked: set[tuple[str, int]] = set()
        for cell in self.plan.cells:
            if cell.arm != "new" or cell.id not in found:
                continue
            key = (cell.case, cell.trial)
            cdir = self.tdir(cell.case, cell.trial) / "new"
            apath = cdir / "assertions.json"
            case = self.cases[cell.case]
            sha = file_sha256(cdir / "output.md")
            results = None
            if apath.is_file():
                kept = serde.loads(list[hard.AssertionResult], read_text(apath), source=str(apath))
                if len(kept) == len(case.hard_assertions) and all(r.output_sha256 == sha for r in kept):
                    results = tuple(kept)
            if results is None and not case.hard_assertions:
                results = ()
                _write_if_changed(apath, serde.dumps([]))
            if results is None:
                world = Path(cell.world)
                ran = () if not world.is_dir() else hard.run_assertions(case.hard_assertions, cdir / "output.md",
                                                                         world, self.assert_timeout)
                if not world.is_dir():  # gone before or while they ran: no result stands
                    unchecked.add(key)
                    if apath.is_file():
                        apath.unlink()  # a result for other bytes must not gate this output
                    continue
                results = tuple(evolve(r, output_sha256=sha) for r in ran)
                _write_if_changed(apath, serde.dumps(list(results)))
            gated[key] = hard.gated(results)
        return gated, unchecked

    # ---------------------------------------------------------------- packets

    def _packet_text(self, case: Case, trial: int, comp: str, order: dict[str, str]) -> str:
        outs = {letter: redact(read_text(self.tdir(case.id, trial) / order[letter] / "output.md"), self.redactions)
                for letter in ("A", "B")}
        return self.templates.packet(case, self.ref(f"{case.id}/t{trial}/{comp}"), outs["A"], outs["B"])

    def _order(self, key: str, keys: dict[str, str], other: str) -> dict[str, str]:
        if self.plan.order_rule == "plan" and key in self.plan.orders:
            return dict(self.plan.orders[key])
        return draw_order(self.plan.seed, key, keys, other)

    def add_packet(self, packets: dict[str, Packet], case: str, trial: int, comp: str, round_: int) -> None:
        base = f"{case}/t{trial}/{comp}"
        pid = base if round_ == 1 else f"{base}#{round_}"
        if pid in packets:
            return
        first = packets[base]
        path = Path(first.path)
        text = read_text(path)
        packets[pid] = evolve(first, id=pid, ref=self.ref(pid), round=round_, written_at=_now(),
                              model=self.plan.judge_model, agent_model=agent_tool_model(self.plan.judge_model),
                              prompt=self.templates.judge_prompt_inline(text, self.ref(pid)))

    def write_packets(self, audits: dict, gated: dict, unchecked: set) -> dict[str, Packet]:
        """One packet per valid trial and comparison (efficacy only where the gate passed), each keyed to the
        bytes of the two outputs it shows. A packet whose outputs changed is written afresh (new time, new
        prompt), its escalation rounds dropped and its judgments file removed: its trial goes back to the
        judges. Packets of trials that no longer qualify leave the plan."""
        old = {p.id: p for p in self.plan.packets}
        packets: dict[str, Packet] = {}
        orders = dict(self.plan.orders)
        for (case_id, trial), problems in audits.items():
            if problems:
                continue
            tdir = self.tdir(case_id, trial)
            keys_all = {c.arm: file_sha256(tdir / c.arm / "output.md")
                        for c in self.plan.cells if (c.case, c.trial) == (case_id, trial)}
            for comp, (_, other) in self.info.comparisons.items():
                if comp == "efficacy" and (gated.get((case_id, trial)) or (case_id, trial) in unchecked
                                           or (case_id, trial) not in gated):
                    continue
                base = f"{case_id}/t{trial}/{comp}"
                keys = {"new": keys_all["new"], other: keys_all[other]}
                order = self._order(base, keys, other)
                orders[base] = order
                text = self._packet_text(self.cases[case_id], trial, comp, order)
                path = tdir / f"{comp}.packet.md"
                _write_if_changed(path, text)
                prompt = self.templates.judge_prompt_inline(text, self.ref(base))
                prev = old.get(base)
                if prev is not None and prev.outputs_sha256 == keys and prev.prompt == prompt:
                    packets[base] = prev
                    for r in (2, 3):
                        if f"{base}#{r}" in old:
                            packets[f"{base}#{r}"] = old[f"{base}#{r}"]
                else:
                    packets[base] = Packet(id=base, case=case_id, trial=trial, comparison=comp, path=str(path),
                                           prompt=prompt, ref=self.ref(base), round=1, written_at=_now(),
                                           outputs_sha256=keys, agent_type=self.plan.judge_agent_type,
                                           model=self.plan.judge_model,
                                           agent_model=agent_tool_model(self.plan.judge_model))
                self._drop_stale_record(tdir / f"{comp}.json", keys)
        self.plan = evolve(self.plan, orders=orders)
        return packets

    def _drop_stale_record(self, path: Path, keys: dict[str, str]) -> None:
        """Remove a judgments file that judged other output bytes than the packet now shows."""
        if not path.is_file():
            return
        record = serde.loads(ComparisonRecord, read_text(path), source=str(path))
        legacy = record.outputs_sha256 is None and self.plan.order_rule == "plan"
        if not legacy and record.outputs_sha256 != keys:
            path.unlink()

    # ---------------------------------------------------------------- judges

    def _not_its_judge(self, af: transcripts.AgentFile, packet: Packet) -> Optional[str]:
        """Why a transcript that names the packet is not its judge, or None. A judge's answer counts only
        from a transcript whose task is the planned judge prompt (as Claude Code delivers it), that started
        after the packet was written, and that no arm launched."""
        if af.agent_id in self.arm_agents:
            return "it was launched by an arm"
        if not same_prompt(packet.prompt, af.prompt):
            return "its prompt is not the planned judge prompt"
        if not _after(af.started, packet.written_at):
            return (f"it started ({af.started or 'no time'}) before its packet was written ({packet.written_at})")
        return None

    def read_answers(self, packets: dict[str, Packet]) -> tuple[dict[str, Judgment], dict[str, str], dict[str, str]]:
        """(packet id -> judgment, packet id -> why its answer is invalid, packet id -> why transcripts that
        claim it were ignored)."""
        answers: dict[str, Judgment] = {}
        bad: dict[str, str] = {}
        ignored: dict[str, str] = {}
        for pid, packet in packets.items():
            cands = self.packet_files.get(packet.ref, [])
            errors = []
            skipped = []
            for af in sorted(cands, key=lambda c: (c.started, str(c.path)), reverse=True):
                why = self._not_its_judge(af, packet)
                if why is not None:
                    skipped.append(f"{af.path.name}: {why}")
                    continue
                t = transcripts.load(af.path, af.agent_id, self.index)
                try:
                    answer = self._answer(t, af, pid)
                    models = sorted(t.models())
                    answers[pid] = evolve(answer, model=", ".join(models) if models else None)
                    # The judge's transcript is kept with the run: its usage is the judges' cost row.
                    _write_bytes_if_changed(self.judge_transcript(packet), t.raw)
                    break
                except AnswerError as err:
                    errors.append(f"{err} ({af.path})")
                except _Unfinished:
                    continue
            if skipped:
                ignored[pid] = "; ".join(skipped)
            if pid not in answers and errors:
                bad[pid] = errors[0]
            if pid not in answers and not cands:
                # The judge's transcript is gone (cleaned up, another machine): its recorded judgment stands.
                kept = self._recorded(packet)
                if kept is not None:
                    answers[pid] = kept
        return answers, bad, ignored

    def _answer(self, t: transcripts.Transcript, af: transcripts.AgentFile, pid: str) -> Judgment:
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
        data = outputs[-1] if outputs else transcripts.journal_result(af.path, af.agent_id)
        if isinstance(data, str):
            data = parse_text(data)
        if data is None:
            final = t.final_message()
            if final is None:
                raise _Unfinished()
            data = parse_text(final)
        return to_judgment(data, pid, self.plan.run_id)

    def _recorded(self, packet: Packet) -> Optional[Judgment]:
        path = self.tdir(packet.case, packet.trial) / f"{packet.comparison}.json"
        if not path.is_file():
            return None
        record = serde.loads(ComparisonRecord, read_text(path), source=str(path))
        if dict(record.order) != self.plan.orders.get(packet.id.split("#", 1)[0]):
            return None
        if record.outputs_sha256 is not None and record.outputs_sha256 != packet.outputs_sha256:
            return None
        n = packet.round - 1
        if packet.round > 1 and len(record.judgments) < 3:
            return None
        return record.judgments[n] if n < len(record.judgments) else None

    def write_judgments(self, packets: dict[str, Packet], answers: dict[str, Judgment]) -> None:
        for pid, packet in packets.items():
            if packet.round != 1:
                continue
            first = answers.get(pid)
            if first is None:
                continue
            panel = [answers.get(f"{pid}#2"), answers.get(f"{pid}#3")]
            judgments = (first, *panel) if all(panel) else (first,)
            order = self.plan.orders[pid]
            record = ComparisonRecord(order=order, judgments=judgments,
                                      outputs_sha256=dict(packet.outputs_sha256) or None)
            _write_if_changed(self.tdir(packet.case, packet.trial) / f"{packet.comparison}.json", serde.dumps(record))

    def escalate(self, packets: dict[str, Packet]) -> list[str]:
        from ..results import escalations

        data = read_run(self.run_dir)
        named = []
        for esc in escalations(data):
            named.append(f"{esc.case}/{esc.comparison}")
            for trial in esc.trials:
                for round_ in (2, 3):
                    self.add_packet(packets, esc.case, trial, esc.comparison, round_)
        return named

    # ------------------------------------------------------------------ rerun

    def redo(self, found: dict, audits: dict) -> tuple[list[Cell], list[Cell]]:
        """(cells to plan afresh, cells that need it but were already planned MAX_ATTEMPTS times).

        Every cell of an invalid trial, and every cell whose transcript stopped with no final message; a
        trial is re-run as a whole, so it is given up when any of its cells is at the limit. A cell with no
        transcript at all has not run yet: it is launched, not re-planned, and costs no attempt."""
        by_trial: dict[tuple[str, int], list[Cell]] = {}
        for cell in self.plan.cells:
            by_trial.setdefault((cell.case, cell.trial), []).append(cell)
        go: list[Cell] = []
        stop: list[Cell] = []
        for key, cells in by_trial.items():
            if audits.get(key):
                (go if max(c.attempt for c in cells) < MAX_ATTEMPTS else stop).extend(cells)
            else:
                for c in cells:
                    if c.id not in found and c.id in self.unfinished and not c.skip:
                        (go if c.attempt < MAX_ATTEMPTS else stop).append(c)
        return go, stop

    def rerun(self, found: dict, audits: dict) -> list[str]:
        """Plan the cells ``redo`` names afresh (new worlds first, so a failing setup changes nothing on
        disk but its own worlds); returns the re-planned cell ids."""
        go, _ = self.redo(found, audits)
        if not go:
            return []
        if not is_temp_root(Path(self.plan.temp_root), self.plan.run_id, self.plan.temp_nonce):
            raise BenchError(str(self.run_dir), f"cannot re-run {len(go)} cells: the run's temp folder "
                             f"{self.plan.temp_root} is gone (benchcore clean ran) or is not this run's",
                             fix="plan a new run with 'benchcore plan'; this one renders as it stands")
        repo = Path(self.plan.repo)
        tests_dir = repo / ("tests/" + self.info.skill.path[len("skills/"):])
        fresh: dict[str, Cell] = {}
        made: list[Path] = []
        try:
            for cell in go:
                case = self.cases[cell.case]
                case_dir = tests_dir / cell.case
                fixture = fixture_path(repo, case_dir, case) if case_dir.is_dir() else None
                if case.fixture is not None and (fixture is None or not fixture.exists()):
                    raise BenchError(str(case_dir / "case.md"),
                                     f"the fixture {case.fixture!r} is gone, so {cell.id} cannot be re-run",
                                     fix="restore the fixture, or plan a new run")
                world = make_world(Path(self.plan.world_root), cell.case, cell.trial, fixture)
                made.append(world)
                if case.setup:
                    run_setup(world, case.setup, case.path)
                prompt = self.templates.arm_prompt(case, str(world), cell.skill_dir)
                fresh[cell.id] = evolve(cell, world=str(world), prompt=prompt, attempt=cell.attempt + 1)
        except BaseException:
            for world in made:
                shutil.rmtree(world, ignore_errors=True)
            raise
        for cell in go:
            tdir = self.tdir(cell.case, cell.trial)
            attic = tdir / f".invalid-{cell.attempt}"
            for name in (cell.arm, "audit.json"):
                if (tdir / name).exists():
                    attic.mkdir(parents=True, exist_ok=True)
                    shutil.move(str(tdir / name), str(attic / name))
        self.plan = evolve(self.plan, cells=tuple(fresh.get(c.id, c) for c in self.plan.cells))
        return [c.id for c in go]

    # ------------------------------------------------------------------- main

    def collect(self, rerun: bool) -> Status:
        found, changed = self.collect_cells()
        audits = self.audit(found, changed)
        redone: list[str] = []
        if rerun:
            redone = self.rerun(found, audits)
            if redone:
                write_plan(self.run_dir, self.plan)
                return self._status(found, {}, {}, {}, {}, [], redone)
        gated, unchecked = self.run_assertions(found)
        packets = self.write_packets(audits, gated, unchecked)
        answers, bad, ignored = self.read_answers(packets)
        self.write_judgments(packets, answers)
        escalated = self.escalate(packets)
        answers2, bad2, ignored2 = self.read_answers({k: v for k, v in packets.items() if k not in answers})
        answers.update(answers2)
        bad.update(bad2)
        ignored.update(ignored2)
        self.write_judgments(packets, answers)
        ordered = tuple(sorted(packets.values(), key=lambda p: (list(self.info.cases).index(p.case), p.trial,
                                                               p.comparison, p.round)))
        self.plan = evolve(self.plan, packets=ordered)
        write_plan(self.run_dir, self.plan)
        self._record_models(found)
        go, stop = self.redo(found, audits)
        order = lambda k: (list(self.info.cases).index(k[0]), k[1])
        return evolve(self._status(found, audits, gated, answers, bad, escalated, redone),
                      to_rerun=tuple(c.id for c in go), given_up=tuple(c.id for c in stop),
                      unchecked=tuple(f"{c}/t{n}" for c, n in sorted(unchecked, key=order)),
                      ignored_judges=tuple(sorted(ignored.items())))

    def _waiting(self, found: dict, redone) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(cells not started, cells unfinished) among those not collected."""
        left = [c.id for c in self.plan.cells if (c.id not in found and not c.skip) or c.id in redone]
        return (tuple(c for c in left if c not in self.unfinished or c in redone),
                tuple(c for c in left if c in self.unfinished and c not in redone))

    def _record_models(self, found: dict) -> None:
        models: dict[str, set] = {}
        for cell in self.plan.cells:
            t = found.get(cell.id)
            if t is not None:
                models.setdefault(cell.arm, set()).update(t.models())
        resolved = {arm: tuple(sorted(m)) for arm, m in sorted(models.items())}
        types: dict[str, set] = {}
        for cell in self.plan.cells:
            if cell.id in found:
                types.setdefault(cell.arm, set()).add(
                    transcripts.agent_type(self.tdir(cell.case, cell.trial) / cell.arm / "meta.json") or "unknown")
        agent_types = {arm: tuple(sorted(t)) for arm, t in sorted(types.items())}
        if resolved != dict(self.info.resolved_models) or agent_types != dict(self.info.agent_types):
            self.info = evolve(self.info, resolved_models=resolved, agent_types=agent_types)
            write_atomic(self.run_dir / "run.json", serde.dumps(self.info))

    def _status(self, found, audits, gated, answers, bad, escalated, redone) -> Status:
        missing = tuple(c.id for c in self.plan.cells if (c.id not in found and not c.skip) or c.id in redone)
        invalid = tuple((f"{c}/t{n}", "; ".join(f"{p['arm']}: {p['problem']}" for p in probs))
                        for (c, n), probs in sorted(audits.items(), key=lambda kv: (list(self.info.cases).index(kv[0][0]), kv[0][1]))
                        if probs and not redone)
        pending = tuple(p.id for p in self.plan.packets if p.id not in answers and p.id not in self.info.not_run)
        not_started, unfinished = self._waiting(found, redone)
        planned = sum(1 for c in self.plan.cells if not c.skip)  # the budget's skips were never launched
        return Status(run_dir=self.run_dir, skill=self.info.skill.name, cells=planned,
                      cells_in=planned - len(missing), missing_cells=missing, invalid_trials=invalid,
                      gated=tuple(f"{c}/t{n}" for (c, n), g in sorted(gated.items()) if g),
                      packets=len(self.plan.packets), pending_packets=pending, bad_answers=tuple(sorted(bad.items())),
                      escalated=tuple(escalated), rerun=tuple(redone), not_started=not_started,
                      unfinished=unfinished, not_run=tuple(self.info.not_run.items()))


def _spent_by_pool(collectors: list) -> dict[str, tuple]:
    """skill -> (its budget, raw tokens and dollars its runs have spent so far, invalid attempts included)."""
    pools: dict[str, tuple] = {}
    for c in collectors:
        if c.plan.budget is None:
            continue
        raw, usd = costs.spent(c.run_dir)
        prev = pools.get(c.info.skill.name, (c.plan.budget, 0.0, 0.0))
        pools[c.info.skill.name] = (prev[0], prev[1] + raw, prev[2] + usd)
    return pools


def _hold_arms_to_budget(collectors: list, statuses: list, cells: list[Cell]):
    """Hold the arm cells still to launch (re-runs, cells never started) to each skill's ceiling, from what
    its runs have really spent, trial by trial. A trial that does not fit gets ``skip`` in plan.json and
    ``not_run`` in run.json ("budget reached"). Returns (the cells to launch, (ceilings, each one's bound
    cost), the statuses without the held-back cells)."""
    owner = {}
    for c in collectors:
        for cell in c.plan.cells:
            owner[id(cell)] = c
    pools = _spent_by_pool(collectors)
    ceilings = {k: v for k, v in ((pool, costs.ceiling(b, raw, usd)) for pool, (b, raw, usd) in pools.items())
                if v is not None}
    task_costs = []
    for cell in cells:
        c = owner[id(cell)]
        task_costs.append(costs.task_cost(c.info.skill.name, f"{c.plan.run_id}/{cell.case}/t{cell.trial}",
                                          c.plan.cell_costs.get(cell.arm)) if c.info.skill.name in ceilings else None)
    tasks = [{"id": cell.id, **({"cost": tc} if tc else {})} for cell, tc in zip(cells, task_costs)]
    launched, _ = fanout.launches(tasks, ceilings)
    held = {id(cell) for cell, ok in zip(cells, launched) if not ok}
    for c in collectors:
        mine = [cell for cell in c.plan.cells if id(cell) in held]
        if not mine:
            continue
        trials = {(cell.case, cell.trial) for cell in mine}
        c.plan = evolve(c.plan, cells=tuple(evolve(cell, skip=fanout.BUDGET_REACHED)
                                            if (cell.case, cell.trial) in trials else cell for cell in c.plan.cells))
        write_plan(c.run_dir, c.plan)
        c.info = evolve(c.info, not_run={**c.info.not_run,
                                         **{f"{case}/t{n}": fanout.BUDGET_REACHED for case, n in sorted(trials)}})
        write_atomic(c.run_dir / "run.json", serde.dumps(c.info))
    statuses = [evolve(s, not_started=tuple(i for i in s.not_started if not any(
                           cell.id == i and cell.skip for cell in c.plan.cells)),
                       missing_cells=tuple(i for i in s.missing_cells if not any(
                           cell.id == i and cell.skip for cell in c.plan.cells)),
                       not_run=tuple(c.info.not_run.items())) for c, s in zip(collectors, statuses)]
    keep = [(cell, tc) for cell, tc, ok in zip(cells, task_costs, launched) if ok]
    return [cell for cell, _ in keep], (ceilings or None, [tc for _, tc in keep]), statuses


def _hold_judges_to_budget(collectors: list, statuses: list, pending: list[Packet]):
    """Hold the pending judges to each skill's ceiling, from what its runs have really spent so far.

    A judge that does not fit is recorded in run.json ``not_run`` ("budget reached") and leaves the list of
    pending packets for good; the report shows its trial as not run. Returns (the judges to launch,
    (ceilings, each one's bound cost), the statuses without the held-back packets)."""
    run_of = {id(p): c for c in collectors for p in c.plan.packets}
    pools = _spent_by_pool(collectors)
    ceilings = {pool: costs.ceiling(b, raw, usd) for pool, (b, raw, usd) in pools.items()}
    ceilings = {k: v for k, v in ceilings.items() if v is not None}
    task_costs = []
    for p in pending:
        c = run_of[id(p)]
        cell = c.plan.cell_costs.get(JUDGES)
        task_costs.append(costs.task_cost(c.info.skill.name, f"{c.plan.run_id}/{p.id}", cell)
                          if c.info.skill.name in ceilings else None)
    tasks = [{"id": p.id, **({"cost": tc} if tc else {})} for p, tc in zip(pending, task_costs)]
    launched, _ = fanout.launches(tasks, ceilings)
    held: dict[int, list[Packet]] = {}
    for p, ok in zip(pending, launched):
        if not ok:
            held.setdefault(id(run_of[id(p)]), []).append(p)
    for c in collectors:
        mine = held.get(id(c), [])
        if mine:
            c.info = evolve(c.info, not_run={**c.info.not_run, **{p.id: fanout.BUDGET_REACHED for p in mine}})
            write_atomic(c.run_dir / "run.json", serde.dumps(c.info))
    gone = {id(p) for ps in held.values() for p in ps}
    statuses = [evolve(s, pending_packets=tuple(pid for pid in s.pending_packets if pid not in c.info.not_run),
                       not_run=tuple(c.info.not_run.items())) for c, s in zip(collectors, statuses)]
    keep = [(p, tc) for p, tc, ok in zip(pending, task_costs, launched) if ok and id(p) not in gone]
    return [p for p, _ in keep], (ceilings or None, [tc for _, tc in keep]), statuses


class _Unfinished(Exception):
    """A judge transcript with no answer yet."""


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _now() -> str:
    """Now in UTC, to the millisecond (Claude Code's transcript timestamps are to the millisecond)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _after(started: str, written_at: str) -> bool:
    """A transcript that started at ``started`` started at or after ``written_at`` (both ISO, UTC)."""
    try:
        a = datetime.fromisoformat(started.replace("Z", "+00:00"))
        b = datetime.fromisoformat(written_at.replace("Z", "+00:00"))
    except ValueError:
        return False
    return a >= b


def _texts(root: Path, limit: int = 1 << 20) -> list[str]:
    """The text files under ``root`` (or ``root`` itself), each up to ``limit`` bytes; binary files skipped."""
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)
    out = []
    for p in files[:2000]:
        try:
            data = p.read_bytes()[:limit]
            out.append(data.decode("utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    return out


def _collected(cdir: Path) -> Optional[transcripts.Transcript]:
    """A cell's transcript as collected earlier into the run directory (with its subagents), or None."""
    main = cdir / "transcript.jsonl"
    if not (main.is_file() and (cdir / "output.md").is_file()):
        return None
    t = transcripts.load(main, transcripts.first_agent_id(main) or "collected",
                         transcripts.Index.build(transcripts.scan(cdir)))
    return t if t.final_message() is not None else None


def _since(run_dirs: list[Path]) -> Optional[float]:
    times = []
    for d in run_dirs:
        try:
            info = read_run_info(d)
            times.append(datetime.fromisoformat(info.started_at.replace("Z", "+00:00")).timestamp())
        except (BenchError, ValueError):
            return None
    return min(times) - SCAN_SLACK if times else None


def _names(items, limit: int = LIST_LIMIT) -> str:
    items = list(items)
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def check_timeout(value: float) -> float:
    """``--assert-timeout`` must be a positive, finite number of seconds (0, a negative, nan or inf would gate
    every trial, or never end)."""
    if not (isinstance(value, float) and math.isfinite(value) and value > 0):
        raise BenchError(None, f"--assert-timeout {value!r} is not a positive number of seconds",
                         fix=f"pass a number above 0, e.g. --assert-timeout {hard.DEFAULT_TIMEOUT:g} (the default)")
    return value


def run(args) -> int:
    check_timeout(args.assert_timeout)
    run_dirs = []
    for d in args.run_dirs:
        d = Path(d).resolve()
        if not (d / "plan.json").is_file():
            raise BenchError(str(d), "is not a planned run directory (no plan.json)",
                             fix="pass the run directory 'benchcore plan' printed (tests/.reports/runs/<run-id>)")
        run_dirs.append(d)
    with contextlib.ExitStack() as held:
        for d in sorted(set(run_dirs)):  # one collect per run at a time (always taken in the same order)
            held.enter_context(locked_run(d))
        return _collect(args, run_dirs)


def _collect(args, run_dirs: list[Path]) -> int:
    plans = [read_plan(d) for d in run_dirs]
    templates = Templates(find_skill_dir(Path(plans[0].repo) if plans[0].repo else None))
    skill_dir = templates.dir.parent
    refused: list[tuple[Path, str]] = []
    index = transcripts.Index.build(transcripts.scan(since=_since(run_dirs), refused=refused))
    packet_files = index.packet_refs()
    collectors = [RunCollector(d, index, packet_files, templates, args.assert_timeout) for d in run_dirs]
    statuses = [c.collect(args.rerun) for c in collectors]

    # What is left to launch, as bound workflow scripts: cells never started (or just re-planned). A cell
    # cut off mid-way is not launched again in its used world; --rerun gives it a fresh one.
    missing_cells = [cell for c, s in zip(collectors, statuses) for cell in c.plan.cells if cell.id in s.missing_cells]
    launch_cells = [cell for c, s in zip(collectors, statuses) for cell in c.plan.cells if cell.id in s.not_started]
    unfinished = any(s.unfinished for s in statuses)
    invalid_to_rerun = any(set(s.to_rerun) - set(s.unfinished) for s in statuses)
    to_rerun = any(s.to_rerun for s in statuses)
    pending = [p for c, s in zip(collectors, statuses) for p in c.plan.packets if p.id in s.pending_packets]
    judge_costs = None
    if pending and any(c.plan.budget for c in collectors):
        pending, judge_costs, statuses = _hold_judges_to_budget(collectors, statuses, pending)
    arms_scripts: list[Path] = []
    judges_scripts: list[Path] = []
    arm_ceilings = None
    if launch_cells and any(c.plan.budget for c in collectors):
        launch_cells, arm_ceilings, statuses = _hold_arms_to_budget(collectors, statuses, launch_cells)
    if launch_cells:
        tasks = fanout.arm_tasks(launch_cells)
        if arm_ceilings is not None:
            ceilings, task_costs = arm_ceilings
            for t, cost in zip(tasks, task_costs):
                if cost is not None:
                    t["cost"] = cost
        arms_scripts = fanout.write_bound_scripts(skill_dir, fanout.batch_dir(run_dirs, "arms"), "Arms", tasks,
                                                  ceilings=arm_ceilings[0] if arm_ceilings else None)
    if pending:
        tasks = fanout.judge_tasks(pending)
        ceilings = None
        if judge_costs is not None:
            ceilings, judge_task_costs = judge_costs
            for t, cost in zip(tasks, judge_task_costs):
                if cost is not None:
                    t["cost"] = cost
        judges_scripts = fanout.write_bound_scripts(skill_dir, fanout.batch_dir(run_dirs, "judges"), "Judges",
                                                    tasks, templates.answer_schema, ceilings)
    for s in statuses:
        write_atomic(s.run_dir / "collect.json", json.dumps(_status_dict(s), indent=1) + "\n")
    missing_cells = [cell for c, s in zip(collectors, statuses) for cell in c.plan.cells if cell.id in s.missing_cells]

    runs = " ".join(_rel(d) for d in run_dirs)
    invalid = any(s.invalid_trials for s in statuses)
    rerun_done = any(s.rerun for s in statuses) and bool(launch_cells)
    if rerun_done:
        nxt = (f"launch the re-planned arm cells with {fanout.workflow_calls(arms_scripts)} "
               f"({fanout.agent_tasks_phrase(arms_scripts)}); then run: benchcore collect {runs}")
    elif launch_cells:
        nxt = (f"if the arms you launched are still running, wait for them to finish, then run: benchcore collect "
               f"{runs}; if they were never launched, launch the arm cells that have not run with "
               f"{fanout.workflow_calls(arms_scripts)} ({fanout.agent_tasks_phrase(arms_scripts)}); then run: benchcore collect {runs}")
    elif unfinished and not invalid_to_rerun:
        nxt = (f"if the arms are still running, wait for them to finish, then run: benchcore collect {runs}; "
               f"if they have finished, run: benchcore collect {runs} --rerun (fresh worlds for the cells cut off "
               "before their final message), then launch the arms it names")
    elif to_rerun:
        nxt = f"run: benchcore collect {runs} --rerun (fresh worlds for the cells to run again), then launch the arms it names"
    elif pending:
        nxt = (f"launch one fresh judge per packet with {fanout.workflow_calls(judges_scripts)} "
               f"({fanout.agent_tasks_phrase(judges_scripts)}); then run: benchcore collect {runs}")
    else:
        nxt = f"run: benchcore render {runs}"
    skipped = [{"path": str(path), "is": what} for path, what in refused]
    if args.json:
        print(json.dumps({"runs": [_status_dict(s) for s in statuses], "skipped_files": skipped,
                          "arms_workflow": str(arms_scripts[0]) if arms_scripts else None,
                          "judges_workflow": str(judges_scripts[0]) if judges_scripts else None,
                          "arms_workflows": [str(p) for p in arms_scripts],
                          "judges_workflows": [str(p) for p in judges_scripts], "next": nxt}, indent=1))
    else:
        for f in skipped[:LIST_LIMIT]:
            print(f"note: skipped {f['path']}: it is {f['is']}, not a regular file, so it is no transcript "
                  "(never opened: a named pipe would wait forever); remove it")
        if len(skipped) > LIST_LIMIT:
            print(f"note: ... and {len(skipped) - LIST_LIMIT} more such files (--json lists them)")
        for s in statuses:
            _print_status(s)
        print(f"next: {nxt}")
    unchecked = any(s.unchecked for s in statuses)
    complete = not (missing_cells or invalid or pending or rerun_done or unchecked)
    return 0 if complete else 1


def _rel(p: Path) -> str:
    cwd = Path.cwd()
    return os.path.relpath(p, cwd) if p.is_relative_to(cwd) else str(p)


def _status_dict(s: Status) -> dict:
    return {"run_dir": str(s.run_dir), "skill": s.skill, "cells": s.cells, "cells_collected": s.cells_in,
            "missing_cells": list(s.missing_cells), "rerun_cells": list(s.rerun),
            "invalid_trials": [{"trial": t, "problems": p} for t, p in s.invalid_trials],
            "gated_trials": list(s.gated), "packets": s.packets, "pending_packets": list(s.pending_packets),
            "invalid_answers": [{"packet": p, "error": e} for p, e in s.bad_answers],
            "escalated": list(s.escalated), "to_rerun": list(s.to_rerun), "given_up": list(s.given_up),
            "not_started": list(s.not_started), "unfinished": list(s.unfinished),
            "not_run": [{"id": k, "why": why} for k, why in s.not_run],
            "unchecked_trials": list(s.unchecked),
            "ignored_judges": [{"packet": p, "why": w} for p, w in s.ignored_judges]}


def _print_status(s: Status) -> None:
    print(f"{s.skill} ({_rel(s.run_dir)}): {s.cells_in}/{s.cells} cells collected; "
          f"{s.packets - len(s.pending_packets)}/{s.packets} packets judged")
    if s.rerun:
        print(f"  re-planned {len(s.rerun)} cells with fresh worlds: {_names(s.rerun)}")
    if s.gated:
        print(f"  gated (a hard assertion failed; efficacy not judged): {_names(s.gated)}")
    for trial, problems in s.invalid_trials[:LIST_LIMIT]:
        print(f"  INVALID trial {trial} (re-run, not scored): {problems[:300]}")
    if len(s.invalid_trials) > LIST_LIMIT:
        print(f"  ... and {len(s.invalid_trials) - LIST_LIMIT} more invalid trials (see collect.json)")
    for pid, err in s.bad_answers[:LIST_LIMIT]:
        print(f"  error: the judge answer for packet {pid} is invalid: {err[:300]}; re-judge {pid}")
    if s.escalated:
        print(f"  split, escalated to two more judges per judged trial: {_names(s.escalated)}")
    if not s.rerun and s.not_started:
        print(f"  not run yet (no transcript names their world; not a failure): {len(s.not_started)} cells: "
              f"{_names(s.not_started)}")
    if s.unfinished:
        print(f"  still running or cut off (a transcript without a final message): {len(s.unfinished)} cells: "
              f"{_names(s.unfinished)}")
    if s.given_up:
        print(f"  given up after {MAX_ATTEMPTS - 1} re-runs (the report shows them as incomplete): "
              f"{len(s.given_up)} cells: {_names(s.given_up)}")
    if s.pending_packets:
        n = len(s.pending_packets)
        # A long list is noise to the agent that launches the judges script: their ids are in collect.json.
        print(f"  packets with no answer: {n}: " + (_names(s.pending_packets) if n <= LIST_LIMIT else
                                                   f"{s.pending_packets[0]} ... (all in collect.json, pending_packets)"))
    if s.not_run:
        whys = sorted({why for _, why in s.not_run})
        print(f"  not run ({'; '.join(whys)}; the report shows them as not run, never scored): "
              f"{len(s.not_run)}: {_names(k for k, _ in s.not_run)}")
    for pid, why in s.ignored_judges[:LIST_LIMIT]:
        print(f"  ignored a transcript that names packet {pid} but is not its judge: {why[:300]}")
    if s.unchecked:
        print(f"  hard assertions not run, the world is gone (benchcore clean ran): {_names(s.unchecked)}; "
              f"their efficacy stays unjudged and the run incomplete")
    if not (s.missing_cells or s.invalid_trials or s.pending_packets or s.unchecked):
        print("  nothing missing")
