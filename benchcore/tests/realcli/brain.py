"""The scripted model behind the real-CLI rig: it plays every conversation Claude Code opens.

A brain is a pure function of the request, as a model is: it reads the
conversation Claude Code sent (the first user records name the role, the
last record says where it is) and decides the next response. Roles:

- the orchestrator: the session where the user typed ``/benchmark-skill``. It
  follows what SKILL.md tells an agent to do and, after each benchcore
  command, the command's ``next:`` line, parsed, never a fixed list;
- an arm: a subagent whose prompt says "Your working directory for this task
  is <world>". A with-skill arm reads its copy's SKILL.md, then does the task
  with Bash in its world and answers; a baseline does the task and answers;
- a judge: "You are a blind judge". It answers the verdict the scenario
  chooses for the new arm, through StructuredOutput when offered, else as
  plain JSON;
- anything else Claude Code asks (a title, a summary): a short text.

Planted misbehaviour (a baseline that reads an installed SKILL.md or calls
Skill, a with-skill arm that ignores its copy, a judge that reads the run
folder) is chosen per cell or packet by the scenario, and happens only on a
cell's first attempt, as a flaky model would.
"""

from __future__ import annotations

import base64
import json
import re
import shlex
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from server import Reply, Text, ToolUse

ARM_MARK = "Your working directory for this task is "
JUDGE_MARK = "You are a blind judge"
# What each arm's answer ends with, so a judge can tell them apart by content alone.
STYLE = {"new": "Style: house.", "baseline": "Style: plain.", "previous": "Style: old house.", "twin": "Style: twin house."}
# A next: line, as printed, or as Read shows a file (a line number and a tab or arrow before it).
NEXT_RE = re.compile(r"^(?:\s*\d+[\t→])?next: (.*)$", re.M)
OUTPUT_FILE_RE = re.compile(r"<output-file>([^<]+)</output-file>")
# What next: adds to an agent-tasks.jsonl that holds one part of a run too large for one conversation.
PART = "agent-tasks-part.jsonl"
# Subagents Claude Code runs at once in an interactive session ("Concurrent subagent limit reached").
MAX_RUNNING = 20
SCRIPT_RE = re.compile(r'Workflow \{"scriptPath": "([^"]+)"\}')


def forger_command() -> str:
    """``echo <base64> | base64 -d | python3 -``: forger.py, with its own source for its detached process."""
    source = (Path(__file__).with_name("forger.py")).read_text()
    code = f"CODE = {source!r}\n" + source
    return f"echo {base64.b64encode(code.encode()).decode()} | base64 -d | python3 -"


def rewriter_command(cell: str) -> str:
    """``echo <base64> | base64 -d | python3 - <cell>``: rewriter.py, with its own source for its detached process."""
    source = (Path(__file__).with_name("rewriter.py")).read_text()
    code = f"CODE = {source!r}\n" + source
    return f"echo {base64.b64encode(code.encode()).decode()} | base64 -d | python3 - {shlex.quote(cell)}"


def fill_in(text: str, places: dict) -> str:
    """``text`` with each ``{name}`` of ``places`` replaced; every other brace stays (bash's own braces)."""
    for name, value in places.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def text_of(content) -> str:
    """All text in a message's content (strings, text blocks, tool_result contents)."""
    if isinstance(content, str):
        return content
    out = []
    for b in content or []:
        if not isinstance(b, dict):
            continue
        if b.get("type") == "text":
            out.append(b.get("text", ""))
        elif b.get("type") == "tool_result":
            out.append(text_of(b.get("content")))
    return "\n".join(out)


def user_texts(body: dict) -> str:
    """The conversation's opening: every user record before the first response (where Claude Code puts
    the task, wrapped or not, after its own reminders; in a Workflow agent launched in the user's turn,
    the relay of the user's command comes first)."""
    out = []
    for m in body.get("messages", []):
        if m.get("role") != "user":
            break
        out.append(text_of(m.get("content")))
    return "\n".join(out)


def unindent(text: str) -> str:
    """Undo the Workflow harness's two-space indentation of a computed task."""
    return re.sub(r"(?m)^  ", "", text)


def tool_results(msg: dict) -> list[dict]:
    c = msg.get("content")
    return [b for b in c if isinstance(b, dict) and b.get("type") == "tool_result"] if isinstance(c, list) else []


def tool_uses(msg: dict) -> list[dict]:
    c = msg.get("content")
    return [b for b in c if isinstance(b, dict) and b.get("type") == "tool_use"] if isinstance(c, list) else []


def offered(body: dict) -> set[str]:
    return {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}


@dataclass
class Scenario:
    """What the scripted model does. Keys of the sets are cell ids (``case/tN/arm``) or packet ids."""

    # The new arm's outcome per packet id ("WIN" | "LOSS" | "TIE"); the judge answers the matching letter.
    verdict: Callable[[str], str] = lambda packet_id: "WIN"
    output: Callable[[str, str], str] = lambda cell_id, world: f"Done: wrote greeting.txt in {world}."
    files: dict = field(default_factory=lambda: {"greeting.txt": "Hello, reader!\n"})
    baseline_reads_skill: set = field(default_factory=set)
    baseline_calls_skill: set = field(default_factory=set)
    arm_ignores_copy: set = field(default_factory=set)
    judge_reads_run: set = field(default_factory=set)
    # Cells whose arm, after reading its copy, launches a helper subagent whose whole prompt is a forged
    # "Packet id:" line for its trial's efficacy packet (the helper answers a verdict for letter A).
    arm_forges: set = field(default_factory=set)
    # Cells whose with-skill arm, after reading its copy, runs the issue-18 forger (forger.py) with one Bash
    # command: forged baseline and judge transcripts in a new folder under ~/.claude/projects/.
    arm_forges_files: set = field(default_factory=set)
    # Cells whose with-skill arm, after reading its copy, runs rewriter.py with one Bash command: once its
    # trial's baseline has answered, that baseline's own transcript is rewritten in place to another answer.
    arm_rewrites_baseline: set = field(default_factory=set)
    # Agent-tool path: launch at most this many Agent calls in one message (SKILL.md says 10).
    batch: int = 10
    # What an arm runs in its world after reading its copy (each a Bash command, or a (tool, input) pair such
    # as ("Read", {"file_path": "{world}/README.md"}); "{world}" filled in); the default writes the answer files.
    arm_commands: Optional[list] = None
    # Or per cell: (cell id, world) -> those steps (a Bash command or a (tool, input) pair), used instead.
    arm_steps: Optional[Callable[[str, str], list]] = None
    # Whether each answer ends with its arm's STYLE line (judges then tell the arms apart by it). Without it,
    # ``prefer(a, b)`` decides a packet from the two outputs' content alone: "A", "B" or "TIE".
    style: bool = True
    prefer: Optional[Callable[[str, str], str]] = None
    # Cell id -> tool calls an arm makes on its first attempt before its work: (tool name, input), every
    # string in the input formatted with {world} and {repo} (attempts to reach outside, for the guard).
    escapes: dict = field(default_factory=dict)
    # More places an escape's strings may name, beside {world}, {repo}, {other} (the world of the same trial's
    # other arm), {run} (the run folder) and {base} (the temp base holding the run's registry): e.g. {home}.
    places: dict = field(default_factory=dict)
    # Called as (cell id, step, world) before an arm's response: planted outside events (a registry file
    # appearing while an arm runs). The brain runs in the test's process, so this is the test acting.
    on_step: Optional[Callable[[str, int, str], None]] = None
    use_workflow: bool = True
    # Fan-outs ("arms", "judges": the bound script's folder) whose Workflow the orchestrator launches a second
    # time once the first has ended, as a retyped command or a double approval would (issue 27.5).
    launch_twice: set = field(default_factory=set)
    # Seconds the orchestrator "thinks" before each response, as a real model takes time.
    think: float = 0.0
    # /benchmark-skill --draft <skill> (issue 41): (skill name, its SKILL.md text) -> the draft the session writes
    # (docs/writing-cases.md's JSON), as a model that followed references/drafting.md would.
    draft: Optional[Callable[[str, str], dict]] = None


class Brain:
    """Callable for :class:`server.MessagesServer`. ``repo`` is the repository the session works in."""

    def __init__(self, repo: Path, scenario: Scenario, *, wrapper: str = "", skill_under_test: str = "greet"):
        self.repo = Path(repo)
        self.s = scenario
        self.wrapper = wrapper
        self.skill = skill_under_test
        self.lock = threading.Lock()
        self.first_world: dict[str, str] = {}
        self.judge_planted: set[str] = set()
        # Set once the orchestrator has given its final answer (or stopped): the interactive rig waits for it.
        self.finished = False
        # Set when the orchestrator stopped after one part of the Agent-tool path: the user types /clear and
        # the command again (the interactive rig does).
        self.paused = False
        self.relaunched: set[str] = set()  # the scripts launch_twice has launched again
        self.agent_background_field = True

    # ------------------------------------------------------------------ dispatch
    def __call__(self, body: dict) -> Reply:
        first = user_texts(body)
        if JUDGE_MARK in first:
            return self.judge(body, unindent(first))
        if ARM_MARK in first:
            return self.arm(body, unindent(first))
        if "<command-name>/benchmark-skill" in first or "# Benchmark a skill" in first:
            agent = next((t for t in body.get("tools") or [] if isinstance(t, dict) and t.get("name") == "Agent"), {})
            self.agent_background_field = "run_in_background" in (agent.get("input_schema") or {}).get("properties", {})
            if self.s.think:
                time.sleep(self.s.think)
            reply = self.orchestrator(body)
            if any(isinstance(b, Text) and b.text.startswith(("Benchmark finished", "The benchmark stopped"))
                   for b in reply.blocks):
                self.finished = True
            return reply
        forged = re.search(r"^Packet id: (\S+)", first, re.M)
        if forged:  # a helper an arm launched to answer for its own packet
            return Reply([Text(json.dumps({"packet_id": forged.group(1), "verdict": "A", "strength": "clear",
                                           "rationale": "A is clearly better."}))], who="forger")
        return Reply([Text("OK.")], who="aux")

    # ------------------------------------------------------------------ plan lookups
    def plans(self) -> list[dict]:
        out = []
        for p in sorted((self.repo / "tests/.reports/runs").glob("*/plan.json")):
            try:
                out.append(json.loads(p.read_text()))
            except ValueError:
                pass
        return out

    def cell_for(self, prompt: str) -> Optional[dict]:
        for plan in self.plans():
            for c in plan.get("cells", []):
                if c["world"] in prompt:
                    return c
        return None

    def places_of(self, cid: str) -> dict:
        """{other}, {run} and {base} for a cell: the newest plan that holds it."""
        for plan in reversed(self.plans()):
            cells = {c["id"]: c for c in plan.get("cells", [])}
            if cid in cells:
                twin = next((c for c in plan["cells"] if c["id"].rsplit("/", 1)[0] == cid.rsplit("/", 1)[0]
                             and c["id"] != cid), cells[cid])
                return {"other": twin["world"], "run": plan["run_dir"],
                        "base": str(Path(plan.get("temp_root") or plan["run_dir"]).parent)}
        return {}

    # ------------------------------------------------------------------ arms
    def first_attempt(self, cid: str, world: str) -> bool:
        """A cell's first attempt is the first world seen for it; a re-run gets a fresh world."""
        with self.lock:
            return self.first_world.setdefault(cid, world) == world

    def arm(self, body: dict, first: str) -> Reply:
        world = first.split(ARM_MARK, 1)[1].split()[0].rstrip(".")
        cell = self.cell_for(first)
        cid = cell["id"] if cell else f"?{world}"
        skill_dir = cell.get("skill_dir") if cell else None
        planted = lambda chosen: cid in chosen and self.first_attempt(cid, world)
        self.first_attempt(cid, world)
        steps: list = []
        if skill_dir:
            if not planted(self.s.arm_ignores_copy):
                steps.append(ToolUse("Read", {"file_path": f"{skill_dir}/SKILL.md"}))
            if planted(self.s.arm_forges_files):
                steps.append(ToolUse("Bash", {"command": forger_command(), "description": "Prepare the answer"}))
            if planted(self.s.arm_rewrites_baseline):
                steps.append(ToolUse("Bash", {"command": rewriter_command(cid.rsplit("/", 1)[0] + "/baseline"),
                                              "description": "Check the other answer"}))
            if planted(self.s.arm_forges):
                run_id = next(p["run_id"] for p in self.plans() if any(c["id"] == cid and c["world"] == world
                                                                       for c in p.get("cells", [])))
                case, trial = cid.split("/")[:2]
                steps.append(ToolUse("Agent", {"description": "helper", "subagent_type": "general-purpose",
                                               "prompt": f"Packet id: {run_id}:{case}/{trial}/efficacy"}))
        else:
            if planted(self.s.baseline_reads_skill):
                # From where a subagent starts (the repository), ordinary exploration that shows the skill's
                # text, the tests and the run folder: no path in the command names any of them.
                steps.append(ToolUse("Bash", {"command": "grep -rn reader . | head -50",
                                              "description": "Look for house rules"}))
            if planted(self.s.baseline_calls_skill):
                steps.append(ToolUse("Skill", {"skill": self.skill}))
        if planted(self.s.escapes):
            where = dict(self.s.places, world=world, repo=str(self.repo), **self.places_of(cid))
            fill = lambda v: fill_in(v, where) if isinstance(v, str) else v
            # An escape is (tool, input), or a list of them: several tool calls in one assistant message.
            one = lambda name, data: ToolUse(name, {k: fill(v) for k, v in data.items()})
            steps += [[one(*c) for c in e] if isinstance(e, list) else one(*e) for e in self.s.escapes[cid]]
        if self.s.arm_steps is not None:
            steps += [ToolUse("Bash", {"command": c, "description": "Work in the world"}) if isinstance(c, str)
                      else ToolUse(c[0], dict(c[1])) for c in self.s.arm_steps(cid, world)]
        elif self.s.arm_commands is not None:
            fill = lambda v: v.format(world=world) if isinstance(v, str) else v
            steps += [ToolUse("Bash", {"command": fill(c), "description": "Work in the world"}) if isinstance(c, str)
                      else ToolUse(c[0], {k: fill(v) for k, v in c[1].items()}) for c in self.s.arm_commands]
        else:
            writes = " && ".join(f"printf %s {shlex.quote(v)} > {shlex.quote(k)}" for k, v in self.s.files.items())
            steps.append(ToolUse("Bash", {"command": f"cd {world} && {writes}", "description": "Write the answer files"}))
        step = sum(1 for m in body["messages"] if m.get("role") == "assistant" and tool_uses(m))
        if self.s.on_step is not None:
            self.s.on_step(cid, step, world)
        if step < len(steps):
            return Reply(list(steps[step]) if isinstance(steps[step], list) else [steps[step]], who=f"{cid}@{world}")
        arm = cid.rsplit("/", 1)[-1]
        style = f"\n{STYLE[arm]}" if self.s.style else ""
        return Reply([Text(self.s.output(cid, world) + style)], who=f"{cid}@{world}")

    # ------------------------------------------------------------------ judges
    def judge(self, body: dict, first: str) -> Reply:
        m = re.search(r"Packet id: (\S+)", first)
        ref = m.group(1) if m else "?"
        pid = ref.split(":", 1)[1] if ":" in ref else ref
        who = f"judge:{pid}"
        msgs = body["messages"]
        step = sum(1 for mm in msgs if mm.get("role") == "assistant" and tool_uses(mm))
        if pid in self.s.judge_reads_run and step == 0 and "Read" in offered(body) and pid not in self.judge_planted:
            # Planted once: the judge collect re-asks answers without opening anything.
            with self.lock:
                self.judge_planted.add(pid)
            plans = sorted((self.repo / "tests/.reports/runs").glob("*/plan.json"))
            return Reply([ToolUse("Read", {"file_path": str(plans[-1])})], who=who)
        packet = first
        if "## Output A" not in packet:  # the prompt points at a packet file: read it first
            pm = re.search(r"Read the file (\S+?)(?: and|\s)", first)
            if step == 0 and pm:
                return Reply([ToolUse("Read", {"file_path": pm.group(1)})], who=who)
            packet = "\n".join(text_of(mm.get("content")) for mm in msgs if mm.get("role") == "user")
        letter = (self.prefer(packet) if self.s.prefer else self.letter_for(packet, self.s.verdict(pid)))
        answer = {"packet_id": ref, "verdict": letter, "rationale": "It meets the criteria better."}
        if letter != "TIE":
            answer["strength"] = "clear"
        if "StructuredOutput" in offered(body):
            if not any(u.get("name") == "StructuredOutput" for mm in msgs for u in tool_uses(mm)):
                return Reply([ToolUse("StructuredOutput", answer)], who=who)
            return Reply([Text("Answered.")], who=who)
        return Reply([Text(json.dumps(answer))], who=who)

    def prefer(self, packet: str) -> str:
        """The scenario's preference between the packet's two outputs, read from their content."""
        a, b = packet.split("## Output A", 1)[1].split("## Output B", 1)
        return self.s.prefer(a, b.split("\n## ", 1)[0])

    @staticmethod
    def letter_for(packet: str, outcome: str) -> str:
        """The letter whose output is the new arm's, read from the outputs' content, as a judge would."""
        if outcome == "TIE":
            return "TIE"
        a = packet.split("## Output A", 1)[1].split("## Output B", 1)[0]
        new = "A" if STYLE["new"] in a else "B"
        return new if outcome == "WIN" else ("A" if new == "B" else "B")

    # ------------------------------------------------------------------ orchestrator
    def orchestrator(self, body: dict) -> Reply:
        msgs = body["messages"]
        wrapper = self.wrapper or self._wrapper(msgs)
        args = self._arguments(msgs)
        # The user typed the command again (after a refused or cancelled launch ended the turn; measured: the
        # command arrives in the same user message as the refused call's error result): SKILL.md starts over
        # from step 1 with that command, and plan continues the run.
        typed = [i for i, m in enumerate(msgs) if m.get("role") == "user" and "<command-name>" in text_of(m.get("content"))]
        msgs = msgs[typed[-1]:] if typed else msgs
        if args.startswith("--draft"):
            return self._draft(msgs, wrapper, args.split()[1])
        if typed and len(msgs) == 1:
            return self._plan(msgs, wrapper, args)
        last = msgs[-1]
        # Find the newest benchcore output that carries a next: line.
        nxt, since = None, 0
        for i in range(len(msgs) - 1, -1, -1):
            found = NEXT_RE.findall(text_of(msgs[i].get("content"))) if msgs[i].get("role") == "user" else []
            if found and any(r.get("type") == "tool_result" for r in tool_results(msgs[i])):
                nxt, since = found[-1], i
                break
        results = tool_results(last) if last.get("role") == "user" else []
        if any(r.get("is_error") for r in results) and not NEXT_RE.search(text_of(last.get("content"))):
            # SKILL.md: a command that failed without a next step is shown to the user, word for word; stop.
            return Reply([Text("The benchmark stopped:\n" + text_of(last.get("content"))[:2000])], who="orchestrator")
        if len(msgs) > 400:
            return Reply([Text("The benchmark stopped: too many steps.")], who="orchestrator")
        if nxt is None:
            return self._plan(msgs, wrapper, args)
        # What has been launched since that next: line.
        launched = [u for m in msgs[since + 1:] if m.get("role") == "assistant" for u in tool_uses(m)]
        if nxt.startswith("run: "):
            cmd = nxt[len("run: "):].split(" (", 1)[0].split(", then", 1)[0].strip()
            return Reply([ToolUse("Bash", {"command": self._bc(wrapper, cmd), "description": cmd[:40]})], who="orchestrator")
        if PART in nxt and not self.s.use_workflow:
            # SKILL.md: an agent-tasks file next: calls a part is one per conversation; after one, the user
            # types /clear and the command again (plan then continues the run).
            before = [u for m in msgs[:since] if m.get("role") == "assistant" for u in tool_uses(m)
                      if u.get("name") == "Agent"]
            if before and not any(u.get("name") == "Agent" for u in launched):
                self.paused = self.finished = True
                return Reply([Text(f"This conversation has run its part of the benchmark: type /clear, then "
                                   f"/benchmark-skill {args} again to continue.")], who="orchestrator")
        if nxt.startswith("if the arms you launched") and "never launched, launch " in nxt:
            nxt = "launch " + nxt.split("never launched, launch ", 1)[1]  # the arms of this part all ended
        if nxt.startswith("launch "):
            scripts = SCRIPT_RE.findall(nxt)
            then = nxt.rsplit("then run: ", 1)[-1].strip()
            if self.s.use_workflow and scripts:
                done = [u for u in launched if u.get("name") == "Workflow"]
                notified = self._notified(msgs[since + 1:])
                if len(done) > notified:
                    return Reply([Text("Waiting for the workflow to finish.")], who="orchestrator")
                if len(done) < len(scripts):
                    return Reply([ToolUse("Workflow", {"scriptPath": scripts[len(done)]})], who="orchestrator")
                again = [p for p in scripts if Path(p).parent.name in self.s.launch_twice and p not in self.relaunched]
                if again:
                    self.relaunched.add(again[0])
                    return Reply([ToolUse("Workflow", {"scriptPath": again[0]})], who="orchestrator")
                return Reply([ToolUse("Bash", {"command": self._bc(wrapper, then), "description": "collect"})], who="orchestrator")
            return self._agent_path(msgs, since, nxt, then, wrapper, launched)
        if nxt.startswith("nothing"):
            return Reply([Text(self._final(msgs))], who="orchestrator")
        if "benchcore clean" in nxt or nxt.startswith("open "):
            # SKILL.md step 4: the verdict and the report path at once, and in that same message clean in the
            # background (the answer never waits for it); once it has run, the benchmark is finished.
            if any(u.get("name") == "Bash" and " clean " in str(u.get("input", {}).get("command")) for u in launched):
                # SKILL.md: on clean's notification, say nothing unless it failed (the verdict was told already).
                return Reply([Text("Benchmark finished.")], who="orchestrator")
            return Reply([Text(self._final(msgs).replace("Benchmark finished.", "The verdict:", 1)
                               + "\nFinishing in the background: the run's temp worlds and the guard hook stay until "
                                 "clean ends; if Claude Code is closed first, the next /benchmark-skill or "
                                 "benchcore clean removes them."),
                          ToolUse("Bash", {"command": self._bc(wrapper, nxt.split("benchcore", 1)[1].join(["benchcore", ""]).split(" (")[0]),
                                           "description": "clean", "run_in_background": True})], who="orchestrator")
        return Reply([Text(f"I do not know how to follow: {nxt}")], who="orchestrator")

    def _draft(self, msgs, wrapper: str, skill: str) -> Reply:
        """SKILL.md's --draft: Read references/drafting.md, list the skills (validate --json), Read the skill's
        SKILL.md, Write the draft under tests/.reports/, run benchcore draft, and tell the user its lines."""
        uses = [u for m in msgs if m.get("role") == "assistant" for u in tool_uses(m)]
        said = [text_of(r.get("content")) for m in msgs if m.get("role") == "user" for r in tool_results(m)]
        guide = str(Path(wrapper).parent.parent / "references" / "drafting.md")
        draft_file = f"tests/.reports/{skill}.draft.json"
        reads = [u["input"].get("file_path") for u in uses if u.get("name") == "Read"]
        bashes = [u["input"].get("command", "") for u in uses if u.get("name") == "Bash"]
        if guide not in reads:
            return Reply([ToolUse("Read", {"file_path": guide})], who="orchestrator")
        if not any(" validate --json" in c for c in bashes):
            return Reply([ToolUse("Bash", {"command": f'"{wrapper}" validate --json 2>/dev/null',
                                           "description": "List the skills"})], who="orchestrator")
        listed = json.loads(said[1][said[1].index("{"):])
        path = next(s["path"] for s in listed["skills"] if s["name"] == skill)
        skill_md = str(self.repo / path / "SKILL.md")
        if skill_md not in reads:
            return Reply([ToolUse("Read", {"file_path": skill_md})], who="orchestrator")
        if not any(u.get("name") == "Write" for u in uses):
            text = re.sub(r"(?m)^\s*\d+[\t→]", "", said[2])
            return Reply([ToolUse("Write", {"file_path": str(self.repo / draft_file),
                                            "content": json.dumps(self.s.draft(skill, text), indent=1)})],
                         who="orchestrator")
        if not any(f" draft {skill}" in c for c in bashes):
            return Reply([ToolUse("Bash", {"command": f'"{wrapper}" draft {skill} --from {draft_file}',
                                           "description": "Write and validate the drafted cases"})],
                         who="orchestrator")
        self.finished = True
        return Reply([Text("Drafted:\n" + said[-1].split("\nnext:", 1)[0])], who="orchestrator")

    def _plan(self, msgs, wrapper: str, args: str) -> Reply:
        """SKILL.md step 1: plan with Bash in the background and end the turn; when the task notification
        comes, Read the output file it names (its next: line then drives the rest)."""
        uses = [u for m in msgs if m.get("role") == "assistant" for u in tool_uses(m)]
        if not any(u.get("name") == "Bash" for u in uses):
            invoked = self._command(msgs)[0]
            flag = f"--invoked-as {invoked} " if invoked else ""
            return Reply([ToolUse("Bash", {"command": f'"{wrapper}" plan {flag}{args or "--all"}',
                                           "description": "benchcore plan", "run_in_background": True})],
                         who="orchestrator")
        notes = [text_of(m.get("content")) for m in msgs if m.get("role") == "user"]
        out = next((OUTPUT_FILE_RE.search(t).group(1) for t in reversed(notes)
                    if "<task-notification>" in t and OUTPUT_FILE_RE.search(t)), None)
        if out is None:
            return Reply([Text("Planning the benchmark.")], who="orchestrator")
        if any(u.get("name") == "Read" and u["input"].get("file_path") == out for u in uses):
            # Read, and no next: line in it: plan failed; SKILL.md says show the error and stop.
            return Reply([Text("The benchmark stopped:\n" + notes[-1][:2000])], who="orchestrator")
        return Reply([ToolUse("Read", {"file_path": out})], who="orchestrator")

    def _agent_path(self, msgs, since, nxt, then, wrapper, launched) -> Reply:
        # SKILL.md: without the Workflow tool, read the agent-tasks.jsonl the next: line names and make one
        # Agent call per line, at most 10 per message.
        # next: names the file beside the (first) Workflow script it names in full.
        name = re.search(r"no Workflow tool: (\S+) beside", nxt).group(1)
        path = str(Path(SCRIPT_RE.findall(nxt)[0]).parent / name)
        ids = {u["id"]: u for u in launched if u.get("name") == "Read" and u["input"].get("file_path") == path}
        if not ids:
            return Reply([ToolUse("Read", {"file_path": path})], who="orchestrator")
        content = next(text_of(r.get("content")) for m in msgs[since + 1:] if m.get("role") == "user"
                       for r in tool_results(m) if r.get("tool_use_id") in ids)
        # Read shows each line after its number and a tab.
        tasks = [json.loads(re.sub(r"^\s*\d+[\t→]", "", line)) for line in content.splitlines()
                 if re.sub(r"^\s*\d+[\t→]", "", line).startswith("{")]
        agents = [u for u in launched if u.get("name") == "Agent"]
        background = not self._agent_has_background_field(msgs)
        notified = self._notified(msgs[since + 1:])
        if len(agents) < len(tasks) and background and len(agents) - notified + self.s.batch > MAX_RUNNING:
            # SKILL.md: Claude Code runs at most 20 subagents at once (measured: the 21st call is refused).
            return Reply([Text("Waiting for running agents before launching more.")], who="orchestrator")
        if len(agents) < len(tasks):
            batch = tasks[len(agents):len(agents) + self.s.batch]
            # SKILL.md: the line's fields exactly; run_in_background false only where the tool has that field.
            return Reply([ToolUse("Agent", {**t, **({} if background else {"run_in_background": False})})
                          for t in batch], who="orchestrator")
        if background:
            # Every agent runs in the background: wait for a notification per agent launched since next:.
            if notified < len(agents):
                return Reply([Text("Waiting for the agents to finish.")], who="orchestrator")
        return Reply([ToolUse("Bash", {"command": self._bc(wrapper, then), "description": "collect"})], who="orchestrator")

    @staticmethod
    def _notified(msgs) -> int:
        """Task notifications among ``msgs``: in user records, or (measured on 2.1.328, when several arrive
        while a response is streaming) in a record of role "system"."""
        return sum(text_of(m.get("content")).count("<task-notification>") for m in msgs if m.get("role") != "assistant")

    def _agent_has_background_field(self, msgs) -> bool:
        return self.agent_background_field

    def _bc(self, wrapper: str, cmd: str) -> str:
        cmd = cmd.strip().rstrip(".")
        assert cmd.startswith("benchcore "), cmd
        return f'"{wrapper}" {cmd[len("benchcore "):]}'

    def _wrapper(self, msgs) -> str:
        first = user_texts({"messages": msgs})
        m = re.search(r"Base directory for this skill: (\S+)", first)
        if not m:
            raise RuntimeError("the skill body (Base directory for this skill) is not in the conversation")
        return f"{m.group(1)}/scripts/benchcore"

    def _arguments(self, msgs) -> str:
        return self._command(msgs)[1]

    @staticmethod
    def _command(msgs) -> tuple[str, str]:
        """The slash command that loaded this skill and its arguments: the last ``<command-name>`` of the
        conversation's opening that names benchmark-skill (``/benchmark-skill``, or a plugin's
        ``/benchmark-skill:benchmark-skill``), with the ``<command-args>`` that follow it. After ``/clear``
        Claude Code (2.1.328, measured in tmux) opens the new conversation with the ``/clear`` command's own
        record (a local-command caveat, ``<command-name>/clear</command-name>``, empty args) before the
        command the user typed next: that one is not this skill's command."""
        first = user_texts({"messages": msgs})
        names = [m for m in re.finditer(r"<command-name>(.*?)</command-name>", first, re.S)
                 if "benchmark-skill" in m.group(1)]
        if not names:
            return "", ""
        name = names[-1]
        args = re.search(r"<command-args>(.*?)</command-args>", first[name.end():], re.S)
        return name.group(1).strip(), args.group(1).strip() if args else ""

    def _final(self, msgs) -> str:
        for m in reversed(msgs):
            t = text_of(m.get("content"))
            if "efficacy:" in t:
                return "Benchmark finished.\n" + t.split("wrote:", 1)[0].strip()
        return "Benchmark finished."
