"""The repository's skills and tests/ trees: discovery and validation (I/O).

Rules (docs/case-format.md, "where skills and tests live"):
- a skill is a folder under a skills root (skills/, .claude/skills/, a plugin's skills/: see skillroots.py)
  holding SKILL.md; its name is the leaf folder name and must equal the frontmatter ``name``; names are
  unique; skills do not nest (the walk stops at a folder holding SKILL.md);
- its tests are at its path below its root under tests/ (a subfolder plugin's skills under
  tests/<plugin>/): tests/<rel>/<case>/case.md;
- every folder under tests/ must lie on the way to a skill's test folder,
  be a skill's test folder, or be (inside) a case folder;
- tests/.reports and hidden folders are ignored.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Optional

import yaml
from attrs import frozen

from ...casefile import parse_case, read_frontmatter
from ...errors import BenchError, CaseError, each, raise_all
from ...model import Case, SkillRef
from .options import option_problems
from .roots import ROOTS_HELP, SkillRoot, has_skills_root, linked_folders, skill_roots
from .roots import read_repo_text as _read, rel_path as _rel

@frozen
class SkillInfo:
    name: str
    path: str  # relative to the repo root, e.g. "skills/git/commit-message" or ".claude/skills/foo"
    tests_path: str  # e.g. "tests/git/commit-message" (skillroots.py has the rule)


def skill_ref(skill: SkillInfo) -> SkillRef:
    """The skill as run.json names it; ``tests`` only where the old rule (skills/<p> -> tests/<p>) would miss."""
    legacy = "tests/" + skill.path.removeprefix("skills/")
    return SkillRef(skill.name, skill.path, None if skill.tests_path == legacy else skill.tests_path)


def tests_path_of(ref: SkillRef) -> str:
    """A run's skill's tests folder, relative to the repository (run.json's ``tests``, else skills/<p> -> tests/<p>)."""
    return ref.tests or "tests/" + ref.path.removeprefix("skills/")


def find_repo_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding a skills root (and tests/ or .git)."""
    start = Path(start).resolve()
    for d in (start, *start.parents):
        if ((d / "tests").is_dir() or (d / ".git").exists()) and has_skills_root(d):
            return d
    raise BenchError(str(start), "is not inside a skills repository (no folder above it holds skills/, "
                     ".claude/skills/ or a plugin, with tests/ or .git)",
                     fix=f"run benchcore from your skills repository; skills live in {ROOTS_HELP}")


def discover_skills(root: Path) -> dict[str, SkillInfo]:
    """name -> SkillInfo for every skill under every skills root, sorted by name; BenchError on a clash."""
    found: dict[str, SkillInfo] = {}
    raise_all(_discover(root, found))
    return dict(sorted(found.items()))


def _discover(root: Path, found: dict[str, SkillInfo], broken: Optional[dict[str, str]] = None) -> list[BenchError]:
    """Fill ``found`` with every good skill; ``broken`` (tests path -> SKILL.md) gets the skills whose SKILL.md
    has a problem, so that their tests are not also blamed for mapping to no skill."""
    problems: list[BenchError] = []
    broken = {} if broken is None else broken
    roots = skill_roots(root)
    if not roots:
        return [BenchError(str(root), "has no skills folder", fix=f"put each skill in {ROOTS_HELP}")]
    seen: set[Path] = set()  # a skill reached from two roots (a plugin's skills path inside skills/) counts once
    for sroot in roots:
        problems += _discover_root(root, sroot, found, broken, seen)
    return problems


def _discover_root(root: Path, sroot: SkillRoot, found: dict[str, SkillInfo], broken: dict[str, str],
                   seen: set[Path]) -> list[BenchError]:
    problems: list[BenchError] = []
    for dirpath, dirnames, filenames in os.walk(root / sroot.path):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        if "SKILL.md" not in filenames:
            continue
        dirnames[:] = []  # skills do not nest
        folder = Path(dirpath)
        if folder.resolve() in seen:
            continue
        seen.add(folder.resolve())
        rel = _rel(root, folder)
        skill_md = folder / "SKILL.md"
        leaf = folder.name
        md_rel = _rel(root, skill_md)
        tests_rel = sroot.tests_rel(rel)
        try:
            text = _read(root, skill_md)
            meta = read_frontmatter(text, md_rel)
        except BenchError as err:
            problems.append(err)
            broken[tests_rel] = md_rel
            continue
        if not text.removeprefix("\ufeff").startswith("---"):
            problems.append(BenchError(md_rel, "has no frontmatter (a skill needs 'name' and 'description')", line=1,
                                       fix=f"start the file with '---', 'name: {leaf}', "
                                           "'description: <what it does and when to use it>', '---'"))
            broken[tests_rel] = md_rel
            continue
        name = meta.get("name")
        if name is None or (isinstance(name, str) and not name.strip()):
            problems.append(BenchError(md_rel, "has no 'name:' in its frontmatter", line=_fm_line(text, "name"),
                                       fix=f"add 'name: {leaf}' (a skill's name is its folder's name)"))
            broken[tests_rel] = md_rel
            continue
        if name != leaf:
            problems.append(BenchError(md_rel, f"frontmatter name {name!r} differs from its folder name {leaf!r}",
                                       line=_fm_line(text, "name"),
                                       fix=f"set 'name: {leaf}'" + (f" or rename the folder to {name!r}"
                                                                   if isinstance(name, str) else "")))
            broken[tests_rel] = md_rel
            continue
        description = meta.get("description")
        if not isinstance(description, str) or not description.strip():
            if isinstance(description, str) or description is None:
                what, fix = "has no 'description:'", ("add one line 'description: <what the skill does and when to "
                                                      "use it>': Claude Code reads it to decide when to use the skill")
            else:
                what, fix = (f"has a 'description:' that is not text ({description!r})",
                             "write the description as one line of text, in quotes if it looks like a date or a number")
            problems.append(BenchError(md_rel, f"{what} in its frontmatter", line=_fm_line(text, "description"),
                                       fix=fix))
            # still a skill: its tests are checked as usual
        if leaf in found:
            problems.append(BenchError(rel, f"two skills are named {leaf!r}: {found[leaf].path} and {rel}",
                                       fix="rename one of the two folders (and its frontmatter name)"))
            continue
        found[leaf] = SkillInfo(name=leaf, path=rel, tests_path=tests_rel)
    return problems


def _fm_line(text: str, key: str) -> int:
    """The line of ``key:`` in a Markdown file's frontmatter, else 2 (where it would go)."""
    lines = text.removeprefix("\ufeff").splitlines()
    for i, line in enumerate(lines[1:], start=2):
        if line.strip() == "---":
            break
        if line.startswith(f"{key}:") or line.startswith(f"{key} :"):
            return i
    return 2


def sample_dirs(case_dir: Path) -> list[Path]:
    """The case's sample folders (samples/<name>/), sorted by name; none when it has no samples/."""
    sdir = case_dir / "samples"
    return sorted(d for d in sdir.iterdir() if d.is_dir()) if sdir.is_dir() else []


def unproven_cases(case_dir_of: dict[str, Path], cases) -> tuple[str, ...]:
    """The cases with hard assertions and no sample to show they can pass and fail (harness/worlds/samples.py)."""
    return tuple(c.id for c in cases if c.hard_assertions and not sample_dirs(case_dir_of[c.id]))


def case_dirs(root: Path, skill: SkillInfo) -> list[Path]:
    """The skill's case folders (holding case.md), sorted by name."""
    tdir = root / skill.tests_path
    if not tdir.is_dir():
        return []
    return sorted((d for d in tdir.iterdir() if d.is_dir() and (d / "case.md").is_file()), key=lambda d: d.name)


def load_case(root: Path, case_dir: Path) -> Case:
    """Parse one case and check its fixture on disk (exists, stays inside tests/); every problem raises together."""
    case, problems = case_problems(root, case_dir)
    raise_all(problems)
    assert case is not None
    return case


def case_problems(root: Path, case_dir: Path) -> tuple[Optional[Case], list[BenchError]]:
    """(the case, or None when case.md does not parse; every problem of the case: case.md's, in the order a reader
    meets them, then its folder's name, then every link or special file in its fixture)."""
    path = case_dir / "case.md"
    rel = _rel(root, path)
    problems: list[BenchError] = []
    case: Optional[Case] = None
    try:
        text = _read(root, path)
    except BenchError as err:  # not readable as text: nothing in it can be checked
        return None, [err]
    try:
        case = parse_case(text, rel, case_dir.name)
    except CaseError as err:
        problems += each(err)
    if not _CASE_ID.fullmatch(case_dir.name):
        problems.append(CaseError(_rel(root, case_dir), f"the case folder name {case_dir.name!r} has a character "
                                  "outside ASCII letters, digits, '.', '_' and '-' (it becomes part of every cell id "
                                  "and path)", fix="rename the folder with only a-z, A-Z, 0-9, '.', '_', '-' "
                                                   "(e.g. unicode-code)"))
    named = case.fixture if case is not None else None
    fixture = fixture_path(root, case_dir, case) if case is not None else (
        case_dir / "fixture" if (case_dir / "fixture").exists() or (case_dir / "fixture").is_symlink() else None)
    tests_root = (root / "tests").resolve()
    if fixture is not None and named is None:
        if not fixture.resolve().is_relative_to(tests_root):
            problems.append(CaseError(_rel(root, fixture), "is a link that leaves tests/; it would be copied into "
                                      "every world", fix="replace the link with a real folder inside tests/"))
            fixture = None  # not walked: what it points at is not the case's
    if named is not None:
        line = next((i + 1 for i, l in enumerate(text.splitlines()) if l.startswith("fixture")), 2)
        assert fixture is not None
        if not fixture.resolve().is_relative_to(tests_root):
            problems.append(CaseError(rel, f"the fixture path {named!r} leaves tests/", line=line,
                                      fix="keep fixtures inside tests/, e.g. next to case.md in ./fixture"))
            fixture = None
        elif not fixture.exists():
            problems.append(CaseError(rel, f"the fixture {named!r} does not exist ({_rel(root, fixture)})",
                                      line=line, fix="create it, correct the path, or remove the 'fixture:' line"))
    if fixture is not None and fixture.exists():
        problems += [CaseError(_rel(root, bad), "is a symlink or a special file (pipe, socket, device) in a fixture; "
                               "a world is a plain copy, and a link would let an arm write outside it",
                               fix="replace it with a regular file or folder holding the content")
                     for bad in _unsafe_fixture_entries(fixture)]
    return (case if not problems else None), problems


_CASE_ID = re.compile(r"[A-Za-z0-9._-]+")  # any name: cases run and report in their folders' name order


def _unsafe_fixture_entries(fixture: Path) -> list[Path]:
    """Every symlink or special file in a fixture (its top counts as a link too), in path order. Nothing is
    opened, and no link is followed."""
    import stat as _stat
    start = fixture.resolve()
    found: list[Path] = []
    todo = [start]
    while todo:
        p = todo.pop()
        mode = os.lstat(p).st_mode
        if _stat.S_ISLNK(mode) and p != start:
            found.append(p)
        elif _stat.S_ISDIR(mode):
            todo.extend(sorted(p.iterdir(), reverse=True))
        elif not _stat.S_ISREG(mode):
            found.append(p)
    return sorted(found)


def fixture_path(root: Path, case_dir: Path, case: Case) -> Optional[Path]:
    """The fixture folder (or file) to copy into each world, or None for an empty world."""
    if case.fixture is not None:
        return Path(os.path.normpath(case_dir / case.fixture))
    default = case_dir / "fixture"
    return default if default.exists() else None


def load_cases(root: Path, skill: SkillInfo) -> tuple[Case, ...]:
    """Every case of a skill, in case order; the first problem raises."""
    return tuple(load_case(root, d) for d in case_dirs(root, skill))


@frozen
class TreeReport:
    skills: tuple[tuple[SkillInfo, int], ...]  # (skill, number of cases)
    problems: tuple[BenchError, ...]
    warnings: tuple[BenchError, ...] = ()  # reported, exit 0: e.g. hard assertions with no samples (unproven)

    @property
    def untested(self) -> tuple[str, ...]:
        return tuple(s.name for s, n in self.skills if n == 0)


def validate_tree(root: Path) -> TreeReport:
    """Check skills/ and tests/ together; collect every problem rather than stopping at the first."""
    found: dict[str, SkillInfo] = {}
    broken: dict[str, str] = {}
    problems: list[BenchError] = list(_discover(root, found, broken))
    warnings: list[BenchError] = []
    problems += [BenchError(link, "is a link to a folder inside a skill; a skill is copied file by file, so the "
                            "benchmark cannot copy it", fix="replace the link with the folder itself, or link "
                            "each file") for s in sorted(found.values(), key=lambda s: s.path)
                 for link in linked_folders(root, s.path)]
    first = list(problems)
    by_tests_path = {s.tests_path: s for s in found.values()}
    skill_paths = set(by_tests_path) | set(broken)
    counts = {name: 0 for name in found}
    # Most important first: a skill that cannot be found, then a skill's options (they shape every cell), then
    # the layout of tests/, then each case's own problems (each file's in the order a reader meets them).
    options_problems: list[BenchError] = []
    cases_problems: list[BenchError] = []
    tests = root / "tests"
    if tests.is_dir():
        for dirpath, dirnames, filenames in os.walk(tests):
            here = Path(dirpath)
            rel = _rel(root, here)
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            if here == tests:
                continue
            if rel in skill_paths:
                skill = by_tests_path.get(rel)
                if skill is not None:
                    options_problems += option_problems(root, skill)[1]
                keep = []
                for d in list(dirnames):
                    case_dir = here / d
                    if not (case_dir / "case.md").is_file():
                        if any(t.startswith(_rel(root, case_dir) + "/") for t in skill_paths):
                            keep.append(d)  # a nested skill's test path goes through here
                            continue
                        empty = not any(case_dir.iterdir())
                        problems.append(BenchError(
                            _rel(root, case_dir),
                            ("is an empty case folder" if empty else "is a case folder with no case.md")
                            + f" (in the tests of {rel.rsplit('/', 1)[-1]})",
                            fix=f"write {_rel(root, case_dir)}/case.md (see docs/case-format.md), or remove the folder"))
                        continue
                    if skill is not None:
                        counts[skill.name] += 1
                    case, found_here = case_problems(root, case_dir)
                    cases_problems += found_here
                    if case is None:
                        continue
                    if unproven_cases({case.id: case_dir}, [case]):
                        warnings.append(CaseError(
                            _rel(root, case_dir / "case.md"), "has hard assertions but no samples/, so nothing shows "
                            "they can pass and fail: the run marks its predicates unproven",
                            line=case.hard_assertions[0].line,
                            fix="add samples/good/output.md (passes every predicate) and samples/bad-<what>/output.md "
                                "(fails one) beside case.md; benchcore validate runs them"))
                dirnames[:] = keep
                continue
            if not any(t.startswith(rel + "/") for t in skill_paths):
                known = ", ".join(sorted(by_tests_path)) or "none"
                problems.append(BenchError(rel, "maps to no skill (no skill has its tests here: a skill in "
                                           f"{ROOTS_HELP})",
                                           fix=f"move it to the test path of an existing skill ({known}) or remove it"))
                dirnames[:] = []
    skills = tuple((s, counts[s.name]) for s in sorted(found.values(), key=lambda s: s.path))
    layout = problems[len(first):]
    problems = first + options_problems + layout + cases_problems
    return TreeReport(skills=skills, problems=tuple(problems), warnings=tuple(warnings))
