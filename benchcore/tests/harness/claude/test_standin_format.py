"""The stand-in writes what the real Claude Code writes.

The fast end-to-end tests trust the stand-in (standin/agent.py) to write transcripts as Claude Code does.
Here it plays the very cells and packets of the real-CLI capture (fixtures/transcripts/real-2.1.328/: the
same planned prompts, the same agent types, on both the Workflow and the Agent-tool path) and what it wrote
is compared with what Claude Code 2.1.328 wrote: the order of the records, every record's fields in their
order (by kind: the prompt, each attachment, api-request, assistant lines, tool results), the message and
usage fields, which records carry an inherited attributionSkill, the .meta.json files, the workflow
journal and the orchestrating session's file. Values are the stand-in's own (ids, times, token figures);
the shape is the real one. A new Claude Code version is brought in by capturing it with the real-CLI rig
(fixtures' README) and making this test pass again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from standin.agent import MODEL, VERSION, Script, run_tasks
from standin.capture import CAPTURE

def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def kind(rec: dict) -> str:
    """What a record is, in the terms the comparison needs."""
    t = rec["type"]
    if t == "attachment":
        return f"attachment:{rec['attachment']['type']}"
    if t == "assistant":
        blocks = rec["message"]["content"]
        return "assistant:" + "+".join(b["type"] if b["type"] != "tool_use" else f"tool_use:{b['name']}" for b in blocks)
    if t == "user":
        content = rec["message"]["content"]
        if isinstance(content, str):
            return "user:prompt"
        return "user:tool_result" + (":ends-turn" if rec.get("toolEndsTurn") else "")
    return t


def agents(root: Path) -> dict[str, tuple[list[dict], dict]]:
    """agentType -> (transcript records, meta) under one projects folder."""
    out = {}
    for meta_path in sorted(root.glob("projects/*/*/subagents/**/agent-*.meta.json")):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        out[meta["agentType"]] = (records(meta_path.with_name(meta_path.name.replace(".meta.json", ".jsonl"))), meta)
    return out


def standin_capture(tmp_path: Path, layout: str) -> Path:
    """The stand-in playing the capture's planned cells and packets in ``layout``; returns its config dir."""
    planned = json.loads((CAPTURE / layout / "planned.json").read_text(encoding="utf-8"))
    rig = tmp_path / "rig"
    text = json.dumps(planned).replace("/rig/", f"{rig}/")
    planned = json.loads(text)
    for cell in planned["cells"]:
        Path(cell["world"]).mkdir(parents=True, exist_ok=True)
        if "Use the skill at " in cell["prompt"]:
            skill = Path(cell["prompt"].split("Use the skill at ", 1)[1].split(" ", 1)[0])
            skill.mkdir(parents=True, exist_ok=True)
            (skill / "SKILL.md").write_text("---\nname: greet\ndescription: Writes greetings in the house style.\n"
                                            "---\nGreet the reader by name.\n", encoding="utf-8")
    repo = rig / "repo"
    repo.mkdir(parents=True, exist_ok=True)
    config = tmp_path / "config"
    agent_type = {"baseline": "bench-baseline"}
    script = Script(layout=layout, tiny=True, files={"01-hello-1": {"greeting.txt": "Hello, reader!\n"}},
                    verdict=lambda *a: "WIN", answer_style=lambda *a: "structured" if layout == "workflow" else "json")
    run_tasks("Arms", [{"id": c["id"], "prompt": c["prompt"], "agentType": agent_type.get(c["arm"], "")}
                       for c in planned["cells"]], config, script, repo)
    run_tasks("Judges", [{"id": p["id"], "prompt": p["prompt"], "agentType": "bench-judge"}
                         for p in planned["packets"]], config, script, repo)
    return config


@pytest.fixture(scope="module", params=["workflow", "agent"])
def pair(request, tmp_path_factory):
    layout = request.param
    config = standin_capture(tmp_path_factory.mktemp(layout), layout)
    return layout, agents(CAPTURE / layout), agents(config), config


def test_the_same_agent_types_with_the_same_meta_fields(pair):
    layout, real, fake, _ = pair
    assert set(fake) == set(real), (layout, sorted(fake), sorted(real))
    for agent_type, (_, meta) in real.items():
        fake_meta = fake[agent_type][1]
        assert list(fake_meta) == list(meta), (layout, agent_type)
        for field in ("agentType", "isBuiltIn", "model", "spawnDepth", "workflowPhase", "inWorkflowRun"):
            assert fake_meta.get(field) == meta.get(field), (layout, agent_type, field)


def test_each_agent_writes_the_same_records_in_the_same_order(pair):
    layout, real, fake, _ = pair
    for agent_type, (recs, _) in real.items():
        assert [kind(r) for r in fake[agent_type][0]] == [kind(r) for r in recs], (layout, agent_type)


def test_every_record_has_the_real_fields_in_the_real_order(pair):
    layout, real, fake, _ = pair
    for agent_type, (recs, _) in real.items():
        for mine, theirs in zip(fake[agent_type][0], recs):
            where = (layout, agent_type, kind(theirs))
            assert list(mine) == list(theirs), where
            if "message" in theirs:
                assert list(mine["message"]) == list(theirs["message"]), where
                if "usage" in theirs["message"]:
                    assert list(mine["message"]["usage"]) == list(theirs["message"]["usage"]), where
                content = theirs["message"]["content"]
                if isinstance(content, list):
                    assert [list(b) for b in mine["message"]["content"]] == [list(b) for b in content], where
            if "attachment" in theirs:
                assert list(mine["attachment"]) == list(theirs["attachment"]), where


def test_version_model_attribution_and_two_block_responses_as_the_real_cli_writes_them(pair):
    layout, real, fake, _ = pair
    for agent_type, (recs, _) in real.items():
        mine = fake[agent_type][0]
        assert {r.get("version") for r in mine if "version" in r} == {VERSION} == {r["version"] for r in recs if "version" in r}
        assert {r["message"]["model"] for r in mine if r["type"] == "assistant"} == {MODEL}
        # attributionSkill is inherited from the orchestrator's turn: on every arm, and on a judge only when
        # the Agent tool launched it in that turn.
        assert ([r.get("attributionSkill") for r in mine if r["type"] == "assistant"]
                == [r.get("attributionSkill") for r in recs if r["type"] == "assistant"]), (layout, agent_type)
        assert {r["attributionAgent"] for r in mine if r["type"] == "assistant"} == {agent_type}
        # A response of several blocks: one line per block, one message id, apiBlockIndex 0.., the final
        # usage on each.
        by_id: dict[str, list[dict]] = {}
        for r in mine:
            if r["type"] == "assistant":
                by_id.setdefault(r["message"]["id"], []).append(r)
        for lines in by_id.values():
            assert [r["apiBlockIndex"] for r in lines] == list(range(len(lines)))
            assert len({json.dumps(r["message"]["usage"], sort_keys=True) for r in lines}) == 1
            assert len({r["requestRef"] for r in lines}) == 1


def test_the_workflow_journal_and_the_session_file_match(pair):
    layout, _, _, config = pair
    real_session = next((CAPTURE / layout).glob("projects/*/*.jsonl"))
    fake_session = next(config.glob("projects/*/*.jsonl"))
    theirs, mine = records(real_session), records(fake_session)
    # The real session file also holds the orchestrator's own turns; the capture kept its cost-state line and
    # the lines that launched the kept agents.
    assert [r for r in mine if r["type"] == "cost-state"] and list(mine[-1]) == list(
        next(r for r in theirs if r["type"] == "cost-state"))
    if layout == "agent":
        uses = [r for r in theirs if r["type"] == "assistant"]
        results = [r for r in theirs if r["type"] == "user"]
        my_uses = [r for r in mine if r["type"] == "assistant"]
        my_results = [r for r in mine if r["type"] == "user"]
        assert len(my_uses) == len(uses) and len(my_results) == len(results)
        assert all(list(r) == list(uses[0]) for r in my_uses)
        assert list(my_results[0]) == list(results[0])
        assert list(my_results[0]["toolUseResult"]) == list(results[0]["toolUseResult"])
        text = my_results[0]["message"]["content"][0]["content"][0]["text"]
        assert text.startswith("[Subagent hand-back]") and "\nagentId: " in text and "<usage>subagent_tokens: " in text
        assert list(my_uses[0]["message"]["content"][0]["input"]) == list(uses[0]["message"]["content"][0]["input"])
        return
    real_journal = records(next((CAPTURE / layout).glob("projects/*/*/subagents/workflows/*/journal.jsonl")))
    fake_journals = sorted(config.glob("projects/*/*/subagents/workflows/*/journal.jsonl"))
    assert len(fake_journals) == 2  # one per fan-out, as the arms and the judges are two workflows
    mine = [r for j in fake_journals for r in records(j)]
    for t in ("launched", "started", "result"):
        assert list(next(r for r in mine if r["type"] == t)) == list(next(r for r in real_journal if r["type"] == t)), t
    started = [r for r in mine if r["type"] == "started"]
    assert {r["label"] for r in started} == {"01-hello-1/t1/new", "01-hello-1/t1/baseline", "01-hello-1/t1/efficacy"}
    assert {r["phase"] for r in started} == {"Arms", "Judges"}
    judge = next(r for r in mine if r["type"] == "result" and isinstance(r["result"], dict))
    assert judge["toolsUsed"] == ["StructuredOutput"] and judge["result"]["verdict"] in ("A", "B")
