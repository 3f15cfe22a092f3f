"""collect's copy of a transcript (files.write_atomic given the file it was read from as ``source``): the kernel
copies it from that file, and the copy holds exactly the bytes collect read, whatever happened to the file since."""

from __future__ import annotations

import errno
import os
import stat

import pytest

from benchcore.harness.store import files

DATA = b'{"type":"user","message":{"content":"go"}}\n' * 5000  # 215 KB: several chunks compared


def copy(tmp_path, data: bytes = DATA, source_bytes: bytes | None = None):
    """write_atomic of ``data`` from a source holding ``source_bytes`` (``data`` by default); the copy's path."""
    source = tmp_path / "agent-a.jsonl"
    source.write_bytes(data if source_bytes is None else source_bytes)
    dest = tmp_path / "run/cases/c/t1/new/transcript.jsonl"
    files.write_atomic(dest, data, durable=False, source=source)
    return dest


def left(dest) -> list[str]:
    return sorted(p.name for p in dest.parent.iterdir())


@pytest.fixture
def kernel(monkeypatch):
    """os.copy_file_range, counted (the bytes it copied)."""
    real = getattr(os, "copy_file_range", None)
    if real is None:
        pytest.skip("no os.copy_file_range on this system (the copy is written instead: test below)")
    copied = []

    def counted(src, dst, count, *args):
        n = real(src, dst, count, *args)
        copied.append(n)
        return n
    monkeypatch.setattr(os, "copy_file_range", counted)
    return copied


def test_the_kernel_copies_a_transcript_that_still_holds_what_was_read(tmp_path, kernel):
    dest = copy(tmp_path)
    assert dest.read_bytes() == DATA and sum(kernel) == len(DATA)
    assert left(dest) == ["transcript.jsonl"]  # no temp file
    assert stat.S_IMODE(dest.stat().st_mode) == 0o666 & ~files._umask()  # as a plain create gives


@pytest.mark.parametrize("now", [
    DATA[:-2] + b"X\n",                      # rewritten in place since it was read: same length, other bytes
    DATA + b'{"type":"assistant"}\n',        # still being written: longer now
    DATA[:1000],                             # cut short since
    b"",                                     # emptied
], ids=["rewritten", "longer", "shorter", "empty"])
def test_the_copy_holds_what_was_read_whatever_the_source_holds_now(tmp_path, kernel, now):
    dest = copy(tmp_path, source_bytes=now)
    assert dest.read_bytes() == DATA and left(dest) == ["transcript.jsonl"]


def test_a_source_gone_or_swapped_for_a_pipe_is_not_read_and_the_bytes_are_written(tmp_path, kernel):
    source = tmp_path / "agent-a.jsonl"
    dest = tmp_path / "out/transcript.jsonl"
    files.write_atomic(dest, DATA, durable=False, source=source)  # never there
    assert dest.read_bytes() == DATA
    os.mkfifo(source)  # a named pipe: opened non-blocking and refused, never waited on
    files.write_atomic(dest, DATA + b"more\n", durable=False, source=source)
    assert dest.read_bytes() == DATA + b"more\n" and kernel == []


@pytest.mark.parametrize("failure", ["missing", "cross-device", "wrong-bytes"])
def test_where_the_kernel_cannot_copy_the_bytes_are_written(tmp_path, monkeypatch, failure):
    if failure == "missing":
        monkeypatch.delattr(os, "copy_file_range", raising=False)  # macOS, Windows, an old Python
    elif failure == "cross-device":
        def refuse(*args):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        monkeypatch.setattr(os, "copy_file_range", refuse, raising=False)
    else:
        def garble(src, dst, count, *args):  # a file system whose copy went wrong: caught by the comparison
            return os.write(dst, b"?" * count)
        monkeypatch.setattr(os, "copy_file_range", garble, raising=False)
    dest = copy(tmp_path)
    assert dest.read_bytes() == DATA and left(dest) == ["transcript.jsonl"]


def test_an_empty_transcript_is_copied_empty(tmp_path):
    dest = copy(tmp_path, data=b"")
    assert dest.read_bytes() == b"" and left(dest) == ["transcript.jsonl"]


def test_starting_a_files_writeback_is_a_hint_that_never_fails(tmp_path):
    # start_writeback hands the path to a thread of its own and returns at once: a file gone before that thread
    # opens it, or a folder, is passed over, and the thread goes on for the next (the flush before plan.json is
    # what puts the run on disk).
    from benchcore.harness.store.files import flush_to_disk, start_writeback

    kept = tmp_path / "kept.jsonl"
    kept.write_bytes(b"x" * 100_000)
    for path in (tmp_path / "gone.jsonl", tmp_path, kept):
        assert start_writeback(path) is None
    flush_to_disk(tmp_path)
    assert kept.read_bytes() == b"x" * 100_000


@pytest.mark.parametrize("before", [None, "", "ab", "abc", "abcd", "abX", "é"])
def test_a_text_in_parts_is_written_only_when_the_file_holds_other_bytes(tmp_path, before):
    # Issue 40: collect writes environment.json part by part, compared with the file as it goes (neither held
    # whole); a collect that finds the same text leaves the file as it was, its time too.
    path = tmp_path / "environment.json"
    if before is not None:
        path.write_text(before, encoding="utf-8")
        os.utime(path, ns=(1, 1))
    wrote = files.write_parts_if_changed(path, iter(["a", "", "b", "c"]))
    assert path.read_text(encoding="utf-8") == "abc"
    assert wrote is (before != "abc")
    assert (path.stat().st_mtime_ns == 1) is (before == "abc")
    assert [p.name for p in tmp_path.iterdir()] == ["environment.json"]  # no staged file left behind
