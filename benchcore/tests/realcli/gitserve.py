"""Serves git repositories over smart HTTP on loopback (git http-backend), so the real CLI can clone a marketplace."""

from __future__ import annotations

import contextlib
import gzip
import os
import subprocess
import threading
from pathlib import Path
from typing import Iterator
from wsgiref.simple_server import WSGIRequestHandler, make_server


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def serve(root: Path) -> Iterator[str]:
    """Yields http://127.0.0.1:<port>/; <url><name> is the bare repository <root>/<name>."""
    def app(environ, start_response):
        env = {"GIT_PROJECT_ROOT": str(root), "GIT_HTTP_EXPORT_ALL": "1", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
               "REQUEST_METHOD": environ["REQUEST_METHOD"], "PATH_INFO": environ.get("PATH_INFO", ""),
               "QUERY_STRING": environ.get("QUERY_STRING", ""), "CONTENT_TYPE": environ.get("CONTENT_TYPE", ""),
               "REMOTE_ADDR": "127.0.0.1", "GIT_PROTOCOL": environ.get("HTTP_GIT_PROTOCOL", "")}
        size = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(size) if size else b""
        if environ.get("HTTP_CONTENT_ENCODING") == "gzip":
            body = gzip.decompress(body)
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
        head, _, rest = out.partition(b"\r\n\r\n")
        status, headers = "200 OK", []
        for line in head.decode().split("\r\n"):
            key, _, value = line.partition(": ")
            if key.lower() == "status":
                status = value
            elif key:
                headers.append((key, value))
        start_response(status, headers)
        return [rest]

    server = make_server("127.0.0.1", 0, app, handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
