"""The benchmark installed as a Claude Code plugin, on the real CLI (the version in realcli/CLI_VERSION), offline.

What a plugin user does, in a throwaway HOME: `claude plugin marketplace add <a copy of this repository>`,
`claude plugin install benchmark-skill@claude-skills`, then `/benchmark-skill:benchmark-skill greet` (the
name Claude Code gives a plugin's skill) in a repository that has nothing of the benchmark in it: no
`.claude/skills/`, no `.claude/agents/`. The scripted model of realcli/ plays the orchestrator, the arms and
the judges; the run must reach the verdict the judges imply, with no invalid trial, its baseline arms run as
the plugin's namespaced agent type `benchmark-skill:bench-arm` (every arm), offered no Skill tool.

What `claude plugin install` copies into the plugin cache, from a marketplace added by local path and from one
cloned with git (a bare repository served on loopback): only the plugin's folder, plugins/benchmark-skill/, whose
relative links into the repository (the skill, benchcore's source and lock) the CLI copies as their targets.

`.ci/plugin.sh` covers the rest of the install (validate, what a session loads, the wrapper's first-use
install of benchcore from PyPI); here benchcore is on PATH, as it is after that first use.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


from brain import Scenario  # noqa: E402
from gitserve import serve  # noqa: E402
from rig import REPO_ROOT, Rig, background_output, git, require_cli  # noqa: E402

require_cli()

C1, C2 = "01-hello-1", "02-hello-2"
NAMESPACED = "benchmark-skill:bench-arm"


def loss_on(cells: set) -> callable:
    """packet id -> the new arm's outcome: LOSS for the (case, trial) pairs given, WIN for the rest."""
    def verdict(pid: str) -> str:
        case, trial, _ = pid.split("#")[0].rsplit("/", 2)
        return "LOSS" if (case, int(trial[1:])) in cells else "WIN"
    return verdict


@pytest.mark.parametrize("path", ["workflow", "agent-tool"])
def test_installed_from_a_local_marketplace_the_plugin_runs_a_benchmark_to_its_verdict(tmp_path, path):
    rig = Rig(tmp_path, edited=False, install="plugin")
    installed = rig.install_plugin()
    assert (installed / "skills/benchmark-skill/SKILL.md").is_file()
    assert not (rig.repo / ".claude/skills").exists() and not (rig.repo / ".claude/agents").exists()
    scenario = Scenario(use_workflow=path == "workflow", verdict=loss_on({(C1, 1), (C2, 2)}))
    extra = ("--disallowedTools", "Workflow") if path == "agent-tool" else ()
    res = rig.run(scenario, "/benchmark-skill:benchmark-skill greet", extra_args=extra)
    assert res.code == 0 and res.result.get("subtype") == "success", res.stderr[-2000:]
    # plan installed the benchmark's guard from the plugin's own copy (its scripts/guard), and clean took it out.
    # SKILL.md step 4 runs clean in the background (the verdict never waits for it): its output is the task's
    # output file, which the CLI names when the task completes (-p waits for it before it exits).
    assert "a hook confining each arm to its world" in res.stdout
    assert "guard hook was taken out" in background_output(res.events, " clean "), res.stdout[-2000:]
    settings = json.loads((rig.repo / ".claude/settings.local.json").read_text())
    assert not any("scripts/guard" in h["command"] for e in settings.get("hooks", {}).get("PreToolUse", [])
                   for h in e["hooks"]), settings
    assert not res.server.oracle.errors, res.server.oracle.errors[0]
    assert "Benchmark finished" in res.result["result"], res.result["result"]
    # The skill that ran is the plugin's: its wrapper ran plan (the orchestrator's first Bash). From a marketplace
    # added by local path, Claude Code 2.1.328 runs the plugin in place (the Base directory it gives the skill
    # is the marketplace folder's), though it also copies it into the plugin cache.
    bash = [b["input"]["command"] for e in res.events if e.get("type") == "assistant"
            for b in e["message"]["content"] if isinstance(b, dict) and b.get("name") == "Bash"]
    in_place = rig.tmp / "marketplace" / "plugins" / "benchmark-skill"
    wrappers = [f'"{root}/skills/benchmark-skill/scripts/benchcore" plan' for root in (installed, in_place)]
    assert bash and bash[0].startswith(tuple(wrappers)), bash[:1]

    runs = rig.runs()
    assert len(runs) == 1, runs
    plan = json.loads((runs[0] / "plan.json").read_text())
    assert {c["agent_type"] for c in plan["cells"]} == {NAMESPACED}
    assert all(c["attempt"] == 1 for c in plan["cells"]), "a trial was re-run: the run had an invalid trial"
    info = json.loads((runs[0] / "run.json").read_text())
    assert info["agent_types"] == {"baseline": [NAMESPACED], "new": [NAMESPACED]}

    results = json.loads((rig.repo / "tests/.reports/greet.results.json").read_text())
    assert results["shape"] == "two-arm" and results["incomplete"] is False
    cases = {c["id"]: c for c in results["cases"]}
    assert cases[C1]["efficacy"]["outcomes"] == ["LOSS", "WIN", "WIN", "WIN", "WIN"]
    assert cases[C2]["efficacy"]["outcomes"] == ["WIN", "LOSS", "WIN", "WIN", "WIN"]
    assert results["verdicts"]["efficacy"]["status"] == "pass" and results["verdicts"]["efficacy"]["net"] == 6
    assert NAMESPACED in (rig.repo / "tests/.reports/greet.html").read_text()

    # Each arm's requests: the plugin's agent type offers no Skill tool, to the baseline and the new arm alike.
    base = [b for b in res.server.oracle.billed if "/baseline@" in b.who]
    new = [b for b in res.server.oracle.billed if "/new@" in b.who]
    assert len({b.who for b in base}) == 10 and all("Skill" not in b.tools_offered for b in base + new)
    assert {tuple(b.tools_offered) for b in base} == {tuple(b.tools_offered) for b in new}


# What the plugin runs, as in the repository: the copy must hold these, byte for byte, and nothing else.
RUNS = {"skills/benchmark-skill": REPO_ROOT / "skills/benchmark-skill", "benchcore/src": REPO_ROOT / "benchcore/src",
        **{f"benchcore/{f}": REPO_ROOT / "benchcore" / f for f in ("pyproject.toml", "README.md", "requirements.lock")}}
LIMIT = 2_000_000


def files_under(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("how", ["local-path", "git-clone"])
def test_claude_plugin_install_copies_only_what_the_plugin_runs_under_2_mb(tmp_path, how):
    rig = Rig(tmp_path, edited=False, install="plugin")
    market = rig.copy_marketplace()
    # A user's clone after `python -m venv .venv` (what made a 71 MB plugin copy when the plugin was the repository).
    (market / ".venv/lib").mkdir(parents=True)
    (market / ".venv/lib/big.bin").write_bytes(b"\0" * 3_000_000)
    if how == "local-path":
        installed = rig.install_plugin(source=str(market))
    else:
        env = dict(rig.env, GIT_AUTHOR_NAME="r", GIT_AUTHOR_EMAIL="r@example.com", GIT_COMMITTER_NAME="r",
                   GIT_COMMITTER_EMAIL="r@example.com")
        subprocess.run(["git", "init", "-q", "-b", "main", str(market)], check=True, env=env)
        (market / ".gitignore").write_text(".venv/\n")
        git(market, "add", "-A", env=env)
        git(market, "commit", "-q", "-m", "marketplace", env=env)
        subprocess.run(["git", "clone", "-q", "--bare", str(market), str(tmp_path / "served/claude-skills.git")],
                       check=True, env=env)
        with serve(tmp_path / "served") as url:
            installed = rig.install_plugin(source=url + "claude-skills.git")
    got = files_under(installed)
    size = sum(len(b) for b in got.values())
    print(f"{how}: claude plugin install copied {len(got)} files, {size} bytes, into {installed}")
    assert size < LIMIT, f"the plugin copy is {size} bytes"
    assert not [p for p in installed.rglob("*") if p.is_symlink()], "a link was copied as a link"
    tops = {name.split("/")[0] for name in got}
    assert tops == {".claude-plugin", "README.md", "skills", "benchcore"}, tops
    # Every link's target, copied whole; nothing else beside the manifest and the plugin's README.
    want = {f: (REPO_ROOT / "plugins/benchmark-skill" / f).read_bytes() for f in (".claude-plugin/plugin.json", "README.md")}
    for rel, real in RUNS.items():
        if real.is_file():
            want[rel] = real.read_bytes()
        else:
            tracked = subprocess.run(["git", "-C", str(real), "ls-files", "-z", "."], check=True,
                                     capture_output=True).stdout.decode().split("\0")
            want.update({f"{rel}/{f}": (real / f).read_bytes() for f in filter(None, tracked)})
    assert got == want


def test_a_plugin_skills_bash_gets_no_plugin_data_folder_so_the_wrapper_works_it_out(tmp_path):
    # Where the wrapper puts benchcore's environment rests on this: Claude Code 2.1.328 runs a directory
    # marketplace's plugin in place and sets no CLAUDE_PLUGIN_DATA (nor CLAUDE_PLUGIN_ROOT) in its skill's Bash,
    # so the wrapper derives the plugin's data folder from where it runs (skills/benchmark-skill/scripts/benchcore).
    from server import MessagesServer, Reply, Text, ToolUse
    from rig import cli_binary
    rig = Rig(tmp_path, edited=False, install="plugin")
    rig.install_plugin()
    env_file = tmp_path / "bash-env.txt"
    bodies: list[str] = []

    def brain(body: dict) -> Reply:
        bodies.append(json.dumps(body))
        answered = any(isinstance(b, dict) and b.get("type") == "tool_result" for m in body["messages"]
                       for b in (m.get("content") if isinstance(m.get("content"), list) else []))
        if not answered and body.get("tools"):
            return Reply([ToolUse("Bash", {"command": f"env > {env_file}", "description": "env"})], who="orchestrator")
        return Reply([Text("done")], who="orchestrator")

    with MessagesServer(brain) as srv:
        p = subprocess.run([str(cli_binary()), "-p", "/benchmark-skill:benchmark-skill greet", "--output-format",
                            "stream-json", "--verbose", "--dangerously-skip-permissions"], cwd=rig.repo,
                           env=dict(rig.env, ANTHROPIC_BASE_URL=srv.url), capture_output=True, text=True,
                           timeout=300, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr[-2000:]
    names = {line.split("=", 1)[0] for line in env_file.read_text().splitlines() if "=" in line}
    assert "CLAUDECODE" in names and "CLAUDE_PLUGIN_DATA" not in names and "CLAUDE_PLUGIN_ROOT" not in names
    in_place = rig.tmp / "marketplace" / "plugins" / "benchmark-skill" / "skills" / "benchmark-skill"
    assert any(f"Base directory for this skill: {in_place}" in b for b in bodies)
