"""A judge's answer: JSON text (a fenced code block is tolerated) or a schema object -> Judgment."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .model import Judgment


class AnswerError(ValueError):
    """The answer is not the JSON the packet asks for; the message says what is wrong."""


def _objects(text: str) -> list[dict]:
    """Every top-level JSON object written in ``text`` (fenced or not), in order."""
    dec = json.JSONDecoder()
    out: list[dict] = []
    i = text.find("{")
    while i >= 0:
        try:
            obj, end = dec.raw_decode(text, i)
        except ValueError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict):
            out.append(obj)
        i = text.find("{", end)
    return out


def parse_text(text: str) -> dict:
    """The one JSON object in a judge's final message (bare or in a fenced block).

    An answer holding two different verdict objects is invalid, not read as its first: which one the
    judge meant is not for collect to guess."""
    found = _objects(text)
    answers = [o for o in found if "verdict" in o]
    distinct = {json.dumps(o, sort_keys=True) for o in answers}
    if len(distinct) > 1:
        raise AnswerError(f"the answer holds {len(answers)} JSON verdicts, not one: " + _short(text))
    if answers:
        return answers[0]
    if found:
        return found[0]
    raise AnswerError("the answer is not a JSON object: " + _short(text))


def to_judgment(data: Any, packet_id: str, run_id: str) -> Judgment:
    """Check an answer object against the packet's format; AnswerError says what is wrong."""
    if not isinstance(data, dict):
        raise AnswerError("the answer is not a JSON object")
    pid = data.get("packet_id")
    # An escalation judge ("<id>#2") reads the same packet as the first judge, whose answer format names
    # the packet's own id; it was matched to its task by the "Packet id:" line of its prompt, so either id
    # is its own. Another packet's id is not.
    base = packet_id.split("#", 1)[0]
    if pid is not None and str(pid) not in {packet_id, base, f"{run_id}:{packet_id}", f"{run_id}:{base}"}:
        raise AnswerError(f"the answer is for packet {pid!r}, not {packet_id!r}")
    verdict = data.get("verdict")
    if isinstance(verdict, str):
        verdict = verdict.strip().upper()
    if verdict not in ("A", "B", "TIE"):
        raise AnswerError(f"verdict is {data.get('verdict')!r}, not one of A, B, TIE")
    strength = data.get("strength")
    if verdict == "TIE":
        strength = None
    elif strength not in ("clear", "slight"):
        raise AnswerError(f"strength is {strength!r}, not 'clear' or 'slight' (required for A or B)")
    rationale = data.get("rationale")
    if not isinstance(rationale, str) or not rationale.strip():
        raise AnswerError("rationale is missing")
    quote = data.get("quote")
    return Judgment(verdict=verdict, rationale=rationale.strip(), strength=strength,
                    quote=quote.strip() if isinstance(quote, str) and quote.strip() else None)


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def draw_order(seed: int, key: str, outputs_sha256: dict[str, str], other: str) -> dict[str, str]:
    """The blind order of one comparison of one trial (``key`` = "<case>/t<N>/<comparison>"): the new arm is
    A when the first byte of sha256(seed, key, the new output's sha256, the other output's sha256) is below
    128. It depends only on the seed and the two outputs' bytes, so it is reproducible, and no arm can know
    it before both outputs exist (an arm never sees the other arm's output)."""
    data = "\n".join((str(seed), key, outputs_sha256["new"], outputs_sha256[other])).encode()
    return {"A": "new", "B": other} if hashlib.sha256(data).digest()[0] < 128 else {"A": other, "B": "new"}


def same_prompt(planned: str, delivered: str) -> bool:
    """``delivered`` is ``planned``, whitespace at line ends and the text's ends aside."""
    norm = lambda t: "\n".join(line.rstrip() for line in t.strip().split("\n"))
    return norm(planned) == norm(delivered)
