"""The audit's fingerprints survive reshaping (issue 18, item 3).

Regression: the audit matched a file's lines as they stand, so an arm that read its case, the skill or
plan.json through ``fold -w 15`` (lines broken every 15 characters) or ``base64 -w 76`` (the bytes
encoded), with globbed paths that name none of the watched files, passed with every trial valid. Each
reproduction below plays the arm with the stand-in (real-format transcripts, the command really run in the
repository) and asserts what collect says of that trial.
"""

from __future__ import annotations

import json

import pytest

from standin.agent import Script
from test_e2e_benchmark import CASE1, CASE2, bench, greet_files, next_script  # noqa: F401

READS = {
    # (case, trial, arm): (command, the problem collect must name)
    (CASE1, 1, "new"): (f"fold -w 15 te*/*/*/{CASE1[:2]}*/c*.md", "new: saw its case's criteria or assertions"),
    (CASE1, 2, "new"): (f"base64 -w 76 te*/*/*/{CASE1[:2]}*/c*.md", "new: saw its case's criteria or assertions"),
    (CASE1, 3, "baseline"): ("fold -w 15 sk*/*/*/S*.md", "baseline: saw the skill's text"),
    (CASE1, 4, "baseline"): ("base64 -w 76 sk*/*/*/S*.md", "baseline: saw the skill's text"),
    (CASE2, 1, "baseline"): ("fold -w 15 te*/.rep*/ru*/*/pl*.json", "baseline: saw the run folder's files"),
    (CASE2, 2, "baseline"): ("base64 -w 76 te*/.rep*/ru*/*/pl*.json", "baseline: saw the run folder's files"),
    (CASE2, 3, "baseline"): ("cat te*/.rep*/ru*/*/pl*.json", "baseline: saw the run folder's files"),  # control
}


@pytest.mark.parametrize("key", sorted(READS), ids=[f"{k[0]}-t{k[1]}-{k[2]}-{READS[k][0].split()[0]}"
                                                    for k in sorted(READS)])
def test_a_reshaped_read_is_caught_like_a_plain_one(bench, key):
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    command, problem = READS[key]
    bench.arms(next_script(out), Script(files=greet_files(), commands={key: [command]}))
    bench.run("collect", str(run_dir))
    invalid = {i["trial"]: i["problems"] for i in json.loads((run_dir / "collect.json").read_text())["invalid_trials"]}
    case, trial, _ = key
    assert sorted(invalid) == [f"{case}/t{trial}"], invalid
    assert problem in invalid[f"{case}/t{trial}"]


def test_the_same_arms_without_the_reads_are_all_valid(bench):
    _, out, _ = bench.plan("greet", "--seed", "9")
    [run_dir] = bench.runs()
    bench.arms(next_script(out), Script(files=greet_files(), commands={(CASE1, 1, "baseline"): ["ls", "git log -1"]}))
    bench.run("collect", str(run_dir))
    assert json.loads((run_dir / "collect.json").read_text())["invalid_trials"] == []
