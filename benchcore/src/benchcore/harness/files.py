"""Small file helpers shared by every command. Writes are atomic: temp file + rename."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Mapping

from ..errors import BenchError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _stage(path: Path, text: str) -> str:
    """Write ``text`` to a temp file beside ``path`` (mode as a plain create would give) and return its name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp creates 0600; a report or run file is an ordinary file, readable as the umask allows.
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _unlink(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass


def write_atomic(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` so a reader sees the old file or the new one, never half."""
    path = Path(path)
    tmp = _stage(path, text)
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise


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
def locked_folder(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``folder`` (created when missing) so that read-modify-write
    steps on its files (a history append, the index of every skill) do not interleave.

    The lock is taken on the folder itself, so no lock file is left behind; where
    ``fcntl`` does not exist (Windows) there is no lock.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchError(str(folder), f"cannot be created: {exc.strerror or exc}",
                         fix="choose a writable folder with --reports") from None
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:  # a file system without locks (some network mounts): go on unlocked
            pass
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


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
