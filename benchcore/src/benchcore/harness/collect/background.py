"""Work stage 1 hands to a second thread: each transcript's copy written and its first-read hash computed while
the main thread parses the next transcript.

A file write and SHA-256 of a large buffer both release the interpreter's lock, so on two cores they cost no
wall time beside the parsing (the copies alone cost as much CPU as the reading on a disk whose writes are dear).
Nothing is left behind: :meth:`Background.wait` returns once every task is done and raises the first task's
error, and stage 1 calls it before any later stage reads a copy (and on its way out when it fails).
"""

from __future__ import annotations

from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

PENDING_BYTES = 16 << 20  # transcript bytes held for the thread at most (a few transcripts): past this, the main thread waits


class Background:
    """One worker thread, started at the first task; tasks run in the order given."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._pending: deque[list] = deque()  # [task, bytes counted for it, its buffer's id], oldest first
        # A buffer's id -> the task counting its bytes: found by a dict, not by a walk of every task still
        # pending, which at 3,000 cells cost 3.7 s of a first collect's CPU (6,000 walks of thousands of tasks).
        self._counting: dict[int, list] = {}
        self._held = 0

    def submit(self, size: int, fn: Callable, *args, holds: object = None) -> Future:
        """Run ``fn(*args)`` in the thread; ``size``: the bytes it holds until done (bounds what waits);
        ``holds``: the buffer those bytes are, when known. Several tasks on one buffer (a transcript hashed,
        then copied) count it once: on the last of them, which ends last (tasks run in order)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="benchcore-collect")
        key = id(holds) if holds is not None else None
        if key is not None and (before := self._counting.pop(key, None)) is not None:
            self._held -= before[1]
            before[1] = 0
        while self._pending and self._held + size > PENDING_BYTES:
            entry = self._pending.popleft()
            done, held, other = entry
            self._held -= held
            if self._counting.get(other) is entry:  # let go: a later task on its buffer counts the bytes afresh
                del self._counting[other]
            done.result()
        future = self._pool.submit(fn, *args)
        entry = [future, size, key]
        self._pending.append(entry)
        if key is not None:
            self._counting[key] = entry
        self._held += size
        return future

    def wait(self) -> None:
        """Every task done; the first error raised (after the rest have finished)."""
        first: BaseException | None = None
        for future, _, _ in self._pending:
            try:
                future.result()
            except BaseException as err:  # noqa: BLE001 - re-raised below, once every write has ended
                first = first or err
        self._pending.clear()
        self._counting.clear()
        self._held = 0
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        if first is not None:
            raise first
