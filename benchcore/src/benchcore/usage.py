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

import json
import json.scanner
from typing import Any, Iterable, Mapping, Optional, Union

from attrs import frozen

from . import pricing
from .armusage import ArmUsage

SYNTHETIC = "<synthetic>"
UNKNOWN_MODEL = "<unknown>"


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


class Reducer:
    """The state of :func:`read_usage` over one transcript: fed line by line (``line``), or by a reader that
    finds the lines that can carry usage itself (``candidate``, ``unparsed``; see :mod:`benchcore.usage_scan`)."""

    def __init__(self) -> None:
        # One entry per API response: [model, input, output, cache-creation total,
        # ephemeral 5m, ephemeral 1h, cache read, web search requests], each the
        # largest seen so far, then [inference_geo, speed, iterations], the last seen.
        self.groups: dict[Any, list] = {}
        self.result: Optional[dict] = None
        self.skipped = 0
        self.needles = None
        # The last well-framed line that was not parsed: a truncated last line can
        # still end in '}' (cut just after a nested object), so it is parsed at the end.
        self.last_unparsed = None

    def line(self, line, n: int) -> None:
        if self.needles is None:
            self.needles = _BYTES if isinstance(line, (bytes, bytearray)) else _STR
        open_, ends = self.needles[:2]
        # Framing: a whole record starts with '{' and ends with '}' (cheap, no copy).
        if not (line.startswith(open_) and line.endswith(ends)):
            stripped = line.strip()
            if not stripped:
                return
            if not (stripped.startswith(open_) and stripped.endswith(ends[0])):
                self.skipped += 1
                self.last_unparsed = None
                return
            line = stripped
        self.candidate(line, n)

    def candidate(self, buf, n: int, start: int = 0, stop: Optional[int] = None) -> None:
        """A well-framed line (``buf[start:stop]``, by default all of ``buf``): parse it when it can carry
        usage. A line inside a larger buffer is looked at in place, and copied only to be parsed."""
        stop = len(buf) if stop is None else stop
        open_, _, usage_key, assistant, result_marker, type_key, space = self.needles
        # Most bytes are user records (tool results). Claude Code writes the
        # record's type before its message, so when the first '"type":' in the
        # head is a top-level key (no '{' before it but the record's own) its
        # value says whether the line can carry usage, without scanning the rest.
        t = buf.find(type_key, start, min(start + _HEAD, stop))
        if t != -1 and buf.count(open_, start, t) == 1:
            v = t + len(type_key)
            if buf.startswith(space, v):
                v += 1
            if not (buf.startswith(assistant, v) or buf.startswith(result_marker, v)):
                self.last_unparsed = (buf, start, stop)
                return
        elif buf.__class__ is bytes:
            # Its type written last (Claude Code's own assistant records): one whose last '"type":' is
            # followed by "assistant" is scanned below as before, without the call; else a user record may
            # be told from its end.
            t = buf.rfind(type_key, max(start, stop - _TAIL), stop)
            v = t + len(type_key)
            if buf.startswith(space, v):
                v += 1
            if t == -1 or not buf.startswith(assistant, v):
                if _user_by_tail(buf, start, stop, self.needles):
                    self.last_unparsed = (buf, start, stop)  # its type written last: a user record, seen from its end
                    return
        if buf.find(usage_key, start, stop) < 0 or (buf.find(assistant, start, stop) < 0
                                                    and buf.find(result_marker, start, stop) < 0):
            self.last_unparsed = (buf, start, stop)
            return
        self.last_unparsed = None
        try:
            record = _loads(buf[start:stop] if start or stop != len(buf) else buf)
        except ValueError:  # JSONDecodeError, UnicodeDecodeError
            self.skipped += 1
            return
        if not isinstance(record, dict):
            self.skipped += 1
            return
        self._record(record, n)

    def _record(self, record: dict, n: int) -> None:
        kind = record.get("type")
        if kind == "assistant":
            message = record.get("message")
            if message.__class__ is not dict:  # json.loads makes plain dicts only
                return
            usage = message.get("usage")
            if usage is None:
                return
            if usage.__class__ is not dict:
                self.skipped += 1
                return
            model = message.get("model")
            if model == SYNTHETIC:
                return
            if model.__class__ is not str or not model:
                model = UNKNOWN_MODEL
            key = message.get("id") or record.get("requestId") or ("line", n)
            if key.__class__ is not str and key.__class__ is not tuple:
                key = ("line", n)
            figures = _figures(usage)
            group = self.groups.get(key)
            if group is None:
                self.groups[key] = group = [model, *figures, None, None, ()]
            else:
                for i, value in enumerate(figures, start=1):
                    if value > group[i]:
                        group[i] = value
            if "inference_geo" in usage or "speed" in usage or "iterations" in usage:
                _note_extras(group, usage)
        elif kind == "result" and isinstance(record.get("usage"), dict):
            self.result = record

    def finish(self) -> TranscriptUsage:
        if self.last_unparsed is not None:
            buf, start, stop = self.last_unparsed
            if buf[stop - 1:stop] in _LINE_BREAKS:
                return _finish(self.groups, self.result, self.skipped)  # written whole (module docstring)
            try:
                json.loads(buf[start:stop])
            except ValueError:
                self.skipped += 1
        return _finish(self.groups, self.result, self.skipped)


def _user_by_tail(buf: bytes, start: int, stop: int, needles) -> bool:
    """Whether a framed line whose head holds no "type" key ends with its top-level type, and that type
    cannot carry usage: the last '"type":' in its last bytes, a plain string value other than "assistant"
    or "result", and after it nothing that opens or closes an object or array but the record's own final
    '}' (so it is the record's key, the one json.loads keeps). Anything else: False, and the line is
    scanned whole, as before."""
    _, _, _, assistant, result_marker, type_key, space = needles
    t = buf.rfind(type_key, max(start, stop - _TAIL), stop)
    if t == -1:
        return False
    v = t + len(type_key)
    if buf.startswith(space, v):
        v += 1
    if buf[v:v + 1] != b'"' or buf.startswith(assistant, v) or buf.startswith(result_marker, v):
        return False
    end = buf.find(b'"', v + 1, stop)
    close = buf.rfind(b"}", start, stop)
    if end == -1 or b"\\" in buf[v:end] or close <= end:
        return False
    return not any(buf.find(c, end + 1, close) != -1 for c in (b"{", b"}", b"[", b"]")) and \
        not buf[close + 1:stop].strip()


_TAIL = 1024  # how far from a line's end to look for a top-level "type" written last
_SCAN = json.scanner.make_scanner(json.JSONDecoder())
_SPACE = " \t\n\r"  # what json.loads allows after a value
_LINE_BREAKS = (b"\n", "\n")


def _loads(line: Union[str, bytes]) -> Any:
    """``json.loads(line)`` for a line that starts with '{', with the steps json.loads adds around its C
    scanner for any input (finding the encoding, skipping leading white space) left out."""
    if isinstance(line, (bytes, bytearray)):
        if line[1:2] == b"\x00":  # json.loads would read it as UTF-16 or UTF-32
            return json.loads(line)
        line = line.decode("utf-8", "surrogatepass")
    try:
        value, end = _SCAN(line, 0)
    except StopIteration:
        raise ValueError("not JSON") from None
    if line[end:].strip(_SPACE):
        raise ValueError("extra data after the record")
    return value


def _usage_figures(usage: dict) -> tuple[int, int, int, int, int, int]:
    """input, output, cache-creation total, 5m, 1h, read from one usage object."""
    split = usage.get("cache_creation")
    if split.__class__ is not dict:
        split = {}
    return (_count(usage.get("input_tokens")), _count(usage.get("output_tokens")),
            _count(usage.get("cache_creation_input_tokens")),
            _count(split.get("ephemeral_5m_input_tokens")), _count(split.get("ephemeral_1h_input_tokens")),
            _count(usage.get("cache_read_input_tokens")))


def _figures(usage: dict) -> tuple[int, int, int, int, int, int, int]:
    """``(*_usage_figures(usage), _web_search(usage))`` in one call: an assistant line's hot path."""
    get = usage.get
    split = get("cache_creation")
    server = get("server_tool_use")
    e5 = e1 = web = 0
    if split.__class__ is dict:
        e5 = split.get("ephemeral_5m_input_tokens")
        e1 = split.get("ephemeral_1h_input_tokens")
        e5 = e5 if e5.__class__ is int and e5 > 0 else 0
        e1 = e1 if e1.__class__ is int and e1 > 0 else 0
    if server.__class__ is dict:
        web = _count(server.get("web_search_requests"))
    inp, out, cc, read = (get("input_tokens"), get("output_tokens"), get("cache_creation_input_tokens"),
                          get("cache_read_input_tokens"))
    return (inp if inp.__class__ is int and inp > 0 else 0, out if out.__class__ is int and out > 0 else 0,
            cc if cc.__class__ is int and cc > 0 else 0, e5, e1,
            read if read.__class__ is int and read > 0 else 0, web)


def _web_search(usage: dict) -> int:
    server = usage.get("server_tool_use")
    return _count(server.get("web_search_requests")) if isinstance(server, dict) else 0


def _note_extras(group: list, usage: dict) -> None:
    """Keep a response's inference_geo, speed and iterations (the last line that has each wins)."""
    geo, speed = usage.get("inference_geo"), usage.get("speed")
    if isinstance(geo, str) and geo:
        group[8] = geo
    if isinstance(speed, str) and speed:
        group[9] = speed
    iterations = usage.get("iterations")
    if isinstance(iterations, list) and iterations:
        its = tuple(_usage_figures(it) for it in iterations if isinstance(it, dict) and it.get("type") == "message")
        if its:
            group[10] = its


def _response(group: list) -> pricing.Response:
    c = _components(group[1:7])
    return pricing.Response(model=group[0], input=c.input, output=c.output, cache_write_5m=c.cache_write_5m,
                            cache_write_1h=c.cache_write_1h, cache_read=c.cache_read, web_search=group[7],
                            inference_geo=group[8], speed=group[9], iterations=group[10])


def _count(value: Any) -> int:
    """A token count, or 0 for anything that is not a non-negative integer (a bool is not one)."""
    return value if value.__class__ is int and value > 0 else 0


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
_BYTES = (b"{", (b"}", b"}\n", b"}\r\n"), b'"usage"', b'"assistant"', b'"result"', b'"type":', b" ")
_STR = ("{", ("}", "}\n", "}\r\n"), '"usage"', '"assistant"', '"result"', '"type":', " ")
# How far into a line to look for its top-level "type" key.
_HEAD = 4096
