"""Transcript lines -> one entry per API response (pure: no I/O, and no attrs: ``benchcore usage`` starts
without it). The reducer of :mod:`benchcore.usage`, whose docstring states the rules; :mod:`benchcore.usage`
turns its state into a :class:`benchcore.usage.TranscriptUsage`, :mod:`benchcore.usage.plain` into plain figures.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional, Union

SYNTHETIC = "<synthetic>"
UNKNOWN_MODEL = "<unknown>"


class LineReducer:
    """The state of :func:`read_usage` over one transcript: fed line by line (``line``), or by a reader that
    finds the lines that can carry usage itself (``candidate``, ``unparsed``; see :mod:`benchcore.usage.scan`)."""

    def __init__(self) -> None:
        # One entry per API response: [model, input, output, cache-creation total,
        # ephemeral 5m, ephemeral 1h, cache read, web search requests], each the
        # largest seen so far, then [inference_geo, speed, iterations], the last seen.
        self.groups: dict[Any, list] = {}
        self.result: Optional[dict] = None
        self.skipped = 0
        self.needles = None
        # The last well-framed line that was not parsed: a truncated last line can
        # still end in '}' (cut just after a nested object), so it is parsed at the end.
        self.last_unparsed = None

    def line(self, line, n: int) -> None:
        if self.needles is None:
            self.needles = _BYTES if isinstance(line, (bytes, bytearray)) else _STR
        open_, ends = self.needles[:2]
        # Framing: a whole record starts with '{' and ends with '}' (cheap, no copy).
        if not (line.startswith(open_) and line.endswith(ends)):
            stripped = line.strip()
            if not stripped:
                return
            if not (stripped.startswith(open_) and stripped.endswith(ends[0])):
                self.skipped += 1
                self.last_unparsed = None
                return
            line = stripped
        self.candidate(line, n)

    def candidate(self, buf, n: int, start: int = 0, stop: Optional[int] = None) -> None:
        """A well-framed line (``buf[start:stop]``, by default all of ``buf``): parse it when it can carry
        usage. A line inside a larger buffer is looked at in place, and copied only to be parsed."""
        stop = len(buf) if stop is None else stop
        open_, _, usage_key, assistant, result_marker, type_key, space = self.needles
        # Most bytes are user records (tool results). Claude Code writes the
        # record's type before its message, so when the first '"type":' in the
        # head is a top-level key (no '{' before it but the record's own) its
        # value says whether the line can carry usage, without scanning the rest.
        t = buf.find(type_key, start, min(start + _HEAD, stop))
        if t != -1 and buf.count(open_, start, t) == 1:
            v = t + len(type_key)
            if buf.startswith(space, v):
                v += 1
            if not (buf.startswith(assistant, v) or buf.startswith(result_marker, v)):
                self.last_unparsed = (buf, start, stop)
                return
        elif buf.__class__ is bytes:
            # Its type written last (Claude Code's own assistant records): one whose last '"type":' is
            # followed by "assistant" is scanned below as before, without the call; else a user record may
            # be told from its end. First the commonest: "user" as the record's very last key (the pair
            # before the final '}' is the root's, and the last of a repeated key is the one json.loads keeps).
            if buf.endswith(_USER_LAST, start, stop):
                self.last_unparsed = (buf, start, stop)
                return
            t = buf.rfind(type_key, max(start, stop - _TAIL), stop)
            v = t + len(type_key)
            if buf.startswith(space, v):
                v += 1
            if t == -1 or not buf.startswith(assistant, v):
                if t != -1 and _user_by_tail(buf, start, stop, v, assistant, result_marker):
                    self.last_unparsed = (buf, start, stop)  # its type written last: a user record, seen from its end
                    return
        if buf.find(usage_key, start, stop) < 0 or (buf.find(assistant, start, stop) < 0
                                                    and buf.find(result_marker, start, stop) < 0):
            self.last_unparsed = (buf, start, stop)
            return
        self.last_unparsed = None
        try:
            record = loads_line(buf[start:stop] if start or stop != len(buf) else buf)
        except ValueError:  # JSONDecodeError, UnicodeDecodeError
            self.skipped += 1
            return
        if not isinstance(record, dict):
            self.skipped += 1
            return
        self._record(record, n)

    def _record(self, record: dict, n: int) -> None:
        kind = record.get("type")
        if kind == "assistant":
            message = record.get("message")
            if message.__class__ is not dict:  # json.loads makes plain dicts only
                return
            usage = message.get("usage")
            if usage is None:
                return
            if usage.__class__ is not dict:
                self.skipped += 1
                return
            model = message.get("model")
            if model == SYNTHETIC:
                return
            if model.__class__ is not str or not model:
                model = UNKNOWN_MODEL
            key = message.get("id") or record.get("requestId") or ("line", n)
            if key.__class__ is not str and key.__class__ is not tuple:
                key = ("line", n)
            figures = _figures(usage)
            group = self.groups.get(key)
            if group is None:
                self.groups[key] = group = [model, *figures, None, None, ()]
            else:  # each figure the largest over the response's lines (unrolled: a line's hot path)
                inp, out, cc, e5, e1, read, web = figures
                if inp > group[1]:
                    group[1] = inp
                if out > group[2]:
                    group[2] = out
                if cc > group[3]:
                    group[3] = cc
                if e5 > group[4]:
                    group[4] = e5
                if e1 > group[5]:
                    group[5] = e1
                if read > group[6]:
                    group[6] = read
                if web > group[7]:
                    group[7] = web
            if "inference_geo" in usage or "speed" in usage or "iterations" in usage:
                _note_extras(group, usage)
        elif kind == "result" and isinstance(record.get("usage"), dict):
            self.result = record

    def close(self) -> tuple[dict, Optional[dict], int]:
        """The reduced state: (responses by key, the last result line or None, skipped lines), the last
        line's check done (module docstring of :mod:`benchcore.usage`)."""
        if self.last_unparsed is not None:
            buf, start, stop = self.last_unparsed
            self.last_unparsed = None
            if buf[stop - 1:stop] not in _LINE_BREAKS:  # a line break: written whole (not parsed again)
                try:
                    loads_line(buf[start:stop])
                except ValueError:
                    self.skipped += 1
        return self.groups, self.result, self.skipped


def _user_by_tail(buf: bytes, start: int, stop: int, v: int, assistant: bytes, result_marker: bytes) -> bool:
    """Whether a framed line whose head holds no "type" key ends with its top-level type, and that type
    cannot carry usage: the last '"type":' in its last bytes (its value at ``v``: the caller found it), a
    plain string value other than "assistant" or "result", and after it nothing that opens or closes an
    object or array but the record's own final '}' (so it is the record's key, the one json.loads keeps).
    Anything else: False, and the line is scanned whole, as before."""
    if buf[v:v + 1] != b'"' or buf.startswith(assistant, v) or buf.startswith(result_marker, v):
        return False
    end = buf.find(b'"', v + 1, stop)
    close = buf.rfind(b"}", start, stop)
    if end == -1 or b"\\" in buf[v:end] or close <= end:
        return False
    after = buf[end + 1:close]  # at most _TAIL bytes
    return not (b"{" in after or b"}" in after or b"[" in after or b"]" in after) and not buf[close + 1:stop].strip()


_USER_LAST = (b',"type":"user"}\n', b',"type":"user"}', b',"type":"user"}\r\n')
_TAIL = 1024  # how far from a line's end to look for a top-level "type" written last


class _Decoder:
    """What json's scanner reads of a ``json.JSONDecoder()``: its defaults. The scanner is made from ``_json``
    directly, as ``json.scanner.make_scanner(json.JSONDecoder())`` makes it, because importing ``json``
    imports ``re`` (~8 ms of `benchcore usage`'s start)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__
    memo: dict = {}


try:
    from _json import make_scanner as _make_scanner
except ImportError:  # a Python without json's C speed-ups
    from json.scanner import make_scanner as _make_scanner
_SCAN = _make_scanner(_Decoder())
_SPACE = " \t\n\r"  # what json.loads allows after a value
_LINE_BREAKS = (b"\n", "\n")


def loads_line(line: Union[str, bytes]) -> Any:
    """``json.loads(line)`` for a line that starts with '{', with the steps json.loads adds around its C
    scanner for any input (finding the encoding, skipping leading white space) left out."""
    if isinstance(line, (bytes, bytearray)):
        if line[1:2] == b"\x00":  # json.loads would read it as UTF-16 or UTF-32
            import json

            return json.loads(line)
        line = line.decode("utf-8", "surrogatepass")
    try:
        value, end = _SCAN(line, 0)
    except StopIteration:
        raise ValueError("not JSON") from None
    except SystemError:
        value, end = _rescan(line)
    if line[end:].strip(_SPACE):
        raise ValueError("extra data after the record")
    return value



def loads_text(text: str) -> Any:
    """``json.loads(text)`` for a ``str``, without importing json unless the text is not plain JSON (then
    json.loads raises its own error)."""
    body = text.lstrip(_SPACE)
    if not body.startswith("\ufeff"):
        try:
            value, end = _SCAN(body, 0)
            if not body[end:].strip(_SPACE):
                return value
        except (ValueError, StopIteration, SystemError):
            pass
    import json

    return json.loads(text)


def _rescan(line: str) -> tuple:
    """Python 3.11's scanner can name a JSON error only once ``json.decoder`` is imported (it looks the
    error's class up there and, not finding the module, raises SystemError): import it, scan again."""
    import json.decoder  # noqa: F401

    try:
        return _SCAN(line, 0)
    except StopIteration:
        raise ValueError("not JSON") from None


def _usage_figures(usage: dict) -> tuple[int, int, int, int, int, int]:
    """input, output, cache-creation total, 5m, 1h, read from one usage object."""
    split = usage.get("cache_creation")
    if split.__class__ is not dict:
        split = {}
    return (_count(usage.get("input_tokens")), _count(usage.get("output_tokens")),
            _count(usage.get("cache_creation_input_tokens")),
            _count(split.get("ephemeral_5m_input_tokens")), _count(split.get("ephemeral_1h_input_tokens")),
            _count(usage.get("cache_read_input_tokens")))


def _figures(usage: dict) -> tuple[int, int, int, int, int, int, int]:
    """``(*_usage_figures(usage), _web_search(usage))`` in one call: an assistant line's hot path."""
    get = usage.get
    split = get("cache_creation")
    server = get("server_tool_use")
    e5 = e1 = web = 0
    if split.__class__ is dict:
        e5 = split.get("ephemeral_5m_input_tokens")
        e1 = split.get("ephemeral_1h_input_tokens")
        e5 = e5 if e5.__class__ is int and e5 > 0 else 0
        e1 = e1 if e1.__class__ is int and e1 > 0 else 0
    if server.__class__ is dict:
        web = _count(server.get("web_search_requests"))
    inp, out, cc, read = (get("input_tokens"), get("output_tokens"), get("cache_creation_input_tokens"),
                          get("cache_read_input_tokens"))
    return (inp if inp.__class__ is int and inp > 0 else 0, out if out.__class__ is int and out > 0 else 0,
            cc if cc.__class__ is int and cc > 0 else 0, e5, e1,
            read if read.__class__ is int and read > 0 else 0, web)


def _web_search(usage: dict) -> int:
    server = usage.get("server_tool_use")
    return _count(server.get("web_search_requests")) if isinstance(server, dict) else 0


def _note_extras(group: list, usage: dict) -> None:
    """Keep a response's inference_geo, speed and iterations (the last line that has each wins)."""
    geo, speed = usage.get("inference_geo"), usage.get("speed")
    if isinstance(geo, str) and geo:
        group[8] = geo
    if isinstance(speed, str) and speed:
        group[9] = speed
    iterations = usage.get("iterations")
    if isinstance(iterations, list) and iterations:
        its = tuple(_usage_figures(it) for it in iterations if isinstance(it, dict) and it.get("type") == "message")
        if its:
            group[10] = its


def _count(value: Any) -> int:
    """A token count, or 0 for anything that is not a non-negative integer (a bool is not one)."""
    return value if value.__class__ is int and value > 0 else 0



_BYTES = (b"{", (b"}", b"}\n", b"}\r\n"), b'"usage"', b'"assistant"', b'"result"', b'"type":', b" ")
_STR = ("{", ("}", "}\n", "}\r\n"), '"usage"', '"assistant"', '"result"', '"type":', " ")
# How far into a line to look for its top-level "type" key.
_HEAD = 4096
