"""Finding a drawn marker in a screenshot: the screen and tab tests draw a red box and look for it."""

from __future__ import annotations

from PIL import Image, ImageChops


def red_box(image: Image.Image) -> tuple[int, int, int, int] | None:
    """The bounding box (left, top, right, bottom) of the clearly red pixels of an image."""
    red, green, blue = image.convert("RGB").split()
    strong = red.point(lambda v: 255 if v > 160 else 0)
    weak_others = ImageChops.lighter(green, blue).point(lambda v: 255 if v < 100 else 0)
    return ImageChops.multiply(strong, weak_others).getbbox()
