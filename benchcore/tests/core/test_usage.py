"""Transcript usage (docs/run-format.md, usage and cost) and pricing, on committed fixtures and the shared real samples.

The project's fixtures under tests/fixtures/transcripts/ are hand-written in
the real formats; each test states the arithmetic behind its expected figures.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchcore import pricing, usage
from benchcore.errors import BenchError
from benchcore.harness.claude import tokens
from benchcore.model import ArmUsage
from places import TESTS

FIXTURES = TESTS / "fixtures" / "transcripts"
SHARED = TESTS / "fixtures" / "claude-code"  # real transcripts, committed (see its README)


@pytest.fixture(scope="module")
def prices() -> pricing.PriceTable:
    return tokens.price_table()


def figures(u: ArmUsage) -> dict:
    return {k: getattr(u, k) for k in ("turns", "input", "output", "cache_write_5m", "cache_write_1h",
                                       "cache_read", "raw_tokens", "cost_equivalent_tokens", "cost_usd",
                                       "models", "unpriced_models")}


# ---------------------------------------------------------------------------
# committed fixtures


def test_subagent_on_disk(prices):
    tu = tokens.read_transcript(FIXTURES / "subagent-on-disk.jsonl")
    # Responses (sonnet-4-6, $3 per M input):
    #   A msg_01Aaaa: 3 lines, output 8, 8, 250 -> in 3, out 250, write 1000 (1h 1000), read 20000
    #   B msg_01Bbbb: 2 non-adjacent lines, output 3, 90, no split -> in 5, out 90, 5m 400, read 21000
    #   D msg_01Dddd: 1 line, split 5m 300 / 1h 200 -> in 2, out 40, read 21400
    # Not counted: the <synthetic> line, the progress line (a nested agent's
    # message), both user records with "usage" in them, the truncated last line (skipped: 1).
    # input 3+5+2 = 10; output 250+90+40 = 380; 5m 0+400+300 = 700; 1h 1000+0+200 = 1200;
    # read 20000+21000+21400 = 62400; raw 10+380+700+1200+62400 = 64690
    # cost-eq 10 + 5*380 + 1.25*700 + 2*1200 + 0.1*62400 = 10+1900+875+2400+6240 = 11425
    # dollars 3 * 11425 / 1e6 = 0.034275
    assert tu.skipped_lines == 1
    assert not tu.from_result_line
    assert figures(usage.arm_usage(tu, prices)) == {
        "turns": 3, "input": 10, "output": 380, "cache_write_5m": 700, "cache_write_1h": 1200,
        "cache_read": 62400, "raw_tokens": 64690, "cost_equivalent_tokens": 11425.0, "cost_usd": 0.034275,
        "models": ("claude-sonnet-4-6",), "unpriced_models": ()}


def test_two_models_priced_per_model_and_grouped_by_request_id(prices):
    tu = tokens.read_transcript(FIXTURES / "two-models.jsonl")
    # R1 opus-4-5 ($5): in 4, out 100, read 1000.
    # R2 haiku-4-5 ($1): no message.id, two lines grouped by requestId req_011R2 -> in 6, out max(1, 60) = 60,
    #   5m 2000. A malformed line (double comma) and a blank line sit between them: skipped 1 (blank lines are not).
    # opus  $: 5 * (4 + 5*100 + 0.1*1000) / 1e6 = 5 * 604 / 1e6 = 0.00302
    # haiku $: 1 * (6 + 5*60 + 1.25*2000) / 1e6 = 2806 / 1e6 = 0.002806      total 0.005826
    # cost-eq (10) + 5*160 + 1.25*2000 + 0.1*1000 = 10+800+2500+100 = 3410
    assert tu.skipped_lines == 1
    assert tu.by_model == {
        "claude-opus-4-5-20251101": usage.Components(input=4, output=100, cache_read=1000),
        "claude-haiku-4-5-20251001": usage.Components(input=6, output=60, cache_write_5m=2000)}
    assert figures(usage.arm_usage(tu, prices)) == {
        "turns": 2, "input": 10, "output": 160, "cache_write_5m": 2000, "cache_write_1h": 0,
        "cache_read": 1000, "raw_tokens": 3170, "cost_equivalent_tokens": 3410.0, "cost_usd": 0.005826,
        "models": ("claude-haiku-4-5-20251001", "claude-opus-4-5-20251101"), "unpriced_models": ()}


def test_stream_json_result_line_is_authoritative(prices):
    tu = tokens.read_transcript(FIXTURES / "stream-json.jsonl")
    # The lines alone would give 3 responses with placeholder outputs (8, 70, 1);
    # the result line says num_turns 2 and usage in 4, out 420, write 5300 (all 1h), read 35000.
    # raw 4+420+5300+35000 = 40724; cost-eq 4 + 2100 + 2*5300 + 3500 = 16204
    # Dollars from modelUsage; each model's 1h share from its own lines
    # (sonnet lines: 1h 5000 + 300 = 5300; haiku lines: 1h 0, so its 4000 are 5m):
    #   sonnet 3 * (4 + 5*420 + 2*5300 + 0.1*35000) / 1e6 = 3 * 16204 / 1e6 = 0.048612
    #   haiku  1 * (3 + 5*75 + 1.25*4000) / 1e6 = 5378 / 1e6 = 0.005378     total 0.05399
    assert tu.from_result_line
    assert figures(usage.arm_usage(tu, prices)) == {
        "turns": 2, "input": 4, "output": 420, "cache_write_5m": 0, "cache_write_1h": 5300,
        "cache_read": 35000, "raw_tokens": 40724, "cost_equivalent_tokens": 16204.0, "cost_usd": 0.05399,
        "models": ("claude-haiku-4-5-20251001", "claude-sonnet-4-6"), "unpriced_models": ()}


def test_stream_json_without_its_result_line_counts_responses():
    lines = (FIXTURES / "stream-json.jsonl").read_bytes().splitlines(keepends=True)[:-1]
    tu = usage.read_usage(lines)
    # msg_01S1 (2 lines): in 3, out 8, 1h 5000, read 15000; msg_01H1: in 3, out 70, 5m 4000;
    # msg_01S2: in 1, out 1, 1h 300, read 20000
    assert (tu.turns, tu.totals) == (3, usage.Components(input=7, output=79, cache_write_5m=4000,
                                                         cache_write_1h=5300, cache_read=35000))


def test_unknown_model_has_no_dollars(prices):
    u = usage.arm_usage(tokens.read_transcript(FIXTURES / "unknown-model.jsonl"), prices)
    # two responses of in 10 / out 10: cost-eq 2 * (10 + 50) = 120; claude-nova-1 is in no price entry
    assert figures(u) == {
        "turns": 2, "input": 20, "output": 20, "cache_write_5m": 0, "cache_write_1h": 0, "cache_read": 0,
        "raw_tokens": 40, "cost_equivalent_tokens": 120.0, "cost_usd": None,
        "models": ("claude-nova-1", "claude-sonnet-4-6"), "unpriced_models": ("claude-nova-1",)}


# ---------------------------------------------------------------------------
# the reducer on lines in memory


def line(**record) -> str:
    return json.dumps(record)


def assistant(mid, model="claude-sonnet-4-6", **u) -> str:
    return line(type="assistant", message={"id": mid, "model": model, "role": "assistant", "usage": u})


def test_str_and_bytes_lines_agree():
    text = [assistant("m1", input_tokens=1, output_tokens=2), assistant("m1", input_tokens=1, output_tokens=9)]
    from_str = usage.read_usage(text)
    from_bytes = usage.read_usage([t.encode() + b"\n" for t in text])
    assert from_str == from_bytes
    assert (from_str.turns, from_str.totals) == (1, usage.Components(input=1, output=9))


def test_group_maxima_do_not_depend_on_line_order_or_adjacency():
    lines = [assistant("m1", output_tokens=40, cache_read_input_tokens=5),
             assistant("m2", output_tokens=1),
             assistant("m1", output_tokens=7, cache_read_input_tokens=9)]
    tu = usage.read_usage(lines)
    # m1: out max(40, 7) = 40, read max(5, 9) = 9; m2: out 1
    assert (tu.turns, tu.totals) == (2, usage.Components(output=41, cache_read=9))
    assert usage.read_usage(reversed(lines)) == tu


def test_user_record_with_usage_object_and_assistant_marker_is_not_counted():
    rec = line(type="user", message={"role": "user", "content": [{"type": "tool_result", "content": "x"}]},
               toolUseResult={"agentType": "assistant", "usage": {"input_tokens": 5000, "output_tokens": 700}})
    tu = usage.read_usage([rec])
    assert (tu.turns, tu.totals, tu.skipped_lines) == (0, usage.Components(), 0)


def test_nested_type_user_before_the_top_level_type_does_not_hide_an_assistant_line():
    # On disk the assistant record's own "type" comes after its message; a tool
    # input early in the line may hold "type":"user" (one level deeper).
    rec = ('{"parentUuid":"u1","message":{"id":"m1","model":"claude-sonnet-4-6","role":"assistant",'
           '"content":[{"type":"tool_use","name":"db","input":{"type":"user","id":7}}],'
           '"usage":{"input_tokens":4,"output_tokens":2}},"requestId":"r1","type":"assistant"}')
    tu = usage.read_usage([rec])
    assert (tu.turns, tu.totals) == (1, usage.Components(input=4, output=2))


def test_type_first_records_in_both_spacings():
    # stream-json and Python-written lines put the type first, with or without a space
    compact = '{"type":"assistant","message":{"id":"a","model":"m","usage":{"input_tokens":1,"output_tokens":1}}}'
    spaced = '{"type": "assistant", "message": {"id": "b", "model": "m", "usage": {"input_tokens": 2}}}'
    user = '{"type": "user", "message": {"role": "user", "content": "x"}, "usage": {"input_tokens": 99}}'
    tu = usage.read_usage([compact, spaced, user])
    assert (tu.turns, tu.totals) == (2, usage.Components(input=3, output=1))


def test_cache_write_split_and_its_absence():
    tu = usage.read_usage([
        # split present: 5m 30, 1h 70
        assistant("a", cache_creation_input_tokens=100,
                  cache_creation={"ephemeral_5m_input_tokens": 30, "ephemeral_1h_input_tokens": 70}),
        # no split: all 50 are 5m
        assistant("b", cache_creation_input_tokens=50),
    ])
    assert tu.totals == usage.Components(cache_write_5m=80, cache_write_1h=70)


def test_synthetic_malformed_and_blank_lines():
    tu = usage.read_usage([
        assistant("s", model="<synthetic>", input_tokens=9, output_tokens=9),
        "",
        "   ",
        '{"type":"assistant","message":{"usage":{"input_tokens":1}}',   # unbalanced: skipped
        "not json at all",                                              # skipped
        '{"type":"assistant","message":{"id":"x","usage":[1,2]}}',      # usage not an object: skipped
        assistant("ok", input_tokens=2),
    ])
    assert (tu.turns, tu.totals, tu.skipped_lines) == (1, usage.Components(input=2), 3)
    assert tu.models == ("claude-sonnet-4-6",)


def test_truncated_last_line_ending_in_a_brace_is_counted():
    # cut right after a nested object: framing alone would accept it
    tu = usage.read_usage([line(type="user", message={"role": "user", "content": "hi"}) + "\n",
                           '{"type":"user","message":{"role":"user"}'])
    assert tu.skipped_lines == 1


def test_missing_model_is_unknown_and_unpriced(prices):
    tu = usage.read_usage([line(type="assistant", message={"id": "m", "usage": {"input_tokens": 3}})])
    u = usage.arm_usage(tu, prices)
    assert (u.models, u.unpriced_models, u.cost_usd) == (("<unknown>",), ("<unknown>",), None)


def test_empty_transcript():
    tu = usage.read_usage([])
    assert (tu.turns, tu.totals, tu.by_model, tu.skipped_lines) == (0, usage.Components(), {}, 0)


# ---------------------------------------------------------------------------
# summing an arm over cells


def test_add_and_sum_usage():
    a = ArmUsage(turns=1, input=1, output=2, cache_write_5m=4, cache_read=3, raw_tokens=10,
                 cost_equivalent_tokens=0.0, cost_usd=0.5, models=("m-b",))
    b = ArmUsage(turns=2, cache_write_1h=10, cache_read=4, raw_tokens=14, cost_usd=0.25, models=("m-a", "m-b"))
    total = usage.add_usage(a, b)
    # components add; cost-eq recomputed: 1 + 5*2 + 1.25*4 + 2*10 + 0.1*7 = 1+10+5+20+0.7 = 36.7
    assert figures(total) == {
        "turns": 3, "input": 1, "output": 2, "cache_write_5m": 4, "cache_write_1h": 10, "cache_read": 7,
        "raw_tokens": 24, "cost_equivalent_tokens": 36.7, "cost_usd": 0.75, "models": ("m-a", "m-b"),
        "unpriced_models": ()}
    assert usage.sum_usage([a, b]) == total
    assert usage.sum_usage([]) == ArmUsage()


def test_sum_with_an_unpriced_cell_has_no_dollars():
    priced = ArmUsage(turns=1, input=5, raw_tokens=5, cost_equivalent_tokens=5.0, cost_usd=0.1, models=("x",))
    unpriced = ArmUsage(turns=1, input=5, raw_tokens=5, cost_equivalent_tokens=5.0, cost_usd=None,
                        models=("z",), unpriced_models=("z",))
    total = usage.sum_usage([priced, unpriced, priced])
    assert (total.cost_usd, total.unpriced_models, total.models) == (None, ("z",), ("x", "z"))


# ---------------------------------------------------------------------------
# pricing


def test_cost_equivalent_tokens_is_exact():
    # 0.1 * 3 in floating point is 0.30000000000000004; the contract's figure is 0.3
    assert pricing.cost_equivalent_tokens(usage.Components(cache_read=3)) == 0.3
    assert pricing.cost_equivalent_tokens(usage.Components(1, 1, 1, 1, 1)) == 1 + 5 + 1.25 + 2 + 0.1


# ---------------------------------------------------------------------------
# the real samples (tests/fixtures/claude-code, committed)


def shared(rel: str) -> Path:
    return SHARED / rel


@pytest.mark.parametrize("rel", ["stream-json/explore_count_files.jsonl",
                                 "stream-json/general_purpose_compute.jsonl"])
def test_real_stream_json_matches_its_result_line(prices, rel):
    path = shared(rel)
    result = json.loads(path.read_text().splitlines()[-1])
    u, skipped = tokens.transcript_usage(path, prices)
    assert skipped == 0
    assert u.turns == result["num_turns"]
    assert (u.input, u.output, u.cache_read) == (result["usage"]["input_tokens"], result["usage"]["output_tokens"],
                                                 result["usage"]["cache_read_input_tokens"])
    assert u.cache_write_5m + u.cache_write_1h == result["usage"]["cache_creation_input_tokens"]
    assert u.cache_write_1h == result["usage"]["cache_creation"]["ephemeral_1h_input_tokens"]
    assert u.models == tuple(sorted(result["modelUsage"]))
    # imputed dollars equal Claude Code's own figure (which carries float noise past 1e-10)
    assert u.cost_usd == round(result["total_cost_usd"], 10)


def test_real_stream_json_lines_without_result():
    lines = shared("stream-json/explore_count_files.jsonl").read_bytes().splitlines(keepends=True)[:-1]
    tu = usage.read_usage(lines)
    # msg_01QoWn (sonnet, 3 lines, output 7 each): in 3, out 7, 1h 6728, read 16945
    # msg_019Euy (haiku subagent):                 in 3, out 70, 5m 7699, read 0
    # msg_01SwUd (sonnet):                          in 1, out 1, 1h 553, read 23673
    assert tu.turns == 3
    assert tu.totals == usage.Components(input=7, output=78, cache_write_5m=7699, cache_write_1h=7281,
                                         cache_read=40618)


def test_real_on_disk_subagent(prices):
    path = shared("on-disk/agent/55550000-0000-4000-8000-000000000001/subagents/agent-showcol1.jsonl")
    u, skipped = tokens.transcript_usage(path, prices)
    # one haiku-4-5 response: in 120, out 40 -> cost-eq 120 + 200 = 320; $1 * 320 / 1e6
    assert figures(u) == {
        "turns": 1, "input": 120, "output": 40, "cache_write_5m": 0, "cache_write_1h": 0, "cache_read": 0,
        "raw_tokens": 160, "cost_equivalent_tokens": 320.0, "cost_usd": 0.00032,
        "models": ("claude-haiku-4-5-20251001",), "unpriced_models": ()}
    assert skipped == 0


def test_real_workflow_journal_has_no_usage():
    tu = tokens.read_transcript(
        shared("on-disk/workflow/22220000-0000-4000-8000-000000000002/subagents/workflows/wf_sp01/journal.jsonl"))
    # its {"type": "result"} lines are workflow results, not stream-json results: no usage key
    assert (tu.turns, tu.from_result_line, tu.skipped_lines) == (0, False, 0)


# ---------------------------------------------------------------------------
# files


def test_missing_transcript_names_the_file(tmp_path):
    missing = tmp_path / "cases" / "01" / "t1" / "new" / "transcript.jsonl"
    with pytest.raises(BenchError) as err:
        tokens.read_transcript(missing)
    assert err.value.path == str(missing)
    assert "not found" in err.value.message


def test_directory_is_not_a_transcript(tmp_path):
    with pytest.raises(BenchError, match="is a directory"):
        tokens.read_transcript(tmp_path)
