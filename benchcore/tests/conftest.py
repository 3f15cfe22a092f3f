"""Test-suite wiring.

Most tests need only the package and its own fixtures. A few read the
repository around ``benchcore/``: the example skills and cases, the
benchmark-skill's templates, the fixture runs under ``checks/`` and the README.
Where benchcore is built from its own folder alone (the Nix package's check
phase), those files are not collected, and the header says so; CI runs them
from the work tree, and the flake's ``benchmark-core`` check renders the same
fixture runs with the built package.
"""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HAS_REPO = all((REPO / p).exists() for p in ("skills/benchmark-skill/SKILL.md", "tests", "checks/fixtures", "README.md"))

NEEDS_REPO = [
    "test_example_cases.py",   # skills/ and tests/
    "test_e2e_benchmark.py",   # skills/benchmark-skill (templates, workflow script)
    "test_e2e_cost.py",        # skills/benchmark-skill
    "test_harness_fanout.py",  # skills/benchmark-skill/workflow
    "test_harness_bound.py",   # skills/benchmark-skill and tests/git/commit-message
    "test_harness_prompts.py", # skills/benchmark-skill/templates
    "test_render.py",          # checks/fixtures/benchmark-core
    "test_readme.py",          # README.md
    "test_plugin.py",          # .claude-plugin/, skills/
    "test_realcli.py",         # skills/benchmark-skill, installed into the real CLI's project
    "test_realcli_cost.py",    # skills/benchmark-skill, installed into the real CLI's project
    "test_realcli_interactive.py",  # skills/benchmark-skill, installed into the real CLI's project
    "test_realcli_plugin.py",  # the repository as a marketplace, installed into the real CLI
    "test_attacks.py",         # whole runs with skills/benchmark-skill (templates, workflow script)
    "test_e2e_cost_controls.py",  # skills/benchmark-skill
    "test_estimate.py",        # skills/benchmark-skill
    "test_harden.py",          # skills/benchmark-skill, checks/fixtures/benchmark-core
    "test_harden_rest.py",     # skills/benchmark-skill, checks/fixtures/benchmark-core
    "test_skill_roots.py",     # skills/benchmark-skill (plan, the workflow script) and this repository's layout
    "test_claude_settings.py", # a whole plan and clean with skills/benchmark-skill
    "test_realcli_layout.py",  # skills/benchmark-skill, installed into the real CLI's project
    "test_provenance.py",      # whole runs with skills/benchmark-skill
    "test_realcli_provenance.py",  # skills/benchmark-skill, installed into the real CLI's project
    "test_realcli_confine.py",     # skills/benchmark-skill, installed into the real CLI's project
    "test_realcli_desk.py",        # skills/git/commit-message and its cases, with skills/benchmark-skill
    "test_realcli_dialog.py",      # skills/benchmark-skill, installed into the real CLI's project
    "test_realcli_environment.py", # skills/benchmark-skill, installed into the real CLI's project
    "test_realcli_resume.py",      # skills/benchmark-skill, installed into the real CLI's project
    "test_realcli_sealed.py",      # skills/benchmark-skill, installed into the real CLI's project
    "test_audit_reshaped.py",      # whole runs with skills/benchmark-skill
    "test_collect_scale.py",       # whole runs with skills/benchmark-skill
    "test_e2e_agent_parts.py",     # skills/benchmark-skill (templates)
    "test_e2e_environment.py",     # whole runs with skills/benchmark-skill
    "test_resume.py",              # whole runs with skills/benchmark-skill
]

collect_ignore = [] if HAS_REPO else list(NEEDS_REPO)


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
