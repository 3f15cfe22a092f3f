"""What collect read first: a hash of each finished transcript it took an answer from, and a later change refused.

Claude Code does not rewrite a transcript once its agent has answered. ``transcripts-read.json`` in the run
folder keeps, per transcript path, the SHA-256 of the bytes collect first took an arm's output or a judge's
answer from, and what it was for; a later collect that finds other bytes there names the change, and the
cell's trial (or the judge's answer) is invalid. The copy kept in the run folder stays the first one.
"""

from __future__ import annotations

import hashlib
import json
import sys
from concurrent.futures import Future
from pathlib import Path
from typing import Iterator, Optional

from ... import jsontext
from ...errors import BenchError
from ..store.files import read_text, write_atomic
from .background import Background

NAME = "transcripts-read.json"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class FirstRead:
    """The run's ``transcripts-read.json``: {path: {"sha256": ..., "for": cell or packet id}}.

    Held as path -> (sha256, for) (None: the file gave no ``for``), the path text shared with the scan's (both
    ``sys.intern``): a collect holds every entry, and a dict per entry with its own copy of the path took 2.8 MB
    at 3,000 cells and 2,000 judges. An entry that holds other keys too is held as the file gave it, and written
    back so."""

    def __init__(self, run_dir: Path):
        self.path = run_dir / NAME
        self.seen: dict[str, tuple | dict] = {}
        self._pending: dict[str, Future] = {}  # path -> its hash, being worked out in the background
        self.dirty = False
        if self.path.is_file():
            try:
                data = json.loads(read_text(self.path))
            except ValueError as err:
                raise BenchError(str(self.path), f"not JSON ({err})",
                                 fix="restore it from a backup; deleting it forgets which transcripts collect "
                                     "already read") from None
            if not isinstance(data, dict) or not all(isinstance(v, dict) and isinstance(v.get("sha256"), str)
                                                     for v in data.values()):
                raise BenchError(str(self.path), 'not a map of transcript paths to {"sha256", "for"}',
                                 fix="restore it from a backup; deleting it forgets which transcripts collect "
                                     "already read")
            self.seen = {sys.intern(k): _held(v) for k, v in data.items()}

    def changed(self, path: Path, data: bytes, for_id: str, background: Optional[Background] = None,
                digest: Optional[str] = None) -> Optional[str]:
        """Why the transcript at ``path`` (now ``data``) is refused: it changed since collect first read it.
        None when it is unchanged, or read for the first time (its hash is kept then: worked out in
        ``background``'s thread when given, and in :meth:`save` at the latest). ``digest``: the bytes' SHA-256
        when the caller has it already."""
        key = str(path)
        first = self.seen.get(key)
        if first is None:
            key = sys.intern(key)
            if background is not None:
                self._pending[key] = background.submit(len(data), _digest, data, holds=data)
                self.seen[key] = ("", for_id)
            else:
                self.seen[key] = (_digest(data), for_id)
            self.dirty = True
            return None
        self._settle()  # fills in ``first`` too, if its hash was still being worked out
        then = _sha(self.seen[key])
        now = digest or _digest(data)
        if then == now:
            return None
        return (f"its transcript changed after collect first read it, and Claude Code does not rewrite a "
                f"finished agent's transcript: {path} (sha256 {then[:12]} then, {now[:12]} now)")

    def digest_of(self, path: Path) -> str:
        """The SHA-256 of the bytes collect first read at ``path`` ("" when it never read it)."""
        self._settle()
        first = self.seen.get(str(path))
        return "" if first is None else _sha(first)

    def digest_if_known(self, path: Path) -> Optional[str]:
        """:meth:`digest_of`, or None while the background thread is still working it out (no wait)."""
        key = str(path)
        future = self._pending.get(key)
        if future is not None:
            if not future.done():
                return None
            self._fill(key, future.result())
            del self._pending[key]
        first = self.seen.get(key)
        return "" if first is None else _sha(first)

    def took(self, path: Path, for_id: str) -> bool:
        """Whether collect already took ``for_id``'s answer from the transcript at ``path``."""
        first = self.seen.get(str(path))
        return first is not None and _for(first) == for_id

    def _fill(self, key: str, sha: str) -> None:
        first = self.seen[key]
        if type(first) is tuple:
            self.seen[key] = (sha, first[1])
        else:
            first["sha256"] = sha

    def _settle(self) -> None:
        """The hashes the background thread worked out, in place."""
        for key, future in self._pending.items():
            self._fill(key, future.result())
        self._pending.clear()

    def save(self) -> None:
        self._settle()
        if self.dirty:
            write_atomic(self.path, _text(self.seen))
            self.dirty = False


def _text(seen: dict) -> Iterator[str]:
    """``json.dumps(file, indent=1, sort_keys=True, ensure_ascii=True)`` and a line break, in parts, an entry at a
    time (jsontext: no garbage left for the cycle collector): neither the text nor the file's data is held whole,
    for thousands of entries."""
    if not seen:
        yield "{}\n"
        return
    head = "{\n "
    for path in sorted(seen):
        yield head + jsontext.dumps(path, ascii=True) + ": " + \
            jsontext.dumps(dict(sorted(_entry(seen[path]).items())), 1, level=1, ascii=True)
        head = ",\n "
    yield "\n}\n"


def _held(entry: dict) -> tuple | dict:
    """An entry of the file as held: (sha256, for), or the entry itself when it holds more than those."""
    if entry.keys() <= {"sha256", "for"}:
        return entry["sha256"], entry.get("for")
    return entry


def _entry(held: tuple | dict) -> dict:
    """A held entry as the file holds it."""
    if type(held) is not tuple:
        return held
    return {"sha256": held[0]} if held[1] is None else {"sha256": held[0], "for": held[1]}


def _sha(held: tuple | dict) -> str:
    return held[0] if type(held) is tuple else held["sha256"]


def _for(held: tuple | dict):
    return held[1] if type(held) is tuple else held.get("for")
