"""bound.pieces and bound.line_width, cut by slicing runs of plain characters, give exactly what the
character-by-character rule gives (kept here as the reference), on random text with every kind of character."""

from __future__ import annotations

import random
from benchcore.harness.fanout import bound

def ref_pieces(text):
    out = []; start, width = 0, 0
    for i, ch in enumerate(text):
        w = bound._escaped_width(ch)
        if width + w > bound.PIECE and i > start:
            out.append(text[start:i]); start, width = i, 0
        width += w
    if start < len(text): out.append(text[start:])
    return out

def ref_width(line):
    return len(line) + sum(1 for ch in line if ord(ch) > 0xFFFF)

def test_pieces_and_widths_match_the_character_by_character_rule():
    rng = random.Random(3)
    alphabet = ["a", " ", "\n", '"', "\\", "\x01", "\t", "é", "\U0001F600", "\u2028", "\x7f", "\ud800"]
    for _ in range(20000):
        n = rng.choice([0, 1, 5, 79, 80, 81, 160, 300, 1000])
        weights = rng.choice([[1]*len(alphabet), [50, 10] + [1]*(len(alphabet)-2), [100] + [0]*(len(alphabet)-1)])
        t = "".join(rng.choices(alphabet, weights, k=n))
        assert bound.pieces(t) == ref_pieces(t), repr(t)
        assert bound.line_width(t) == ref_width(t)
