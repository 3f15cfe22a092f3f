"""Which name plan gives the benchmark's agent types: plain when installed as agent files, namespaced
(<plugin>:<name>) when a plugin Claude Code loads carries them (harness/claude/agents.py has the rule)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchcore.harness.claude.agents import installed_agent_type
from places import REPO


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


AGENT = "---\nname: bench-baseline\ndescription: baseline\n---\nWork.\n"


def plugin(root: Path, name: str, agents: list[str] | None = None) -> Path:
    """A plugin folder like the repository's: the skill under skills/, agents listed in the manifest."""
    manifest = {"name": name, "skills": ["./skills/benchmark-skill"]}
    if agents is not None:
        manifest["agents"] = agents
    write(root / ".claude-plugin" / "plugin.json", json.dumps(manifest))
    write(root / "skills" / "benchmark-skill" / "SKILL.md", "---\nname: benchmark-skill\n---\n")
    write(root / "skills" / "benchmark-skill" / "agents" / "bench-baseline.md", AGENT)
    return root


def install(config: Path, plugin_id: str, root: Path, enabled=True, project: Path | None = None) -> None:
    """What `claude plugin install` leaves: the registry entry and enabledPlugins in settings."""
    entry = {"scope": "project" if project else "user", "installPath": str(root), "version": "0.1.0"}
    if project:
        entry["projectPath"] = str(project)
    reg = config / "plugins" / "installed_plugins.json"
    data = json.loads(reg.read_text()) if reg.exists() else {"version": 2, "plugins": {}}
    data["plugins"][plugin_id] = [entry]
    write(reg, json.dumps(data))
    if enabled is not None:
        settings = (project / ".claude" / "settings.json") if project else (config / "settings.json")
        write(settings, json.dumps({"enabledPlugins": {plugin_id: enabled}}))


@pytest.fixture
def where(tmp_path):
    repo, config = tmp_path / "repo", tmp_path / "claude"
    repo.mkdir()
    config.mkdir()
    return repo, config


def test_nothing_installed_gives_none(where):
    repo, config = where
    assert installed_agent_type("bench-baseline", repo, None, config) is None


def test_project_and_personal_agent_files_give_the_plain_name(where):
    repo, config = where
    write(config / "agents" / "bench-baseline.md", AGENT)
    assert installed_agent_type("bench-baseline", repo, None, config) == "bench-baseline"
    (config / "agents" / "bench-baseline.md").unlink()
    write(repo / ".claude" / "agents" / "bench-baseline.md", AGENT)
    assert installed_agent_type("bench-baseline", repo, None, config) == "bench-baseline"


def test_an_installed_enabled_plugin_gives_the_namespaced_name(where, tmp_path):
    repo, config = where
    root = plugin(config / "plugins" / "cache" / "claude-skills" / "benchmark-skill" / "0.1.0", "benchmark-skill",
                  ["./skills/benchmark-skill/agents/bench-baseline.md"])
    install(config, "benchmark-skill@claude-skills", root)
    assert installed_agent_type("bench-baseline", repo, None, config) == "benchmark-skill:bench-baseline"
    # another agent type the plugin does not carry is not claimed
    assert installed_agent_type("bench-judge", repo, None, config) is None


def test_the_name_follows_the_plugin_not_a_fixed_prefix(where):
    repo, config = where
    root = plugin(config / "plugins" / "cache" / "m" / "my-bench" / "1", "my-bench",
                  ["./skills/benchmark-skill/agents/bench-baseline.md"])
    install(config, "my-bench@m", root)
    assert installed_agent_type("bench-baseline", repo, None, config) == "my-bench:bench-baseline"


def test_a_disabled_or_unlisted_plugin_is_not_used(where):
    repo, config = where
    root = plugin(config / "plugins" / "cache" / "m" / "benchmark-skill" / "1", "benchmark-skill",
                  ["./skills/benchmark-skill/agents/bench-baseline.md"])
    install(config, "benchmark-skill@m", root, enabled=False)
    assert installed_agent_type("bench-baseline", repo, None, config) is None
    install(config, "benchmark-skill@m", root, enabled=None)  # registry entry, but no settings enable it
    (config / "settings.json").unlink()
    assert installed_agent_type("bench-baseline", repo, None, config) is None


def test_a_project_scope_install_counts_only_in_its_project(where, tmp_path):
    repo, config = where
    root = plugin(config / "plugins" / "cache" / "m" / "benchmark-skill" / "1", "benchmark-skill",
                  ["./skills/benchmark-skill/agents/bench-baseline.md"])
    install(config, "benchmark-skill@m", root, project=repo)
    assert installed_agent_type("bench-baseline", repo, None, config) == "benchmark-skill:bench-baseline"
    other = tmp_path / "other"
    other.mkdir()
    assert installed_agent_type("bench-baseline", other, None, config) is None


def test_a_plugin_listing_no_agents_offers_its_agents_folder(where):
    repo, config = where
    root = config / "plugins" / "cache" / "m" / "p" / "1"
    write(root / ".claude-plugin" / "plugin.json", json.dumps({"name": "p"}))
    write(root / "agents" / "bench-baseline.md", AGENT)
    install(config, "p@m", root)
    assert installed_agent_type("bench-baseline", repo, None, config) == "p:bench-baseline"


def test_a_plugin_folder_in_the_personal_skills_folder_is_loaded_as_a_plugin(where):
    # measured on the real CLI: docs/internals.md: a plugin folder at ~/.claude/skills/<name>/ loads as a plugin.
    repo, config = where
    root = config / "skills" / "benchmark-skill"
    write(root / ".claude-plugin" / "plugin.json", json.dumps({"name": "benchmark-skill"}))
    write(root / "SKILL.md", "---\nname: benchmark-skill\n---\n")
    write(root / "agents" / "bench-baseline.md", AGENT)
    assert installed_agent_type("bench-baseline", repo, None, config) == "benchmark-skill:bench-baseline"


def test_the_skill_in_use_counts_as_a_plugin_only_from_the_nix_store(where, tmp_path, monkeypatch):
    # home-manager's programs.claude-code.plugins passes a store path to --plugin-dir: nothing on disk
    # says so, but the benchmark-skill folder in use is inside that plugin. A clone of this repository
    # (a plugin manifest at its root) is not loaded as a plugin by being there.
    repo, config = where
    clone = plugin(tmp_path / "clone", "benchmark-skill", ["./skills/benchmark-skill/agents/bench-baseline.md"])
    assert installed_agent_type("bench-baseline", repo, clone / "skills" / "benchmark-skill", config) is None
    monkeypatch.setenv("NIX_STORE_DIR", str(tmp_path / "store"))
    store = plugin(tmp_path / "store" / "0000-benchmark-skill-plugin", "benchmark-skill",
                   ["./skills/benchmark-skill/agents/bench-baseline.md"])
    skill = store / "skills" / "benchmark-skill"
    assert installed_agent_type("bench-baseline", repo, skill, config) == "benchmark-skill:bench-baseline"
    assert installed_agent_type("bench-judge", repo, skill, config) is None


def test_agent_files_win_over_plugins(where):
    repo, config = where
    root = plugin(config / "plugins" / "cache" / "m" / "benchmark-skill" / "1", "benchmark-skill",
                  ["./skills/benchmark-skill/agents/bench-baseline.md"])
    install(config, "benchmark-skill@m", root)
    write(repo / ".claude" / "agents" / "bench-baseline.md", AGENT)
    assert installed_agent_type("bench-baseline", repo, None, config) == "bench-baseline"


def test_unreadable_registry_and_settings_are_ignored(where):
    repo, config = where
    write(config / "plugins" / "installed_plugins.json", "{not json")
    write(config / "settings.json", "[]")
    assert installed_agent_type("bench-baseline", repo, None, config) is None


SHIPPED = REPO / "skills" / "benchmark-skill" / "agents"


@pytest.mark.skipif(not SHIPPED.is_dir(), reason="needs the repository's skills/benchmark-skill")
def test_the_shipped_arm_and_judge_types_are_sealed():
    # Every arm runs as bench-arm: no Skill tool (nor skill listing), no Agent or Workflow tool through which a
    # child with Skill could run, no CLAUDE.md (measured on Claude Code 2.1.328: omitClaudeMd keeps the user's
    # and the project's out); model and effort are the session's. Judges: no tools, no CLAUDE.md.
    import yaml

    from benchcore.harness.claude.agents import ARM_AGENT, JUDGE_AGENT

    def front(name: str) -> dict:
        text = (SHIPPED / f"{name}.md").read_text(encoding="utf-8")
        return yaml.safe_load(text.split("---\n")[1])

    arm, judge = front(ARM_AGENT), front(JUDGE_AGENT)
    assert arm["name"] == ARM_AGENT and arm["omitClaudeMd"] is True and arm["model"] == "inherit"
    assert {t.strip() for t in arm["disallowedTools"].split(",")} == {"Skill", "Agent", "Workflow"}
    assert "tools" not in arm and "effort" not in arm and "skills" not in arm
    assert judge["tools"] == [] and judge["omitClaudeMd"] is True
