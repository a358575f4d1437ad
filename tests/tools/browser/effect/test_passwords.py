"""Passwords are never typed, filled, pasted or read, with real Chromium."""

from __future__ import annotations

import pytest

from tests.support.page_server import PageServer
from tests.tools.browser.conftest import Driver
from tools.browser import errors

pytestmark = pytest.mark.anyio


async def test_password_fields_are_never_typed_filled_or_read(
    browser: Driver, pages: PageServer
) -> None:
    await browser.open(pages.url("form.html"))
    page = await browser("read_page", filter="interactive")
    password = page.ref('"Password"')
    filled = await browser("form_input", target={"type": "ref", "ref": password}, value="letmein")
    assert filled.is_error and filled.text == errors.PASSWORD_FIELD

    await browser("left_click", target={"type": "ref", "ref": password})
    typed = await browser("type", text="letmein")
    assert typed.is_error and typed.text == errors.PASSWORD_FIELD
    pasted = await browser("key", text="ctrl+v")
    assert pasted.is_error and pasted.text == errors.PASSWORD_FIELD
    held = await browser("hold_key", text="a", duration=0.1)
    assert held.is_error
    assert await browser.eval("document.getElementById('password').value") == "hunter2-secret"
    moved_on = await browser("key", text="Tab")  # leaving the field is fine
    assert not moved_on.is_error

    for read in (
        await browser("read_page"),
        await browser("read_page", filter="all"),
        await browser("find", query="password field"),
    ):
        assert "hunter2" not in read.text and "[password]" in read.text
    everything = (await browser("read_page", filter="all")).text
    (confirm_line,) = [line for line in everything.splitlines() if "Confirm password" in line]
    assert "[password]" in confirm_line and 'placeholder="Repeat it"' in confirm_line
