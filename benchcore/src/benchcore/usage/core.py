"""Transcript lines -> token usage (pure: no I/O). docs/run-format.md, usage and cost.

:func:`read_usage` is a streaming reducer over the lines of one Claude Code
transcript (``str`` or ``bytes`` lines, the on-disk format or stream-json):

- Lines are grouped by ``message.id`` (then ``requestId``); each group is one
  API response, counted once, taking the largest value of each usage field
  over the group's lines (per-block lines repeat the usage, and older Claude
  Code wrote placeholder ``output_tokens`` on all but the last).
- Only records with ``type == "assistant"`` and a ``message.usage`` object
  count; lines whose ``message.model`` is ``<synthetic>`` are skipped.
- Cache writes use the nested ``usage.cache_creation`` split
  (``ephemeral_5m_input_tokens`` / ``ephemeral_1h_input_tokens``) when present;
  whatever ``cache_creation_input_tokens`` has beyond the 1h share counts as 5m
  (so without a split, all of it).
- A stream-json ``{"type": "result"}`` line, when present, is authoritative:
  turns from ``num_turns``, the five components from its ``usage``, and the
  per-model split used for dollars (and the model list) from ``modelUsage``.
  ``modelUsage`` has no 5m/1h split: each model's 1h share is taken from that
  model's own response lines in the transcript, the rest counts as 5m. When
  several result lines are present, the last one wins.
- A record whose top-level ``type`` is found near the start of its line and is
  neither ``assistant`` nor ``result`` (user records holding large tool
  results, system and progress records) is dropped without a scan or parse.
- A line that cannot be read is skipped and counted in ``skipped_lines``,
  never fatal. For speed, only lines that can carry usage (they contain the
  key ``"usage"`` and an ``"assistant"`` or ``"result"`` marker) and the last
  line are parsed as JSON; every other line is checked for framing only
  (starts with ``{``, ends with ``}``). So a truncated line is always caught
  (Claude Code truncates only the line it was writing: the last, and writes
  each record with its line break in one append, so a last line that ends in
  a line break was written whole and is not parsed again), while a
  well-framed but malformed line in the middle is noticed only when it could
  have carried usage.

- For dollars, each response's figures are kept (``responses``), with what
  its price depends on besides its tokens: ``usage.server_tool_use.
  web_search_requests``, ``usage.inference_geo``, ``usage.speed`` and
  ``usage.iterations`` (taken from the group's last line that has them). With
  a result line, each model's ``modelUsage`` is one summed entry (its 5m/1h
  split from ``cacheCreationEphemeral5mInputTokens`` / ``...1hInputTokens``
  when present), carrying that model's responses in the stream: a stream's
  assistant lines hold the usage of the response's start (final prompt
  figures, placeholder output), so the sum is priced at one set of prices
  only when every response shares it (see :mod:`benchcore.pricing`).

Memory holds one small entry per API response, never the lines.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Optional, Union

from attrs import frozen

from .. import pricing
from ..armusage import ArmUsage
from .lines import SYNTHETIC, UNKNOWN_MODEL, LineReducer, _count, _usage_figures, _web_search  # noqa: F401


@frozen
class Components:
    """The five token components of docs/run-format.md, usage and cost."""

    input: int = 0
    output: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    cache_read: int = 0


@frozen
class TranscriptUsage:
    """What one transcript used.

    ``totals`` are the transcript's components; ``by_model`` splits usage by
    model for pricing (for a transcript without a result line it sums to
    ``totals``; with one it is ``modelUsage``, which also covers subagents).
    ``skipped_lines`` counts lines that could not be read. ``responses`` are
    what the dollars are computed from (see the module docstring).
    """

    turns: int
    totals: Components
    by_model: Mapping[str, Components]
    skipped_lines: int = 0
    from_result_line: bool = False
    responses: tuple[pricing.Response, ...] = ()

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(sorted(self.by_model))


def read_usage(lines: Iterable[Union[str, bytes]]) -> TranscriptUsage:
    """Reduce the lines of one transcript to its usage (see the module docstring)."""
    reducer = Reducer()
    for n, line in enumerate(lines):
        reducer.line(line, n)
    return reducer.finish()


class Reducer(LineReducer):
    """:class:`benchcore.usage.lines.LineReducer` whose ``finish`` gives the transcript's usage."""

    def finish(self) -> TranscriptUsage:
        return _finish(*self.close())


def finish_state(groups: dict, result: Optional[dict], skipped: int) -> TranscriptUsage:
    """A transcript's usage from a :class:`benchcore.usage.lines.LineReducer`'s ``close()``."""
    return _finish(groups, result, skipped)


def _response(group: list) -> pricing.Response:
    c = _components(group[1:7])
    return pricing.Response(model=group[0], input=c.input, output=c.output, cache_write_5m=c.cache_write_5m,
                            cache_write_1h=c.cache_write_1h, cache_read=c.cache_read, web_search=group[7],
                            inference_geo=group[8], speed=group[9], iterations=group[10])


def _components(figures) -> Components:
    """Components from (input, output, cc_total, e5, e1, read): writes beyond the 1h share are 5m."""
    inp, out, cc, e5, e1, read = figures
    return Components(input=inp, output=out, cache_write_5m=max(e5, cc - e1), cache_write_1h=e1,
                      cache_read=read)


def _finish(groups: dict, result: Optional[dict], skipped: int) -> TranscriptUsage:
    responses = tuple(_response(group) for group in groups.values())
    line_models: dict[str, list[int]] = {}
    for r in responses:
        acc = line_models.setdefault(r.model, [0, 0, 0, 0, 0])
        acc[0] += r.input
        acc[1] += r.output
        acc[2] += r.cache_write_5m
        acc[3] += r.cache_write_1h
        acc[4] += r.cache_read
    by_lines = {m: Components(*v) for m, v in line_models.items()}
    if result is None:
        totals = _sum_components(by_lines.values())
        return TranscriptUsage(turns=len(groups), totals=totals, by_model=by_lines, skipped_lines=skipped,
                               responses=responses)

    totals = _components(_usage_figures(result["usage"]))
    turns = result.get("num_turns")
    if not isinstance(turns, int) or isinstance(turns, bool) or turns < 0:
        turns = len(groups)
    model_usage = result.get("modelUsage")
    by_model: dict[str, Components] = {}
    web_search: dict[str, int] = {}
    if isinstance(model_usage, dict) and model_usage:
        for model, mu in model_usage.items():
            mu = mu if isinstance(mu, dict) else {}
            written = _count(mu.get("cacheCreationInputTokens"))
            one_hour = _count(mu.get("cacheCreationEphemeral1hInputTokens"))
            if "cacheCreationEphemeral1hInputTokens" not in mu:  # before Claude Code 2.1.3xx: no split
                one_hour = by_lines[model].cache_write_1h if model in by_lines else 0
            one_hour = min(written, one_hour)
            by_model[str(model)] = Components(
                input=_count(mu.get("inputTokens")), output=_count(mu.get("outputTokens")),
                cache_write_5m=written - one_hour, cache_write_1h=one_hour,
                cache_read=_count(mu.get("cacheReadInputTokens")))
            web_search[str(model)] = _count(mu.get("webSearchRequests"))
    elif len(by_lines) == 1:
        model = next(iter(by_lines))
        by_model[model] = totals
        web_search[model] = _web_search(result["usage"])
    elif pricing.raw_tokens(totals):
        by_model[UNKNOWN_MODEL] = totals
    geo, speed = result["usage"].get("inference_geo"), result["usage"].get("speed")
    summed = tuple(pricing.Response(
        model=model, input=c.input, output=c.output, cache_write_5m=c.cache_write_5m,
        cache_write_1h=c.cache_write_1h, cache_read=c.cache_read, web_search=web_search.get(model, 0),
        inference_geo=geo if isinstance(geo, str) else None, speed=speed if isinstance(speed, str) else None,
        summed=True, parts=tuple(r for r in responses if r.model == model)) for model, c in by_model.items())
    return TranscriptUsage(turns=turns, totals=totals, by_model=by_model, skipped_lines=skipped,
                           from_result_line=True, responses=summed)


def _sum_components(items: Iterable[Components]) -> Components:
    acc = [0, 0, 0, 0, 0]
    for c in items:
        acc[0] += c.input
        acc[1] += c.output
        acc[2] += c.cache_write_5m
        acc[3] += c.cache_write_1h
        acc[4] += c.cache_read
    return Components(*acc)


def arm_usage(transcript: TranscriptUsage, prices: pricing.PriceTable) -> ArmUsage:
    """One transcript's usage as an ArmUsage, with cost-equivalent tokens and imputed dollars."""
    t = transcript.totals
    usd, unpriced = pricing.responses_usd(prices, transcript.responses)
    cost_usd = None if usd is None else pricing.to_usd(usd)
    return ArmUsage(turns=transcript.turns, input=t.input, output=t.output, cache_write_5m=t.cache_write_5m,
                    cache_write_1h=t.cache_write_1h, cache_read=t.cache_read, raw_tokens=pricing.raw_tokens(t),
                    cost_equivalent_tokens=pricing.cost_equivalent_tokens(t), cost_usd=cost_usd,
                    models=transcript.models, unpriced_models=unpriced)


def add_usage(a: ArmUsage, b: ArmUsage) -> ArmUsage:
    """The sum of two usages: components and turns add, models are the sorted union.

    Cost-equivalent tokens are recomputed from the summed components (exact);
    dollars are None when either side has none.
    """
    c = Components(input=a.input + b.input, output=a.output + b.output,
                   cache_write_5m=a.cache_write_5m + b.cache_write_5m,
                   cache_write_1h=a.cache_write_1h + b.cache_write_1h, cache_read=a.cache_read + b.cache_read)
    cost_usd = None if a.cost_usd is None or b.cost_usd is None else round(a.cost_usd + b.cost_usd,
                                                                           pricing.USD_DECIMALS)
    return ArmUsage(turns=a.turns + b.turns, input=c.input, output=c.output, cache_write_5m=c.cache_write_5m,
                    cache_write_1h=c.cache_write_1h, cache_read=c.cache_read, raw_tokens=pricing.raw_tokens(c),
                    cost_equivalent_tokens=pricing.cost_equivalent_tokens(c), cost_usd=cost_usd,
                    models=tuple(sorted(set(a.models) | set(b.models))),
                    unpriced_models=tuple(sorted(set(a.unpriced_models) | set(b.unpriced_models))))


def sum_usage(usages: Iterable[ArmUsage]) -> ArmUsage:
    """The sum of any number of usages; the empty sum is ``ArmUsage()`` (all zero, $0)."""
    total = ArmUsage()
    for u in usages:
        total = add_usage(total, u)
    return total


# (open, close, "usage" key, assistant marker, result marker, type key, space) for bytes and str lines.
