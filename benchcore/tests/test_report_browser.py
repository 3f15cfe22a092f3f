"""The rendered pages in a real browser: headless Chromium loads them with no error,
no request and no script. Skipped where no Chromium is installed (CI runs
``browser_check.py`` directly; see its docstring)."""

from __future__ import annotations

import pytest

import browser_check
import report_sample

pytestmark = pytest.mark.skipif(browser_check.find_chromium() is None,
                                reason="no Chromium (apt-get install chromium)")


def test_sample_pages_load_cleanly_and_screenshot(tmp_path, capsys):
    assert report_sample.main([str(tmp_path)]) == 0
    shot = tmp_path / "report.png"
    assert browser_check.main([str(tmp_path / "sample-skill.html"), "--screenshot",
                               str(shot)]) == 0
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "3 panels, 3 open" in capsys.readouterr().out
    assert browser_check.main([str(tmp_path / "clean-skill.html")]) == 0
    assert "2 panels, 0 open" in capsys.readouterr().out
    assert browser_check.main([str(tmp_path / "index.html")]) == 0


@pytest.mark.parametrize("body, expected", [
    ("<script>undefinedFunction()</script>", "uncaught exception: ReferenceError"),
    ("<script>console.error('boom')</script>", "console.error: boom"),
    ('<img src="https://example.invalid/x.png" alt="">',
     "network request: https://example.invalid/x.png"),
], ids=["uncaught", "console-error", "external-load"])
def test_the_check_fails_on_a_broken_page(tmp_path, capsys, body, expected):
    page = tmp_path / "bad.html"
    page.write_text(f"<!DOCTYPE html><html><head><title>x</title></head><body>{body}"
                    "</body></html>", encoding="utf-8")
    assert browser_check.main([str(page)]) == 1
    assert expected in capsys.readouterr().err


def test_a_csp_violation_is_a_console_error(tmp_path, capsys):
    page = tmp_path / "csp.html"
    page.write_text(
        "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" "
        "content=\"default-src 'none'\"><title>x</title></head>"
        "<body><p style=\"color:red\">inline style is blocked</p></body></html>",
        encoding="utf-8")
    assert browser_check.main([str(page)]) == 1
    assert "Content Security Policy" in capsys.readouterr().err
