"""What the orchestrating session records of itself (harness/claude/session.py), read from transcripts."""

from __future__ import annotations

import json

from benchcore.harness.claude.session import (SessionFacts, Supported, read_session, session_file, supported,
                                              version_key, version_note)
from benchcore.harness.fanout import parts
from places import REPO, TESTS

REAL = TESTS / "fixtures/transcripts/real-2.1.328/agent/projects"


def test_the_real_clis_session_transcript_gives_its_version_and_model():
    [path] = REAL.glob("*/*.jsonl")
    assert session_file(path.stem, REAL) == path
    facts = read_session(path)
    assert facts.version == "2.1.328" and facts.model == "claude-opus-5-5"
    assert session_file("no-such-session", REAL) is None and read_session(None) == SessionFacts()


def test_with_no_window_recorded_the_served_models_window_comes_from_claude_codes_catalog(tmp_path):
    # The real 2.1.328 transcript records the served model and no contextWindow (its cost-state's modelUsage
    # has none): the catalog's window for claude-opus-5-5.
    [path] = REAL.glob("*/*.jsonl")
    assert "contextWindow" not in path.read_text()
    assert read_session(path).context_window == 1_000_000
    # A dated id is its model; a model the catalog does not list has no window (the conservative budget).
    for model, window in (("claude-haiku-4-5-20251001", 200_000), ("claude-sonnet-4-6", 200_000),
                          ("claude-unlisted-9", None)):
        one = tmp_path / f"{model}.jsonl"
        one.write_text(json.dumps({"type": "assistant", "version": "2.1.328", "message": {"model": model}}) + "\n")
        assert read_session(one) == SessionFacts("2.1.328", model, window), model
    assert parts.budget_for(read_session(tmp_path / "claude-unlisted-9.jsonl").context_window) == parts.BUDGET_BYTES


def test_the_context_window_is_the_served_models_from_its_model_usage(tmp_path):
    path = tmp_path / "s.jsonl"
    recs = [{"type": "system", "subtype": "init", "version": "2.1.332", "model": "claude-opus-5-5",
             "contextWindow": 1_000_000},
            {"type": "assistant", "version": "2.1.332", "message": {"model": "claude-opus-5-5"}},
            {"type": "cost-state", "modelUsage": {"claude-haiku-4-5": {"contextWindow": 200_000},
                                                  "claude-opus-5-5": {"contextWindow": 1_000_000}}},
            "not json"]
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in recs) + "\n")
    assert read_session(path) == SessionFacts("2.1.332", "claude-opus-5-5", 1_000_000)
    assert parts.budget_for(1_000_000) == 5 * parts.BUDGET_BYTES
    assert parts.budget_for(None) == parts.budget_for(100_000) == parts.BUDGET_BYTES


def test_versions_outside_the_tested_range_are_named_inside_it_nothing():
    d = Supported(floor="2.1.328", newest_tested="2.1.332")
    assert version_note("2.1.330", d) == "" and version_note(None, d) == "" and version_note("dev", d) == ""
    assert "older than 2.1.328" in version_note("2.1.99", d)
    assert "newer than 2.1.332" in version_note("2.1.400", d) and "goes ahead" in version_note("2.2.0", d)
    assert version_key("2.1.332") == (2, 1, 332) > version_key("2.1.99")


def test_the_declared_versions_are_one_range_everywhere_they_are_said():
    # The pinned version of the real-CLI tests is the floor; the newest tested is the CI's second CLI; the
    # plugin's manifest gives Claude Code the floor as its engines range; the README says both.
    realcli = TESTS / "realcli"
    assert (realcli / "CLI_VERSION").read_text().strip() == supported().floor
    assert (realcli / "CLI_VERSION_NEWEST").read_text().strip() == supported().newest_tested
    manifest = json.loads((REPO / "plugins/benchmark-skill/.claude-plugin/plugin.json").read_text())
    assert manifest["engines"] == {"claude-code": f">={supported().floor}"}
    readme = (REPO / "README.md").read_text()
    assert f"Claude Code {supported().floor}" in readme and supported().newest_tested in readme
