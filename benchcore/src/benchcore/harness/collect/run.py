"""The collect pipeline: its stages called in order for each run, then what is left to launch, then collect.json.

Per run directory, each stage in the module named in parentheses:

1. Find each cell's subagent transcript under ``$CLAUDE_CONFIG_DIR/projects``
   (both layouts) by the world path in its prompt; copy it, with the
   transcripts of subagents the arm launched (``subagents/agent-<id>.jsonl``);
   write the arm's final message to ``output.md`` (``collect_cells``).
2. When a trial's cells are all in: audit them (``audit.json``) (``collect_audit``);
   an invalid trial is not judged and must be re-run with ``--rerun``
   (``collect_rerun``, which re-plans and stops that run there).
3. Run the new arm's hard assertions (``assertions.json``) (``collect_gate``).
   The same predicates run on the baseline's output, for information only
   (``baseline/assertions.json``: what carried no signal) (``baseline_checks``).
4. Write one blind judge packet per valid trial and comparison, except
   a gated trial (the gate fails it on both axes); list it in plan.json (``collect_packets``).
5. Read each judge's JSON answer from its transcript (found by the
   ``Packet id:`` line) and write ``<comparison>.json``; an invalid answer is
   named, and its packet goes back to the judges (``collect_answers``).
6. Name the split comparisons and add two more judge packets (``#2``, ``#3``)
   for each of their judged trials (``collect_answers``).
7. Write bound workflow scripts for what is still to run, held to the budget
   (``collect_launch``, ``collect_budget``), write ``collect.json``
   (``collect_status``) and end with what is missing and the exact next step.
"""

from __future__ import annotations

import contextlib
import gc
from datetime import datetime
from pathlib import Path
from typing import Optional

from attrs import evolve, frozen

from ... import jsontext
from ...errors import BenchError
from ..claude import projects
from .answers import confirm, escalate, give_up_judges, read_answers, write_judgments
from .duplicates import write_ignored
from .baseline_checks import run_baseline_checks
from .audit import audit_trials
from .cells import find_cells, record_models
from .environment import record_environment
from .gate import checks_where, run_gate
from .launch import Launches, launch_hint, next_step, write_launch_scripts
from .packets import write_packets
from .rerun import cells_to_rerun, replan_cells
from .state import RunState
from .status import Status, provenance_fields, status_dict, status_of
from ..store.files import flush_to_disk, write_atomic
from ..store.planfile import read_plan
from ..fanout.prompts import Templates, find_skill_dir
from ..claude.provenance import Launched, record_session
from ..runs.folder import read_run_info

SCAN_SLACK = 600  # seconds before the plan time that a transcript file may date from


@frozen
class Collected:
    """One collect over one or more runs: each run's status, the files the scan refused, the scripts to
    launch, the next step, and whether every run is complete."""

    statuses: tuple[Status, ...]
    refused: tuple[tuple[Path, str], ...]  # (path, what it is): not a regular file, never opened
    launches: Launches
    next: str
    complete: bool
    hint: str = ""  # the resume hint, when something is to be launched


def collect_run(run: RunState, rerun: bool) -> Status:
    """One run through stages 1 to 6 in order (with ``rerun``, re-plan first what needs it and stop there)."""
    found, changed = find_cells(run)
    audits = audit_trials(run, found, changed)
    redone: list[str] = []
    if rerun:
        redone = replan_cells(run, found, audits)
        if redone:
            flush_to_disk(run.run_dir)  # stage 1's copies on disk before the plan, as below
            run.first_read.save()
            run.save_plan()
            return status_of(run, found, {}, {}, {}, {}, [], redone)
    gated, unchecked = run_gate(run, found)
    run_baseline_checks(run, found)  # information only: which assertions no skill passes too
    packets = write_packets(run, audits, gated, unchecked)
    answers, bad, ignored = read_answers(run, packets)
    confirm(run, packets, answers)
    write_judgments(run, packets, answers)
    escalated = escalate(run, packets)
    answers2, bad2, ignored2 = read_answers(run, {k: v for k, v in packets.items() if k not in answers})
    answers.update(answers2)
    bad.update(bad2)
    ignored.update(ignored2)
    given_up_packets = give_up_judges(run, packets, bad)
    confirm(run, packets, answers)
    write_judgments(run, packets, answers)
    ordered = tuple(sorted(packets.values(), key=lambda p: (list(run.info.cases).index(p.case), p.trial,
                                                           p.comparison, p.round)))
    run.plan = evolve(run.plan, packets=ordered)
    write_ignored(run)
    flush_to_disk(run.run_dir)  # what the stages copied and wrote, on disk before the plan that lists it
    run.first_read.save()
    run.save_plan()
    record_models(run, found)
    record_environment(run, found)
    go, stop = cells_to_rerun(run, found, audits)
    order = lambda k: (list(run.info.cases).index(k[0]), k[1])
    return evolve(status_of(run, found, audits, gated, answers, bad, escalated, redone),
                  to_rerun=tuple(c.id for c in go), given_up=tuple(c.id for c in stop),
                  unchecked=tuple(f"{c}/t{n}" for c, n in sorted(unchecked, key=order)),
                  ignored_judges=tuple(sorted(ignored.items())), given_up_packets=tuple(given_up_packets),
                  checks=checks_where(run), **provenance_fields(run))


def collect_runs(run_dirs: list[Path], rerun: bool, assert_timeout: float) -> Collected:
    """Collect every run (their locks held by the caller) from one scan of Claude Code's projects."""
    plans = [read_plan(d) for d in run_dirs]  # once per collect: each RunState is given its own
    templates = Templates(find_skill_dir(Path(plans[0].repo) if plans[0].repo else None))
    refused: list[tuple[Path, str]] = []
    planned = {t.prompt: t.prompt for p in plans for t in (*p.cells, *p.packets)}
    index = projects.Index.build(projects.scan(since=_since(run_dirs), refused=refused, planned=planned))
    del planned
    packet_files = index.packet_refs()
    plans = [record_session(d, p) for d, p in zip(run_dirs, plans)]  # this collect's session joins each run's
    launched = Launched.read(projects.projects_dir(), [s for p in plans for s in p.sessions])
    runs = [RunState(d, index, packet_files, templates, assert_timeout, launched, plan=p)
            for d, p in zip(run_dirs, plans)]
    with _rare_young_collections():
        statuses = [collect_run(r, rerun) for r in runs]
    launches = write_launch_scripts(runs, statuses, run_dirs, templates)
    statuses = list(launches.statuses)
    for s in statuses:
        write_atomic(s.run_dir / "collect.json", jsontext.dumps(status_dict(s), 1, ascii=True) + "\n")
    missing_cells = [cell for c, s in zip(runs, statuses) for cell in c.plan.cells if cell.id in s.missing_cells]
    invalid = any(s.invalid_trials for s in statuses)
    rerun_done = any(s.rerun for s in statuses) and bool(launches.cells)
    unchecked = any(s.unchecked for s in statuses)
    complete = not (missing_cells or invalid or launches.packets or rerun_done or unchecked)
    return Collected(tuple(statuses), tuple(refused), launches, next_step(run_dirs, launches), complete,
                     launch_hint(runs, launches))


YOUNG_THRESHOLD = 100_000  # Python's default is 700


@contextlib.contextmanager
def _rare_young_collections():
    """The cycle collector's youngest generation examined every 100,000 new objects instead of every 700
    while the runs are collected. A transcript's records are JSON trees (no cycles for it to find), made by
    the hundred thousand; with the default, it walked them over and over and took 8% of a first collect
    (1.89 s against 2.02 s on 391 MB, in paired runs). Cycles are still collected, later."""
    before = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _since(run_dirs: list[Path]) -> Optional[float]:
    times = []
    for d in run_dirs:
        try:
            info = read_run_info(d)
            times.append(datetime.fromisoformat(info.started_at.replace("Z", "+00:00")).timestamp())
        except (BenchError, ValueError):
            return None
    return min(times) - SCAN_SLACK if times else None
