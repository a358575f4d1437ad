"""Waiting for the first of several awaitables, with the rest cancelled and awaited."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any


async def first_done(*waits: Awaitable[Any]) -> None:
    """Wait until the first of `waits` finishes; the others are cancelled (and awaited, so none
    outlives the call)."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
