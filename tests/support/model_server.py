"""A scripted stand-in for the Anthropic Messages API, for tests.

`ScriptedModelServer` listens on 127.0.0.1 (a free port) in a daemon thread, so the
real `anthropic.AsyncAnthropic` client can talk to it from any event loop (plain
asyncio, qasync's Qt loop, ...). A test queues what the "model" does with
`enqueue(...)`; every ``POST /v1/messages`` consumes one item, first in first out (a
query string such as ``?beta=true`` is accepted and kept in `RecordedRequest.query`;
anthropic 2.x's beta namespace no longer sends one)::

    with ScriptedModelServer() as server:
        server.enqueue(
            tool_reply(ToolUse(name="click", input={"x": 1})),
            text_reply("Done."),
        )
        client = AsyncAnthropic(api_key="test", base_url=server.base_url, max_retries=0)
        ...
        assert server.message_requests[0]["messages"][0]["content"] == "hi"

What the client (anthropic 2.x, which runs on the ``httpx2`` package) sees per item:

- `Reply`: a normal message; SSE events exactly like the real API when the request
  has ``"stream": true``, else one JSON message.
- `HttpError`: that status and an Anthropic error body. The SDK picks the class from
  the status (401 -> `anthropic.AuthenticationError`, 429 -> `anthropic.RateLimitError`,
  529 -> `anthropic.OverloadedError`, ...) and retries 408/409/429/5xx while
  ``max_retries`` allows. Beware: the SDK only honours a retry-after *greater than 0*;
  ``retry-after: 0`` falls back to its own ~0.4-0.5 s backoff. For an instant retry
  send ``{"retry-after-ms": "1"}``.
- `StreamError`: status 200, the partial text, then ``event: error``. While iterating
  the client raises ``anthropic.APIStatusError`` itself (``anthropic._exceptions``), not
  a subclass, because the status is 200; ``.status_code == 200``,
  ``.type == "overloaded_error"``, ``.api_message`` is the message and ``.body`` the
  parsed error JSON.
- `DropConnection`: the partial text, then the socket closes in the middle of the
  chunked body. While iterating the client raises ``httpx2.RemoteProtocolError``
  (defined in ``httpx2._exceptions``; "peer closed connection without sending complete
  message body (incomplete chunked read)"); the SDK does NOT wrap it in an
  ``anthropic.APIError``.
- `Hang`: the partial text, then nothing until `stop()`, the client disconnecting, or
  ``seconds`` elapse; then the socket closes as for `DropConnection`.

Without a streaming request, `StreamError` becomes a plain HTTP error of the matching
status, and `DropConnection`/`Hang` close the socket before any response.

Like the real API, a request whose history breaks the toolset rule (every ``tool_result``
answering a toolset ``tool_use``, one that carries ``toolset_name``, echoes that
``toolset_name``) is answered 400 ``invalid_request_error`` without consuming a script item.

With an empty queue the answer is HTTP 500 "scripted model server: no reply queued",
sent with ``x-should-retry: false`` so the SDK fails at once instead of retrying.

``GET /v1/models`` and ``GET /v1/models/{id}`` serve the ids given to the server.
Every request, on any path, is recorded in `ScriptedModelServer.requests`.
"""

from __future__ import annotations

import io
import json
import math
import select
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self, cast
from urllib.parse import parse_qs, unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "DropConnection",
    "Hang",
    "HttpError",
    "RecordedRequest",
    "Reply",
    "Script",
    "ScriptItem",
    "ScriptedModelServer",
    "StreamError",
    "Text",
    "ToolUse",
    "Usage",
    "browser_use",
    "text_reply",
    "tool_reply",
    "toolset_echo_problem",
]

NO_REPLY_MESSAGE = "scripted model server: no reply queued"
# Newest first, like the real API; none is in the SDK's DEPRECATED_MODELS (those trigger a
# DeprecationWarning on every call), and the Sonnet is the app's SDK-derived default.
DEFAULT_MODELS = ["claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-5-5"]

# Status the real API uses for each error type; used when a stream-only script item
# meets a non-streaming request.
_STATUS_FOR_TYPE = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


class _Strict(BaseModel):
    # Forbid unknown fields so a typo in a test script fails instead of being ignored.
    model_config = ConfigDict(extra="forbid")


class Usage(_Strict):
    """Token counts reported for a reply."""

    input_tokens: int = 10
    output_tokens: int = 5
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0


class Text(_Strict):
    """A text content block, streamed as ``text_delta`` events of `chunk_size` characters."""

    text: str
    chunk_size: int = Field(default=8, ge=1)


class ToolUse(_Strict):
    """A ``tool_use`` content block; `extra` is merged into the block (e.g. ``toolset_name``)."""

    name: str
    input: Any = Field(default_factory=dict)  # any JSON: a model can send a list or null
    id: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class Reply(_Strict):
    """One successful model response. `stop_reason` is never inferred; see `tool_reply`."""

    blocks: list[Text | ToolUse]
    stop_reason: str = "end_turn"
    usage: Usage = Field(default_factory=Usage)
    chunk_delay: float = 0.0
    model: str | None = None
    # Seconds the model "thinks" before its stream starts: a real turn's time (figures only).
    think: float = 0.0


class HttpError(_Strict):
    """An HTTP error response with an Anthropic error body."""

    status: int
    type: str
    message: str = "scripted error"
    headers: dict[str, str] = Field(default_factory=dict)


class StreamError(_Strict):
    """A stream that sends `text`, then an SSE ``error`` event, then ends."""

    text: str = ""
    type: str = "overloaded_error"
    message: str = "Overloaded"


class DropConnection(_Strict):
    """A stream that sends `text`, then closes the socket without ``message_stop``."""

    text: str = ""


class Hang(_Strict):
    """A stream that sends `text`, then stalls until stop(), a disconnect or `seconds`."""

    text: str = ""
    seconds: float = 30.0


Script = Reply | HttpError | StreamError | DropConnection | Hang


def text_reply(text: str, **kw: Any) -> Reply:
    """A reply with a single text block."""
    return Reply(blocks=[Text(text=text)], **kw)


def browser_use(name: str, **input: Any) -> ToolUse:
    """A call of a browser toolset member, as the model sends it (with `toolset_name`)."""
    return ToolUse(name=name, input=dict(input), extra={"toolset_name": "browser"})


def computer_use(name: str, **input: Any) -> ToolUse:
    """A call of a computer (screen) toolset member, as the model sends it."""
    return ToolUse(name=name, input=dict(input), extra={"toolset_name": "computer"})


def tool_reply(*uses: ToolUse, text: str = "", **kw: Any) -> Reply:
    """A reply with ``stop_reason="tool_use"``, an optional leading text block, then `uses`."""
    kw.setdefault("stop_reason", "tool_use")
    blocks: list[Text | ToolUse] = [Text(text=text)] if text else []
    blocks.extend(uses)
    return Reply(blocks=blocks, **kw)


@dataclass
class RecordedRequest:
    """One request as the server received it. Header names are lower-cased."""

    method: str
    path: str  # without the query string
    headers: dict[str, str]
    body: dict[str, Any] | None  # parsed JSON body, None if absent or not a JSON object
    query: str = field(default="")  # raw query string, e.g. "beta=true"


ScriptItem = Script | Callable[[RecordedRequest], Script]


class _Abort(Exception):
    """Raised inside a handler to close the connection without finishing the response."""


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, owner: ScriptedModelServer) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _Handler)


class ScriptedModelServer:
    """A scripted Anthropic Messages API server on 127.0.0.1 running in a daemon thread."""

    def __init__(self, models: list[str] | None = None) -> None:
        self.models: list[str] = list(DEFAULT_MODELS if models is None else models)
        self.requests: list[RecordedRequest] = []
        self._queue: deque[ScriptItem] = deque()
        self._lock = threading.Lock()
        # Guards the set of open client sockets so stop() can cut keep-alive connections.
        self._conn_cond = threading.Condition()
        self._connections: set[socket.socket] = set()
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._port: int | None = None
        self._tool_counter = 0

    # -- lifecycle -------------------------------------------------------------------

    def start(self) -> None:
        """Bind a free port and serve in a daemon thread. Calling it again is a no-op."""
        if self._httpd is not None:
            return
        if self._stopping.is_set():
            raise RuntimeError("a stopped ScriptedModelServer cannot be restarted")
        httpd = _HTTPServer(self)
        self._port = httpd.server_address[1]
        self._httpd = httpd
        # A short poll interval keeps stop() fast; shutdown() waits for the next poll.
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"ScriptedModelServer:{self._port}",
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop serving, wake any `Hang`, cut open connections and join. Idempotent."""
        httpd, thread = self._httpd, self._thread
        with self._conn_cond:
            self._stopping.set()
            connections = list(self._connections)
        if httpd is None or thread is None:
            return
        self._httpd = self._thread = None
        httpd.shutdown()
        # Handler threads idle on keep-alive reads; shutting their sockets wakes them.
        for conn in connections:
            with suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        httpd.server_close()
        thread.join(timeout=5)
        with self._conn_cond:
            self._conn_cond.wait_for(lambda: not self._connections, timeout=2)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``; only available once started."""
        if self._port is None:
            raise RuntimeError("ScriptedModelServer is not started")
        return f"http://127.0.0.1:{self._port}"

    # -- scripting -------------------------------------------------------------------

    def enqueue(self, *items: ScriptItem) -> None:
        """Append items to the FIFO; a callable gets the request and returns the item."""
        with self._lock:
            self._queue.extend(items)

    def pending(self) -> int:
        """Number of queued items not yet consumed."""
        with self._lock:
            return len(self._queue)

    @property
    def message_requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of every ``POST /v1/messages``, in order."""
        with self._lock:
            return [
                r.body
                for r in self.requests
                if r.method == "POST" and r.path == "/v1/messages" and r.body is not None
            ]

    # -- used by the handler threads -------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _pop(self) -> ScriptItem | None:
        with self._lock:
            return self._queue.popleft() if self._queue else None

    def _new_tool_id(self) -> str:
        with self._lock:
            self._tool_counter += 1
            return f"toolu_{self._tool_counter:04d}{uuid.uuid4().hex[:20]}"

    def _track(self, conn: socket.socket) -> None:
        with self._conn_cond:
            self._connections.add(conn)
            stopping = self._stopping.is_set()
        if stopping:
            # Accepted just before stop(): do not serve it.
            with suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def _untrack(self, conn: socket.socket) -> None:
        with self._conn_cond:
            self._connections.discard(conn)
            self._conn_cond.notify_all()


# -- wire format helpers -------------------------------------------------------------


def _new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


def _error_body(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}


def toolset_echo_problem(body: dict[str, Any]) -> str | None:
    """The API's toolset rule: each ``tool_result`` answering a ``tool_use`` that carries
    ``toolset_name`` echoes the same ``toolset_name``. The first breach, worded the API's way
    (the field's path, then what is wrong), or None."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return None
    families: dict[str, str] = {}  # tool_use id -> its toolset
    for m, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for b, block in enumerate(content):
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and block.get("toolset_name"):
                families[str(block.get("id"))] = str(block["toolset_name"])
            elif block.get("type") == "tool_result":
                use_id = str(block.get("tool_use_id"))
                family = families.get(use_id)
                if family is not None and block.get("toolset_name") != family:
                    return (
                        f"messages.{m}.content.{b}.toolset_name: the `tool_result` for "
                        f"`tool_use` id `{use_id}` must have `toolset_name` set to "
                        f"`{family}`, the toolset of that `tool_use`"
                    )
    return None


def _usage_json(usage: Usage, output_tokens: int) -> dict[str, int]:
    return {
        "input_tokens": usage.input_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "output_tokens": output_tokens,
    }


def _chunks(text: str, size: int) -> Iterator[str]:
    for i in range(0, len(text), size):
        yield text[i : i + size]


def _json_pieces(value: Any) -> list[str]:
    # The real API streams tool input as a few partial_json fragments; an empty input
    # arrives as a single empty fragment, and one that is not an object (what a confused
    # model or a compatible server may send) whole, since a cut bare string cannot parse.
    if not isinstance(value, dict):
        return [json.dumps(value)]
    raw = json.dumps(value, separators=(",", ":")) if value else ""
    if not raw:
        return [""]
    size = max(1, math.ceil(len(raw) / 3))
    return list(_chunks(raw, size))


def _display_name(model_id: str) -> str:
    words = [w for w in model_id.split("-") if not (w.isdigit() and len(w) >= 6)]
    names = [w.capitalize() for w in words if not w.isdigit()]
    version = ".".join(w for w in words if w.isdigit())
    return " ".join([*names, version] if version else names)


def _model_json(model_id: str, index: int) -> dict[str, Any]:
    return {
        "type": "model",
        "id": model_id,
        "display_name": _display_name(model_id),
        # Newest first, as the real list is ordered.
        "created_at": f"2025-{12 - index % 12:02d}-01T00:00:00Z",
        "lifecycle": "active",
        "deprecated_at": None,
        "retires_at": None,
        "max_input_tokens": 200_000,
        "max_tokens": 64_000,
    }


class _SSEWriter:
    """Writes SSE events as HTTP/1.1 chunks, each sent immediately."""

    def __init__(self, wfile: io.BufferedIOBase) -> None:
        self._wfile = wfile

    def _chunk(self, data: bytes) -> None:
        self._wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self._wfile.flush()

    def event(self, name: str, data: dict[str, Any]) -> None:
        payload = json.dumps(data, separators=(",", ":"))
        self._chunk(f"event: {name}\ndata: {payload}\n\n".encode())

    def end(self) -> None:
        # The zero-length chunk marks a complete body; DropConnection deliberately omits it.
        self._wfile.write(b"0\r\n\r\n")
        self._wfile.flush()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive for JSON; SSE answers use Connection: close

    @property
    def owner(self) -> ScriptedModelServer:
        return cast(_HTTPServer, self.server).owner

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def setup(self) -> None:
        super().setup()
        self.owner._track(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.owner._untrack(self.connection)

    def do_GET(self) -> None:
        self._dispatch()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

    # -- request -----------------------------------------------------------------

    def _read_body(self) -> bytes:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            parts: list[bytes] = []
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return b"".join(parts)
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _dispatch(self) -> None:
        raw = self._read_body()
        url = urlsplit(self.path)
        path = url.path.rstrip("/") or "/"
        body: dict[str, Any] | None = None
        if raw:
            with suppress(ValueError):
                parsed = json.loads(raw)
                body = parsed if isinstance(parsed, dict) else None
        request = RecordedRequest(
            method=self.command,
            path=path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            query=url.query,
        )
        self.owner._record(request)
        try:
            if self.command == "POST" and path == "/v1/messages":
                self._messages(request)
            elif self.command == "GET" and path == "/v1/models":
                self._list_models(parse_qs(url.query))
            elif self.command == "GET" and path.startswith("/v1/models/"):
                self._get_model(unquote(path.removeprefix("/v1/models/")))
            else:
                message = f"scripted model server: no route for {self.command} {url.path}"
                self._send_error(404, "not_found_error", message)
        except _Abort:
            self._abort()
        except OSError:
            # The client went away mid-response (e.g. a cancelled stream).
            self.close_connection = True

    # -- responses ---------------------------------------------------------------

    def _send_json(
        self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        extra = dict(headers or {})
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if not any(k.lower() == "request-id" for k in extra):
            self.send_header("request-id", _new_id("req"))
        for key, value in extra.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_error(
        self, status: int, error_type: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        self._send_json(status, _error_body(error_type, message), headers)

    def _abort(self) -> None:
        # A FIN in the middle of a chunked body: the client sees an incomplete read. (An
        # RST could make the client discard already-received deltas, so none is forced.)
        self.close_connection = True
        with suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _pause(self, seconds: float) -> None:
        if seconds > 0 and self.owner._stopping.wait(seconds):
            raise _Abort

    def _wait_hang(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if self.owner._stopping.wait(min(0.05, left)) or self._client_gone():
                return

    def _client_gone(self) -> bool:
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    # -- /v1/messages ------------------------------------------------------------

    def _messages(self, request: RecordedRequest) -> None:
        body = request.body or {}
        streaming = body.get("stream") is True
        if (problem := toolset_echo_problem(body)) is not None:
            self._send_error(400, "invalid_request_error", problem)
            return  # refused before the model runs: the script item stays for the next request
        item = self.owner._pop()
        if item is None:
            self._send_error(500, "api_error", NO_REPLY_MESSAGE, {"x-should-retry": "false"})
            return
        if not isinstance(item, Script):
            try:
                item = item(request)
            except Exception as exc:
                message = f"scripted model server: script callable raised {exc!r}"
                self._send_error(500, "api_error", message, {"x-should-retry": "false"})
                return
        fallback_model = self.owner.models[0] if self.owner.models else DEFAULT_MODELS[0]
        model = str(body.get("model") or fallback_model)
        if isinstance(item, HttpError):
            self._send_error(item.status, item.type, item.message, item.headers)
        elif isinstance(item, Reply):
            model = item.model or model
            if streaming:
                self._stream_reply(item, model)
            else:
                self._send_json(200, self._message_json(item, model))
        elif not streaming:
            if isinstance(item, StreamError):
                status = _STATUS_FOR_TYPE.get(item.type, 500)
                self._send_error(status, item.type, item.message)
                return
            if isinstance(item, Hang):
                self._wait_hang(item.seconds)
            raise _Abort
        else:
            self._stream_failure(item, model)

    def _final_blocks(self, reply: Reply) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        for block in reply.blocks:
            if isinstance(block, Text):
                blocks.append({"type": "text", "text": block.text})
            else:
                tool_id = block.id or self.owner._new_tool_id()
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": tool_id,
                        "name": block.name,
                        "input": block.input,
                        **block.extra,
                    }
                )
        return blocks

    def _message_json(self, reply: Reply, model: str) -> dict[str, Any]:
        return {
            "id": _new_id("msg"),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": self._final_blocks(reply),
            "stop_reason": reply.stop_reason,
            "stop_sequence": None,
            "usage": _usage_json(reply.usage, reply.usage.output_tokens),
        }

    def _start_stream(self, model: str, usage: Usage) -> _SSEWriter:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        # Chunked, so a dropped connection is detectable; close, so no keep-alive state.
        self.send_header("Connection", "close")
        self.send_header("request-id", _new_id("req"))
        self.end_headers()
        self.close_connection = True
        sse = _SSEWriter(self.wfile)
        message: dict[str, Any] = {
            "id": _new_id("msg"),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": _usage_json(usage, 1),
        }
        sse.event("message_start", {"type": "message_start", "message": message})
        sse.event("ping", {"type": "ping"})
        return sse

    def _stream_text(
        self, sse: _SSEWriter, index: int, text: str, chunk_size: int, delay: float
    ) -> None:
        start = {"type": "text", "text": ""}
        sse.event(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
        for piece in _chunks(text, chunk_size):
            self._pause(delay)
            sse.event(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": piece},
                },
            )

    def _stream_reply(self, reply: Reply, model: str) -> None:
        self._pause(reply.think)
        sse = self._start_stream(model, reply.usage)
        for index, (block, final) in enumerate(
            zip(reply.blocks, self._final_blocks(reply), strict=True)
        ):
            if isinstance(block, Text):
                self._stream_text(sse, index, block.text, block.chunk_size, reply.chunk_delay)
            else:
                sse.event(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {**final, "input": {}},
                    },
                )
                for piece in _json_pieces(block.input):
                    self._pause(reply.chunk_delay)
                    sse.event(
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": "input_json_delta", "partial_json": piece},
                        },
                    )
            sse.event("content_block_stop", {"type": "content_block_stop", "index": index})
        self._pause(reply.chunk_delay)
        sse.event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                "usage": _usage_json(reply.usage, reply.usage.output_tokens),
            },
        )
        sse.event("message_stop", {"type": "message_stop"})
        sse.end()

    def _stream_failure(self, item: StreamError | DropConnection | Hang, model: str) -> None:
        sse = self._start_stream(model, Usage())
        if item.text:
            self._stream_text(sse, 0, item.text, Text(text=item.text).chunk_size, 0.0)
        if isinstance(item, StreamError):
            sse.event("error", _error_body(item.type, item.message))
            sse.end()
            return
        if isinstance(item, Hang):
            self._wait_hang(item.seconds)
        raise _Abort

    # -- /v1/models --------------------------------------------------------------

    def _list_models(self, query: dict[str, list[str]]) -> None:
        ids = self.owner.models
        try:
            limit = min(max(int(query.get("limit", ["20"])[0]), 1), 1000)
        except ValueError:
            limit = 20
        after_id = query.get("after_id", [""])[0]
        before_id = query.get("before_id", [""])[0]
        if after_id in ids:
            start = ids.index(after_id) + 1
            end = min(start + limit, len(ids))
            has_more = end < len(ids)
        elif before_id in ids:
            end = ids.index(before_id)
            start = max(end - limit, 0)
            has_more = start > 0
        else:
            start, end = 0, min(limit, len(ids))
            has_more = end < len(ids)
        page = [_model_json(ids[i], i) for i in range(start, end)]
        self._send_json(
            200,
            {
                "data": page,
                "has_more": has_more,
                "first_id": page[0]["id"] if page else None,
                "last_id": page[-1]["id"] if page else None,
            },
        )

    def _get_model(self, model_id: str) -> None:
        if model_id in self.owner.models:
            self._send_json(200, _model_json(model_id, self.owner.models.index(model_id)))
        else:
            self._send_error(404, "not_found_error", f"model: {model_id}")
