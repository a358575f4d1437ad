"""The page's AI aria snapshot as Playwright's JSON tree, where this Playwright can give it.

The text snapshot (`page.aria_snapshot(mode="ai")`) is rendered by Playwright from a tree; on
a big page (a 2,000-row table is 18,000 lines) writing that text and parsing it back is a
good part of the whole read. Playwright's protocol hands out the tree itself
(`ariaSnapshotJSON`, public in its JavaScript API but not ported to Python), with the same
refs: the snapshot later `aria-ref=` locators resolve against is the same either way.

Only the Python side of that call is not public, so it is reached in one place, here; where
this Playwright lacks it, `snapshot_tree` answers None and the caller reads the text.
"""

from __future__ import annotations

import logging
from typing import Any

from playwright.async_api import Page

__all__ = ["snapshot_tree"]

log = logging.getLogger(__name__)
_missing = False  # this Playwright has no such call: not tried again


async def snapshot_tree(page: Page, *, timeout_ms: float) -> list[Any] | None:
    """The snapshot's top-level items (dicts with role, name, ref, children...), or None."""
    global _missing
    if _missing:
        return None
    try:
        channel = page.main_frame._impl_obj._channel
        call = channel.ariaSnapshotJSON
    except AttributeError:
        _missing = True
        log.info("This Playwright gives no JSON aria snapshot; reading the text one")
        return None
    result = await call(mode="ai", selector=None, depth=None, boxes=False, timeout=timeout_ms)
    items = result.get("snapshot") if isinstance(result, dict) else None
    return items if isinstance(items, list) else None
