"""A verdict at the user's desk: the real CLI in a terminal (tmux), default mode, at real size.

This repository's own ``commit-message`` skill and its five cases are copied
into the rig's throwaway repository (committed on ``main``, then the skill
edited: a three-arm run of 5 cases x 5 trials x 3 arms and 50 judges).
``/benchmark-skill commit-message`` is typed into ``claude --permission-mode
default`` and every dialog is answered as a user would and counted. The
scripted model plays the cases as an agent would: a with-skill arm reads its
copy's SKILL.md; every arm looks at its world (``git status``, ``git diff
--staged``, ``git log``, a Read of the README) and answers with the case's
committed samples (the new and the previous arm the good one, the baseline a
bad one); judges decide from the two outputs' content (the one that is a good
sample wins). Markers planted in the user's, the project's and the local
CLAUDE.md must reach no arm or judge request; the three arms' requests offer
the same tools. Both fan-out paths: Workflow, and the Agent tool (the CLI
started with ``--disallowedTools Workflow``), where plan decides before
launch from the orchestrating model's context window whether the run fits one
conversation (issue 27.6). A terminal session of Claude Code 2.1.328 records
no window, so plan takes the served model's from Claude Code's catalog:
claude-opus-5-5 (the CLI's default) has 1,000,000 tokens and the run goes in
one conversation; claude-sonnet-4-6 (``--model``) has 200,000, the
conservative figure, and the run goes in parts, /clear and the command typed
again between them (the new conversation opens with /clear's own command
record, then the typed command), each part within plan's budget.
The dialogs of the whole run are counted in default mode on both paths, and
in acceptEdits, bypassPermissions (as root, IS_SANDBOX=1) and auto on the Workflow
path. Auto mode (a new user's default in Claude Code 2.1.328) asks the API's
server-side safety check about each tool call: the request carries a
``safeguards`` entry and the answer comes back in the response's
``safeguard_results``; the scripted server answers it (every call
``not_flagged``), so auto mode runs offline as it does online when the check
allows the benchmark's calls.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from benchcore.harness.claude.session import project_slug, read_session
from benchcore.harness.fanout import parts

from brain import ARM_MARK, JUDGE_MARK, Scenario, unindent, user_texts  # noqa: E402
from measure import conversation_growth, orchestrator_sizes  # noqa: E402
from rig import Rig, require_cli  # noqa: E402

require_cli("tmux")

from interactive import InteractiveRig  # noqa: E402

MARKERS = {"user": "MARKER-USER-7f3a", "project": "MARKER-PROJECT-9c1e", "local": "MARKER-LOCAL-2b8d"}
LOOK = ["git -C {world} status", "git -C {world} diff --staged", "git -C {world} log --oneline -5",
        ("Read", {"file_path": "{world}/README.md"})]


def flat(text: str) -> str:
    return " ".join(text.split())


def samples(tests: Path) -> dict:
    """Per case: the good sample's text and the bad one the baseline answers (the first without an act.sh,
    which would be something done to the world rather than said)."""
    out = {}
    for case in sorted(p for p in tests.iterdir() if (p / "case.md").is_file()):
        bads = sorted(d for d in (case / "samples").glob("bad-*"))
        bad = next((d for d in bads if not (d / "act.sh").exists()), bads[0])
        out[case.name] = {"good": (case / "samples/good/output.md").read_text(),
                          "bad": (bad / "output.md").read_text()}
    return out


def scenario(rig: Rig, workflow: bool) -> Scenario:
    answers = samples(rig.repo / rig.tests_path)
    goods = [flat(a["good"]) for a in answers.values()]

    def output(cid: str, world: str) -> str:
        case, _, arm = cid.split("/")
        return answers[case]["bad" if arm == "baseline" else "good"].rstrip("\n")

    def prefer(a: str, b: str) -> str:
        good_a, good_b = (any(g in flat(x) for g in goods) for x in (a, b))
        return "A" if good_a and not good_b else "B" if good_b and not good_a else "TIE"

    # The orchestrator takes a second a response, as a model does (plan's settings reach the session then).
    return Scenario(use_workflow=workflow, arm_commands=LOOK, output=output, style=False, prefer=prefer, think=1.0)


def plant_markers(rig: Rig) -> None:
    (rig.home / ".claude").mkdir(exist_ok=True)
    (rig.home / ".claude/CLAUDE.md").write_text(f"# My habits\n{MARKERS['user']}: answer tersely.\n")
    (rig.repo / "CLAUDE.md").write_text(f"# This project\n{MARKERS['project']}: we use conventional commits.\n")
    (rig.repo / "CLAUDE.local.md").write_text(f"# Mine\n{MARKERS['local']}: sign off as Rig.\n")
    with open(rig.repo / ".git/info/exclude", "a") as fh:  # a user's own files, not part of the skills
        fh.write("CLAUDE.md\nCLAUDE.local.md\n")


def requests_by_role(log: Path, cells: list) -> dict:
    """Every logged request body (as text and tool names) by who it was for: orchestrator, judge, or the
    arm (new, previous, baseline) of the cell whose world its task names."""
    out: dict = {}
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        if "count_tokens" in entry["path"]:
            continue  # Claude Code counting a conversation's tokens (no tools, no system prompt), not a turn
        body = entry["body"]
        first = unindent(user_texts(body))
        if JUDGE_MARK in first:
            role = "judge"
        elif ARM_MARK in first:
            world = first.split(ARM_MARK, 1)[1].split()[0].rstrip(".")
            role = next(c["arm"] for c in cells if c["world"] == world)
        elif "<command-name>/benchmark-skill" in first:
            role = "orchestrator"
        else:
            continue
        tools = tuple(sorted(t.get("name", "") for t in body.get("tools") or []))
        out.setdefault(role, []).append((json.dumps(body), tools))
    return out


# What each permission mode asks in a whole run (no re-run or escalation): (benchcore commands, workflow
# dialogs). Measured here; docs/permissions.md gives these counts.
ASKS = {("workflow", "default"): (1, 2), ("agent-tool", "default"): (1, 0),
        ("workflow", "acceptEdits"): (1, 2), ("workflow", "bypassPermissions"): (0, 0),
        ("workflow", "auto"): (0, 1)}


def session_window(rig: Rig) -> int | None:
    """The orchestrating model's context window as the user's session records it, read by benchcore as plan
    reads it, from each conversation's transcript (/clear starts a new one; the model is the same in all):
    when none is recorded (measured: Claude Code 2.1.328 in a terminal records none; its cost-state record's
    modelUsage has no contextWindow), the served model's in Claude Code's catalog; None when neither."""
    folder = rig.home / ".claude/projects" / project_slug(rig.repo)
    windows = {read_session(f).context_window for f in folder.glob("*.jsonl")}
    assert len(windows) == 1, windows
    return windows.pop()


@pytest.mark.parametrize("path,mode", list(ASKS))
def test_a_real_size_run_reaches_its_verdict_at_the_desk(tmp_path, path, mode):
    decision = desk_run(tmp_path, path, mode)
    if path == "agent-tool":  # the CLI's default model, claude-opus-5-5: 1,000,000 tokens in its catalog
        assert decision["parts"] == 1, decision


def test_on_a_200k_model_the_agent_tool_path_runs_in_parts_at_the_desk(tmp_path):
    # claude-sonnet-4-6 has 200,000 tokens in Claude Code's catalog: the conservative budget, and the same run
    # goes in parts, /clear and the command typed again between them.
    decision = desk_run(tmp_path, "agent-tool", "default", model="claude-sonnet-4-6")
    assert decision["parts"] > 1, decision


def desk_run(tmp_path, path: str, mode: str, model: str | None = None) -> dict:
    """The whole run at the desk, checked; on the Agent-tool path, plan's decision (agent-path.json)."""
    workflow = path == "workflow"
    rig = Rig(tmp_path, layout="commit-message")
    plant_markers(rig)
    log = tmp_path / "requests.jsonl"
    extra = (() if workflow else ("--disallowedTools", "Workflow")) + (("--model", model) if model else ())
    session = InteractiveRig(rig, mode=mode).run(scenario(rig, workflow), "/benchmark-skill commit-message", timeout=1800,
                                      extra_args=extra, log_requests=str(log))
    [run] = rig.runs()
    plan = json.loads((run / "plan.json").read_text())
    results = json.loads((rig.repo / "tests/.reports/commit-message.results.json").read_text())
    # The verdict: good samples beat bad ones and tie with themselves; nothing invalid or missing.
    assert results["shape"] == "three-arm" and results["incomplete"] is False, json.dumps(results)[:3000]
    assert results["verdicts"]["efficacy"]["status"] == "pass"
    assert results["verdicts"]["regression"]["status"] == "pass"
    assert len(plan["cells"]) == 75
    guard = run / "guard.jsonl"
    assert not guard.exists() or not guard.read_text().strip(), "the guard refused an arm's look at its world"
    audits = [json.loads(a.read_text()) for a in run.glob("cases/*/t*/audit.json")]
    assert not [a for a in audits if a.get("invalid")], audits
    assert not list(run.glob("cases/*/t*/.invalid-*")), "a trial was re-run"

    # Dialogs: the first benchcore command (plan; "don't ask again" covers the rest) and one per workflow.
    titles = [f"{d.title} | {d.subject}" for d in session.dialogs]
    assert not [t for t in titles if "workflow" in t.split("|")[0] and "Workflow(" not in t], titles
    bench = [d for d in session.dialogs if "scripts/benchcore" in d.screen.split("Do you want")[0][-600:]]
    workflows = [d for d in session.dialogs if "dynamic workflow" in d.question]
    assert all("plan" in d.answer for d in bench), titles
    assert len(session.dialogs) == len(bench) + len(workflows), titles
    # The whole run asks at most 3 times: the first benchcore plan ("don't ask again" covers the rest) and
    # one per fan-out (arms, judges) on the Workflow path.
    assert (len(bench), len(workflows)) == ASKS[path, mode] and len(session.dialogs) <= 3, titles
    roles = requests_by_role(log, plan["cells"])
    sizes = orchestrator_sizes(log)  # (request bytes, Workflow and Agent calls in it, its messages)
    growth = conversation_growth(sizes)
    if workflow:
        assert sizes[-1][1] == 2 and len(growth) == 1  # one Workflow call per fan-out, one conversation
    else:
        # plan decided before launch from the context window the session records (issue 27.6): on a 1M-context
        # model the five-case three-arm run goes in one conversation; with no window recorded, the conservative
        # budget, and the run goes in parts, each in a fresh conversation (/clear, the command typed again)
        # and each within the budget plan stated. The estimate bounds what they carried together.
        decision = json.loads((run / "workflows/agent-path.json").read_text())
        window = session_window(rig)
        assert decision["budget_bytes"] == parts.budget_for(window), (decision, window)
        if window and window >= 1_000_000:
            assert decision["parts"] == 1, (decision, window)
        if decision["parts"] == 1:
            assert session.parts == len(growth) == 1, (decision, growth)
        else:
            assert session.parts == len(growth) > 1, (decision, growth)
        assert max(growth) <= decision["budget_bytes"], (growth, decision)
        assert sum(growth) <= decision["estimated_bytes"], (growth, decision)
        print(f"\ndesk {path}: the session records context window {window}; plan decided {decision['parts']} "
              f"part(s) (~{decision['estimated_bytes']:,} B against {decision['budget_bytes']:,} B)")
    # CLAUDE.md: loaded by the user's session (so the markers were there to leak), in no arm or judge request.
    orchestrator = roles["orchestrator"][-1][0]
    assert all(m in orchestrator for m in MARKERS.values()), "a marker file was not loaded by the session"
    for role in ("new", "previous", "baseline", "judge"):
        assert roles.get(role), f"no {role} request logged"
        leaked = [r for r, _ in roles[role] if any(m in r for m in MARKERS.values())]
        assert not leaked, f"a CLAUDE.md marker reached a {role} request"
    # The three arms are offered the same tools.
    tool_lists = {role: {tools for _, tools in roles[role]} for role in ("new", "previous", "baseline")}
    assert len(set().union(*tool_lists.values())) == 1, tool_lists

    launches = sum(c for _, c, _ in sizes if c) and max(c for _, c, _ in sizes)
    print(f"\ndesk {path} {mode}: {len(plan['cells'])} cells, {len(session.dialogs)} dialogs ({len(bench)} benchcore, "
          f"{len(workflows)} workflow), {session.seconds:.0f} s; {len(growth)} conversation(s), the orchestrator's "
          f"requests {sizes[0][0]:,} B first, grew by {', '.join(f'{g:,}' for g in growth)} B; "
          f"{launches} launches in the last")
    if mode == "auto":
        # Every tool call of the run went through auto mode's server-side check (and it allowed them).
        checked = session.server.classified
        print(f"desk {path} auto: {len(checked)} tool calls checked by the (scripted) safety check")
        assert checked and all(outcome == "not_flagged" for _, _, outcome in checked)
    return {} if workflow else decision
