"""Transcripts on disk -> usage (the I/O side of :mod:`benchcore.usage`).

A transcript is opened in binary and streamed line by line into the pure
reducer, so memory does not grow with the file. The price table ships as
package data and is read here, then handed to the pure core as data.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path

from .. import pricing, usage
from ..errors import BenchError
from ..model import ArmUsage

PRICES_RESOURCE = "data/prices.json"

# Read buffer: large enough that a 1 MB tool-result line is read in a few calls.
_BUFFER = 1 << 20


@lru_cache(maxsize=1)
def price_table() -> pricing.PriceTable:
    """The committed price table (``benchcore/data/prices.json``)."""
    ref = resources.files("benchcore").joinpath(PRICES_RESOURCE)
    source = f"benchcore/{PRICES_RESOURCE}"
    try:
        data = json.loads(ref.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BenchError(source, f"cannot be read: {exc}", fix="reinstall benchcore") from None
    return pricing.parse_prices(data, source=source)


def read_transcript(path: Path | str) -> usage.TranscriptUsage:
    """Stream one transcript file into the reducer; a missing or unreadable file is a BenchError."""
    path = Path(path)
    try:
        with open(path, "rb", buffering=_BUFFER) as fh:
            return usage.read_usage(fh)
    except FileNotFoundError:
        raise BenchError(str(path), "transcript not found",
                         fix="check the path; a cell's transcript is cases/<case>/t<N>/<arm>/transcript.jsonl") from None
    except IsADirectoryError:
        raise BenchError(str(path), "is a directory, not a transcript file",
                         fix="name the .jsonl transcript file inside it") from None
    except OSError as exc:
        raise BenchError(str(path), f"cannot be read: {exc.strerror or exc}",
                         fix="check the file's permissions") from None


def transcript_usage(path: Path | str, prices: pricing.PriceTable | None = None) -> tuple[ArmUsage, int]:
    """One transcript's usage (turns, components, cost-equivalent tokens, dollars) and its skipped-line count."""
    tu = read_transcript(path)
    return usage.arm_usage(tu, prices if prices is not None else price_table()), tu.skipped_lines
