"""Test-suite wiring.

Most tests need only the package and its own fixtures. A few read the
repository around ``benchcore/``: the example skills and cases, the
benchmark-skill's templates, the fixture runs under ``checks/`` and the README.
Where benchcore is built from its own folder alone (the Nix package's check
phase), those files are not collected, and the header says so; CI runs them
from the work tree, and the flake's ``benchmark-core`` check renders the same
fixture runs with the built package.
"""

import os
import signal
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
# The test folders mirror the package; the helpers they share are imported by name from these folders.
for helpers in ("", "realcli", "e2e", "harness/fanout"):
    if str(TESTS / helpers) not in sys.path:
        sys.path.insert(0, str(TESTS / helpers))

REPO = TESTS.parents[1]
HAS_REPO = all((REPO / p).exists() for p in ("skills/benchmark-skill/SKILL.md", "tests", "checks/fixtures", "README.md"))

NEEDS_REPO = [
    "harness/repo/test_example_cases.py",   # skills/ and tests/
    "e2e/test_e2e_benchmark.py",   # skills/benchmark-skill (templates, workflow script)
    "e2e/test_e2e_cost.py",        # skills/benchmark-skill
    "harness/fanout/test_scripts.py",  # skills/benchmark-skill/workflow
    "harness/fanout/test_bound.py",   # skills/benchmark-skill and tests/git/commit-message
    "harness/fanout/test_prompts.py", # skills/benchmark-skill/templates
    "harness/render/test_render.py",          # checks/fixtures/benchmark-core
    "project/test_readme.py",          # README.md
    "project/test_plugin.py",          # .claude-plugin/, skills/
    "realcli/test_realcli.py",         # skills/benchmark-skill, installed into the real CLI's project
    "realcli/test_realcli_cost.py",    # skills/benchmark-skill, installed into the real CLI's project
    "realcli/test_realcli_interactive.py",  # skills/benchmark-skill, installed into the real CLI's project
    "realcli/test_realcli_plugin.py",  # the repository as a marketplace, installed into the real CLI
    "e2e/test_attacks.py",         # whole runs with skills/benchmark-skill (templates, workflow script)
    "e2e/test_e2e_cost_controls.py",  # skills/benchmark-skill
    "harness/plan/test_estimate.py",        # skills/benchmark-skill
    "commands/test_harden.py",          # skills/benchmark-skill, checks/fixtures/benchmark-core
    "commands/test_harden_rest.py",     # skills/benchmark-skill, checks/fixtures/benchmark-core
    "harness/repo/test_skill_roots.py",     # skills/benchmark-skill (plan, the workflow script) and this repository's layout
    "harness/claude/test_claude_settings.py", # a whole plan and clean with skills/benchmark-skill
    "realcli/test_realcli_layout.py",  # skills/benchmark-skill, installed into the real CLI's project
    "harness/claude/test_provenance.py",      # whole runs with skills/benchmark-skill
    "realcli/test_realcli_provenance.py",  # skills/benchmark-skill, installed into the real CLI's project
    "realcli/test_realcli_confine.py",     # skills/benchmark-skill, installed into the real CLI's project
    "realcli/test_realcli_desk.py",        # skills/git/commit-message and its cases, with skills/benchmark-skill
    "realcli/test_realcli_dialog.py",      # skills/benchmark-skill, installed into the real CLI's project
    "realcli/test_realcli_environment.py", # skills/benchmark-skill, installed into the real CLI's project
    "realcli/test_realcli_resume.py",      # skills/benchmark-skill, installed into the real CLI's project
    "realcli/test_realcli_sealed.py",      # skills/benchmark-skill, installed into the real CLI's project
    "harness/collect/test_audit_reshaped.py",      # whole runs with skills/benchmark-skill
    "harness/collect/test_collect_scale.py",       # whole runs with skills/benchmark-skill
    "harness/fanout/test_parts.py", # skills/benchmark-skill (templates)
    "e2e/test_e2e_environment.py",     # whole runs with skills/benchmark-skill
    "harness/plan/test_resume.py",              # whole runs with skills/benchmark-skill
    "realcli/test_realcli_codeskill.py",   # skills/python/fix-failing-test and its cases, with skills/benchmark-skill
    "realcli/test_realcli_rewrite.py",     # skills/benchmark-skill, installed into the real CLI's project
    "project/test_wrapper_places.py",  # reads the repository around benchcore/ (skills/benchmark-skill, the plugin, checks/)
    "commands/test_bad_run_files.py",  # reads the repository around benchcore/ (skills/benchmark-skill, the plugin, checks/)
    "e2e/test_e2e_calibration.py",  # reads the repository around benchcore/ (skills/benchmark-skill, the plugin, checks/)
    "e2e/test_e2e_duplicates.py",  # reads the repository around benchcore/ (skills/benchmark-skill, the plugin, checks/)
    "realcli/test_realcli_duplicates.py",  # skills/benchmark-skill, installed into the real CLI's project
    "e2e/test_e2e_sandbox.py",  # reads the repository around benchcore/ (skills/benchmark-skill, the plugin, checks/)
    "e2e/test_e2e_versions.py",  # reads the repository around benchcore/ (skills/benchmark-skill, the plugin, checks/)
    "harness/claude/test_session.py",  # reads the repository around benchcore/ (skills/benchmark-skill, the plugin, checks/)
    "commands/test_sandbox_cli.py",  # reads the repository around benchcore/ (skills/benchmark-skill, the plugin, checks/)
    "harness/render/test_bundled_example.py",  # reads the repository around benchcore/ (skills/benchmark-skill, the plugin, checks/)
    "realcli/test_realcli_attacks.py",  # reads the repository around benchcore/ (skills/benchmark-skill, the plugin, checks/)
    "realcli/test_realcli_calibration.py",  # reads the repository around benchcore/ (skills/benchmark-skill, the plugin, checks/)
    "realcli/test_realcli_sandbox.py",  # reads the repository around benchcore/ (skills/benchmark-skill, the plugin, checks/)
    "harness/plan/test_first_day.py",  # reads the repository around benchcore/ (skills/benchmark-skill, the plugin, checks/)
    "commands/test_draft.py",  # a repository with the benchmark's agent types from skills/benchmark-skill
    "e2e/test_e2e_nosignal.py",  # whole runs with skills/benchmark-skill
    "e2e/test_e2e_pilot.py",  # whole runs with skills/benchmark-skill
    "realcli/test_realcli_cases.py",  # skills/benchmark-skill, installed into the real CLI's project
    "harness/render/test_nosignal_render.py",  # checks/fixtures/benchmark-core
    # Added this round (issues 37-41): whole runs, or the repository's docs, skills and example cases.
    "harness/worlds/test_temp_users.py",       # whole plans with skills/benchmark-skill, as two users
    "harness/worlds/test_case_shell.py",       # tests/python/fix-failing-test's case and fixture
    "harness/confine/test_sandbox_holds.py",   # a whole plan and clean with skills/benchmark-skill
    "harness/collect/test_audit_planted.py",   # whole runs with skills/benchmark-skill
    "harness/plan/test_leftovers.py",          # whole runs with skills/benchmark-skill
    "harness/plan/test_resume_launcher.py",    # whole runs with skills/benchmark-skill
    "harness/plan/test_session_root.py",       # whole plans with skills/benchmark-skill
    "e2e/test_e2e_case_shell.py",      # whole runs with skills/benchmark-skill
    "e2e/test_e2e_refused.py",         # whole runs with skills/benchmark-skill
    "e2e/test_e2e_toolchain.py",       # whole runs with skills/benchmark-skill
    "project/test_doc_files.py",       # README.md and docs/
    "realcli/test_realcli_assertions.py",  # skills/python/fix-failing-test, installed into the real CLI's project
    "realcli/test_realcli_automode.py",    # skills/benchmark-skill, installed into the real CLI's project
    "realcli/test_realcli_holds.py",       # skills/benchmark-skill, installed into the real CLI's project
    "realcli/test_realcli_race.py",        # skills/benchmark-skill, installed into the real CLI's project
    "realcli/test_realcli_toolchain.py",   # skills/benchmark-skill, installed into the real CLI's project
    "realcli/test_realcli_subfolder.py",   # skills/benchmark-skill, installed into the real CLI's project
    "realcli/test_realcli_resume_closed.py",  # skills/benchmark-skill, installed into the real CLI's project
]

collect_ignore = [] if HAS_REPO else list(NEEDS_REPO)

# Tests run outside any Claude Code session even when pytest is started from one: plan waits for a running
# session to re-read its settings only where ``CLAUDECODE`` says one is there (the real CLI sets it again for
# the commands it runs in the real-CLI tests).
os.environ.pop("CLAUDECODE", None)


# Where the suite's temporary files go. On a Linux machine with a RAM-backed /dev/shm, the suite writes there
# rather than to disk: its tests write about 2.5 GB (virtual environments, worlds, transcripts) and remove it
# again, and on an ext4 disk mounted with ``discard`` that writing and removing alone added 20-40 s to the fast
# loop's two minutes. TMPDIR or --basetemp, when given, win; so does a /dev/shm with too little room.
RAM_TMP = Path("/dev/shm")
RAM_TMP_FREE = 4 << 30  # bytes free that /dev/shm needs to be used (a whole run's peak is about 1.2 GB)


def _ram_tmp() -> Path | None:
    if sys.platform != "linux" or not RAM_TMP.is_dir() or not os.access(RAM_TMP, os.W_OK | os.X_OK):
        return None
    try:
        st = os.statvfs(RAM_TMP)
    except OSError:
        return None
    return RAM_TMP if st.f_bavail * st.f_frsize >= RAM_TMP_FREE else None


def _interruptible() -> None:
    """Ctrl-C as a terminal delivers it, whoever started pytest. A shell starts a background job (``pytest &``,
    ``nohup``, some CI runners) with SIGINT ignored, and every process started from it inherits that: a benchcore
    under test then goes on through the SIGINT a test sends it (test_sigint_during_plan_removes_everything_it_made
    saw plan exit 0), and no KeyboardInterrupt is raised in a worker (test_setup_stopped). A handler, unlike an
    ignore, is not inherited through exec: each benchcore a test starts gets the default again."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_configure(config):
    config.addinivalue_line("markers", "realcli: runs the real Claude Code CLI (every test under tests/realcli/)")
    _interruptible()  # in the controller and in each xdist worker (a worker inherits the ignore from its shell too)
    if hasattr(config, "workerinput"):
        return  # an xdist worker: the controller chose for it (its environment and basetemp come from there)
    if "TMPDIR" not in os.environ and config.option.basetemp is None and (ram := _ram_tmp()) is not None:
        import tempfile
        os.environ["TMPDIR"] = str(ram)  # this process, the xdist workers and every command a test starts
        tempfile.tempdir = None  # gettempdir() reads TMPDIR again
    # pytest-xdist's load scheduler hands each worker a quarter of the tests as one slice at the start, so the
    # first worker got every SLOW_FIRST test and ran 15-20 s after the second had finished. One test at a time
    # lets whichever worker is free take the next longest.
    if getattr(config.option, "maxschedchunk", False) is None and config.getoption("dist", "no") == "load":
        config.option.maxschedchunk = 1


# The longest tests first (measured with --durations=0): a test file, or one test of it (``file::name``, every
# parametrization of it). pytest-xdist's default scheduler hands tests out in collection order, so with these
# first the workers (``-n 2`` for the suite, ``-n 3`` for the loop) share the long ones and end together on
# short ones, instead of one waiting while another finishes a long test.
SLOW_FIRST = [
    "harness/repo/test_example_cases.py::test_plan_builds_every_world_of_the_example_skills",
    "harness/repo/test_example_cases.py::test_benchcore_validate_exits_0_from_the_repo_root",
    "e2e/test_e2e_cost.py", "report/test_report_browser.py", "project/test_layers.py", "project/test_plugin.py",
    "project/test_wrapper_places.py",
    "harness/confine/test_confine.py::test_honest_arms_are_not_refused_under_load_when_their_transcript_comes_late",
    "commands/test_harden_rest.py", "commands/test_harden.py", "harness/repo/test_example_cases.py",
    "e2e/test_e2e_benchmark.py", "e2e/test_attacks.py", "e2e/test_e2e_cost_controls.py",
    "harness/plan/test_resume.py", "harness/confine/test_sandbox.py", "commands/test_exit_codes.py",
    "harness/plan/test_first_day.py", "harness/claude/test_provenance.py", "e2e/test_e2e_calibration.py",
    "harness/collect/test_audit_reshaped.py", "harness/render/test_render.py",
    "harness/collect/test_collect_scale.py", "harness/fanout/test_bound.py", "harness/fanout/test_bound_pieces.py",
]


def _slow_rank(item) -> int:
    """Where ``item`` goes in SLOW_FIRST's order (its test's entry before its file's); after all of it if absent."""
    path = Path(str(item.fspath))
    if TESTS not in path.parents:
        return len(SLOW_FIRST)
    where = path.relative_to(TESTS).as_posix()
    name = f"{where}::{getattr(item, 'originalname', item.name)}"
    for i, entry in enumerate(SLOW_FIRST):
        if entry in (where, name):
            return i
    return len(SLOW_FIRST)


def pytest_collection_modifyitems(config, items):
    """Every test under tests/realcli/ is marked ``realcli``: ``-m "not realcli"`` runs the rest (the fast loop).
    The tests SLOW_FIRST names go first, in its order; the rest keep theirs."""
    realcli = TESTS / "realcli"
    for item in items:
        if realcli in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.realcli)
    items.sort(key=_slow_rank)  # stable: the rest keep their order


def pytest_report_header(config):
    if HAS_REPO:
        return f"repository: {REPO} (every test file runs)"
    return (f"repository around benchcore/ not found: not collecting {len(NEEDS_REPO)} files that read it "
            f"({', '.join(NEEDS_REPO)})")


@pytest.fixture(autouse=True)
def _outside_any_claude_code_session(monkeypatch):
    """The suite run from a Claude Code session's Bash sees that session's id; plan and collect would record
    it and refuse the stand-in's agents. Tests that play a session set it (standin/repo.py env_for)."""
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID", raising=False)
