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
import re
from pathlib import Path
from typing import Optional

import yaml
from attrs import frozen

from ..casefile import parse_case, read_frontmatter
from ..errors import BenchError, CaseError
from ..model import Case
from .files import read_text

OPTION_KEYS = ("temperature", "budget_tokens", "budget_usd", "judge_model", "models")
_MODEL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/\[\]-]{0,127}$")


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


def _discover(root: Path, skills_dir: Path, found: dict[str, SkillInfo],
              broken: Optional[dict[str, str]] = None) -> list[BenchError]:
    """Fill ``found`` with every good skill; ``broken`` (tests path -> SKILL.md) gets the skills whose SKILL.md
    has a problem, so that their tests are not also blamed for mapping to no skill."""
    problems: list[BenchError] = []
    broken = {} if broken is None else broken
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
        leaf = folder.name
        md_rel = _rel(root, skill_md)
        tests_rel = "tests/" + rel[len("skills/"):]
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
        found[leaf] = SkillInfo(name=leaf, path=rel)
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


_CASE_NUMBER = re.compile(r"^(?P<n>[0-9]+)-")


def case_folder_problems(root: Path, case_dirs_: list[Path]) -> list[BenchError]:
    """Case folders must start with a number and a dash (``01-``), each number used once: the numbers fix
    the order of the cases in every report."""
    problems: list[BenchError] = []
    seen: dict[int, str] = {}
    for d in sorted(case_dirs_, key=lambda d: d.name):
        m = _CASE_NUMBER.match(d.name)
        if m is None:
            problems.append(BenchError(_rel(root, d), f"the case folder name {d.name!r} does not start with a number "
                                       "and a dash", fix=f"rename it to NN-{d.name} (e.g. 01-{d.name}): the number "
                                       "fixes the case's place in every report"))
            continue
        n = int(m.group("n"))
        if n in seen:
            problems.append(BenchError(_rel(root, d), f"its number {m.group('n')} is also used by {seen[n]}",
                                       fix="give every case folder of a skill its own number (case order comes "
                                           "from the folder names)"))
            continue
        seen[n] = d.name
    return problems


def samples_problem(root: Path, case_dir: Path, case: Case) -> Optional[BenchError]:
    """A case with hard assertions commits samples beside case.md (docs/writing-cases.md): ``samples/good/``
    (or ``good-*``) with an output.md that passes every predicate, and ``samples/bad-*/`` that fail one."""
    if not case.hard_assertions:
        return None
    sdir = case_dir / "samples"
    subs = sorted(d for d in sdir.iterdir() if d.is_dir()) if sdir.is_dir() else []
    good = [d for d in subs if d.name == "good" or d.name.startswith("good-")]
    bad = [d for d in subs if d.name.startswith("bad-")]
    missing = []
    if not any((d / "output.md").is_file() for d in good):
        missing.append("samples/good/output.md (an answer that passes every predicate)")
    if not bad:
        missing.append("samples/bad-<what>/output.md (an answer that fails a predicate)")
    if not missing:
        return None
    text = _read(root, case_dir / "case.md")
    line = next((i + 1 for i, l in enumerate(text.splitlines())
                 if l.strip().lower().startswith("## hard assertions")), case.hard_assertions[0].line)
    return CaseError(_rel(root, case_dir / "case.md"),
                     f"has hard assertions but no samples to show they can pass and fail: missing {'; '.join(missing)}",
                     line=line, fix="add the samples beside case.md (see docs/writing-cases.md, 'The samples beside "
                                    "the case'), or remove the hard assertions")


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
    if not _CASE_ID.fullmatch(case_dir.name):
        raise CaseError(_rel(root, case_dir), f"the case folder name {case_dir.name!r} has a character outside "
                        "ASCII letters, digits, '.', '_' and '-' (it becomes part of every cell id and path)",
                        fix="rename the folder to match NN-name with only a-z, A-Z, 0-9, '.', '_', '-' "
                            "(e.g. 01-unicode-code)")
    fixture = fixture_path(root, case_dir, case)
    if fixture is not None and case.fixture is None:
        tests_root = (root / "tests").resolve()
        if not fixture.resolve().is_relative_to(tests_root):
            raise CaseError(_rel(root, fixture), "is a link that leaves tests/; it would be copied into every world",
                            fix="replace the link with a real folder inside tests/")
    if fixture is not None and fixture.exists():
        bad = _unsafe_fixture_entry(fixture)
        if bad is not None:
            raise CaseError(_rel(root, bad), "is a symlink or a special file (pipe, socket, device) in a fixture; a "
                            "world is a plain copy, and a link would let an arm write outside it",
                            fix="replace it with a regular file or folder holding the content")
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


_CASE_ID = re.compile(r"[A-Za-z0-9._-]+")  # the NN- prefix is checked by case_folder_problems


def _unsafe_fixture_entry(fixture: Path) -> Optional[Path]:
    """The first symlink or special file in a fixture (its top counts as a link too), or None. Nothing is opened."""
    import stat as _stat
    start = fixture.resolve()
    todo = [start]
    while todo:
        p = todo.pop()
        mode = os.lstat(p).st_mode
        if _stat.S_ISLNK(mode) and p != start:
            return p
        if _stat.S_ISDIR(mode):
            todo.extend(sorted(p.iterdir()))
        elif not _stat.S_ISREG(mode):
            return p
    return None


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
    except RecursionError:
        raise BenchError(rel, "is nested too deeply to read", line=1, fix="write flat 'temperature: 0' style lines") from None
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
    if "budget_tokens" in data:
        b = data["budget_tokens"]
        if isinstance(b, bool) or not isinstance(b, int) or b <= 0:
            raise BenchError(rel, f"budget_tokens {b!r} is not a positive whole number of raw tokens",
                             line=_key_line(path, "budget_tokens"), fix="write e.g. 'budget_tokens: 2000000'")
        opts["budget_tokens"] = b
    if "budget_usd" in data:
        b = data["budget_usd"]
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not math.isfinite(b) or b <= 0:
            raise BenchError(rel, f"budget_usd {b!r} is not a positive number of dollars",
                             line=_key_line(path, "budget_usd"), fix="write e.g. 'budget_usd: 5'")
        opts["budget_usd"] = float(b)
    if "judge_model" in data:
        jm = data["judge_model"]
        if not isinstance(jm, str) or not _MODEL_ID.match(jm):
            raise BenchError(rel, f"judge_model {jm!r} is not a model name", line=_key_line(path, "judge_model"),
                             fix="write e.g. 'judge_model: claude-haiku-4-5' (a name the Agent tool's model accepts)")
        opts["judge_model"] = jm
    if "models" in data:
        ms = data["models"]
        if not isinstance(ms, list) or not ms or not all(isinstance(x, str) and _MODEL_ID.match(x) for x in ms):
            raise BenchError(rel, f"models {ms!r} is not a list of model names", line=_key_line(path, "models"),
                             fix="write e.g. 'models: [claude-haiku-4-5, claude-sonnet-4-6]'")
        if len(set(ms)) != len(ms):
            raise BenchError(rel, "models lists a model twice", line=_key_line(path, "models"),
                             fix="list each model once")
        from ..report.fmt import model_slug  # results and reports are named <skill>@<slug>: two names, one file

        by_slug: dict[str, str] = {}
        for m in ms:
            if (other := by_slug.setdefault(model_slug(m), m)) != m:
                raise BenchError(rel, f"models {other!r} and {m!r} share the file name {model_slug(m)!r}, so their "
                                      "results would overwrite each other", line=_key_line(path, "models"),
                                 fix="benchmark one of them in a separate run, or name it by another spelling")
        opts["models"] = list(ms)
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
    broken: dict[str, str] = {}
    problems: list[BenchError] = list(_discover(root, root / "skills", found, broken))
    by_tests_path = {s.tests_path: s for s in found.values()}
    skill_paths = set(by_tests_path) | set(broken)
    counts = {name: 0 for name in found}
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
                    try:
                        load_options(root, skill)
                    except BenchError as err:
                        problems.append(err)
                keep, cases_here = [], []
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
                    cases_here.append(case_dir)
                    if skill is not None:
                        counts[skill.name] += 1
                    try:
                        case = load_case(root, case_dir)
                    except BenchError as err:
                        problems.append(err)
                        continue
                    missing_samples = samples_problem(root, case_dir, case)
                    if missing_samples is not None:
                        problems.append(missing_samples)
                problems.extend(case_folder_problems(root, cases_here))
                dirnames[:] = keep
                continue
            if not any(t.startswith(rel + "/") for t in skill_paths):
                known = ", ".join(sorted(by_tests_path)) or "none"
                problems.append(BenchError(rel, "maps to no skill (there is no skills/" + rel[len("tests/"):] + "/SKILL.md)",
                                           fix=f"move it to the test path of an existing skill ({known}) or remove it"))
                dirnames[:] = []
    skills = tuple((s, counts[s.name]) for s in sorted(found.values(), key=lambda s: s.path))
    return TreeReport(skills=skills, problems=tuple(problems))
