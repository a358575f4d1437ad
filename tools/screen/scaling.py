"""Screenshots within the model's image limits, and exact mapping between screenshot and screen.

Limits (DESIGN.md, shared with the browser in `tools/toolset_driver.py`): long edge <= 1568 px,
at most 1.15 megapixels, base64 under 5 MB. A display larger than that is shown shrunk; a smaller
one is never enlarged, so one screenshot pixel always covers one or more logical units.

`ImageFrame` is one screenshot's geometry: the global region it shows (logical units) and the
image size. The model's coordinates are screenshot pixels; they map to the logical pixel under
the centre of that screenshot pixel, computed in integers:

    global x = region.x + ((2 * image_x + 1) * region.width) // (2 * image.width)
    image  x = ((2 * (global x - region.x) + 1) * image.width) // (2 * region.width)

Because the image is never larger than the region, image -> global -> image gives back the
same pixel (the centre of a logical pixel lies inside the screenshot pixel it was mapped from),
and the cursor position the model reads is the pixel it clicked.
"""

from __future__ import annotations

import math

from PIL import Image
from pydantic import ConfigDict

from tools.data import Data
from tools.screen.geometry import Point, Rect
from tools.toolset_driver import MAX_BASE64, MAX_EDGE, MAX_PIXELS, base64_image, fit_factor

__all__ = [
    "MAX_BASE64",
    "MAX_EDGE",
    "MAX_PIXELS",
    "ZOOM_UPSCALE",
    "ImageFrame",
    "encode_image",
    "fit_size",
    "resize",
]

ZOOM_UPSCALE = 4.0  # beyond four times the display's own pixels a zoom only adds blur


def fit_size(width: int, height: int, *, upscale: float = 1.0) -> tuple[int, int]:
    """The largest whole size, at most `upscale` times `width`×`height` and of the same shape,
    that fits the limits."""
    width, height = max(1, width), max(1, height)
    factor = fit_factor(width, height, upscale=upscale)
    out_w, out_h = max(1, math.floor(width * factor)), max(1, math.floor(height * factor))
    # Floating point may land one pixel over a limit; step down until it holds.
    while out_w * out_h > MAX_PIXELS or max(out_w, out_h) > MAX_EDGE:
        if out_w >= out_h:
            out_w -= 1
        else:
            out_h -= 1
    return out_w, out_h


class ImageFrame(Data):
    """How one screenshot maps to the screen: the region shown and the image's size."""

    model_config = ConfigDict(frozen=True)

    display: int
    region: Rect
    width: int
    height: int

    @classmethod
    def for_region(cls, display: int, region: Rect) -> ImageFrame:
        width, height = fit_size(region.width, region.height)
        return cls(display=display, region=region, width=width, height=height)

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    @property
    def scaled(self) -> bool:
        return (self.width, self.height) != (self.region.width, self.region.height)

    def holds(self, point: Point) -> bool:
        """Whether a screenshot coordinate lies on the image."""
        return 0 <= point.x < self.width and 0 <= point.y < self.height

    def to_global(self, point: Point) -> Point:
        """The global logical pixel under the centre of screenshot pixel `point`."""
        region = self.region
        x = region.x + ((2 * point.x + 1) * region.width) // (2 * self.width)
        y = region.y + ((2 * point.y + 1) * region.height) // (2 * self.height)
        return Point(x, y)

    def to_image(self, point: Point) -> Point:
        """The screenshot pixel that shows global logical pixel `point` (which may be off the
        image: check `holds`)."""
        region = self.region
        x = ((2 * (point.x - region.x) + 1) * self.width) // (2 * region.width)
        y = ((2 * (point.y - region.y) + 1) * self.height) // (2 * region.height)
        return Point(x, y)

    def region_to_global(self, x0: int, y0: int, x1: int, y1: int) -> Rect:
        """A screenshot rectangle [x0, y0, x1) × [y0, y1) as the global logical rectangle it shows
        (rounded outwards, so nothing the model saw inside it is cut off)."""
        region = self.region
        left = region.x + (x0 * region.width) // self.width
        top = region.y + (y0 * region.height) // self.height
        right = region.x + -((-x1 * region.width) // self.width)
        bottom = region.y + -((-y1 * region.height) // self.height)
        return Rect(left, top, right - left, bottom - top)


def resize(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """`image` at `size` (CPU work: call it in a thread).

    Bicubic resampling (antialiased when shrinking, as every Pillow filter but nearest is) keeps
    text as legible as Lanczos at these factors in two thirds of the time.
    """
    if image.size == size:
        return image
    return image.resize(size, Image.Resampling.BICUBIC)


def encode_image(image: Image.Image) -> tuple[str, str]:
    """`(base64 data, media type)` of `image` (CPU work: call it in a thread).

    PNG keeps text sharp; the fastest compression level is used because a screenshot is taken
    on the model's every look and the request bound (5 MB) is met anyway; JPEG is the fallback
    for an image that would exceed it.
    """
    if image.mode not in ("RGB", "RGBA", "L"):
        image = image.convert("RGB")
    return base64_image(image, compress_level=1)
