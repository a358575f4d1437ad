"""Keeping passwords away from the model: which fields are password fields, and which hold a value.

Every check reads attributes through Playwright's isolated world (`get_attribute`,
CSS `:focus`), where page scripts cannot redefine what an element reports about itself.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable

from playwright.async_api import ElementHandle, Locator, Page
from playwright.async_api import Error as PlaywrightError

from tools.browser.page.snapshot import AriaNode

__all__ = ["is_password", "password_focused", "secret_refs"]

FOCUSED_PASSWORD = (
    'input[type="password" i]:focus, input[autocomplete~="current-password" i]:focus, '
    'input[autocomplete~="new-password" i]:focus'
)


async def is_password(locator: Locator | ElementHandle) -> bool:
    if isinstance(locator, Locator):
        kind, autocomplete = await asyncio.gather(
            locator.get_attribute("type", timeout=2000),
            locator.get_attribute("autocomplete", timeout=2000),
        )
    else:  # an element already held: nothing to wait for
        kind, autocomplete = await asyncio.gather(
            locator.get_attribute("type"), locator.get_attribute("autocomplete")
        )
    return (kind or "").strip().lower() == "password" or "password" in (autocomplete or "").lower()


async def password_focused(page: Page) -> bool:
    """Whether the keyboard focus is in a password field, in any frame or open shadow root."""
    for frame in page.frames:
        with contextlib.suppress(PlaywrightError):
            if await frame.locator(FOCUSED_PASSWORD).count():
                return True
    return False


async def secret_refs(page: Page, nodes: Iterable[AriaNode]) -> set[str]:
    """Playwright refs of the password fields among `nodes` (of a snapshot) that show a value.

    Checked after the snapshot, field by field through its ref (so the snapshot later refs
    resolve against stays the page's), and only for text fields that hold a value.
    """
    candidates = [
        node.pw_ref
        for node in nodes
        if node.role == "textbox"
        and node.pw_ref is not None
        and (node.text or any(child.is_text for child in node.children))
    ]

    async def secret(pw_ref: str) -> bool:
        try:
            return await is_password(page.locator(f"aria-ref={pw_ref}"))
        except PlaywrightError:
            return True  # unreadable: hide it rather than risk showing a password

    if not candidates:
        return set()
    verdicts = await asyncio.gather(*(secret(ref) for ref in candidates))
    return {ref for ref, hidden in zip(candidates, verdicts, strict=True) if hidden}
