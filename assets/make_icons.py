"""Regenerate the app icon files from `assets/deskhand.svg`.

    python assets/make_icons.py             # assets/icons/deskhand-<size>.png and assets/deskhand.icns
    python assets/make_icons.py --out DIR   # the same files under DIR (the tests compare them)

Each PNG is rendered from the vector at its own size (crisper than scaling one bitmap down);
the .icns (macOS) packs the 32-1024 px renderings with Pillow. Needs only Deskhand's own
dependencies: PySide6 (QtSvg renders) and Pillow (writes the .icns).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path

ASSETS = Path(__file__).resolve().parent
SOURCE = ASSETS / "deskhand.svg"
PNG_SIZES = (16, 32, 48, 64, 128, 256, 512, 1024)
ICNS_SIZES = (32, 64, 128, 256, 512, 1024)  # what Pillow's writer stores (16 px comes from 32)


def png_name(size: int) -> str:
    return f"deskhand-{size}.png"


def render(svg: Path, size: int) -> bytes:
    """The SVG drawn into a transparent size×size image, as PNG bytes."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg} is not an SVG Qt can draw")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.convertToFormat(QImage.Format.Format_ARGB32).save(buffer, "PNG")  # type: ignore[call-overload]
    buffer.close()
    return bytes(data.data())


def make_icons(out: Path, svg: Path = SOURCE) -> list[Path]:
    """Write every PNG size and the .icns under `out`; returns the files written."""
    from PIL import Image
    from PySide6.QtGui import QGuiApplication

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    (out / "icons").mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    pngs: dict[int, bytes] = {}
    for size in PNG_SIZES:
        pngs[size] = render(svg, size)
        path = out / "icons" / png_name(size)
        path.write_bytes(pngs[size])
        written.append(path)
    images = [Image.open(io.BytesIO(pngs[size])).convert("RGBA") for size in ICNS_SIZES]
    icns = out / "deskhand.icns"
    images[-1].save(icns, format="ICNS", append_images=images[:-1])
    written.append(icns)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ASSETS, help="folder to write into")
    args = parser.parse_args(argv)
    for path in make_icons(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
