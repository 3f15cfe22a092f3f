"""Which name Claude Code knows an agent type of the benchmark by, from what is installed (I/O).

``plan`` cannot ask Claude Code which agent types a session has; it reads the
places Claude Code loads them from at session start (an agent file written
during a session is not found in that session). The rule, first match wins:

1. ``<repo>/.claude/agents/<name>.md`` (the dev shell, or a copy by hand): ``<name>``.
2. ``<config>/agents/<name>.md`` (home-manager's ``programs.claude-code.agents``,
   or this flake's module without it): ``<name>``. ``<config>`` is
   ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``.
3. A plugin that carries ``<name>.md`` among its agents: ``<plugin>:<name>``,
   the namespaced name Claude Code gives a plugin's agent type. The plugins
   looked at are the ones Claude Code loads:
   - each plugin in ``<config>/plugins/installed_plugins.json`` (``claude
     plugin install``) that the settings enable (``enabledPlugins`` in the
     project's ``.claude/settings.local.json``, ``.claude/settings.json``, then
     ``<config>/settings.json``; the first that names it decides);
   - each plugin folder in ``<config>/skills/<folder>/`` (a folder there with
     ``.claude-plugin/plugin.json`` is loaded as a plugin; in a project's
     ``.claude/skills/`` it is not);
   - the plugin holding the benchmark-skill folder in use, when that plugin
     lies in the Nix store (``$NIX_STORE_DIR``, else ``/nix/store``) (home-manager's ``programs.claude-code.plugins``
     passes it to ``claude --plugin-dir``, which leaves nothing else on disk).
   A plugin's agents are the ``.md`` files its manifest lists under
   ``agents``, or its ``agents/`` folder when the manifest lists none; its name
   is the manifest's ``name`` (for an installed plugin, the part of its id
   before ``@``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterator, Optional

# The type every arm of a new plan runs as (new, previous and baseline alike): no Skill tool and no skill
# listing, no Agent or Workflow tool (so no child with them), no CLAUDE.md; the arms differ only in the skill
# copy their prompt names. Runs planned before it name bench-baseline for the baseline, which is still shipped.
ARM_AGENT = "bench-arm"
JUDGE_AGENT = "bench-judge"


def config_dir() -> Path:
    """Claude Code's configuration folder: $CLAUDE_CONFIG_DIR, else ~/.claude."""
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def installed_agent_type(name: str, repo_root: Path, skill_dir: Optional[Path] = None,
                         config: Optional[Path] = None) -> Optional[str]:
    """The agent type name under which ``name`` is installed (see the module's rule), or None."""
    config = config_dir() if config is None else config
    for d in (repo_root / ".claude" / "agents", config / "agents"):
        if (d / f"{name}.md").is_file():
            return name
    for plugin_name, root in _loaded_plugins(repo_root, skill_dir, config):
        if _provides_agent(root, name):
            return f"{plugin_name}:{name}"
    return None


def _read_json(path: Path) -> Optional[dict]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _manifest(root: Path) -> Optional[dict]:
    return _read_json(root / ".claude-plugin" / "plugin.json")


def _provides_agent(root: Path, name: str) -> bool:
    manifest = _manifest(root) or {}
    listed = manifest.get("agents")
    if isinstance(listed, str):
        listed = [listed]
    if isinstance(listed, list):
        return any(isinstance(p, str) and Path(p).name == f"{name}.md" and (root / p).is_file() for p in listed)
    return (root / "agents" / f"{name}.md").is_file()


def _enabled(plugin_id: str, repo_root: Path, config: Path) -> bool:
    for settings in (repo_root / ".claude" / "settings.local.json", repo_root / ".claude" / "settings.json",
                     config / "settings.json"):
        enabled = (_read_json(settings) or {}).get("enabledPlugins")
        if isinstance(enabled, dict) and plugin_id in enabled:
            return enabled[plugin_id] is not False
    return False


def _loaded_plugins(repo_root: Path, skill_dir: Optional[Path], config: Path) -> Iterator[tuple[str, Path]]:
    """(name, root) of each plugin Claude Code loads at session start, as far as files tell."""
    registry = _read_json(config / "plugins" / "installed_plugins.json") or {}
    plugins = registry.get("plugins")
    if isinstance(plugins, dict):
        for plugin_id in sorted(plugins):
            installs = plugins[plugin_id]
            if not isinstance(installs, list) or not _enabled(plugin_id, repo_root, config):
                continue
            for install in installs:
                path = install.get("installPath") if isinstance(install, dict) else None
                project = install.get("projectPath") if isinstance(install, dict) else None
                if isinstance(project, str) and Path(project).resolve() != repo_root.resolve():
                    continue  # installed for another project
                if isinstance(path, str):
                    yield plugin_id.split("@", 1)[0], Path(path)
    skills = config / "skills"
    if skills.is_dir():
        for folder in sorted(skills.iterdir()):
            manifest = _manifest(folder)
            if manifest is not None and isinstance(manifest.get("name"), str):
                yield manifest["name"], folder
    if skill_dir is not None:
        for root in (skill_dir, skill_dir.parent.parent):
            manifest = _manifest(root)
            if manifest is not None and isinstance(manifest.get("name"), str):
                store = os.environ.get("NIX_STORE_DIR") or "/nix/store"
                if any(p == Path(store) or Path(store) in p.parents for p in (root, root.resolve())):
                    yield manifest["name"], root
                break
