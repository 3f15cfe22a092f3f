"""What collect found for one run (Status), from the stages' results, and its collect.json form."""

from __future__ import annotations

from pathlib import Path

from attrs import frozen

from .state import RunState
from ..claude.provenance import state


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
    given_up_packets: tuple[tuple[str, str], ...] = ()  # (packet id, why): judges answered invalidly too often
    provenance: str = ""  # whose launches were checked, or "unknown: ..." (harness/claude/provenance.py)
    refused_transcripts: tuple[tuple[str, str, str], ...] = ()  # (cell id, path, why): not the session's agent
    late: tuple[tuple[str, str], ...] = ()  # (cell id, path): arrived after benchcore clean, not collected
    refused_calls: tuple[tuple[str, str], ...] = ()  # (cell id, which of its tool calls Claude Code refused)
    # (cell or packet id, path, why): an arm or judge the run's sessions launched twice, not counted
    duplicates: tuple[tuple[str, str, str], ...] = ()
    # where the hard assertions ran (collect/gate.py checks_where): "sandboxed", "unconfined", or "" (none)
    checks: str = ""


def _waiting(run: RunState, found: dict, redone) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(cells not started, cells unfinished) among those not collected."""
    left = [c.id for c in run.plan.cells if (c.id not in found and not c.skip) or c.id in redone]
    return (tuple(c for c in left if c not in run.unfinished or c in redone),
            tuple(c for c in left if c in run.unfinished and c not in redone))


def status_of(run: RunState, found, audits, gated, answers, bad, escalated, redone) -> Status:
    """The Status of one run from what its stages found, wrote and re-planned."""
    missing = tuple(c.id for c in run.plan.cells if (c.id not in found and not c.skip) or c.id in redone)
    invalid = tuple((f"{c}/t{n}", "; ".join(f"{p['arm']}: {p['problem']}" for p in probs))
                    for (c, n), probs in sorted(audits.items(), key=lambda kv: (list(run.info.cases).index(kv[0][0]), kv[0][1]))
                    if probs and not redone)
    pending = tuple(p.id for p in run.plan.packets if p.id not in answers and p.id not in run.info.not_run)
    not_started, unfinished = _waiting(run, found, redone)
    planned = sum(1 for c in run.plan.cells if not c.skip)  # the budget's skips were never launched
    return Status(run_dir=run.run_dir, skill=run.info.skill.name, cells=planned,
                  cells_in=planned - len(missing), missing_cells=missing, invalid_trials=invalid,
                  gated=tuple(f"{c}/t{n}" for (c, n), g in sorted(gated.items()) if g),
                  packets=len(run.plan.packets), pending_packets=pending, bad_answers=tuple(sorted(bad.items())),
                  escalated=tuple(escalated), rerun=tuple(redone), not_started=not_started,
                  unfinished=unfinished, not_run=tuple(run.info.not_run.items()))


def status_dict(s: Status) -> dict:
    """A Status as collect.json and --json hold it."""
    return {"run_dir": str(s.run_dir), "skill": s.skill, "cells": s.cells, "cells_collected": s.cells_in,
            "missing_cells": list(s.missing_cells), "rerun_cells": list(s.rerun),
            "invalid_trials": [{"trial": t, "problems": p} for t, p in s.invalid_trials],
            "gated_trials": list(s.gated), "packets": s.packets, "pending_packets": list(s.pending_packets),
            "invalid_answers": [{"packet": p, "error": e} for p, e in s.bad_answers],
            "escalated": list(s.escalated), "to_rerun": list(s.to_rerun), "given_up": list(s.given_up),
            "not_started": list(s.not_started), "unfinished": list(s.unfinished),
            "not_run": [{"id": k, "why": why} for k, why in s.not_run],
            "unchecked_trials": list(s.unchecked),
            "ignored_judges": [{"packet": p, "why": w} for p, w in s.ignored_judges],
            "given_up_packets": [{"packet": p, "why": w} for p, w in s.given_up_packets],
            "provenance": s.provenance,
            "refused_transcripts": [{"cell": c, "path": p, "why": w} for c, p, w in s.refused_transcripts],
            "late_transcripts": [{"cell": c, "path": p} for c, p in s.late],
            "refused_calls": [{"cell": c, "what": w} for c, w in s.refused_calls],
            "ignored_duplicates": [{"id": k, "path": p, "why": w} for k, p, w in s.duplicates],
            "hard_assertions_ran": s.checks or None}


def provenance_fields(run: RunState) -> dict:
    """The Status fields of what collect refused for this run: transcripts no session of the run launched,
    and those that arrived after benchcore clean."""
    return {"provenance": state(tuple(run.plan.sessions)), "refused_transcripts": tuple(run.refused),
            "late": tuple(run.late), "refused_calls": tuple(run.refused_calls),
            "duplicates": tuple(sorted(set(run.duplicates)))}


def provenance_lines(s: Status, limit: int = 10) -> list[str]:
    """What collect prints about the transcripts it refused, the late ones and the judges given up."""
    out = [f"  refused a transcript for {key}: {path}: {why[:300]}" for key, path, why in s.refused_transcripts[:limit]]
    if len(s.refused_transcripts) > limit:
        out.append(f"  ... and {len(s.refused_transcripts) - limit} more refused transcripts (see collect.json)")
    out += [f"  {cell}: {what}" for cell, what in s.refused_calls[:limit]]
    out += [f"  late: {path} arrived for {cell} after benchcore clean ran for this run; not collected or audited"
            for cell, path in s.late[:limit]]
    out += [f"  gave up judging {pid}: {why}; that trial stays unjudged (the report shows the axis incomplete)"
            for pid, why in s.given_up_packets[:limit]]
    if s.duplicates:
        n = len(s.duplicates)
        out.append(f"  ignored {n} duplicate{'s' if n != 1 else ''} this session launched (a fan-out launched twice?): "
                   f"the first of each cell or packet counts; the others are named in their trials' ignored.json, "
                   f"their tokens in the report's cost")
    if s.provenance.startswith("unknown"):
        out.append(f"  note: provenance {s.provenance}")
    return out
