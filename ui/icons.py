"""Small line icons for tool cards, drawn from SVG in any theme colour.

Emoji depend on the fonts a machine has; these do not. Each icon is a 16-unit SVG outline,
rendered once per name, colour, size and pixel ratio.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PySide6.QtCore import QByteArray, QRectF, QStandardPaths, Qt
from PySide6.QtGui import QPainter, QPixmap

_STROKE = 'fill="none" stroke="{colour}" stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round"'

SHAPES = {
    # what a call works with
    "globe": '<circle cx="8" cy="8" r="6.2"/><path d="M1.8 8h12.4M8 1.8c-2.2 2.3-2.2 10.1 0 '
    '12.4M8 1.8c2.2 2.3 2.2 10.1 0 12.4"/>',
    "monitor": '<rect x="1.8" y="2.5" width="12.4" height="8.5" rx="1.2"/><path d="M5.5 '
    '13.8h5M8 11v2.8"/>',
    "app": '<rect x="2" y="2.5" width="12" height="11" rx="1.6"/><path d="M2 5.5h12"/>'
    '<circle cx="4" cy="4" r=".3"/>',
    "plug": '<path d="M6 1.8v3M10 1.8v3M4.2 4.8h7.6v2.4a3.8 3.8 0 0 1-7.6 0zM8 11v3.2"/>',
    "tool": '<path d="M10.2 2.2a3.3 3.3 0 0 0-3.9 4.3L2.4 10.4a1.4 1.4 0 0 0 2 2l3.9-3.9a3.3 '
    '3.3 0 0 0 4.3-3.9l-2 2-1.8-.4-.4-1.8z"/>',
    "steps": '<path d="M6 4h8M6 8h8M6 12h8"/><circle cx="2.8" cy="4" r=".5"/><circle cx="2.8" '
    'cy="8" r=".5"/><circle cx="2.8" cy="12" r=".5"/>',
    "image": '<rect x="2" y="3" width="12" height="10" rx="1.4"/><path d="M2.5 11.5l3.5-3.5 '
    '2.5 2.5 2-2 3 3"/><circle cx="10.5" cy="6" r=".9"/>',
    "closed": '<path d="M6 3.5L10.5 8 6 12.5"/>',
    "open": '<path d="M3.5 6L8 10.5 12.5 6"/>',
    # how it ended
    "running": '<circle cx="8" cy="8" r="6"/><path d="M8 4.8V8l2.2 1.4"/>',
    "done": '<path d="M3 8.4l3.2 3.1L13 4.6"/>',
    "failed": '<circle cx="8" cy="8" r="6"/><path d="M8 4.8v3.7M8 11h.01"/>',
    "denied": '<circle cx="8" cy="8" r="6"/><path d="M3.8 12.2l8.4-8.4"/>',
    "blocked": '<rect x="3" y="7" width="10" height="7" rx="1.3"/><path d="M5.3 7V5a2.7 2.7 0 '
    '0 1 5.4 0v2"/>',
    "stopped": '<rect x="4" y="4" width="8" height="8" rx="1.2"/>',
    "skipped": '<path d="M3.5 4l5 4-5 4zM10.5 4v8"/>',
    "no_effect": '<circle cx="8" cy="8" r="6"/><path d="M5 8h6"/>',
    "differs": '<path d="M3 6h10M3 10h10M10.5 3.5l-5 9"/>',
    "unconfirmed": '<circle cx="8" cy="8" r="6"/><path d="M6.2 6.2a1.9 1.9 0 1 1 2.6 1.8c-.5.2-.8'
    '.6-.8 1.1v.4M8 11.4h.01"/>',
}


def svg(name: str, colour: str) -> str:
    """The icon `name` as SVG source, in `colour`."""
    stroke = _STROKE.format(colour=colour)
    shape = SHAPES.get(name, SHAPES["tool"])
    return f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" {stroke}>{shape}</svg>'


@cache
def file(name: str, colour: str) -> str:
    """The icon as an SVG file a style sheet can point at (`image: url(...)`); "" if the cache
    folder cannot be written."""
    folder = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.CacheLocation))
    path = folder / "icons" / f"{name}-{colour.lstrip('#')}.svg"
    source = svg(name, colour)
    try:
        if not path.is_file() or path.read_text(encoding="utf-8") != source:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(source, encoding="utf-8")
    except OSError:
        return ""
    return path.as_posix()


@cache
def pixmap(name: str, colour: str, size: int = 16, ratio: float = 1.0) -> QPixmap:
    """The icon `name` in `colour` (any CSS colour), `size` logical pixels square."""
    from PySide6.QtSvg import QSvgRenderer  # with the first icon drawn, not with the window

    renderer = QSvgRenderer(QByteArray(svg(name, colour).encode()))
    device = max(1, round(size * ratio))
    image = QPixmap(device, device)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, device, device))
    painter.end()
    image.setDevicePixelRatio(ratio)
    return image


# By the name of the source a call comes from (desktop.calls.contract.CallSource).
SOURCE_ICONS = {
    "browser": "globe",
    "computer": "monitor",
    "macos": "app",
    "apps": "app",
    "tabs": "app",
}


def for_source(source: str) -> str:
    """The icon of a call by its source's name ("browser" → the globe)."""
    return SOURCE_ICONS.get(source, "tool")
