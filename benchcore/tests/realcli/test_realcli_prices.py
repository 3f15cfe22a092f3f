"""benchcore's dollars against Claude Code's own bill, on the real CLI (realcli/CLI_VERSION), offline.

Each case runs ``claude -p`` on one model against the rig's scripted server,
with a chosen usage on every response, and checks that the sum over the
session's on-disk transcripts at prices.json's prices equals Claude Code's
``total_cost_usd`` and the figure worked out by hand: claude-opus-5-5 (the
CLI's default), claude-haiku-5-5 at exactly 100,000 and at 100,001 prompt
tokens, iterations, fast mode, ``inference_geo``, web searches, and a dated,
a Bedrock and a Vertex id.

Skipped when the CLI is not installed; CI sets ``BENCH_REQUIRE_REALCLI=1``,
which turns that skip into a failure.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


import server  # noqa: E402
from rig import cli_binary, require_cli  # noqa: E402
from server import MessagesServer, Reply, Text, ToolUse  # noqa: E402

require_cli()


def u(inp=0, out=0, w5=0, w1=0, read=0, **extra) -> dict:
    return {"input_tokens": inp, "output_tokens": out, "cache_creation_input_tokens": w5 + w1,
            "cache_read_input_tokens": read,
            "cache_creation": {"ephemeral_5m_input_tokens": w5, "ephemeral_1h_input_tokens": w1}, **extra}


def iteration(inp, out) -> dict:
    return {"type": "message", "input_tokens": inp, "output_tokens": out, "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0}


CASES = {
    # 4*1234 + 20*56 + 5*3000 + 8*700 + 0.2*20011 = 4936 + 1120 + 15000 + 5600 + 4002.2 = 30658.2
    # 4*77 + 20*91 + 8*1500 + 0.2*23456 = 308 + 1820 + 12000 + 4691.2 = 18819.2      -> 49477.4 / 1e6
    "opus-5-5": ("claude-opus-5-5", [u(inp=1234, out=56, w5=3000, w1=700, read=20011),
                                     u(inp=77, out=91, w1=1500, read=23456)], 0.0494774),
    # prompt 100,000: 0.1*50000 + 0.5*1000 + 0.125*20000 + 0.2*10000 + 0.01*20000 = 10200
    # prompt 100,001: 0.5*50000 + 2.5*1000 + 0.625*20000 + 1*10000 + 0.05*20001 = 51000.05  -> 61200.05 / 1e6
    "haiku-5-5 tier boundary": ("claude-haiku-5-5", [u(inp=50000, out=1000, w5=20000, w1=10000, read=20000),
                                                     u(inp=50000, out=1000, w5=20000, w1=10000, read=20001)],
                                0.06120005),
    # one response of 130,000 prompt tokens in two iterations of 60,000 and 70,000: both base tier
    # 0.1*130000 + 0.5*100 = 13050
    "haiku-5-5 iterations": ("claude-haiku-5-5", [u(inp=130000, out=100, iterations=[iteration(60000, 40),
                                                                                      iteration(70000, 60)])],
                             0.01305),
    # in 1000 / out 100 each: fast 8*1000 + 40*100 = 12000; us 1.1 * (4000 + 2000) = 6600;
    # 3 web searches: 6000 + 3 * 10000 = 36000                                       -> 54600 / 1e6
    "opus-5-5 fast, us, web search": ("claude-opus-5-5", [
        u(inp=1000, out=100, speed="fast"), u(inp=1000, out=100, inference_geo="us"),
        u(inp=1000, out=100, server_tool_use={"web_search_requests": 3, "web_fetch_requests": 0})], 0.0546),
    # 3*900 + 15*80 + 3.75*100 + 0.3*5000 = 2700 + 1200 + 375 + 1500 = 5775; 3*10 + 15*20 + 0.3*6000 = 2130
    "dated id": ("claude-sonnet-4-5-20250929", [u(inp=900, out=80, w5=100, read=5000),
                                                u(inp=10, out=20, read=6000)], 0.007905),
    # 1*900 + 5*80 + 1.25*100 + 2*40 + 0.1*5000 = 900 + 400 + 125 + 80 + 500 = 2005
    "Bedrock id": ("us.anthropic.claude-haiku-4-5-20251001-v1:0", [u(inp=900, out=80, w5=100, w1=40, read=5000)],
                   0.002005),
    "Vertex id": ("claude-haiku-4-5@20251001", [u(inp=900, out=80, w5=100, w1=40, read=5000)], 0.002005),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_benchcore_dollars_equal_claude_codes_own(case, tmp_path, monkeypatch):
    model, usages, by_hand = CASES[case]
    # The scripted model: a Bash call for every response but the last, then an answer; response n
    # carries usages[n - 1] (the server streams it at message_start, the output again at message_delta).
    monkeypatch.setattr(server, "usage_for", lambda n: usages[n - 1] if n <= len(usages) else u(inp=5, out=3))
    seen = []

    def brain(body):
        seen.append(body.get("model"))
        if len(seen) < len(usages):
            return Reply([ToolUse("Bash", {"command": "true", "description": "nothing"})], who="main")
        return Reply([Text("ok")], who="main")

    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    (tmp_path / "tmp").mkdir()
    with MessagesServer(brain) as srv:
        env = {"HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "ANTHROPIC_API_KEY": "scripted-model",
               "ANTHROPIC_BASE_URL": srv.url, "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "IS_SANDBOX": "1", "LANG": "C.UTF-8",
               "TMPDIR": str(tmp_path / "tmp")}
        p = subprocess.run([str(cli_binary()), "-p", "say ok", "--model", model, "--output-format", "stream-json",
                            "--verbose", "--dangerously-skip-permissions"], cwd=work, env=env, capture_output=True,
                           text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert not srv.oracle.errors, srv.oracle.errors
    events = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    result = next((e for e in reversed(events) if e.get("type") == "result"), None)
    assert result is not None, p.stderr[-2000:]
    assert len(srv.oracle.billed) == len(usages), "the CLI made requests the case does not price"

    transcripts = sorted((home / ".claude" / "projects").glob(f"*/{result['session_id']}*.jsonl"))
    transcripts += sorted((home / ".claude" / "projects").glob(f"*/{result['session_id']}/**/agent-*.jsonl"))
    out = subprocess.run([sys.executable, "-m", "benchcore", "usage", "--json", *map(str, transcripts)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    total = json.loads(out.stdout)["total"]
    assert total["unpriced_models"] == []
    # Claude Code's float sum carries noise past 1e-10; benchcore's is exact.
    assert total["cost_usd"] == round(result["total_cost_usd"], 10) == by_hand
