"""Fixtures for the browser driver's tests: page servers, one Chromium per module, a session per test.

The browser tests drive a real Chromium (Debian's, Playwright's own, or Chrome) on pages served
from 127.0.0.1; they skip only when no Chromium-family browser is installed at all.
A second server on 127.0.0.2 stands for a refused address: it records every request, so a test
can show the browser never reached it.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from anthropic.tools.browser import BetaConfirmContext
from anthropic.types.beta import BetaToolUseBlock

from tests.support.page_server import PageServer
from tools.browser import BrowserConfig, BrowserPool, PlaywrightBrowser, UrlPolicy, find_browser

TEST_POLICY = UrlPolicy(allow_hosts=("127.0.0.1", "localhost"))


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def sentinel() -> Iterator[PageServer]:
    with PageServer("127.0.0.2") as server:
        yield server


@pytest.fixture(scope="session")
def pages(sentinel: PageServer) -> Iterator[PageServer]:
    with PageServer(sentinel=sentinel.origin) as server:
        yield server


@pytest.fixture(scope="session")
def chromium() -> dict[str, Any]:
    choice = find_browser(None)
    if choice is None:
        pytest.skip(
            "no Chromium-family browser found (apt-get install chromium, or playwright install)"
        )
    return {"executable_path": choice.path} if choice.path else {"channel": choice.channel}


class Gate:
    """The confirm callable: records what it was asked, answers `answer` (True by default)."""

    def __init__(self) -> None:
        self.asked: list[BetaConfirmContext] = []
        self.answer = True

    async def __call__(self, context: BetaConfirmContext) -> bool:
        self.asked.append(context)
        return self.answer

    def members(self) -> list[str]:
        return [context.member for context in self.asked]


@dataclass
class Result:
    """A tool_result block, taken apart."""

    block: dict[str, Any]
    texts: list[str] = field(default_factory=list)
    images: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, Any] | None = None

    @classmethod
    def of(cls, block: dict[str, Any]) -> Result:
        result = cls(block)
        content = block["content"]
        if isinstance(content, str):
            result.texts.append(content)
            return result
        for part in content:
            if part["type"] == "text":
                result.texts.append(part["text"])
            elif part["type"] == "image":
                result.images.append(part)
            elif part["type"] == "browser_state":
                result.state = part
        return result

    @property
    def is_error(self) -> bool:
        return bool(self.block.get("is_error"))

    @property
    def text(self) -> str:
        return "\n".join(self.texts)

    @property
    def tabs(self) -> list[dict[str, Any]]:
        assert self.state is not None, self.block
        return list(self.state["tabs"])

    @property
    def active(self) -> dict[str, Any]:
        (tab,) = [tab for tab in self.tabs if tab.get("active")]
        return tab

    @property
    def changes(self) -> list[dict[str, Any]]:
        return list((self.state or {}).get("state_changes", []))

    def ref(self, line_text: str) -> str:
        """The ref on the first line of the text that contains `line_text`."""
        for line in self.text.splitlines():
            if line_text in line:
                for token in line.replace("[", " ").replace("]", " ").split():
                    if token.startswith("ref_"):
                        return token
        raise AssertionError(f"no ref for {line_text!r} in:\n{self.text}")


_ids = itertools.count(1)


class Driver:
    """Calls members the way the app does: a tool_use block through `tool_result`."""

    def __init__(self, toolset: PlaywrightBrowser) -> None:
        self.toolset = toolset

    async def __call__(self, member: str, **input: Any) -> Result:
        use = BetaToolUseBlock(
            type="tool_use",
            id=f"toolu_{next(_ids)}",
            name=member,
            input=input,
            toolset_name="browser",
        )
        block = await self.toolset.tool_result(use)
        json.dumps(block)  # it must be sendable as it is
        return Result.of(dict(block))

    async def open(self, url: str) -> Result:
        result = await self("navigate", url=url)
        assert not result.is_error, result.text
        return result

    async def until(
        self, check: Callable[[list[Result]], bool], limit: float = 5.0
    ) -> list[Result]:
        """Short `wait` calls until `check(results so far)` holds: for things pages do on their own."""
        results: list[Result] = []
        deadline = time.monotonic() + limit
        while True:
            results.append(await self("wait", duration=0.1))
            if check(results) or time.monotonic() > deadline:
                return results

    async def eval(self, script: str) -> Any:
        """Read the page directly (test-side, not through the model's javascript_exec)."""
        tab = await self.toolset._session.tab(None)
        return await tab.page.evaluate(script)


@pytest.fixture(scope="module")
def gate() -> Gate:
    return Gate()


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("browser")
    uploads = base / "uploads"
    uploads.mkdir()
    (uploads / "notes.txt").write_text("twelve chars")
    (base / "outside.txt").write_text("not for the page")
    return {"downloads": base / "downloads", "uploads": uploads, "base": base}


@pytest.fixture(scope="module")
async def pool(
    anyio_backend: str, chromium: dict[str, Any], gate: Gate, folders: dict[str, Path]
) -> AsyncIterator[BrowserPool]:
    config = BrowserConfig(
        headless=True,
        url_policy=TEST_POLICY,
        downloads_dir=folders["downloads"],
        upload_dir=folders["uploads"],
        read_console=True,
        read_network=True,
        javascript_exec=True,
        file_upload=True,
        **chromium,
    )
    pool = BrowserPool(config, confirm=gate)
    yield pool
    await pool.close()


_sessions = itertools.count(1)


@pytest.fixture
async def browser(pool: BrowserPool, gate: Gate) -> AsyncIterator[Driver]:
    """A fresh chat session (its own context and tabs) on the module's browser."""
    gate.asked.clear()
    gate.answer = True
    session_id = f"test-{next(_sessions)}"
    yield Driver(pool.for_session(session_id))
    await pool.close_session(session_id)
