"""Prices data -> cost-equivalent tokens and imputed dollars (pure: no I/O).

The price table is data (``benchcore/data/prices.json``), read by the shell
(:func:`benchcore.harness.transcript_io.price_table`) and handed to
:func:`parse_prices`. Functions here take any object with the five component
attributes ``input``, ``output``, ``cache_write_5m``, ``cache_write_1h`` and
``cache_read`` (an :class:`benchcore.usage.Components` or a
:class:`benchcore.model.ArmUsage`).
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Optional

from attrs import frozen

from .errors import BenchError

# CONTRACT section 4: cost-equivalent tokens = 1 x input + 5 x output
# + 1.25 x write-5m + 2 x write-1h + 0.1 x read. Written over a common
# denominator of 20 so the sum is exact integer arithmetic followed by one
# correctly rounded division (0.1 x 3 would otherwise print 0.30000000000000004).
_CEQ_TWENTIETHS = {"input": 20, "output": 100, "cache_write_5m": 25, "cache_write_1h": 40, "cache_read": 2}

COMPONENTS = ("input", "output", "cache_write_5m", "cache_write_1h", "cache_read")

_DATE_SUFFIX = re.compile(r"-\d{8}$")


@frozen
class PriceEntry:
    """One row of the table: a model id (exact, or a prefix) and its input price per million tokens."""

    id: str
    match: str  # "exact" | "prefix"
    input: float


@frozen
class PriceTable:
    """The parsed price table. ``relative`` maps each component to its multiple of the input price."""

    entries: tuple[PriceEntry, ...]
    relative: Mapping[str, float]
    source: str = ""
    as_of: str = ""


def parse_prices(data: Any, *, source: str = "prices.json") -> PriceTable:
    """Plain JSON data -> PriceTable, or BenchError naming what is wrong."""
    fix = "compare the file with benchcore/src/benchcore/data/prices.json and correct it"
    if not isinstance(data, dict):
        raise BenchError(source, "is not a JSON object", fix=fix)
    relative = data.get("relative")
    if not isinstance(relative, dict) or set(relative) != set(COMPONENTS):
        raise BenchError(source, f"'relative' must give a multiple for each of: {', '.join(COMPONENTS)}", fix=fix)
    for key, value in relative.items():
        if not _is_number(value) or value < 0:
            raise BenchError(source, f"'relative.{key}' must be a non-negative number", fix=fix)
    models = data.get("models")
    if not isinstance(models, list):
        raise BenchError(source, "'models' must be a list", fix=fix)
    entries = []
    seen = set()
    for i, row in enumerate(models):
        where = f"models[{i}]"
        if not isinstance(row, dict) or not isinstance(row.get("id"), str) or not row["id"]:
            raise BenchError(source, f"{where} needs a non-empty string 'id'", fix=fix)
        if row.get("match") not in ("exact", "prefix"):
            raise BenchError(source, f"{where} ({row['id']}): 'match' must be 'exact' or 'prefix'", fix=fix)
        if not _is_number(row.get("input")) or row["input"] < 0:
            raise BenchError(source, f"{where} ({row['id']}): 'input' must be a non-negative number", fix=fix)
        if row["id"] in seen:
            raise BenchError(source, f"{where}: model id {row['id']!r} is listed twice", fix=fix)
        seen.add(row["id"])
        entries.append(PriceEntry(id=row["id"], match=row["match"], input=float(row["input"])))
    return PriceTable(entries=tuple(entries), relative={k: float(v) for k, v in relative.items()},
                      source=str(data.get("source", "")), as_of=str(data.get("as_of", "")))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def input_price(table: PriceTable, model: str) -> Optional[float]:
    """USD per million input tokens for ``model``, or None when no entry matches.

    A trailing ``-YYYYMMDD`` is dropped; an exact entry matches only its id, a
    prefix entry its id and ids continuing it after ``-``; the longest match wins.
    """
    name = _DATE_SUFFIX.sub("", model)
    best: Optional[PriceEntry] = None
    for entry in table.entries:
        if name == entry.id or (entry.match == "prefix" and name.startswith(entry.id + "-")):
            if best is None or len(entry.id) > len(best.id):
                best = entry
    return None if best is None else best.input


def cost_equivalent_tokens(c: Any) -> float:
    """CONTRACT section 4: 1 x input + 5 x output + 1.25 x write-5m + 2 x write-1h + 0.1 x read."""
    return sum(getattr(c, k) * w for k, w in _CEQ_TWENTIETHS.items()) / 20


def raw_tokens(c: Any) -> int:
    """The plain sum of the five components."""
    return sum(getattr(c, k) for k in COMPONENTS)


def dollars(table: PriceTable, by_model: Mapping[str, Any]) -> tuple[Optional[float], tuple[str, ...]]:
    """Imputed USD for usage split by model, and the sorted models that have no price.

    When any model with usage has no price the total is None (never 0).
    Rounded to micro-dollars so sums are stable.
    """
    total = 0.0
    unpriced = []
    for model in sorted(by_model):
        price = input_price(table, model)
        if price is None:
            unpriced.append(model)
            continue
        c = by_model[model]
        weighted = sum(getattr(c, k) * table.relative[k] for k in COMPONENTS)
        total += price * weighted / 1_000_000
    if unpriced:
        return None, tuple(unpriced)
    return round(total, 6), ()
