"""The repository's skills/ and tests/ trees: discovery and validation (I/O).

Rules (CONTRACT section 1, ARCHITECTURE "Top level"):
- a skill is a folder under skills/ holding SKILL.md; its name is the leaf
  folder name and must equal the frontmatter ``name``; names are unique;
  skills do not nest (the walk stops at a folder holding SKILL.md);
- its tests are at the same relative path under tests/: tests/<rel>/<case>/case.md;
- every folder under tests/ must lie on the way to a skill's test folder,
  be a skill's test folder, or be (inside) a case folder;
- tests/.reports and hidden folders are ignored.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Optional

import yaml
from attrs import frozen

from ..casefile import parse_case, read_frontmatter
from ..errors import BenchError, CaseError
from ..model import Case
from .files import read_text

OPTION_KEYS = ("temperature",)


@frozen
class SkillInfo:
    name: str
    path: str  # relative to the repo root, e.g. "skills/git/commit-message"

    @property
    def tests_path(self) -> str:
        return "tests/" + self.path[len("skills/"):]


def find_repo_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding skills/ (and tests/ or .git)."""
    start = Path(start).resolve()
    for d in (start, *start.parents):
        if (d / "skills").is_dir() and ((d / "tests").is_dir() or (d / ".git").exists()):
            return d
    raise BenchError(str(start), "is not inside a skills repository (no folder above it holds skills/ and tests/)",
                     fix="run benchcore from your skills repository, or create skills/ and tests/ at its root")


def _rel(root: Path, p: Path) -> str:
    return p.relative_to(root).as_posix()


def _read(root: Path, path: Path) -> str:
    """A text file of the tree; unreadable or not UTF-8 is a BenchError naming it relative to the repo."""
    try:
        return read_text(path)
    except BenchError as err:
        raise BenchError(_rel(root, path), err.message, fix=err.fix) from None


def discover_skills(root: Path) -> dict[str, SkillInfo]:
    """name -> SkillInfo for every skill under skills/, sorted by name; BenchError on a clash."""
    skills_dir = root / "skills"
    found: dict[str, SkillInfo] = {}
    problems = _discover(root, skills_dir, found)
    if problems:
        raise problems[0]
    return dict(sorted(found.items()))


def _discover(root: Path, skills_dir: Path, found: dict[str, SkillInfo]) -> list[BenchError]:
    problems: list[BenchError] = []
    if not skills_dir.is_dir():
        return [BenchError(str(skills_dir), "there is no skills/ folder", fix="create skills/<name>/SKILL.md")]
    for dirpath, dirnames, filenames in os.walk(skills_dir):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        if "SKILL.md" not in filenames:
            continue
        dirnames[:] = []  # skills do not nest
        folder = Path(dirpath)
        rel = _rel(root, folder)
        skill_md = folder / "SKILL.md"
        try:
            meta = read_frontmatter(_read(root, skill_md), _rel(root, skill_md))
        except BenchError as err:
            problems.append(err)
            continue
        name = meta.get("name")
        leaf = folder.name
        if name != leaf:
            problems.append(BenchError(_rel(root, skill_md),
                                       f"frontmatter name {name!r} differs from its folder name {leaf!r}",
                                       line=2, fix=f"set 'name: {leaf}' or rename the folder to {name!r}"))
            continue
        if leaf in found:
            problems.append(BenchError(rel, f"two skills are named {leaf!r}: {found[leaf].path} and {rel}",
                                       fix="rename one of the two folders (and its frontmatter name)"))
            continue
        found[leaf] = SkillInfo(name=leaf, path=rel)
    return problems


def case_dirs(root: Path, skill: SkillInfo) -> list[Path]:
    """The skill's case folders (holding case.md), sorted by name."""
    tdir = root / skill.tests_path
    if not tdir.is_dir():
        return []
    return sorted((d for d in tdir.iterdir() if d.is_dir() and (d / "case.md").is_file()), key=lambda d: d.name)


def load_case(root: Path, case_dir: Path) -> Case:
    """Parse one case and check its fixture on disk (exists, stays inside tests/)."""
    path = case_dir / "case.md"
    rel = _rel(root, path)
    text = _read(root, path)
    case = parse_case(text, rel, case_dir.name)
    fixture = fixture_path(root, case_dir, case)
    if case.fixture is not None:
        line = next((i + 1 for i, l in enumerate(text.splitlines()) if l.startswith("fixture")), 2)
        tests_root = (root / "tests").resolve()
        assert fixture is not None
        if not fixture.resolve().is_relative_to(tests_root):
            raise CaseError(rel, f"the fixture path {case.fixture!r} leaves tests/", line=line,
                            fix="keep fixtures inside tests/, e.g. next to case.md in ./fixture")
        if not fixture.exists():
            raise CaseError(rel, f"the fixture {case.fixture!r} does not exist ({_rel(root, fixture)})", line=line,
                            fix="create it, correct the path, or remove the 'fixture:' line")
    return case


def fixture_path(root: Path, case_dir: Path, case: Case) -> Optional[Path]:
    """The fixture folder (or file) to copy into each world, or None for an empty world."""
    if case.fixture is not None:
        return Path(os.path.normpath(case_dir / case.fixture))
    default = case_dir / "fixture"
    return default if default.exists() else None


def load_cases(root: Path, skill: SkillInfo) -> tuple[Case, ...]:
    """Every case of a skill, in case order; the first problem raises."""
    return tuple(load_case(root, d) for d in case_dirs(root, skill))


def load_options(root: Path, skill: SkillInfo) -> dict:
    """tests/<skill path>/benchmark.yaml -> {"temperature": float}; defaults when absent."""
    opts = {"temperature": 1.0}
    path = root / skill.tests_path / "benchmark.yaml"
    if not path.is_file():
        return opts
    rel = _rel(root, path)
    try:
        data = yaml.safe_load(_read(root, path)) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise BenchError(rel, f"is not valid YAML: {getattr(exc, 'problem', exc)}",
                         line=(mark.line + 1) if mark else None, fix="write 'temperature: 0' style key: value lines") from None
    if not isinstance(data, dict):
        raise BenchError(rel, "is not a mapping", line=1, fix="write 'temperature: <number>'")
    for key in data:
        if key == "trials":
            raise BenchError(rel, "sets 'trials', but trials are always 5 (the pass rules are defined on 5)",
                             line=_key_line(path, key), fix="remove the 'trials' line")
        if key not in OPTION_KEYS:
            raise BenchError(rel, f"unknown option {key!r}", line=_key_line(path, key),
                             fix=f"use only {', '.join(OPTION_KEYS)}")
    if "temperature" in data:
        t = data["temperature"]
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or not 0 <= t <= 2:
            raise BenchError(rel, f"temperature {t!r} is not a number from 0 to 2", line=_key_line(path, "temperature"),
                             fix="write e.g. 'temperature: 0' (mechanical task) or 'temperature: 1.0' (realistic)")
        opts["temperature"] = float(t)
    return opts


def _key_line(path: Path, key: str) -> Optional[int]:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if line.startswith(f"{key}:") or line.startswith(f"{key} :"):
            return i + 1
    return None


@frozen
class TreeReport:
    skills: tuple[tuple[SkillInfo, int], ...]  # (skill, number of cases)
    problems: tuple[BenchError, ...]

    @property
    def untested(self) -> tuple[str, ...]:
        return tuple(s.name for s, n in self.skills if n == 0)


def validate_tree(root: Path) -> TreeReport:
    """Check skills/ and tests/ together; collect every problem rather than stopping at the first."""
    found: dict[str, SkillInfo] = {}
    problems: list[BenchError] = list(_discover(root, root / "skills", found))
    by_tests_path = {s.tests_path: s for s in found.values()}
    counts = {name: 0 for name in found}
    tests = root / "tests"
    if tests.is_dir():
        for dirpath, dirnames, filenames in os.walk(tests):
            here = Path(dirpath)
            rel = _rel(root, here)
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            if here == tests:
                continue
            if rel in by_tests_path:
                skill = by_tests_path[rel]
                try:
                    load_options(root, skill)
                except BenchError as err:
                    problems.append(err)
                for d in list(dirnames):
                    case_dir = here / d
                    if not (case_dir / "case.md").is_file():
                        if any(t.startswith(_rel(root, case_dir) + "/") for t in by_tests_path):
                            continue  # a nested skill's test path goes through here
                        problems.append(BenchError(_rel(root, case_dir), "is a folder in a skill's tests with no case.md",
                                                   fix="add a case.md, or move the folder out of the tests tree"))
                        continue
                    counts[skill.name] += 1
                    try:
                        load_case(root, case_dir)
                    except BenchError as err:
                        problems.append(err)
                dirnames[:] = [d for d in dirnames if not (here / d / "case.md").is_file()]
                continue
            if not any(t.startswith(rel + "/") for t in by_tests_path):
                known = ", ".join(sorted(by_tests_path)) or "none"
                problems.append(BenchError(rel, "maps to no skill (there is no skills/" + rel[len("tests/"):] + "/SKILL.md)",
                                           fix=f"move it to the test path of an existing skill ({known}) or remove it"))
                dirnames[:] = []
    skills = tuple((s, counts[s.name]) for s in sorted(found.values(), key=lambda s: s.path))
    return TreeReport(skills=skills, problems=tuple(problems))
