"""Prices data -> cost-equivalent tokens and imputed dollars (pure: no I/O).

The price table is data (``benchcore/data/prices.json``, copied from Claude
Code's own model catalog), read by the shell
(:func:`benchcore.harness.claude.tokens.price_table`) and handed to
:func:`parse_prices`.

Two measures, kept apart:

- Cost-equivalent tokens: a unitless measure with the design's fixed weights
  1 / 5 / 1.25 / 2 / 0.1 (docs/run-format.md, usage and cost), the same for every model.
- Dollars: each model's real price for each token kind, per API response, as
  Claude Code prices it: the 1h share of a response's cache writes at the 1h
  price and the rest at the 5m price; a model's long-prompt prices for a
  response whose prompt (input + cache writes + cache read) is above the
  model's threshold; fast-mode prices for a ``speed: "fast"`` response where
  the model has them; a multiplier on the token cost by ``inference_geo``;
  and each web search request at the model's per-request price.

Sums are exact (rational arithmetic over the decimal prices), converted to a
float once and rounded to 1e-10 USD, which is exact for every price in the
table (every per-token price is a multiple of 1e-10 USD).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Iterable, Mapping, Optional

from attrs import field, frozen

from .errors import BenchError
from .modelid import normalize_model_id

# docs/run-format.md, usage and cost: cost-equivalent tokens = 1 x input + 5 x output
# + 1.25 x write-5m + 2 x write-1h + 0.1 x read. Written over a common
# denominator of 20 so the sum is exact integer arithmetic followed by one
# correctly rounded division (0.1 x 3 would otherwise print 0.30000000000000004).
_CEQ_TWENTIETHS = {"input": 20, "output": 100, "cache_write_5m": 25, "cache_write_1h": 40, "cache_read": 2}

COMPONENTS = ("input", "output", "cache_write_5m", "cache_write_1h", "cache_read")

# Dollars are rounded to this many decimals (1e-10 USD): exact for the catalog's prices.
USD_DECIMALS = 10

_MILLION = 1_000_000
_ONE = Fraction(1)  # the multiplier outside any inference_geo (one object, so responses_usd groups by it)



@frozen
class Rates:
    """USD per million tokens of each kind."""

    input: Fraction
    output: Fraction
    cache_write_5m: Fraction
    cache_write_1h: Fraction
    cache_read: Fraction


@frozen
class LongPrompt:
    """Prices for a response whose prompt tokens are above ``above_prompt_tokens``."""

    above_prompt_tokens: int
    rates: Rates


@frozen
class ModelPrice:
    """One model of the catalog: its prices and the ids it is known by."""

    id: str
    rates: Rates
    web_search: Fraction = Fraction(0)  # USD per web search request
    long_prompt: Optional[LongPrompt] = None
    fast: Optional[Rates] = None
    provider_ids: tuple[str, ...] = ()


@frozen
class PriceTable:
    """The parsed price table. ``inference_geo`` maps a response's ``usage.inference_geo`` to a multiplier."""

    models: tuple[ModelPrice, ...]
    inference_geo: Mapping[str, Fraction] = field(factory=dict)
    source: str = ""
    as_of: str = ""
    claude_code_version: str = ""
    index: Mapping[str, ModelPrice] = field(factory=dict, eq=False, repr=False)


@frozen
class Response:
    """One API response's usage, as far as its price depends on it.

    ``iterations``: the ``usage.iterations`` entries of type ``message``, each
    ``(input, output, cache writes, 5m, 1h, cache read)``; Claude Code prices
    them one by one when they add up to the response's own figures.
    """

    model: str
    input: int = 0
    output: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    cache_read: int = 0
    web_search: int = 0
    inference_geo: Optional[str] = None
    speed: Optional[str] = None
    iterations: tuple[tuple[int, int, int, int, int, int], ...] = ()
    # A model's whole usage from a stream-json result line (``modelUsage``), not one response:
    # ``parts`` are that model's responses in the stream, whose prompts are final but whose output
    # is a placeholder; ``inference_geo`` and ``speed`` are the result line's, for responses not in
    # the stream (a subagent's). Priced at one set of prices when all of them share it, else unknown.
    summed: bool = False
    parts: tuple["Response", ...] = ()


def model_price(table: PriceTable, model: str) -> Optional[ModelPrice]:
    """The catalog entry for ``model`` (any of its provider ids), or None when it has no price."""
    return table.index.get(normalize_model_id(model))


# ---------------------------------------------------------------------------
# parsing


def parse_prices(data: Any, *, source: str = "prices.json") -> PriceTable:
    """Plain JSON data -> PriceTable, or BenchError naming what is wrong."""
    fix = "compare the file with benchcore/src/benchcore/data/prices.json and correct it"
    if not isinstance(data, dict):
        raise BenchError(source, "is not a JSON object", fix=fix)
    models = data.get("models")
    if not isinstance(models, list):
        raise BenchError(source, "'models' must be a list", fix=fix)
    geo_data = data.get("inference_geo", {})
    if not isinstance(geo_data, dict):
        raise BenchError(source, "'inference_geo' must map a region to a multiplier", fix=fix)
    geo = {}
    for region, value in geo_data.items():
        geo[region] = _price(value, source, f"inference_geo.{region}", fix)
    entries: list[ModelPrice] = []
    index: dict[str, ModelPrice] = {}
    for i, row in enumerate(models):
        where = f"models[{i}]"
        if not isinstance(row, dict) or not isinstance(row.get("id"), str) or not row["id"]:
            raise BenchError(source, f"{where} needs a non-empty string 'id'", fix=fix)
        where = f"{where} ({row['id']})"
        rates = _rates(row.get("prices"), source, f"{where}.prices", fix)
        long_prompt = None
        if row.get("long_prompt") is not None:
            lp = row["long_prompt"]
            above = lp.get("above_prompt_tokens") if isinstance(lp, dict) else None
            if not isinstance(above, int) or isinstance(above, bool) or above <= 0:
                raise BenchError(source, f"{where}.long_prompt needs a positive integer 'above_prompt_tokens'",
                                 fix=fix)
            long_prompt = LongPrompt(above, _rates(lp.get("prices"), source, f"{where}.long_prompt.prices", fix))
        fast = None if row.get("fast") is None else _rates(row["fast"], source, f"{where}.fast", fix)
        web_search = _price(row.get("web_search", 0), source, f"{where}.web_search", fix)
        ids = row.get("provider_ids", [])
        if not isinstance(ids, list) or not all(isinstance(x, str) and x for x in ids):
            raise BenchError(source, f"{where}: 'provider_ids' must be a list of non-empty strings", fix=fix)
        entry = ModelPrice(id=row["id"], rates=rates, web_search=web_search, long_prompt=long_prompt, fast=fast,
                           provider_ids=tuple(ids))
        for name in {normalize_model_id(x) for x in [row["id"], *ids]}:
            other = index.get(name)
            if other is not None:
                raise BenchError(source, f"{where}: the id {name!r} also names {other.id}",
                                 fix="give each model id to one entry only")
            index[name] = entry
        entries.append(entry)
    return PriceTable(models=tuple(entries), inference_geo=geo, source=str(data.get("source", "")),
                      as_of=str(data.get("as_of", "")), claude_code_version=str(data.get("claude_code_version", "")),
                      index=index)


def _rates(value: Any, source: str, where: str, fix: str) -> Rates:
    if not isinstance(value, dict) or set(value) != set(COMPONENTS):
        raise BenchError(source, f"{where} must give a price for each of: {', '.join(COMPONENTS)}", fix=fix)
    return Rates(**{k: _price(value[k], source, f"{where}.{k}", fix) for k in COMPONENTS})


def _price(value: Any, source: str, where: str, fix: str) -> Fraction:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
        raise BenchError(source, f"'{where}' must be a non-negative number", fix=fix)
    # A JSON number is a decimal: take it as written (0.1 is one tenth, not its binary neighbour).
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


# ---------------------------------------------------------------------------
# cost-equivalent tokens (unitless, fixed weights)


def cost_equivalent_tokens(c: Any) -> float:
    """docs/run-format.md, usage and cost: 1 x input + 5 x output + 1.25 x write-5m + 2 x write-1h + 0.1 x read."""
    return sum(getattr(c, k) * w for k, w in _CEQ_TWENTIETHS.items()) / 20


def raw_tokens(c: Any) -> int:
    """The plain sum of the five components."""
    return sum(getattr(c, k) for k in COMPONENTS)


def prompt_tokens(c: Any) -> int:
    """A response's prompt: input + cache writes + cache read (what a long-prompt threshold is compared with)."""
    return c.input + c.cache_write_5m + c.cache_write_1h + c.cache_read


# ---------------------------------------------------------------------------
# dollars


def _at(rates: Rates, c: Any) -> Fraction:
    """USD (x 1e6) of components ``c`` at ``rates``."""
    return sum((getattr(c, k) * getattr(rates, k) for k in COMPONENTS), Fraction(0))


def _tier(price: ModelPrice, c: Any) -> Rates:
    lp = price.long_prompt
    return lp.rates if lp is not None and prompt_tokens(c) > lp.above_prompt_tokens else price.rates


def _iteration_parts(r: Response) -> Optional[list]:
    """The response's iterations as components, when they add up to its figures (as Claude Code requires)."""
    its = r.iterations
    if not its:
        return None
    written = r.cache_write_5m + r.cache_write_1h
    sums = [sum(x[i] for x in its) for i in (0, 1, 2, 5)]
    if sums != [r.input, r.output, written, r.cache_read]:
        return None
    # Claude Code gives the response's 1h writes not claimed by an iteration's own split to the
    # iterations in order, up to each one's unsplit writes.
    spare = max(0, r.cache_write_1h - sum(min(x[4], x[2]) for x in its))
    parts = []
    for inp, out, cc, e5, e1, read in its:
        one_hour = min(e1, cc)
        five = min(e5, cc - one_hour)
        extra = min(spare, cc - five - one_hour)
        spare -= extra
        one_hour += extra
        parts.append(Response(model=r.model, input=inp, output=out, cache_write_5m=cc - one_hour,
                              cache_write_1h=one_hour, cache_read=read))
    return parts


def _prices_for(table: PriceTable, price: ModelPrice, r: Response) -> tuple[Rates, Fraction]:
    """The prices and the multiplier that apply to one response (iterations aside)."""
    rates = price.fast if r.speed == "fast" and price.fast is not None else _tier(price, r)
    return rates, table.inference_geo.get(r.inference_geo, _ONE) if r.inference_geo else _ONE


def _summed_usd(table: PriceTable, price: ModelPrice, r: Response) -> tuple[Optional[Fraction], str]:
    """USD of a result line's summed usage of one model, or None and why it cannot be told.

    A stream-json line carries neither a response's output nor its iterations,
    so a prompt above the long-prompt threshold (one response's, or what the
    stream does not show) leaves the tier unknown.
    """
    unseen = prompt_tokens(r) - sum(prompt_tokens(p) for p in r.parts)
    if unseen < 0:
        return None, "its responses in the stream exceed the result line's figures"
    parts = list(r.parts)
    if unseen or not parts:
        parts.append(Response(model=r.model, input=unseen, speed=r.speed, inference_geo=r.inference_geo))
    lp = price.long_prompt
    if lp is not None and any(prompt_tokens(p) > lp.above_prompt_tokens
                              and not (p.speed == "fast" and price.fast is not None) for p in parts):
        return None, "its long-prompt tier cannot be told from a stream-json result line"
    applied = {_prices_for(table, price, p) for p in parts}
    if len(applied) > 1:
        return None, "responses at different prices, and the result line sums them"
    rates, multiplier = applied.pop()
    return _at(rates, r) * multiplier / _MILLION + r.web_search * price.web_search, ""


def _priced_parts(table: PriceTable, price: ModelPrice, r: Response) -> tuple[Fraction, list[tuple[Rates, Any]]]:
    """The multiplier of one response of a priced model, and (prices, components) of each part it is priced
    in (itself, or its iterations at their own tiers)."""
    rates, multiplier = _prices_for(table, price, r)
    if rates is price.fast:
        return multiplier, [(rates, r)]
    # Claude Code looks at iterations only for a model with a long-prompt tier (elsewhere they sum the same).
    parts = (_iteration_parts(r) if price.long_prompt is not None else None) or [r]
    return multiplier, [(_tier(price, p), p) for p in parts]


def response_usd(table: PriceTable, price: ModelPrice, r: Response) -> Fraction:
    """Exact USD of one response of a priced model (see the module docstring)."""
    multiplier, parts = _priced_parts(table, price, r)
    tokens = sum((_at(rates, p) for rates, p in parts), Fraction(0))
    return tokens * multiplier / _MILLION + r.web_search * price.web_search


def responses_usd(table: PriceTable, responses: Iterable[Response]) -> tuple[Optional[Fraction], tuple[str, ...]]:
    """Exact USD of responses, and the sorted models among them that have no price (then the USD is None).

    The sum of :func:`response_usd` over the responses, computed as such a sum is linear: the token figures
    of every part priced alike are added as integers, and each such sum is priced once (exact fractions
    per response cost about 20 us each; a transcript has thousands of responses)."""
    total = Fraction(0)
    unpriced = set()
    prices: dict[str, Optional[ModelPrice]] = {}
    # Keyed by the identity of the table's own price objects: hashing five Fractions per response cost more
    # than the sums (the objects live in ``table`` throughout).
    alike: dict[tuple[int, int], list] = {}
    searches: dict[Fraction, int] = {}
    for r in responses:
        if r.model not in prices:
            prices[r.model] = model_price(table, r.model)
        price = prices[r.model]
        if price is None:
            unpriced.add(r.model)
            continue
        if r.summed:
            usd, why = _summed_usd(table, price, r)
            if usd is None:
                unpriced.add(f"{r.model} ({why})")
                continue
            total += usd
            continue
        multiplier, parts = _priced_parts(table, price, r)
        for rates, p in parts:
            acc = alike.get((id(rates), id(multiplier)))
            if acc is None:
                acc = alike[(id(rates), id(multiplier))] = [rates, multiplier, 0, 0, 0, 0, 0]
            acc[2] += p.input
            acc[3] += p.output
            acc[4] += p.cache_write_5m
            acc[5] += p.cache_write_1h
            acc[6] += p.cache_read
        if r.web_search:
            searches[price.web_search] = searches.get(price.web_search, 0) + r.web_search
    for rates, multiplier, *acc in alike.values():
        total += sum((n * getattr(rates, k) for n, k in zip(acc, COMPONENTS)), Fraction(0)) * multiplier / _MILLION
    for each, n in searches.items():
        total += n * each
    return (None if unpriced else total), tuple(sorted(unpriced))


def to_usd(amount: Fraction) -> float:
    """An exact amount as the float reported (rounded to 1e-10 USD)."""
    return round(float(amount), USD_DECIMALS)


def dollars(table: PriceTable, by_model: Mapping[str, Any]) -> tuple[Optional[float], tuple[str, ...]]:
    """USD for usage summed by model (no per-response figures), and the sorted models that have no price.

    A model with a long-prompt tier is priced only when its summed prompt is
    within the threshold (then every response was); otherwise its tier cannot
    be known and it is listed as unpriced. When any model is unpriced the total
    is None (never 0).
    """
    total = Fraction(0)
    unpriced = []
    for model in sorted(by_model):
        c = by_model[model]
        price = model_price(table, model)
        if price is None or (price.long_prompt is not None
                             and prompt_tokens(c) > price.long_prompt.above_prompt_tokens):
            unpriced.append(model)
            continue
        total += sum((Fraction(getattr(c, k)) * getattr(price.rates, k) for k in COMPONENTS), Fraction(0)) / _MILLION
    if unpriced:
        return None, tuple(unpriced)
    return to_usd(total), ()
