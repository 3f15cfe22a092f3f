"""Model ids as the price table matches them (pure: no I/O; apart, so ``benchcore usage`` imports no attrs)."""

from __future__ import annotations


def normalize_model_id(model: str) -> str:
    """The id a model is matched by: provider spellings of one model give the same id.

    Lower-cased; a Bedrock ``<region>.anthropic.`` or ``anthropic.`` prefix, a
    Vertex ``@YYYYMMDD``, a Bedrock version ``-vN`` / ``-vN:M`` and then a
    first-party ``-YYYYMMDD`` are removed, in that order:
    ``us.anthropic.claude-haiku-4-5-20251001-v1:0``, ``claude-haiku-4-5@20251001``
    and ``claude-haiku-4-5-20251001`` all become ``claude-haiku-4-5``.
    """
    # String steps, not regular expressions: importing re costs `benchcore usage` ~5 ms. Each does what
    # the expression in its comment does with re.sub (\d: a decimal digit of any script, as re's \d).
    name = model.strip().lower()
    # ^(?:[a-z][a-z0-9-]*\.)?anthropic\.  (the region is tried first, as re tries the optional group first)
    region, dot, rest = name.partition(".")
    if (dot and rest.startswith("anthropic.") and region[:1].isascii() and region[:1].isalpha()
            and all(ch == "-" or ch.isascii() and (ch.isdigit() or ch.islower()) for ch in region)):
        name = rest[10:]
    elif name.startswith("anthropic."):
        name = name[10:]
    # @\d{8}$  ('$' also matches before a final line break, so each step looks at the name without it)
    body, end = _ends(name)
    if len(body) >= 9 and body[-9] == "@" and _digits(body[-8:]):
        name = body[:-9] + end
    # -v\d+(?::\d+)?$
    body, end = _ends(name)
    head, colon, minor = body.rpartition(":")
    if not colon or not _digits(minor):
        head = body
    cut = head.rfind("-v")
    if cut >= 0 and _digits(head[cut + 2:]):
        name = body[:cut] + end
    # -\d{8}$
    body, end = _ends(name)
    if len(body) >= 9 and body[-9] == "-" and _digits(body[-8:]):
        name = body[:-9] + end
    return name


def _ends(name: str) -> tuple[str, str]:
    """Where re's '$' may end a match in ``name``, and what follows: a final line break, or nothing."""
    return (name[:-1], "\n") if name.endswith("\n") else (name, "")


def _digits(text: str) -> bool:
    """Whether ``text`` is one or more decimal digits (re's \\d+)."""
    return text.isdecimal()
