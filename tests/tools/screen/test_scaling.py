"""Screenshot sizes within the limits, and exact mapping between screenshot and screen pixels.

The round trip is a property: for every display size and origin, a screenshot pixel mapped to the
screen and back is the same pixel (an off-by-one click is a bug), and every screen pixel lies in
the footprint of the screenshot pixel that shows it.
"""

from __future__ import annotations

import base64
import io

from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from tools.screen.geometry import Point, Rect
from tools.screen.scaling import (
    MAX_BASE64,
    MAX_EDGE,
    MAX_PIXELS,
    ImageFrame,
    encode_image,
    fit_size,
    resize,
)

sizes = st.tuples(st.integers(1, 8000), st.integers(1, 8000))
origins = st.tuples(st.integers(-8000, 8000), st.integers(-8000, 8000))


def test_known_sizes() -> None:
    assert fit_size(1280, 800) == (1280, 800)  # fits: unchanged
    assert fit_size(1920, 1200) == (1356, 847)
    assert fit_size(1024, 768) == (1024, 768)
    assert fit_size(5000, 300) == (1568, 94)  # long edge bound
    assert fit_size(16, 16, upscale=4.0) == (64, 64)


@given(sizes)
def test_fit_size_is_within_the_limits_and_never_enlarges(size: tuple[int, int]) -> None:
    width, height = fit_size(*size)
    assert 1 <= width <= size[0] and 1 <= height <= size[1]
    assert width * height <= MAX_PIXELS and max(width, height) <= MAX_EDGE


@given(sizes, origins, st.data())
def test_image_to_screen_and_back_is_the_same_pixel(
    size: tuple[int, int], origin: tuple[int, int], data: st.DataObject
) -> None:
    frame = ImageFrame.for_region(0, Rect(origin[0], origin[1], size[0], size[1]))
    x = data.draw(st.integers(0, frame.width - 1))
    y = data.draw(st.integers(0, frame.height - 1))
    on_screen = frame.to_global(Point(x, y))
    assert frame.region.contains(on_screen)
    assert frame.to_image(on_screen) == (x, y)


@given(sizes, origins, st.data())
def test_every_screen_pixel_is_shown_by_the_pixel_it_maps_to(
    size: tuple[int, int], origin: tuple[int, int], data: st.DataObject
) -> None:
    region = Rect(origin[0], origin[1], size[0], size[1])
    frame = ImageFrame.for_region(0, region)
    gx = data.draw(st.integers(region.x, region.right - 1))
    gy = data.draw(st.integers(region.y, region.bottom - 1))
    shown = frame.to_image(Point(gx, gy))
    assert frame.holds(shown)
    # Screenshot pixel i covers [i·W/w, (i+1)·W/w) of the screen; the pixel's centre is in it.
    for i, g, start, screen_size, image_size in (
        (shown.x, gx, region.x, region.width, frame.width),
        (shown.y, gy, region.y, region.height, frame.height),
    ):
        centre_twice = (2 * (g - start) + 1) * image_size
        assert 2 * i * screen_size <= centre_twice < 2 * (i + 1) * screen_size


def test_a_zoom_region_covers_what_the_model_saw() -> None:
    frame = ImageFrame.for_region(0, Rect(0, 0, 1920, 1200))
    region = frame.region_to_global(100, 50, 200, 150)
    assert region.x <= frame.to_global(Point(100, 50)).x
    assert region.right >= frame.to_global(Point(199, 149)).x + 1
    assert region == Rect(141, 70, 143, 143)


def test_a_shrunk_and_encoded_screenshot_has_the_size_asked() -> None:
    image = Image.effect_noise((1920, 1200), 60).convert("RGB")
    data, media_type = encode_image(resize(image, (1356, 847)))
    decoded = Image.open(io.BytesIO(base64.b64decode(data)))
    assert decoded.size == (1356, 847)
    assert len(data) <= MAX_BASE64
    assert media_type in ("image/png", "image/jpeg")
