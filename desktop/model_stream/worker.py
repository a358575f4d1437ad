"""The app's side of the model stream process (see desktop/model_stream/process.py).

`StreamWorker.stream(...)` sends one request to the process and awaits its result,
with the text handed to `on_text` on the caller's loop as it arrives. Cancelling the
awaiting task cancels the stream in the process. If the process dies, the streams in
flight fail with a plain report and the next stream starts a new process.

One process serves every stream of the app (`shared_worker()`): it takes a couple of
seconds to import the SDK, so the app starts it early (`start()`) and keeps it. `close()`
shuts the pipe: the process stops its streams and ends by itself, as it would if the app
died; only one that does not end within CLOSE_GRACE seconds is terminated.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from desktop.model_stream import errors
from desktop.model_stream.client import ClientConfig
from desktop.model_stream.process import (
    CancelStream,
    FromProcess,
    StartStream,
    StreamDone,
    StreamFailed,
    StreamResult,
    StreamText,
    ToProcess,
)

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

STREAM_PROCESS_FLAG = "--stream-process"
CLOSE_GRACE = 3.0  # seconds the process has to end by itself once its pipe is shut


def stream_process_command(fd: int) -> list[str]:
    """How to start the stream process: this interpreter, or this bundle's own executable."""
    if getattr(sys, "frozen", False):
        return [sys.executable, STREAM_PROCESS_FLAG, str(fd)]
    return [sys.executable, "-m", "desktop", STREAM_PROCESS_FLAG, str(fd)]


@dataclass
class _Stream:
    """A stream in flight, as the reading thread finds it."""

    loop: asyncio.AbstractEventLoop
    connection: Connection | None  # to the process that serves it
    on_text: Callable[[str], None]
    result: asyncio.Future[StreamResult]

    def deliver(self, message: FromProcess) -> None:
        """On the caller's loop: text to the caller, the end to whoever awaits the result."""
        if self.result.done():
            return
        if isinstance(message, StreamText):
            self.on_text(message.text)
        elif isinstance(message, StreamDone):
            self.result.set_result(message.result)
        elif isinstance(message, StreamFailed):
            self.result.set_exception(errors.ModelCallFailed(message.report, message.error))

    def lost(self) -> None:
        if not self.result.done():
            self.result.set_exception(
                errors.ModelCallFailed(errors.stream_process_lost(), "stream process ended")
            )

    def tell(self, callback: Callable[..., None], *args: object) -> None:
        """From the reading thread: run `callback` on the caller's loop, unless that loop is gone."""
        try:
            self.loop.call_soon_threadsafe(callback, *args)
        except RuntimeError:
            pass  # its loop is closed: nobody awaits this stream any more


def _end(process: subprocess.Popen[bytes]) -> None:
    """Wait for a process whose pipe is shut to end; one that does not is made to."""
    try:
        process.wait(CLOSE_GRACE)
        return
    except subprocess.TimeoutExpired:
        process.terminate()
    try:
        process.wait(CLOSE_GRACE)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class StreamWorker:
    """Runs model streams in a process of their own."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._socket: socket.socket | None = None  # our end of the pipe, to shut it
        self._connection: Connection | None = None  # messages over that same socket
        self._reader: threading.Thread | None = None
        self._streams: dict[int, _Stream] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()  # one writer at a time on the pipe; one start

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        """Start the process now if it is not running (it imports the SDK in its own time)."""
        with self._lock:
            if self._process is not None and self._process.poll() is None:
                return
            ours, theirs = socket.socketpair()
            # Its own session: Ctrl+C in a terminal stops the app, which ends the process.
            process = subprocess.Popen(
                stream_process_command(theirs.fileno()),
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
            theirs.close()  # only the process holds its end now: its exit ends our reads
            # Loaded here, once the window shows, rather than with the window.
            from multiprocessing.connection import Connection

            connection = Connection(os.dup(ours.fileno()))
            self._process, self._socket, self._connection = process, ours, connection
            self._reader = threading.Thread(
                target=self._read,
                args=(process, ours, connection),
                name="stream-replies",
                daemon=True,
            )
            self._reader.start()

    def _read(
        self, process: subprocess.Popen[bytes], ours: socket.socket, connection: Connection
    ) -> None:
        """The reading thread: hand each message to its stream's loop; at the end, reap the
        process and close the pipe (this thread alone, so no read meets a closed descriptor)."""
        try:
            while True:
                message: FromProcess = connection.recv()
                stream = self._streams.get(message.stream_id)
                if stream is not None:
                    stream.tell(stream.deliver, message)
        except (EOFError, OSError):
            pass  # the process ended, or close() shut the pipe
        _end(process)
        with self._lock:
            if self._connection is connection:
                self._process, self._socket, self._connection = None, None, None
            connection.close()
            ours.close()
        for stream in list(self._streams.values()):
            if stream.connection is connection:
                stream.tell(stream.lost)

    def _send(self, message: ToProcess) -> None:
        with self._lock:
            connection = self._connection
            if connection is None:
                raise errors.ModelCallFailed(errors.stream_process_lost(), "no stream process")
            connection.send(message)

    async def stream(
        self,
        *,
        client: ClientConfig,
        request: dict[str, Any],
        on_text: Callable[[str], None],
    ) -> StreamResult:
        """Stream one message; `on_text` runs on the caller's loop. Returns the final message."""
        try:
            self.start()
        except OSError as exc:
            raise errors.ModelCallFailed(errors.stream_process_lost(), type(exc).__name__) from exc
        loop = asyncio.get_running_loop()
        stream_id = next(self._ids)
        stream = _Stream(loop, self._connection, on_text, loop.create_future())
        self._streams[stream_id] = stream
        try:
            # A request with images can be megabytes: pickled and written off the loop.
            start = StartStream(stream_id=stream_id, client=client, request=request)
            await asyncio.to_thread(self._send, start)
            return await stream.result
        except asyncio.CancelledError:
            try:
                self._send(CancelStream(stream_id=stream_id))
            except (errors.ModelCallFailed, OSError):
                pass  # no process, no stream to cancel
            raise
        except OSError as exc:  # the pipe broke while sending
            raise errors.ModelCallFailed(errors.stream_process_lost(), type(exc).__name__) from exc
        finally:
            del self._streams[stream_id]

    async def close(self) -> None:
        """End the process and wait until it has ended; streams still in flight fail as if it
        had died. The next `start()` or `stream()` starts a new one."""
        with self._lock:  # the reading thread closes the socket under this lock too
            ours, reader = self._socket, self._reader
            self._process, self._socket, self._connection, self._reader = None, None, None, None
            if ours is not None:
                with contextlib.suppress(OSError):
                    ours.shutdown(socket.SHUT_RDWR)  # the process reads the end; so does our reader
        if reader is not None:
            await asyncio.to_thread(reader.join)  # it reaps the process and closes the pipe


_shared: StreamWorker | None = None


def shared_worker() -> StreamWorker:
    """The app's one stream process (also shared by the agents of a test run)."""
    global _shared
    if _shared is None:
        _shared = StreamWorker()
    return _shared
