"""The rendered pages in a real browser: headless Chromium loads them with no error,
no request and no script. Skipped where no Chromium is installed (CI runs
``browser_check.py`` directly; see its docstring)."""

from __future__ import annotations

import pytest

from require import missing

import browser_check
import report_sample

if browser_check.find_chromium() is None:  # CI: BENCH_REQUIRE_BROWSER turns the skip into a failure
    missing("browser", "no Chromium (apt-get install chromium)", module_level=True)


def test_sample_pages_load_cleanly_and_screenshot(tmp_path, capsys):
    assert report_sample.main([str(tmp_path)]) == 0
    shot = tmp_path / "report.png"
    assert browser_check.main([str(tmp_path / "sample-skill.html"), "--screenshot",
                               str(shot)]) == 0
    out = capsys.readouterr().out
    for width in (420, 900, 1280):  # a phone, a narrow window, a desktop: no overflow at any
        assert (tmp_path / f"report-{width}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"sample-skill.html at {width} px: no errors, no requests, no scripts, no overflow; " \
               "3 panels, 3 open" in out
    assert browser_check.main([str(tmp_path / "clean-skill.html"), str(tmp_path / "index.html"),
                               "--widths", "420,900"]) == 0
    out = capsys.readouterr().out
    assert "clean-skill.html at 420 px" in out and "2 panels, 0 open" in out
    assert "index.html at 900 px: no errors, no requests, no scripts, no overflow" in out


def test_the_check_fails_on_a_page_wider_than_the_window(tmp_path, capsys):
    # The old leaderboard and cost table: a table in a sideways-scrolling box, cut off on a phone.
    page = tmp_path / "wide.html"
    cells = "".join(f"<td>column {i} with words</td>" for i in range(12))
    page.write_text("<!DOCTYPE html><html><head><title>x</title><style>.wrap{overflow-x:auto}</style></head>"
                    f"<body><div class=\"wrap\"><table><tr>{cells}</tr></table></div>"
                    "<p style=\"width:2000px\">too wide</p></body></html>", encoding="utf-8")
    assert browser_check.main([str(page), "--width", "420"]) == 1
    err = capsys.readouterr().err
    assert "overflow at 420 px: div.wrap cuts off its content" in err
    assert "overflow at 420 px: the page is" in err


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
    assert browser_check.main([str(page), "--widths", "900"]) == 1  # one width: an error shows at any (1 s, not 2)
    assert expected in capsys.readouterr().err


def test_a_csp_violation_is_a_console_error(tmp_path, capsys):
    page = tmp_path / "csp.html"
    page.write_text(
        "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" "
        "content=\"default-src 'none'\"><title>x</title></head>"
        "<body><p style=\"color:red\">inline style is blocked</p></body></html>",
        encoding="utf-8")
    assert browser_check.main([str(page), "--widths", "900"]) == 1
    assert "Content Security Policy" in capsys.readouterr().err
