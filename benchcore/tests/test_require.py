"""A missing tool skips a test, or fails it where CI requires the tool (issue 39, item 12)."""

import pytest

from require import missing


@pytest.mark.parametrize("what,knob", [("sandbox", "BENCH_REQUIRE_SANDBOX"), ("browser", "BENCH_REQUIRE_BROWSER")])
def test_a_missing_tool_skips_unless_required(monkeypatch, what, knob):
    monkeypatch.delenv(knob, raising=False)
    with pytest.raises(pytest.skip.Exception, match="no bwrap"):
        missing(what, "no bwrap")
    monkeypatch.setenv(knob, "1")
    with pytest.raises(pytest.fail.Exception, match=f"{knob}=1 says the {what} is required here, but no bwrap"):
        missing(what, "no bwrap")
