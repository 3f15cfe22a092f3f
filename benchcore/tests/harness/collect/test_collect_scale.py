"""Collect's cost grows with the cells, and its memory with the largest transcript, not the whole set.

Counted, not timed: each test counts the work a step does (prompts examined,
journal reads, fsyncs, case files read) or compares a ratio with a wide margin,
so it holds on a loaded machine. The scale figures themselves are measured by
bench/collect_scale.py.
"""

from __future__ import annotations

import json
import os
import random
import re
import tracemalloc
from pathlib import Path

import pytest

from benchcore.harness.claude import transcript as TR
from benchcore.harness.claude import projects as T
from benchcore.harness.collect import cells as C
from benchcore.harness.fanout.prompts import redact, run_redactions
from standin import repo as R
from standin.agent import Script
from test_e2e_benchmark import Bench, greet_files, greet_repo, next_script


class CountedText(str):
    """A prompt that counts how often a marker is looked for in it."""

    looked = 0

    def __contains__(self, other):
        CountedText.looked += 1
        return super().__contains__(other)


def _old_with_marker(files, marker):
    pat = re.compile(re.escape(marker) + r"(?![A-Za-z0-9_/.-]*[A-Za-z0-9_-])")
    return [f for f in files if marker in f.prompt and pat.search(f.prompt)]


def test_a_world_is_looked_up_among_the_prompts_that_name_it_not_among_all():
    worlds = [f"/tmp/bc/worlds/{i:06x}w" for i in range(400)]
    files = [T.AgentFile(path=Path(f"agent-{i}.jsonl"), agent_id=str(i), started="",
                         prompt=CountedText(f"Work in {w}.\nThen report.")) for i, w in enumerate(worlds)]
    index = T.Index.build(files)
    CountedText.looked = 0
    for i, w in enumerate(worlds):
        assert [f.agent_id for f in index.with_marker(w)] == [str(i)]
    # One prompt examined per world (400), where looking through every prompt for every world took 160,000.
    assert CountedText.looked <= 2 * len(worlds)


def test_the_word_index_finds_what_a_scan_of_every_prompt_finds():
    rng = random.Random(3)
    prompts = ["cd /w/abc && ls", "see /w/abc.", "see /w/abc/", "see /w/abcd", "/w/abc.txt", "x/w/abc-1 y",
               "path=/w/abc\n", "`/w/abc`", "/w/ab", "no path", "(/w/abc)", "/w/abc..", "/w/abc./x"]
    files = [T.AgentFile(path=Path(f"a{i}"), agent_id=str(i), started="", prompt=p) for i, p in enumerate(prompts)]
    files += [T.AgentFile(path=Path(f"r{i}"), agent_id=f"r{i}", started="",
                          prompt=" ".join(rng.choice(["/w/abc", "/w/ab", "abc", ".", "/", "-", "x", "\n", "/w/abc-"])
                                          for _ in range(6))) for i in range(300)]
    index = T.Index.build(files)
    for marker in ("/w/abc", "/w/ab", "abc", "/w/abc/", "/w/abc-", "/w/", "/w/abc.", "x"):
        assert index.with_marker(marker) == _old_with_marker(files, marker), marker


def _sequential(text, replacements):
    for old in sorted(replacements, key=len, reverse=True):
        if old:
            text = text.replace(old, replacements[old])
    return text


def test_redaction_gives_what_replacing_every_path_in_turn_gives():
    rng = random.Random(5)
    worlds = [f"/t/r/worlds/{rng.getrandbits(24):06x}" for _ in range(50)]
    copies = ["/t/r/skills/11/greet", "/t/r/skills/22/greet"]
    table = run_redactions(worlds, copies, "/t/r")
    parts = worlds + copies + ["/t/r", "/t/r/skills", "/t/", "x", " ", "/", "/t/r/worlds", "aa"]
    for _ in range(300):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(0, 12)))
        assert redact(text, table) == _sequential(text, dict(table))
    assert redact("aaab", {"aab": "X", "aa": "Y"}) == _sequential("aaab", {"aab": "X", "aa": "Y"})


def _redact_seconds(n: int, text: str) -> float:
    import time

    table = run_redactions([f"/tmp/benchcore/r/worlds/{i:08x}" for i in range(n)], [], "/tmp/benchcore/r")
    redact(text, table)  # prepared once per run
    start = time.perf_counter()
    for _ in range(20):
        redact(text, table)
    return time.perf_counter() - start


def test_redacting_an_output_costs_the_output_not_the_number_of_worlds():
    text = "Wrote /tmp/benchcore/r/worlds/00000001/greeting.txt.\n" * 40
    small, large = min(_redact_seconds(50, text) for _ in range(5)), min(_redact_seconds(5000, text) for _ in range(5))
    # 100 times the worlds: each path in turn cost 100 times as much; now it is about the same (margin: 10x).
    assert large < 10 * small


def test_a_workflow_journal_is_read_once_for_all_its_judges(tmp_path, monkeypatch):
    wf = tmp_path / "s" / "subagents" / "workflows" / "run1"
    wf.mkdir(parents=True)
    journal = wf / "journal.jsonl"
    journal.write_text("".join(json.dumps({"type": "result", "agentId": f"j{i}", "result": {"n": i}}) + "\n"
                               for i in range(200)))
    reads = []
    real = TR.read_records
    monkeypatch.setattr(TR, "read_records", lambda p: reads.append(p) or real(p))
    assert [TR.journal_result(wf / f"agent-j{i}.jsonl", f"j{i}") for i in range(200)] == [{"n": i} for i in range(200)]
    assert len(reads) == 1
    with journal.open("a") as fh:  # the workflow wrote more since: read again
        fh.write(json.dumps({"type": "result", "agentId": "j0", "result": "again"}) + "\n")
    assert TR.journal_result(wf / "agent-j0.jsonl", "j0") == "again" and len(reads) == 2


def _planned(tmp_path, monkeypatch, cases: int = 2) -> tuple[Bench, Path]:
    bench = Bench(tmp_path, monkeypatch)
    repo = greet_repo(tmp_path)
    for n in range(3, cases + 1):
        R.case(repo, "git/greet", f"{n:02d}-more")
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files()))
    return bench, run_dir


def test_collect_puts_its_copies_on_disk_once_not_one_fsync_each(tmp_path, monkeypatch):
    bench, run_dir = _planned(tmp_path, monkeypatch)
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real(fd))
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "30/30 cells collected" in out
    copies = list(run_dir.glob("cases/*/t*/*/transcript.jsonl"))
    assert len(copies) == 30
    # plan.json, run.json, collect.json (and the lock's pid file): a handful, not one per file written (100+).
    assert len(synced) <= 8


def test_every_file_collect_writes_is_flushed_to_disk_before_the_plan_that_lists_it(tmp_path, monkeypatch):
    # Each transcript's copy is on its way to disk once made (its writeback started, in a thread of its own); a
    # flush that starts after the last copy, output or packet is in place still comes before plan.json.
    bench, run_dir = _planned(tmp_path, monkeypatch)
    from benchcore.harness.collect import run as RUN
    from benchcore.harness.collect import state as S

    events, started = [], []
    real_replace, real_flush, real_start = os.replace, RUN.flush_to_disk, S.start_writeback
    monkeypatch.setattr(os, "replace", lambda src, dst: events.append(("replace", Path(dst))) or real_replace(src, dst))
    monkeypatch.setattr(RUN, "flush_to_disk", lambda folder: events.append(("flush", None)) or real_flush(folder))
    monkeypatch.setattr(S, "start_writeback", lambda path: started.append(Path(path)) or real_start(path))
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "30/30 cells collected" in out
    plan = max(i for i, (kind, p) in enumerate(events) if kind == "replace" and p == run_dir / "plan.json")
    written = [i for i, (kind, p) in enumerate(events[:plan]) if kind == "replace" and "cases" in p.parts]
    assert len(written) >= 60  # the copies and outputs of 30 cells, the packets
    flushes = [i for i, (kind, _) in enumerate(events) if kind == "flush"]
    assert len(flushes) == 1 and max(written) < flushes[0] < plan
    copies = sorted(run_dir.glob("cases/*/t*/*/transcript.jsonl"))
    assert sorted(started) == copies  # every transcript's copy, once


def test_each_copy_collect_keeps_is_that_transcript_byte_for_byte(tmp_path, monkeypatch):
    # Each copy is written from the bytes collect read and parsed, and holds the transcript's bytes exactly.
    bench, run_dir = _planned(tmp_path, monkeypatch)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "30/30 cells collected" in out
    copies = list(run_dir.glob("cases/*/t*/*/transcript.jsonl")) + list(run_dir.glob("cases/*/t*/*/subagents/*.jsonl"))
    sources = {p.read_bytes() for p in bench.config.rglob("agent-*.jsonl")}
    assert len(copies) >= 30 and all(c.read_bytes() in sources for c in copies)


def _pad(config: Path, size: int) -> int:
    """Pad every transcript with a tool result before its last line; the largest file's size."""
    largest = 0
    for path in config.rglob("agent-*.jsonl"):
        lines = path.read_bytes().splitlines(keepends=True)
        rec = {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_pad", "content": "padding line\n" * (size // 13)}]}}
        lines.insert(len(lines) - 1, (json.dumps(rec) + "\n").encode())
        path.write_bytes(b"".join(lines))
        largest = max(largest, path.stat().st_size)
    return largest


def test_a_subagent_transcript_is_copied_from_the_bytes_parsed_not_read_again(tmp_path, monkeypatch):
    # An arm that launched a subagent: the subagent's transcript, read from Claude Code's folder to parse it with
    # the arm's, is copied into the run from those bytes (it was read once more to copy it).
    bench = Bench(tmp_path, monkeypatch)
    greet_repo(tmp_path)
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    cells = {(c["case"], c["trial"], c["arm"]) for c in bench.plan_json(run_dir)["cells"]}
    bench.arms(next_script(out), Script(files=greet_files(), nested=cells))
    from benchcore.harness.collect import cells as C

    again = []
    real = C.read_regular_bytes
    monkeypatch.setattr(C, "read_regular_bytes", lambda p: again.append(Path(p).name) or real(p))
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "30/30 cells collected" in out
    children = sorted(run_dir.glob("cases/*/t*/*/subagents/agent-*.jsonl"))
    assert len(children) == 30
    sources = {p.name: p.read_bytes() for p in bench.config.rglob("agent-*.jsonl")}
    assert all(c.read_bytes() == sources[c.name] for c in children)
    assert again == []


def test_collect_holds_one_transcript_at_a_time_not_the_whole_set(tmp_path, monkeypatch):
    bench, run_dir = _planned(tmp_path, monkeypatch)
    largest = _pad(bench.config, 1_000_000)
    total = sum(p.stat().st_size for p in bench.config.rglob("agent-*.jsonl"))
    assert total > 25 * largest * 0.9
    tracemalloc.start()
    try:
        rc, out, _ = bench.run("collect", str(run_dir))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert rc == 0 and "30/30 cells collected" in out
    # The whole set parsed at once was several times its 30 MB; now a few transcripts' worth at most, and the
    # transcripts waiting for the copy thread (PENDING_BYTES at most: when the thread waits for the lock).
    from benchcore.harness.collect.background import PENDING_BYTES
    assert peak < 5 * largest + 8_000_000 + PENDING_BYTES < total, (peak, largest, total)


def test_each_case_file_is_read_once_per_collect(tmp_path, monkeypatch):
    bench, run_dir = _planned(tmp_path, monkeypatch, cases=4)
    from benchcore.harness.collect import audit

    reads = []
    real = audit.read_text
    monkeypatch.setattr(audit, "read_text", lambda p: reads.append(Path(p)) or real(p))
    rc, _, _ = bench.run("collect", str(run_dir))
    repo_cases = [p for p in reads if p.name == "case.md" and "tests" in p.parts and ".reports" not in p.parts]
    assert rc == 0 and repo_cases and len(repo_cases) == len(set(repo_cases))


def test_a_first_collect_parses_each_arm_transcript_once(tmp_path, monkeypatch):
    bench, run_dir = _planned(tmp_path, monkeypatch)
    arms = sorted(bench.config.rglob("agent-*.jsonl"))
    lines = sum(1 for p in arms for line in p.read_bytes().splitlines() if line.strip())
    parsed, whole, usage = [], [], []
    real_of, real_bytes = TR.record_of, TR.read_regular_bytes
    monkeypatch.setattr(TR, "record_of", lambda raw: parsed.append(1) or real_of(raw))
    monkeypatch.setattr(TR, "read_regular_bytes", lambda p: whole.append(Path(p)) or real_bytes(p))
    from benchcore.harness.runs import folder

    monkeypatch.setattr(folder, "read_cell_usage", lambda cell, *a: usage.append(cell))
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "30/30 cells collected" in out
    # Read whole once each (finding the cell), never again from the copy in the run for the audit.
    assert sorted(whole) == arms
    # Every line parsed once, besides the first records of each file (the scan reads each prompt); the
    # audit's copy and the environment record each parsed every line again before.
    assert len(parsed) <= lines + 5 * len(arms), (len(parsed), lines)
    assert usage == []  # collect asks the verdicts of the run, not what its transcripts spent


def test_plan_json_is_read_once_per_collect(tmp_path, monkeypatch):
    # collect_runs reads each run's plan.json once and hands it down (the session it adds, each stage's state):
    # it was read three times (collect_runs, record_session, RunState).
    bench, run_dir = _planned(tmp_path, monkeypatch)
    from benchcore.harness.store import planfile

    reads = []
    real = planfile.read_text
    monkeypatch.setattr(planfile, "read_text", lambda p: reads.append(Path(p)) or real(p))
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "30/30 cells collected" in out
    assert [p for p in reads if p.name == "plan.json"] == [run_dir / "plan.json"]


def test_a_collect_with_nothing_new_parses_no_transcript_again(tmp_path, monkeypatch):
    # Issue 40: a second collect parsed every arm transcript again. What the first learnt is kept beside each
    # copy (collected.json), keyed by the digest of the bytes: the same bytes are not parsed again, and the
    # run folder comes out the same. A transcript whose bytes changed, or whose summary is gone, is parsed.
    bench, run_dir = _planned(tmp_path, monkeypatch)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "30/30 cells collected" in out
    summaries = sorted(run_dir.glob("cases/*/t*/*/collected.json"))
    assert len(summaries) == 30
    files = lambda: {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file() and p.name != "collect.json"}  # noqa: E731
    before = files()
    loads = []
    real = C.load
    monkeypatch.setattr(C, "load", lambda path, *a: loads.append(Path(path)) or real(path, *a))
    rc, out2, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "30/30 cells collected" in out2
    assert loads == [] and files() == before
    # Its audit's findings are kept with it: a trial whose audit.json is gone is audited again from them.
    audit = run_dir / "cases/01-hello/t1/audit.json"
    kept = audit.read_bytes()
    audit.unlink()
    rc, _, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and loads == [] and audit.read_bytes() == kept
    # Without its summary, a transcript is parsed (and the summary written again).
    gone = summaries[0]
    gone.unlink()
    rc, _, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and len(loads) == 1 and gone.is_file()
    assert {p: b for p, b in files().items() if p != gone} == {p: b for p, b in before.items() if p != gone}


def test_each_summary_is_written_once_its_digest_is_known_not_held_to_the_end(tmp_path, monkeypatch):
    # Issue 40: stage 1 held every cell's summary (about 5 KB a cell) until its last cell, so its memory grew with
    # the number of cells. With the copy thread done at once (each transcript's digest known when the next cell is
    # looked at), at most the cell just read waits; every cell's collected.json is written all the same.
    bench, run_dir = _planned(tmp_path, monkeypatch)
    from concurrent.futures import Future

    from benchcore.harness.collect import background

    def inline(self, size, fn, *args, holds=None):
        done = Future()
        done.set_result(fn(*args))
        return done

    monkeypatch.setattr(background.Background, "submit", inline)
    held = []
    real = C._write_summaries
    monkeypatch.setattr(C, "_write_summaries", lambda run, summaries, wait: (
        real(run, summaries, wait), held.append((len(summaries), wait)))[0])
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "30/30 cells collected" in out
    assert len([h for h in held if not h[1]]) == 30 and max(n for n, _ in held) == 0
    docs = [json.loads(p.read_text()) for p in sorted(run_dir.glob("cases/*/t*/*/collected.json"))]
    copies = {p.parent: p.read_bytes() for p in run_dir.glob("cases/*/t*/*/transcript.jsonl")}
    assert len(docs) == 30 == len(copies)
    import hashlib
    assert sorted(d["sha256"] for d in docs) == sorted(hashlib.sha256(b).hexdigest() for b in copies.values())


def _held(root) -> int:
    """The bytes of every object ``root`` reaches (modules, classes and functions aside, each object once): what
    holding ``root`` keeps alive."""
    import gc
    import sys
    import types

    seen, todo, total = set(), [root], 0
    skip = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, skip):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        todo.extend(gc.get_referents(obj))
    return total


def test_collect_does_not_hold_every_arms_answer_until_it_ends(tmp_path, monkeypatch):
    """An arm's answer is kilobytes: held for every cell until collect ended, it made collect's memory grow with
    the number of cells. Once stage 1 has written it (output.md, the cell's summary) only its presence is held,
    and asked again it comes from the copy, exactly."""
    bench = Bench(tmp_path, monkeypatch)
    greet_repo(tmp_path)
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    answer = lambda case, trial, arm, world: f"{case} {trial} {arm}\n" + "a long answer line\n" * 2_000  # noqa: E731
    bench.arms(next_script(out), Script(files=greet_files(), output=answer))
    from benchcore.harness.collect import run as collect_run

    held = {}
    real = collect_run.find_cells

    def measured(run):
        found, changed = real(run)
        held["bytes"] = _held(found)  # what stage 1 hands on for the cells (the run state it shares aside)
        held["found"] = found
        return found, changed

    monkeypatch.setattr(collect_run, "find_cells", measured)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "30/30 cells collected" in out
    outputs = sorted(run_dir.glob("cases/*/t*/*/output.md"))
    total = sum(p.stat().st_size for p in outputs)
    assert len(outputs) == 30 and total > 30 * 36_000
    assert held["bytes"] < total / 4, (held["bytes"], total)  # not every answer (1.1 MB): a few at most
    # Nor, a cell at a time, what every cell names alike (its models, Claude Code's version, the hooks, the
    # session): held once for all of them, each cell keeps under 1 KB (17 KB for these 30; 50 KB when each held
    # its own copies).
    assert held["bytes"] < 30 * 1024, held["bytes"]
    cell = next(iter(held["found"]))
    case, trial, arm = cell.split("/")
    text = held["found"][cell].final_message()  # asked again: read from the copy, the same text
    assert text.rstrip("\n") + "\n" == (run_dir / "cases" / case / trial / arm / "output.md").read_text()
    assert text.startswith(f"{case} {trial[1:]} {arm}\n")
