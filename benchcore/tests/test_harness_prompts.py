"""The words subagents read come from the skill's templates/ files, filled slot by slot."""

from __future__ import annotations

import pytest

from benchcore.errors import BenchError
from benchcore.harness.prompts import Templates, find_skill_dir, redact
from benchcore.model import Case, Turn
from standin.repo import SKILL_DIR

CASE = Case(id="01-a", path="tests/x/01-a/case.md", description="d", prompt="Write {{world}} a note, ${HOME} and all.",
            soft_criteria=("It is short.", "It is kind."),
            seed=(Turn("user", "Hi."), Turn("assistant", "Hello.")))


def test_prompts_keep_the_case_text_verbatim():
    t = Templates(SKILL_DIR)
    text = t.arm_prompt(CASE, "/w/1", "/s/copy")
    assert text.endswith("The user's next message:\n\nWrite {{world}} a note, ${HOME} and all.\n")
    assert "**User:** Hi.\n\n**Assistant:** Hello." in text
    assert text.count("/w/1") == 2 and "/s/copy/SKILL.md" in text
    base = t.arm_prompt(CASE, "/w/2", None)
    assert "/w/2" in base and "skill" not in base.lower()


def test_packets_show_both_outputs_in_fences_they_cannot_close():
    t = Templates(SKILL_DIR)
    text = t.packet(CASE, "R:01-a/t1/efficacy", "one\n````\nescape", "two")
    assert "- It is short.\n- It is kind." in text
    assert "\u200b````\nescape" in text and text.count("\n````\n") == 2  # the two closing fences only
    assert '"packet_id": "R:01-a/t1/efficacy"' in text


def test_an_unknown_slot_in_a_template_is_named(tmp_path):
    import shutil
    shutil.copytree(SKILL_DIR / "templates", tmp_path / "templates")
    (tmp_path / "templates/judge-prompt.md").write_text("Read {{packet_file}}\n")
    with pytest.raises(BenchError, match=r"unknown slot \{\{packet_file\}\}"):
        Templates(tmp_path).judge_prompt("/p", "R:x")


def test_the_templates_are_found_from_the_environment_then_the_repo(tmp_path, monkeypatch):
    monkeypatch.delenv("BENCHMARK_SKILL_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with pytest.raises(BenchError, match="BENCHMARK_SKILL_DIR"):
        find_skill_dir(tmp_path)
    assert find_skill_dir(SKILL_DIR.parents[1]) == SKILL_DIR
    monkeypatch.setenv("BENCHMARK_SKILL_DIR", str(SKILL_DIR))
    assert find_skill_dir(tmp_path) == SKILL_DIR


@pytest.mark.parametrize("where", [".claude/skills", "home/.claude/skills"], ids=["project-link", "personal-install"])
def test_an_installed_benchmark_skill_is_found_without_configuration(tmp_path, monkeypatch, where):
    # A bare 'benchcore plan' in a user's project used to demand BENCHMARK_SKILL_DIR although the
    # dev shell (.claude/skills) or home-manager (~/.claude/skills) had placed the skill.
    monkeypatch.delenv("BENCHMARK_SKILL_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / where).mkdir(parents=True)
    (tmp_path / where / "benchmark-skill").symlink_to(SKILL_DIR)
    assert find_skill_dir(tmp_path) == SKILL_DIR


def test_redact_replaces_longest_paths_first():
    assert redact("see /w/1/x and /w/1", {"/w/1": "$WORLD", "/w/1/x": "$SKILL"}) == "see $SKILL and $WORLD"
