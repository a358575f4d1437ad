"""Keeping screenshots inside the model's image limits, and mapping coordinates back.

The default viewport (1280×800 at device scale factor 1) already fits: 1.02 MP, long edge
1280. A larger viewport is shrunk by one factor `scale` (< 1); the model's coordinates are
then in the shrunk frame and divided by `scale` before they reach the page.
"""

from __future__ import annotations

import io

from PIL import Image

from tools.toolset_driver import MAX_EDGE, MAX_PIXELS, base64_image, fit_factor

__all__ = ["MAX_EDGE", "MAX_PIXELS", "fit_scale", "png_within_limits"]


def fit_scale(width: float, height: float, *, upscale_limit: float = 1.0) -> float:
    """The largest factor ≤ `upscale_limit` at which a `width`×`height` image fits the limits."""
    return fit_factor(width, height, upscale=upscale_limit)


def png_within_limits(png: bytes, scale: float) -> tuple[str, str]:
    """`(base64 data, media type)` of `png` resized by `scale` (CPU work: call it in a thread).

    Falls back to JPEG when a PNG would exceed the 5 MB request limit.
    """
    image: Image.Image = Image.open(io.BytesIO(png))
    if scale < 0.999 or scale > 1.001:
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        image = image.resize(size, Image.Resampling.LANCZOS)
        return base64_image(image, optimize=False)
    return base64_image(image, png=png)
