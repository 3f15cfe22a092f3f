"""benchcore reads transcripts the real Claude Code CLI wrote (fixtures/transcripts/real-2.1.328).

The fixtures are captures of a small ``/benchmark-skill greet`` run of Claude
Code 2.1.328 against the scripted model of the real-CLI rig, on both paths
(Workflow, and the Agent tool with Workflow disallowed); see the README beside
them. Each check compares what benchcore reads with a source that does not
go through benchcore's reader: the server's log of what it billed
(``oracle.jsonl``), the cell ids Claude Code itself wrote (journal labels,
meta files, the orchestrator's tool calls) and the planned prompts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchcore.harness.claude import projects as T
from benchcore.harness.claude.transcript import journal_result, load
from benchcore.harness.collect.contamination import prompt_problem
from benchcore.judging import parse_text
from benchcore.usage import Components, read_usage
from places import TESTS

REAL = TESTS / "fixtures" / "transcripts" / "real-2.1.328"
LAYOUTS = ("workflow", "agent")


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def planned(layout: str) -> dict:
    return json.loads((REAL / layout / "planned.json").read_text(encoding="utf-8"))


def oracle(layout: str) -> list[dict]:
    return records(REAL / layout / "oracle.jsonl")


def index(layout: str) -> T.Index:
    return T.Index.build(T.scan(REAL / layout / "projects"))


def meta(path: Path) -> dict:
    return json.loads(path.with_name(path.name.removesuffix(".jsonl") + ".meta.json").read_text(encoding="utf-8"))


def main_session(layout: str) -> list[dict]:
    [path] = (REAL / layout / "projects").glob("*/*.jsonl")
    return records(path)


def launches(layout: str) -> dict[str, dict]:
    """tool_use id -> input of every Agent call the orchestrating session made (as Claude Code wrote it)."""
    return {b["id"]: b["input"] for r in main_session(layout) if r.get("type") == "assistant"
            for b in r["message"]["content"] if b.get("type") == "tool_use" and b.get("name") == "Agent"}


def run_id(layout: str) -> str:
    return planned(layout)["packets"][0]["prompt"].split("Packet id: ", 1)[1].split(":", 1)[0]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_discovery_finds_every_captured_subagent_in_its_layout(layout):
    files = T.scan(REAL / layout / "projects")
    on_disk = sorted((REAL / layout / "projects").glob("*/*/subagents/**/agent-*.jsonl"))
    assert sorted(f.path for f in files) == on_disk and len(on_disk) == 3
    assert all(f.agent_id == f.path.name[len("agent-"):-len(".jsonl")] for f in files)
    # The Workflow path writes under subagents/workflows/<runId>/, the Agent tool flat under subagents/.
    assert all((f.path.parent.parent.name == "workflows") == (layout == "workflow") for f in files)
    assert all(f.started.startswith("2026-12-03T") for f in files)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_each_cell_is_matched_by_its_world_path_to_the_agent_claude_code_ran_for_it(layout):
    idx = index(layout)
    agent_calls = launches(layout)
    for cell in planned(layout)["cells"]:
        [found] = idx.with_marker(cell["world"])
        m = meta(found.path)
        if layout == "workflow":
            # Claude Code names the task in the agent's meta and in the journal's started line.
            assert m["description"] == cell["id"]
            started = [r for r in records(found.path.parent / "journal.jsonl") if r.get("type") == "started"]
            assert {r["agentId"]: r["label"] for r in started}[found.agent_id] == cell["id"]
        else:
            # The orchestrator's Agent call that launched it carried exactly the planned prompt.
            assert agent_calls[m["toolUseId"]]["prompt"] == cell["prompt"]
        # Delivered as planned: wrapped and indented by the Workflow harness, verbatim by the Agent tool.
        # The index reads the task unwrapped (the harness's preamble and indentation undone): exactly the plan.
        assert prompt_problem(cell["prompt"], found.prompt) is None
        assert found.prompt == cell["prompt"]
        first = next(r for r in records(found.path) if r.get("type") == "user")["message"]["content"]
        assert first.startswith("[Workflow harness \u2014 computed task]") == (layout == "workflow")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_each_judge_is_found_by_its_packet_id(layout):
    refs = index(layout).packet_refs()
    want = {f"{run_id(layout)}:{p['id']}" for p in planned(layout)["packets"]}
    assert set(refs) == want and all(len(v) == 1 for v in refs.values())


@pytest.mark.parametrize("layout", LAYOUTS)
def test_tokens_read_from_each_transcript_equal_what_the_server_billed(layout):
    billed = oracle(layout)
    idx = index(layout)
    who = {c["id"]: idx.with_marker(c["world"])[0].path for c in planned(layout)["cells"]}
    who.update({"judge:" + pid: files[0].path for pid, files in
                ((ref.split(":", 1)[1], files) for ref, files in idx.packet_refs().items())})
    assert len(who) == 3
    for name, path in who.items():
        mine = [b for b in billed if b["who"] == name or b["who"].startswith(name + "@")]
        want = Components(input=sum(b["usage"]["input_tokens"] for b in mine),
                          output=sum(b["usage"]["output_tokens"] for b in mine),
                          cache_write_5m=sum(b["usage"]["cache_creation"]["ephemeral_5m_input_tokens"] for b in mine),
                          cache_write_1h=sum(b["usage"]["cache_creation"]["ephemeral_1h_input_tokens"] for b in mine),
                          cache_read=sum(b["usage"]["cache_read_input_tokens"] for b in mine))
        got = read_usage(path.read_bytes().splitlines())
        assert mine and got.turns == len(mine), name
        assert got.totals == want, name
        assert dict(got.by_model) == {"claude-opus-5-5": want}, name


def test_a_two_block_response_is_counted_once():
    # The with-skill arm's first response is a text block and a Read: two lines, one message id, the
    # final usage on both (Claude Code 2.1.328); counting lines would double it.
    [cell] = [c for c in planned("workflow")["cells"] if c["arm"] == "new"]
    path = index("workflow").with_marker(cell["world"])[0].path
    assistant = [r for r in records(path) if r["type"] == "assistant"]
    first, second = assistant[0], assistant[1]
    assert first["message"]["id"] == second["message"]["id"]
    assert [first["apiBlockIndex"], second["apiBlockIndex"]] == [0, 1]
    assert first["message"]["usage"] == second["message"]["usage"]
    assert read_usage(path.read_bytes().splitlines()).turns == len({r["message"]["id"] for r in assistant}) == 3


def test_a_workflow_judge_answers_through_structured_output_and_ends_on_it():
    idx = index("workflow")
    [(ref, [judge])] = idx.packet_refs().items()
    t = load(judge.path, judge.agent_id, idx)
    answer = t.structured_output()
    # The journal holds the same object as the agent's result; the transcript has no closing text.
    assert answer == journal_result(judge.path, judge.agent_id)
    assert answer["packet_id"] == ref and answer["verdict"] in ("A", "B", "TIE")
    assert t.final_message() is None
    assert meta(judge.path)["agentType"] == "bench-judge"


def test_an_agent_tool_judge_answers_in_its_final_message():
    idx = index("agent")
    [(ref, [judge])] = idx.packet_refs().items()
    t = load(judge.path, judge.agent_id, idx)
    answer = parse_text(t.final_message())
    assert answer["packet_id"] == ref and answer["verdict"] in ("A", "B", "TIE")
    assert t.structured_output() is None
    # What the orchestrator received back from the Agent call is that same answer.
    tool_use_id = meta(judge.path)["toolUseId"]
    [result] = [b for r in main_session("agent") if r.get("type") == "user" and isinstance(r["message"]["content"], list)
                for b in r["message"]["content"] if b.get("type") == "tool_result" and b["tool_use_id"] == tool_use_id]
    assert parse_text(result["content"][0]["text"]) == answer
