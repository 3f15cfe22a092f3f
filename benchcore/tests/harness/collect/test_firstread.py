"""transcripts-read.json: the hash of each transcript collect took an answer from, and a later change refused."""

from __future__ import annotations

import json

from benchcore.errors import BenchError
from benchcore.harness.collect.firstread import NAME, FirstRead


def test_a_transcript_is_hashed_when_first_read_and_a_later_change_is_named(tmp_path):
    seen = FirstRead(tmp_path)
    path = tmp_path / "agent-a1.jsonl"
    assert seen.changed(path, b"first\n", "01-hello/t1/baseline") is None
    seen.save()
    kept = json.loads((tmp_path / NAME).read_text())
    assert kept[str(path)]["for"] == "01-hello/t1/baseline" and len(kept[str(path)]["sha256"]) == 64
    again = FirstRead(tmp_path)
    assert again.changed(path, b"first\n", "01-hello/t1/baseline") is None
    why = again.changed(path, b"rewritten\n", "01-hello/t1/baseline")
    assert why.startswith("its transcript changed after collect first read it") and str(path) in why
    again.save()
    assert json.loads((tmp_path / NAME).read_text()) == kept  # the first hash stays the one kept


def test_a_broken_record_is_bad_input_naming_the_file_and_the_fix(tmp_path):
    (tmp_path / NAME).write_text("{not json")
    try:
        FirstRead(tmp_path)
    except BenchError as err:
        assert str(tmp_path / NAME) in str(err) and "restore it from a backup" in str(err)
    else:
        raise AssertionError("a broken transcripts-read.json was accepted")
    (tmp_path / NAME).write_text(json.dumps({"/x/agent-a1.jsonl": "abc"}))
    try:
        FirstRead(tmp_path)
    except BenchError as err:
        assert "not a map of transcript paths" in str(err)
    else:
        raise AssertionError("a transcripts-read.json of the wrong shape was accepted")
