"""collect's copy of a transcript: written from the bytes collect read and parsed (never read again from the file),
so it holds exactly them, whatever happened to the file since."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from benchcore.harness.collect.background import Background
from benchcore.harness.collect.state import copy_bytes_if_changed
from benchcore.harness.store import files

# 215 KB of records, and bytes that are not UTF-8 (copied as Claude Code wrote them).
DATA = b'{"type":"user","message":{"content":"go"}}\n' * 5000 + b'{"x":"\xff\xfe"}\n'


def copy(tmp_path, data: bytes = DATA, now: bytes | None = None):
    """A transcript read as ``data``, rewritten to ``now`` on disk before collect copies it; the copy's path."""
    source = tmp_path / "agent-a.jsonl"
    source.write_bytes(data)
    read = source.read_bytes()
    if now is not None:
        source.write_bytes(now)
    dest = tmp_path / "run/cases/c/t1/new/transcript.jsonl"
    background = Background()
    assert copy_bytes_if_changed(dest, read, background) is True
    background.wait()
    return dest


def left(dest) -> list[str]:
    return sorted(p.name for p in dest.parent.iterdir())


def test_a_transcripts_copy_holds_the_bytes_read(tmp_path):
    dest = copy(tmp_path)
    assert dest.read_bytes() == DATA
    assert left(dest) == ["transcript.jsonl"]  # no temp file
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(dest.stat().st_mode) == 0o666 & ~mask  # as a plain create gives


def test_writing_a_file_never_sets_the_umask_which_other_threads_would_see(tmp_path, monkeypatch):
    # Collect writes from several threads at once (the copies, the checks' results, the main thread's files):
    # reading the umask means setting it to 0 and back, and a file another thread created in between got mode
    # 0666, or the process kept umask 0. The kernel applies it instead.
    calls = []
    monkeypatch.setattr(os, "umask", lambda *args: calls.append(args) or 0o022)
    files.write_atomic(tmp_path / "a/b.json", "{}\n")
    files.write_atomic(tmp_path / "a/c.jsonl", DATA, durable=False)
    files.write_parts_if_changed(tmp_path / "a/d.json", iter(["{", "}"]))
    assert calls == [] and sorted(p.name for p in (tmp_path / "a").iterdir()) == ["b.json", "c.jsonl", "d.json"]


@pytest.mark.parametrize("now", [
    DATA[:-2] + b"X\n",                      # rewritten in place since it was read: same length, other bytes
    DATA + b'{"type":"assistant"}\n',        # still being written: longer now
    DATA[:1000],                             # cut short since
    b"",                                     # emptied
], ids=["rewritten", "longer", "shorter", "empty"])
def test_the_copy_holds_what_was_read_whatever_the_file_holds_now(tmp_path, now):
    dest = copy(tmp_path, now=now)
    assert dest.read_bytes() == DATA and left(dest) == ["transcript.jsonl"]


def test_a_copy_that_holds_the_bytes_already_is_left_as_it_is(tmp_path):
    dest = copy(tmp_path)
    os.utime(dest, ns=(1, 1))
    background = Background()
    assert copy_bytes_if_changed(dest, DATA, background) is False
    background.wait()
    assert dest.stat().st_mtime_ns == 1
    assert copy_bytes_if_changed(dest, DATA + b"\n", background) is True  # other bytes: written again
    background.wait()
    assert dest.read_bytes() == DATA + b"\n" and left(dest) == ["transcript.jsonl"]


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


# ----------------------------------------------------------------------------- written past the page cache

# Sizes about the 4 KiB blocks O_DIRECT writes and the 4 MiB the aligned buffer holds at a time.
SIZES = [0, 1, 4095, 4096, 4097, 3 * 4096, files.UNCACHED_FROM - 1, files.UNCACHED_FROM, files.UNCACHED_FROM + 4097,
         files._UNCACHED_CHUNK - 1, files._UNCACHED_CHUNK + 4096 + 17, 2 * files._UNCACHED_CHUNK + 5]


def _payload(n: int) -> bytes:
    return (DATA * (n // len(DATA) + 1))[:n]


def _direct_allowed(folder) -> bool:
    """Whether the file system under ``folder`` takes O_DIRECT (some FUSE file systems refuse it, and tmpfs before
    Linux 6.6)."""
    if not getattr(os, "O_DIRECT", 0):
        return False
    probe = folder / "probe"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_DIRECT, 0o600))
        return True
    except OSError:
        return False
    finally:
        probe.unlink(missing_ok=True)


@pytest.mark.parametrize("n", SIZES)
def test_a_copy_written_past_the_page_cache_holds_the_bytes_as_a_plain_write_does(tmp_path, n):
    data = _payload(n)
    dest = copy(tmp_path, data)
    assert dest.read_bytes() == data and left(dest) == ["transcript.jsonl"]
    plain = tmp_path / "plain.jsonl"
    files.write_atomic(plain, data, durable=False)
    assert stat.S_IMODE(dest.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)


def _resident(path) -> int:
    """Bytes of ``path`` in the page cache (util-linux's fincore)."""
    out = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", str(path)],
                         capture_output=True, text=True, check=True).stdout
    return int(out.split()[0])


def _file_system(path) -> str:
    """The type of the file system ``path`` is on (/proc/mounts; "" where there is none)."""
    best, kind = "", ""
    try:
        mounts = open("/proc/mounts", encoding="utf-8").read().splitlines()
    except OSError:
        return ""
    where = os.path.realpath(path)
    for line in mounts:
        point, fs = line.split()[1:3]
        if (where == point or where.startswith(point.rstrip("/") + "/")) and len(point) >= len(best):
            best, kind = point, fs
    return kind


@pytest.fixture
def on_disk():
    """A temp folder on a disk-backed file system (/var/tmp: the suite's own temp folder may be RAM, /dev/shm,
    whose files are the page cache itself)."""
    if not os.access("/var/tmp", os.W_OK) or _file_system("/var/tmp") in ("tmpfs", "ramfs", ""):
        pytest.skip("no disk-backed /var/tmp")
    folder = tempfile.mkdtemp(prefix="benchcore-copies-", dir="/var/tmp")
    try:
        yield Path(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_transcripts_copy_leaves_the_page_cache_as_it_was_where_the_system_allows(on_disk):
    if shutil.which("fincore") is None or not _direct_allowed(on_disk):
        pytest.skip("needs util-linux's fincore and a file system that takes O_DIRECT")
    data = _payload(2 * files._UNCACHED_CHUNK + 100)
    dest = copy(on_disk, data)
    # A copy is written once and seldom read: only its last, partial block went through the page cache (looked at
    # before anything reads it, which would cache it), where a plain write leaves all of it there.
    assert _resident(dest) <= 4096
    plain = on_disk / "plain.jsonl"
    files.write_atomic(plain, data, durable=False)
    assert _resident(plain) >= len(data) - 4096
    assert dest.read_bytes() == data
    # A small copy goes through the page cache as any file (past it, each write costs more than it spares).
    (on_disk / "small").mkdir()
    small = copy(on_disk / "small", _payload(files.UNCACHED_FROM - 4096))
    assert _resident(small) == files.UNCACHED_FROM - 4096


def test_where_the_file_system_refuses_o_direct_the_copy_is_written_as_usual(tmp_path, monkeypatch):
    import fcntl

    real = fcntl.fcntl

    def refuse(fd, cmd, arg=0):
        if cmd == fcntl.F_SETFL and arg & getattr(os, "O_DIRECT", 0):
            raise OSError(22, "Invalid argument")
        return real(fd, cmd, arg)
    monkeypatch.setattr(fcntl, "fcntl", refuse)
    for n in (files.UNCACHED_FROM, files._UNCACHED_CHUNK + 4097):
        (tmp_path / str(n)).mkdir()
        data = _payload(n)
        assert copy(tmp_path / str(n), data).read_bytes() == data


def test_a_copy_refused_past_the_page_cache_part_way_is_finished_as_usual(tmp_path, monkeypatch):
    # The second aligned write is refused (EINVAL: an alignment this file system wants): the rest is written as
    # usual from where the first stopped, and the copy holds every byte once.
    import fcntl

    real, direct_writes = os.write, []

    def second_refused(fd, data):
        if getattr(os, "O_DIRECT", 0) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_DIRECT:
            direct_writes.append(len(data))
            if len(direct_writes) == 2:
                raise OSError(22, "Invalid argument")
        return real(fd, data)
    monkeypatch.setattr(os, "write", second_refused)
    data = _payload(3 * files._UNCACHED_CHUNK + 11)
    dest = copy(tmp_path, data)
    assert dest.read_bytes() == data
    if _direct_allowed(tmp_path):
        assert len(direct_writes) == 2
