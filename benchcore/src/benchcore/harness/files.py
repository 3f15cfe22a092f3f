"""Small file helpers shared by every command. Writes are atomic: temp file + rename."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` so a reader sees the old file or the new one, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def read_text(path: Path | str) -> str:
    return Path(path).read_text(encoding="utf-8")
