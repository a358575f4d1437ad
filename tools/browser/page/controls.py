"""`read_page` with `filter: "interactive"`: the page's controls, read from the snapshot's text.

The interactive view of a big page is capped (50,000 characters), and most of a 2,000-row
table never reaches the model. So controls are built a batch at a time, each batch checked
for password fields that show a value and rendered, until the cap is reached; what is left is
counted from its lines without being built. A big page thus costs its snapshot and little more.
"""

from __future__ import annotations

from playwright.async_api import Page

from tools.browser.effect.passwords import secret_refs
from tools.browser.page.observe import (
    INTERACTIVE_ROLES,
    NO_CONTROLS,
    READ_PAGE_CAP,
    CappedLines,
    RefOf,
    add_controls,
    is_interactive,
)
from tools.browser.page.snapshot import ControlScan, release

__all__ = ["read_controls"]

# Controls per batch: about a third of what fits under the cap, so a page that fits takes one
# or two batches and a big one stops soon after the cap.
BATCH = 512
ROLES = INTERACTIVE_ROLES | {"iframe"}


async def read_controls(
    page: Page, text: str, *, depth: int, ref_of: RefOf, cap: int = READ_PAGE_CAP
) -> str:
    """The controls of snapshot `text` (of `page`) up to `depth`, one per line, under `cap`."""
    scan = ControlScan(text, is_interactive, depth, roles=ROLES)
    out = CappedLines(cap)
    while not out.dropped:
        batch = scan.take(BATCH)
        if not batch:
            break
        try:
            add_controls(batch, out, ref_of, await secret_refs(page, batch))
        finally:
            for node in batch:
                release(node)
    out.dropped += scan.count_rest(skip=frozenset({"iframe"}))
    return out.text(NO_CONTROLS)
