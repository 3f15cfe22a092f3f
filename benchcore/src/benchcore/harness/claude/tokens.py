"""Transcripts on disk -> usage (the I/O side of :mod:`benchcore.usage`).

A transcript is opened in binary and streamed a block at a time into the pure
reader (:mod:`benchcore.usage.scan`), so memory does not grow with the file. The price table ships as
package data and is read here, then handed to the pure core as data.
"""

from __future__ import annotations

import os

from ...usage import scan as usage_scan
from ...errors import BenchError
from ...usage.lines import LineReducer, loads_text
from ..store.regular import not_regular, open_regular_fd

TYPE_CHECKING = False
if TYPE_CHECKING:  # imported where used: `benchcore usage` reads through LineReducer and never imports attrs
    from pathlib import Path

    from ... import pricing, usage
    from ...armusage import ArmUsage

PRICES_RESOURCE = "data/prices.json"
PRICES_SOURCE = f"benchcore/{PRICES_RESOURCE}"
_PRICES: dict = {}  # read once per process: "table" (checked), "data" (its JSON)


def price_table() -> "pricing.PriceTable":
    """The committed price table (``benchcore/data/prices.json``)."""
    if "table" not in _PRICES:
        from ... import pricing

        _PRICES["table"] = pricing.parse_prices(price_data(), source=PRICES_SOURCE)
    return _PRICES["table"]


def price_data() -> dict:
    """The committed price table as read from its JSON, not yet checked (:func:`price_table` checks it);
    not to be changed (it is read once per process)."""
    if "data" in _PRICES:
        return _PRICES["data"]
    # The package's own folder when it is one (every pip and Nix install); importlib.resources otherwise
    # (a zip), which costs `benchcore usage` about 10 ms of imports. No pathlib: `benchcore usage` is short.
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))),
                        *PRICES_RESOURCE.split("/"))  # benchcore/harness/claude/tokens.py -> benchcore/data/
    try:
        if os.path.isfile(here):
            with open(here, "rb") as fh:
                data = loads_text(fh.read().decode("utf-8"))
        else:
            from importlib import resources
            data = loads_text(resources.files("benchcore").joinpath(PRICES_RESOURCE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BenchError(PRICES_SOURCE, f"cannot be read: {exc}", fix="reinstall benchcore") from None
    _PRICES["data"] = data
    return data


USAGE_FIX = "name a transcript Claude Code wrote: a regular .jsonl file (under ~/.claude/projects)"


def read_transcript(path: "Path | str", follow: bool = True) -> "usage.TranscriptUsage":
    """One transcript file's usage (:func:`read_into` a :class:`benchcore.usage.Reducer`)."""
    from ... import usage

    reducer = usage.Reducer()
    read_into(path, reducer, follow)
    return reducer.finish()


def read_into(path: "Path | str", reducer: LineReducer, follow: bool = True) -> None:
    """Stream one transcript file into ``reducer``; a missing or unreadable file, or anything but a regular
    file (a named pipe would wait forever; found by stat, never opened), is a BenchError naming it.
    ``follow``: a symbolic link to a regular file is read (a file the user named); else it is refused."""
    if not_regular(path, follow) == "a folder":
        raise BenchError(_named(path), "is a directory, not a transcript file",
                         fix="name the .jsonl transcript file inside it")
    try:
        fd = open_regular_fd(path, follow, fix=USAGE_FIX)
        try:  # os.read, not a buffered reader's read: that cost ~15 ms more over 300 MB
            usage_scan.feed(reducer, iter(lambda: os.read(fd, usage_scan.BLOCK), b""))
        finally:
            os.close(fd)
    except FileNotFoundError:
        raise BenchError(_named(path), "transcript not found",
                         fix="check the path; a cell's transcript is cases/<case>/t<N>/<arm>/transcript.jsonl") from None
    except OSError as exc:
        raise BenchError(_named(path), f"cannot be read: {exc.strerror or exc}",
                         fix="check the file's permissions") from None


def _named(path: "Path | str") -> str:
    """A path as messages name it (as pathlib spells it), imported only for a message."""
    from pathlib import Path

    return str(Path(path))


def transcript_usage(path: "Path | str", prices: "pricing.PriceTable | None" = None,
                     follow: bool = True) -> "tuple[ArmUsage, int]":
    """One transcript's usage (turns, components, cost-equivalent tokens, dollars) and its skipped-line count."""
    from ... import usage

    tu = read_transcript(path, follow)
    return usage.arm_usage(tu, prices if prices is not None else price_table()), tu.skipped_lines
