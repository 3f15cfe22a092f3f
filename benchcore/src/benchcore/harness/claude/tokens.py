"""Transcripts on disk -> usage (the I/O side of :mod:`benchcore.usage`).

A transcript is opened in binary and streamed a block at a time into the pure
reader (:mod:`benchcore.usage_scan`), so memory does not grow with the file. The price table ships as
package data and is read here, then handed to the pure core as data.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ... import usage_scan
from ...errors import BenchError
from ...usage_lines import LineReducer
from ..store.files import not_regular, open_regular

if TYPE_CHECKING:  # imported where used: `benchcore usage` reads through LineReducer and never imports attrs
    from ... import pricing, usage
    from ...armusage import ArmUsage

PRICES_RESOURCE = "data/prices.json"
PRICES_SOURCE = f"benchcore/{PRICES_RESOURCE}"


@lru_cache(maxsize=1)
def price_table() -> "pricing.PriceTable":
    """The committed price table (``benchcore/data/prices.json``)."""
    from ... import pricing

    return pricing.parse_prices(price_data(), source=PRICES_SOURCE)


@lru_cache(maxsize=1)
def price_data() -> dict:
    """The committed price table as read from its JSON, not yet checked (:func:`price_table` checks it)."""
    source = PRICES_SOURCE
    # The package's own folder when it is one (every pip and Nix install); importlib.resources otherwise
    # (a zip), which costs `benchcore usage` about 10 ms of imports.
    here = Path(__file__).resolve().parents[2] / PRICES_RESOURCE  # benchcore/harness/claude/tokens.py
    try:
        if here.is_file():
            data = json.loads(here.read_text(encoding="utf-8"))
        else:
            from importlib import resources
            data = json.loads(resources.files("benchcore").joinpath(PRICES_RESOURCE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BenchError(source, f"cannot be read: {exc}", fix="reinstall benchcore") from None
    return data


USAGE_FIX = "name a transcript Claude Code wrote: a regular .jsonl file (under ~/.claude/projects)"


def read_transcript(path: Path | str, follow: bool = True) -> "usage.TranscriptUsage":
    """One transcript file's usage (:func:`read_into` a :class:`benchcore.usage.Reducer`)."""
    from ... import usage

    reducer = usage.Reducer()
    read_into(path, reducer, follow)
    return reducer.finish()


def read_into(path: Path | str, reducer: LineReducer, follow: bool = True) -> None:
    """Stream one transcript file into ``reducer``; a missing or unreadable file, or anything but a regular
    file (a named pipe would wait forever; found by stat, never opened), is a BenchError naming it.
    ``follow``: a symbolic link to a regular file is read (a file the user named); else it is refused."""
    path = Path(path)
    if not_regular(path, follow) == "a folder":
        raise BenchError(str(path), "is a directory, not a transcript file",
                         fix="name the .jsonl transcript file inside it")
    try:
        with open_regular(path, follow, fix=USAGE_FIX) as fh:
            usage_scan.feed(reducer, iter(lambda: fh.read(usage_scan.BLOCK), b""))
    except FileNotFoundError:
        raise BenchError(str(path), "transcript not found",
                         fix="check the path; a cell's transcript is cases/<case>/t<N>/<arm>/transcript.jsonl") from None
    except OSError as exc:
        raise BenchError(str(path), f"cannot be read: {exc.strerror or exc}",
                         fix="check the file's permissions") from None


def transcript_usage(path: Path | str, prices: "pricing.PriceTable | None" = None,
                     follow: bool = True) -> "tuple[ArmUsage, int]":
    """One transcript's usage (turns, components, cost-equivalent tokens, dollars) and its skipped-line count."""
    from ... import usage

    tu = read_transcript(path, follow)
    return usage.arm_usage(tu, prices if prices is not None else price_table()), tu.skipped_lines
