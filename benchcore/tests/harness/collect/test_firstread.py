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


def test_entries_of_other_shapes_are_written_back_as_they_were_read(tmp_path):
    # Issue 40: entries are held compactly, as (sha256, for); an entry without "for", or with keys of its own,
    # must still come back byte for byte when collect adds one beside them.
    old = {"/x/agent-b.jsonl": {"sha256": "b" * 64},
           "/x/agent-c.jsonl": {"for": "01-hello/t1/judge", "note": "kept", "sha256": "c" * 64},
           "/x/agent-d.jsonl": {"for": "01-hello/t2/baseline", "sha256": "d" * 64},
           "/x/caf\u00e9/agent-e.jsonl": {"for": "01-hello/t2/with_skill", "sha256": "e" * 64}}
    (tmp_path / NAME).write_text(json.dumps(old, indent=1, sort_keys=True) + "\n")
    seen = FirstRead(tmp_path)
    assert seen.took("/x/agent-c.jsonl", "01-hello/t1/judge") and not seen.took("/x/agent-b.jsonl", "")
    assert seen.digest_of("/x/agent-b.jsonl") == "b" * 64 and seen.digest_of("/x/agent-z.jsonl") == ""
    assert "sha256 cccccccccccc then" in seen.changed("/x/agent-c.jsonl", b"other", "01-hello/t1/judge")
    assert seen.changed(tmp_path / "agent-a.jsonl", b"first\n", "01-hello/t1/baseline") is None
    seen.save()
    import hashlib
    want = dict(old, **{str(tmp_path / "agent-a.jsonl"): {"for": "01-hello/t1/baseline",
                                                          "sha256": hashlib.sha256(b"first\n").hexdigest()}})
    assert (tmp_path / NAME).read_text() == json.dumps(want, indent=1, sort_keys=True) + "\n"


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


def test_a_hash_worked_out_in_the_background_is_the_one_kept_and_compared(tmp_path):
    import hashlib

    from benchcore.harness.collect.background import Background

    bg = Background()
    seen = FirstRead(tmp_path)
    big = b'{"type":"user"}\n' * 100_000  # large enough that hashing it releases the interpreter's lock
    path = tmp_path / "agent-a1.jsonl"
    assert seen.changed(path, big, "01-hello/t1/new", bg) is None
    assert seen.took(path, "01-hello/t1/new")  # known at once, the hash or not
    # A second reading in the same collect waits for the first hash, then compares.
    why = seen.changed(path, big + b"more\n", "01-hello/t1/new", bg)
    assert why is not None and hashlib.sha256(big).hexdigest()[:12] in why
    bg.wait()
    seen.save()
    assert json.loads((tmp_path / NAME).read_text())[str(path)] == {
        "sha256": hashlib.sha256(big).hexdigest(), "for": "01-hello/t1/new"}


def test_the_background_raises_a_failed_write_once_every_task_has_ended(tmp_path):
    from benchcore.harness.collect.background import Background
    from benchcore.harness.collect.state import copy_bytes_if_changed

    bg = Background()
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder\n")
    ok = tmp_path / "run/cases/c/t1/new/transcript.jsonl"
    assert copy_bytes_if_changed(blocked / "transcript.jsonl", b"x\n", bg)  # its folder cannot be made
    assert copy_bytes_if_changed(ok, b"y\n", bg)
    try:
        bg.wait()
    except BenchError as err:  # the path, and the fix
        assert str(blocked / "transcript.jsonl") in str(err) and "make the run folder writable" in str(err)
    else:
        raise AssertionError("a write that failed in the background was not raised")
    assert ok.read_bytes() == b"y\n"  # the task after the failed one still ran
    assert not copy_bytes_if_changed(ok, b"y\n", bg)  # the same bytes: nothing to write, no task
    assert sorted(p.name for p in ok.parent.iterdir()) == ["transcript.jsonl"]  # no temp file left


def test_tasks_on_one_buffer_count_its_bytes_once_and_the_cap_still_holds(monkeypatch):
    # A transcript is hashed, then copied: two tasks holding one buffer. Counted twice, they let the parsing run
    # only one transcript ahead of the thread; counted once, the cap on what waits is the same bytes in memory.
    import threading

    from benchcore.harness.collect import background as B

    monkeypatch.setattr(B, "PENDING_BYTES", 100)
    bg = B.Background()
    gate = threading.Event()
    a, b = bytes(60), bytes(60)
    bg.submit(len(a), gate.wait, 10, holds=a)  # held in the thread until the gate opens
    bg.submit(len(a), len, a, holds=a)  # the same 60 bytes again: 60 held, not 120, so no wait
    submitted = []
    other = threading.Thread(target=lambda: submitted.append(bg.submit(len(b), len, b, holds=b)))
    other.start()
    other.join(0.5)
    assert submitted == []  # another buffer's 60 bytes would pass the cap: it waits for the first buffer's tasks
    gate.set()
    other.join(10)
    assert len(submitted) == 1 and submitted[0].result(10) == 60
    bg.wait()


def test_a_task_costs_the_same_however_many_are_pending(monkeypatch):
    # Bug (issue 40, 3,000 cells): each submit walked every task still pending to find its buffer's earlier one,
    # 3.7 s of a first collect's CPU; the cost per submit grew with the run. 30,000 small tasks, the cap never
    # reached (so none is let go): under a second now, 25 s of CPU with the walk.
    import time

    from benchcore.harness.collect import background as B

    monkeypatch.setattr(B, "PENDING_BYTES", 1 << 40)
    bg = B.Background()
    buffers = [bytes([n % 256]) * 8 for n in range(30_000)]
    start = time.process_time()
    futures = [bg.submit(len(data), len, data, holds=data) for data in buffers]
    futures += [bg.submit(len(data), len, data, holds=data) for data in buffers[:100]]  # the same buffers again
    spent = time.process_time() - start
    bg.wait()
    assert all(f.result() == 8 for f in futures)
    assert spent < 6, f"{spent:.1f} s of CPU for 30,100 submits"
