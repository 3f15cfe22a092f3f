"""Dollars at Claude Code's own prices: every catalog row, provider ids, the long-prompt tier, per response.

Expected figures are hand-computed from the catalog table in the design notes
(measured on the real CLI: docs/internals.md), written out again below, not read from
prices.json: a wrong price in the data fails here.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from benchcore import pricing, usage
from benchcore.cli import main
from benchcore.errors import BenchError
from benchcore.harness.claude import tokens

# model: input / output / cache write 5m / cache write 1h / cache read, USD per million tokens
CATALOG = """
claude-opus-5-5      4   20   5      8     0.2
claude-opus-5        5   25   6.25   10    0.5
claude-opus-4-8      5   25   6.25   10    0.5
claude-opus-4-7      5   25   6.25   10    0.5
claude-opus-4-6      5   25   6.25   10    0.5
claude-opus-4-5      5   25   6.25   10    0.5
claude-opus-4-1      15  75   18.75  30    1.5
claude-opus-4-0      15  75   18.75  30    1.5
claude-sonnet-5-5    2   10   2.5    4     0.1
claude-sonnet-5      2   10   2.5    4     0.2
claude-sonnet-4-6    3   15   3.75   6     0.3
claude-sonnet-4-5    3   15   3.75   6     0.3
claude-sonnet-4-0    3   15   3.75   6     0.3
claude-3-7-sonnet    3   15   3.75   6     0.3
claude-3-5-sonnet    3   15   3.75   6     0.3
claude-haiku-5-5     0.1 0.5  0.125  0.2   0.01
claude-haiku-4-5     1   5    1.25   2     0.1
claude-3-5-haiku     0.8 4    1      1.6   0.08
claude-fable-5       10  50   12.5   20    1
claude-mythos-5      10  50   12.5   20    1
claude-fable-5-1     10  50   12.5   20    0.25
claude-mythos-5-1    10  50   12.5   20    0.25
claude-fable-5-2     8   40   10     16    0.2
claude-mythos-5-2    8   40   10     16    0.2
"""
ROWS = {name: tuple(Fraction(x) for x in rest)
        for name, *rest in (line.split() for line in CATALOG.strip().splitlines())}
KINDS = ("input", "output", "cache_write_5m", "cache_write_1h", "cache_read")


@pytest.fixture(scope="module")
def prices() -> pricing.PriceTable:
    return tokens.price_table()


def assistant(mid: str, model: str, **u) -> str:
    return json.dumps({"type": "assistant", "message": {"id": mid, "model": model, "role": "assistant", "usage": u}})


def response_line(mid: str, model: str, *, inp=0, out=0, w5=0, w1=0, read=0, **extra) -> str:
    return assistant(mid, model, input_tokens=inp, output_tokens=out, cache_creation_input_tokens=w5 + w1,
                     cache_read_input_tokens=read,
                     cache_creation={"ephemeral_5m_input_tokens": w5, "ephemeral_1h_input_tokens": w1}, **extra)


def cost(prices, lines) -> usage.ArmUsage:
    return usage.arm_usage(usage.read_usage(lines), prices)


# ---------------------------------------------------------------------------
# every row of the catalog


def test_the_table_has_exactly_the_catalogs_models(prices):
    assert sorted(m.id for m in prices.models) == sorted(ROWS)


@pytest.mark.parametrize("model", sorted(ROWS))
@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_of_each_model_at_its_catalog_price(prices, model, kind):
    # 10,000 tokens of one kind (a prompt of at most 10,000 tokens: below every threshold)
    # cost 1/100 of that kind's price per million.
    figures = {"input": "inp", "output": "out", "cache_write_5m": "w5", "cache_write_1h": "w1",
               "cache_read": "read"}
    u = cost(prices, [response_line("m1", model, **{figures[kind]: 10_000})])
    expected = ROWS[model][KINDS.index(kind)] / 100
    assert (u.cost_usd, u.unpriced_models) == (float(expected), ())


@pytest.mark.parametrize("model, usd", [
    # in 1,000 / out 2,000 / 5m 3,000 / 1h 4,000 / read 50,000, by hand (USD x 1e6):
    ("claude-opus-5-5", 0.101),     # 4*1000 + 20*2000 + 5*3000 + 8*4000 + 0.2*50000 = 4000+40000+15000+32000+10000
    ("claude-opus-4-1", 0.41625),   # 15000 + 150000 + 56250 + 120000 + 75000
    ("claude-sonnet-5", 0.0555),    # 2000 + 20000 + 7500 + 16000 + 10000
    ("claude-sonnet-5-5", 0.0505),  # 2000 + 20000 + 7500 + 16000 + 5000
    ("claude-haiku-5-5", 0.002775),  # 100 + 1000 + 375 + 800 + 500 (prompt 58,000: base tier)
    ("claude-3-5-haiku", 0.0222),   # 800 + 8000 + 3000 + 6400 + 4000
    ("claude-fable-5-1", 0.24),     # 10000 + 100000 + 37500 + 80000 + 12500
], ids=lambda v: str(v))
def test_a_mixed_response_by_hand(prices, model, usd):
    u = cost(prices, [response_line("m1", model, inp=1000, out=2000, w5=3000, w1=4000, read=50_000)])
    assert u.cost_usd == usd


# ---------------------------------------------------------------------------
# dated and provider ids


@pytest.mark.parametrize("model_id, model", [
    ("claude-haiku-4-5-20251001", "claude-haiku-4-5"),
    ("us.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
    ("anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
    ("eu.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
    ("global.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"),
    ("claude-haiku-4-5@20251001", "claude-haiku-4-5"),
    ("anthropic.claude-haiku-4-5", "claude-haiku-4-5"),
    ("claude-sonnet-4-20250514", "claude-sonnet-4-0"),
    ("claude-sonnet-4@20250514", "claude-sonnet-4-0"),
    ("claude-opus-4-20250514", "claude-opus-4-0"),
    ("us.anthropic.claude-opus-4-1-20250805-v1:0", "claude-opus-4-1"),
    ("claude-3-5-sonnet-v2@20241022", "claude-3-5-sonnet"),
    ("us.anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3-5-sonnet"),
    ("claude-3-5-haiku-20241022", "claude-3-5-haiku"),
    ("us.anthropic.claude-opus-4-6-v1", "claude-opus-4-6"),
    ("us.anthropic.claude-haiku-5-5", "claude-haiku-5-5"),
    ("anthropic.claude-opus-5-5", "claude-opus-5-5"),
    ("Claude-Opus-5-5", "claude-opus-5-5"),
    ("claude-opus-5-5", "claude-opus-5-5"),
    ("claude-opus-5", "claude-opus-5"),
], ids=lambda v: str(v))
def test_provider_and_dated_ids_are_the_same_model(prices, model_id, model):
    assert pricing.model_price(prices, model_id).id == model
    # and a response under that id costs what the model's own id costs
    line = response_line("m1", model_id, inp=1000, out=100, read=5000)
    assert cost(prices, [line]).cost_usd == cost(prices, [response_line("m1", model, inp=1000, out=100,
                                                                         read=5000)]).cost_usd


@pytest.mark.parametrize("model_id", [
    "claude-opus-4-10",       # not claude-opus-4-1 continued: ids are matched whole, never by prefix
    "claude-opus-5-5-fast",
    "claude-3-opus-20240229",  # Claude Code knows the name but its catalog has no price for it
    "claude-nova-1",
    "<unknown>",
    "",
])
def test_ids_outside_the_catalog_have_no_price(prices, model_id):
    assert pricing.model_price(prices, model_id) is None


def test_unknown_model_gives_no_dollars_and_says_so(prices, tmp_path, capsys):
    path = tmp_path / "t.jsonl"
    path.write_text(response_line("m1", "claude-opus-5-5", inp=10, out=10) + "\n"
                    + response_line("m2", "claude-nova-1", inp=10, out=10) + "\n")
    u, _ = tokens.transcript_usage(path, prices)
    assert (u.cost_usd, u.unpriced_models) == (None, ("claude-nova-1",))
    assert main(["usage", str(path)]) == 0
    out = capsys.readouterr().out
    assert "dollars (imputed)       unknown: no price for model claude-nova-1\n" in out
    assert "$0" not in out


# ---------------------------------------------------------------------------
# claude-haiku-5-5's long-prompt tier, per response


def boundary_line(mid: str, read: int) -> str:
    # prompt = input 50,000 + writes 20,000 (5m) + 10,000 (1h) + read
    return response_line(mid, "claude-haiku-5-5", inp=50_000, out=1000, w5=20_000, w1=10_000, read=read)


def test_long_prompt_tier_boundary(prices):
    # prompt exactly 100,000: base prices
    # 0.1*50000 + 0.5*1000 + 0.125*20000 + 0.2*10000 + 0.01*20000 = 5000+500+2500+2000+200 = 10200 -> $0.0102
    assert cost(prices, [boundary_line("m1", 20_000)]).cost_usd == 0.0102
    # prompt 100,001: every kind at the long-prompt prices
    # 0.5*50000 + 2.5*1000 + 0.625*20000 + 1*10000 + 0.05*20001 = 25000+2500+12500+10000+1000.05 -> $0.05100005
    assert cost(prices, [boundary_line("m1", 20_001)]).cost_usd == 0.05100005


def test_output_is_not_part_of_the_prompt(prices):
    # prompt 100,000 with a large output stays in the base tier: 0.5 * 200,000 = 100,000 more
    line = response_line("m1", "claude-haiku-5-5", inp=100_000, out=200_000)
    assert cost(prices, [line]).cost_usd == 0.11  # 0.1*100000 + 0.5*200000 = 10000 + 100000


def test_tier_is_applied_per_response_not_to_the_sum(prices):
    lines = [boundary_line("m1", 20_000), boundary_line("m2", 20_001),
             response_line("m3", "claude-haiku-5-5", inp=60_000, out=10),
             response_line("m4", "claude-opus-5-5", inp=3, out=7, read=11)]
    u = cost(prices, lines)
    # m1 $0.0102 (base) + m2 $0.05100005 (long) + m3 0.1*60000 + 0.5*10 = 6005 -> $0.006005 (base)
    # + m4 4*3 + 20*7 + 0.2*11 = 12 + 140 + 2.2 = 154.2 -> $0.0001542
    # = 0.0102 + 0.05100005 + 0.006005 + 0.0001542 = 0.06735925
    assert u.cost_usd == 0.06735925
    assert u.models == ("claude-haiku-5-5", "claude-opus-5-5")
    # Summed, the haiku responses (prompt 260,001) would all have been priced long: the per-response
    # figures are what makes the bill exact.
    assert pricing.dollars(prices, usage.read_usage(lines[:3]).by_model) == (None, ("claude-haiku-5-5",))


def test_a_response_split_over_lines_is_tiered_once(prices):
    # Two lines of one message id: the group's largest figures, one response, prompt 100,001.
    first = response_line("m1", "claude-haiku-5-5", inp=50_000, out=1, w5=20_000, w1=10_000, read=20_001)
    assert cost(prices, [first, boundary_line("m1", 20_001)]).cost_usd == 0.05100005


def test_iterations_are_tiered_one_by_one_when_they_add_up(prices):
    # One response of two iterations, prompts 60,000 and 70,000 (130,000 in all): both base tier,
    # as Claude Code prices them. 0.1*(130000) + 0.5*(100) = 13000 + 50 = 13050 -> $0.01305
    its = [{"type": "message", "input_tokens": 60_000, "output_tokens": 40, "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0},
           {"type": "message", "input_tokens": 70_000, "output_tokens": 60, "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0}]
    line = response_line("m1", "claude-haiku-5-5", inp=130_000, out=100, iterations=its)
    assert cost(prices, [line]).cost_usd == 0.01305
    # Iterations that do not add up to the response are ignored: one prompt of 130,000, long tier.
    # 0.5*130000 + 2.5*100 = 65000 + 250 -> $0.06525
    bad = response_line("m1", "claude-haiku-5-5", inp=130_000, out=100, iterations=its[:1])
    assert cost(prices, [bad]).cost_usd == 0.06525


# ---------------------------------------------------------------------------
# what else Claude Code's bill depends on


def test_fast_mode_inference_geo_and_web_search(prices):
    # claude-opus-5-5 in 1,000 / out 100:
    #   standard 4*1000 + 20*100 = 6000 -> $0.006
    #   fast     8*1000 + 40*100 = 12000 -> $0.012
    #   inference_geo "us": x 1.1 -> $0.0066; 3 web searches: + 3 * $0.01
    base = dict(inp=1000, out=100)
    assert cost(prices, [response_line("m", "claude-opus-5-5", **base, speed="standard")]).cost_usd == 0.006
    assert cost(prices, [response_line("m", "claude-opus-5-5", **base, speed="fast")]).cost_usd == 0.012
    assert cost(prices, [response_line("m", "claude-opus-5-5", **base, inference_geo="us")]).cost_usd == 0.0066
    assert cost(prices, [response_line("m", "claude-opus-5-5", **base, inference_geo="not_available")]).cost_usd \
        == 0.006
    searched = response_line("m", "claude-opus-5-5", **base, server_tool_use={"web_search_requests": 3})
    assert cost(prices, [searched]).cost_usd == 0.036
    # a model without fast prices is priced at its standard prices in fast mode: sonnet-4-6 3*1000 + 15*100
    assert cost(prices, [response_line("m", "claude-sonnet-4-6", **base, speed="fast")]).cost_usd == 0.0045


def result_line(model_usage: dict, **usage_extra) -> str:
    return json.dumps({"type": "result", "num_turns": 1, "usage": {
        "input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
        **usage_extra}, "modelUsage": model_usage})


def model_usage(inp=0, out=0, w5=0, w1=0, read=0, searches=0) -> dict:
    # the shape Claude Code 2.1.328 writes (with the 5m/1h split)
    return {"inputTokens": inp, "outputTokens": out, "cacheReadInputTokens": read,
            "cacheCreationInputTokens": w5 + w1, "cacheCreationEphemeral5mInputTokens": w5,
            "cacheCreationEphemeral1hInputTokens": w1, "webSearchRequests": searches}


def stream_line(mid: str, model: str, **figures) -> str:
    # A stream-json assistant line holds the usage of the response's start: final prompt, output 1.
    return response_line(mid, model, out=1, **figures)


def test_result_line_sums_are_priced_when_every_response_shares_one_price(prices):
    # Both responses in the stream are within 100,000 though their sum is not: base tier.
    # in 60,000 + 70,000, out 100 in all: 0.1*130000 + 0.5*100 = 13000 + 50 -> $0.01305
    lines = [stream_line("m1", "claude-haiku-5-5", inp=60_000), stream_line("m2", "claude-haiku-5-5", inp=70_000),
             result_line({"claude-haiku-5-5": model_usage(inp=130_000, out=100)})]
    assert cost(prices, lines).cost_usd == 0.01305
    # A subagent's responses not in the stream (30,000 of prompt) next to one in it (1,000): within the
    # threshold they are all base tier. 0.1*31000 + 0.5*10 = 3105 -> $0.003105
    lines = [stream_line("m1", "claude-haiku-5-5", inp=1000),
             result_line({"claude-haiku-5-5": model_usage(inp=31_000, out=10)})]
    assert cost(prices, lines).cost_usd == 0.003105
    # The 5m/1h split is modelUsage's (the stream's start-of-response split may differ), and its web
    # searches count: opus-5-5 5*100 + 8*200 = 2100 -> $0.0021, + 2 x $0.01
    lines = [stream_line("m1", "claude-opus-5-5", w5=300),
             result_line({"claude-opus-5-5": model_usage(w5=100, w1=200, searches=2)})]
    assert cost(prices, lines).cost_usd == 0.0221


TIER_UNTOLD = "its long-prompt tier cannot be told from a stream-json result line"


@pytest.mark.parametrize("lines, why", [
    # above the threshold, a response may have iterations priced one by one: the stream does not say
    ([stream_line("m1", "claude-haiku-5-5", inp=100_001), stream_line("m2", "claude-haiku-5-5", inp=100_001),
      result_line({"claude-haiku-5-5": model_usage(inp=200_002, out=120)})], TIER_UNTOLD),
    ([stream_line("m1", "claude-haiku-5-5", inp=100_000), stream_line("m2", "claude-haiku-5-5", inp=100_001),
      result_line({"claude-haiku-5-5": model_usage(inp=200_001, out=2000)})], TIER_UNTOLD),
    # 200,000 of prompt from responses not in the stream (a subagent's): one response or several?
    ([stream_line("m1", "claude-haiku-5-5", inp=1000),
      result_line({"claude-haiku-5-5": model_usage(inp=201_000, out=10)})], TIER_UNTOLD),
    ([stream_line("m1", "claude-opus-5-5", inp=1000, speed="fast"), stream_line("m2", "claude-opus-5-5", inp=1000),
      result_line({"claude-opus-5-5": model_usage(inp=2000, out=10)})],
     "responses at different prices, and the result line sums them"),
], ids=["long", "both-tiers", "unseen-long", "fast-and-standard"])
def test_result_line_sums_that_cannot_be_priced_say_why(prices, lines, why):
    # The stream's lines give no response's output, so output cannot be split between prices.
    u = cost(prices, lines)
    assert (u.cost_usd, u.unpriced_models) == (None, (f"{u.models[0]} ({why})",))


# ---------------------------------------------------------------------------
# summed figures (estimates), and the data file itself


def test_dollars_of_summed_figures(prices):
    c = usage.Components(input=1000, output=2000, cache_write_5m=3000, cache_write_1h=4000, cache_read=50_000)
    assert pricing.dollars(prices, {"claude-opus-5-5": c}) == (0.101, ())
    assert pricing.dollars(prices, {"claude-opus-5-5": c, "claude-nova-1": c}) == (None, ("claude-nova-1",))
    # within the threshold a summed haiku-5-5 prompt is exact (every response was within it)
    assert pricing.dollars(prices, {"claude-haiku-5-5": c}) == (0.002775, ())


def test_packaged_table_says_where_its_prices_come_from(prices):
    assert prices.claude_code_version and prices.as_of and "catalog" in prices.source


VALID = {"id": "m", "prices": {"input": 1, "output": 5, "cache_write_5m": 1.25, "cache_write_1h": 2,
                               "cache_read": 0.1}}


@pytest.mark.parametrize("data, message", [
    ([], "is not a JSON object"),
    ({}, "'models' must be a list"),
    ({"models": [{"prices": VALID["prices"]}]}, "needs a non-empty string 'id'"),
    ({"models": [{"id": "m", "prices": {"input": 1}}]}, r"models\[0\] \(m\).prices must give a price for each of"),
    ({"models": [{**VALID, "prices": {**VALID["prices"], "output": "5"}}]},
     r"'models\[0\] \(m\).prices.output' must be a non-negative number"),
    ({"models": [{**VALID, "long_prompt": {"above_prompt_tokens": 0, "prices": VALID["prices"]}}]},
     "positive integer 'above_prompt_tokens'"),
    ({"models": [VALID, {**VALID, "id": "n", "provider_ids": ["M-20250101"]}]}, "the id 'm' also names m"),
    ({"models": [VALID], "inference_geo": {"us": -1}}, "'inference_geo.us' must be a non-negative number"),
], ids=["not-object", "no-models", "no-id", "missing-kind", "string-price", "zero-threshold", "shared-id", "geo"])
def test_bad_price_table_is_named(data, message):
    with pytest.raises(BenchError, match=message) as err:
        pricing.parse_prices(data, source="prices.json")
    assert err.value.path == "prices.json"


def test_prices_are_taken_as_written_in_decimal():
    table = pricing.parse_prices({"models": [{**VALID, "prices": {**VALID["prices"], "cache_read": 0.1}}]})
    assert table.models[0].rates.cache_read == Fraction(1, 10)
