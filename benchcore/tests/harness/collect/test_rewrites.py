"""Collect's sandbox check (harness/collect/rewrites.py) on records the real CLI 2.1.328 wrote: an arm's Bash
call beside the guard's hook_success record (fixtures/transcripts/real-2.1.328-sandbox/, from
realcli/test_realcli_confine.py's run, with the run's plan.json sandbox and the arm's cell)."""

import json

from benchcore import serde
from benchcore.harness.claude.transcript import Transcript
from benchcore.harness.collect.rewrites import unsandboxed_calls
from benchcore.harness.store.planfile import Cell, Sandbox
from places import TESTS

CAPTURE = TESTS / "fixtures" / "transcripts" / "real-2.1.328-sandbox"


def load():
    records = [json.loads(l) for l in (CAPTURE / "arm.jsonl").read_text().splitlines()]
    excerpt = json.loads((CAPTURE / "plan-excerpt.json").read_text())
    c = excerpt["cell"]
    cell = Cell(id=c["id"], case="01-hello-1", trial=1, arm="new", world=c["world"], skill_dir=c["skill_dir"],
                prompt="")
    return records, serde.load(Sandbox, excerpt["sandbox"]), cell


def transcript(records):
    return Transcript(main_id=records[0]["agentId"], records=tuple(records), children=())


def test_a_bash_call_beside_the_guards_rewrite_passes():
    records, box, cell = load()
    assert [r["type"] for r in records].count("attachment") == 2
    assert unsandboxed_calls(transcript(records), cell, box) == []
    assert unsandboxed_calls(transcript(records), cell, None) == []  # an unsandboxed run: nothing to check


def test_a_missing_or_changed_rewrite_makes_the_call_a_problem():
    records, box, cell = load()
    bash_hook = next(i for i, r in enumerate(records) if r.get("attachment", {}).get("hookName") == "PreToolUse:Bash")
    gone = records[:bash_hook] + records[bash_hook + 1:]
    [problem] = unsandboxed_calls(transcript(gone), cell, box)
    assert "did not run in the benchmark's sandbox" in problem and "no hook_success record" in problem
    assert "printf %s 'Hello, reader!'" in problem
    changed = json.loads(json.dumps(records))
    said = json.loads(changed[bash_hook]["attachment"]["stdout"])
    said["hookSpecificOutput"]["updatedInput"]["command"] = "cat ~/.ssh/id_rsa"
    changed[bash_hook]["attachment"]["stdout"] = json.dumps(said)
    [problem] = unsandboxed_calls(transcript(changed), cell, box)
    assert "rewrote it to another command" in problem
    # Another world: the recomputed command differs from what the guard gave.
    other = Cell(id=cell.id, case=cell.case, trial=1, arm="new", world=cell.world + "x", skill_dir=cell.skill_dir,
                 prompt="")
    assert len(unsandboxed_calls(transcript(records), other, box)) == 1


def test_a_bash_call_claude_code_refused_never_ran_so_it_needs_no_rewrite():
    # Default mode with the user's hooks disabled (realcli test_realcli_provenance): no hook answered, and
    # Claude Code refused the compound command itself. It ran nowhere, so it is no sandbox problem (collect
    # names it as a refused call instead); a command that ran and printed the same words is still a problem.
    records, box, cell = load()
    bash_hook = next(i for i, r in enumerate(records) if r.get("attachment", {}).get("hookName") == "PreToolUse:Bash")
    result = next(i for i, r in enumerate(records) if r["type"] == "user" and i > bash_hook)
    refusal = "This Bash command contains multiple operations. The following part requires approval: python3 -"

    def answered(text):
        said = json.loads(json.dumps(records[:bash_hook] + records[bash_hook + 1:]))
        block = said[result - 1]["message"]["content"][0]
        block.update(content=text, is_error=True)
        return transcript(said)

    assert unsandboxed_calls(answered(refusal), cell, box) == []
    assert answered(refusal).refused_calls()  # what collect names instead
    [problem] = unsandboxed_calls(answered(f"Exit code 1\n{refusal}"), cell, box)
    assert "no hook_success record" in problem
