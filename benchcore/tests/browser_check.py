#!/usr/bin/env python3
"""Open an HTML report in headless Chromium; screenshot it; fail on any error.

    python benchcore/tests/browser_check.py REPORT.html [--screenshot OUT.png]
    python benchcore/tests/browser_check.py A.html B.html [--screenshot-dir DIR]

Every page is opened at each of ``--widths`` (default 420, 900 and 1280 CSS
pixels: a phone, a narrow window, a desktop), and a screenshot is taken at each
(``<page>-<width>.png``).

Exit 0 when every page loaded cleanly, 1 when the browser saw a problem on any
page, 2 when the check itself could not run (no Chromium, no such file).

How it decides, and why this way: rather than scraping Chromium's stderr log
(whose format changes between versions and between the old and new headless
modes), it drives the browser over the DevTools protocol through
``--remote-debugging-pipe`` (NUL-separated JSON on file descriptors 3 and 4;
standard library only) and listens to the page's own events:

- ``Runtime.exceptionThrown``: an uncaught script error;
- ``Runtime.consoleAPICalled`` of type error or assert;
- ``Log.entryAdded`` at level error: what the console shows in red that no
  script printed, such as a Content-Security-Policy violation or a failed load;
- ``Network.requestWillBeSent`` for anything but the page itself or a
  ``data:`` URL: the report must be one self-contained file;
- and after the load, from the DOM: no ``<script>`` element, no resource
  entries in the Performance timeline, and nothing wider than the window:
  the page must not scroll sideways, and no element may clip or scroll its
  content sideways (a table cut off on a phone), except a fenced block of an
  output, which keeps its lines and scrolls by design.

Then it captures a full-page PNG (``Page.captureScreenshot`` with
``captureBeyondViewport``) for a person to look at.
"""

from __future__ import annotations

import argparse
import base64
import fcntl
import json
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
    "--no-default-browser-check", "--disable-extensions", "--mute-audio",
    "--hide-scrollbars", "--remote-debugging-pipe",
]
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    explicit = os.environ.get("CHROMIUM")
    if explicit:
        return explicit
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """A headless Chromium spoken to over the DevTools pipe."""

    def __init__(self, binary: str, profile: str, width: int, height: int):
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire_fds():  # in the child: its fd 3 reads our commands, fd 4 writes answers
            a = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.stderr,
            close_fds=False, preexec_fn=wire_fds)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._from_child, selectors.EVENT_READ)

    def send(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 30.0) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            for msg in self._read(deadline - time.monotonic()):
                if msg.get("id") == self._next_id:
                    if "error" in msg:
                        raise RuntimeError(f"{method}: {msg['error']}")
                    return msg.get("result", {})
                self.events.append(msg)
            if time.monotonic() > deadline:
                raise TimeoutError(f"no answer to {method} in {timeout:.0f}s")

    def wait_for(self, method: str, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        seen = len(self.events)
        while time.monotonic() < deadline:
            if any(e.get("method") == method for e in self.events[seen:]):
                return True
            self.events.extend(self._read(deadline - time.monotonic()))
        return any(e.get("method") == method for e in self.events[seen:])

    def drain(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.events.extend(self._read(deadline - time.monotonic()))

    def _read(self, timeout: float) -> list[dict]:
        if timeout <= 0 or not self._selector.select(timeout):
            return []
        chunk = os.read(self._from_child, 1 << 20)
        if not chunk:
            raise RuntimeError("Chromium closed the DevTools pipe:\n" + self.stderr_text())
        self._buffer += chunk
        *messages, self._buffer = self._buffer.split(b"\0")
        return [json.loads(m) for m in messages if m]

    def stderr_text(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")[-4000:]

    def close(self) -> None:
        try:
            os.write(self._to_child, json.dumps({"id": 0, "method": "Browser.close"}).encode()
                     + b"\0")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass


def problems_in(events: list[dict], page_url: str) -> list[str]:
    """Every event that means the page is not clean, in words."""
    found = []
    for e in events:
        method, p = e.get("method"), e.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            text = d.get("exception", {}).get("description") or d.get("text", "")
            found.append(f"uncaught exception: {text}")
        elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            found.append(f"console.{p.get('type')}: {args}")
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            entry = p["entry"]
            found.append(f"console error ({entry.get('source')}): {entry.get('text')}"
                         + (f" [{entry['url']}]" if entry.get("url") else ""))
        elif method == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            if url != page_url and not url.startswith("data:"):
                found.append(f"network request: {url}")
    return found


DOM_PROBE = """JSON.stringify({
  scripts: document.scripts.length,
  resources: performance.getEntriesByType('resource').map(r => r.name),
  title: document.title,
  details: document.querySelectorAll('details').length,
  open: document.querySelectorAll('details[open]').length,
  overflow: (() => {
    const root = document.documentElement, vw = root.clientWidth, out = [];
    const name = el => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).trim().split(/\\s+/).join('.') : '');
    if (root.scrollWidth > vw + 1) out.push('the page is ' + root.scrollWidth + ' px wide in a ' + vw + ' px window');
    const seen = [];  // report an element, not each of its descendants too
    for (const el of document.querySelectorAll('body *')) {
      if (el.closest('.output-body') || el.closest('svg') || seen.some(s => s.contains(el))) continue;
      const x = getComputedStyle(el).overflowX;
      if (x !== 'visible' && el.scrollWidth > el.clientWidth + 1) {
        out.push(name(el) + ' cuts off its content: ' + el.scrollWidth + ' px of content in ' + el.clientWidth + ' px');
        seen.push(el);
      } else if (x === 'visible' && el.getBoundingClientRect().right > vw + 1) {
        out.push(name(el) + ' reaches ' + Math.round(el.getBoundingClientRect().right) + ' px in a ' + vw + ' px window');
        seen.push(el);
      }
    }
    return out.slice(0, 12);
  })()
})"""

WIDTHS = (420, 900, 1280)


def check(html: Path, shots: dict, height: int, binary: str, full_page: bool = True,
          from_y: int = 0, dark: bool = False, media: str = "") -> list[tuple[int, list[str], dict]]:
    """Open one page at each width of ``shots`` (width -> screenshot path or None) in one browser;
    (width, problems, probe) per width."""
    page_url = html.resolve().as_uri()
    widths = list(shots)
    results = []
    with tempfile.TemporaryDirectory(prefix="benchcore-chromium-") as profile:
        browser = Browser(binary, profile, widths[0], height)
        try:
            target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = browser.send("Target.attachToTarget",
                                   {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Runtime", "Log", "Network", "Page"):
                browser.send(f"{domain}.enable", session=session)
            if dark or media:
                browser.send("Emulation.setEmulatedMedia", {
                    "media": media,
                    "features": [{"name": "prefers-color-scheme", "value": "dark"}] if dark else [],
                }, session=session)
            for width in widths:
                browser.send("Emulation.setDeviceMetricsOverride",
                             {"width": width, "height": height, "deviceScaleFactor": 1,
                              "mobile": False}, session=session)
                browser.events.clear()  # the previous page's events are not this load's
                browser.send("Page.navigate", {"url": page_url}, session=session)
                if not browser.wait_for("Page.loadEventFired", timeout=30):
                    results.append((width, [f"the page did not finish loading in 30s: {page_url}"], {}))
                    continue
                browser.drain(0.5)  # late console messages and CSP reports
                probe = json.loads(browser.send(
                    "Runtime.evaluate", {"expression": DOM_PROBE, "returnByValue": True},
                    session=session)["result"]["value"])
                problems = problems_in(browser.events, page_url)
                if probe["scripts"]:
                    problems.append(f"the page has {probe['scripts']} <script> element(s)")
                problems += [f"resource loaded: {r}" for r in probe["resources"]]
                problems += [f"overflow at {width} px: {o}" for o in probe["overflow"]]
                screenshot = shots[width]
                if screenshot is not None:
                    size = browser.send("Page.getLayoutMetrics", session=session)["cssContentSize"]
                    if full_page:
                        size = {"width": size["width"], "height": max(1, size["height"] - from_y)}
                    else:
                        size = {"width": width, "height": height}
                    shot = browser.send("Page.captureScreenshot", {
                        "format": "png", "captureBeyondViewport": True,
                        "clip": {"x": 0, "y": from_y, "width": size["width"],
                                 "height": size["height"], "scale": 1}}, session=session)
                    screenshot.write_bytes(base64.b64decode(shot["data"]))
                results.append((width, problems, probe))
            return results
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("html", type=Path, nargs="+", help="the report or index page(s) to open")
    shots = parser.add_mutually_exclusive_group()
    shots.add_argument("--screenshot", type=Path, help="write a full-page PNG here (one page)")
    shots.add_argument("--screenshot-dir", type=Path,
                       help="write <page name>.png for every page into this folder")
    parser.add_argument("--widths", default=",".join(str(w) for w in WIDTHS),
                        help="window widths in CSS pixels, comma-separated (default: %(default)s)")
    parser.add_argument("--width", type=int, default=None, help="one width only (instead of --widths)")
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--viewport", action="store_true",
                        help="screenshot one screen (--height) only, not the whole page")
    parser.add_argument("--from-y", type=int, default=0,
                        help="start the screenshot this many CSS pixels down the page")
    parser.add_argument("--dark", action="store_true", help="emulate prefers-color-scheme: dark")
    parser.add_argument("--print", dest="media", action="store_const", const="print", default="",
                        help="emulate the print media type")
    args = parser.parse_args(argv)
    if args.screenshot and len(args.html) > 1:
        parser.error("--screenshot takes one page; use --screenshot-dir for several")
    missing = [p for p in args.html if not p.is_file()]
    if missing:
        print(f"browser-check: {missing[0]}: no such file", file=sys.stderr)
        return 2
    binary = find_chromium()
    if binary is None:
        print("browser-check: no Chromium found; install it (apt-get install chromium) "
              "or set CHROMIUM=/path/to/chrome", file=sys.stderr)
        return 2
    try:
        widths = [args.width] if args.width else [int(w) for w in args.widths.split(",") if w.strip()]
    except ValueError:
        parser.error(f"--widths takes numbers separated by commas, not {args.widths!r}")
    if args.screenshot_dir:
        args.screenshot_dir.mkdir(parents=True, exist_ok=True)
    failed = False
    for html in args.html:
        shots = {w: _shot_path(args.screenshot, args.screenshot_dir, html, w, len(widths) > 1)
                 for w in widths}
        try:
            results = check(html, shots, args.height, binary, full_page=not args.viewport,
                            from_y=args.from_y, dark=args.dark, media=args.media)
        except (RuntimeError, TimeoutError, OSError) as err:
            print(f"browser-check: could not drive Chromium: {err}", file=sys.stderr)
            return 2
        for width, problems, probe in results:
            shot = shots[width]
            if problems:
                failed = True
                print(f"browser-check: FAIL {html} at {width} px", file=sys.stderr)
                for p in problems:
                    print(f"  - {p}", file=sys.stderr)
                continue
            note = f", screenshot {shot}" if shot else ""
            print(f"browser-check: ok {html} at {width} px: no errors, no requests, no scripts, "
                  f"no overflow; {probe.get('details', 0)} panels, {probe.get('open', 0)} open{note}")
    return 1 if failed else 0


def _shot_path(screenshot: Path | None, folder: Path | None, html: Path, width: int,
               several: bool) -> Path | None:
    """Where the screenshot of one page at one width goes: <name>-<width>.png when there are several."""
    suffix = f"-{width}" if several else ""
    if screenshot is not None:
        return screenshot.with_name(f"{screenshot.stem}{suffix}{screenshot.suffix}")
    if folder is not None:
        return folder / f"{html.stem}{suffix}.png"
    return None


if __name__ == "__main__":
    sys.exit(main())
