"""Regular files only: what a path is when it is not one, and opening one for reading without waiting.

Apart from :mod:`.files` and importing only ``os`` and ``stat``: ``benchcore usage`` reads transcripts
through it, and pathlib, typing and contextlib would cost that short process more than a tenth of its time.
"""

from __future__ import annotations

import os
import stat

from ...errors import BenchError

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a named pipe"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def not_regular(path: "os.PathLike[str] | str", follow: bool = False) -> "str | None":
    """What ``path`` is when it is not a regular file ("a named pipe", "a symbolic link", "missing", ...),
    or None when it is one. Found by lstat (stat when ``follow``), never by opening it: opening a named pipe
    waits for a writer that never comes, and a device may be endless."""
    try:
        mode = os.stat(path).st_mode if follow else os.lstat(path).st_mode
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


NOT_REGULAR_FIX = "a transcript is a regular file (Claude Code writes one per subagent); remove or rename this one"


def open_regular(path: "os.PathLike[str] | str", follow: bool = False, fix: str = NOT_REGULAR_FIX):
    """A regular file opened for binary reading; anything else is a BenchError naming it, and is never opened
    in a way that waits (a named pipe swapped in after the check is opened non-blocking and refused)."""
    fd = open_regular_fd(path, follow, fix)
    try:
        return os.fdopen(fd, "rb", buffering=1 << 20)
    except BaseException:
        os.close(fd)
        raise


def open_regular_fd(path: "os.PathLike[str] | str", follow: bool = False, fix: str = NOT_REGULAR_FIX) -> int:
    """:func:`open_regular`'s checks, and the file descriptor (the caller closes it): a reader that takes
    its bytes with os.read allocates no buffered reader (a 1 MB buffer per file)."""
    what = not_regular(path, follow)
    if what == "missing":
        raise FileNotFoundError(2, "No such file or directory", str(path))
    if what is not None:
        raise BenchError(str(path), f"is {what}, not a regular file", fix=fix)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise BenchError(str(path), "is not a regular file", fix=fix)
    except BaseException:
        os.close(fd)
        raise
    return fd
