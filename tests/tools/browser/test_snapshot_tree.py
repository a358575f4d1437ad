"""The JSON aria snapshot reads into the same interactive view as the text one (real Chromium).

`read_page` with `filter: "interactive"` takes Playwright's tree rather than its text, to skip
writing and re-parsing the text of a big page; this checks, on every test page (frames,
password fields, selects, a page that changes its own tree), that what the model reads does
not depend on which one was read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.page_server import PAGES, PageServer
from tests.tools.browser.conftest import Driver
from tools.browser.observe import INTERACTIVE_ROLES, is_interactive, render_page
from tools.browser.snapshot import AriaNode, scan_json, scan_snapshot
from tools.browser.snapshot_tree import snapshot_tree

pytestmark = pytest.mark.anyio

ROLES = INTERACTIVE_ROLES | {"iframe"}


def rendered(root: AriaNode) -> str:
    return render_page(root, ref_of=lambda node: str(node.pw_ref), filter="interactive", cap=10**9)


@pytest.mark.parametrize("depth", [15, 3])
async def test_the_tree_and_the_text_give_the_same_controls(
    browser: Driver, pages: PageServer, depth: int
) -> None:
    for page_file in sorted(PAGES.glob("*.html")):
        await browser.open(pages.url(Path(page_file).name))
        tab = await browser.toolset._session.tab(None)
        text = await tab.page.aria_snapshot(mode="ai", timeout=30_000)
        items = await snapshot_tree(tab.page, timeout_ms=30_000)
        assert items is not None, "this Playwright gives the JSON snapshot"
        from_text = rendered(scan_snapshot(text, is_interactive, depth, roles=ROLES))
        from_tree = rendered(scan_json(items, is_interactive, depth, roles=ROLES))
        assert from_tree == from_text, page_file.name


async def test_read_page_refs_from_the_tree_act_and_passwords_stay_hidden(
    browser: Driver, pages: PageServer
) -> None:
    await browser.open(pages.url("login.html"))
    await browser.eval("document.querySelector('input[type=password]').value = 'hunter2-secret'")
    page = await browser("read_page", filter="interactive")
    assert "hunter2-secret" not in page.text and "[password]" in page.text
    await browser.open(pages.url("shop.html"))
    page = await browser("read_page", filter="interactive")
    clicked = await browser("left_click", target={"type": "ref", "ref": page.ref('"Next"')})
    assert not clicked.is_error
    assert await browser.eval("document.getElementById('status').textContent") == "next pressed"
