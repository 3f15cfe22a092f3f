"""Temp skills repositories for end-to-end tests, built with real git."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

SKILL_DIR = Path(__file__).resolve().parents[3] / "skills" / "benchmark-skill"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def isolate_git(home: Path) -> dict:
    """Environment for git that ignores the machine's config (no init.defaultBranch, fixed identity)."""
    home.mkdir(parents=True, exist_ok=True)
    cfg = home / "gitconfig"
    cfg.write_text("[user]\n\tname = Test\n\temail = test@example.com\n[advice]\n\tdetachedHead = false\n")
    return {"GIT_CONFIG_GLOBAL": str(cfg), "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(home)}


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def skill(repo: Path, rel: str, body: str = "Follow the house style.") -> None:
    name = rel.rsplit("/", 1)[-1]
    write(repo / "skills" / rel / "SKILL.md", f"---\nname: {name}\ndescription: {name} for tests\n---\n{body}\n")


def case(repo: Path, rel: str, case_id: str, *, prompt: str = "Write a greeting into greeting.txt.",
         fixture: bool = True, hard: str | None = 'test -f "$WORLD/greeting.txt"', setup: str | None = None,
         seed: str | None = None, extra_front: str = "") -> Path:
    d = repo / "tests" / rel / case_id
    front = f"description: {case_id} for tests\n"
    if setup:
        front += f"setup: {setup}\n"
    front += extra_front
    body = f"---\n{front}---\n\n## Prompt\n{prompt}\n\n"
    if seed:
        body += f"## Seed\n{seed}\n\n"
    if hard:
        body += f"## Hard assertions\n```sh\n{hard}\n```\n\n"
    body += "## Soft criteria\n- It is polite.\n- It names the reader.\n"
    (d).mkdir(parents=True, exist_ok=True)
    (d / "case.md").write_text(body, encoding="utf-8")
    if fixture:
        write(d / "fixture" / "README.md", f"fixture of {case_id}\n")
    if hard:  # validate asks a case with hard assertions for samples that pass and fail them
        write(d / "samples" / "good" / "output.md", "Wrote greeting.txt.\n")
        write(d / "samples" / "good" / "world" / "greeting.txt", "Hello, reader!\n")
        write(d / "samples" / "bad-nothing-written" / "output.md", "I did not write it.\n")
    return d


def init(repo: Path, branch: str, agent_types: bool = True) -> None:
    """A new repository; with ``agent_types``, the benchmark's agent types installed in it as README tells a user
    who runs from a clone (plan stops without them unless told --default-agent-type)."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", branch)
    if agent_types:
        install_agent_types(repo)


def install_agent_types(repo: Path) -> None:
    """``mkdir -p .claude/agents && cp skills/benchmark-skill/agents/*.md .claude/agents/``, as plan's fix says."""
    agents = repo / ".claude" / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    for f in sorted((SKILL_DIR / "agents").glob("*.md")):
        (agents / f.name).write_bytes(f.read_bytes())


def commit_all(repo: Path, message: str = "commit") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def add_remote_head(repo: Path, remote_dir: Path, branch: str) -> None:
    """A bare 'origin' whose HEAD is ``branch``, pushed and fetched, so the remote names the default branch."""
    subprocess.run(["git", "init", "-q", "--bare", "-b", branch, str(remote_dir)], check=True, capture_output=True)
    git(repo, "remote", "add", "origin", str(remote_dir))
    git(repo, "push", "-q", "origin", branch)
    git(repo, "fetch", "-q", "origin")
    git(repo, "remote", "set-head", "origin", branch)


def env_for(tmp: Path) -> dict:
    env = isolate_git(tmp / "home")
    env["CLAUDE_CONFIG_DIR"] = str(tmp / "claude")
    env["BENCHMARK_SKILL_DIR"] = str(SKILL_DIR)
    # As inside the stand-in's orchestrating session (Claude Code exports it to every Bash command).
    from standin.agent import session_id
    env["CLAUDE_CODE_SESSION_ID"] = session_id(tmp / "claude", str(tmp / "repo"))
    return env


def newcomer_venv(repo: Path) -> Path:
    """The newcomer's setup: a ``.venv`` inside the repository, made by the session's python3, with pytest
    installed in it (copied from this test run's own site-packages: no network here)."""
    venv = repo / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(sysconfig.get_paths()["purelib"])
    target = next((venv / "lib").glob("python3*/site-packages"))
    for name in ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments", "py.py"):
        src = site / name
        if src.is_dir():
            shutil.copytree(src, target / name)
        elif src.exists():
            shutil.copy2(src, target / name)
    for info in site.glob("*.dist-info"):  # as pip leaves them: the versions
        if info.name.split("-")[0].lower() in ("pytest", "pluggy", "iniconfig", "packaging", "pygments"):
            shutil.copytree(info, target / info.name)
    return venv
