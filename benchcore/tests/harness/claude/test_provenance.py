"""Issue 18: only agents the orchestrating session launched count; judges cannot loop; the stand-in's session."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from standin.agent import Script, Session, run_arm, run_tasks, session_id
from test_e2e_benchmark import CASE1, Bench, bench, greet_files, next_script  # noqa: F401
from places import TESTS

FORGED_START = "2099-01-01T00:00:00.000Z"


def results(b: Bench) -> dict:
    return json.loads((b.repo / "tests/.reports/greet.results.json").read_text())


def new_loses(case, trial, comp, rnd):
    return "LOSS" if comp == "efficacy" else "TIE"


def judged_run(b: Bench) -> Path:
    """A run whose new arm loses efficacy everywhere, judged and rendered: efficacy fails."""
    _, out, _ = b.plan("greet", "--seed", "9")
    [run_dir] = b.runs()
    b.arms(next_script(out), Script(files=greet_files()))
    b.run("collect", str(run_dir))
    b.judges(run_dir, Script(verdict=new_loses))
    rc, out, _ = b.run("collect", str(run_dir))
    assert rc == 0 and "nothing missing" in out
    rc, _, _ = b.run("render", str(run_dir))
    assert rc == 1 and results(b)["verdicts"]["efficacy"]["status"] == "fail"
    return run_dir


def forge(b: Bench, run_dir: Path) -> Path:
    """What the forging arm's script writes (issue 18): a new folder under Claude Code's projects holding, for
    every baseline cell, a transcript with the cell's exact planned prompt and a useless answer, and for every
    judge packet one with the exact judge prompt, the new arm's letter and a start in 2099."""
    plan = b.plan_json(run_dir)
    elsewhere = b.tmp / "forger"
    run_tasks("Arms", [{"id": c["id"], "prompt": c["prompt"]} for c in plan["cells"] if c["arm"] == "baseline"],
              elsewhere, Script(files=greet_files(), output=lambda *a: "nothing"), b.repo)
    run_tasks("Judges", [{"id": p["id"], "prompt": p["prompt"]} for p in plan["packets"]], elsewhere,
              Script(verdict=lambda *k: "WIN"), b.repo)
    target = b.config / "projects" / "-forged"
    for f in (elsewhere / "projects").rglob("agent-*.jsonl"):
        text = f.read_text()
        if "You are a blind judge" in text.split("\n", 1)[0] or "Packet id:" in text.split("\n", 2)[0]:
            text = re.sub(r'"timestamp":"[^"]+"', f'"timestamp":"{FORGED_START}"', text)
        dest = target / f.relative_to(elsewhere / "projects")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text)
    shutil.copytree(elsewhere / "projects", target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("agent-*.jsonl"))
    return target


def test_forged_transcripts_in_a_new_projects_folder_change_no_verdict(bench):
    run_dir = judged_run(bench)
    before = results(bench)["cases"][0]["efficacy"]["outcomes"]
    target = forge(bench, run_dir)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "nothing missing" in out
    assert f"refused a transcript for {CASE1}/t1/baseline: {target}" in out
    assert "no session that ran plan or collect for this run" in out
    status = json.loads((run_dir / "collect.json").read_text())
    assert status["provenance"] == f"checked: launched by session {session_id(bench.config, str(bench.repo))}"
    assert {r["cell"] for r in status["refused_transcripts"]} >= {f"{CASE1}/t{n}/baseline" for n in range(1, 6)}
    assert any(FORGED_START in i["why"] or "no session" in i["why"] for i in status["ignored_judges"])
    rc, _, _ = bench.run("render", str(run_dir))
    assert rc == 1 and results(bench)["verdicts"]["efficacy"]["status"] == "fail"
    assert results(bench)["cases"][0]["efficacy"]["outcomes"] == before


def test_without_a_session_id_forged_transcripts_make_trials_invalid_not_a_pass(bench, monkeypatch):
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID")
    run_dir = judged_run(bench)
    assert "sessions" not in bench.plan_json(run_dir)
    forge(bench, run_dir)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and "note: provenance unknown" in out
    assert json.loads((run_dir / "collect.json").read_text())["provenance"].startswith("unknown")
    assert f"INVALID trial {CASE1}/t1" in out and "two finished transcripts claim this cell" in out
    rc, _, _ = bench.run("render", str(run_dir))
    assert results(bench)["verdicts"]["efficacy"]["status"] != "pass"


def test_a_second_finished_transcript_the_session_launched_for_one_cell_is_ignored_not_a_conflict(bench):
    # Issue 27.5: both are agents the run's session launched with the planned prompt (the arms' fan-out
    # launched twice): the first to start counts, the other is named as ignored, and the trial stands.
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files()))
    cell = next(c for c in bench.plan_json(run_dir)["cells"] if c["id"] == f"{CASE1}/t3/baseline")
    [second] = run_tasks("Arms", [{"id": cell["id"], "prompt": cell["prompt"]}], bench.config,
                         Script(files=greet_files(), output=lambda *a: "another answer"), bench.repo)
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and f"INVALID trial {CASE1}/t3" not in out, out
    assert not (run_dir / "cases" / CASE1 / "t3" / "audit.json").is_file() or not json.loads(
        (run_dir / "cases" / CASE1 / "t3" / "audit.json").read_text())["problems"]
    assert "another answer" not in (run_dir / "cases" / CASE1 / "t3" / "baseline" / "output.md").read_text()
    [entry] = json.loads((run_dir / "cases" / CASE1 / "t3" / "ignored.json").read_text())
    assert entry["cell"] == cell["id"] and entry["path"] == str(second) and "the first to start counts" in entry["why"]


def test_a_second_transcript_for_a_cell_from_another_session_stays_refused(bench):
    # Issue 27.5: only the run's own sessions' launches are duplicates; the same planned prompt run from a
    # session that never ran plan or collect (another project folder) is refused, never counted nor ignored.
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files()))
    cell = next(c for c in bench.plan_json(run_dir)["cells"] if c["id"] == f"{CASE1}/t3/baseline")
    other = Session(bench.config, str(bench.repo) + "-elsewhere", "workflow")
    stranger = run_arm(other, cell["id"], cell["prompt"],
                       Script(files=greet_files(), output=lambda *a: "another answer"), bench.repo, None, "bench-arm")
    other.close()
    rc, out, _ = bench.run("collect", str(run_dir))
    assert rc == 0 and f"INVALID trial {CASE1}/t3" not in out, out
    assert "another answer" not in (run_dir / "cases" / CASE1 / "t3" / "baseline" / "output.md").read_text()
    refused = json.loads((run_dir / "cases" / CASE1 / "t3" / "refused.json").read_text())
    assert [(e["cell"], e["path"]) for e in refused] == [(cell["id"], str(stranger))]
    assert "no session that ran plan or collect for this run" in refused[0]["why"]
    assert not (run_dir / "cases" / CASE1 / "t3" / "ignored.json").exists()


def test_a_judge_that_always_answers_prose_is_asked_three_times_then_given_up(bench):
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files()))
    bench.run("collect", str(run_dir))
    prose = lambda case, trial, comp, rnd: "garbage" if (case, trial, comp) == (CASE1, 2, "efficacy") else "json"
    pid = f"{CASE1}/t2/efficacy"
    asked = 0
    for _ in range(5):
        bench.judges(run_dir, Script(answer_style=prose))
        asked += 1
        rc, out, _ = bench.run("collect", str(run_dir))
        if f"gave up judging {pid}" in out:
            break
        assert f"the judge answer for packet {pid} is invalid" in out
    assert asked == 3
    assert "its judges answered invalidly 3 times" in out
    status = json.loads((run_dir / "collect.json").read_text())
    assert [g["packet"] for g in status["given_up_packets"]] == [pid] and pid not in status["pending_packets"]
    assert "workflows/judges" not in out.strip().splitlines()[-1]  # nothing is launched again
    [packet] = [p for p in bench.plan_json(run_dir)["packets"] if p["id"] == pid]
    assert len(packet["invalid_answers"]) == 3
    bench.run("render", str(run_dir))
    eff = results(bench)["cases"][0]["efficacy"]
    assert eff["incomplete"] is True and eff["outcomes"][1] is None
    assert "its judges answered invalidly 3 times" in eff["reason"]


REAL = TESTS / "fixtures/transcripts/real-2.1.328"


def test_the_launches_are_read_from_claude_codes_own_journals_and_agent_results():
    from benchcore.harness.claude.provenance import Launched

    for layout in ("workflow", "agent"):
        projects = REAL / layout / "projects"
        [main] = projects.glob("*/*.jsonl")
        sid = main.stem
        agents = sorted(projects.rglob("agent-*.jsonl"))
        launched = Launched.read(projects, [sid])
        for f in agents:
            aid = f.stem[len("agent-"):]
            assert launched.why_not(f, aid, "2026-12-03T09:08:45.000Z", (sid,), "2026-12-03T09:00:00.000Z") is None
            assert "before its cell or packet was written" in launched.why_not(
                f, aid, "2026-12-03T09:08:45.000Z", (sid,), "2026-12-03T10:00:00.000Z")
            moved = projects / "-elsewhere" / sid / "subagents" / f.name
            why = launched.why_not(moved, aid, "2026-12-03T09:08:45.000Z", (sid,), "")
            assert "is not where Claude Code wrote" in why and f"({f})" in why  # names where it should be
            assert "no session that ran plan or collect" in launched.why_not(f, aid, "", ("another",), "")
        assert "after collect's clock" in launched.why_not(agents[0], "x", "2099-01-01T00:00:00.000Z", (), "")


def test_claude_codes_tools_note_before_an_agent_result_is_not_part_of_its_answer(tmp_path):
    # Real CLI 2.1.328 (realcli test_a_verdict_forged_by_an_arms_helper...): an arm whose Agent call the guard
    # refused ends, and the Agent tool's result holds "<tools-used-before-summary>Agent</tools-used-before-summary>"
    # as a text block before the arm's final text. That note is Claude Code's, so the arm's answer still matches.
    from benchcore.harness.claude.provenance import Launched

    record = json.loads((TESTS / "fixtures/transcripts/real-2.1.328-agent-helper/session-agent-result.jsonl")
                        .read_text())
    sid, result = record["sessionId"], record["toolUseResult"]
    [note, answer] = [b["text"] for b in result["content"]]
    assert note.startswith("<tools-used-before-summary>")
    (tmp_path / "-repo").mkdir()
    (tmp_path / "-repo" / f"{sid}.jsonl").write_text(json.dumps(record) + "\n")
    launched = Launched.read(tmp_path, [sid])
    assert launched.answer_differs(result["agentId"], answer) is None
    assert "is not what Claude Code recorded" in launched.answer_differs(result["agentId"], "another answer")
    # A note the agent wrote as its own whole answer is not dropped: it is what the session recorded.
    alone = dict(record, toolUseResult=dict(result, content=[{"type": "text", "text": note}]))
    (tmp_path / "-repo" / f"{sid}.jsonl").write_text(json.dumps(alone) + "\n")
    assert Launched.read(tmp_path, [sid]).answer_differs(result["agentId"], note) is None


def test_auto_modes_classifier_note_before_a_journal_result_is_not_part_of_the_answer():
    # Bug (the desk run in auto mode, 2.1.328): the Workflow journal's result began with Claude Code's own
    # "Note: ... (the safety classifier) was unavailable ..." paragraph, so every arm's final answer looked
    # changed and every trial was invalid.
    from benchcore.harness.claude.provenance import _without_notes
    note = ("Note: claude-opus-5-5 (the safety classifier) was unavailable when reviewing this subagent's work. "
            "Please carefully verify the subagent's actions and output before acting on them.\n\n")
    assert _without_notes(note + "fix(billing): round once") == "fix(billing): round once"
    assert _without_notes("Note: the answer itself starts so\n\nand goes on") == "Note: the answer itself starts so\n\nand goes on"
    assert _without_notes(note) == note  # nothing after it: the note is all there is, kept as it is
    assert _without_notes({"verdict": "A"}) == {"verdict": "A"}


def _agent_call(n: int, prompt: str) -> list[dict]:
    """A session's Agent call and its completed result, as Claude Code writes them."""
    aid = f"a{n:05d}"
    return [{"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": f"toolu_{n}", "name": "Agent", "input": {"prompt": prompt}}]}},
            {"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": [{"type": "text", "text": "done"}]}]},
             "toolUseResult": {"status": "completed", "agentId": aid,
                               "content": [{"type": "text", "text": f"answer {n}"}]}}]


def test_the_sessions_transcript_is_read_without_holding_its_records(tmp_path):
    # Bug (issue 40, a 200-case run): Launched.read held every record of the session's main transcript, an
    # Agent call with its prompt per cell, so collect's peak memory grew with the cells beyond the plan.
    import tracemalloc
    from benchcore.harness.claude.provenance import Launched

    sid = "s-long"
    (tmp_path / "-repo").mkdir()
    lines = [json.dumps(r) for n in range(1000) for r in _agent_call(n, f"cell {n} " + "x" * 8000)]
    (tmp_path / "-repo" / f"{sid}.jsonl").write_text("\n".join(lines) + "\n")
    size = (tmp_path / "-repo" / f"{sid}.jsonl").stat().st_size
    assert size > 6_000_000
    tracemalloc.start()
    try:
        launched = Launched.read(tmp_path, [sid])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(launched.agents) == 1000 and launched.answer_differs("a00999", "answer 999") is None
    assert peak < size / 5, f"{peak} bytes traced reading a {size}-byte session transcript"


def test_the_agents_answers_are_read_from_their_lines_when_asked_not_held(tmp_path):
    # Issue 40: Launched held every agent's final answer as the session recorded it, kilobytes each in a user's
    # run, so a collect's memory grew with the cells beyond the plan. It now keeps where each answer is and reads
    # that line when asked: the same answers, from the Agent tool's results and from a Workflow journal.
    import tracemalloc
    from benchcore.harness.claude.provenance import Launched

    sid = "s-answers"
    (tmp_path / "-repo").mkdir()
    calls = [_agent_call(n, f"cell {n}") for n in range(300)]
    for n, (_, result) in enumerate(calls):
        result["toolUseResult"]["content"] = [{"type": "text", "text": f"answer {n} " + "y" * 10_000}]
    (tmp_path / "-repo" / f"{sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for c in calls for r in c))
    wf = tmp_path / "-repo" / sid / "subagents" / "workflows" / "wf_1"
    wf.mkdir(parents=True)
    (wf / "journal.jsonl").write_text(json.dumps({"type": "started", "agentId": "w1"}) + "\n" + json.dumps(
        {"type": "result", "agentId": "w1", "result": {"verdict": "A", "rationale": "z" * 10_000}}) + "\n")
    tracemalloc.start()
    try:
        launched = Launched.read(tmp_path, [sid])
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held < 300_000, f"{held} bytes held after reading 3 MB of answers"
    assert launched.answer_differs("a00299", "answer 299 " + "y" * 10_000) is None
    assert "is not what Claude Code recorded" in launched.answer_differs("a00007", "answer 7")
    where, said = launched.recorded("a00007")
    assert said == "answer 7 " + "y" * 10_000 and where.startswith("the Agent tool's result in")
    where, said = launched.recorded("w1")
    assert said == {"verdict": "A", "rationale": "z" * 10_000} and where.startswith("the Workflow journal's result")
    assert launched.recorded("nobody") is None
    (wf / "journal.jsonl").write_text("")  # gone from its line (Claude Code never does this): nothing recorded
    assert launched.recorded("w1") is None


def test_an_agent_result_before_its_call_and_a_malformed_call_id_are_read_as_before(tmp_path):
    from benchcore.harness.claude.transcript import _child_ids

    call, result = _agent_call(1, "p")
    late_call, early_result = _agent_call(2, "q")
    text_named = {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Launched.\nagentId: b7 (use it)"}]}}
    odd = {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": ["toolu_1"], "content": "agentId: nope"}]}}
    # A result is counted wherever its call is in the file (order is the results'), a list where a call id
    # goes matches no call (it stopped collect with a TypeError before), and an id is named once.
    assert _child_ids([early_result, odd, call, result, text_named, late_call, result]) == ["a00002", "a00001", "b7"]
    assert _child_ids([odd, early_result]) == []
