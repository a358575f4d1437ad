"""An MCP tool result as Deskhand's tool output: text, images, resources, structured content.

What a server returns is data from outside: text passes through (cut at a bound), images that
really decode become images (shown inline like screenshots), embedded text resources become
text, and whatever cannot be shown to the model (audio, binary blobs) is named in a short
line. Structured content is the same result for programs (the spec asks servers to send it
as text too), so it is sent as JSON only when the server sent nothing else.
`isError` becomes `is_error`. Decoding is CPU work: call `read_result` in a thread.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
from typing import Any

import mcp_types
from PIL import Image
from pydantic import Field

from tools.base import ToolImage
from tools.data import Data

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
MAX_TEXT = 100_000  # characters of text from one result
CUT = "\n[The rest of this result was cut: it was {total:,} characters long.]"


class McpOutput(Data):
    """A result in the pipeline's terms: API text blocks and images, in the server's order."""

    content: list[dict[str, Any] | ToolImage] = Field(default_factory=list)
    is_error: bool = False


def _size(data: str) -> str:
    size = len(data) * 3 // 4
    return f"{size / 1024:.0f} KB" if size >= 1024 else f"{size} bytes"


def _image(data: str, mime_type: str) -> ToolImage | None:
    """The image if it is one the model can see and it really decodes, else None."""
    if mime_type not in IMAGE_TYPES:
        return None
    try:
        raw = base64.b64decode(data, validate=True)
        with Image.open(io.BytesIO(raw)) as image:
            image.verify()
            width, height = image.size
    except (binascii.Error, ValueError):
        return None
    except Exception:  # anything Pillow raises on a broken or hostile file: not an image
        return None
    return ToolImage(data=raw, media_type=mime_type, width=width, height=height)


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _block(block: mcp_types.ContentBlock) -> dict[str, Any] | ToolImage:
    if isinstance(block, mcp_types.TextContent):
        return _text(block.text)
    if isinstance(block, mcp_types.ImageContent):
        image = _image(block.data, block.mime_type)
        if image is not None:
            return image
        return _text(
            f"[An image ({block.mime_type}, {_size(block.data)}) that could not be shown.]"
        )
    if isinstance(block, mcp_types.AudioContent):
        return _text(f"[Audio ({block.mime_type}, {_size(block.data)}); it cannot be played here.]")
    if isinstance(block, mcp_types.ResourceLink):
        about = f": {block.description}" if block.description else ""
        return _text(f"Resource link “{block.title or block.name}” ({block.uri}){about}")
    resource = block.resource
    if isinstance(resource, mcp_types.TextResourceContents):
        return _text(f"Resource {resource.uri}:\n{resource.text}")
    mime_type = resource.mime_type or "application/octet-stream"
    image = _image(resource.blob, mime_type)
    if image is not None:
        return image
    return _text(f"[Resource {resource.uri} ({mime_type}, {_size(resource.blob)}) not shown.]")


def _bounded(content: list[dict[str, Any] | ToolImage]) -> list[dict[str, Any] | ToolImage]:
    """Text cut so that one result never holds more than MAX_TEXT characters of it."""
    total = sum(len(i["text"]) for i in content if isinstance(i, dict))
    if total <= MAX_TEXT:
        return content
    room = MAX_TEXT
    bounded: list[dict[str, Any] | ToolImage] = []
    for item in content:
        if isinstance(item, dict):
            if room <= 0:
                continue
            text = item["text"][:room]
            room -= len(text)
            item = _text(text + (CUT.format(total=total) if room <= 0 else ""))
        bounded.append(item)
    return bounded


def read_result(result: mcp_types.CallToolResult) -> McpOutput:
    """`result` as text blocks and images; CPU work, so call it in a thread."""
    content = [_block(block) for block in result.content]
    if not content and result.structured_content is not None:
        content.append(_text(json.dumps(result.structured_content, ensure_ascii=False)))
    return McpOutput(content=_bounded(content), is_error=bool(result.is_error))
