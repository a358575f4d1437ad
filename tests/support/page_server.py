"""A small HTTP server for browser tests: serves `tests/support/pages/` from 127.0.0.1 in a thread.

Pages may contain `{{PORT}}` (this server's port) and `{{SENTINEL}}` (the base URL of a second
server that stands for a refused address): they are filled in when served. Besides files it
answers a few dynamic paths:

- `/redirect?to=URL` — 302 to URL;
- `/download/NAME` — a small attachment;
- `/api/data` — JSON, for network logs;
- `/article?paragraphs=N` — a long article (about 300 characters a paragraph);
- `/stall?seconds=N` — a page that takes N seconds (default 60) to answer, or until the server
  stops: a navigation still under way;
- anything else not found — 404.

Every request is recorded in `hits` as `(host header, path)`, so a test can prove that a
refused address was never contacted. `edits` changes text in the pages served from then on.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import parse_qs, urlsplit

PAGES = Path(__file__).parent / "pages"
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript", ".txt": "text/plain"}


class PageServer:
    """`with PageServer() as server:` — `server.url("form.html")` is `http://127.0.0.1:PORT/form.html`."""

    def __init__(self, host: str = "127.0.0.1", *, sentinel: str = "") -> None:
        self.host = host
        self.sentinel = sentinel
        self.hits: list[tuple[str, str]] = []
        # Text replaced in every page served from now on (a site that changed since a routine
        # was recorded: a renamed link).
        self.edits: dict[str, str] = {}
        self._server = ThreadingHTTPServer((host, 0), self._handler())
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._stopping = threading.Event()  # wakes stalled answers when the server stops

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def alt_origin(self) -> str:
        """The same server under another origin (`localhost`), for cross-origin frames."""
        return f"http://localhost:{self.port}"

    def url(self, path: str) -> str:
        return f"{self.origin}/{path.lstrip('/')}"

    def paths(self) -> list[str]:
        return [path for _host, path in self.hits]

    def __enter__(self) -> PageServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def _send(self, status: int, body: bytes, content_type: str, **headers: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                for name, value in headers.items():
                    self.send_header(name.replace("_", "-"), value)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                server.hits.append((self.headers.get("Host", ""), self.path))
                parts = urlsplit(self.path)
                if parts.path == "/redirect":
                    target = parse_qs(parts.query).get("to", ["/"])[0]
                    self.send_response(302)
                    self.send_header("Location", target)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if parts.path.startswith("/download/"):
                    name = parts.path.rsplit("/", 1)[-1]
                    self._send(
                        200,
                        b"quarterly numbers\n",
                        "application/octet-stream",
                        Content_Disposition=f'attachment; filename="{name}"',
                    )
                    return
                if parts.path == "/article":
                    count = int(parse_qs(parts.query).get("paragraphs", ["10"])[0])
                    body = "".join(
                        f"<p>Paragraph {n}: " + "lorem ipsum dolor sit amet " * 10 + "</p>"
                        for n in range(count)
                    )
                    html = f"<title>Article</title><nav>Home | News</nav><article>{body}</article>"
                    self._send(200, html.encode(), TYPES[".html"])
                    return
                if parts.path == "/stall":
                    seconds = float(parse_qs(parts.query).get("seconds", ["60"])[0])
                    server._stopping.wait(seconds)
                    self._send(200, b"<title>Slow</title><p>Here at last.</p>", TYPES[".html"])
                    return
                if parts.path == "/api/data":
                    self._send(200, json.dumps({"items": [1, 2, 3]}).encode(), "application/json")
                    return
                file = (PAGES / parts.path.lstrip("/")).resolve()
                if PAGES.resolve() not in file.parents or not file.is_file():
                    self._send(404, b"not found", "text/plain")
                    return
                body = file.read_bytes()
                if file.suffix == ".html":
                    text = body.decode("utf-8")
                    text = text.replace("{{PORT}}", str(server.port))
                    text = text.replace("{{SENTINEL}}", server.sentinel)
                    for old, new in server.edits.items():
                        text = text.replace(old, new)
                    body = text.encode("utf-8")
                self._send(200, body, TYPES.get(file.suffix, "application/octet-stream"))

            do_POST = do_GET

        return Handler
