"""The words the subagents read: arm prompts, judge prompts, judge packets.

The wording lives in one place, the ``templates/`` folder of the
``benchmark-skill`` skill; this module only fills in ``{{name}}`` slots.
The folder is found, in order, from ``$BENCHMARK_SKILL_DIR`` (the skill's
wrapper sets it), from the skill folder around the running program
(``<skill>/bin/benchcore`` when installed by Nix), from the repository's
``skills/benchmark-skill`` (or ``.claude/skills/``), from the personal
``~/.claude/skills/benchmark-skill`` (``$CLAUDE_CONFIG_DIR`` when set), and from
the benchmark-skill plugin Claude Code has installed (its
``plugins/installed_plugins.json``): so a ``benchcore`` typed by hand, whatever
installed it (pip, Nix, the plugin), finds the templates of the skill the user
runs.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Iterable, Optional

from ...errors import BenchError
from ..claude.agents import config_dir
from ...model import Case, Turn

TEMPLATE_FILES = ("arm-with-skill.md", "arm-baseline.md", "seed.md", "judge-prompt.md", "judge-prompt-inline.md",
                  "judge-packet.md", "judge-answer.schema.json")
_SLOT = re.compile(r"\{\{([a-z_]+)\}\}")


def find_skill_dir(repo_root: Optional[Path]) -> Path:
    """The benchmark-skill folder whose templates/ the prompts are built from."""
    candidates: list[Path] = []
    env = os.environ.get("BENCHMARK_SKILL_DIR")
    if env:
        candidates.append(Path(env))
    exe = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else None
    if exe is not None and exe.parent.name == "bin":
        candidates.append(exe.parent.parent)
    if repo_root is not None:
        candidates.append(repo_root / "skills" / "benchmark-skill")
        candidates.append(repo_root / ".claude" / "skills" / "benchmark-skill")  # the Nix dev shell's link
    candidates.append(config_dir() / "skills" / "benchmark-skill")  # a personal install
    candidates.extend(_plugin_skill_dirs())
    for c in candidates:
        if (c / "templates" / "arm-baseline.md").is_file():
            return c.resolve()
    raise BenchError(None, "cannot find the benchmark-skill templates (templates/arm-baseline.md)",
                     fix="install the benchmark-skill skill (.claude/skills/ or ~/.claude/skills/), or set "
                         "BENCHMARK_SKILL_DIR to its folder (the one holding SKILL.md and templates/)")


def _plugin_skill_dirs() -> list[Path]:
    """The skill folder of each benchmark-skill plugin in Claude Code's installed_plugins.json."""
    try:
        data = json.loads((config_dir() / "plugins" / "installed_plugins.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    plugins = data.get("plugins") if isinstance(data, dict) else None
    out = []
    for key, installs in (plugins.items() if isinstance(plugins, dict) else []):
        if not key.startswith("benchmark-skill@") or not isinstance(installs, list):
            continue
        for one in installs:
            if isinstance(one, dict) and isinstance(one.get("installPath"), str):
                out.append(Path(one["installPath"]) / "skills" / "benchmark-skill")
    return out


class Templates:
    """The template files of one benchmark-skill folder, read once."""

    def __init__(self, skill_dir: Path):
        self.dir = skill_dir / "templates"
        self.text: dict[str, str] = {}
        for name in TEMPLATE_FILES:
            path = self.dir / name
            try:
                self.text[name] = path.read_text(encoding="utf-8")
            except OSError:
                raise BenchError(str(path), "is missing", fix="reinstall the benchmark-skill skill") from None
        try:
            self.answer_schema = json.loads(self.text["judge-answer.schema.json"])
        except ValueError as exc:
            raise BenchError(str(self.dir / "judge-answer.schema.json"), f"is not valid JSON: {exc}",
                             fix="reinstall the benchmark-skill skill") from None

    def fill(self, name: str, **slots: str) -> str:
        def sub(m: re.Match) -> str:
            key = m.group(1)
            if key not in slots:
                raise BenchError(str(self.dir / name), f"has an unknown slot {{{{{key}}}}}",
                                 fix=f"use only: {', '.join(sorted(slots))}")
            return slots[key]

        return _SLOT.sub(sub, self.text[name])

    # ------------------------------------------------------------------ arms

    def seed_block(self, seed: Iterable[Turn]) -> str:
        turns = list(seed)
        if not turns:
            return ""
        lines = "\n\n".join(f"**{'User' if t.role == 'user' else 'Assistant'}:** {t.text}" for t in turns)
        return self.fill("seed.md", turns=lines)

    def arm_prompt(self, case: Case, world: str, skill_dir: Optional[str]) -> str:
        """The exact prompt of one arm cell: a short arm preamble, the seed turns, the case's prompt."""
        seed = self.seed_block(case.seed)
        if skill_dir is None:
            text = self.fill("arm-baseline.md", world=world, seed=seed, prompt=case.prompt)
        else:
            text = self.fill("arm-with-skill.md", world=world, skill_dir=skill_dir, seed=seed, prompt=case.prompt)
        return text.rstrip("\n") + "\n"

    # ---------------------------------------------------------------- judges

    def judge_prompt(self, packet_path: str, packet_ref: str) -> str:
        """A judge's prompt that points at its packet file (Agent-tool batches: the agent writes it)."""
        return self.fill("judge-prompt.md", packet_path=packet_path, packet_ref=packet_ref).rstrip("\n") + "\n"

    def judge_prompt_inline(self, packet_text: str, packet_ref: str) -> str:
        """A judge's prompt that holds its packet (the bound workflow script: the judge needs no tool)."""
        return self.fill("judge-prompt-inline.md", packet=packet_text.rstrip("\n"),
                         packet_ref=packet_ref).rstrip("\n") + "\n"

    def packet(self, case: Case, packet_ref: str, output_a: str, output_b: str) -> str:
        criteria = "\n".join(f"- {c}" for c in case.soft_criteria)
        return self.fill("judge-packet.md", packet_ref=packet_ref, seed=self.seed_block(case.seed), prompt=case.prompt,
                         criteria=criteria, output_a=output_a.rstrip("\n"), output_b=output_b.rstrip("\n"),
                         fence_a=fence_for(output_a), fence_b=fence_for(output_b))


def fence_for(text: str) -> str:
    """A backtick fence no line of ``text`` can close: longer than any run of backticks or tildes in it
    (CommonMark closes a fence only with a run at least as long), and at least four long."""
    longest = max((len(m.group(0)) for m in re.finditer(r"`+|~+", text)), default=0)
    return "`" * max(4, longest + 1)


class Redactions(dict):
    """A replacement map (path -> placeholder) whose lookup is prepared once: a text is searched for where
    a path can start (the paths' common prefix), and only there for the path lengths in the map, so
    redacting costs the text, not the number of paths in the run."""

    _plan: Optional[tuple] = None

    def present(self, text: str) -> list[str]:
        """The paths that occur in ``text``, longest first (also those inside a longer one)."""
        if self._plan is None:
            keys = [k for k in self if k]
            prefix = os.path.commonprefix(keys) if keys else ""
            first = "[" + "".join(re.escape(c) for c in {k[0] for k in keys}) + "]" if keys else "(?!)"
            starts = re.compile(f"(?={re.escape(prefix) if prefix else first})")  # every start, overlapping too
            self._plan = (starts, sorted({len(k) for k in keys}, reverse=True))
        starts, lengths = self._plan
        hits = {text[m.start():m.start() + n] for m in starts.finditer(text) for n in lengths}
        return sorted((h for h in hits if h in self and h), key=len, reverse=True)


def redact(text: str, replacements: dict[str, str]) -> str:
    """Replace each run-specific path (worlds, skill copies, the temp root) by a neutral name, longest first."""
    table = replacements if isinstance(replacements, Redactions) else Redactions(replacements)
    for old in table.present(text):
        text = text.replace(old, table[old])
    return text


def run_redactions(worlds, skill_copies, temp_root: str = "") -> Redactions:
    """One replacement map for every output of a run, so a placeholder says nothing about which arm wrote
    it: every world is ``$WORLD``, every skill copy (and the folder it sits in) ``$SKILL``, the rest of
    the temp root ``$TEMP``. A path written with a trailing slash or as the folder above is covered too."""
    repl = Redactions()
    for w in worlds:
        if w:
            repl[w] = "$WORLD"
    for c in skill_copies:
        if c:
            repl[c] = "$SKILL"
            repl[os.path.dirname(c)] = "$SKILL"
    if temp_root:
        repl[temp_root] = "$TEMP"
    return repl
