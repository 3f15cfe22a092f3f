"""`benchcore render` at the seams a caller sees: results.json, the page, the history, exit codes.

Fed by the committed fixture runs in checks/fixtures/benchmark-core/, whose
expected results were derived by hand from the contract's rules (see the
README there).
"""

import json
import shutil
from pathlib import Path

import pytest

from benchcore.cli import main
from places import REPO, TESTS

REPO = REPO
FIXTURES = REPO / "checks" / "fixtures" / "benchmark-core"
SKILL = {"three-arm": "commit-message", "two-arm": "adr-writer"}


def render(capsys, *args):
    code = main(["render", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def run_copy(tmp_path):
    """A writable copy of a fixture run, and an empty reports folder."""
    def make(shape: str) -> tuple[Path, Path]:
        run = tmp_path / "runs" / shape
        shutil.copytree(FIXTURES / shape / "run", run)
        reports = tmp_path / "reports"
        reports.mkdir(exist_ok=True)
        return run, reports
    return make


@pytest.mark.parametrize("shape,exit_code", [("three-arm", 1), ("two-arm", 0)])
def test_fixture_runs_render_to_the_hand_derived_results(tmp_path, capsys, shape, exit_code):
    reports = tmp_path / "reports"
    reports.mkdir()
    shutil.copy(FIXTURES / shape / "history.jsonl", reports / f"{SKILL[shape]}.history.jsonl")
    code, out, _ = render(capsys, FIXTURES / shape / "run", "--reports", reports)
    assert code == exit_code
    got = json.loads((reports / f"{SKILL[shape]}.results.json").read_text())
    expected = json.loads((FIXTURES / shape / "expected.results.json").read_text())
    assert got == expected
    assert out.rstrip().splitlines()[-1].startswith("next: ")


def test_an_incomplete_run_renders_to_its_hand_derived_results(tmp_path, capsys):
    # Missing judgments, a timed-out gate, an escalation that skips a missing trial, an unpriced model.
    base = TESTS / "fixtures" / "runs" / "incomplete-three-arm"
    code, out, err = render(capsys, base / "run", "--reports", tmp_path)
    assert code == 1
    assert json.loads((tmp_path / "commit-message.results.json").read_text()) == \
        json.loads((base / "expected.results.json").read_text())
    assert "skipped 1 truncated or malformed line" in err


def test_history_gets_one_line_newest_last_and_rerender_does_not_duplicate(run_copy, capsys):
    run, reports = run_copy("two-arm")
    shutil.copy(FIXTURES / "two-arm" / "history.jsonl", reports / "adr-writer.history.jsonl")
    before = (reports / "adr-writer.history.jsonl").read_text().splitlines()
    render(capsys, run, "--reports", reports)
    render(capsys, run, "--reports", reports)
    after = (reports / "adr-writer.history.jsonl").read_text().splitlines()
    assert after[:-1] == before
    last = json.loads(after[-1])
    assert last["run_id"] == "20261202T170500Z-b81c"
    assert last["regression"] is None and last["efficacy"]["pass"] is True


def test_history_keeps_fifty(run_copy, capsys):
    run, reports = run_copy("two-arm")
    line = json.loads((FIXTURES / "two-arm" / "history.jsonl").read_text().splitlines()[0])
    lines = [json.dumps({**line, "run_id": f"old-{i:02d}"}) for i in range(50)]
    (reports / "adr-writer.history.jsonl").write_text("\n".join(lines) + "\n")
    render(capsys, run, "--reports", reports)
    kept = [json.loads(x)["run_id"] for x in (reports / "adr-writer.history.jsonl").read_text().splitlines()]
    assert len(kept) == 50 and kept[0] == "old-01" and kept[-1] == "20261202T170500Z-b81c"


def test_a_corrupt_history_line_is_named_and_moved_aside(run_copy, capsys):
    run, reports = run_copy("two-arm")
    good = (FIXTURES / "two-arm" / "history.jsonl").read_text().splitlines()
    (reports / "adr-writer.history.jsonl").write_text("\n".join([good[0], '{"run_id": "half', *good[1:]]) + "\n")
    code, _, err = render(capsys, run, "--reports", reports)
    assert code == 0
    assert "adr-writer.history.jsonl:2: skipped a corrupt history line" in err
    kept = (reports / "adr-writer.history.jsonl").read_text().splitlines()
    assert kept[:-1] == good
    assert (reports / "adr-writer.history.corrupt.jsonl").read_text() == '{"run_id": "half\n'


def test_a_missing_judgment_makes_the_case_incomplete(run_copy, capsys):
    run, reports = run_copy("two-arm")
    (run / "cases" / "01-choose-database" / "t4" / "efficacy.json").unlink()
    code, out, _ = render(capsys, run, "--reports", reports)
    assert code == 1
    case = json.loads((reports / "adr-writer.results.json").read_text())["cases"][0]
    assert case["efficacy"]["outcomes"][3] is None
    assert case["efficacy"]["incomplete"] is True and case["efficacy"]["pass"] is False
    assert case["efficacy"]["reason"] == "incomplete: no judgment for trial 4"
    assert "incomplete" in out


def test_an_incomplete_run_is_not_filed_as_a_failure(run_copy, capsys):
    # Bug: a run that lacked judgments rendered a red FAIL badge and "Jump to the first failure" above
    # "Not final", the leaderboard filed it as regressed, and its history line counted as a red run.
    run, reports = run_copy("two-arm")
    (run / "cases" / "01-choose-database" / "t4" / "efficacy.json").unlink()
    code, out, _ = render(capsys, run, "--reports", reports)
    assert code == 1  # still not green: an incomplete axis does not pass
    assert "efficacy:   incomplete (not final; it does not pass yet)  net +14" in out
    results = json.loads((reports / "adr-writer.results.json").read_text())
    assert results["verdicts"]["efficacy"]["status"] == "fail" and results["verdicts"]["efficacy"]["incomplete"]
    assert results["headline"] == ("Not final: 01-choose-database efficacy (no judgment for trial 4); efficacy net +14 "
                                   "so far.")
    html = (reports / "adr-writer.html").read_text()
    assert ('<span class="badge incomplete"><span class="badge-axis">Efficacy</span>'
            '<span class="badge-status">incomplete</span><span class="badge-net">net +14 so far</span>') in html
    assert "badge fail" not in html and "Jump to the first failure" not in html
    assert '<span class="pill incomplete">Efficacy: not final</span>' in html
    index = (reports / "index.html").read_text()
    assert '<tr class="row-incomplete">' in index and "standing-incomplete" in index
    assert "badge fail" not in index and "regressed" not in index
    [line] = (reports / "adr-writer.history.jsonl").read_text().splitlines()
    assert json.loads(line)["efficacy"] == {"net": 14, "pass": False, "wins": 15, "ties": 3, "losses": 1,
                                            "incomplete": True}


def test_an_invalid_trial_is_named_as_such_in_the_headline(run_copy, capsys):
    run, reports = run_copy("two-arm")
    (run / "cases" / "01-choose-database" / "t2" / "audit.json").write_text(json.dumps(
        {"invalid": True, "problems": [{"arm": "baseline", "problem": "read a SKILL.md"}]}))
    render(capsys, run, "--reports", reports)
    results = json.loads((reports / "adr-writer.results.json").read_text())
    assert results["verdicts"]["efficacy"]["incomplete"] is True
    assert results["headline"] == ("Not final: 01-choose-database efficacy (trial 2 invalid (contaminated or "
                                   "skill not engaged) and must be re-run); efficacy net +14 so far.")


def test_a_complete_run_writes_no_incomplete_keys(run_copy, capsys):
    # The extension is written only when true: complete runs' files are as they were.
    run, reports = run_copy("two-arm")
    render(capsys, run, "--reports", reports)
    assert '"incomplete": true' not in (reports / "adr-writer.results.json").read_text()
    assert "incomplete" not in (reports / "adr-writer.history.jsonl").read_text()


def test_a_case_that_fails_without_a_loss_shows_the_trials_that_kept_it_from_passing(run_copy, capsys):
    # Bug: win, win, tie, tie, tie opened its case but showed no evidence.
    run, reports = run_copy("two-arm")
    t1 = run / "cases" / "02-supersede-decision" / "t1" / "efficacy.json"  # a win; 02 is W W W T T
    record = json.loads(t1.read_text())
    record["judgments"] = [{"verdict": "TIE", "rationale": "both name the superseded ADR"}]
    t1.write_text(json.dumps(record))
    code, _, _ = render(capsys, run, "--reports", reports)
    assert code == 1
    case = json.loads((reports / "adr-writer.results.json").read_text())["cases"][1]
    assert case["efficacy"]["outcomes"] == ["TIE", "WIN", "WIN", "TIE", "TIE"] and case["expanded"]
    html = (reports / "adr-writer.html").read_text()
    assert "Jump to the first failure: 02-supersede-decision" in html
    for n in (1, 4, 5):
        assert f"Trial {n}: tied with no skill (a win was needed)" in html
    assert "both name the superseded ADR" in html


def test_a_failed_predicate_is_shown_with_the_comment_above_it(run_copy, capsys):
    # Bug: the README said the comment above a predicate "is what a reader sees"; the report showed the
    # command only.
    run, reports = run_copy("three-arm")
    case_md = run / "cases" / "02-breaking-api-change" / "case.md"
    case_md.write_text(case_md.read_text().replace(
        "grep -q '^BREAKING CHANGE: '", "# the message names the break in a footer\ngrep -q '^BREAKING CHANGE: '"))
    render(capsys, run, "--reports", reports)
    html = (reports / "commit-message.html").read_text()
    assert ('<p class="predicate-comment">the message names the break in a footer</p>\n'
            '              <p><code>grep -q &#39;^BREAKING CHANGE: &#39; &#34;$OUTPUT&#34;</code>') in html


def test_an_invalid_trial_is_not_scored(run_copy, capsys):
    run, reports = run_copy("two-arm")
    (run / "cases" / "02-supersede-decision" / "t2" / "audit.json").write_text(json.dumps(
        {"invalid": True, "problems": [{"arm": "baseline", "problem": "read /tmp/x/skill/SKILL.md"}]}))
    code, _, _ = render(capsys, run, "--reports", reports)
    assert code == 1
    case = json.loads((reports / "adr-writer.results.json").read_text())["cases"][1]
    assert case["efficacy"]["outcomes"][1] is None
    assert "trial 2 invalid" in case["efficacy"]["reason"]
    assert "read /tmp/x/skill/SKILL.md" in (reports / "adr-writer.html").read_text()


@pytest.mark.parametrize("garbage", ['{"order": {"A": "new"', '{"order": {"A": "new", "B": "baseline"}, "judgments": [{"verdict": "C"}]}'],
                         ids=["truncated-json", "bad-verdict"])
def test_garbage_judgments_exit_2_and_write_nothing(run_copy, capsys, garbage):
    run, reports = run_copy("two-arm")
    (reports / "adr-writer.html").write_text("previous report")
    target = run / "cases" / "03-reject-graphql" / "t1" / "efficacy.json"
    target.write_text(garbage)
    code, _, err = render(capsys, run, "--reports", reports)
    assert code == 2
    assert str(target) in err and "fix:" in err
    assert sorted(p.name for p in reports.iterdir()) == ["adr-writer.html"]
    assert (reports / "adr-writer.html").read_text() == "previous report"


def test_a_truncated_transcript_line_is_skipped_and_counted(run_copy, capsys):
    run, reports = run_copy("two-arm")
    render(capsys, run, "--reports", reports)
    clean = json.loads((reports / "adr-writer.results.json").read_text())["arms"]
    transcript = run / "cases" / "01-choose-database" / "t1" / "new" / "transcript.jsonl"
    with transcript.open("a") as fh:
        fh.write('{"type":"assistant","message":{"id":"msg_cut","usage":{"input_tokens":99')
    code, _, err = render(capsys, run, "--reports", reports)
    assert code == 0
    assert f"{transcript}: skipped 1 truncated or malformed line" in err
    assert json.loads((reports / "adr-writer.results.json").read_text())["arms"] == clean


def test_model_written_text_is_escaped(run_copy, capsys):
    run, reports = run_copy("three-arm")
    hostile = '</details></pre><script>alert("x")</script>{{ 8*8 }}{% if true %}yes{% endif %}'
    # 02's trial 3 is gated: its new output is shown on the page.
    (run / "cases" / "02-breaking-api-change" / "t3" / "new" / "output.md").write_text(hostile)
    render(capsys, run, "--reports", reports)
    page = (reports / "commit-message.html").read_text()
    assert '&lt;/details&gt;&lt;/pre&gt;&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;{{ 8*8 }}{% if true %}yes{% endif %}' in page
    assert "<script>" not in page and "64" not in page.split("&lt;/script&gt;")[1][:20]


def test_index_lists_every_skill_red_before_green(tmp_path, capsys):
    reports = tmp_path / "reports"
    for shape in ("two-arm", "three-arm"):
        render(capsys, FIXTURES / shape / "run", "--reports", reports)
    index = (reports / "index.html").read_text()
    assert 'href="commit-message.html"' in index and 'href="adr-writer.html"' in index
    assert index.index("commit-message.html") < index.index("adr-writer.html")


def test_reports_default_to_the_repositorys_tests_reports(tmp_path, capsys):
    run = tmp_path / "tests" / ".reports" / "runs" / "20261202T170500Z-b81c"
    shutil.copytree(FIXTURES / "two-arm" / "run", run)
    code, _, _ = render(capsys, run)
    assert code == 0
    assert (tmp_path / "tests" / ".reports" / "adr-writer.html").is_file()
    assert (tmp_path / "tests" / ".reports" / "index.html").is_file()


def test_json_summary(run_copy, capsys):
    run, reports = run_copy("three-arm")
    code, out, _ = render(capsys, run, "--reports", reports, "--json")
    data = json.loads(out)
    assert code == data["exit"] == 1
    assert data["verdicts"]["efficacy"]["status"] == "fail"
    assert data["escalations"] == [{"case": "05-mixed-concerns", "comparison": "efficacy", "trials": [1, 2, 3, 4, 5]}]
    assert Path(data["files"]["report"]).is_file()


def test_example_renders_with_no_setup(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = render(capsys, "--example")
    assert code == 1  # the bundled example has red verdicts on purpose: it shows every part of the page
    page = (tmp_path / "benchcore-example" / "commit-message.html").read_text()
    assert "Efficacy" in page and "Regression" in page
    history = (tmp_path / "benchcore-example" / "commit-message.history.jsonl").read_text().splitlines()
    assert len(history) == 7  # six bundled earlier runs + this one, so the ribbons have a trend


@pytest.mark.parametrize("args,message", [
    ([], "give a run directory or --example"),
    (["/nonexistent/run"], "does not exist"),
], ids=["no-args", "missing-dir"])
def test_bad_arguments_exit_2(capsys, args, message):
    code, _, err = render(capsys, *args)
    assert code == 2 and message in err


def test_a_folder_without_run_json_is_named(tmp_path, capsys):
    code, _, err = render(capsys, tmp_path, "--reports", tmp_path / "r")
    assert code == 2 and "has no run.json" in err
    assert not (tmp_path / "r").exists()


def test_a_reports_path_that_is_a_file_exits_2_and_is_left_alone(run_copy, capsys, tmp_path):
    # Bug: a --reports path naming a file crashed with a FileExistsError traceback.
    run, _ = run_copy("two-arm")
    target = tmp_path / "not-a-folder"
    target.write_text("keep me")
    code, _, err = render(capsys, run, "--reports", target)
    assert code == 2
    assert f"{target}: is a file, not a reports folder" in err and "fix:" in err
    assert target.read_text() == "keep me"


def test_a_reports_folder_that_cannot_take_every_file_gets_none(run_copy, capsys, monkeypatch):
    # Bug: files were replaced one by one, so a failure on the third (disk full, no permission)
    # left a new results.json and report beside an old history and index, with a traceback.
    from benchcore.harness.store import files

    run, reports = run_copy("two-arm")
    (reports / "adr-writer.html").write_text("previous report")
    real_create, calls = files._create_beside, []

    def failing_create(*a, **kw):  # the third file's temp file cannot be made
        calls.append(1)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real_create(*a, **kw)

    monkeypatch.setattr(files, "_create_beside", failing_create)
    code, _, err = render(capsys, run, "--reports", reports)
    assert code == 2
    assert "cannot be written: No space left on device" in err and "fix:" in err
    assert sorted(p.name for p in reports.iterdir()) == ["adr-writer.html"]  # no temp file, no half set
    assert (reports / "adr-writer.html").read_text() == "previous report"


def test_report_files_are_readable_as_the_umask_allows(run_copy, capsys):
    # Bug: every written file kept mkstemp's mode 0600, so a report served or shared was unreadable.
    import os

    run, reports = run_copy("two-arm")
    old = os.umask(0o022)
    try:
        render(capsys, run, "--reports", reports)
    finally:
        os.umask(old)
    for name in ("adr-writer.results.json", "adr-writer.html", "adr-writer.history.jsonl", "index.html"):
        assert (reports / name).stat().st_mode & 0o777 == 0o644, name


def _edit_run_json(run: Path, **changes) -> None:
    data = json.loads((run / "run.json").read_text())
    data.update(changes)
    (run / "run.json").write_text(json.dumps(data))


# Bug: run.json was trusted beyond its types: a case listed twice was scored twice (and its
# tokens counted twice), a case id like '../x' read outside the run, a run without the 'new'
# arm crashed with KeyError, and any trial count or shape/arms mismatch was scored as given.
@pytest.mark.parametrize("changes,message", [
    ({"cases": ["01-typo-fix", "02-breaking-api-change", "01-typo-fix"]}, "case '01-typo-fix' is listed twice"),
    ({"cases": ["../three-arm/cases/01-typo-fix"]}, "is not a case folder name"),
    ({"arms": ["baseline", "previous"]}, "a three-arm run has the arms new, baseline, previous"),
    ({"trials": 3}, "trials is 3, but a run has 5"),
    ({"shape": "two-arm"}, "a two-arm run has the arms new, baseline"),
    ({"comparisons": {"efficacy": ["baseline", "new"], "regression": ["new", "previous"]}}, "a three-arm run compares"),
], ids=["duplicate-case", "path-case-id", "no-new-arm", "three-trials", "shape-mismatch", "swapped-comparison"])
def test_an_inconsistent_run_json_exits_2_and_writes_nothing(run_copy, capsys, changes, message):
    run, reports = run_copy("three-arm")
    _edit_run_json(run, **changes)
    code, _, err = render(capsys, run, "--reports", reports)
    assert code == 2
    assert f"{run / 'run.json'}: " in err and message in err and "fix:" in err
    assert list(reports.iterdir()) == []


# Bug: a judgments file whose order named the same arm twice (or a stranger) was scored,
# every decisive verdict collapsing to one side.
@pytest.mark.parametrize("order", [{"A": "new", "B": "new"}, {"A": "new", "B": "previous"}, {"A": "new"}],
                         ids=["same-arm-twice", "wrong-arm", "one-letter"])
def test_a_judgment_order_that_is_not_the_comparisons_arms_exits_2(run_copy, capsys, order):
    run, reports = run_copy("three-arm")
    target = run / "cases" / "01-typo-fix" / "t1" / "efficacy.json"
    data = json.loads(target.read_text())
    target.write_text(json.dumps({**data, "order": order}))
    code, _, err = render(capsys, run, "--reports", reports)
    assert code == 2
    assert f"{target}: order" in err and "the arms new and baseline" in err
    assert list(reports.iterdir()) == []


def test_a_trial_folder_beyond_five_is_not_scored(run_copy, capsys):
    run, reports = run_copy("two-arm")
    render(capsys, run, "--reports", reports)
    before = json.loads((reports / "adr-writer.results.json").read_text())
    shutil.copytree(run / "cases" / "01-choose-database" / "t1", run / "cases" / "01-choose-database" / "t6")
    code, _, _ = render(capsys, run, "--reports", reports)
    assert code == 0
    assert json.loads((reports / "adr-writer.results.json").read_text()) == before


def test_a_render_waits_for_another_render_into_the_same_folder(run_copy, capsys):
    # Bug: two renders into one reports folder (two skills benchmarked at once) read the history
    # and every results.json, then wrote: the later index.html could miss the other skill, and two
    # renders of one skill could each drop the other's history line. Now the folder is locked.
    import fcntl
    import os
    import threading
    import time

    run, reports = run_copy("two-arm")
    fd = os.open(reports, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another render holds the folder
    codes = []
    worker = threading.Thread(target=lambda: codes.append(main(["render", str(run), "--reports", str(reports)])))
    worker.start()
    time.sleep(0.5)
    assert worker.is_alive() and not (reports / "adr-writer.results.json").exists()
    os.close(fd)  # the other render is done
    worker.join(timeout=30)
    assert codes == [0] and (reports / "adr-writer.results.json").is_file()
    assert list(reports.glob(".*")) == []  # no lock file is left behind


def test_a_history_line_that_is_not_utf8_is_set_aside_and_the_rest_kept(run_copy, capsys):
    # Bug: one undecodable byte in the history stopped the render (a traceback, later exit 2),
    # although a corrupt line is meant to be skipped with the good lines kept.
    run, reports = run_copy("two-arm")
    good = (FIXTURES / "two-arm" / "history.jsonl").read_bytes().splitlines()
    (reports / "adr-writer.history.jsonl").write_bytes(b"\n".join([good[0], b'{"run_id": "\xff\xfe', *good[1:]]) + b"\n")
    code, _, err = render(capsys, run, "--reports", reports)
    assert code == 0
    assert "adr-writer.history.jsonl:2: skipped a corrupt history line" in err
    kept = (reports / "adr-writer.history.jsonl").read_bytes().splitlines()
    assert kept[:-1] == good
    assert (reports / "adr-writer.history.corrupt.jsonl").is_file()


def test_index_survives_other_skills_bad_results_files(tmp_path, capsys):
    # Bug: a results.json named for one skill but holding another's was listed under the other's
    # name (a duplicate row linking a page that may not exist). A corrupt one must not stop the index.
    reports = tmp_path / "reports"
    render(capsys, FIXTURES / "two-arm" / "run", "--reports", reports)
    shutil.copy(reports / "adr-writer.results.json", reports / "renamed.results.json")
    (reports / "broken.results.json").write_text('{"schema": 1, "run_id": ')
    code, _, err = render(capsys, FIXTURES / "three-arm" / "run", "--reports", reports)
    assert code == 1
    assert "index.html shows broken as refused: it is not valid JSON" in err
    assert "left renamed.results.json out of index.html: it holds the results of 'adr-writer'" in err
    index = (reports / "index.html").read_text()
    assert index.count('href="adr-writer.html"') == 1 and 'href="commit-message.html"' in index
    assert "renamed" not in index and 'href="broken.html"' not in index
    assert "Not shown: broken.results.json was refused" in index  # unknown, never left out in silence


def test_cases_are_reported_in_folder_name_order_whatever_run_json_lists(run_copy, capsys):
    # Bug: the report followed run.json's list, so a hand-edited or reordered list reordered the cases.
    run, reports = run_copy("two-arm")
    data = json.loads((run / "run.json").read_text())
    _edit_run_json(run, cases=list(reversed(data["cases"])))
    render(capsys, run, "--reports", reports)
    got = [c["id"] for c in json.loads((reports / "adr-writer.results.json").read_text())["cases"]]
    assert got == sorted(data["cases"])
    page = (reports / "adr-writer.html").read_text()
    assert [page.index(f'id="case-{c}"') for c in got] == sorted(page.index(f'id="case-{c}"') for c in got)


def test_a_trial_whose_hard_assertions_never_ran_is_named(run_copy, capsys):
    # Bug: when assertions.json was missing for a case that has hard assertions, the gate silently
    # did not apply and nothing said so.
    run, reports = run_copy("two-arm")
    (run / "cases" / "01-choose-database" / "t2" / "new" / "assertions.json").unlink()
    _, _, err = render(capsys, run, "--reports", reports)
    assert "01-choose-database: no new/assertions.json for trial 2, so the hard-assertion gate was not applied" in err


def test_an_output_that_is_not_utf8_exits_2_naming_it(run_copy, capsys):
    # Bug: a non-UTF-8 output.md (or any run file) stopped render with a UnicodeDecodeError traceback.
    run, reports = run_copy("two-arm")
    target = run / "cases" / "03-reject-graphql" / "t4" / "new" / "output.md"
    target.write_bytes(b"\xff\xfe binary")
    code, _, err = render(capsys, run, "--reports", reports)
    assert code == 2
    assert f"{target}: is not UTF-8 text" in err and "fix:" in err
    assert list(reports.iterdir()) == []


def test_a_history_file_that_is_a_link_is_refused_and_its_target_left_alone(run_copy, capsys, tmp_path):
    # Bug (issue 18, item 7): render followed a linked history, read its target and wrote a copy of it into the
    # reports folder in place of the link.
    run, reports = run_copy("two-arm")
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("private\n")
    (reports / "adr-writer.history.jsonl").symlink_to(target)
    code, out, err = render(capsys, run, "--reports", reports)
    assert code == 2
    assert "adr-writer.history.jsonl: is a link or not a regular file" in err and "fix:" in err
    assert (reports / "adr-writer.history.jsonl").is_symlink() and target.read_text() == "private\n"
    assert not (reports / "adr-writer.html").exists()


def test_the_bundled_example_gives_no_advice_a_user_cannot_follow(tmp_path, capsys, monkeypatch):
    # Bug (issue 19, item 8): render --example told the user to "add two more judges", which nobody can do for
    # the bundled example: it has no run folder and no judges to launch.
    monkeypatch.chdir(tmp_path)
    code, out, _ = render(capsys, "--example")
    assert code == 1
    assert "add two more judges" not in out
    assert "the bundled example stops here" in out


def test_a_calibration_that_cannot_be_read_is_named_and_the_run_renders_without_it(tmp_path, capsys):
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "adr-writer.calibration.json").write_text("{not json")
    code, out, err = render(capsys, FIXTURES / "two-arm" / "run", "--reports", reports)
    assert code == 0
    assert "adr-writer.calibration.json is not a calibration" in err
    noise = json.loads((reports / "adr-writer.results.json").read_text())["noise"]
    assert noise["status"] == "none" and "No calibration of the judges exists for adr-writer" in noise["sentence"]
    # The session reads the short form; the report and results.json keep the whole sentence.
    assert "noise: judges not calibrated for adr-writer; /benchmark-skill --calibrate adr-writer measures them" in out


def test_a_stored_calibration_puts_the_floor_beside_a_red_verdict_escaped(tmp_path, capsys):
    from benchcore import noise, serde
    from benchcore.harness.runs.folder import read_run
    from benchcore.model import Calibration, NoiseCount

    reports = tmp_path / "reports"
    reports.mkdir()
    data = read_run(FIXTURES / "three-arm" / "run")
    forged = NoiseCount(case="<b>01</b>", judgments=5, decisive=2, first_shown_won=1, decisive_rate=0.4,
                        low=0.1176, high=0.7693)
    pooled = NoiseCount(case="all", judgments=25, decisive=10, first_shown_won=5, decisive_rate=0.4,
                        low=0.2340, high=0.5926)
    cal = Calibration(skill="commit-message", run_id="20261201T000000Z-ca1b", at="2026-12-01T00:00:00Z",
                      judge_model=data.run.judge_model, cases_key=noise.cases_key(data.cases), cases=(forged,),
                      pooled=pooled, first_shown_share=0.5)
    (reports / "commit-message.calibration.json").write_text(serde.dumps(cal))
    code, out, _ = render(capsys, FIXTURES / "three-arm" / "run", "--reports", reports)
    got = json.loads((reports / "commit-message.results.json").read_text())
    assert got["verdicts"]["regression"]["status"] == "fail"
    assert got["noise"]["status"] == "calibrated"
    # Carried through the calibration's uncertainty: above the figure at the point estimate (0.737), below the
    # one at the Wilson interval's upper end.
    assert noise.false_alarm([0.4] * 5, 0.5) < got["noise"]["false_alarm_p"] < got["noise"]["false_alarm_p_high"]
    html = (reports / "commit-message.html").read_text()
    # The fixture's red regression: a hard assertion on 02 (no noise figure for it), 2 losses on 03.
    assert "which judge noise cannot produce" in html
    assert "03-xss-escape-fix: 2 losses. Noise alone gives 2 or more in this case with probability" in html
    assert "02-breaking-api-change: " not in html.split('id="noise"')[1].split("</div>")[0]
    assert "&lt;b&gt;01&lt;/b&gt;" in html and "<b>01</b>" not in html
    # The session reads the verdict's line and each red case's figure too.
    assert "which judge noise cannot produce: read the assertion's output." in out
    assert "\n    03-xss-escape-fix: 2 losses. Noise alone gives 2 or more in this case" in out
