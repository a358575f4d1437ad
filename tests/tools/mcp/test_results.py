"""How an MCP result reads in the thread and to the model: real `mcp_types` results in."""

from __future__ import annotations

import base64
import io

import mcp_types
from PIL import Image

from tools.base import ToolImage
from tools.mcp.results import MAX_TEXT, read_result


def png(width: int = 8, height: int = 6) -> str:
    out = io.BytesIO()
    Image.new("RGB", (width, height), "teal").save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode()


def result(*content: object, **fields: object) -> mcp_types.CallToolResult:
    return mcp_types.CallToolResult.model_validate({"content": list(content), **fields})


def test_text_and_an_image_keep_their_order_and_the_image_is_an_image() -> None:
    out = read_result(
        result(
            {"type": "text", "text": "before"},
            {"type": "image", "data": png(), "mimeType": "image/png"},
            {"type": "text", "text": "after"},
        )
    )
    first, image, last = out.content
    assert first == {"type": "text", "text": "before"} and last["text"] == "after"  # type: ignore[index]
    assert isinstance(image, ToolImage) and (image.width, image.height) == (8, 6)
    assert not out.is_error


def test_an_image_that_does_not_decode_is_named_not_sent() -> None:
    broken = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"garbage" * 10).decode()
    out = read_result(
        result(
            {"type": "image", "data": broken, "mimeType": "image/png"},
            {"type": "image", "data": png(), "mimeType": "image/svg+xml"},
            {"type": "image", "data": "not base64!!", "mimeType": "image/png"},
        )
    )
    assert all(isinstance(item, dict) for item in out.content)
    assert all("could not be shown" in item["text"] for item in out.content)  # type: ignore[index]


def test_resources_audio_and_links_become_lines_of_text() -> None:
    out = read_result(
        result(
            {"type": "resource", "resource": {"uri": "file:///notes.md", "text": "# Notes"}},
            {
                "type": "resource",
                "resource": {"uri": "file:///a.png", "mimeType": "image/png", "blob": png()},
            },
            {
                "type": "resource",
                "resource": {"uri": "file:///a.zip", "mimeType": "application/zip", "blob": "AAAA"},
            },
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///b.txt", "name": "b.txt", "description": "B"},
        )
    )
    notes, image, archive, audio, link = out.content
    assert notes == {"type": "text", "text": "Resource file:///notes.md:\n# Notes"}
    assert isinstance(image, ToolImage)
    assert "application/zip" in archive["text"] and "not shown" in archive["text"]  # type: ignore[index]
    assert "Audio (audio/wav" in audio["text"]  # type: ignore[index]
    assert link["text"] == "Resource link “b.txt” (file:///b.txt): B"  # type: ignore[index]


def test_structured_content_is_sent_only_when_nothing_else_was() -> None:
    alone = read_result(result(structuredContent={"temperature": 21}))
    assert alone.content == [{"type": "text", "text": '{"temperature": 21}'}]
    with_text = read_result(
        result({"type": "text", "text": "21 degrees"}, structuredContent={"temperature": 21})
    )
    assert with_text.content == [{"type": "text", "text": "21 degrees"}]


def test_is_error_is_kept() -> None:
    out = read_result(result({"type": "text", "text": "no such file"}, isError=True))
    assert out.is_error and out.content == [{"type": "text", "text": "no such file"}]


def test_a_huge_result_is_cut_and_says_so() -> None:
    out = read_result(
        result({"type": "text", "text": "a" * MAX_TEXT}, {"type": "text", "text": "b" * 5000})
    )
    texts = [item["text"] for item in out.content if isinstance(item, dict)]
    assert sum(len(t) for t in texts) < MAX_TEXT + 200
    assert texts[0].endswith(f"it was {MAX_TEXT + 5000:,} characters long.]")
