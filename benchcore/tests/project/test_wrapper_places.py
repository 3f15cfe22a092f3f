"""The skill's wrapper, first use, from every place Claude Code (or Nix) runs the benchmark-skill from.

Each test starts on a fresh HOME with no benchcore on PATH, offline (the fake benchcore source and the locally
built wheel of test_plugin.py; pip reads only a local folder), once with a Python whose own pip refuses installs
(PEP 668: an ``EXTERNALLY-MANAGED`` marker in its stdlib folder, as Debian's and Ubuntu's system Python) and once
with one that does not. It asserts a working benchcore and the folder its environment went to:

- a directory marketplace run in place (``<marketplace>/plugins/benchmark-skill/``: relative links into the
  marketplace, as in this repository): the plugin's data folder, named by a fingerprint of the real files;
- the plugin cache's copy (links resolved, as ``claude plugin install`` copies them): the same data folder and
  the same environment name, the content being the same;
- a marketplace cloned with git (served on loopback) under ``~/.claude/plugins/marketplaces/``, run in place;
- a dev shell's or home-manager's link to the skill's folder in a repository: ``~/.cache/benchmark-skill/``;
- a read-only store copy of the skill with its own ``bin/benchcore`` (the Nix package): no environment at all.

Then each ``fix:`` line the wrapper prints that can be run here is run, as printed, and works.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from gitserve import serve
from test_plugin import CLEAN_PATH, WRAPPER, fake_source

MARKET = "my-market"  # the marketplace's name, from its marketplace.json (not its folder's)
DATA = f".claude/plugins/data/benchmark-skill-{MARKET}"
LINKS = {"pyproject.toml", "README.md", "requirements.lock", "src"}


def pythons() -> dict[str, Path]:
    """python3 for each variant: one whose pip refuses installs outside a venv (PEP 668) and one whose does not."""
    out: dict[str, Path] = {}
    plain = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    if not (Path(sysconfig.get_paths(vars={"installed_base": sys.base_prefix})["stdlib"]) / "EXTERNALLY-MANAGED").exists():
        out["pip-allowed"] = plain
    for cand in sorted(Path("/usr/bin").glob("python3.1[1-9]")):
        probe = subprocess.run([str(cand), "-c", "import sysconfig, os; print(os.path.exists(os.path.join("
                                "sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')))"],
                               capture_output=True, text=True)
        if probe.stdout.strip() == "True":
            out["pep668"] = cand
            break
    return out


PYTHONS = pythons()


_REFUSALS: dict[str, str] = {}


def _pip_refuses(python: str) -> str:
    """The empty string when the pip of the Python ``python`` links to refuses to install outside a venv (PEP
    668), else what it said; asked once per interpreter (0.4 s of pip each time)."""
    key = os.path.realpath(python)
    if key not in _REFUSALS:
        r = subprocess.run([python, "-m", "pip", "install", "--no-index", "benchdep"], capture_output=True, text=True)
        ok = r.returncode != 0 and "externally-managed-environment" in (r.stdout + r.stderr)
        _REFUSALS[key] = "" if ok else f"exit {r.returncode}: {(r.stdout + r.stderr)[-500:]}"
    return _REFUSALS[key]


def python_on(tmp: Path, variant: str, venv_path=None) -> str:
    """A PATH whose python3 is the variant's, then the clean system folders; with the ``venv_path`` fixture, that
    python3's ``-m venv`` copies the environment it made once (conftest.py)."""
    if variant not in PYTHONS:
        pytest.skip(f"no {variant} Python 3.11+ on this machine")
    bin_dir = tmp / "py"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "python3").symlink_to(PYTHONS[variant])
    if variant == "pep668":
        # What the user's system pip does: it refuses (so no fix line may send them there).
        assert _pip_refuses(str(bin_dir / "python3")) == ""
    path = f"{bin_dir}:{CLEAN_PATH}"
    return venv_path(PYTHONS[variant], path) if venv_path else path


def run(wrapper: Path, tmp: Path, path: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {"PATH": path, "HOME": str(tmp / "home"), "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1",
           "PIP_FIND_LINKS": str(tmp / "wheels"), "TMPDIR": str(tmp)}
    return subprocess.run(["/bin/sh", str(wrapper), *args], env=env, capture_output=True, text=True, timeout=300,
                          cwd=cwd)


def marketplace(root: Path) -> Path:
    """A marketplace laid out as this repository: skills/benchmark-skill/ and benchcore/ (the fake source), and
    plugins/benchmark-skill/, whose skills/benchmark-skill and benchcore/* are relative links into it."""
    fake_source(root, "0.1.0", root.parent / "wheels")
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin/marketplace.json").write_text(
        f'{{\n  "name": "{MARKET}",\n  "owner": {{\n    "name": "t"\n  }},\n  "plugins": [\n    {{\n'
        f'      "name": "benchmark-skill",\n      "source": "./plugins/benchmark-skill"\n    }}\n  ]\n}}\n')
    plugin = root / "plugins/benchmark-skill"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin/plugin.json").write_text('{\n  "name": "benchmark-skill",\n  "version": "0.1.0"\n}\n')
    (plugin / "skills").mkdir()
    (plugin / "skills/benchmark-skill").symlink_to("../../../skills/benchmark-skill")
    (plugin / "benchcore").mkdir()
    for name in LINKS:
        (plugin / "benchcore" / name).symlink_to(f"../../../benchcore/{name}")
    return root


def wrapper_in(plugin: Path) -> Path:
    return plugin / "skills/benchmark-skill/scripts/benchcore"


def envs(folder: Path) -> list[Path]:
    return sorted(folder.glob("benchcore-venv-*"))


def works(r: subprocess.CompletedProcess) -> None:
    assert r.returncode == 0, r.stderr
    assert r.stdout == "benchcore 0.1.0\n", r.stdout
    assert "first use: benchcore 0.1.0 installed in" in r.stderr, r.stderr
    assert "fix:" not in r.stderr


VARIANTS = ["pep668", "pip-allowed"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_directory_marketplace_in_place_and_its_cache_copy_install_into_the_plugins_data_folder(tmp_path, variant, venv_path):
    path = python_on(tmp_path, variant, venv_path)
    market = marketplace(tmp_path / "market")
    plugin = market / "plugins/benchmark-skill"
    works(run(wrapper_in(plugin), tmp_path, path, "--version"))
    [env] = envs(tmp_path / "home" / DATA)
    assert not env.name.endswith("-4294967295"), "the fingerprint of nothing: the links were not followed"
    assert (env / ".source").read_text().strip() == str(plugin / "benchcore")
    assert not (tmp_path / "home/.cache/benchmark-skill").exists()
    again = run(wrapper_in(plugin), tmp_path, path, "plan", "x")
    assert again.returncode == 0 and again.stderr == "" and again.stdout == "fake benchcore ran: plan x\n"
    # The plugin cache's copy: what `claude plugin install` makes of the same folder (each link's target copied).
    cached = tmp_path / f"home/.claude/plugins/cache/{MARKET}/benchmark-skill/0.1.0"
    shutil.copytree(plugin, cached, symlinks=False)
    reused = run(wrapper_in(cached), tmp_path, path, "--version")
    # The same content is fingerprinted alike, through links or as copied files: its environment is reused.
    assert reused.returncode == 0 and reused.stdout == "benchcore 0.1.0\n" and reused.stderr == "", reused.stderr
    assert envs(tmp_path / "home" / DATA) == [env]
    # A fresh HOME: the cache's copy installs on its own, into the same data folder.
    shutil.rmtree(tmp_path / "home" / DATA)
    works(run(wrapper_in(cached), tmp_path, path, "--version"))
    assert [e.name for e in envs(tmp_path / "home" / DATA)] == [env.name]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_marketplace_cloned_with_git_runs_in_place_and_installs_into_the_plugins_data_folder(tmp_path, variant, venv_path):
    path = python_on(tmp_path, variant, venv_path)
    market = marketplace(tmp_path / "market")
    genv = {"PATH": CLEAN_PATH, "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "marketplace"]):
        subprocess.run(["git", "-C", str(market), *argv], check=True, env=genv, capture_output=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(market), str(tmp_path / "served/m.git")], check=True,
                   env=genv, capture_output=True)
    clone = tmp_path / f"home/.claude/plugins/marketplaces/{MARKET}"
    with serve(tmp_path / "served") as url:
        subprocess.run(["git", "clone", "-q", url + "m.git", str(clone)], check=True, env=genv, capture_output=True)
    assert (clone / "plugins/benchmark-skill/benchcore/src").is_symlink()
    works(run(wrapper_in(clone / "plugins/benchmark-skill"), tmp_path, path, "--version"))
    [env] = envs(tmp_path / "home" / DATA)
    assert not env.name.endswith("-4294967295")


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_link_to_the_skill_folder_in_a_repository_installs_into_the_users_cache(tmp_path, variant, venv_path):
    # The dev shell's and home-manager's way (.claude/skills/benchmark-skill a link); the wrapper is run through it.
    path = python_on(tmp_path, variant, venv_path)
    repo = marketplace(tmp_path / "repo")
    linked = tmp_path / "project/.claude/skills/benchmark-skill"
    linked.parent.mkdir(parents=True)
    linked.symlink_to(repo / "skills/benchmark-skill")
    works(run(linked / "scripts/benchcore", tmp_path, path, "--version"))
    [env] = envs(tmp_path / "home/.cache/benchmark-skill")
    assert (env / ".source").read_text().strip() == str(repo / "benchcore")
    assert not (tmp_path / "home/.claude").exists()
    # A link to the wrapper itself is a benchcore to type (README: ln -s <wrapper> ~/.local/bin/benchcore).
    bin_dir = tmp_path / "home/.local/bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "benchcore").symlink_to(linked / "scripts/benchcore")
    typed = subprocess.run(["benchcore", "validate"], capture_output=True, text=True, timeout=60,
                           env={"PATH": f"{bin_dir}:{path}", "HOME": str(tmp_path / "home")})
    assert typed.returncode == 0 and typed.stdout == "fake benchcore ran: validate\n", typed.stderr


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_read_only_store_copy_with_its_own_bin_benchcore_runs_it_and_installs_nothing(tmp_path, variant):
    path = python_on(tmp_path, variant)
    store = tmp_path / "store/claude-skill-benchmark-skill"
    shutil.copytree(WRAPPER.parent.parent, store, ignore=shutil.ignore_patterns("__pycache__"))
    program = Path(sys.executable).parent / "benchcore"
    (store / "bin").mkdir()
    # What nix/packages/skill.nix's makeWrapper writes: the skill folder as BENCHMARK_SKILL_DIR's default.
    (store / "bin/benchcore").write_text(f'#!/bin/sh\nexport BENCHMARK_SKILL_DIR="${{BENCHMARK_SKILL_DIR:-{store}}}"\n'
                                         f'exec "{program}" "$@"\n')
    (store / "bin/benchcore").chmod(0o555)
    for p in sorted(store.rglob("*"), reverse=True):
        p.chmod(p.stat().st_mode & ~0o222)
    try:
        r = run(store / "scripts/benchcore", tmp_path, path, "--version")
        assert r.returncode == 0 and re.fullmatch(r"benchcore \S+\n", r.stdout) and r.stderr == "", r.stderr
        assert not (tmp_path / "home/.cache").exists() and not (tmp_path / "home/.claude").exists()
    finally:
        for p in store.rglob("*"):
            p.chmod(p.stat().st_mode | 0o200)


# ----------------------------------------------------------------------------- the fix lines, run as printed

def fixes(stderr: str) -> list[str]:
    return [line.split("fix: ", 1)[1] for line in stderr.splitlines() if "  fix: " in line]


def test_the_fix_for_a_missing_source_installs_a_benchcore_to_type_without_the_system_pip(tmp_path):
    path = python_on(tmp_path, "pep668")
    lone = tmp_path / "lone/skills/benchmark-skill/scripts"
    lone.mkdir(parents=True)
    shutil.copy2(WRAPPER, lone / "benchcore")
    r = run(lone / "benchcore", tmp_path, path, "--version")
    assert r.returncode == 127 and "benchcore not found" in r.stderr
    got = fixes(r.stderr)
    assert got[0].startswith("install the plugin: claude plugin marketplace add ")
    clone_fix = got[1].removeprefix("or from a clone of the repository: ")
    clone = tmp_path / "clone"
    fake_source(clone, "0.1.0", tmp_path / "wheels")
    # As benchcore's own metadata does, the fake's names its dependency, so pip installs it too.
    backend = clone / "benchcore/src/fakebackend.py"
    said = 'Version: {version}\\n"'
    assert said in backend.read_text()
    backend.write_text(backend.read_text().replace(
        said, said + ' + ("Requires-Dist: benchdep==1.0\\n" if name == "benchcore" else "")'))
    env = {"PATH": path, "HOME": str(tmp_path / "home"), "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1",
           "PIP_FIND_LINKS": str(tmp_path / "wheels")}
    done = subprocess.run(["/bin/sh", "-c", clone_fix], cwd=clone, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    typed = subprocess.run(["benchcore", "--version"], env=dict(env, PATH=f"{tmp_path}/home/.local/bin:{path}"),
                           capture_output=True, text=True)
    assert typed.stdout == "benchcore 0.1.0\n", typed.stderr


def test_the_fix_for_a_failed_build_is_a_fresh_environment_that_works(tmp_path, venv_path):
    path = python_on(tmp_path, "pep668", venv_path)
    market = marketplace(tmp_path / "market")
    plugin = market / "plugins/benchmark-skill"
    # A build that fails once: the backend's file unreadable for this first try.
    backend = market / "benchcore/src/fakebackend.py"
    text = backend.read_text()
    backend.write_text("raise SystemExit('a broken build')\n")
    r = run(wrapper_in(plugin), tmp_path, path, "--version")
    assert r.returncode == 127 and "pip could not build benchcore" in r.stderr, r.stderr
    [fix] = fixes(r.stderr)
    backend.write_text(text)
    command = fix.split("   (")[0]
    env = {"PATH": path, "HOME": str(tmp_path / "home"), "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1",
           "PIP_FIND_LINKS": str(tmp_path / "wheels"), "TMPDIR": str(tmp_path)}
    done = subprocess.run(["/bin/sh", "-c", command], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout == "benchcore 0.1.0\n", done.stderr
    assert envs(tmp_path / "home/.cache/benchmark-skill-fresh")


def test_the_fix_for_a_missing_python_or_venv_module_is_an_apt_install_of_packages_that_exist(tmp_path):
    if shutil.which("apt-cache") is None:
        pytest.skip("not a Debian/Ubuntu machine")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("dirname", "basename", "find", "sort", "xargs", "cat", "cksum", "tr", "mkdir", "sh", "sed", "head"):
        os.symlink(shutil.which(tool, path=CLEAN_PATH), bin_dir / tool)
    root = tmp_path / "plugins/cache/m/benchmark-skill/0.1.0"
    fake_source(root, "0.1.0", tmp_path / "wheels")
    r = run(wrapper_in(root), tmp_path, str(bin_dir), "--version")
    assert r.returncode == 127 and "needs Python 3.11 or newer" in r.stderr
    [fix] = fixes(r.stderr)
    packages = re.match(r"apt install ([\w.\- ]+?)\s{2,}", fix).group(1).split()
    assert packages == ["python3", "python3-venv"]
    for pkg in packages:  # each package exists in the machine's apt sources
        shown = subprocess.run(["apt-cache", "show", pkg], capture_output=True, text=True)
        assert shown.returncode == 0 and f"Package: {pkg}" in shown.stdout, pkg


def test_the_fix_for_a_python_without_its_venv_module_names_the_package_of_that_python(tmp_path):
    # Debian's and Ubuntu's python3 without python3-venv: `python3 -m venv` fails (ensurepip is missing).
    if shutil.which("apt-cache") is None:
        pytest.skip("not a Debian/Ubuntu machine")
    real = PYTHONS.get("pep668") or PYTHONS["pip-allowed"]
    bin_dir = tmp_path / "py"
    bin_dir.mkdir()
    (bin_dir / "python3").write_text(
        f'#!/bin/sh\n[ "$1" = -m ] && [ "$2" = venv ] && {{ echo "The virtual environment was not created '
        f'successfully because ensurepip is not available." >&2; exit 1; }}\nexec "{real}" "$@"\n')
    (bin_dir / "python3").chmod(0o755)
    root = tmp_path / "plugins/cache/m/benchmark-skill/0.1.0"
    fake_source(root, "0.1.0", tmp_path / "wheels")
    r = run(wrapper_in(root), tmp_path, f"{bin_dir}:{CLEAN_PATH}", "--version")
    assert r.returncode == 127 and "could not create a virtual environment" in r.stderr, r.stderr
    [fix] = fixes(r.stderr)
    minor = subprocess.run([str(real), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                           capture_output=True, text=True).stdout.strip()
    assert fix.startswith(f"apt install python{minor}-venv ")
    shown = subprocess.run(["apt-cache", "show", f"python{minor}-venv"], capture_output=True, text=True)
    assert shown.returncode == 0 and f"Package: python{minor}-venv" in shown.stdout
