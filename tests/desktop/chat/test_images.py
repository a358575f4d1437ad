"""Images from tools: the original stays on disk; the model gets a bounded copy, and only the newest few."""

from __future__ import annotations

import asyncio
import base64
import io

from PIL import Image

from desktop.chat.events import ToolFinished
from desktop.chat.images import MAX_EDGE, MAX_PIXELS, PRUNED, bounded_size
from desktop.workspace import Workspace
from tests.support.model_server import ScriptedModelServer, ToolUse, text_reply, tool_reply
from tests.support.sample_tools import NotebookTool
from tests.support.turns import send
from tools.base import Risk, ToolImage


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (30, 120, 200)).save(out, format="PNG")
    return out.getvalue()


def test_bounded_size_respects_both_limits() -> None:
    for width, height in [(3000, 2000), (1568, 1568), (4000, 300), (800, 600)]:
        w, h = bounded_size(width, height)
        assert max(w, h) <= MAX_EDGE and w * h <= MAX_PIXELS
        assert abs((w / h) / (width / height) - 1) < 0.01
    assert bounded_size(800, 600) == (800, 600)  # never upscaled


def test_a_large_screenshot_is_kept_whole_on_disk_and_sent_bounded(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    original = png(3000, 2000)
    workspace.registry.add(
        NotebookTool(risk=Risk.READ, image=ToolImage(data=original, width=3000, height=2000))
    )
    model_server.enqueue(
        tool_reply(ToolUse(name="notebook", input={"text": "s"})), text_reply("I see blue.")
    )
    events = []
    sid = workspace.store.create_session().id

    async def go() -> None:
        await send(workspace.conversations, sid, "Look", events.append)
        await workspace.agent.close()

    asyncio.run(go())
    finished = next(e for e in events if isinstance(e, ToolFinished))
    assert len(finished.images) == 1
    with open(finished.images[0], "rb") as handle:
        assert handle.read() == original
    sent = model_server.message_requests[1]["messages"][-1]["content"][0]["content"]
    image = next(block for block in sent if block["type"] == "image")
    data = base64.b64decode(image["source"]["data"])
    with Image.open(io.BytesIO(data)) as scaled:
        assert max(scaled.size) <= MAX_EDGE and scaled.size[0] * scaled.size[1] <= MAX_PIXELS
    assert len(image["source"]["data"]) < 5 * 1024 * 1024


def test_only_the_newest_screenshots_are_sent(
    workspace: Workspace, model_server: ScriptedModelServer
) -> None:
    settings = workspace.settings.model_copy(deep=True)
    settings.model.keep_images = 2
    workspace.live.apply(settings)
    workspace.registry.add(
        NotebookTool(risk=Risk.READ, image=ToolImage(data=png(40, 30), width=40, height=30))
    )
    for n in range(5):
        model_server.enqueue(tool_reply(ToolUse(name="notebook", input={"text": str(n)})))
    model_server.enqueue(text_reply("Done."))
    sid = workspace.store.create_session().id

    async def go() -> None:
        await send(workspace.conversations, sid, "Five shots")
        await workspace.agent.close()

    asyncio.run(go())
    last = model_server.message_requests[-1]["messages"]
    blocks = [
        item
        for message in last
        for block in message["content"]
        if block.get("type") == "tool_result"
        for item in block["content"]
    ]
    images = [b for b in blocks if b["type"] == "image"]
    stubs = [b for b in blocks if b["type"] == "text" and b["text"] == PRUNED]
    assert 1 <= len(images) <= 2 and len(images) + len(stubs) == 5
    # the images that remain are the newest ones
    kinds = [b["type"] for b in blocks if b["type"] == "image" or b.get("text") == PRUNED]
    assert kinds == ["text"] * len(stubs) + ["image"] * len(images)
