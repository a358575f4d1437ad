"""A screenshot with the snapshot's ids drawn on it: a box round each element and its id on a tag.

CPU work (call it in a thread). The boxes are in the screenshot's own pixels (`shown_rect`), so
what the model reads in the lines is where the box is drawn. Colours are by kind, so buttons,
fields and links stand apart at a glance; the tag sits above the box, or inside it at the top of
the image.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from tools.screen.geometry import Rect

__all__ = ["annotate"]

_COLOURS = {
    "B": (220, 38, 38),
    "T": (37, 99, 235),
    "L": (147, 51, 234),
    "C": (5, 150, 105),
    "R": (5, 150, 105),
    "S": (217, 119, 6),
    "M": (219, 39, 119),
    "I": (75, 85, 99),
    "G": (107, 114, 128),
    "X": (107, 114, 128),
}
TAG_SIZE = 12


@lru_cache(maxsize=1)
def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=TAG_SIZE)


def annotate(image: Image.Image, boxes: Sequence[tuple[str, Rect]]) -> Image.Image:
    """A copy of `image` with each (id, rectangle) drawn: the box, and the id on a tag."""
    out = image.convert("RGB")
    draw = ImageDraw.Draw(out)
    font = _font()
    for item_id, rect in boxes:
        colour = _COLOURS.get(item_id[:1], _COLOURS["X"])
        right, bottom = rect.x + rect.width - 1, rect.y + rect.height - 1
        draw.rectangle((rect.x, rect.y, right, bottom), outline=colour, width=2)
        left, top, tag_right, tag_bottom = draw.textbbox((0, 0), item_id, font=font)
        width, height = tag_right - left + 4, tag_bottom - top + 2
        y = rect.y - height if rect.y - height >= 0 else rect.y
        draw.rectangle((rect.x, y, rect.x + width, y + height), fill=colour)
        draw.text((rect.x + 2 - left, y + 1 - top), item_id, fill=(255, 255, 255), font=font)
    return out
