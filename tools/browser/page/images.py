"""Keeping screenshots inside the model's image limits, and mapping coordinates back.

The default viewport (1280×800 at device scale factor 1) already fits: 1.02 MP, long edge
1280. A larger viewport is shrunk by one factor `scale` (< 1); the model's coordinates are
then in the shrunk frame and divided by `scale` before they reach the page.
"""

from __future__ import annotations

import base64
import io
import math

from PIL import Image

__all__ = ["MAX_EDGE", "MAX_PIXELS", "fit_scale", "png_within_limits"]

MAX_EDGE = 1568
MAX_PIXELS = 1_150_000
MAX_BASE64 = 5 * 1024 * 1024


def fit_scale(width: float, height: float, *, upscale_limit: float = 1.0) -> float:
    """The largest factor ≤ `upscale_limit` at which a `width`×`height` image fits the limits."""
    by_edge = MAX_EDGE / max(width, height, 1)
    by_area = math.sqrt(MAX_PIXELS / max(width * height, 1))
    return min(upscale_limit, by_edge, by_area)


def png_within_limits(png: bytes, scale: float) -> tuple[str, str]:
    """`(base64 data, media type)` of `png` resized by `scale` (CPU work: call it in a thread).

    Falls back to JPEG when a PNG would exceed the 5 MB request limit.
    """
    image: Image.Image = Image.open(io.BytesIO(png))
    if scale < 0.999 or scale > 1.001:
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        image = image.resize(size, Image.Resampling.LANCZOS)
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", optimize=False)
        png = buffer.getvalue()
    data = base64.b64encode(png).decode("ascii")
    if len(data) <= MAX_BASE64:
        return data, "image/png"
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="JPEG", quality=80)
    return base64.b64encode(buffer.getvalue()).decode("ascii"), "image/jpeg"
