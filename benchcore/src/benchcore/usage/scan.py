"""Transcript bytes -> usage at memory speed (pure: no I/O): the reducer of :mod:`benchcore.usage`, fed only
the lines that can carry usage.

:func:`read_usage_chunks` takes a transcript as byte chunks (any sizes) and
gives exactly what :func:`benchcore.usage.read_usage` gives for its lines.
Most of a transcript is tool results that carry no usage, so instead of
copying every line out of the file it reads a block of whole lines at a time
and looks at each line in place (its ends, the ``"type"`` near its start, whether
it holds ``"usage"``): only a line that can carry usage is copied, to be parsed.
A line that is not framed as one record (blank, cut, padded with spaces) goes
to the reducer's own checks, as before.

Memory holds one block (4 MB, or one line when a line is longer), never the file.
"""

from __future__ import annotations

from .lines import _BYTES, LineReducer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable

    from .core import TranscriptUsage

BLOCK = 4 << 20
_OPEN, _CLOSE = ord("{"), ord("}")


def read_usage_chunks(chunks: Iterable[bytes]) -> "TranscriptUsage":
    """The usage of a transcript given as byte chunks (see the module docstring)."""
    from .core import Reducer  # here: `benchcore usage` feeds a LineReducer and never imports attrs

    reducer = Reducer()
    feed(reducer, chunks)
    return reducer.finish()


def feed(reducer: LineReducer, chunks: Iterable[bytes]) -> None:
    """Feed a transcript given as byte chunks to ``reducer``, line by line (see the module docstring)."""
    n = 0  # the line number of the block's first line, as read_usage counts lines (by b"\n")
    carry = b""
    for chunk in chunks:
        data = carry + chunk if carry else chunk
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            carry = data
            continue
        n = _block(reducer, data, cut, n)
        carry = data[cut:]
    if carry:
        reducer.line(carry, n)


def _block(reducer: LineReducer, data: bytes, end: int, n: int) -> int:
    """Feed the lines of ``data[:end]`` (each ending in b"\\n") to ``reducer``; the next line's number."""
    if reducer.needles is None:
        reducer.needles = _BYTES
    start = 0
    while start < end:
        stop = data.index(b"\n", start) + 1
        if data[start] == _OPEN and data[stop - 2] == _CLOSE and stop - start > 2:
            reducer.candidate(data, n, start, stop)  # framed: looked at in place
        else:
            reducer.line(data[start:stop], n)  # blank, cut or padded: the reducer's own checks
        n += 1
        start = stop
    return n
