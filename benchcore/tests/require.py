"""A test whose tool is missing here skips, unless CI said the tool is required: then it fails (issue 39, item 12).

CI (.ci/run) installs bubblewrap, Chromium and the pinned Claude Code CLI and sets ``BENCH_REQUIRE_SANDBOX=1``,
``BENCH_REQUIRE_BROWSER=1`` and ``BENCH_REQUIRE_REALCLI=1``, so a tool that stopped working there is a red build,
not a quiet skip. On a developer's machine without them the tests skip, naming what is missing.
"""

from __future__ import annotations

import os

import pytest

KNOBS = {"sandbox": "BENCH_REQUIRE_SANDBOX", "browser": "BENCH_REQUIRE_BROWSER", "realcli": "BENCH_REQUIRE_REALCLI"}


def missing(what: str, why: str, module_level: bool = False) -> None:
    """Skip the test (or the module) because ``why``; fail it instead when CI requires ``what``."""
    knob = KNOBS[what]
    if os.environ.get(knob) == "1":
        pytest.fail(f"{knob}=1 says the {what} is required here, but {why}", pytrace=False)
    pytest.skip(why, allow_module_level=module_level)
