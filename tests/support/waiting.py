"""Await a condition inside a running loop, without sleeping blindly in tests."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


async def wait_until(predicate: Callable[[], object], limit: float = 10.0, what: str = "") -> None:
    """Poll `predicate` every few ms until it is truthy; fail with `what` after `limit` seconds."""
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        await asyncio.sleep(0.01)
