"""The interactive session, as a user runs it: the real CLI in a terminal (tmux), ordinary permissions.

``InteractiveRig(rig).run(scenario, "/benchmark-skill greet")`` starts
``claude --permission-mode <mode>`` in a tmux pane in the rig's repository,
types the command, and then watches the screen as a user would: each
permission dialog Claude Code shows is answered (the first option, "Yes";
for the benchmark's own commands the option that stops asking for them, as
the README tells users to choose) and recorded with its title and what it
asked about. The session ends when the scripted orchestrator has given its
final answer and the screen is idle.

Before the CLI starts, its first-run screens are settled the way a user who
has used Claude Code before has them: onboarding done, the folder trusted,
the API key approved (``~/.claude.json``). Nothing else is pre-approved.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from brain import Brain, Scenario
from rig import Rig, cli_binary
from server import MessagesServer, Reply, Text, ToolUse

# A permission dialog: Claude Code asks "Do you want ...?" above numbered options.
QUESTION_RE = re.compile(r"^\s*(Do you want to [^\n]*\?|Run a dynamic workflow\?[^\n]*)\s*$", re.M)
OPTION_RE = re.compile(r"^\s*(?:❯\s*)?(\d)\.\s+(.+?)\s*$", re.M)
DONT_ASK = re.compile(r"don.t ask again", re.I)


@dataclass
class Dialog:
    question: str
    title: str          # the dialog's heading line(s): the tool, and "from the <name> workflow" when it is
    subject: str        # what it asks about (the command or the file), first line
    answer: str         # the option chosen, as shown
    screen: str = ""    # the screen as the dialog showed


@dataclass
class Session:
    dialogs: list = field(default_factory=list)
    screen: str = ""
    server: MessagesServer | None = None
    seconds: float = 0.0
    parts: int = 1  # conversations the run took (/clear and the command typed again between them)

    def titles(self) -> list[str]:
        return [d.title for d in self.dialogs]


def _tmux(*args: str, check: bool = True) -> str:
    return subprocess.run(["tmux", *args], check=check, capture_output=True, text=True).stdout


class InteractiveRig:
    def __init__(self, rig: Rig, *, mode: str = "default", width: int = 220, height: int = 60, classifier=None):
        self.rig = rig
        self.mode = mode
        # auto mode's server-side safety check, as server.MessagesServer takes it (None: every call not flagged)
        self.classifier = classifier
        self.size = (width, height)
        self.name = f"bench-{abs(hash(str(rig.tmp))) % 10**8}"
        self.start_in: Path | None = None  # where the user starts Claude Code (default: the repository's root)

    def _seed_config(self, api_key: str) -> None:
        cfg = self.rig.home / ".claude.json"
        data = json.loads(cfg.read_text()) if cfg.is_file() else {}
        data.update({
            "hasCompletedOnboarding": True,
            "theme": "dark",
            "numStartups": 5,
            "customApiKeyResponses": {"approved": [api_key[-20:]], "rejected": []},
            "bypassPermissionsModeAccepted": self.mode == "bypassPermissions",
        })
        projects = data.setdefault("projects", {})
        for folder in {str(self.rig.repo), str(self.start_in or self.rig.repo)}:
            projects[folder] = {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True,
                                "allowedTools": [], "projectOnboardingSeenCount": 1}
        cfg.write_text(json.dumps(data, indent=2))

    def capture(self) -> str:
        return _tmux("capture-pane", "-p", "-t", self.name, "-S", "-200", check=False)

    def visible(self) -> str:
        return _tmux("capture-pane", "-p", "-t", self.name, check=False)

    @contextmanager
    def _session(self, brain, extra_args: tuple = (), log_requests: str | None = None):
        """The CLI in a tmux pane against ``brain``'s server, at its prompt; killed on leaving."""
        binary = cli_binary()
        if binary is None:
            raise RuntimeError("the pinned Claude Code CLI is not installed (realcli/install-cli.sh)")
        env = dict(self.rig.env)
        if self.mode != "bypassPermissions":
            env.pop("IS_SANDBOX", None)  # a user's terminal; nothing here skips permissions (as root, bypass needs it)
        self._seed_config(env["ANTHROPIC_API_KEY"])
        with MessagesServer(brain, log_requests=log_requests, classifier=self.classifier) as srv:
            env["ANTHROPIC_BASE_URL"] = srv.url
            env["TERM"] = "xterm-256color"
            exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
            argv = " ".join(shlex.quote(a) for a in [str(binary), "--permission-mode", self.mode, *extra_args])
            w, h = self.size
            _tmux("kill-session", "-t", self.name, check=False)
            _tmux("new-session", "-d", "-s", self.name, "-x", str(w), "-y", str(h), "-c",
                  str(self.start_in or self.rig.repo),
                  f"env -i {exports} {argv}; sleep 600")
            try:
                self._wait_for(lambda s: "❯" in s or ">" in s, 60, "the prompt")
                time.sleep(1.0)
                yield srv
            finally:
                _tmux("kill-session", "-t", self.name, check=False)

    def _type(self, command: str) -> None:
        _tmux("send-keys", "-t", self.name, "-l", command)
        time.sleep(0.5)
        _tmux("send-keys", "-t", self.name, "Enter")

    def run(self, scenario: Scenario, command: str, *, timeout: float = 900, extra_args: tuple = (),
            log_requests: str | None = None) -> Session:
        brain = Brain(self.rig.repo, scenario)
        session = self.session = Session()
        start = time.monotonic()
        with self._session(brain, extra_args, log_requests) as srv:
            session.server = srv
            try:
                self._type(command)
                self._drive(brain, session, timeout)
                while brain.paused:  # one part of the Agent-tool path ran: a fresh conversation, the command again
                    session.parts += 1
                    brain.paused = brain.finished = False
                    self._type("/clear")
                    time.sleep(2.0)
                    self._type(command)
                    self._drive(brain, session, timeout)
            finally:
                session.screen = self.capture()
                session.seconds = time.monotonic() - start
        return session

    def workflow_dialog(self, script: Path, timeout: float = 180) -> tuple[list[tuple[str, str]], str]:
        """Claude Code's "Run a dynamic workflow?" dialog for ``script``: the scripted model's first answer is
        ``Workflow({scriptPath})``. Returns (the options offered, the screen); the dialog is answered with its
        last option (No), so nothing runs. No options: the tool refused the call (the screen says why)."""
        def brain(body: dict) -> Reply:
            answered = any(isinstance(m.get("content"), list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in m["content"])
                for m in body.get("messages", []) if m.get("role") == "user")
            if answered or not body.get("tools"):  # a side request (a title, a summary) has no tools
                return Reply([Text("Stopped.")], who="aux")
            return Reply([ToolUse("Workflow", {"scriptPath": str(script)})], who="orchestrator")

        with self._session(brain):
            self._type("Run the bench-fanout workflow.")
            screen = self._wait_for(lambda s: "Error:" in s or "Run a dynamic workflow?" in s and OPTION_RE.search(
                s[s.index("Run a dynamic workflow?"):]), timeout, "the workflow dialog or an error")
            time.sleep(1.0)
            screen = self.visible()
            if "Run a dynamic workflow?" not in screen:
                return [], screen  # the Workflow tool refused the call: no dialog
            q = QUESTION_RE.search(screen)
            options = OPTION_RE.findall(screen[q.end():]) if q else []
            firsts = [i for i, (num, _) in enumerate(options) if num == "1"]
            options = options[firsts[-1]:] if firsts else options  # the choices, not the numbered phases above
            for _ in range(len(options) - 1):
                _tmux("send-keys", "-t", self.name, "Down")
                time.sleep(0.15)
            _tmux("send-keys", "-t", self.name, "Enter")
            time.sleep(1.0)
        return options, screen

    def _wait_for(self, ok, seconds: float, what: str) -> str:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            s = self.visible()
            if ok(s):
                return s
            time.sleep(0.3)
        raise TimeoutError(f"the CLI did not show {what} in {seconds:.0f} s; screen:\n{self.visible()}")

    def _drive(self, brain: Brain, session: Session, timeout: float) -> None:
        end = time.monotonic() + timeout
        idle_since = None
        last = ""
        while time.monotonic() < end:
            s = self.visible()
            q = QUESTION_RE.search(s)
            if q:
                time.sleep(0.5)
                again = self.visible()
                if again != s:
                    continue  # still drawing
                self._answer(s, q, session)
                idle_since = None
                time.sleep(0.8)
                continue
            if brain.finished:
                if s == last and "esc to interrupt" not in s:
                    idle_since = idle_since or time.monotonic()
                    if time.monotonic() - idle_since > 3:
                        return
                else:
                    idle_since = None
            last = s
            time.sleep(0.4)
        raise TimeoutError(f"no final answer in {timeout:.0f} s ({len(session.dialogs)} dialogs); screen:\n{self.visible()}")

    def _answer(self, screen: str, q: re.Match, session: Session) -> None:
        above = screen[:q.start()].rstrip().splitlines()
        # The dialog box: from its heading (a line naming the tool) down to the question.
        box = []
        for line in reversed(above):
            stripped = line.strip(" │╭╮╰╯─")
            if not stripped and box and len(box) > 1:
                break
            box.append(stripped)
            if len(box) > 14:
                break
        box = [b for b in reversed(box) if b]
        title = box[0] if box else ""
        subject = box[1] if len(box) > 1 else ""
        options = OPTION_RE.findall(screen[q.end():])
        choice = options[0] if options else ("1", "Yes")
        for num, label in options:
            if DONT_ASK.search(label) and "benchcore" in label:
                choice = (num, label)
                break
        self.last_dialog_screen = screen
        session.dialogs.append(Dialog(q.group(1).strip(), title, subject, choice[1], screen))
        # As a user does: move to the option, then confirm (a digit typed before the dialog takes input is lost).
        for _ in range(int(choice[0]) - 1):
            _tmux("send-keys", "-t", self.name, "Down")
            time.sleep(0.15)
        time.sleep(0.2)
        _tmux("send-keys", "-t", self.name, "Enter")
        end = time.monotonic() + 5
        while time.monotonic() < end and self.visible() == screen:
            time.sleep(0.2)
