"""Fixtures for the screen driver's tests: a real X server (Xvfb), real apps, and the toolset.

Each module gets its own Xvfb on a free display number; the driver's backend connects to it by
name, and the apps are started with DISPLAY set to it, so nothing touches the person's screen.
Tests skip, saying why, only when Xvfb is not installed.
"""

from __future__ import annotations

import base64
import io
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from anthropic.tools.computer import BetaComputerConfirmContext
from anthropic.types.beta import BetaToolUseBlock
from PIL import Image

from tests.support.desk import Desk, running_desk
from tests.support.x11 import TargetApp, Xvfb, xvfb_missing
from tools.screen import Rect, ScreenComputer, ScreenEvent
from tools.screen.a11y.atspi.reader import Accessibility
from tools.screen.a11y.elements import Element, Inspector
from tools.screen.geometry import Point
from tools.screen.worker import ScreenWorker


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def _xvfb(width: int, height: int) -> Iterator[Xvfb]:
    missing = xvfb_missing()
    if missing:
        pytest.skip(missing)
    with Xvfb(width, height) as server:
        yield server


@pytest.fixture(scope="module")
def xvfb() -> Iterator[Xvfb]:
    """A 1280×800 display: screenshots are not scaled."""
    yield from _xvfb(1280, 800)


@pytest.fixture(scope="module")
def xvfb_large() -> Iterator[Xvfb]:
    """A 1920×1200 display: screenshots are scaled down."""
    yield from _xvfb(1920, 1200)


class Gate:
    """The confirm callable: records what it was asked and the driver's description of it."""

    def __init__(self, screen: ScreenComputer | None = None) -> None:
        self.screen = screen
        self.asked: list[BetaComputerConfirmContext] = []
        self.described: list[tuple[str, str, str]] = []
        self.answer = True
        # What the person does while asked (answer in the app's own window, say).
        self.while_asked: Callable[[BetaComputerConfirmContext], Awaitable[None]] | None = None

    async def __call__(self, context: BetaComputerConfirmContext) -> bool:
        self.asked.append(context)
        if self.screen is not None:
            judged = await self.screen.judge(context)
            self.described.append((judged.risk, judged.reason, judged.summary))
        if self.while_asked is not None:
            await self.while_asked(context)
        return self.answer


class StandInInspector:
    """Accessibility answers set by the test, so a test controls what the gate is told."""

    def __init__(self) -> None:
        self.at: Element | None = None
        self.focused: Element | None = None
        self.points: list[Point] = []

    async def element_at(self, point: Point) -> Element | None:
        self.points.append(point)
        return self.at

    async def focused_element(self) -> Element | None:
        return self.focused


@dataclass
class Result:
    block: dict[str, Any]
    texts: list[str] = field(default_factory=list)
    images: list[Image.Image] = field(default_factory=list)

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
                data = base64.b64decode(part["source"]["data"])
                result.images.append(Image.open(io.BytesIO(data)).convert("RGB"))
        return result

    @property
    def is_error(self) -> bool:
        return bool(self.block.get("is_error"))

    @property
    def text(self) -> str:
        return "\n".join(self.texts)

    @property
    def image(self) -> Image.Image:
        (image,) = self.images
        return image


_ids = itertools.count(1)


class Screen:
    """Calls members the way the app does: a tool_use block through `tool_result`.

    `own` is what the toolset is told are the app's own windows, `events` what it reported for
    the overlay, `inspector` the accessibility answers it gets (none until a test sets them)."""

    def __init__(
        self, display: str, own_pids: set[int] | None = None, inspector: Inspector | None = None
    ) -> None:
        from tools.screen.backends.x11.backend import X11Backend

        self.gate = Gate()
        self.own: list[Rect] = []
        self.events: list[ScreenEvent] = []
        self.inspector = StandInInspector()
        self.toolset = ScreenComputer(
            confirm=self.gate,
            backend=lambda: X11Backend(display),
            own_windows=lambda: self.own,
            inspector=inspector or self.inspector,
            on_event=self.events.append,
            own_pids=own_pids,
        )
        self.gate.screen = self.toolset

    async def __call__(self, member: str, **input: Any) -> Result:
        use = BetaToolUseBlock(
            type="tool_use",
            id=f"toolu_{next(_ids)}",
            name=member,
            input=input,
            toolset_name="computer",
        )
        block = await self.toolset.tool_result(use)
        json.dumps(block)  # it must be sendable as it is
        return Result.of(dict(block))

    async def ok(self, member: str, **input: Any) -> Result:
        result = await self(member, **input)
        assert not result.is_error, result.text
        return result


@pytest.fixture
async def screen(anyio_backend: str, xvfb: Xvfb) -> AsyncIterator[Screen]:
    made = Screen(xvfb.display)
    yield made
    await made.toolset.close()


@pytest.fixture
async def target(anyio_backend: str, xvfb: Xvfb) -> AsyncIterator[TargetApp]:
    """The test window at (100, 100), 800×500, its marker's top-left pixel at (701, 433)."""
    app = TargetApp(xvfb.display, (100, 100, 800, 500), marker=(701, 433))
    app.start()
    try:
        await app.ready()
        yield app
    finally:
        app.close()


# --- accessibility: a session bus with AT-SPI, a Qt form and a GTK dialog -----------------------


@pytest.fixture(scope="module")
def desk() -> Iterator[Desk]:
    with running_desk() as made:
        yield made


@pytest.fixture
async def accessibility(anyio_backend: str, desk: Desk) -> AsyncIterator[Accessibility]:
    made = Accessibility(session=desk.bus.address)
    yield made
    await made.close()


@pytest.fixture
async def worker(anyio_backend: str, desk: Desk) -> AsyncIterator[ScreenWorker]:
    from tools.screen.backends.x11.backend import X11Backend

    made = ScreenWorker(lambda: X11Backend(desk.display))
    yield made
    await made.close()


class Looked:
    """The first-look record the app keeps per chat (shared with the computer tool)."""

    def __init__(self) -> None:
        self.chats: set[int] = set()

    def seen(self, session_id: int) -> bool:
        return session_id in self.chats

    def saw(self, session_id: int) -> None:
        self.chats.add(session_id)


class Elements:
    """The `screen` tool called the way the app's pipeline calls it: described, prepared,
    approved (every call the gate saw is in `asked`; `answer` is the gate's verdict), run.
    What it reported for the visualizer is in `events`, its capture hooks' calls in `captures`."""

    def __init__(
        self,
        accessibility: Accessibility,
        worker: ScreenWorker,
        *,
        own_pids: set[int] | None = None,
        session_id: int = 7,
    ) -> None:
        from desktop.calls.sources.function_tools import FunctionTools
        from tools.base import ToolRegistry
        from tools.screen.see.access import ScreenAccess
        from tools.screen.see.tool import ScreenTool

        self.looks = Looked()
        self.events: list[tuple[int, ScreenEvent]] = []  # (chat, event) as the visualizer hears
        self.captures: list[str] = []  # "before" / "after" each capture
        self.tool = ScreenTool(
            ScreenAccess(
                accessibility=accessibility,
                worker=worker,
                own_pids=frozenset(own_pids if own_pids is not None else {1}),
                looks=self.looks,
                on_event=lambda chat, event: self.events.append((chat, event)),
                before_capture=lambda: self.captures.append("before"),
                after_capture=lambda: self.captures.append("after"),
            )
        )
        self.source = FunctionTools(ToolRegistry([self.tool]))
        self.session_id = session_id
        self.asked: list[Any] = []  # the ToolCalls the gate was asked about
        self.answer = True

    async def __call__(self, action: str, **input: Any) -> Result:
        from desktop.calls.contract import CallContext, ToolUse
        from desktop.calls.permissions import Decision

        use = ToolUse(id=f"toolu_{next(_ids)}", name="screen", input={"action": action, **input})
        call = await self.source.describe(use, self.session_id)

        async def approve(asked: Any) -> Decision:
            self.asked.append(asked)
            return Decision(verdict="allow" if self.answer else "deny", by="person")

        ctx = CallContext(
            session_id=self.session_id, attachments_dir=Path("/nonexistent"), approve=approve
        )
        result = await self.source.run(use, call, ctx)
        texts = [str(c.get("text", "")) for c in result.content if isinstance(c, dict)]
        images = [
            Image.open(io.BytesIO(c.data)).convert("RGB")
            for c in result.content
            if not isinstance(c, dict)
        ]
        block: dict[str, Any] = {"content": [], "is_error": result.is_error}
        return Result(block, texts, images)

    async def ok(self, action: str, **input: Any) -> Result:
        result = await self(action, **input)
        assert not result.is_error, result.text
        return result


@pytest.fixture
async def elements(accessibility: Accessibility, worker: ScreenWorker) -> Elements:
    return Elements(accessibility, worker)
