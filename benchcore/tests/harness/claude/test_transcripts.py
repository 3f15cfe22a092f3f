"""Finding subagent transcripts in both on-disk layouts, by marker only, and reading them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchcore.harness.claude import projects as T
from benchcore.harness.claude.transcript import Transcript, journal_result, load
from benchcore.harness.collect.contamination import audit_cell

WORLD = "/tmp/benchcore-R-x/worlds/01-a/t1-0a1b2c3d"


def rec(type_, agent, n, **kw) -> dict:
    r = {"type": type_, "uuid": f"{agent}-{n}", "parentUuid": None if n == 0 else f"{agent}-{n - 1}",
         "isSidechain": True, "agentId": agent, "sessionId": "s1", "cwd": "/repo", "version": "2.1.240",
         "timestamp": f"2026-12-02T10:00:{n:02d}.000Z"}
    r.update(kw)
    return r


def user(agent, n, content, **kw):
    return rec("user", agent, n, message={"role": "user", "content": content}, **kw)


def assistant(agent, n, mid, blocks, model="claude-sonnet-4-6", usage=None):
    return rec("assistant", agent, n, requestId=f"req-{mid}",
               message={"id": mid, "role": "assistant", "model": model, "content": blocks,
                        "usage": usage or {"input_tokens": 1, "output_tokens": 2}})


def write(path: Path, records, tail: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + tail)
    return path


def tool(name, tid, **inp):
    return {"type": "tool_use", "id": tid, "name": name, "input": inp}


def test_scan_finds_both_layouts_and_nothing_else(tmp_path):
    proj = tmp_path / "projects" / "-repo"
    write(proj / "s1/subagents/agent-aaa.jsonl", [user("aaa", 0, f"Work in {WORLD} (x).")])
    write(proj / "s1/subagents/workflows/wf_1/agent-bbb.jsonl",
          [user("bbb", 0, [{"type": "text", "text": "Packet id: R:01-a/t1/efficacy"}])])
    write(proj / "s1.jsonl", [user("main", 0, f"Work in {WORLD} (x).")])  # the parent session: not a subagent
    write(proj / "s1/subagents/workflows/wf_1/journal.jsonl", [{"type": "result", "agentId": "bbb"}])
    files = T.scan(tmp_path / "projects")
    assert sorted(f.agent_id for f in files) == ["aaa", "bbb"]
    index = T.Index.build(files)
    assert [f.agent_id for f in index.with_marker(WORLD)] == ["aaa"]
    assert list(index.packet_refs()) == ["R:01-a/t1/efficacy"]


def test_a_planned_prompt_is_held_once_the_plans_string(tmp_path):
    # Issue 40: every transcript's prompt, held by the scan beside the plan's own (the same text), was 8 MB of
    # collect's memory at 3,000 cells and 2,000 judges. A prompt the plan holds is now the plan's string.
    proj = tmp_path / "projects" / "-repo"
    planned = "".join(["Work in ", WORLD, " (x)."])  # made, not a literal: another object than the file's
    write(proj / "s1/subagents/agent-aaa.jsonl", [user("aaa", 0, planned)])
    write(proj / "s1/subagents/agent-bbb.jsonl", [user("bbb", 0, f"Work in {WORLD} (y).")])
    files = {f.agent_id: f for f in T.scan(tmp_path / "projects", planned={planned: planned})}
    assert files["aaa"].prompt is planned
    assert files["bbb"].prompt == f"Work in {WORLD} (y)."  # not planned: its own text, as before
    assert T.Index.build(files.values()).with_marker(WORLD) == [files["aaa"], files["bbb"]]


def test_a_scanned_path_is_held_as_text_and_given_as_a_path(tmp_path):
    # Issue 40: a Path keeps its parts once compared or printed (about 1 KB each, thousands held by a collect);
    # the scan holds the text and gives a Path when asked, by file and by agent id.
    proj = tmp_path / "projects" / "-repo"
    where = write(proj / "s1/subagents/agent-aaa.jsonl", [user("aaa", 0, "go")])
    [found] = T.scan(tmp_path / "projects")
    assert found.path == Path(where) and isinstance(found.path, Path) and found.where == str(where)
    assert not any(isinstance(getattr(found, s, None), Path) for s in found.__slots__)
    index = T.Index.build([found])
    assert index.by_id["aaa"] == Path(where) and index.by_id.get("aaa") == Path(where)
    assert "aaa" in index.by_id and index.by_id.get("zzz") is None and index.by_id.get("zzz", 1) == 1
    assert list(index.by_id.items()) == [("aaa", Path(where))] and list(index.by_id.values()) == [Path(where)]
    assert T.AgentFile(path=str(where), agent_id="aaa", prompt="go", started=found.started) == found


def test_a_marker_never_matches_a_longer_path(tmp_path):
    proj = tmp_path / "projects" / "-repo"
    write(proj / "s/subagents/agent-x.jsonl", [user("x", 0, f"cd {WORLD}9 && ls")])
    write(proj / "s/subagents/agent-y.jsonl", [user("y", 0, f"Read {WORLD}/sub/file.txt only.")])
    index = T.Index.build(T.scan(tmp_path / "projects"))
    assert index.with_marker(WORLD) == []


def test_final_message_joins_the_last_response_and_skips_synthetic(tmp_path):
    p = write(tmp_path / "agent-a.jsonl", [
        user("a", 0, "go"),
        assistant("a", 1, "m1", [tool("Read", "t1", file_path="/x")]),
        user("a", 2, [{"type": "tool_result", "tool_use_id": "t1", "content": "data"}]),
        assistant("a", 3, "m2", [{"type": "thinking", "thinking": "hm"}]),
        assistant("a", 4, "m2", [{"type": "text", "text": "Line one."}]),
        assistant("a", 5, "m2", [{"type": "text", "text": "Line two."}]),
        assistant("a", 6, "syn", [{"type": "text", "text": "API Error"}], model="<synthetic>"),
    ], tail='{"type": "assistant", "trunc')
    t = load(p, "a", T.Index.build([]))
    assert t.final_message() == "Line one.\nLine two."
    assert t.models() == {"claude-sonnet-4-6"}


def test_answers_worked_out_once_are_the_same_each_time_and_not_shared(tmp_path):
    # final_message, tool_uses and tool_calls are kept after the first call: asking again gives the same
    # answer, a caller changing the list it got changes nothing kept, and another transcript has its own.
    done = load(write(tmp_path / "agent-a.jsonl", [
        user("a", 0, "go"), assistant("a", 1, "m1", [tool("Read", "t1", file_path="/x")]),
        user("a", 2, [{"type": "tool_result", "tool_use_id": "t1", "content": "data"}]),
        assistant("a", 3, "m2", [{"type": "text", "text": "Done."}])]), "a", T.Index.build([]))
    running = load(write(tmp_path / "agent-b.jsonl", [
        user("b", 0, "go"), assistant("b", 1, "m1", [tool("Bash", "t2", command="ls")])]), "b", T.Index.build([]))
    for _ in range(2):
        assert done.final_message() == "Done." and running.final_message() is None
        uses, calls = done.tool_uses(), done.tool_calls()
        assert [(u.name, u.input) for u in uses] == [("Read", {"file_path": "/x"})]
        assert [(c.name, c.result, c.ok) for c in calls] == [("Read", "data", True)]
        uses.clear(), calls.clear()
        assert [u.name for u in running.tool_uses()] == ["Bash"]
        assert [(c.name, c.ok) for c in running.tool_calls()] == [("Bash", False)]


def test_an_unfinished_transcript_has_no_final_message(tmp_path):
    p = write(tmp_path / "agent-a.jsonl", [user("a", 0, "go"), assistant("a", 1, "m1", [
        {"type": "text", "text": "Let me look."}, tool("Bash", "t1", command="ls")])])
    assert load(p, "a", T.Index.build([])).final_message() is None


def test_subagents_the_arm_launched_are_followed(tmp_path):
    sub = tmp_path / "projects/-r/s/subagents"
    write(sub / "agent-parent.jsonl", [
        user("parent", 0, "go"),
        assistant("parent", 1, "m1", [tool("Agent", "t1", prompt="help"), tool("Task", "t2", prompt="more"),
                                      tool("Read", "t3", file_path="/agentId: fake")]),
        user("parent", 2, [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
             toolUseResult={"status": "completed", "agentId": "kid1"}),
        user("parent", 3, [{"type": "tool_result", "tool_use_id": "t2",
                            "content": [{"type": "text", "text": "done\nagentId: kid2"}]}]),
        user("parent", 4, [{"type": "tool_result", "tool_use_id": "t3", "content": "agentId: notakid"}]),
        assistant("parent", 5, "m2", [{"type": "text", "text": "All done."}]),
    ])
    write(sub / "agent-kid1.jsonl", [user("kid1", 0, "help"), assistant("kid1", 1, "k1", [
        tool("Agent", "t9", prompt="deeper")]), user("kid1", 2, [{"type": "tool_result", "tool_use_id": "t9",
                                                                   "content": "agentId: grandkid"}])])
    write(sub / "agent-kid2.jsonl", [user("kid2", 0, "more")])
    write(sub / "agent-grandkid.jsonl", [user("grandkid", 0, "deeper")])
    write(sub / "agent-notakid.jsonl", [user("notakid", 0, "x")])
    index = T.Index.build(T.scan(tmp_path / "projects"))
    t = load(sub / "agent-parent.jsonl", "parent", index)
    assert t.children == ("kid1", "kid2", "grandkid")
    assert t.final_message() == "All done."  # the children's records never count as its answer


def test_structured_output_is_the_schema_answer(tmp_path):
    p = write(tmp_path / "agent-j.jsonl", [
        user("j", 0, "judge"),
        assistant("j", 1, "m1", [tool("StructuredOutput", "t1", verdict="A", rationale="r")]),
        user("j", 2, [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]),
    ])
    assert load(p, "j", T.Index.build([])).structured_output() == {"verdict": "A", "rationale": "r"}


# ----------------------------------------------------------------------------- audit

REPO = "/home/u/skills-repo"
COPIES = {"new": "/tmp/b/skills/aa11/greet", "previous": "/tmp/b/skills/bb22/greet"}
CASE_MD = f"{REPO}/tests/git/greet/01-a/case.md"


def cell(tmp_path, *blocks, extra=(), results=None) -> Transcript:
    """A cell's transcript: each tool call, then its result (``results``: tool id -> (text, is_error);
    by default each call ran and showed "ok")."""
    records = [user("c", 0, "go")]
    for i, b in enumerate(blocks):
        records.append(assistant("c", 2 * i + 1, f"m{i}", [b]))
        text, error = (results or {}).get(b["id"], ("ok", False))
        block = {"type": "tool_result", "tool_use_id": b["id"], "content": text}
        if error:
            block["is_error"] = True
        records.append(user("c", 2 * i + 2, [block]))
    records.extend(extra)
    records.append(assistant("c", 99, "mz", [{"type": "text", "text": "done"}]))
    return load(write(tmp_path / "agent-c.jsonl", records), "c", T.Index.build([]))


def audit(arm, t, own=None):
    return audit_cell(arm, t, repo=REPO, run_dir="/r", skill_copies=COPIES, own_copy=own, case_files=[CASE_MD])


BASELINE_BAD = [
    (tool("Skill", "t", skill="greet"), "invoked the skill 'greet'"),
    (tool("Read", "t", file_path="/anywhere/SKILL.md"), "read a SKILL.md"),
    (tool("Bash", "t", command=f"ls {COPIES['new']}"), "read a skill copy"),
    (tool("Grep", "t", pattern="greet", path=f"{REPO}/tests"), "read the repository's skills or tests"),
    (tool("Glob", "t", pattern="**/*.md", path=f"{REPO}/.claude/skills/x"), "read the repository's skills or tests"),
    (tool("Read", "t", file_path=CASE_MD), "read its case's case.md"),
]


def test_relative_reads_from_the_repository_are_caught(tmp_path):
    # Bug: a subagent starts in the repository, so "cat tests/<skill>/<case>/case.md" or "ls skills/<skill>"
    # read them without naming the repository; only absolute paths were caught.
    rel_case = "tests/git/greet/01-a/case.md"

    def rel_audit(arm, t, own=None):
        return audit_cell(arm, t, repo=REPO, run_dir=f"{REPO}/tests/.reports/runs/R", skill_copies=COPIES, own_copy=own,
                          case_files=[CASE_MD, rel_case], skill_rel="skills/git/greet", tests_rel="tests/git/greet",
                          run_rel="tests/.reports/runs/R", world=WORLD)

    for command in ("ls skills/git/greet", "grep -r hello tests/git/greet/", "cat ./skills/git/greet/notes.md"):
        problems = rel_audit("baseline", cell(tmp_path, tool("Bash", "t", command=command)))
        assert problems and problems[0].startswith("read the repository's skills or tests"), command
    problems = rel_audit("new", cell(tmp_path, tool("Read", "t", file_path=f"{COPIES['new']}/SKILL.md"),
                                     tool("Bash", "t2", command=f"cat {rel_case}")), COPIES["new"])
    assert problems[0].startswith("read its case's case.md")
    # Bug: a with-skill arm could read the repository's (edited) skill, the tests' sample answers or the
    # other arms' outputs in the run directory unflagged; only a baseline was watched for these.
    own = COPIES["previous"]
    read_own = tool("Read", "t0", file_path=f"{own}/SKILL.md")
    for command, message in ((f"cat {REPO}/skills/git/greet/SKILL.md", "read the repository's or an installed copy"),
                             ("cat .claude/skills/greet/SKILL.md", "read the repository's or an installed copy"),
                             ("cat tests/git/greet/02-b/samples/good/output.md", "read the benchmark's tests"),
                             ("cat tests/.reports/runs/R/cases/01-a/t1/new/output.md", "read the benchmark's tests")):
        problems = rel_audit("previous", cell(tmp_path, read_own, tool("Bash", "t", command=command)), own)
        assert problems and problems[0].startswith(message), (command, problems)
    assert rel_audit("previous", cell(tmp_path, read_own, tool("Read", "t", file_path=f"{own}/refs/x.md")), own) == []
    # A world's own folders that merely share a name are not the repository's.
    for command in (f"cd {WORLD} && ls tests/", f"cd {WORLD} && cat myskills/git/greet.md", "ls skills/git/greeter",
                    f"cd {WORLD} && pytest tests/git/greet"):
        assert rel_audit("baseline", cell(tmp_path, tool("Bash", "t", command=command))) == [], command


def test_a_clean_baseline_passes(tmp_path):
    t = cell(tmp_path, tool("Bash", "t", command=f"cd {WORLD} && cat README.md"))
    assert audit("baseline", t) == []


def test_baseline_contamination(tmp_path):
    for block, message in BASELINE_BAD:
        problems = audit("baseline", cell(tmp_path, block))
        assert len(problems) == 1 and problems[0].startswith(message), (block, problems)


def test_attribution_inherited_from_the_orchestrators_turn_is_not_contamination(tmp_path):
    # Claude Code 2.1.328 writes attributionSkill: "benchmark-skill" on every record of every subagent
    # launched during the /benchmark-skill turn; it says nothing about what the arm did.
    t = cell(tmp_path, tool("Bash", "t", command=f"cd {WORLD} && cat README.md"),
             extra=[rec("assistant", "c", 50, attributionSkill="benchmark-skill",
                        message={"id": "mq", "role": "assistant", "model": "m", "content": []})])
    assert audit("baseline", t) == []


def test_a_skill_body_loaded_into_the_baseline(tmp_path):
    body = {"role": "user", "content": [{"type": "text", "text": "Base directory for this skill: /x/greet\n\nGreet."}]}
    t = cell(tmp_path, extra=[rec("user", "c", 50, isMeta=True, sourceToolUseID="toolu_1", message=body)])
    assert audit("baseline", t) == ["loaded a skill's body (an isMeta record after a Skill call)"]


def test_a_skill_claude_code_loaded_into_the_baseline_is_contamination(tmp_path):
    t = cell(tmp_path, tool("Skill", "s1", skill="greet"),
             extra=[user("c", 60, [{"type": "text", "text": "Base directory for this skill: /x\n\nGreet warmly."}],
                         isMeta=True, sourceToolUseID="s1")])
    assert audit("baseline", t) == ["invoked the skill 'greet'",
                                    "loaded a skill's body (an isMeta record after a Skill call)"]


def test_a_refused_read_is_no_read_and_makes_the_trial_invalid(tmp_path):
    # Bug: "read its own copy" was taken from the tool input; with ordinary permissions the Read was refused,
    # the arm never saw the skill, and its trial was scored.
    own = COPIES["new"]
    refusal = f"Claude requested permissions to read from {own}/SKILL.md, but you haven't granted it yet."
    t = cell(tmp_path, tool("Read", "t", file_path=f"{own}/SKILL.md"), results={"t": (refusal, True)})
    assert audit("new", t, own) == [
        f"Claude Code refused its tool call Read {own}/SKILL.md: {refusal}",
        f"never read its skill copy's SKILL.md ({own}/SKILL.md), so the skill under test did not run"]
    # A refused read of a SKILL.md by the baseline showed it nothing, but the refusal itself is named.
    t = cell(tmp_path, tool("Bash", "t", command="cat /anywhere/SKILL.md"),
             results={"t": ("This command requires approval", True)})
    assert audit("baseline", t) == ["Claude Code refused its tool call Bash cat /anywhere/SKILL.md: "
                                    "This command requires approval"]
    # A failed read (no such file) is no read either, and no refusal.
    t = cell(tmp_path, tool("Read", "t", file_path="/anywhere/SKILL.md"), results={"t": ("File does not exist.", True)})
    assert audit("baseline", t) == []


def test_a_marker_is_found_as_the_pattern_found_it():
    # with_marker looks for each world without compiling a pattern per world; it finds what the pattern found.
    import random

    rng = random.Random(7)
    marker = "/tmp/b/worlds/0a1b"
    pieces = [marker, "/", ".", "x", "-", "_", " ", "\n", "9", "(", "/tmp/b/worlds/0a1", "b/", ".md", ")"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        assert T.holds_marker(text, marker) == bool(T._marker_pattern(marker).search(text)), text


def test_a_result_that_quotes_a_licence_is_no_refusal(tmp_path):
    # Bug: a short result that ran (an Edit's snippet of a file under a licence saying "Permission to use, copy,
    # modify") was taken for Claude Code's refusal, and the trial was invalid. Unflagged, a refusal is Claude
    # Code's sentence: the result's first line.
    snippet = ("The file /w/x.py has been updated. Here's the result of running `cat -n` on a snippet of the "
               "edited file:\n1\t# Copyright 2001 by someone. # checked\n2\t#\n3\t# Permission to use, copy, "
               "modify, and distribute this software")
    t = cell(tmp_path, tool("Edit", "t", file_path="/w/x.py", old_string="a", new_string="b"),
             results={"t": (snippet, False)})
    [call] = t.tool_calls()
    assert call.ok and not call.refused and audit("baseline", t) == []
    said = "Permission to use Bash with command rm -rf / has been denied."
    t = cell(tmp_path, tool("Bash", "t", command="rm -rf /"), results={"t": (said, False)})
    [call] = t.tool_calls()
    assert call.refused and not call.ok


def test_what_a_result_showed_counts_whatever_the_command(tmp_path):
    from benchcore.harness.collect.contamination import Fingerprints
    fp = Fingerprints(skill={"new": ("Greet the reader by name, warmly.", "skills/git/greet/"),
                             "previous": ("Greet the reader by name.", "skills/git/greet/")},
                      skill_md={"new": ("Greet the reader by name, warmly.",), "previous": ("Greet the reader by name.",)},
                      case=("It names the reader in the first line.",), tests=("tests/git/greet/",),
                      run=('"run_id": "R"',))

    def run(arm, command, shown, own=None):
        t = cell(tmp_path, *([tool("Read", "o", file_path=f"{own}/SKILL.md")] if own else []),
                 tool("Bash", "t", command=command), results={"t": (shown, False), "o": ("x", False)})
        return audit_cell(arm, t, repo=REPO, run_dir="/r", skill_copies=COPIES, own_copy=own, case_files=[CASE_MD],
                          fingerprints=fp)

    assert run("baseline", "grep -rn greeting .", "./SKILL.md:4:Greet the reader by name.") == [
        "saw the skill's text (the result of Bash grep -rn greeting . holds 'Greet the reader by name.')"]
    assert run("baseline", "find . -name '*.md' | xargs cat", "- It names the reader in the first line.\n")[0].startswith(
        "saw its case's criteria or assertions")
    assert run("baseline", "grep -rl reader tests", "tests/git/greet/02-b/case.md\n")[0].startswith("saw the skill's tests")
    assert run("new", "cat tests/.reports/runs/*/plan.json", '{"run_id": "R", "cells": []}', COPIES["new"])[0].startswith(
        "saw the run folder's files")
    assert run("previous", "cat ../*/greet/SKILL.md", "Greet the reader by name, warmly.", COPIES["previous"]) == [
        "saw another arm's skill copy (the result of Bash cat ../*/greet/SKILL.md holds "
        "'Greet the reader by name, warmly.')"]
    # Its own copy's text, read by any command, is its engagement.
    t = cell(tmp_path, tool("Bash", "t", command="cat $(ls -d /tmp/b/skills/*/greet | head -1)/SKILL.md"),
             results={"t": ("---\nname: greet\n---\nGreet the reader by name, warmly.\n", False)})
    assert audit_cell("new", t, repo=REPO, run_dir="/r", skill_copies=COPIES, own_copy=COPIES["new"],
                      case_files=[CASE_MD], fingerprints=fp) == []


def test_a_result_seen_before_is_remembered_and_a_hit_is_compared_whole(tmp_path, monkeypatch):
    # The audit remembers what a long result showed and does not search it again when the same text comes
    # back (a file read twice). It files a result by its length and ends: one that differs in one character,
    # same length, same ends (the same key), is searched.
    from benchcore.harness.collect import contamination as C
    fp = C.Fingerprints(case=("It names the reader in the first line.",))
    pad = "x" * 3000 + "\n"
    leaked = pad + "- It names the reader in the first line.\n" + pad
    clean = pad + "- It names the reader in the first linE.\n" + pad
    assert len(leaked) == len(clean) >= C.MEMO_FROM

    def run(*shown):
        t = cell(tmp_path, *[tool("Bash", f"t{i}", command="cat notes.md") for i in range(len(shown))],
                 results={f"t{i}": (text, False) for i, text in enumerate(shown)})
        return audit_cell("baseline", t, repo=REPO, run_dir="/r", skill_copies=COPIES, own_copy=None,
                          case_files=[CASE_MD], fingerprints=fp)

    saw = "saw its case's criteria or assertions (the result of Bash cat notes.md holds"
    for budget in (C.MEMO_BYTES, 1):  # remembered; and a memory too small for one result (starts again each time)
        monkeypatch.setattr(C, "MEMO_BYTES", budget)
        assert [p[:len(saw)] for p in run(leaked, clean, leaked, clean)] == [saw, saw]
        assert run(clean, clean) == [] and [p[:len(saw)] for p in run(clean, leaked)] == [saw]


def test_engagement_of_a_with_skill_arm(tmp_path):
    own = COPIES["new"]
    assert audit("new", cell(tmp_path, tool("Read", "t", file_path=f"{own}/SKILL.md")), own) == []
    assert audit("new", cell(tmp_path, tool("Bash", "t", command=f"cat {own}/SKILL.md")), own) == []
    problems = audit("new", cell(tmp_path, tool("Read", "t", file_path=f"{COPIES['previous']}/SKILL.md")), own)
    assert problems == [f"read another arm's skill copy: Read {COPIES['previous']}/SKILL.md",
                        f"never read its skill copy's SKILL.md ({own}/SKILL.md), so the skill under test did not run"]
    problems = audit("previous", cell(tmp_path, tool("Read", "t", file_path=f"{COPIES['previous']}/SKILL.md"),
                                      tool("Skill", "t2", skill="greet")), COPIES["previous"])
    assert problems == ["invoked the installed skill 'greet' instead of its copy"]
    problems = audit("new", cell(tmp_path, tool("Read", "t", file_path=f"{own}/SKILL.md"),
                                 tool("Read", "t2", file_path=CASE_MD)), own)
    assert problems[0].startswith("read its case's case.md")


def test_a_workflow_journal_records_each_agents_result(tmp_path):
    wf = tmp_path / "s/subagents/workflows/wf_1"
    p = write(wf / "agent-j.jsonl", [user("j", 0, "judge")])
    write(wf / "journal.jsonl", [{"type": "started", "key": "v2:1", "agentId": "j"},
                                 {"type": "result", "key": "v2:1", "agentId": "j", "result": {"verdict": "B"}},
                                 {"type": "result", "key": "v2:2", "agentId": "k", "result": "other"}])
    assert journal_result(p, "j") == {"verdict": "B"}
    assert journal_result(p, "nobody") is None
    flat = write(tmp_path / "s/subagents/agent-j.jsonl", [user("j", 0, "judge")])
    assert journal_result(flat, "j") is None  # the Agent-tool layout has no journal


# Lines on which msgspec and json can part: what msgspec refuses and json reads (NaN, 1e400, a lone surrogate,
# UTF-16, UTF-8 with a BOM, encoded surrogates), integers past 64 bits (orjson gives floats), repeated keys,
# floats that round, an integer json refuses (more than 4,300 digits), nesting, and lines that are not records.
LINES = [b'{"type":"user","n":1}', b'{"type":"user"}  \r', b' {"a":1}', b'{"a":1} x', b'{"a":', b'{"a":"\xff"}',
         '{"a":"\u00e9"}'.encode("utf-16"), '{"a":"\u00e9"}'.encode("utf-8-sig"), b'[1,2]', b'{"a":"\\ud83d\\ude00"}',
         b'{"a":NaN}', b'{"a":1}{"b":2}', '{"x":"y"}', ' {"x":"y"}', '{"x":', b'\t',
         b'{"a":123456789012345678901234567890,"b":-18446744073709551617}', b'{"a":1e400}', b'{"a":-Infinity}',
         b'{"a":"\\ud800 lone"}', b'{"a":"\xed\xa0\x80"}', b'{"a":1,"a":2,"b":{"c":[0.1,1e-7,2.5e+300,-0.0]}}',
         b'{"a":0.30000000000000004,"b":9007199254740993.0,"c":1.7976931348623157e308}',
         b'{"a":' + b"9" * 5000 + b"}", b'{"a":' + b"[" * 50 + b"]" * 50 + b"}", b'{"a":"tab\\tquote\\"nul\\u0000"}']


@pytest.mark.parametrize("fast", [True, False], ids=["msgspec", "json only"])
def test_a_line_is_read_as_json_loads_reads_it(fast, monkeypatch):
    # record_of reads a line with msgspec where it can (2.2x json's scanner), else with json's C scanner: every
    # line below reads as json.loads reads it, to the type (None where json.loads fails or gives no object),
    # with msgspec and without it (a Python where it is not installed).
    from benchcore.harness.claude import transcript

    if not fast:
        monkeypatch.setattr(transcript, "_fast_decode", None)
    else:
        assert transcript._fast_decode is not None, "msgspec, a dependency of benchcore, is not installed"
    for line in LINES:
        try:
            want = json.loads(line)
            want = want if isinstance(want, dict) else None
        except ValueError:
            want = None
        got = transcript.record_of(line)
        assert _typed(got) == _typed(want), (line[:80], got, want)


def test_a_transcript_loads_the_same_records_with_msgspec_and_without(tmp_path, monkeypatch):
    # load() decodes each line with msgspec inline (record_of's commonest case); the records are those json
    # reads, with msgspec and without it.
    from benchcore.harness.claude import transcript

    path = tmp_path / "agent-a1.jsonl"
    path.write_bytes(b"\n".join(line if isinstance(line, bytes) else line.encode() for line in LINES) + b"\n")
    index = T.Index.build([])
    fast = [_typed(r) for r in load(path, "a1", index).records]
    monkeypatch.setattr(transcript, "_fast_decode", None)
    slow = [_typed(r) for r in load(path, "a1", index).records]
    assert fast == slow and len(fast) >= 12


def _typed(value):
    """``value`` with the type of every number and string spelled out (1 == 1.0 and NaN != NaN otherwise)."""
    if isinstance(value, dict):
        return [(k, _typed(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, repr(value))


def test_msgspec_reads_the_lines_it_can(monkeypatch):
    # The speed comes from msgspec doing the reading: a record line goes to it, and json is asked only for a
    # line msgspec refuses.
    from benchcore.harness.claude import transcript

    asked = []
    real = transcript._fast_decode
    monkeypatch.setattr(transcript, "_fast_decode", lambda raw: asked.append(raw) or real(raw))
    monkeypatch.setattr(transcript, "loads_line", lambda raw: pytest.fail(f"json asked for {raw!r}"))
    assert transcript.record_of(b'{"type":"user","n":1}') == {"type": "user", "n": 1}
    assert asked == [b'{"type":"user","n":1}']
