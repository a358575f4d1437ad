"""The app icon: every generated size exists, and the files match what the SVG renders to today."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets"
sys.path.insert(0, str(ASSETS))
import make_icons  # noqa: E402  (a script next to the icons, not a package)


@pytest.mark.parametrize("size", make_icons.PNG_SIZES)
def test_each_png_has_its_size_a_transparent_margin_and_an_opaque_body(size: int) -> None:
    image = Image.open(ASSETS / "icons" / make_icons.png_name(size))
    assert image.size == (size, size) and image.mode == "RGBA"
    alpha = image.getchannel("A")
    assert alpha.getpixel((0, 0)) == 0  # macOS-style margin around the rounded body
    assert alpha.getpixel((size // 2, size // 2)) == 255


def test_the_icns_holds_every_size_macos_asks_for() -> None:
    icns = Image.open(ASSETS / "deskhand.icns")
    assert icns.format == "ICNS"
    sizes = {(w * scale) for w, _h, scale in icns.info["sizes"]}
    assert {32, 64, 128, 256, 512, 1024} <= sizes


def test_committed_icons_are_up_to_date_with_the_svg(tmp_path: Path, qapp: object) -> None:
    """Edited the SVG? Run `python assets/make_icons.py` and commit the results."""
    # `qapp` first: the script would otherwise make a QGuiApplication, and later widget tests
    # in this process need a QApplication.
    make_icons.make_icons(tmp_path)
    for size in make_icons.PNG_SIZES:
        name = make_icons.png_name(size)
        fresh = Image.open(tmp_path / "icons" / name).convert("RGBA")
        committed = Image.open(ASSETS / "icons" / name).convert("RGBA")
        difference = ImageChops.difference(fresh, committed)
        # A little slack for antialiasing differences between Qt versions.
        assert max(ImageStat.Stat(difference).mean) < 1.0, f"{name} is stale"
