"""The block reader gives exactly what the line-by-line reducer gives, whatever the chunks and the damage."""

from __future__ import annotations

import json
import random
from pathlib import Path

from benchcore import usage
from benchcore.usage.scan import read_usage_chunks
from places import TESTS

FIXTURES = TESTS / "fixtures" / "transcripts"


def _chunks(data: bytes, rng: random.Random):
    at = 0
    while at < len(data):
        size = rng.choice((1, 7, 64, 300, 4096, 1 << 20))
        yield data[at:at + size]
        at += size


def _lines_of(data: bytes):
    return [line + b"\n" for line in data.split(b"\n")[:-1]] + ([data.rsplit(b"\n", 1)[-1]] if not data.endswith(b"\n") and data else [])


def _same(data: bytes, rng: random.Random) -> None:
    want = usage.read_usage(_lines_of(data))
    assert read_usage_chunks(_chunks(data, rng)) == want
    assert read_usage_chunks([data]) == want


def _assistant(i: int, rng: random.Random, msg_id: bool = True) -> bytes:
    rec = {"type": "assistant", "message": {"model": rng.choice(["claude-sonnet-4-6", "claude-opus-4-6", "<synthetic>"]),
           "usage": {"input_tokens": rng.randint(0, 9), "output_tokens": rng.randint(0, 900),
                     "cache_creation_input_tokens": rng.randint(0, 5000), "cache_read_input_tokens": rng.randint(0, 9000)}}}
    if msg_id:
        rec["message"]["id"] = f"msg_{i % 7}"
    if rng.random() < 0.3:
        rec = {"message": rec["message"], "type": "assistant"}  # type after the message
    return json.dumps(rec).encode()


def _user(rng: random.Random) -> bytes:
    text = rng.choice(['"usage" in a tool result', "plain", '{"type":"assistant","usage":1}', "x" * 5000])
    return json.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "content": text}]}}).encode()


def test_the_block_reader_matches_the_reducer_on_damaged_transcripts():
    rng = random.Random(11)
    for _ in range(300):
        lines = []
        for i in range(rng.randint(0, 30)):
            kind = rng.random()
            if kind < 0.4:
                lines.append(_assistant(i, rng, msg_id=rng.random() < 0.8))
            elif kind < 0.8:
                lines.append(_user(rng))
            elif kind < 0.85:
                lines.append(b"")
            elif kind < 0.9:
                lines.append(b"  " + _assistant(i, rng) + b" \r")
            elif kind < 0.95:
                lines.append(_assistant(i, rng)[:-5])  # cut mid-record
            else:
                lines.append(b'{"type":"result","usage":{"input_tokens":3},"num_turns":2}')
        data = b"\n".join(lines) + (b"\n" if rng.random() < 0.7 else b"")
        _same(data, rng)


def test_the_block_reader_matches_the_reducer_on_the_committed_transcripts():
    rng = random.Random(2)
    paths = sorted(FIXTURES.rglob("*.jsonl"))
    assert paths
    for path in paths:
        _same(path.read_bytes(), rng)


def test_a_cut_last_line_is_skipped_and_a_whole_one_is_not_parsed_again():
    # Claude Code appends each record with its line break in one write, so only a last line without one can
    # have been cut. Cut just after a nested object, it still ends in '}': it is parsed, found broken, skipped.
    user = json.dumps({"type": "user", "message": {"content": [{"type": "tool_result", "content": "x" * 50}]}})
    cut = user[:user.index('"x')] + '{"a": 1}'  # ends in '}' but is no record
    assert cut.endswith("}")
    whole = (user + "\n").encode()
    for data, skipped in (((cut + "\n").encode(), 0), (cut.encode(), 1), (whole, 0), (whole[:-1], 0)):
        assert read_usage_chunks([data]).skipped_lines == skipped, data[-20:]
        assert usage.read_usage(_lines_of(data)).skipped_lines == skipped


def test_records_with_their_type_last_count_as_when_parsed_whole():
    # The reader tells a user record whose "type" comes last from its end, without scanning the tool result;
    # what it counts must equal the text reader's (which parses every line that can carry usage).
    u = {"input_tokens": 3, "output_tokens": 40, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 7}
    big = "x" * 20000 + ' "usage" "assistant" {"type":"assistant"} '
    lines = [
        {"message": {"role": "user", "content": [{"type": "tool_result", "content": big}]}, "uuid": "u1",
         "type": "user"},
        {"message": {"model": "claude-sonnet-4-6", "id": "m1", "usage": u}, "uuid": "a1", "type": "assistant"},
        # the last "type" is the message's, not the record's: the record's (first) type is assistant
        {"type": "assistant", "message": {"model": "claude-sonnet-4-6", "id": "m2", "usage": u,
                                          "content": big, "type": "user"}},
        # a type after a nested value's end, with the record's own type nowhere else
        {"message": {"model": "claude-opus-4-6", "id": "m3", "usage": u, "content": [big]}, "type": "assistant"},
        {"message": {"role": "user", "content": big}, "type": "user", "timestamp": "2026-12-04T00:00:00Z"},
        {"message": {"role": "user", "content": big}, "type": "us\\u0065r"},
    ]
    data = "".join(json.dumps(rec) + "\n" for rec in lines).replace('"us\\\\u0065r"', '"us\\u0065r"').encode()
    as_text = usage.read_usage([line.decode() for line in _lines_of(data)])
    assert as_text.turns == 3
    assert usage.read_usage(_lines_of(data)) == as_text
    assert read_usage_chunks([data]) == as_text


def test_a_user_type_as_the_last_key_is_read_from_the_end_as_json_loads_reads_it():
    # The last of a repeated key is the one json.loads keeps; a nested "type" at the end is not the record's.
    usage_obj = '{"input_tokens":5,"output_tokens":7}'
    lines = [
        '{"type":"assistant","message":{"id":"a","model":"claude-sonnet-4-6","usage":%s},"type":"user"}' % usage_obj,
        '{"type":"assistant","message":{"id":"b","model":"claude-sonnet-4-6","usage":%s},"x":{"a":1,"type":"user"}}'
        % usage_obj,
        '{"message":{"id":"c","model":"claude-sonnet-4-6","usage":%s,"t":"x,\\"type\\":\\"user\\"}"},"type":"assistant"}'
        % usage_obj,
    ]
    data = ("\n".join(lines) + "\n").encode()
    tu = read_usage_chunks([data])
    want = [json.loads(line) for line in lines]
    assert tu.turns == sum(r["type"] == "assistant" for r in want) == 2
    assert tu.totals.input == 10
