"""Collect stage 1, the arm transcripts: find each cell's transcript, copy it with its subagents, write output.md."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Callable, Optional

from attrs import evolve

from ... import serde
from ...errors import BenchError
from ..claude import provenance, projects
from ..claude.transcript import Transcript, agent_type, load, meta_path
from .state import RunState, copy_bytes_if_changed, write_if_changed
from ..store.files import not_regular, read_regular_bytes, read_text, write_atomic
from ...judging import same_prompt
from .audit import cell_problems, needs_audit
from .duplicates import ignore
from .kept import KeptTranscript, load_copy
from .summary import NAME as SUMMARY, Known, known, summary, text


def _flat(text: str) -> str:
    return " ".join(text.split())


def pick_transcript(cands: list[projects.AgentFile], prompt: str,
                    done: Callable[[projects.AgentFile], bool],
                    children: Callable[[projects.AgentFile], tuple[str, ...]] = lambda af: (),
                    spawned: Callable[[projects.AgentFile], tuple[str, ...]] = lambda af: ()
                    ) -> Optional[projects.AgentFile]:
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
    pool = sorted(pool, key=lambda c: (done(c), c.started, c.where))
    return pool[-1]


def find_cells(run: RunState) -> tuple[dict[str, Transcript], set[str]]:
    """cell id -> its finished transcript; and the ids whose copy changed in this call. Every copy is
    written (and every first-read hash known) when it returns."""
    try:
        return _find_cells(run)  # which waits for the copy thread before it writes refused.json
    except BaseException:
        with contextlib.suppress(BaseException):  # the error that stopped stage 1 is the one to tell
            run.background.wait()
        raise


def _find_cells(run: RunState) -> tuple[dict[str, Transcript], set[str]]:
    found: dict[str, Transcript] = {}
    changed: set[str] = set()
    summaries: list[tuple[Path, Path, dict]] = []  # written once the digests are known
    for cell in run.plan.cells:
        def audit(dirty: bool, cell=cell) -> Callable[[Transcript], Optional[list[str]]]:
            """The audit's findings in the transcript while it is parsed, when its trial is audited now."""
            return lambda t: cell_problems(run, cell, t) if needs_audit(run, cell, dirty) else None

        cands = run.index.with_marker(cell.world)
        loaded: dict[Path, Transcript] = {}
        cdir = run.tdir(cell.case, cell.trial) / cell.arm

        def get(af: projects.AgentFile, cdir=cdir) -> Transcript:
            """The candidate parsed, or as the summary beside the cell's copy tells it (the same bytes)."""
            if af.path not in loaded:
                loaded[af.path] = known(cdir, af.path, af.agent_id, run.index.by_id) or \
                    load(af.path, af.agent_id, run.index)
            return loaded[af.path]

        for af in cands:  # every transcript naming a world is an arm's or one an arm launched: no judge
            run.arm_agents.add(af.agent_id)
            run.arm_agents.update(get(af).children)
        done, kids = (lambda af: get(af).final_message() is not None), (lambda af: get(af).children)
        cands = provenance.sift(run, cell.id, cands, run.plan.planned_at, kids)
        pick = pick_transcript(cands, cell.prompt, done, kids, lambda af: _spawned(get(af), af.agent_id))
        ignored: list = []
        if run.plan.sessions and pick is not None and done(pick):
            # Launched twice by the run's own sessions (every candidate left is theirs): the one collect already
            # took the output from counts, else the first finished one to start; the others are ignored.
            both = provenance.twins(cands, cell.prompt, done, kids)
            if len(both) > 1:
                pick = next((c for c in both if run.first_read.took(c.path, cell.id)), both[0])
                ignored = [c for c in both if c is not pick]
        if run.plan.cleaned_at and pick is not None and collected(cdir) is None:
            run.late.append((cell.id, pick.where))  # its world and skill copy are gone: nothing to audit
            continue
        if run.plan.cleaned_at or pick is None:
            # Gone from Claude Code's folder (cleaned up, another machine): what was collected stands.
            kept = collected(cdir, audit(False))
            if kept is not None:
                found[cell.id] = kept
                kept.let_go_of_final()
                run.received[cell.id] = projects.first_prompt(cdir / "transcript.jsonl")
            continue
        t = loaded.get(pick.path) or load(pick.path, pick.agent_id, run.index)
        final = t.final_message()
        rewritten = run.first_read.changed(pick.path, t.raw, cell.id, run.background,
                                           digest=t.sha256 if isinstance(t, Known) else None) \
            if final is not None else None
        if rewritten is not None:
            # Changed since collect first read it: refused, named; the copy collected then stays.
            run.conflicts[cell.id] = rewritten
            changed.add(cell.id)
            kept = collected(cdir, audit(True))
            if kept is not None:
                found[cell.id] = kept
                kept.let_go_of_final()
                run.received[cell.id] = projects.first_prompt(cdir / "transcript.jsonl")
            continue
        dirty = copy_bytes_if_changed(cdir / "transcript.jsonl", t.raw, run.background)
        meta = meta_path(pick.path)
        if not_regular(meta) is None:
            write_if_changed(cdir / "meta.json", read_text(meta))
        for child in t.children:
            source = run.index.by_id[child]
            data = t.children_raw.get(child)  # the bytes parsed (and audited) are the bytes copied
            if data is None:
                try:
                    data = read_regular_bytes(source)
                except (OSError, BenchError):  # gone since the scan, or swapped for a pipe: not copied
                    continue
            dirty |= copy_bytes_if_changed(cdir / "subagents" / f"agent-{child}.jsonl", data, run.background)
        if final is None:
            run.unfinished.add(cell.id)  # still running or cut off: not collected yet
            continue
        other = provenance.rival(pick, [c for c in cands if c not in ignored], cell.prompt, done, kids)
        if other is not None:
            run.conflicts[cell.id] = f"two finished transcripts claim this cell: {pick.path} and {other.path}"
            changed.add(cell.id)
        differs = run.launched.answer_differs(pick.agent_id, final)
        if differs is not None:  # the session's own record of the agent says otherwise: the trial is invalid
            run.conflicts[cell.id] = "; ".join(filter(None, (run.conflicts.get(cell.id), differs)))
            changed.add(cell.id)
        dirty |= write_if_changed(cdir / "output.md", final.rstrip("\n") + "\n")
        if dirty:
            changed.add(cell.id)
        if isinstance(t, Known):
            found[cell.id] = _kept_known(run, cell, t, cdir, pick, needs_audit(run, cell, cell.id in changed))
        else:
            found[cell.id] = KeptTranscript.of(t, cdir, audit(cell.id in changed))
            summaries.append((cdir, pick.path, summary(t, pick.path, found[cell.id])))
            _write_summaries(run, summaries, wait=False)
        found[cell.id].let_go_of_final()  # written (output.md, the summary): not held for every cell
        run.received[cell.id] = pick.prompt
        for af in ignored:
            ignore(run, cell.id, cell.case, cell.trial, af.path, af.agent_id,
                   f"a second arm this session launched for this cell finished too (a fan-out launched twice?); "
                   f"the first to start counts: {pick.path.name}", get(af).children)
    run.background.wait()  # every copy written before anything below (or a later stage) may read one
    _write_summaries(run, summaries, wait=True)
    provenance.write_refusals(run, found)
    return found, changed


def _write_summaries(run: RunState, summaries: list[tuple[Path, Path, dict]], wait: bool) -> None:
    """Write, in order, each summary whose transcript's digest is known (first_read works it out in the
    background: with ``wait``, every one), and let it go: held until the end of stage 1, the summaries had
    made collect's memory grow with the number of cells (about 5 KB a cell). A summary is a cache checked
    against the transcript's own bytes (summary.known), so one written before its copy is safe."""
    while summaries:
        cdir, source, doc = summaries[0]
        sha = run.first_read.digest_of(source) if wait else run.first_read.digest_if_known(source)
        if sha is None:
            return
        summaries.pop(0)
        if sha:
            write_if_changed(cdir / SUMMARY, text(doc, sha, cdir / SUMMARY))


def _spawned(t, agent_id: str) -> tuple[str, ...]:
    """The prompts of the Agent (Task) calls ``agent_id`` made in ``t``: the subagents it launched."""
    if isinstance(t, Known):
        return t.spawned
    return tuple(str(u.input.get("prompt", "")) for u in t.tool_calls()
                 if u.name in ("Agent", "Task") and u.agent_id == agent_id)


def _kept_known(run: RunState, cell, t: Known, cdir: Path, pick, audit: bool) -> KeptTranscript:
    """What collect keeps of a transcript its summary told (not parsed): the audit's findings kept with the
    summary, or, when the trial is audited and the summary has none, the transcript parsed and audited."""
    audited = None
    if audit:
        audited = t.audited
        if audited is None:
            audited = cell_problems(run, cell, load(pick.path, pick.agent_id, run.index))
    return KeptTranscript(cdir, t.main_id, set(t.model_names), t.final, t.children, t.refused, t.evidence, audited)


def record_models(run: RunState, found: dict) -> None:
    """Record in run.json the models and agent types the collected arm transcripts ran as."""
    models: dict[str, set] = {}
    for cell in run.plan.cells:
        t = found.get(cell.id)
        if t is not None:
            models.setdefault(cell.arm, set()).update(t.models())
    resolved = {arm: tuple(sorted(m)) for arm, m in sorted(models.items())}
    types: dict[str, set] = {}
    for cell in run.plan.cells:
        if cell.id in found:
            types.setdefault(cell.arm, set()).add(
                agent_type(run.tdir(cell.case, cell.trial) / cell.arm / "meta.json") or "unknown")
    agent_types = {arm: tuple(sorted(t)) for arm, t in sorted(types.items())}
    if resolved != dict(run.info.resolved_models) or agent_types != dict(run.info.agent_types):
        run.info = evolve(run.info, resolved_models=resolved, agent_types=agent_types)
        write_atomic(run.run_dir / "run.json", serde.dumps(run.info))


def collected(cdir: Path, audit: Optional[Callable[[Transcript], Optional[list[str]]]] = None
              ) -> Optional[KeptTranscript]:
    """A cell's transcript as collected earlier into the run directory (with its subagents), or None;
    ``audit`` as for :meth:`KeptTranscript.of`."""
    main = cdir / "transcript.jsonl"
    if not (main.is_file() and (cdir / "output.md").is_file()):
        return None
    t = load_copy(cdir, projects.first_agent_id(main) or "collected")
    return KeptTranscript.of(t, cdir, audit) if t.final_message() is not None else None
