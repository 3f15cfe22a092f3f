"""Where a repository keeps its skills (skills/, .claude/skills/, plugins, a marketplace's plugins) (I/O).

A *skills root* is a folder whose subfolders hold skills (``<root>/<path>/SKILL.md``). Each root maps its
skills to a tests path: the skill's path below its root, under ``tests/``, prefixed by the plugin's name for
a plugin in a subfolder:

- ``skills/<path>``                       -> ``tests/<path>``
- ``.claude/skills/<path>``               -> ``tests/<path>``
- a plugin at the repository's root (``.claude-plugin/plugin.json``): its ``skills/`` is the one above
- a plugin in a subfolder (``plugins/<p>/`` with ``.claude-plugin/plugin.json``, or a local ``source`` of
  ``.claude-plugin/marketplace.json``): ``<plugin>/skills/<path>`` -> ``tests/<name>/<path>``, where <name> is
  the plugin's name (the marketplace entry's, else plugin.json's, else the folder's)

A ``skills`` entry in a plugin.json (a path or a list of paths, relative to the plugin) adds roots the same way;
a path that is itself a skill folder maps to its folder name. Skill names are unique across the repository, so
tests paths are too. Paths that leave the repository, and non-local marketplace sources, are ignored.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Optional

from attrs import frozen

from ...errors import BenchError
from ..store.files import read_json_object as _json, read_text

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
PLUGIN_JSON = ".claude-plugin/plugin.json"
MARKETPLACE_JSON = ".claude-plugin/marketplace.json"


@frozen
class SkillRoot:
    path: str  # relative to the repository root, e.g. "skills", ".claude/skills", "plugins/p/skills"
    prefix: str  # below tests/: "" or "<plugin name>/"

    def tests_rel(self, skill_rel: str) -> str:
        """tests/<prefix><the skill's path below this root>; a root that is itself a skill maps to its name."""
        below = skill_rel[len(self.path) + 1:] if skill_rel != self.path else self.path.rsplit("/", 1)[-1]
        return f"tests/{self.prefix}{below}"


def _inside(root: Path, base: str, rel: object) -> Optional[str]:
    """``rel`` (relative to the folder ``base``) as a path relative to the repository, or None if it is not a
    local path inside it."""
    if not isinstance(rel, str) or not rel.strip() or rel.startswith("/") or "://" in rel:
        return None
    joined = os.path.normpath(os.path.join(base or ".", rel))
    if joined == ".":
        return ""
    if joined.startswith("..") or os.path.isabs(joined):
        return None
    return Path(joined).as_posix() if (root / joined).is_dir() else None


def _plugins(root: Path) -> list[tuple[str, str]]:
    """(plugin folder relative to the repository, "" for the root; its name) for every local plugin."""
    out: dict[str, str] = {}
    if (root / PLUGIN_JSON).is_file():
        out[""] = ""
    for entry in _json(root / MARKETPLACE_JSON).get("plugins") or []:
        if not isinstance(entry, dict):
            continue
        folder = _inside(root, "", entry.get("source"))
        if folder is not None and folder not in out:
            name = entry.get("name")
            out[folder] = name if isinstance(name, str) and _NAME.match(name) else folder.rsplit("/", 1)[-1]
    plugins = root / "plugins"
    if plugins.is_dir():
        for d in sorted(plugins.iterdir()):
            folder = f"plugins/{d.name}"
            if d.is_dir() and not d.is_symlink() and (d / PLUGIN_JSON).is_file() and folder not in out:
                name = _json(d / PLUGIN_JSON).get("name")
                out[folder] = name if isinstance(name, str) and _NAME.match(name) else d.name
    return list(out.items())


def skill_roots(root: Path) -> list[SkillRoot]:
    """Every skills root of the repository, in the order they are searched (a skill found under an earlier root
    is not found again under a later one)."""
    out: list[SkillRoot] = []

    def add(path: Optional[str], prefix: str) -> None:
        if path is not None and path != "" and (root / path).is_dir() and not (root / path).is_symlink() \
                and all(r.path != path for r in out):
            out.append(SkillRoot(path=path, prefix=prefix))

    add("skills", "")
    add(".claude/skills", "")
    for folder, name in _plugins(root):
        prefix = f"{name}/" if folder else ""
        add(_inside(root, folder, "skills"), prefix)
        extra = _json(root / folder / PLUGIN_JSON).get("skills")
        for rel in [extra] if isinstance(extra, str) else (extra if isinstance(extra, list) else []):
            add(_inside(root, folder, rel), prefix)
    return out


def has_skills_root(folder: Path) -> bool:
    """The folder holds a skills root of its own (what makes it a skills repository, with tests/ or .git)."""
    return bool(skill_roots(folder)) or (folder / PLUGIN_JSON).is_file() or (folder / MARKETPLACE_JSON).is_file()


ROOTS_HELP = ("skills/<path>/SKILL.md or .claude/skills/<path>/SKILL.md (tests in tests/<path>/), or a plugin's "
              "<plugin>/skills/<path>/SKILL.md (tests in tests/<plugin name>/<path>/)")


def installed_note(skills, arm_agent_type: Optional[str]) -> Optional[str]:
    """plan's note for skills under .claude/skills/: Claude Code has them installed in the session it runs in.
    Arms that run as the benchmark's own type (``arm_agent_type``, which has no Skill tool) never see them;
    arms of the default type do."""
    names = sorted({s.name for s in skills if s.path.startswith(".claude/skills/")})
    if not names:
        return None
    head = (f"note: {', '.join(names)} {'lives' if len(names) == 1 else 'live'} in .claude/skills/, so Claude Code "
            "has it installed in this session: ")
    if arm_agent_type:
        return head + f"the arms run as {arm_agent_type}, which has no Skill tool, so no arm sees or invokes it"
    return head + ("default-type subagents see it in their skill listing, and an arm that invokes it instead of "
                   "its own copy makes its trial invalid (collect names it; --rerun plans it afresh)")


def linked_folders(root: Path, skill_path: str) -> list[str]:
    """The links to folders inside a skill folder, relative to the repository. A skill is copied file by file
    (git lists and hashes files, and a link to a folder is neither), so such a link cannot be benchmarked."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root / skill_path):
        for name in sorted(dirnames + filenames):
            p = Path(dirpath) / name
            if p.is_symlink() and p.is_dir():
                out.append(p.relative_to(root).as_posix())
        dirnames[:] = [d for d in dirnames if not (Path(dirpath) / d).is_symlink()]
    return sorted(out)


def rel_path(root: Path, p: Path) -> str:
    """``p`` as the repository's messages name it: relative to the root, with forward slashes."""
    return p.relative_to(root).as_posix()


def read_repo_text(root: Path, path: Path) -> str:
    """A text file of the repository; unreadable or not UTF-8 is a BenchError naming it relative to the root."""
    try:
        return read_text(path)
    except BenchError as err:
        raise BenchError(rel_path(root, path), err.message, fix=err.fix) from None
