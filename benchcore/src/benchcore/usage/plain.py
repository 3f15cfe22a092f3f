"""A reduced transcript -> the figures ``benchcore usage`` prints, as plain data (pure: no I/O, no attrs).

``benchcore usage`` is a short process: importing attrs costs it more than a
third of reading 300 MB of transcripts. This module gives, for the common
transcript, exactly the fields of :func:`benchcore.usage.arm_usage` (as a dict
in :data:`FIELDS` order) from a :class:`benchcore.usage.lines.LineReducer`'s
state and the price table's JSON, with the same rules (:mod:`benchcore.pricing`):
each response's cache writes beyond its 1h share at the 5m price, a model's
long-prompt prices above its threshold, web searches at the model's price,
exact sums rounded once to 1e-10 USD.

:func:`dumps` writes its ``--json`` document as ``json.dumps(doc, indent=2,
ensure_ascii=False)`` does, without importing json (which imports re).

Whatever it does not handle it declines (``None``), and the caller takes the
attrs path, which handles everything: a stream-json result line, a response
with an ``inference_geo``, a ``fast`` speed or ``iterations``, and a price table
that is not plainly well formed (the attrs path names what is wrong with it).
"""

from __future__ import annotations

from ..modelid import normalize_model_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable, Optional

COMPONENTS = ("input", "output", "cache_write_5m", "cache_write_1h", "cache_read")
FIELDS = ("turns", *COMPONENTS, "raw_tokens", "cost_equivalent_tokens", "cost_usd", "models", "unpriced_models")
USD_DECIMALS = 10  # as benchcore.pricing.USD_DECIMALS
# Prices are exact integers in units of 1e-10 (of USD per million tokens, and of USD per web search), as every
# price in the table is a multiple of that (a price that is not declines); a sum over responses is then an
# integer count of 1e-16 USD, turned into a float by one correctly rounded division, which gives the float
# benchcore.pricing gives from the same exact sum in Fractions.
_SCALE_DIGITS = 10
_SCALE = 10 ** _SCALE_DIGITS
_PER_USD = _SCALE * 1_000_000  # units of the sums per USD

# A model's prices: (rates, long-prompt threshold or None, long-prompt rates or None, web search price),
# rates being five scaled integers in COMPONENTS order.
Price = tuple


def plain_prices(data: Any) -> Optional[dict[str, Price]]:
    """The price table's JSON -> {normalized model id: Price}, or None when anything in it is not as
    :func:`benchcore.pricing.parse_prices` accepts it (then the attrs path reads it and names the fault)."""
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        return None
    geo = data.get("inference_geo", {})
    if not isinstance(geo, dict) or any(_price(v) is None for v in geo.values()):
        return None
    index: dict[str, Price] = {}
    for row in data["models"]:
        if not isinstance(row, dict) or not isinstance(row.get("id"), str) or not row["id"]:
            return None
        rates = _rates(row.get("prices"))
        above = long_rates = None
        if row.get("long_prompt") is not None:
            lp = row["long_prompt"]
            above = lp.get("above_prompt_tokens") if isinstance(lp, dict) else None
            if above.__class__ is not int or above <= 0:
                return None
            long_rates = _rates(lp.get("prices"))
            if long_rates is None:
                return None
        web = _price(row.get("web_search", 0))
        ids = row.get("provider_ids", [])
        if (rates is None or web is None or (row.get("fast") is not None and _rates(row["fast"]) is None)
                or not isinstance(ids, list) or not all(isinstance(x, str) and x for x in ids)):
            return None
        entry = (rates, above, long_rates, web)
        for name in {normalize_model_id(x) for x in [row["id"], *ids]}:
            if name in index:
                return None
            index[name] = entry
    return index


def _rates(value: Any) -> Optional[tuple]:
    if not isinstance(value, dict) or set(value) != set(COMPONENTS):
        return None
    rates = tuple(_price(value[k]) for k in COMPONENTS)
    return None if None in rates else rates


def _price(value: Any) -> Optional[int]:
    """As benchcore.pricing._price (a JSON number taken as the decimal it is written as), in units of 1e-10;
    None if it is not a non-negative number, or not a whole number of those units."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
        return None
    if isinstance(value, int):
        return value * _SCALE
    whole, dot, frac = repr(value).partition(".")
    if not dot or not whole.isdigit() or not frac.isdigit() or len(frac) > _SCALE_DIGITS or not whole.isascii():
        return None  # 1e-05, inf, nan, or finer than 1e-10: benchcore.pricing prices it
    return int(whole) * _SCALE + int(frac.ljust(_SCALE_DIGITS, "0"))


def arm_figures(groups: dict, result: Optional[dict], prices: Optional[dict[str, Price]]) -> Optional[dict]:
    """One transcript's :func:`benchcore.usage.arm_usage` as a dict, from a LineReducer's responses and
    result line; None where the attrs path must compute it (module docstring)."""
    if result is not None or prices is None:
        return None
    sums = [0, 0, 0, 0, 0]
    alike: dict[int, list] = {}  # id(rates) -> [rates, five token sums]
    web_units = 0
    unpriced = set()
    models = set()
    found: dict[str, Optional[Price]] = {}
    for model, inp, out, cc, e5, e1, read, web, geo, speed, its in groups.values():
        if geo is not None or its or speed == "fast":
            return None
        w5 = e5 if e5 > cc - e1 else cc - e1
        sums[0] += inp
        sums[1] += out
        sums[2] += w5
        sums[3] += e1
        sums[4] += read
        models.add(model)
        price = found.get(model, False)
        if price is False:
            price = found[model] = prices.get(normalize_model_id(model))
        if price is None:
            unpriced.add(model)
            continue
        rates, above, long_rates, web_each = price
        if above is not None and inp + w5 + e1 + read > above:
            rates = long_rates
        acc = alike.get(id(rates))
        if acc is None:
            acc = alike[id(rates)] = [rates, 0, 0, 0, 0, 0]
        acc[1] += inp
        acc[2] += out
        acc[3] += w5
        acc[4] += e1
        acc[5] += read
        if web:
            web_units += web * web_each
    cost = None
    if not unpriced:
        total = web_units * 1_000_000  # per request, not per million
        for rates, *n in alike.values():
            total += sum(k * r for k, r in zip(n, rates))
        cost = round(total / _PER_USD, USD_DECIMALS)  # int / int: correctly rounded, as float(Fraction)
    return _figures(len(groups), sums, cost, tuple(sorted(models)), tuple(sorted(unpriced)))


def _figures(turns: int, c: list, cost: Optional[float], models: tuple, unpriced: tuple) -> dict:
    inp, out, w5, w1, read = c
    return {"turns": turns, "input": inp, "output": out, "cache_write_5m": w5, "cache_write_1h": w1,
            "cache_read": read, "raw_tokens": inp + out + w5 + w1 + read,
            # benchcore.pricing.cost_equivalent_tokens: weights 1 / 5 / 1.25 / 2 / 0.1 over a denominator of 20
            "cost_equivalent_tokens": (inp * 20 + out * 100 + w5 * 25 + w1 * 40 + read * 2) / 20,
            "cost_usd": cost, "models": models, "unpriced_models": unpriced}


def sum_figures(items: Iterable[dict]) -> dict:
    """:func:`benchcore.usage.sum_usage` over figures dicts: components and turns add, dollars add (rounded
    at each step, as there) or are None when any is, models are the sorted union."""
    turns, c, cost, models, unpriced = 0, [0, 0, 0, 0, 0], 0.0, set(), set()
    for f in items:
        turns += f["turns"]
        for i, k in enumerate(COMPONENTS):
            c[i] += f[k]
        cost = None if cost is None or f["cost_usd"] is None else round(cost + f["cost_usd"], USD_DECIMALS)
        models.update(f["models"])
        unpriced.update(f["unpriced_models"])
    return _figures(turns, c, cost, tuple(sorted(models)), tuple(sorted(unpriced)))


def dumps(doc: dict) -> str:
    """``json.dumps(doc, indent=2, ensure_ascii=False)`` without importing json (which imports re)."""
    from ..jsontext import dumps

    return dumps(doc, 2)
