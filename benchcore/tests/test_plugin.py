"""The repository as a Claude Code plugin marketplace: its manifests name what is really there, and a
benchmark installed as a plugin gets its baseline cells the plugin's namespaced agent type.

`claude plugin validate` itself runs in CI (.ci/plugin.sh, with the pinned CLI); these tests keep the
manifests in step with the folders they describe, which validate cannot know about."""

from __future__ import annotations

import contextlib
import io
import json
import tomllib
from pathlib import Path

from benchcore.cli import main
from benchcore.harness.tree import discover_skills
from standin import repo as R

REPO = Path(__file__).resolve().parents[2]
MARKET = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
PLUGINS = {p["name"]: p for p in MARKET["plugins"]}
VERSION = tomllib.loads((REPO / "benchcore" / "pyproject.toml").read_text())["project"]["version"]


def manifest(plugin: str) -> tuple[Path, dict]:
    root = (REPO / PLUGINS[plugin]["source"]).resolve()
    return root, json.loads((root / ".claude-plugin" / "plugin.json").read_text())


def test_every_plugin_source_holds_a_manifest_of_the_same_name_and_version():
    assert set(PLUGINS) == {"benchmark-skill", "example-skills"}
    for name in PLUGINS:
        root, m = manifest(name)
        assert root == REPO or REPO in root.parents, f"{name}: source {PLUGINS[name]['source']} leaves the repository"
        assert m["name"] == name
        assert m["version"] == VERSION, f"{name}: plugin.json version {m['version']} is not benchcore's {VERSION}"
        assert m["license"] == "MIT"


def test_the_benchmark_plugin_carries_the_skill_every_agent_type_and_benchcores_source():
    root, m = manifest("benchmark-skill")
    assert m["skills"] == ["./skills/benchmark-skill"]
    agents = sorted(f"./skills/benchmark-skill/agents/{p.name}" for p in (REPO / "skills/benchmark-skill/agents").glob("*.md"))
    assert agents, "skills/benchmark-skill/agents/ holds no agent type"
    assert sorted(m["agents"]) == agents, (
        "plugin.json's agents must list every .md file in skills/benchmark-skill/agents/ (Claude Code takes "
        "only listed files): add the new one to .claude-plugin/plugin.json")
    # The skill's wrapper installs benchcore from the plugin's own copy of the source: ../../benchcore.
    assert (root / "skills/benchmark-skill/../../benchcore/pyproject.toml").resolve().is_file()


def test_the_example_plugin_carries_every_other_skill():
    root, m = manifest("example-skills")
    listed = sorted(str((root / p).resolve().relative_to(REPO)) for p in m["skills"])
    skills = sorted(s.path for s in discover_skills(REPO).values() if s.name != "benchmark-skill")
    assert listed == skills


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = main(list(argv))
    return rc, out.getvalue()


def test_plan_gives_every_arm_cell_the_installed_plugins_sealed_agent_type(tmp_path, monkeypatch):
    # What `claude plugin install benchmark-skill@claude-skills` leaves in the config folder.
    for k, v in R.env_for(tmp_path).items():
        monkeypatch.setenv(k, v)
    config = tmp_path / "claude"
    (config / "plugins").mkdir(parents=True)
    (config / "plugins" / "installed_plugins.json").write_text(json.dumps({"version": 2, "plugins": {
        "benchmark-skill@claude-skills": [{"scope": "user", "installPath": str(REPO), "version": VERSION}]}}))
    (config / "settings.json").write_text(json.dumps({"enabledPlugins": {"benchmark-skill@claude-skills": True}}))
    repo = tmp_path / "repo"
    R.init(repo, "main")
    R.skill(repo, "greet")
    R.case(repo, "greet", "01-hello")
    R.commit_all(repo)
    monkeypatch.chdir(repo)

    rc, out = run("plan", "greet", "--seed", "1", "--temp-dir", str(tmp_path / "t"), "--json")
    assert rc == 0, out
    summary = json.loads(out)
    assert summary["baseline_agent_type"] == "benchmark-skill:bench-arm"
    plan = json.loads((Path(summary["runs"][0]["run_dir"]) / "plan.json").read_text())
    # One sealed type for every arm: they differ only in the skill copy their prompt names.
    assert {(c["arm"], c["agent_type"]) for c in plan["cells"]} == {
        ("new", "benchmark-skill:bench-arm"), ("baseline", "benchmark-skill:bench-arm")}
    assert '"benchmark-skill:bench-arm"' in Path(summary["arms_workflow"]).read_text()

    # Disabled in the settings, the plugin's agent type is not offered: the default type, and a note.
    (config / "settings.json").write_text(json.dumps({"enabledPlugins": {"benchmark-skill@claude-skills": False}}))
    rc, out = run("plan", "greet", "--seed", "1", "--temp-dir", str(tmp_path / "t2"))
    assert rc == 0
    assert "note: the 'bench-arm' agent type is not installed, so arm cells run as the default type" in out


# ----------------------------------------------------------------------------- the skill's wrapper, first use

WRAPPER = REPO / "skills" / "benchmark-skill" / "scripts" / "benchcore"


def plugin_copy(root: Path, with_source: bool) -> Path:
    """A benchmark plugin laid out as Claude Code's cache holds it: <plugins>/cache/<market>/<plugin>/<version>/."""
    import shutil
    skill = root / "skills" / "benchmark-skill"
    (skill / "scripts").mkdir(parents=True)
    shutil.copy2(WRAPPER, skill / "scripts" / "benchcore")
    if with_source:
        (root / "benchcore").mkdir()
        (root / "benchcore" / "pyproject.toml").write_text((REPO / "benchcore" / "pyproject.toml").read_text())
    return skill / "scripts" / "benchcore"


def run_wrapper(wrapper: Path, tmp: Path, path: str) -> "subprocess.CompletedProcess[str]":
    import subprocess
    env = {"PATH": path, "HOME": str(tmp / "home")}
    return subprocess.run(["/bin/sh", str(wrapper), "--version"], env=env, capture_output=True, text=True)


def test_the_wrapper_without_benchcore_or_its_source_names_the_fix(tmp_path):
    wrapper = plugin_copy(tmp_path / "cache" / "m" / "benchmark-skill" / "0.1.0", with_source=False)
    r = run_wrapper(wrapper, tmp_path, "/usr/bin:/bin")
    assert r.returncode == 127
    assert "benchcore not found" in r.stderr
    assert "fix: install the plugin" in r.stderr and "pip install ./benchcore" in r.stderr


def test_the_wrapper_without_python_3_11_says_so_and_installs_nothing(tmp_path):
    # A PATH with the tools the wrapper uses but no python at all.
    import os
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("dirname", "basename", "find", "sort", "xargs", "cat", "cksum", "tr", "mkdir", "sh"):
        for d in ("/usr/bin", "/bin"):
            if os.path.exists(f"{d}/{tool}"):
                os.symlink(f"{d}/{tool}", bin_dir / tool)
                break
    root = tmp_path / "plugins" / "cache" / "m" / "benchmark-skill" / "0.1.0"
    wrapper = plugin_copy(root, with_source=True)
    r = run_wrapper(wrapper, tmp_path, str(bin_dir))
    assert r.returncode == 127, r.stderr
    assert "needs Python 3.11 or newer" in r.stderr
    assert not (tmp_path / "plugins" / "data").exists()
