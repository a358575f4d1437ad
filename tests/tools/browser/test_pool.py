"""Sessions, launching, the confirm hook and progress, as the app wires them (real Chromium)."""

from __future__ import annotations

import asyncio
import base64
import io
import os
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from anthropic.types.beta import BetaToolUseBlock
from PIL import Image

from tests.support.page_server import PageServer
from tests.tools.browser.conftest import TEST_POLICY, Driver, Gate
from tools.browser import BrowserConfig, BrowserPool, progress_scope

pytestmark = pytest.mark.anyio


async def test_each_session_has_its_own_context_and_tab_numbers(
    pool: BrowserPool, pages: PageServer
) -> None:
    first, second = Driver(pool.for_session("chat-a")), Driver(pool.for_session("chat-b"))
    try:
        assert pool.for_session("chat-a") is first.toolset  # reused across turns
        a = await first.open(pages.url("form.html"))
        b = await second.open(pages.url("second.html"))
        assert a.active["tab_id"] == b.active["tab_id"] == "tab_1"
        await first.eval("document.cookie = 'who=a'")
        assert await second.eval("document.cookie") == ""
    finally:
        await pool.close_session("chat-a")
    # the other chat is untouched, and a deleted chat starts over
    assert (await second("list_tabs")).active["title"] == "Second page"
    fresh = Driver(pool.for_session("chat-a"))
    assert (await fresh("list_tabs")).tabs == []
    assert await fresh.open(pages.url("form.html"))
    assert await fresh.eval("document.cookie") == ""
    await pool.close_session("chat-a")
    await pool.close_session("chat-b")


async def test_confirm_sees_member_input_and_tab_url(
    browser: Driver, pages: PageServer, gate: Gate
) -> None:
    await browser.open(pages.url("form.html"))
    page = await browser("read_page", filter="interactive")
    ref = page.ref('"Sign up"')
    await browser("left_click", target={"type": "ref", "ref": ref})
    context = gate.asked[-1]
    assert context.member == "left_click"
    assert context.input.to_dict() == {"target": {"type": "ref", "ref": ref}}
    assert context.tab_url == pages.url("form.html") and context.tab_id == "tab_1"
    judged = await browser.toolset.judge(context)
    risk, reason, summary = judged.risk, judged.reason, judged.summary
    assert (risk, summary) == ("change", "Click 'Sign up' (button) on 127.0.0.1")
    assert reason

    gate.answer = False
    declined = await browser("left_click", target={"type": "ref", "ref": ref})
    assert declined.is_error and "did not grant permission" in declined.text


async def test_progress_lines_name_what_runs(browser: Driver, pages: PageServer) -> None:
    lines: list[str] = []
    with progress_scope(lines.append):
        await browser.open(pages.url("form.html"))
        page = await browser("read_page", filter="interactive")
        await browser("left_click", target={"type": "ref", "ref": page.ref('"Sign up"')})
    assert lines == [
        f"Browser: open {pages.url('form.html')}",
        "Browser: read the page",
        "Browser: click 'Sign up'",
    ]


async def test_launch_is_lazy_and_closing_the_pool_ends_it(
    chromium: dict[str, Any], pages: PageServer, tmp_path: Path
) -> None:
    pool = BrowserPool(
        BrowserConfig(headless=True, url_policy=TEST_POLICY, downloads_dir=tmp_path, **chromium)
    )
    browser = pool.for_session(1)
    assert not pool.launched
    entry = browser.to_dict()
    assert entry["type"] == "browser_toolset_20260801"
    assert entry["configs"]["javascript_exec"] == {"enabled": False}
    use = BetaToolUseBlock(
        type="tool_use",
        id="toolu_js",
        name="javascript_exec",
        input={"text": "1"},
        toolset_name="browser",
    )
    disabled = await browser.tool_result(use)
    assert disabled.get("is_error") and not pool.launched
    assert (await Driver(browser).open(pages.url("form.html"))).active["title"] == "Sign-up form"
    assert pool.launched
    await pool.close()
    assert not pool.launched


async def test_missing_browser_gives_the_install_command(tmp_path: Path) -> None:
    pool = BrowserPool(
        BrowserConfig(
            headless=True, executable_path=str(tmp_path / "no-such-chrome"), downloads_dir=tmp_path
        )
    )
    try:
        result = await Driver(pool.for_session(1))("navigate", url="https://example.com/")
        assert result.is_error
        assert "Install one with:" in result.text and str(tmp_path) not in result.text
    finally:
        await pool.close()


async def test_configure_applies_new_policy_to_the_running_browser(
    chromium: dict[str, Any], pages: PageServer, tmp_path: Path
) -> None:
    config = BrowserConfig(
        headless=True, url_policy=TEST_POLICY, downloads_dir=tmp_path, **chromium
    )
    pool = BrowserPool(config)
    try:
        assert await Driver(pool.for_session(1)).open(pages.url("form.html"))
        await pool.configure(BrowserConfig(headless=True, downloads_dir=tmp_path, **chromium))
        refused = await Driver(pool.for_session(1))("navigate", url=pages.url("second.html"))
        assert refused.is_error and "private network" in refused.text
        assert pool.launched  # same browser process, same tabs
    finally:
        await pool.close()


async def test_a_large_viewport_is_shrunk_and_clicks_are_scaled_back(
    chromium: dict[str, Any], pages: PageServer, tmp_path: Path
) -> None:
    pool = BrowserPool(
        BrowserConfig(
            headless=True,
            url_policy=TEST_POLICY,
            downloads_dir=tmp_path,
            viewport=(1920, 1080),
            **chromium,
        )
    )
    driver = Driver(pool.for_session(1))
    try:
        await driver.open(pages.url("pointer.html"))
        shot = (await driver("screenshot")).images[0]
        image = Image.open(io.BytesIO(base64.b64decode(shot["source"]["data"])))
        assert max(image.size) <= 1568 and image.width * image.height <= 1_150_000
        scale = image.width / 1920
        # the red square is at (900, 600) in the page: click where the screenshot shows it
        target = {"type": "coordinate", "x": round(200 * scale), "y": round(100 * scale)}
        await driver("left_click", target=target)
        log = str(await driver.eval("document.getElementById('log').textContent"))
        x, y = (int(v) for v in log.split()[1].split(","))
        assert abs(x - 200) <= 2 and abs(y - 100) <= 2
    finally:
        await pool.close()


async def test_persistent_profile_keeps_cookies_across_launches(
    chromium: dict[str, Any], pages: PageServer, tmp_path: Path
) -> None:
    config = BrowserConfig(
        headless=True,
        url_policy=TEST_POLICY,
        downloads_dir=tmp_path / "downloads",
        profile_dir=tmp_path / "profile",
        **chromium,
    )
    first = BrowserPool(config)
    try:
        chat = Driver(first.for_session("a"))
        await chat.open(pages.url("form.html"))
        await chat.eval("document.cookie = 'remember=me; max-age=3600'")
        other = Driver(first.for_session("b"))  # same profile: the cookie is shared
        await other.open(pages.url("second.html"))
        assert await other.eval("document.cookie") == "remember=me"
        assert (await other("list_tabs")).active["tab_id"] == "tab_1"
    finally:
        await first.close()
    second = BrowserPool(config)
    try:
        again = Driver(second.for_session("a"))
        await again.open(pages.url("form.html"))
        assert await again.eval("document.cookie") == "remember=me"
    finally:
        await second.close()


async def test_closing_at_quit_with_the_browser_open_completes(chromium: dict[str, Any]) -> None:
    # The app closes the pool after qasync's loop stopped (aboutToQuit): close() must not raise
    # there, the app must exit 0, and the browser must not outlive it.
    if "executable_path" not in chromium or not sys.platform.startswith("linux"):
        pytest.skip("needs a browser executable path and /proc to find its processes")
    marker = uuid.uuid4().hex
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.support.quit_with_browser",
        chromium["executable_path"],
        marker,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        cwd=Path(__file__).parents[3],
    )
    out, err = await asyncio.wait_for(child.communicate(), 90)
    assert child.returncode == 0, err.decode()[-2000:]
    assert out.decode().split() == ["opened", "closed"]
    assert b"Traceback" not in err
    for _ in range(100):  # the browser goes with the app
        if not _processes_with(f"--deskhand-test-marker={marker}"):
            break
        await asyncio.sleep(0.1)
    assert _processes_with(f"--deskhand-test-marker={marker}") == []


def _processes_with(argument: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argument.encode() in args:
            found.append(int(entry.name))
    return found


async def test_preparing_starts_the_driver_and_opens_no_browser_until_a_call_needs_it(
    chromium: dict[str, Any], pages: PageServer, tmp_path: Path
) -> None:
    # The app prepares the browser at start; a windowed browser the person did not ask for
    # must not open then.
    pool = BrowserPool(
        BrowserConfig(headless=True, url_policy=TEST_POLICY, downloads_dir=tmp_path, **chromium)
    )
    try:
        await pool.prepare()
        assert pool.prepared and not pool.launched
        opened = await Driver(pool.for_session(1)).open(pages.url("form.html"))
        assert opened.active["title"] == "Sign-up form" and pool.launched
    finally:
        await pool.close()
    assert not pool.prepared and not pool.launched
