"""benchmark.yaml options that would make two results overwrite each other are refused (issue 18, item 7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchcore.errors import BenchError
from benchcore.harness.repo.options import load_options
from benchcore.harness.repo.tree import SkillInfo


@pytest.mark.parametrize("models", ["[claude-x/1, 'claude-x:1']", "[a@b, a/b]", "['m[1m]', m-1m-]"])
def test_two_models_that_share_a_file_name_are_refused_with_the_line(tmp_path: Path, models):
    # Bug: model names that reduce to the same file-name part (model_slug) wrote one <skill>@<slug>.results.json,
    # the second run's results replacing the first's in the leaderboard.
    (tmp_path / "tests" / "solo").mkdir(parents=True)
    (tmp_path / "tests" / "solo" / "benchmark.yaml").write_text(f"temperature: 0\nmodels: {models}\n")
    skill = SkillInfo(name="solo", path="skills/solo", tests_path="tests/solo")
    with pytest.raises(BenchError) as err:
        load_options(tmp_path, skill)
    assert err.value.line == 2 and "share the file name" in err.value.message and err.value.fix


def test_distinct_models_are_kept(tmp_path: Path):
    (tmp_path / "tests" / "solo").mkdir(parents=True)
    (tmp_path / "tests" / "solo" / "benchmark.yaml").write_text("models: [claude-haiku-4-5, claude-sonnet-4-6]\n")
    skill = SkillInfo(name="solo", path="skills/solo", tests_path="tests/solo")
    assert load_options(tmp_path, skill)["models"] == ["claude-haiku-4-5", "claude-sonnet-4-6"]


def _options(tmp_path: Path, text: str) -> dict:
    (tmp_path / "tests" / "solo").mkdir(parents=True, exist_ok=True)
    (tmp_path / "tests" / "solo" / "benchmark.yaml").write_text(text)
    return load_options(tmp_path, SkillInfo(name="solo", path="skills/solo", tests_path="tests/solo"))


def test_network_and_tools_for_the_arms_sandbox_are_read_and_checked(tmp_path: Path):
    opts = _options(tmp_path, "network: true\ntools: [WebFetch, mcp__docs__search]\n")
    assert opts["network"] is True and opts["tools"] == ["WebFetch", "mcp__docs__search"]
    for text, line, words in (("temperature: 0\nnetwork: yes please\n", 2, "is not true or false"),
                              ("tools: WebFetch\n", 1, "is not a list of tool names"),
                              ("tools: ['Bash(rm -rf /)']\n", 1, "is not a list of tool names")):
        with pytest.raises(BenchError) as err:
            _options(tmp_path, text)
        assert err.value.line == line and words in err.value.message and err.value.fix


def test_benchmark_yaml_nested_too_deeply_is_bad_input_at_once(tmp_path):
    import time

    (tmp_path / "tests/solo").mkdir(parents=True)
    (tmp_path / "tests/solo/benchmark.yaml").write_text("tools: " + "[" * 50000 + "]" * 50000 + "\n")
    started = time.process_time()  # CPU, not wall: what a loaded machine's other work cannot stretch
    with pytest.raises(BenchError) as err:
        load_options(tmp_path, SkillInfo(name="solo", path="skills/solo", tests_path="tests/solo"))
    assert "nested too deeply" in str(err.value) and err.value.line == 1
    assert time.process_time() - started < 0.5  # refused before YAML recurses (that took seconds)


def test_requires_lists_the_commands_the_arms_need_and_is_checked(tmp_path: Path):
    assert _options(tmp_path, 'requires: ["python3 -m pytest --version", "node --version"]\n')["requires"] == [
        "python3 -m pytest --version", "node --version"]
    assert _options(tmp_path, "requires: make --version\n")["requires"] == ["make --version"]
    for text, line in (("temperature: 0\nrequires: []\n", 2), ("requires: [1, 2]\n", 1), ("requires: ['  ']\n", 1),
                       ("requires: {python3: yes}\n", 1)):
        with pytest.raises(BenchError) as err:
            _options(tmp_path, text)
        assert err.value.line == line and "is not a list of shell commands" in err.value.message
        assert 'requires: ["python3 -m pytest --version"]' in err.value.fix
