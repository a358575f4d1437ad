"""A screen backend on a worker thread of its own, for the parts that are not the computer toolset.

The element tools and the accessibility inspector list windows, read displays, capture and, when
an element has no means of its own, click it. Backend calls block and a backend connection is
used by one thread at a time, so each `ScreenWorker` owns one connection (opened on first use)
and one thread; `await worker.run(fn)` calls `fn(backend)` there. After a failure the connection
is dropped and the next call opens a fresh one.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from tools.screen.backends.base import ScreenBackend
from tools.screen.backends.factory import open_backend
from tools.screen.displays import Display, number_displays
from tools.screen.errors import BackendError
from tools.screen.windows import Window, WindowLister

log = logging.getLogger(__name__)

__all__ = ["ScreenWorker"]

T = TypeVar("T")


class ScreenWorker:
    def __init__(self, backend: Callable[[], ScreenBackend] | None = None) -> None:
        self._open = backend or open_backend
        self._backend: ScreenBackend | None = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deskhand-screen-see")

    def _call(self, fn: Callable[[ScreenBackend], T]) -> T:
        if self._backend is None:
            self._backend = self._open()
        try:
            return fn(self._backend)
        except BackendError:
            self._drop()
            raise
        except Exception as exc:  # a broken connection shows as anything from Xlib
            self._drop()
            raise BackendError("screen backend call failed") from exc

    def _drop(self) -> None:
        backend, self._backend = self._backend, None
        if backend is not None:
            with contextlib.suppress(Exception):
                backend.close()

    async def run(self, fn: Callable[[ScreenBackend], T]) -> T:
        """`fn(backend)` on the worker thread. Once started it runs to its end, even if the
        caller is cancelled (an input event is never cut in half)."""
        loop = asyncio.get_running_loop()
        return await asyncio.shield(
            loop.run_in_executor(self._thread, functools.partial(self._call, fn))
        )

    async def displays(self) -> list[Display]:
        return number_displays(await self.run(lambda backend: backend.displays()))

    async def windows(self) -> list[Window] | None:
        """The windows front to back, or None when this backend cannot list them."""

        def listed(backend: ScreenBackend) -> list[Window] | None:
            return backend.windows() if isinstance(backend, WindowLister) else None

        return await self.run(listed)

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        with contextlib.suppress(Exception):
            await loop.run_in_executor(self._thread, self._drop)
        self._thread.shutdown(wait=False)
