"""A judge's answer: JSON, a fenced block or braces in prose; checked against the packet's format."""

from __future__ import annotations

import pytest

from benchcore.judging import AnswerError, parse_text, to_judgment
from benchcore.model import Judgment

RUN = "20261202T160000Z-3f2a"
PID = "01-small-diff/t1/efficacy"

TEXTS = [
    ('{"verdict": "A"}', {"verdict": "A"}),
    ('```json\n{"verdict": "B"}\n```', {"verdict": "B"}),
    ('Here it is:\n\n```\n{"verdict": "TIE"}\n```\nThanks.', {"verdict": "TIE"}),
    ('My answer: {"verdict": "A", "rationale": "x"} done', {"verdict": "A", "rationale": "x"}),
]


@pytest.mark.parametrize("text,expected", TEXTS, ids=["plain", "fenced-json", "fenced-bare", "in-prose"])
def test_parse_text(text, expected):
    assert parse_text(text) == expected


@pytest.mark.parametrize("text", ["I prefer A.", "[1, 2]", '{"verdict": "A"', ""], ids=["prose", "list", "cut", "empty"])
def test_parse_text_rejects(text):
    with pytest.raises(AnswerError, match="not a JSON object"):
        parse_text(text)


GOOD = [
    ({"packet_id": PID, "verdict": "A", "strength": "clear", "rationale": "r"},
     Judgment(verdict="A", strength="clear", rationale="r")),
    ({"packet_id": f"{RUN}:{PID}", "verdict": "b", "strength": "slight", "rationale": " r ", "quote": "q"},
     Judgment(verdict="B", strength="slight", rationale="r", quote="q")),
    ({"verdict": "TIE", "strength": "clear", "rationale": "r"}, Judgment(verdict="TIE", rationale="r")),
]


@pytest.mark.parametrize("data,expected", GOOD, ids=["bare-id", "run-id-lowercase-quote", "tie-drops-strength"])
def test_to_judgment(data, expected):
    assert to_judgment(data, PID, RUN) == expected


BAD = [
    ({"packet_id": "other/t1/efficacy", "verdict": "A", "strength": "clear", "rationale": "r"}, "for packet"),
    ({"verdict": "C", "rationale": "r"}, "not one of A, B, TIE"),
    ({"verdict": "A", "rationale": "r"}, "strength"),
    ({"verdict": "A", "strength": "huge", "rationale": "r"}, "strength"),
    ({"verdict": "B", "strength": "clear"}, "rationale is missing"),
    ("A", "not a JSON object"),
]


@pytest.mark.parametrize("data,message", BAD, ids=["other-packet", "bad-verdict", "no-strength", "bad-strength",
                                                   "no-rationale", "not-object"])
def test_to_judgment_rejects(data, message):
    with pytest.raises(AnswerError, match=message):
        to_judgment(data, PID, RUN)


def test_an_escalation_judge_may_name_the_packet_it_read():
    # Bug: an escalation judge ("...#2") that copied packet_id from the packet's answer format (which names
    # the packet, without "#2") was rejected as answering another packet, so a split could never resolve.
    answer = {"packet_id": f"{RUN}:{PID}", "verdict": "A", "strength": "clear", "rationale": "r"}
    assert to_judgment(answer, f"{PID}#2", RUN) == Judgment(verdict="A", strength="clear", rationale="r")
    assert to_judgment(dict(answer, packet_id=f"{PID}#3"), f"{PID}#3", RUN).verdict == "A"
    with pytest.raises(AnswerError, match="for packet"):
        to_judgment(dict(answer, packet_id=f"{RUN}:{PID}#3"), f"{PID}#2", RUN)


@pytest.mark.parametrize("text", [
    '{"verdict": "A", "rationale": "x"}\n{"verdict": "B", "rationale": "y"}',
    '```json\n{"verdict": "B"}\n```\nOn second thought:\n```json\n{"verdict": "A"}\n```',
], ids=["two-bare", "two-fenced"])
def test_an_answer_with_two_verdicts_is_invalid_not_its_first(text):
    # Bug: a judge answer holding two JSON verdicts was silently read as its first.
    with pytest.raises(AnswerError, match="2 JSON verdicts, not one"):
        parse_text(text)


def test_the_same_verdict_written_twice_is_one_answer():
    assert parse_text('{"verdict": "A"}\n\n```json\n{"verdict": "A"}\n```') == {"verdict": "A"}
