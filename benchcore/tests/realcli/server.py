"""A local server that speaks the Anthropic Messages API, with a scripted model.

The real Claude Code CLI, pointed at it with ``ANTHROPIC_BASE_URL``, runs
offline: every ``POST /v1/messages`` is answered by a *brain* (a Python
callable that reads the request's conversation and decides the next response,
as a model would), streamed back as server-sent events in the API's format
(``message_start``, ``content_block_start``/``delta``/``stop`` for text and
``tool_use`` blocks, ``message_delta``, ``message_stop``).

Every response carries a distinct, known usage (input, output, cache write
5m and 1h, cache read), and the server logs each one, with the model and the
brain's name for the conversation, as the *token oracle*: what benchcore sums
from the transcripts must equal what this server billed.

Standard library only.
"""

from __future__ import annotations

import itertools
import json
import threading
import traceback
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Text:
    text: str


@dataclass
class ToolUse:
    name: str
    input: dict
    id: str = ""


@dataclass
class Reply:
    """One model response: content blocks; the stop reason follows from them."""

    blocks: list
    who: str = "?"  # the conversation's name in the oracle (a cell id, "orchestrator", a packet id ...)


@dataclass
class Billed:
    n: int
    who: str
    model: str
    message_id: str
    usage: dict
    tools_offered: list
    path: str


Brain = Callable[[dict], Reply]


def usage_for(n: int) -> dict:
    """The usage of the n-th response: every component non-zero and distinct per response."""
    w5, w1 = 300 + 7 * n, 40 + n
    return {
        "input_tokens": 100 + 3 * n,
        "output_tokens": 20 + 5 * n,
        "cache_creation_input_tokens": w5 + w1,
        "cache_read_input_tokens": 2000 + 11 * n,
        "cache_creation": {"ephemeral_5m_input_tokens": w5, "ephemeral_1h_input_tokens": w1},
    }


@dataclass
class Oracle:
    billed: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    requests: list = field(default_factory=list)  # (path, who, size in bytes)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def by_who(self) -> dict:
        out: dict = {}
        for b in self.billed:
            out.setdefault(b.who, []).append(b)
        return out


def _sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class MessagesServer:
    """``with MessagesServer(brain) as srv: srv.url``: a server on a free loopback port."""

    def __init__(self, brain: Brain, *, log_requests: str | None = None,
                 classifier: Callable[[str, dict], str] | None = None):
        # classifier: auto mode's server-side safety check. A request in auto mode carries a ``safeguards``
        # entry of type dangerous_tool_use; the real API answers it in message_delta's ``safeguard_results``,
        # one verdict per tool_use id. This one answers (tool name, input) -> "not_flagged" (the default: every
        # call allowed) or "flagged"; without an answer Claude Code 2.1.328 refuses every call that needs the
        # check ("Auto mode is unavailable: its safety check does not run for this session").
        self.brain = brain
        self.classifier = classifier or (lambda name, tool_input: "not_flagged")
        self.classified: list[tuple[str, str, str]] = []  # (tool_use id, tool name, outcome), in order
        self.oracle = Oracle()
        self.log_requests = log_requests
        self._n = itertools.count(1)
        self._tool_n = itertools.count(1)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):  # quiet
                pass

            def do_GET(self):
                self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

            def do_HEAD(self):
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    return self._json(400, {"type": "error", "error": {"type": "invalid_request_error", "message": "bad json"}})
                path = self.path.split("?", 1)[0]
                if outer.log_requests:
                    with outer.oracle.lock, open(outer.log_requests, "a") as f:
                        f.write(json.dumps({"path": self.path, "body": body}) + "\n")
                if path.endswith("/count_tokens"):
                    return self._json(200, {"input_tokens": 1000})
                if not path.endswith("/v1/messages"):
                    return self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": path}})
                try:
                    reply = outer.brain(body)
                except Exception as exc:  # a brain bug must be visible, not a hang
                    with outer.oracle.lock:
                        outer.oracle.errors.append(traceback.format_exc())
                    reply = Reply([Text(f"[scripted model error: {exc!r}]")], who="error")
                with outer.oracle.lock:
                    outer.oracle.requests.append((path, reply.who, len(raw)))
                self._stream(body, reply)

            def _json(self, code, obj):
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body, reply: Reply):
                n = next(outer._n)
                model = body.get("model") or "claude-opus-5-5"
                usage = usage_for(n)
                msg_id = f"msg_scripted{n:06d}"
                tools = sorted(t.get("name", "?") for t in body.get("tools") or [] if isinstance(t, dict))
                with outer.oracle.lock:
                    outer.oracle.billed.append(Billed(n, reply.who, model, msg_id, usage, tools, self.path))
                start_usage = {k: v for k, v in usage.items()}
                start_usage["output_tokens"] = 1
                chunks = [_sse("message_start", {"type": "message_start", "message": {
                    "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
                    "stop_reason": None, "stop_sequence": None, "usage": start_usage}})]
                stop = "end_turn"
                checked = {}
                wants_check = any(isinstance(g, dict) and g.get("type") == "dangerous_tool_use"
                                  for g in body.get("safeguards") or [])
                for i, block in enumerate(reply.blocks):
                    if isinstance(block, Text):
                        chunks.append(_sse("content_block_start", {"type": "content_block_start", "index": i,
                                                                   "content_block": {"type": "text", "text": ""}}))
                        chunks.append(_sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                                   "delta": {"type": "text_delta", "text": block.text}}))
                    else:
                        stop = "tool_use"
                        tid = block.id or f"toolu_scripted{next(outer._tool_n):06d}"
                        if wants_check:
                            outcome = outer.classifier(block.name, block.input)
                            checked[tid] = {"type": "evaluated", "outcome": outcome}
                            with outer.oracle.lock:
                                outer.classified.append((tid, block.name, outcome))
                        chunks.append(_sse("content_block_start", {"type": "content_block_start", "index": i,
                                                                   "content_block": {"type": "tool_use", "id": tid,
                                                                                     "name": block.name, "input": {}}}))
                        chunks.append(_sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                                   "delta": {"type": "input_json_delta",
                                                                             "partial_json": json.dumps(block.input)}}))
                    chunks.append(_sse("content_block_stop", {"type": "content_block_stop", "index": i}))
                delta = {"stop_reason": stop, "stop_sequence": None}
                if wants_check:
                    delta["safeguard_results"] = [{"type": "dangerous_tool_use",
                                                   "status": {"type": "available", "tool_uses": checked}}]
                chunks.append(_sse("message_delta", {"type": "message_delta", "delta": delta,
                                                     "usage": {"output_tokens": usage["output_tokens"]}}))
                chunks.append(_sse("message_stop", {"type": "message_stop"}))
                data = b"".join(chunks)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        # shutdown() waits for serve_forever's next poll: at the default 0.5 s, every run paid half a second to stop
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._httpd.shutdown()
        self._httpd.server_close()
