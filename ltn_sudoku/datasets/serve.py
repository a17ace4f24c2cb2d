"""A small local HTTP server with ``Range`` support, for the offline tests and the benchmark of `data fetch`.

``LocalServer(files)`` serves ``{url path: file on disk}`` on 127.0.0.1 at a free port, in a daemon thread, reading
each file in chunks (so serving a large file takes no memory). It records every request (path, ``Range`` header,
status, bytes sent) and can misbehave on purpose: ``cut_after[path] = n`` closes the connection after n bytes of the
next answer for that path (once), with the full ``Content-Length`` announced, as a dropped connection would;
``endless[path] = n`` answers with the file over and over, without a ``Content-Length``, until n bytes are sent or the
client hangs up (an endless body); ``headers[path]`` adds headers to its answers (a ``Content-Type: text/html`` login
page, a ``Content-Encoding: gzip`` body). Nothing here is used by a real fetch.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CHUNK = 1 << 16
_RANGE = re.compile(r"bytes=(\d+)-(\d*)$")


@dataclass
class Request:
    path: str
    range: str | None
    status: int
    sent: int  # body bytes written


class _QuietServer(ThreadingHTTPServer):
    """A client that hangs up early (a fetch stopped by its limit) is no error of the server's to print."""

    def handle_error(self, request: object, client_address: object) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class LocalServer:
    """``with LocalServer({"/a.txt": Path(...)}) as srv: srv.url("/a.txt")``."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = dict(files)
        self.cut_after: dict[str, int] = {}
        self.endless: dict[str, int] = {}
        self.headers: dict[str, dict[str, str]] = {}
        self._requests: list[Request] = []
        self._lock = threading.Lock()
        self._answering = 0  # requests being answered: recorded once their last byte is written
        self._idle = threading.Condition(self._lock)
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # quiet
                pass

            def do_HEAD(self) -> None:
                with server._answer_started():
                    self._answer(body=False)

            def do_GET(self) -> None:
                with server._answer_started():
                    self._answer(body=True)

            def _answer(self, body: bool) -> None:
                path = self.path.split("?", 1)[0]
                rng = self.headers.get("Range")
                file = server.files.get(path)
                if file is None or not file.is_file():
                    self._status(404, path, rng)
                    return
                if path in server.endless:
                    self._endless(path, file, body)
                    return
                size = file.stat().st_size
                start, end, status = 0, size - 1, 200
                if rng is not None:
                    m = _RANGE.match(rng.strip())
                    if m is None:
                        self._status(400, path, rng)
                        return
                    start = int(m.group(1))
                    end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
                    if start >= size:
                        self.send_response(416)
                        self.send_header("Content-Range", f"bytes */{size}")
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        server._record(Request(path, rng, 416, 0))
                        return
                    status = 206
                length = end - start + 1
                self.send_response(status)
                self._extra_headers(path)
                self.send_header("Content-Length", str(length))
                self.send_header("Accept-Ranges", "bytes")
                if status == 206:
                    self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
                self.end_headers()
                if not body:
                    server._record(Request(path, rng, status, 0))
                    return
                with server._lock:
                    cut = server.cut_after.pop(path, None)
                limit = length if cut is None else min(cut, length)
                sent = 0
                try:
                    with open(file, "rb") as fh:
                        fh.seek(start)
                        while sent < limit:
                            chunk = fh.read(min(CHUNK, limit - sent))
                            if not chunk:
                                break
                            self.wfile.write(chunk)
                            sent += len(chunk)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass
                server._record(Request(path, rng, status, sent))
                if cut is not None:
                    self.close_connection = True  # the socket closes with fewer bytes than announced

            def _extra_headers(self, path: str) -> None:
                for name, value in server.headers.get(path, {}).items():
                    self.send_header(name, value)

            def _endless(self, path: str, file: Path, body: bool) -> None:
                """The file again and again, no Content-Length: the body ends when the connection closes."""
                self.send_response(200)
                self._extra_headers(path)
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                data, sent, limit = file.read_bytes() or b"\0", 0, server.endless[path] if body else 0
                try:
                    while sent < limit:
                        chunk = data[: limit - sent]
                        self.wfile.write(chunk)
                        sent += len(chunk)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass
                server._record(Request(path, None, 200, sent))

            def _status(self, code: int, path: str, rng: str | None) -> None:
                self.send_response(code)
                self.send_header("Content-Length", "0")
                self.end_headers()
                server._record(Request(path, rng, code, 0))

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="ltn-sudoku-local-server", daemon=True)

    def _record(self, request: Request) -> None:
        with self._lock:
            self._requests.append(request)

    @contextmanager
    def _answer_started(self) -> Iterator[None]:
        with self._idle:
            self._answering += 1
        try:
            yield
        finally:
            with self._idle:
                self._answering -= 1
                self._idle.notify_all()

    @property
    def requests(self) -> list[Request]:
        """Every request answered so far. A client can read an answer's last byte before the server thread records
        it, so this waits (up to 10 s) until no answer is still being written: a test reads what it asked for."""
        with self._idle:
            self._idle.wait_for(lambda: self._answering == 0, timeout=10)
            return list(self._requests)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def sent(self, path: str) -> int:
        """Body bytes sent for a path, over all requests."""
        return sum(r.sent for r in self.requests if r.path == path)

    def __enter__(self) -> LocalServer:  # noqa: PYI034 (final in use; Self needs Python 3.11)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=5)
