"""Small file helpers shared by every command. Writes are atomic: temp file + rename."""

from __future__ import annotations

import json
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, Optional

from ...errors import BenchError
from .regular import NOT_REGULAR_FIX, not_regular, open_regular  # noqa: F401 - the file helpers' one home


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0) | \
    getattr(os, "O_BINARY", 0)


def _create_beside(path: Path) -> tuple[int, str]:
    """A new temp file ``.<name>.<random>.tmp`` beside ``path``, open for writing, its mode what a plain create
    gives (0666 less the umask, applied by the kernel: reading the umask means setting it, which another
    thread creating a file at that moment would see, and it could leave the process's umask at 0)."""
    for _ in range(100):
        tmp = os.path.join(path.parent, f".{path.name}.{os.urandom(5).hex()}.tmp")
        try:
            return os.open(tmp, _CREATE, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temp name beside {path}")


_BLOCK = 4096  # what O_DIRECT aligns: the buffer, the file offset and the length (4 KiB serves 512-byte devices too)
_UNCACHED_CHUNK = 4 << 20  # bytes staged in the aligned buffer per write
# Smaller files go through the page cache: each O_DIRECT write costs the file system more than the pages it spares
# (3,000 copies of 120 KB took 0.67-1.49 s of CPU past the cache against 0.31-0.68 s through it; from 2 MB on, past
# it was 4-10x cheaper: 200 MB in 0.04-0.13 s against 0.50-0.63 s; at 0.5-1 MB the two were alike).
UNCACHED_FROM = 1 << 20
_UNCACHED: list = []  # the one page-aligned buffer of uncached writes (made once: its pages are touched once)
_UNCACHED_LOCK = threading.Lock()


def _write_uncached(fd: int, data: bytes) -> int:
    """Write the whole 4 KiB blocks at the start of ``data`` to ``fd`` (at its offset 0) past the page cache
    (Linux ``O_DIRECT``, through one reused page-aligned buffer), and return how many bytes it wrote: the rest
    is the caller's to write as usual. 0 for data under UNCACHED_FROM, and where the platform or the file system
    refuses it (macOS, some FUSE file systems); fewer when a write is refused part way. ``fd`` is left as it was
    opened, at that offset.

    Why: a transcript's copy is written once and read again rarely, and each new page of the page cache costs the
    kernel a first touch of memory; on a virtual machine that gives memory back to its host, writing 392 MB of
    copies into the page cache took 0.84 s of CPU, and past it 0.18 s (``collect_scale.py --passes``). Collect
    waits for its copies to reach the disk anyway (:func:`flush_to_disk`), so this does not add that wait."""
    direct = getattr(os, "O_DIRECT", 0)
    whole = len(data) - len(data) % _BLOCK
    if not direct or len(data) < UNCACHED_FROM:
        return 0
    import fcntl

    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    try:
        fcntl.fcntl(fd, fcntl.F_SETFL, flags | direct)
    except OSError:
        return 0
    done = 0
    try:
        with _UNCACHED_LOCK:
            if not _UNCACHED:
                import mmap

                _UNCACHED.append(mmap.mmap(-1, _UNCACHED_CHUNK))  # anonymous: aligned to a page
            buf = _UNCACHED[0]
            source = memoryview(data)
            while done < whole:
                n = min(_UNCACHED_CHUNK, whole - done)
                buf[:n] = source[done:done + n]
                with memoryview(buf)[:n] as view:
                    wrote = os.write(fd, view)
                done += wrote
                if wrote != n:  # a short write: the rest as usual, from a whole block
                    break
    except OSError:  # refused (EINVAL: this file system's alignment, or no O_DIRECT after all): the rest as usual
        pass
    finally:
        fcntl.fcntl(fd, fcntl.F_SETFL, flags)
    if done % _BLOCK:  # never seen: a write that stopped inside a block; that block again, as usual
        done -= done % _BLOCK
    os.lseek(fd, done, os.SEEK_SET)
    return done


def _stage(path: Path, text: str | bytes | Iterable[str], durable: bool = True, uncached: bool = False) -> str:
    """Write ``text`` (or bytes, as they are) to a temp file beside ``path`` (mode as a plain create would
    give) and return its name; ``durable``: on disk (fsync) before it is renamed into place; ``uncached``
    (bytes): past the page cache where the system allows it (:func:`_write_uncached`)."""
    if not path.parent.is_dir():  # a stat; a mkdir of a folder that exists costs more (thousands a collect)
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _create_beside(path)  # an ordinary file, readable as the umask allows
    try:
        if isinstance(text, bytes):
            # Unbuffered, straight from ``text``: one copy, into the page cache (a transcript's copy is
            # written from the bytes collect parsed, so it holds exactly them).
            with os.fdopen(fd, "wb", buffering=0) as raw:
                view = memoryview(text)
                if uncached:
                    view = view[_write_uncached(fd, text):]
                while view:  # a write may take part of it
                    view = view[raw.write(view):]
                if durable:
                    os.fsync(raw.fileno())
            return tmp
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            if isinstance(text, str):
                fh.write(text)
            else:  # text in parts (serde.dumps_parts): written as they come, never held whole
                for part in text:
                    fh.write(part)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


_COMPARED = 1 << 20  # bytes of a file read and compared at a time


def holds(fd: int, data: bytes) -> bool:
    """Whether the file open as ``fd`` holds exactly ``data``: read a chunk at a time (never whole), each
    compared with memcmp (bytes, not a memoryview: 100x faster), and one byte past the end to see a longer
    file."""
    for at in range(0, len(data), _COMPARED):
        if os.pread(fd, _COMPARED, at) != data[at:at + _COMPARED]:
            return False
    return os.pread(fd, 1, len(data)) == b""


def _unlink(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass


def write_atomic(path: Path | str, text: str | bytes | Iterable[str], durable: bool = True,
                 uncached: bool = False) -> None:
    """Write ``text`` (UTF-8; or its parts, in order), or bytes exactly as given, to ``path`` so a reader sees the
    old file or the new one, never half, even if the process is killed. ``durable`` (the default) also has it on
    disk before it replaces the old one, so a power cut cannot leave it empty; a file that can be made again
    from what it was copied or derived from (a transcript's copy, an output) is written with ``durable=False``
    and put on disk by one :func:`flush_to_disk` for the whole collect. ``uncached``: bytes written past the page
    cache where the system allows it (a transcript's copy: :func:`_write_uncached`)."""
    path = Path(path)
    tmp = _stage(path, text, durable, uncached)
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise


def write_parts_if_changed(path: Path | str, parts: Iterable[str], durable: bool = True) -> bool:
    """:func:`write_atomic` of a text given in parts, unless ``path`` holds that text already (then the file is
    left as it was: its time too); whether it was written. Each part is compared with the file's bytes as it
    is staged, so neither the new text nor the old file is ever held whole."""
    path = Path(path)
    try:
        old = open(path, "rb")
    except OSError:
        old = None
    same = old is not None

    def compared() -> Iterator[str]:
        nonlocal same
        for part in parts:
            if same:
                data = part.encode("utf-8")
                same = old.read(len(data)) == data
            yield part

    try:
        tmp = _stage(path, compared(), durable)
        if same and old.read(1) == b"":
            _unlink(tmp)
            return False
    finally:
        if old is not None:
            old.close()
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise
    return True


_WRITEBACK: list = []  # [the queue of the thread that starts each file's writeback], once one is asked for


def start_writeback(path: Path | str) -> None:
    """Have the kernel start writing ``path``'s data to disk now, in a thread of its own, without waiting for it
    (Linux ``sync_file_range``; elsewhere nothing): collect's copies go to disk while it parses the next
    transcripts, so :func:`flush_to_disk` before plan.json finds little left (on this machine's disk it had
    waited 0.2 s for 391 MB of copies, and a flush begun earlier only moved the wait). A hint, not a promise:
    what is on disk before plan.json is :func:`flush_to_disk`'s."""
    if not _WRITEBACK:
        try:
            import ctypes

            call = ctypes.CDLL(None, use_errno=True).sync_file_range
            call.argtypes = (ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint)
        except (OSError, AttributeError):  # not Linux: the flush does it all
            _WRITEBACK.append(None)
            return
        import queue
        import threading

        paths: queue.SimpleQueue = queue.SimpleQueue()

        def run() -> None:
            while True:
                name = paths.get()
                try:
                    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
                except OSError:  # gone or replaced since: nothing to start
                    continue
                try:
                    call(fd, 0, 0, 2)  # SYNC_FILE_RANGE_WRITE: start writing the dirty pages, do not wait
                finally:
                    os.close(fd)

        threading.Thread(target=run, daemon=True, name="benchcore-writeback").start()
        _WRITEBACK.append(paths)
    if _WRITEBACK[0] is not None:
        _WRITEBACK[0].put(str(path))


def flush_to_disk(folder: Path | str) -> None:
    """Put on disk everything written to the file system that holds ``folder`` (one ``syncfs``; ``sync``
    where there is none): one flush for every file a collect wrote without its own fsync."""
    try:
        import ctypes
        import ctypes.util

        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        fd = os.open(folder, os.O_RDONLY)
        try:
            if libc.syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    except (OSError, AttributeError):
        pass
    os.sync()


def write_all_atomic(files: Mapping[Path, str]) -> None:
    """Write several files as one step: every file is staged first, then all are renamed into place.

    When any file cannot be staged (the folder is a file, is not writable, the
    disk is full) nothing is replaced, no temp file is left, and a BenchError
    names the path and the fix.
    """
    for path in files:
        if Path(path).is_dir():
            raise BenchError(str(path), "is a folder where a file is to be written",
                             fix="remove or rename that folder")
    staged: list[tuple[str, Path]] = []
    try:
        for path, text in files.items():
            path = Path(path)
            try:
                staged.append((_stage(path, text), path))
            except OSError as exc:
                raise BenchError(str(path), f"cannot be written: {exc.strerror or exc}",
                                 fix=f"make {path.parent} a writable folder, or choose another with --reports") from None
        for tmp, path in staged:
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise BenchError(str(path), f"cannot be replaced: {exc.strerror or exc}",
                                 fix=f"check that {path} is not a folder and that {path.parent} is writable") from None
    finally:
        for tmp, _ in staged:
            if os.path.exists(tmp):
                _unlink(tmp)


def remove_stale_staged(paths) -> None:
    """Remove the staged ``.<name>.*.tmp`` files a killed write left beside ``paths`` (call under the folder's lock)."""
    for path in paths:
        path = Path(path)
        if not path.parent.is_dir():
            continue
        for tmp in path.parent.glob(f".{path.name}.*.tmp"):
            if tmp.is_file() and not tmp.is_symlink():
                _unlink(str(tmp))


@contextmanager
def _flock_folder(folder: Path, wait: Optional[float] = None,
                  busy: Optional[Callable[[], BenchError]] = None) -> Iterator[None]:
    """Hold ``fcntl.flock`` on ``folder`` itself (no lock file; the kernel drops it when its holder ends,
    however it ends). ``wait`` None blocks until it is free; else after ``wait`` seconds ``busy()`` is raised.
    Where ``fcntl`` does not exist (Windows), or the file system has no locks (some network mounts), it goes
    on unlocked."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        deadline = None if wait is None else time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if deadline is None else fcntl.LOCK_NB))
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise busy() from None
                time.sleep(0.2)
            except OSError:
                break
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


@contextmanager
def locked_folder(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``folder`` (created when missing) so that read-modify-write
    steps on its files (a history append, the index of every skill) do not interleave."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchError(str(folder), f"cannot be created: {exc.strerror or exc}",
                         fix="choose a writable folder with --reports") from None
    with _flock_folder(folder):
        yield


def read_regular_bytes(path: Path | str, follow: bool = False) -> bytes:
    """The bytes of a regular file (see :func:`open_regular`)."""
    with open_regular(path, follow) as fh:
        return fh.read()


RUN_LOCK = ".collect.lock"
RUN_LOCK_WAIT = 10.0  # seconds a second collect waits for the first before it gives up


@contextmanager
def locked_run(run_dir: Path, wait: Optional[float] = None) -> Iterator[None]:
    """Hold the run folder's collect lock: one collect at a time plans, copies and re-plans a run (three at
    once each re-planned the same cells).

    The lock is the folder's flock (:func:`_flock_folder`): a killed collect leaves no lock to take over, and
    no pid can be mistaken for a live one. While it is held, ``<run>/.collect.lock`` names the holder's pid
    for the message a second collect prints; the holder removes it when done (one a killed collect left is
    overwritten). A live holder makes this wait up to ``wait`` seconds (RUN_LOCK_WAIT, read when called), then it
    is a BenchError naming the run folder."""
    wait = RUN_LOCK_WAIT if wait is None else wait
    run_dir = Path(run_dir)
    pid_file = run_dir / RUN_LOCK

    def busy() -> BenchError:
        holder = _holder(pid_file)
        return BenchError(str(run_dir), f"another benchcore collect is running on {run_dir}"
                          + (f" (pid {holder})" if holder else ""),
                          fix="wait for it to finish, then run 'benchcore collect' again if you still need to")

    with _flock_folder(run_dir, wait, busy):
        mine = f"{os.getpid()}\n"
        try:
            write_atomic(pid_file, mine)
        except OSError:
            pass  # only the message's pid is lost
        try:
            yield
        finally:
            try:
                if pid_file.read_text(encoding="utf-8") == mine:
                    pid_file.unlink()
            except (OSError, UnicodeDecodeError):
                pass


def _holder(pid_file: Path) -> str:
    """The pid a lock holder wrote (digits only), or ""."""
    try:
        text = pid_file.read_text(encoding="ascii").strip() if not_regular(pid_file) is None else ""
    except (OSError, UnicodeDecodeError):
        return ""
    return text if text.isdigit() else ""


def read_text(path: Path | str) -> str:
    """A UTF-8 text file; one that cannot be read or decoded is a BenchError naming it."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise BenchError(str(path), f"is not UTF-8 text (byte {exc.start}: {exc.reason})",
                         fix="save it as UTF-8 text, or re-create it with the command that wrote it") from None
    except IsADirectoryError:
        raise BenchError(str(path), "is a folder where a file was expected",
                         fix="remove or rename the folder") from None
    except OSError as exc:
        raise BenchError(str(path), f"cannot be read: {exc.strerror or exc}",
                         fix="check that the file exists and is readable") from None


def shown_path(p: Path | str) -> str:
    """A path as printed: relative to the working directory when it is inside it."""
    cwd = Path.cwd()
    return os.path.relpath(p, cwd) if Path(p).is_relative_to(cwd) else str(p)


def read_json_object(f: Path) -> dict:
    """A JSON file's top-level object; {} when it is missing, unreadable, not JSON or not an object."""
    try:
        data = json.loads(f.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
