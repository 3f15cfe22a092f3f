"""Skills roots: a repository may keep its skills in skills/, .claude/skills/, a plugin's skills/ or the plugins of
a marketplace. Three small repositories laid out like real ones (a project with .claude/skills/, a single-plugin
repository, a multi-plugin marketplace) each validate, plan a three-arm run whose previous version comes from the
skill's own path at the default branch, and run to a verdict; tests/ mirrors each skill's path below its root,
prefixed by the plugin's name for a plugin in a subfolder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchcore.harness.repo.roots import skill_roots
from benchcore.harness.repo.tree import discover_skills, validate_tree
from standin import repo as R
from standin.agent import Script
from test_e2e_benchmark import Bench, next_script
from places import REPO


def _skill(repo: Path, folder: str, body: str) -> None:
    name = folder.rsplit("/", 1)[-1]
    R.write(repo / folder / "SKILL.md", f"---\nname: {name}\ndescription: {name} for tests\n---\n{body}\n")


def project(repo: Path) -> dict[str, tuple[str, str]]:
    """An application repository whose skills live in .claude/skills/ (no skills/ folder)."""
    R.write(repo / "src/app.py", "print('hello')\n")
    _skill(repo, ".claude/skills/greet", "Greet the reader by name.")
    _skill(repo, ".claude/skills/ops/deploy-notes", "Write deploy notes.")
    R.case(repo, "greet", "hello")
    return {"greet": (".claude/skills/greet", "tests/greet"),
            "deploy-notes": (".claude/skills/ops/deploy-notes", "tests/ops/deploy-notes")}


def single_plugin(repo: Path) -> dict[str, tuple[str, str]]:
    """A repository that is one plugin: .claude-plugin/plugin.json at the root, skills/ and agents/ beside it.
    Its second case has a hard assertion and no samples: valid, planned, and marked unproven."""
    R.write(repo / ".claude-plugin/plugin.json", json.dumps({"name": "greeter", "version": "0.1.0"}))
    R.write(repo / "agents/helper.md", "---\nname: helper\ndescription: helps\n---\nHelp.\n")
    _skill(repo, "skills/greet", "Greet the reader by name.")
    R.case(repo, "greet", "hello")
    shutil.rmtree(R.case(repo, "greet", "unproven") / "samples")
    return {"greet": ("skills/greet", "tests/greet")}


def marketplace(repo: Path) -> dict[str, tuple[str, str]]:
    """A marketplace of two plugins under plugins/, no skills/ at the root; a third plugin folder that the
    marketplace does not list is still a plugin (its plugin.json names it)."""
    R.write(repo / ".claude-plugin/marketplace.json", json.dumps({
        "name": "market", "owner": {"name": "t"},
        "plugins": [{"name": "alpha", "source": "./plugins/alpha"},
                    {"name": "beta", "source": "./plugins/beta-plugin"},
                    {"name": "remote", "source": {"source": "github", "repo": "o/r"}}]}))
    for folder, name in (("alpha", "alpha"), ("beta-plugin", "beta"), ("gamma", "gamma")):
        R.write(repo / f"plugins/{folder}/.claude-plugin/plugin.json", json.dumps({"name": name}))
    _skill(repo, "plugins/alpha/skills/greet", "Greet the reader by name.")
    _skill(repo, "plugins/beta-plugin/skills/docs/farewell", "Say goodbye.")
    _skill(repo, "plugins/gamma/skills/tidy", "Tidy up.")
    R.case(repo, "alpha/greet", "hello")
    R.case(repo, "beta/docs/farewell", "bye", hard=None)
    return {"greet": ("plugins/alpha/skills/greet", "tests/alpha/greet"),
            "farewell": ("plugins/beta-plugin/skills/docs/farewell", "tests/beta/docs/farewell"),
            "tidy": ("plugins/gamma/skills/tidy", "tests/gamma/tidy")}


LAYOUTS = {"project-claude-skills": project, "single-plugin": single_plugin, "marketplace": marketplace}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_each_layout_validates_plans_from_the_skills_own_path_and_reaches_a_verdict(layout, tmp_path, monkeypatch):
    b = Bench(tmp_path, monkeypatch)
    R.init(b.repo, "main")
    expected = LAYOUTS[layout](b.repo)
    R.commit_all(b.repo, "release")
    path = expected["greet"][0]
    _skill(b.repo, path, "Greet the reader by name, warmly.")  # an edit in the working tree: three-arm

    skills = discover_skills(b.repo)
    assert {n: (s.path, s.tests_path) for n, s in skills.items()} == expected
    report = validate_tree(b.repo)
    assert [str(p) for p in report.problems] == []
    rc, out, err = b.run("validate")
    assert rc == 0, out + err

    rc, out, err = b.plan("greet", "--seed", "3")
    assert rc == 0, out + err
    assert "greet: three-arm" in out and f"edited released skill: {path} differs" in out
    installed = [l for l in out.splitlines() if "in .claude/skills/, so Claude Code has it installed" in l]
    [run_dir] = b.runs()
    arm_type = b.plan_json(run_dir)["baseline_agent_type"]
    sealed = f"the arms run as {arm_type}, which has no Skill tool, so no arm sees or invokes it"
    default = ("default-type subagents see it in their skill listing, and an arm that invokes it instead of its own "
               "copy makes its trial invalid (collect names it; --rerun plans it afresh)")
    assert installed == ([f"note: greet lives in .claude/skills/, so Claude Code has it installed in this session: "
                          f"{sealed if arm_type else default}"] if layout == "project-claude-skills" else [])
    run = json.loads((run_dir / "run.json").read_text())
    tests = expected["greet"][1]
    assert run["skill"] == ({"name": "greet", "path": path} | ({} if tests == "tests/greet" and
                                                                path == "skills/greet" else {"tests": tests}))
    plan = b.plan_json(run_dir)
    previous = Path(plan["skill_copies"]["previous"]) / "SKILL.md"
    assert "Greet the reader by name.\n" in previous.read_text()  # the released text, from the skill's own path
    assert "warmly" in (Path(plan["skill_copies"]["new"]) / "SKILL.md").read_text()

    cases = ["hello", "unproven"] if layout == "single-plugin" else ["hello"]
    assert run.get("unproven", []) == cases[1:]
    b.arms(next_script(out), Script(files={c: {"greeting.txt": "Hello, reader!\n"} for c in cases}))
    b.run("collect", str(run_dir))
    b.judges(run_dir, Script())
    rc, out, err = b.run("collect", str(run_dir))
    assert rc == 0, out + err
    rc, out, err = b.run("render", str(run_dir))
    results = json.loads((b.repo / "tests/.reports/greet.results.json").read_text())
    assert [c["id"] for c in results["cases"]] == cases
    assert results["verdicts"]["efficacy"]["status"] == "pass" and results["incomplete"] is False
    assert [c.get("predicates_proven") for c in results["cases"]] == [None, False][:len(cases)]
    page = (b.repo / "tests/.reports/greet.html").read_text()
    assert page.count("hard assertions unproven (no samples)") == len(cases) - 1


def test_this_repositorys_own_layout_maps_as_before():
    root = REPO
    skills = discover_skills(root)
    assert skills["commit-message"].tests_path == "tests/git/commit-message"
    assert [r.path for r in skill_roots(root)][0] == "skills"
    # its plugin.json names ./skills/benchmark-skill, a skill already found under skills/: found once
    assert skills["benchmark-skill"].path == "skills/benchmark-skill"


def test_a_tests_folder_without_the_plugin_prefix_maps_to_no_skill(tmp_path):
    marketplace(tmp_path)
    (tmp_path / "tests/greet/01-x").mkdir(parents=True)
    [problem] = validate_tree(tmp_path).problems
    assert problem.path == "tests/greet" and "maps to no skill" in problem.message
    assert "tests/<plugin name>/<path>/" in problem.message


def test_a_plugin_json_skills_path_outside_skills_is_a_root_and_one_leaving_the_repo_is_not(tmp_path):
    R.write(tmp_path / ".claude-plugin/plugin.json", json.dumps({"name": "p", "skills": ["./custom", "../x"]}))
    _skill(tmp_path, "custom/shout", "Shout.")
    (tmp_path / "tests").mkdir()
    assert [(r.path, r.prefix) for r in skill_roots(tmp_path)] == [("custom", "")]
    assert discover_skills(tmp_path)["shout"].tests_path == "tests/shout"


def test_plan_names_the_untested_skills_in_the_words_the_skill_relays(tmp_path, monkeypatch):
    # SKILL.md tells the agent to relay every line of plan's output above its next: line word for word; the
    # line about skills with no tests is one of them.
    b = Bench(tmp_path, monkeypatch)
    R.init(b.repo, "main")
    marketplace(b.repo)
    R.commit_all(b.repo, "release")
    skill_md = " ".join((R.SKILL_DIR / "SKILL.md").read_text().split())
    assert "tell the user its lines above `next:`, word for word" in skill_md
    rc, out, err = b.plan("--all", "--seed", "1")
    assert rc == 0, out + err
    lines = out.splitlines()
    relayed = lines[:next(i for i, l in enumerate(lines) if l.startswith("next:"))]
    assert "skills with no tests (not benchmarked): tidy" in relayed


def test_a_project_that_ignores_claude_still_gives_the_new_arm_its_skill(tmp_path, monkeypatch):
    # Many projects ignore .claude/ in git: the skill is then on no branch (two-arm, a new skill), and the new
    # arm's copy must still hold it, not come out empty because git lists no file of it.
    b = Bench(tmp_path, monkeypatch)
    R.init(b.repo, "main")
    project(b.repo)
    R.write(b.repo / ".gitignore", ".claude/\n")
    R.commit_all(b.repo, "release")
    rc, out, err = b.plan("greet", "--seed", "3")
    assert rc == 0, out + err
    assert "greet: two-arm" in out and "new skill: .claude/skills/greet is not on the default branch" in out
    [run_dir] = b.runs()
    copy = Path(b.plan_json(run_dir)["skill_copies"]["new"])
    assert "Greet the reader by name." in (copy / "SKILL.md").read_text()


def test_the_installed_note_says_whether_any_arm_can_see_the_installed_skill():
    # Arms of the benchmark's own type have no Skill tool: the session's installed copy reaches none of them.
    from benchcore.harness.repo.roots import installed_note
    from types import SimpleNamespace

    skills = [SimpleNamespace(name="greet", path=".claude/skills/greet"), SimpleNamespace(name="tidy", path="skills/tidy")]
    assert installed_note(skills, "benchmark-skill:bench-arm") == (
        "note: greet lives in .claude/skills/, so Claude Code has it installed in this session: the arms run as "
        "benchmark-skill:bench-arm, which has no Skill tool, so no arm sees or invokes it")
    assert "default-type subagents see it in their skill listing" in installed_note(skills, None)
    assert installed_note(skills[1:], "bench-arm") is None
