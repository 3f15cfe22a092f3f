"""The committed example skills and their cases (the repository's own tests/ tree).

Every case must be valid by the contract, every case's setup must build the
world it needs, and every hard assertion must be shown able to pass and able
to fail: a case with hard assertions commits samples of what an arm might
leave behind, next to case.md::

    samples/<name>/output.md    the arm's final message ($OUTPUT)
    samples/<name>/world/       optional: files the arm wrote, copied over the world
    samples/<name>/act.sh       optional: what else the arm did (run with sh in the world, after the copy)

A sample named ``good`` or ``good-*`` must pass every predicate; one named
``bad-*`` must fail at least one; and every predicate of the case must fail
on at least one bad sample, so an assertion that cannot fail is caught.
Samples are never shown to an arm: only case.md and the fixture are.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchcore.casefile import parse_case, read_frontmatter
from benchcore.harness.worlds.assertions import run_assertions
from benchcore.harness.repo.tree import case_dirs, discover_skills, fixture_path, load_case, validate_tree
from benchcore.harness.worlds.temp import make_world, run_setup
from benchcore.model import Case
from places import REPO

REPO = REPO
EXAMPLE_SKILLS = ("commit-message", "adr-writer", "changelog-entry")
ASSERTION_TIMEOUT = 60


def _all_cases() -> list[tuple[str, Path]]:
    skills = discover_skills(REPO)
    out = []
    for name, skill in skills.items():
        for d in case_dirs(REPO, skill):
            out.append((name, d))
    return out


CASES = _all_cases()
CASE_IDS = [f"{name}/{d.name}" for name, d in CASES]


@pytest.fixture(autouse=True)
def _hermetic_git(monkeypatch, tmp_path_factory):
    """No user or system git config, no inherited GIT_DIR: setups must build their repos on their own."""
    for key in list(os.environ):
        if key.startswith("GIT_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("LC_ALL", "C")


def _build_world(case_dir: Path, case: Case, tmp: Path) -> Path:
    """A fresh world made the way plan makes it: the fixture copied, then the case's setup run in it."""
    world = make_world(tmp, case.id, 1, fixture_path(REPO, case_dir, case))
    if case.setup:
        run_setup(world, case.setup, case.path)  # raises BenchError naming the case
    return world


def _load(case_dir: Path) -> Case:
    return load_case(REPO, case_dir)


def _samples(case_dir: Path) -> dict[str, Path]:
    sdir = case_dir / "samples"
    if not sdir.is_dir():
        return {}
    return {d.name: d for d in sorted(sdir.iterdir()) if d.is_dir()}


def _run_sample(case_dir: Path, case: Case, sample: Path, tmp: Path, sh: bool = True,
                built: Path | None = None) -> list[int]:
    """Exit code of each hard assertion against one sample, in case order.

    The predicates run through the harness (as collect runs them) and, with
    ``sh``, again under plain POSIX ``sh``: a predicate must mean the same in
    both, because users write and debug them in whatever shell they have.
    ``built``: a world of this case just built by ``_build_world``, copied for the sample instead of running the
    setup again (the example setups write nothing that depends on the world's path; `benchcore validate`, which
    test_benchcore_validate_exits_0_from_the_repo_root runs, builds each sample's world with the setup).
    """
    if built is None:
        world = _build_world(case_dir, case, tmp)
    else:
        world = tmp / "world"
        shutil.copytree(built, world, symlinks=True)
    if (sample / "world").is_dir():
        shutil.copytree(sample / "world", world, dirs_exist_ok=True)
    if (sample / "act.sh").is_file():
        done = subprocess.run(["sh", str(sample / "act.sh")], cwd=world, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, f"{sample}/act.sh failed:\n{done.stderr}"
    output = sample / "output.md"
    assert output.is_file(), f"{sample} has no output.md"
    results = run_assertions(case.hard_assertions, output, world, timeout=ASSERTION_TIMEOUT)
    assert not any(r.timed_out for r in results), f"{sample}: a predicate timed out"
    codes = [r.exit for r in results]
    if not sh:
        return codes
    env = dict(os.environ, OUTPUT=str(output), WORLD=str(world))
    for a, code in zip(case.hard_assertions, codes):
        done = subprocess.run(["sh", "-c", a.command], cwd=world, env=env, capture_output=True, text=True,
                              timeout=ASSERTION_TIMEOUT, stdin=subprocess.DEVNULL)
        assert (done.returncode == 0) == (code == 0), f"{sample}: bash and sh disagree on: {a.command}"
    return codes


# --------------------------------------------------------------------------
# the tree as a whole


def test_the_example_skills_exist_with_at_least_four_cases_each():
    skills = discover_skills(REPO)
    for name in EXAMPLE_SKILLS:
        assert name in skills, f"skill {name} is missing"
        n = len(case_dirs(REPO, skills[name]))
        assert n >= 4, f"{name} has {n} cases, want at least 4"
    # at least one example skill sits in a cosmetic folder
    assert any(skills[n].path.count("/") >= 2 for n in EXAMPLE_SKILLS)


def test_validate_tree_finds_no_problem():
    report = validate_tree(REPO)
    assert [str(p) for p in report.problems] == []


def test_benchcore_validate_exits_0_from_the_repo_root():
    done = subprocess.run([sys.executable, "-m", "benchcore", "validate", "--json"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"ok": true' in done.stdout


@pytest.mark.parametrize("name", EXAMPLE_SKILLS)
def test_skill_frontmatter_and_links(name):
    skill = discover_skills(REPO)[name]
    folder = REPO / skill.path
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    meta = read_frontmatter(text, skill.path + "/SKILL.md")
    assert meta["name"] == folder.name
    assert isinstance(meta.get("description"), str) and len(meta["description"]) > 40
    # Claude Code truncates a skill's description + when_to_use at 1,536 characters
    # in the listing it chooses skills from; a cut "Use when ..." never triggers
    assert len(meta["description"]) + len(str(meta.get("when_to_use", ""))) <= 1536
    assert meta.get("disable-model-invocation") is not True, "an example skill must load by itself"
    # the body stays short and every relative link it makes resolves
    body = text.split("\n---\n", 1)[1]
    assert len(body.splitlines()) < 120
    prose = re.sub(r"```.*?```|`[^`\n]*`", "", body, flags=re.S)  # links in code are examples
    links = re.findall(r"\]\(([^)#\s]+)\)", prose)
    assert links, f"{name}: SKILL.md points to no reference file"
    for link in links:
        assert (folder / link).is_file(), f"{name}: SKILL.md links to missing {link}"


def test_agnix_strict_passes_on_the_example_skills():
    # On PATH, or beside this interpreter: the [test] extra installs it into the environment pytest runs from,
    # whose bin/ is on PATH only when that environment is activated.
    agnix = shutil.which("agnix") or shutil.which("agnix", path=str(Path(sys.executable).parent))
    if agnix is None:
        pytest.skip("agnix is not installed (pip install agnix)")
    skills = discover_skills(REPO)
    paths = [skills[n].path for n in EXAMPLE_SKILLS]
    done = subprocess.run([agnix, "--strict", *paths], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_agnix_suppression_in_the_example_skills_names_its_rule_and_its_reason():
    # agnix --strict stays clean partly through inline suppressions; one without
    # a rule id silences every rule, and one without a reason cannot be reviewed
    skills = discover_skills(REPO)
    for name in EXAMPLE_SKILLS:
        for f in sorted((REPO / skills[name].path).rglob("*.md")):
            for line in f.read_text(encoding="utf-8").splitlines():
                if "agnix" in line and ("disable" in line or "noqa" in line):
                    m = re.fullmatch(r"<!-- agnix-disable(?:-next-line)? ([A-Z]+(?:-[A-Z]+)*-\d+) -- (.{20,}) -->", line)
                    assert m, f"{f.relative_to(REPO)}: suppression without a rule id and a reason: {line}"


# --------------------------------------------------------------------------
# each case


@pytest.mark.parametrize(("skill", "case_dir"), CASES, ids=CASE_IDS)
def test_case_follows_the_contract(skill, case_dir):
    text = (case_dir / "case.md").read_text(encoding="utf-8")
    case = parse_case(text, str(case_dir / "case.md"))  # unknown headings, empty prompt ... raise
    assert case.id == case_dir.name
    assert case.soft_criteria
    roles = [t.role for t in case.seed]
    assert all(a != b for a, b in zip(roles, roles[1:])), "the seed must alternate roles"
    fx = fixture_path(REPO, case_dir, case)
    if fx is not None:
        assert fx.resolve().is_relative_to((REPO / "tests").resolve())
        assert fx.exists()
    # the case sits at the skill's test path
    assert case_dir.parent.relative_to(REPO).as_posix() == "tests/" + discover_skills(REPO)[skill].path[len("skills/"):]


@pytest.mark.parametrize(("skill", "case_dir"), [c for c in CASES if c[0] in EXAMPLE_SKILLS],
                         ids=[i for i, c in zip(CASE_IDS, CASES) if c[0] in EXAMPLE_SKILLS])
def test_world_does_not_leak_the_skill_or_the_samples(skill, case_dir, tmp_path):
    case = _load(case_dir)
    world = _build_world(case_dir, case, tmp_path)
    assert not (world / ".case-setup").exists(), "setup must remove its own scaffolding"
    for p in world.rglob("*"):
        if ".git" in p.relative_to(world).parts or not p.is_file():
            continue
        text = p.read_text(encoding="utf-8", errors="replace")
        for word in (skill, "benchcore", "hard assertion", "soft criteria"):
            assert word not in text, f"{p.relative_to(world)} mentions {word!r}"


# Bug: soft criteria asked for "no long preamble", "short enough to act on" and
# "a few sentences": judges are told to discount length and formatting unless a
# criterion asks for them, so such a bullet tilts the verdict towards a style
# (the skill's own reply format) instead of the substance of the answer.
LENGTH_WORDS = re.compile(r"\b(concise|brief|briefly|short enough|long preamble|few sentences|well[- ]formatted)\b", re.I)


@pytest.mark.parametrize(("skill", "case_dir"), [c for c in CASES if c[0] in EXAMPLE_SKILLS],
                         ids=[i for i, c in zip(CASE_IDS, CASES) if c[0] in EXAMPLE_SKILLS])
def test_soft_criteria_ask_for_substance_and_never_name_the_skill(skill, case_dir):
    skill_dir = REPO / discover_skills(REPO)[skill].path
    own_files = {p.name for p in skill_dir.rglob("*") if p.is_file()}
    for bullet in _load(case_dir).soft_criteria:
        assert not LENGTH_WORDS.search(bullet), f"rewards length or formatting: {bullet}"
        assert skill not in bullet, f"names the skill: {bullet}"
        assert not any(name in bullet for name in own_files), f"names a file of the skill: {bullet}"


# What each setup must build: a command run in the fresh world and its exact output.
WORLD_EXPECTATIONS = {
    "commit-message/01-rounding-fix": [
        ("git branch --show-current", "fix/482-invoice-rounding"),
        ("git diff --cached --name-only", "src/ledgerly/billing/invoice.py\ntests/test_invoice.py"),
        ("git status --porcelain --untracked-files=all | grep -v '^M ' | wc -l", "0"),
    ],
    "commit-message/02-renamed-env-var": [
        ("git branch --show-current", "config-env-names"),
        ("git diff --cached --name-only", "README.md\nsrc/ledgerly/config.py\ntests/test_config.py"),
    ],
    "commit-message/03-nothing-staged": [
        ("git diff --cached --name-only | wc -l", "0"),
        ("git status --porcelain", " M src/ledgerly/auth/tokens.py\n?? scratch.md"),
    ],
    "commit-message/04-mixed-concerns": [
        ("git diff --cached --name-only",
         "pyproject.toml\nsrc/ledgerly/auth/tokens.py\nsrc/ledgerly/billing/invoice.py\ntests/test_invoice.py"),
    ],
    "commit-message/05-staged-secret": [
        ("git branch --show-current", "feat/311-read-replica"),
        ("git diff --cached --name-only", "deploy/prod.env\nsrc/ledgerly/config.py"),
    ],
    "adr-writer/01-job-queue": [
        ("git status --porcelain --untracked-files=all | wc -l", "0"),
        ("ls docs/adr", "0001-record-architecture-decisions.md\n0002-use-postgres-as-the-primary-database.md"),
    ],
    "adr-writer/02-no-decision": [
        ("git status --porcelain --untracked-files=all | wc -l", "0"),
        ("ls docs/adr | wc -l", "2"),
    ],
    "adr-writer/03-supersede-polling": [
        ("git status --porcelain --untracked-files=all | wc -l", "0"),
        ("ls docs/adr | tail -n 1", "0004-serve-product-images-from-s3-through-cloudfront.md"),
        ("grep '^Status:' docs/adr/0003-poll-the-carrier-api-for-tracking-updates.md", "Status: Accepted"),
    ],
    "adr-writer/04-reply-with-dissent": [
        ("ls -A | wc -l", "0"),
    ],
    "changelog-entry/01-csv-quoting-fix": [
        ("git branch --show-current", "fix/57-csv-quoting"),
        ("git tag", "v1.4.0"),
        ("git log --format=%s main..HEAD", "Test fields with commas, quotes and newlines\nUse the csv module to write CSV"),
        ("git status --porcelain --untracked-files=all | wc -l", "0"),
    ],
    "changelog-entry/02-removed-option": [
        ("git branch --show-current", "61-drop-legacy-flag"),
        ("git diff --name-only main...HEAD", "README.md\nsrc/tabkit/cli.py"),
        ("git status --porcelain --untracked-files=all | wc -l", "0"),
    ],
    "changelog-entry/03-internal-only": [
        ("git diff --name-only main...HEAD", ".github/workflows/ci.yml\nsrc/tabkit/export.py\ntests/test_export.py"),
        ("git status --porcelain --untracked-files=all | wc -l", "0"),
    ],
    "changelog-entry/04-first-entry-after-release": [
        ("grep -c '^## \\[Unreleased\\]' CHANGELOG.md || true", "0"),
        ("git log --format=%s main..HEAD", "filter: add --since and --date-column (#63)"),
        ("git status --porcelain --untracked-files=all | wc -l", "0"),
    ],
}


@pytest.mark.parametrize("key", sorted(WORLD_EXPECTATIONS))
def test_setup_builds_the_world_the_case_needs(key, tmp_path):
    skill, case_id = key.split("/")
    case_dir = REPO / ("tests/" + discover_skills(REPO)[skill].path[len("skills/"):]) / case_id
    case = _load(case_dir)
    world = _build_world(case_dir, case, tmp_path)
    for command, expected in WORLD_EXPECTATIONS[key]:
        done = subprocess.run(["sh", "-c", command], cwd=world, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.rstrip("\n") == expected, f"{key}: {command}"


def test_plan_builds_every_world_of_the_example_skills(tmp_path):
    # plan runs each case's setup in every fresh world; run it on a copy of the
    # repository so the real tree's tests/.reports stays untouched
    repo = tmp_path / "repo"
    for part in ("skills", "tests"):
        shutil.copytree(REPO / part, repo / part, ignore=shutil.ignore_patterns(".reports"))
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@example.com",
                                                  "-c", "commit.gpgsign=false", "commit", "-qm", "init"]):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    # The benchmark's agent types in place, as the dev shell puts them (plan stops without them: issue 26.3).
    agents = repo / ".claude" / "agents"
    agents.mkdir(parents=True)
    for f in sorted((REPO / "skills/benchmark-skill/agents").glob("*.md")):
        shutil.copy(f, agents / f.name)
    temp = tmp_path / "worlds"
    done = subprocess.run([sys.executable, "-m", "benchcore", "plan", *EXAMPLE_SKILLS, "--temp-dir", str(temp), "--json"],
                          cwd=repo, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    runs = json.loads(done.stdout)["runs"]
    assert sorted(r["skill"] for r in runs) == sorted(EXAMPLE_SKILLS)
    for run in runs:
        plan = json.loads((Path(run["run_dir"]) / "plan.json").read_text(encoding="utf-8"))
        assert len(plan["cells"]) == len(run["cases"]) * 5 * 2  # two-arm: the skills are unchanged
        for cell in plan["cells"]:
            world = Path(cell["world"])
            assert world.is_dir() and not (world / ".case-setup").exists(), cell["id"]
        cleaned = subprocess.run([sys.executable, "-m", "benchcore", "clean", run["run_dir"]], cwd=repo,
                                 capture_output=True, text=True, timeout=120)
        assert cleaned.returncode == 0, cleaned.stdout + cleaned.stderr
        assert not any(Path(c["world"]).exists() for c in plan["cells"])


HARD_CASES = [(s, d) for s, d in CASES if _load(d).hard_assertions]
HARD_IDS = [f"{s}/{d.name}" for s, d in HARD_CASES]


# Bug: changelog-entry/01's "only lines were added" predicate matched the diff
# header '--- a/CHANGELOG.md' literally, so on a machine whose git config sets
# diff.mnemonicPrefix (the header reads '--- c/CHANGELOG.md') or diff.noprefix,
# a good answer failed the gate; and under color.ui=always the diff lines start
# with escape codes, so no '^-' line matched and a bad answer passed. Predicates
# run with the user's own git config; these are common settings in dotfiles.
# Bug: with tag.gpgSign (set by most people who sign their commits) the
# changelog-entry setups' 'git tag v1.4.0' asked for a tag message and failed,
# so plan stopped on every changelog case. And a user's own hooks (core.hooksPath)
# ran on the setups' branch switch: a failing post-checkout hook failed it.
USER_GIT_CONFIG = """\
[diff]
\tmnemonicPrefix = true
\tnoprefix = true
\talgorithm = histogram
\trenames = copies
[color]
\tui = always
[core]
\tquotePath = false
[status]
\tshowUntrackedFiles = all
[log]
\tshowSignature = false
\tdecorate = full
[init]
\tdefaultBranch = trunk
[commit]
\tgpgSign = true
[tag]
\tgpgSign = true
[gpg]
\tprogram = false
"""


@pytest.mark.parametrize("git_config", ["no-git-config", "a-users-git-config"])
@pytest.mark.parametrize(("skill", "case_dir"), HARD_CASES, ids=HARD_IDS)
def test_hard_assertions_pass_on_good_samples_and_each_fails_on_a_bad_one(skill, case_dir, git_config, tmp_path,
                                                                           monkeypatch):
    if git_config == "a-users-git-config":
        hooks = tmp_path / "hooks"
        hooks.mkdir()
        (hooks / "post-checkout").write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
        (hooks / "post-checkout").chmod(0o755)
        (tmp_path / "gitconfig").write_text(USER_GIT_CONFIG + f"[core]\n\thooksPath = {hooks}\n", encoding="utf-8")
        monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    case = _load(case_dir)
    samples = _samples(case_dir)
    sh = git_config == "no-git-config"  # bash against sh is a question of the shell, not of git's config: asked once
    good = {n: p for n, p in samples.items() if n == "good" or n.startswith("good-")}
    bad = {n: p for n, p in samples.items() if n.startswith("bad-")}
    assert set(samples) == set(good) | set(bad), f"sample names must be good, good-* or bad-*: {sorted(samples)}"
    assert good, f"{case_dir}: no samples/good/ to show the assertions can pass"
    assert bad, f"{case_dir}: no samples/bad-*/ to show the assertions can fail"

    built = _build_world(case_dir, case, tmp_path / "built")  # the setup once (under the user's config too)
    for n, p in good.items():
        codes = _run_sample(case_dir, case, p, tmp_path / n, sh=sh, built=built)
        failing = [case.hard_assertions[i].command for i, c in enumerate(codes) if c != 0]
        assert failing == [], f"good sample {n} fails: {failing}"

    failed_somewhere = [False] * len(case.hard_assertions)
    for n, p in bad.items():
        codes = _run_sample(case_dir, case, p, tmp_path / n, sh=sh, built=built)
        assert any(c != 0 for c in codes), f"bad sample {n} passes every assertion"
        failed_somewhere = [f or c != 0 for f, c in zip(failed_somewhere, codes)]
    never = [a.command for a, f in zip(case.hard_assertions, failed_somewhere) if not f]
    assert never == [], f"assertions no bad sample makes fail (can they fail at all?): {never}"


# Bug: the commit-message predicates took the *first* fenced block as the
# message, so a good answer that first shows `git diff --cached --stat` failed
# the gate; and they measured width with awk's length, which counts bytes under
# mawk (Debian's awk) or LC_ALL=C, so a 72-column line with a dash or a euro
# sign failed it too. Either way an unfair loss for a good answer.
COMMIT_MESSAGES = {
    "01-rounding-fix": ("fix(billing): round invoice totals once, after summing lines", "Refs: #482"),
    "02-renamed-env-var": ("feat(config)!: read the database URL from LEDGERLY_DATABASE_URL",
                           "BREAKING CHANGE: rename LEDGERLY_DB to LEDGERLY_DATABASE_URL."),
}


@pytest.mark.parametrize("case_id", sorted(COMMIT_MESSAGES))
def test_commit_message_gate_finds_the_message_after_a_command_and_counts_characters(case_id, tmp_path):
    case_dir = REPO / "tests/git/commit-message" / case_id
    case = _load(case_dir)
    header, footer = COMMIT_MESSAGES[case_id]

    def output(widest: str) -> str:
        assert len(widest) in (72, 73) and len(widest.encode()) > len(widest)
        return ("Staged:\n\n```\n src/ledgerly/config.py | 4 ++--\n```\n\n"
                f"```text\n{header}\n\n{widest}\nand it reads better for it.\n\n{footer}\n```\n")

    def codes(text: str, name: str) -> list[int]:
        sample = tmp_path / name
        sample.mkdir()
        (sample / "output.md").write_text(text, encoding="utf-8")
        return _run_sample(case_dir, case, sample, tmp_path / f"world-{name}")

    at_72 = "Sum the exact amounts \u2014 not the rounded ones \u2014 and round once (\u20ac0.01)."
    at_72 = at_72 + "x" * (72 - len(at_72))
    assert codes(output(at_72), "at-72") == [0] * len(case.hard_assertions)
    width = [i for i, a in enumerate(case.hard_assertions) if "length > 72" in a.command]
    assert len(width) == 1
    over = codes(output(at_72 + "x"), "at-73")
    assert [i for i, c in enumerate(over) if c != 0] == width


@pytest.mark.parametrize(("skill", "case_dir"), [c for c in CASES if c[0] in EXAMPLE_SKILLS],
                         ids=[i for i, c in zip(CASE_IDS, CASES) if c[0] in EXAMPLE_SKILLS])
def test_a_case_without_hard_assertions_has_no_samples(skill, case_dir):
    # samples exist to test assertions; stray ones would suggest a forgotten assertion
    if not _load(case_dir).hard_assertions:
        assert _samples(case_dir) == {}
