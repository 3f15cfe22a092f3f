"""Runs the real Claude Code CLI offline, in a throwaway HOME, against the scripted model.

``Rig(tmp)`` builds a skills repository (the ``greet`` skill with two cases,
committed on ``main``, so that an edit makes a three-arm run; or, with
``layout="commit-message"``, this repository's own commit-message skill and
its five cases), installs the
benchmark the way the dev shell does (the skill linked into the project's
``.claude/skills/``, its agent types copied into ``.claude/agents/``), and
``rig.run(scenario, "/benchmark-skill greet")`` runs ``claude -p`` there with
the offline variables, returning what the CLI printed and the server's oracle.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[2]
BENCHMARK_SKILL = REPO_ROOT / "skills" / "benchmark-skill"
sys.path.insert(0, str(HERE))

from brain import Brain, Scenario  # noqa: E402
from server import MessagesServer  # noqa: E402

# The CLI under test: the pinned one (CLI_VERSION), or the one BENCH_CLAUDE_BIN names, whose version CI gives
# in BENCH_CLAUDE_VERSION (the newest tested, CLI_VERSION_NEWEST, for the subset in NEWEST_SUBSET).
PINNED = (HERE / "CLI_VERSION").read_text().strip()
VERSION = os.environ.get("BENCH_CLAUDE_VERSION", "").strip() or PINNED


def cli_binary() -> Path | None:
    """The pinned CLI: $BENCH_CLAUDE_BIN, else the cache install-cli.sh fills. None when absent."""
    env = os.environ.get("BENCH_CLAUDE_BIN")
    if env:
        return Path(env)
    cache = Path(os.environ.get("BENCH_CLI_CACHE", Path.home() / ".cache" / "benchcore-claude-cli"))
    for arch in ("x64", "arm64"):
        p = cache / VERSION / "node_modules" / "@anthropic-ai" / f"claude-code-linux-{arch}" / "claude"
        if p.is_file():
            return p
    return None


def require_cli(*commands: str) -> None:
    """At the top of a real-CLI test file: skip the file when the pinned CLI (or one of ``commands``, such as
    tmux) is not installed, or fail it when BENCH_REQUIRE_REALCLI is set (CI sets it, so a missing CLI is
    never a silent skip there)."""
    missing = ([] if cli_binary() is not None else [f"the pinned Claude Code CLI ({VERSION})"]) + \
        [c for c in commands if shutil.which(c) is None]
    if not missing:
        return
    what = " and ".join(missing)
    if os.environ.get("BENCH_REQUIRE_REALCLI"):
        raise RuntimeError(f"BENCH_REQUIRE_REALCLI is set but {what} is not installed: run "
                           "benchcore/tests/realcli/install-cli.sh (and install tmux for the interactive tests)")
    import pytest

    pytest.skip(f"{what} is not installed (benchcore/tests/realcli/install-cli.sh)", allow_module_level=True)


def _benchcore_bin() -> str:
    """The folder of the benchcore command the tests run with (the wrapper finds it on PATH, as a pip user's)."""
    found = shutil.which("benchcore", path=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
    if not found:
        raise RuntimeError("benchcore is not on PATH: pip install -e './benchcore[test]' in this environment")
    return str(Path(found).parent)


def git(repo: Path, *args: str, env: dict | None = None) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout


COMMIT_MESSAGE = "skills/git/commit-message"  # layout="commit-message": this repository's skill and cases
FIX_FAILING_TEST = "skills/python/fix-failing-test"  # layout="fix-failing-test": the skill whose arms run code
SKILL_V1 = "---\nname: greet\ndescription: Writes greetings in the house style.\n---\nGreet the reader by name.\n"
SKILL_V2 = SKILL_V1 + "End every greeting with an exclamation mark.\n"


def case_md(prompt: str, hard: str) -> str:
    return (f"---\ndescription: {prompt}\n---\n\n## Prompt\n{prompt}\n\n## Hard assertions\n```sh\n{hard}\n```\n\n"
            "## Soft criteria\n- It greets the reader by name.\n- It is polite.\n")


# Conversations one headless run may take on the Agent-tool path (plan splits a big run into parts).
MAX_PARTS = 8


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str
    events: list
    server: MessagesServer

    @property
    def result(self) -> dict:
        return next((e for e in reversed(self.events) if e.get("type") == "result"), {})


# A loopback port nothing listens on (the discard service's): a CLI command that needs no model fails over at once.
OFFLINE_API = "http://127.0.0.1:9"


class Rig:
    def __init__(self, tmp: Path, *, edited: bool = True, cases: int = 2, answer_only: bool = False,
                 install: str = "project", layout: str = "skills"):
        # layout: "skills" (the skill at skills/text/greet, its cases in tests/text/greet/), "claude" (a
        # project's own skill at .claude/skills/greet, committed, its cases in tests/greet/), or
        # "commit-message" (this repository's skills/git/commit-message and its five cases, at real size), or
        # "fix-failing-test" (skills/python/fix-failing-test and its three cases: the arms run code).
        # install: "project" (the dev shell's way: the skill linked into .claude/skills/, its agent types copied
        # into .claude/agents/) or "plugin" (nothing in the project: install_plugin() adds the marketplace and
        # installs the benchmark-skill plugin into HOME, as a plugin user does).
        # answer_only: the task is answered in the arm's final message (its hard assertion reads $OUTPUT), so
        # an arm needs to change nothing in its world (in default permission mode every change asks).
        self.answer_only = answer_only
        self.tmp = Path(tmp)
        self.home = self.tmp / "home"
        self.repo = self.tmp / "repo"
        self.home.mkdir(parents=True)
        gitcfg = self.home / ".gitconfig"
        gitcfg.write_text("[user]\n\tname = Rig\n\temail = rig@example.com\n[init]\n\tdefaultBranch = main\n")
        self.env = {
            "HOME": str(self.home),
            "PATH": f"{_benchcore_bin()}:{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "ANTHROPIC_API_KEY": "scripted-model",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "IS_SANDBOX": "1",
            "GIT_CONFIG_NOSYSTEM": "1",
            "LANG": "C.UTF-8",
            "TMPDIR": str(self.tmp / "tmp"),
        }
        (self.tmp / "tmp").mkdir()
        self.install = install
        self.skill_path, self.tests_path = {"skills": ("skills/text/greet", "tests/text/greet"),
                                            "claude": (".claude/skills/greet", "tests/greet"),
                                            "commit-message": (COMMIT_MESSAGE, f"tests/{COMMIT_MESSAGE[7:]}"),
                                            "fix-failing-test": (FIX_FAILING_TEST, f"tests/{FIX_FAILING_TEST[7:]}"),
                                            }[layout]
        if layout in ("commit-message", "fix-failing-test"):
            self._copy_own_skill(edited)
        else:
            self._build_repo(edited, cases)
        self._install()

    def _copy_own_skill(self, edited: bool) -> None:
        """One of this repository's own skills (commit-message, fix-failing-test) and its cases, as committed
        here (samples included), committed on the rig repository's main; then the skill edited, for a
        three-arm run."""
        r = self.repo
        files = subprocess.run(["git", "-C", str(REPO_ROOT), "ls-files", "-z", self.skill_path, self.tests_path],
                               check=True, capture_output=True).stdout.decode().split("\0")
        for f in filter(None, files):
            (r / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / f, r / f)
        (r / ".gitignore").write_text("tests/.reports/\n.claude/\n")
        env = dict(os.environ, **self.env)
        subprocess.run(["git", "init", "-q", "-b", "main", str(r)], check=True, env=env)
        git(r, "add", "-A", "-f", env=env)  # exactly the files tracked here (fixtures carry .gitignore files)
        git(r, "commit", "-q", "-m", self.skill_path.rsplit("/", 1)[-1], env=env)
        if edited:
            with open(r / self.skill_path / "SKILL.md", "a") as fh:
                fh.write("\nWhen the staged change closes an issue, say so in a `Refs:` footer.\n")

    def _build_repo(self, edited: bool, cases: int) -> None:
        r = self.repo
        (r / self.skill_path).mkdir(parents=True)
        (r / self.skill_path / "SKILL.md").write_text(SKILL_V1)
        for i in range(1, cases + 1):
            d = r / f"{self.tests_path}/{i:02d}-hello-{i}"
            (d / "fixture").mkdir(parents=True)
            (d / "fixture/README.md").write_text(f"Project {i}: say hello to the reader by name.\n" if self.answer_only
                                                 else f"Project {i}: write greeting.txt for the reader.\n")
            if self.answer_only:
                (d / "case.md").write_text(case_md(f"Say hello to reader {i}, as the README in your folder asks.",
                                                    'grep -q "reader" "$OUTPUT"'))
            else:
                (d / "case.md").write_text(case_md(f"Write a greeting for reader {i} into greeting.txt.",
                                                    'test -s "$WORLD/greeting.txt"'))
            # The samples that show the predicate can pass and fail (validate requires them).
            (d / "samples/good/world").mkdir(parents=True)
            (d / "samples/good/output.md").write_text("Hello, reader!\n" if self.answer_only else "Wrote greeting.txt.\n")
            (d / "samples/good/world/greeting.txt").write_text("Hello, reader!\n")
            (d / "samples/bad-no-file").mkdir(parents=True)
            (d / "samples/bad-no-file/output.md").write_text("Hi.\n" if self.answer_only else "Hello, reader!\n")
        # A project that commits its own skills ignores the rest of .claude/ (settings.local.json, the links).
        (r / ".gitignore").write_text("tests/.reports/\n.claude/\n" if self.skill_path.startswith("skills/")
                                      else "tests/.reports/\n.claude/*\n!.claude/skills/\n.claude/skills/*\n"
                                           "!.claude/skills/greet/\n")
        env = dict(os.environ, **self.env)
        subprocess.run(["git", "init", "-q", "-b", "main", str(r)], check=True, env=env)
        git(r, "add", "-A", env=env)
        git(r, "commit", "-q", "-m", "greet", env=env)
        if edited:
            (r / self.skill_path / "SKILL.md").write_text(SKILL_V2)

    def _install(self) -> None:
        r = self.repo
        # Installed as the dev shell does: the skill linked, its agent types in .claude/agents/.
        (r / ".claude").mkdir(exist_ok=True)
        # What plan's note tells a user benchmarking an edited skill: Claude Code's git status, which it shows
        # every subagent, lists the edited SKILL.md and so names the skill to the baseline; this keeps it out.
        (r / ".claude/settings.local.json").write_text(json.dumps({"includeGitInstructions": False}) + "\n")
        if self.install == "plugin":
            return
        (r / ".claude/skills").mkdir(exist_ok=True)
        (r / ".claude/skills/benchmark-skill").symlink_to(BENCHMARK_SKILL)
        (r / ".claude/agents").mkdir()
        for f in sorted((BENCHMARK_SKILL / "agents").glob("*.md")):
            shutil.copy(f, r / ".claude/agents" / f.name)

    def claude(self, *args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
        """The CLI with the rig's HOME and offline variables (no model is reached), checked."""
        binary = cli_binary()
        if binary is None:
            raise RuntimeError(f"Claude Code {VERSION} is not installed: run {HERE}/install-cli.sh")
        # Each `claude plugin ...` command resolves the API's host first (a connection warmed up, no request
        # made): offline, the DNS lookups' retries took 17 s a command. Pointed at a closed loopback port, the
        # same command takes 0.3 s, and installs the same files (test_claude_plugin_install_copies_...).
        env = dict(self.env)
        env.setdefault("ANTHROPIC_BASE_URL", OFFLINE_API)
        p = subprocess.run([str(binary), *args], cwd=cwd or self.tmp, env=env, capture_output=True,
                           text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        if p.returncode != 0:
            raise RuntimeError(f"claude {' '.join(args)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
        return p

    def copy_marketplace(self) -> Path:
        """A copy of what git hands a user (committed and new files, nothing ignored; symlinks as links) at
        <tmp>/marketplace."""
        market = self.tmp / "marketplace"
        files = subprocess.run(["git", "-C", str(REPO_ROOT), "ls-files", "-z", "-co", "--exclude-standard"],
                               check=True, capture_output=True).stdout.decode().split("\0")
        for f in filter(None, files):
            src = REPO_ROOT / f
            if src.is_symlink():  # as git checks it out (plugins/benchmark-skill/ is links into the repository)
                (market / f).parent.mkdir(parents=True, exist_ok=True)
                os.symlink(os.readlink(src), market / f)
            elif src.is_file():
                (market / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, market / f)
        return market

    def install_plugin(self, plugin: str = "benchmark-skill", source: str | None = None) -> Path:
        """What a plugin user types: `claude plugin marketplace add <source>` (default: copy_marketplace()'s
        folder) and `claude plugin install <plugin>@claude-skills`.
        Returns the installed copy's folder, from Claude Code's installed_plugins.json."""
        self.claude("plugin", "marketplace", "add", source or str(self.copy_marketplace()))
        self.claude("plugin", "install", f"{plugin}@claude-skills")
        installed = json.loads((self.home / ".claude/plugins/installed_plugins.json").read_text())
        return Path(installed["plugins"][f"{plugin}@claude-skills"][0]["installPath"])

    def run(self, scenario: Scenario, prompt: str, *, extra_args: tuple = (), timeout: float = 900,
            log_requests: str | None = None, bypass: bool = True, cwd: Path | None = None) -> Result:
        # cwd: where the user starts Claude Code (default: the repository's root).
        binary = cli_binary()
        if binary is None:
            raise RuntimeError(f"Claude Code {VERSION} is not installed: run {HERE}/install-cli.sh")
        brain = Brain(self.repo, scenario)
        stdout, stderr, events, code = "", "", [], 0
        with MessagesServer(brain, log_requests=log_requests) as srv:
            env = dict(self.env, ANTHROPIC_BASE_URL=srv.url)
            argv = [str(binary), "-p", prompt, "--output-format", "stream-json", "--verbose",
                    *(["--dangerously-skip-permissions"] if bypass else []), *extra_args]
            # A run on the Agent-tool path too big for one conversation runs in parts: after each, the user
            # starts a fresh conversation and types the command again. Headless, a fresh conversation is a
            # new `claude -p` with the same prompt; the result is the last part's, the output all parts'.
            for _ in range(MAX_PARTS):
                brain.paused = brain.finished = False
                p = subprocess.run(argv, cwd=cwd or self.repo, env=env, capture_output=True, text=True,
                                   timeout=timeout, stdin=subprocess.DEVNULL)
                stdout, stderr, code = stdout + p.stdout, stderr + p.stderr, p.returncode
                for line in p.stdout.splitlines():
                    try:
                        events.append(json.loads(line))
                    except ValueError:
                        pass
                if code != 0 or not brain.paused:
                    break
        return Result(code, stdout, stderr, events, srv)

    def runs(self) -> list[Path]:
        base = self.repo / "tests/.reports/runs"
        return sorted(p for p in base.iterdir() if (p / "run.json").is_file()) if base.is_dir() else []


def background_output(events: list, marker: str) -> str:
    """The output of the background Bash commands containing ``marker``: the file each one's completed task
    notification names ("" when none completed)."""
    ids = {b["id"] for e in events if e.get("type") == "assistant" for b in e["message"]["content"]
           if isinstance(b, dict) and b.get("name") == "Bash" and marker in b["input"].get("command", "")}
    files = [e["output_file"] for e in events if e.get("type") == "system" and e.get("subtype") == "task_notification"
             and e.get("tool_use_id") in ids and e.get("output_file")]
    return "".join(Path(f).read_text(encoding="utf-8") for f in files)
