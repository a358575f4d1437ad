"""Images for the model: bounded in size, kept on disk, and only the newest few sent each turn.

Limits (DESIGN.md, "Images are bounded"): long edge <= 1568 px, <= 1.15 megapixels,
base64 under 5 MB. The original always stays on disk for the thread and the viewer.
"""

from __future__ import annotations

import base64
import io
import math
from pathlib import Path
from typing import Any

MAX_EDGE = 1568
MAX_PIXELS = 1_150_000
MAX_BASE64 = 5 * 1024 * 1024
PRUNED = "[An earlier screenshot was removed from this request to save space; it is still in the thread.]"


def bounded_size(width: int, height: int) -> tuple[int, int]:
    """The largest size within the limits that keeps the aspect ratio (never upscales)."""
    scale = min(1.0, MAX_EDGE / max(width, height), math.sqrt(MAX_PIXELS / (width * height)))
    return max(1, int(width * scale)), max(1, int(height * scale))


def bound(data: bytes, media_type: str) -> tuple[bytes, str, int, int]:
    """`data` scaled (and recompressed if needed) to fit the limits. CPU work: call it in a thread."""
    # Pillow loads on first use, not before the window (desktop/system/heavy.py loads it
    # right after the first paint); a call holds no import lock, so it can meet that load.
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        size = bounded_size(*image.size)
        if size == image.size and len(data) * 4 // 3 < MAX_BASE64:
            return data, media_type, *image.size
        scaled = image.convert("RGB") if image.mode not in ("RGB", "RGBA", "L") else image.copy()
        if size != image.size:
            scaled = scaled.resize(size, Image.Resampling.LANCZOS)
    out = io.BytesIO()
    scaled.save(out, format="PNG", optimize=True)
    if (
        len(out.getvalue()) * 4 // 3 >= MAX_BASE64
    ):  # a noisy PNG can stay large: JPEG is always small enough
        out = io.BytesIO()
        scaled.convert("RGB").save(out, format="JPEG", quality=85)
        return out.getvalue(), "image/jpeg", *size
    return out.getvalue(), "image/png", *size


def stored_image(
    path: Path, model_path: Path, media_type: str, width: int, height: int
) -> dict[str, Any]:
    """How an image sits in a stored tool_result: paths, not bytes (the store stays small)."""
    return {
        "type": "image",
        "deskhand_image": {
            "path": str(path),
            "model_path": str(model_path),
            "media_type": media_type,
            "width": width,
            "height": height,
        },
    }


def hydrate(block: dict[str, Any]) -> dict[str, Any]:
    """A stored image block as the API wants it (base64), or a text stub if the file is gone."""
    info = block["deskhand_image"]
    try:
        data = Path(info["model_path"]).read_bytes()
    except OSError:
        return {"type": "text", "text": "[This screenshot is no longer on disk.]"}
    return {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": info["media_type"],
            "data": base64.b64encode(data).decode(),
        },
    }


def _image_slots(messages: list[dict[str, Any]]) -> list[tuple[list[dict[str, Any]], int]]:
    """Every stored image in the conversation, oldest first, as (containing list, index)."""
    slots = []
    for message in messages:
        containers = [message["content"]] + [
            block["content"]
            for block in message["content"]
            if block.get("type") == "tool_result" and isinstance(block.get("content"), list)
        ]
        for container in containers:
            slots += [
                (container, i) for i, item in enumerate(container) if "deskhand_image" in item
            ]
    return slots


def prune_and_hydrate(messages: list[dict[str, Any]], keep: int, chunk: int) -> None:
    """Send at most the newest `keep` images; older ones become a stub.

    Removal happens `chunk` images at a time so the request's prefix (and the prompt
    cache) stays the same for several turns instead of shifting on every new screenshot.
    """
    slots = _image_slots(messages)
    excess = len(slots) - keep
    remove = (
        math.ceil(excess / chunk) * chunk if excess > 0 else 0
    )  # never more than `keep` are sent
    for number, (container, index) in enumerate(slots):
        if number < remove:
            container[index] = {"type": "text", "text": PRUNED}
        else:
            container[index] = hydrate(container[index])
