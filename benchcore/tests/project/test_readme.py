"""The README is the front door: what it quotes and names must stay true."""

import json
import re
from pathlib import Path

import pytest
from places import REPO

REPO = REPO
README = REPO / "README.md"
WALKTHROUGH = REPO / "docs/writing-cases.md"

pytestmark = pytest.mark.skipif(not README.is_file(), reason="needs the repository around benchcore/")


def test_the_walked_through_case_is_quoted_verbatim():
    # The README's "Writing cases" links to this walkthrough of a real case, line by line.
    assert "(docs/writing-cases.md)" in README.read_text()
    text = WALKTHROUGH.read_text()
    case = (REPO / "tests/git/commit-message/01-rounding-fix/case.md").read_text()
    section = text[text.index("## One case, line by line"):text.index("## The samples beside the case")]
    blocks = re.findall(r"^(`{3,4})markdown\n(.*?)^\1$", section, flags=re.S | re.M)
    assert len(blocks) == 4
    for _, block in blocks:
        assert block in case, f"README quotes a block that is not in the case:\n{block}"


def test_every_repository_path_the_readme_names_exists():
    text = README.read_text()
    paths = set(re.findall(r"`((?:benchcore|skills|tests|checks|docs|nix|\.ci)/[^`\s*<>]+)`", text))
    paths |= set(re.findall(r"\]\(((?:docs)/[^)#]+)", text))
    # tests/.reports/ is written by runs (git-ignored); {a,b} is shell brace expansion.
    expanded = set()
    for p in paths:
        m = re.match(r"(.*)\{(.*)\}(.*)", p)
        expanded |= {m.group(1) + alt + m.group(3) for alt in m.group(2).split(",")} if m else {p}
    missing = sorted(p for p in expanded if not p.startswith("tests/.reports") and not (REPO / p.rstrip("/")).exists())
    assert not missing, f"README names paths that do not exist: {missing}"


def test_the_development_command_is_the_one_ci_runs():
    ci = (REPO / ".ci/run").read_text()
    assert 'pip install --quiet -e "./benchcore[test]"' in ci and "python -m pytest benchcore -n 2\n" in ci
    dev = README.read_text().split("## Development", 1)[1]
    assert "pip install -e './benchcore[test]' && python -m pytest benchcore -n 2 " in dev
    assert "bash .ci/run" in dev


def test_the_slash_commands_are_the_ones_claude_code_is_typed():
    # As a plugin, Claude Code prefixes the skill with the plugin's name; linked as a skill, it has none.
    market = json.loads((REPO / ".claude-plugin/marketplace.json").read_text())
    [plugin] = [p["name"] for p in market["plugins"] if p["source"] == "./plugins/benchmark-skill"]
    skill = re.search(r"^name: (\S+)$", (REPO / "skills/benchmark-skill/SKILL.md").read_text(), re.M).group(1)
    text = README.read_text()
    table = text[text.index("### The slash command"):text.index("## Benchmark a skill")]
    assert f"`/{plugin}:{skill} <skill>`" in table and f"`/{skill} <skill>`" in table
    assert f'"/{plugin}:{skill} ' in (REPO / "benchcore/tests/realcli/test_realcli_plugin.py").read_text()
    assert f'"/{skill} ' in (REPO / "benchcore/tests/realcli/test_realcli.py").read_text()


def test_the_docs_stand_without_the_design_notes_that_do_not_ship():
    pages = [README, *sorted((REPO / "docs").glob("*.md"))]
    cited = [p.name for p in pages if re.search(r"CONTRACT\.md|CLAUDE-CODE\.md|STYLE\.md|ARCHITECTURE\.md|shared/design",
                                                p.read_text())]
    assert not cited, f"these pages cite design notes that do not ship: {cited}"


def test_every_test_the_newest_cli_subset_names_exists():
    # Bug: a renamed real-CLI test left NEWEST_SUBSET naming nothing, and CI's newest-version step ran no test.
    subset = (REPO / "benchcore/tests/realcli/NEWEST_SUBSET").read_text().splitlines()
    missing = []
    for node in (line.strip() for line in subset if line.strip() and not line.startswith("#")):
        path, _, rest = node.partition("::")
        name = rest.split("[", 1)[0]
        if not (REPO / path).is_file() or (name and f"def {name}(" not in (REPO / path).read_text()):
            missing.append(node)
    assert missing == []
