"""Issue 27 items 1 and 6 through plan: the Claude Code version and the orchestrating model's context window
the session records of itself (its own transcript, as Claude Code writes it) reach what plan says and
decides before launch."""

from __future__ import annotations

import json
import re
from pathlib import Path

from benchcore.harness.claude.session import supported
from standin import repo as R
from test_e2e_benchmark import GREET, Bench

OPUS = "claude-opus-5-5"


def five_case_edited_repo(b: Bench) -> None:
    """greet released with five cases, then edited in the working tree: a three-arm run of 75 cells."""
    R.init(b.repo, "main")
    R.skill(b.repo, GREET, "Greet the reader by name.")
    for n in range(1, 6):
        R.case(b.repo, GREET, f"0{n}-case")
    R.commit_all(b.repo, "release greet")
    R.skill(b.repo, GREET, "Greet the reader by name, warmly.")


def session_records(b: Bench, version: str, window: int | None, model: str = OPUS) -> Path:
    """The orchestrating session's own transcript: records carrying ``version``, the served model on its
    assistant records, and a cost-state record whose model usage holds the model's ``contextWindow`` when
    ``window`` is given (Claude Code 2.1.328 writes none there: ``window`` None is its terminal session)."""
    sid = R.env_for(b.tmp)["CLAUDE_CODE_SESSION_ID"]
    path = b.config / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(b.repo)) / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    usage = {model: {"inputTokens": 10, "outputTokens": 5, **({"contextWindow": window} if window else {})}}
    recs = [{"type": "user", "sessionId": sid, "version": version, "message": {"role": "user", "content": "hi"}},
            {"type": "assistant", "sessionId": sid, "version": version,
             "message": {"role": "assistant", "model": model, "content": [{"type": "text", "text": "ok"}]}},
            {"type": "cost-state", "sessionId": sid, "totalCostUSD": 0.01, "modelUsage": usage}]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def planned(tmp_path, monkeypatch, version: str, window: int | None,
            model: str = OPUS) -> tuple[Bench, str, dict]:
    b = Bench(tmp_path, monkeypatch)
    five_case_edited_repo(b)
    session_records(b, version, window, model)
    rc, out, err = b.plan("greet", "--seed", "3")
    assert rc == 0, err
    [run_dir] = b.runs()
    assert len(b.plan_json(run_dir)["cells"]) == 75
    return b, out, json.loads((run_dir / "workflows/agent-path.json").read_text())


def test_a_five_case_three_arm_run_on_a_1m_context_model_goes_in_one_conversation(tmp_path, monkeypatch):
    _, out, decided = planned(tmp_path, monkeypatch, supported().floor, 1_000_000)
    # Half the window, as half of the 200,000 tokens assumed when none is recorded: 1.5 MB of launches.
    assert decided["parts"] == 1 and decided["budget_bytes"] == 1_500_000 and "note: without Workflow" not in out
    assert decided["estimated_bytes"] > 300_000  # more than the conservative budget: it would have split


def test_a_terminal_session_that_records_no_window_takes_the_served_models_from_the_catalog(tmp_path, monkeypatch):
    # As Claude Code 2.1.328 writes a terminal session: the served model, no contextWindow anywhere. The catalog
    # gives claude-opus-5-5 1,000,000 tokens: the same five-case three-arm run goes in one conversation.
    _, out, decided = planned(tmp_path, monkeypatch, supported().floor, None)
    assert decided["parts"] == 1 and decided["budget_bytes"] == 1_500_000 and "note: without Workflow" not in out


def test_with_no_window_known_the_conservative_figure_splits_the_same_run(tmp_path, monkeypatch):
    # No window recorded and a model the catalog does not list; and a 200,000-token model: the conservative
    # budget, the run in parts, said before launch.
    for n, model in enumerate(("claude-unlisted-9", "claude-sonnet-4-6")):
        _, out, decided = planned(tmp_path / str(n), monkeypatch, supported().floor, None, model)
        assert decided["budget_bytes"] == 300_000, model
        assert decided["parts"] > 1 and f"note: without Workflow: {decided['parts']} parts" in out, model


def test_a_newer_claude_code_than_tested_is_a_note_never_a_refusal(tmp_path, monkeypatch):
    major, minor, patch = supported().newest_tested.split(".")
    newer = f"{major}.{minor}.{int(patch) + 1}"
    _, out, _ = planned(tmp_path, monkeypatch, newer, 1_000_000)
    assert f"note: Claude Code {newer} is newer than {supported().newest_tested}" in out
    assert out.strip().splitlines()[-1].startswith("next: launch the arm cells")


def test_an_older_claude_code_than_the_floor_is_named_before_launch(tmp_path, monkeypatch):
    major, minor, patch = supported().floor.split(".")
    older = f"{major}.{minor}.{int(patch) - 1}"
    _, out, _ = planned(tmp_path, monkeypatch, older, None)
    assert f"note: Claude Code {older} is older than {supported().floor}" in out and "claude update" in out


def test_a_tested_version_says_nothing_about_versions(tmp_path, monkeypatch):
    _, out, _ = planned(tmp_path, monkeypatch, supported().newest_tested, None)
    assert "note: Claude Code" not in out


def test_results_and_history_record_the_claude_code_version_and_the_models_served(tmp_path, monkeypatch):
    # Issue 27 item 3, through the stand-in: the arms ran on one model, the judges on another; both, and the
    # version the transcripts carry, reach results.json and the history line.
    from standin.agent import VERSION, Script
    from test_e2e_benchmark import CASE1, greet_files, greet_repo, next_script, regression_script
    b = Bench(tmp_path, monkeypatch)
    greet_repo(tmp_path)
    rc, out, err = b.plan("greet", "--seed", "9")
    assert rc == 0, err
    [run_dir] = b.runs()
    b.arms(next_script(out), Script(files=greet_files(), verdict=regression_script))
    rc, out, _ = b.run("collect", str(run_dir))
    assert rc == 0 and "0/20 packets judged" in out
    b.judges(run_dir, Script(files=greet_files(), verdict=regression_script, model="claude-haiku-4-5"))
    rc, out, _ = b.run("collect", str(run_dir))
    assert rc == 0 and "20/20 packets judged" in out
    rc, out, err = b.run("render", str(run_dir))
    assert rc in (0, 1), err
    results = json.loads((b.repo / "tests/.reports/greet.results.json").read_text())
    assert results["claude_code"] == [VERSION]
    assert results["served"] == {"new": [OPUS], "baseline": [OPUS], "previous": [OPUS], "judges": ["claude-haiku-4-5"]}
    [line] = (b.repo / "tests/.reports/greet.history.jsonl").read_text().splitlines()
    entry = json.loads(line)
    assert entry["claude_code"] == [VERSION] and entry["served"] == results["served"]
    assert CASE1 in results["cases"][0]["id"]


def test_the_command_typed_again_resumes_and_says_the_version_note_again(tmp_path, monkeypatch):
    major, minor, patch = supported().newest_tested.split(".")
    newer = f"{major}.{minor}.{int(patch) + 1}"
    b, out, _ = planned(tmp_path, monkeypatch, newer, 1_000_000)
    rc, again, err = b.plan("greet", "--seed", "3", resume=True)
    assert rc == 0, err
    assert "continu" in again.lower() or "resum" in again.lower()
    assert f"note: Claude Code {newer} is newer than {supported().newest_tested}" in again
