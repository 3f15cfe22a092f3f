"""Model ids as the price table matches them (pure: no I/O; apart, so ``benchcore usage`` imports no attrs)."""

from __future__ import annotations

import re

# Provider spellings of one model id (see normalize_model_id).
_BEDROCK_PREFIX = re.compile(r"^(?:[a-z][a-z0-9-]*\.)?anthropic\.")
_VERTEX_DATE = re.compile(r"@\d{8}$")
_BEDROCK_VERSION = re.compile(r"-v\d+(?::\d+)?$")
_DATE_SUFFIX = re.compile(r"-\d{8}$")


def normalize_model_id(model: str) -> str:
    """The id a model is matched by: provider spellings of one model give the same id.

    Lower-cased; a Bedrock ``<region>.anthropic.`` or ``anthropic.`` prefix, a
    Vertex ``@YYYYMMDD``, a Bedrock version ``-vN`` / ``-vN:M`` and then a
    first-party ``-YYYYMMDD`` are removed, in that order:
    ``us.anthropic.claude-haiku-4-5-20251001-v1:0``, ``claude-haiku-4-5@20251001``
    and ``claude-haiku-4-5-20251001`` all become ``claude-haiku-4-5``.
    """
    name = model.strip().lower()
    name = _BEDROCK_PREFIX.sub("", name)
    name = _VERTEX_DATE.sub("", name)
    name = _BEDROCK_VERSION.sub("", name)
    return _DATE_SUFFIX.sub("", name)
