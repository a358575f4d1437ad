"""Deskhand's two palettes, as named colour tokens, and the theme that picks one.

Every colour the window draws comes from a `Palette` token: the style sheets are templates
(`$text`, `$border`, ...) filled in by `render`, the Qt palette comes from `qpalette`, and
views that paint themselves (rich text, code, icons) read `current()`. `Theme` follows the
system's light/dark scheme live through Qt's colour-scheme hints unless the person chose
light or dark in Settings → Appearance; a change restyles every attached window at once.
"""

from __future__ import annotations

import dataclasses
import sys
import weakref
from dataclasses import dataclass
from functools import cache
from string import Template
from typing import TYPE_CHECKING, Literal

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

if TYPE_CHECKING:
    from desktop.system.settings.model import Settings
    from desktop.workspace import Workspace

Preference = Literal["system", "light", "dark"]  # desktop.system.settings.Theme


@dataclass(frozen=True)
class Palette:
    """One scheme's colours, by what they are for."""

    name: Literal["light", "dark"]
    canvas: str  # the thread's background
    chrome: str  # dialogs, toolbars: the Qt palette's Window
    sidebar: str
    surface: str  # fields and buttons
    raised: str  # tool cards, notices
    hover: str
    selected: str
    border: str
    border_soft: str
    text: str
    text_muted: str
    text_faint: str
    accent: str
    accent_hover: str
    on_accent: str
    link: str
    focus: str
    bubble: str
    bubble_text: str
    code_bg: str
    code_border: str
    inline_code_bg: str
    table_head_bg: str
    scroll_handle: str
    scroll_handle_hover: str
    danger: str
    danger_bg: str
    danger_border: str
    danger_button: str
    danger_button_hover: str
    warning: str
    warning_text: str
    warning_bg: str
    warning_border: str
    success: str
    read_fg: str
    read_bg: str
    change_fg: str
    change_bg: str
    consequential_fg: str
    consequential_bg: str
    pygments_style: str  # the Pygments style code blocks are highlighted with

    def tokens(self) -> dict[str, str]:
        """Every colour by its name (do not change the dict: it is shared)."""
        return _tokens(self)


@cache
def _tokens(palette: Palette) -> dict[str, str]:
    return {f.name: str(getattr(palette, f.name)) for f in dataclasses.fields(palette)}


LIGHT = Palette(
    name="light",
    canvas="#ffffff",
    chrome="#f6f7f9",
    sidebar="#f3f4f6",
    surface="#ffffff",
    raised="#f8f9fb",
    hover="#eaedf1",
    selected="#dde3ea",
    border="#d0d7de",
    border_soft="#e3e6ea",
    text="#1f2328",
    text_muted="#57606a",
    text_faint="#6e7781",
    accent="#1f6feb",
    accent_hover="#1a5fd0",
    on_accent="#ffffff",
    link="#0969da",
    focus="#2f7cf6",
    bubble="#e7effd",
    bubble_text="#1f2328",
    code_bg="#f6f8fa",
    code_border="#e1e4e8",
    inline_code_bg="#eef0f3",
    table_head_bg="#f3f5f7",
    scroll_handle="#c4cad1",
    scroll_handle_hover="#a5adb6",
    danger="#b42318",
    danger_bg="#fdf1f0",
    danger_border="#f1bcb8",
    danger_button="#cf222e",
    danger_button_hover="#a40e26",
    warning="#8a5a00",
    warning_text="#4d3b00",
    warning_bg="#fff8e6",
    warning_border="#f3d58b",
    success="#1a7f37",
    read_fg="#1f6f3f",
    read_bg="#e3f4e8",
    change_fg="#8a5a00",
    change_bg="#fdf1d8",
    consequential_fg="#a3262a",
    consequential_bg="#fbe4e4",
    pygments_style="default",
)

DARK = Palette(
    name="dark",
    canvas="#1c1d20",
    chrome="#222326",
    sidebar="#18191b",
    surface="#2a2c30",
    raised="#232428",
    hover="#2f3136",
    selected="#383b42",
    border="#43464d",
    border_soft="#33353a",
    text="#e6e7ea",
    text_muted="#a9adb5",
    text_faint="#8b9099",
    accent="#2f7cf6",
    accent_hover="#4a8ef7",
    on_accent="#ffffff",
    link="#6cb2ff",
    focus="#6cb2ff",
    bubble="#28385a",
    bubble_text="#e9eef8",
    code_bg="#15161a",
    code_border="#33353a",
    inline_code_bg="#2e3035",
    table_head_bg="#2a2c30",
    scroll_handle="#4a4d55",
    scroll_handle_hover="#60646d",
    danger="#ff8a80",
    danger_bg="#3a2022",
    danger_border="#6e3034",
    danger_button="#da3633",
    danger_button_hover="#b62324",
    warning="#e3b341",
    warning_text="#f0d58a",
    warning_bg="#352d16",
    warning_border="#67561f",
    success="#56d364",
    read_fg="#7ee2a8",
    read_bg="#17362a",
    change_fg="#f2cc60",
    change_bg="#3a3117",
    consequential_fg="#ff9492",
    consequential_bg="#4a1f22",
    pygments_style="github-dark",
)

PALETTES = {"light": LIGHT, "dark": DARK}


def render(template: str, palette: Palette) -> str:
    """A style sheet template with its `$token`s filled in from `palette` (and `$arrow_down`
    and `$check_mark`, images drawn in its colours)."""
    from ui import icons  # Qt's SVG module, loaded with the first window rather than at import

    return Template(template).substitute(
        palette.tokens(),
        arrow_down=icons.file("open", palette.text_muted),
        check_mark=icons.file("done", palette.on_accent),
    )


def qpalette(palette: Palette) -> QPalette:
    """The Qt palette of a scheme, for widgets drawn by the style (Fusion, or the Mac's)."""
    role = QPalette.ColorRole
    result = QPalette()
    colours = {
        role.Window: palette.chrome,
        role.WindowText: palette.text,
        role.Base: palette.surface,
        role.AlternateBase: palette.raised,
        role.Text: palette.text,
        role.Button: palette.surface,
        role.ButtonText: palette.text,
        role.BrightText: palette.on_accent,
        role.Highlight: palette.accent,
        role.HighlightedText: palette.on_accent,
        role.ToolTipBase: palette.surface,
        role.ToolTipText: palette.text,
        role.PlaceholderText: palette.text_faint,
        role.Link: palette.link,
        role.LinkVisited: palette.link,
        role.Light: palette.surface,
        role.Midlight: palette.hover,
        role.Mid: palette.border,
        role.Dark: palette.border,
        role.Shadow: palette.border,
        role.Accent: palette.accent,
    }
    for colour_role, value in colours.items():
        result.setColor(colour_role, QColor(value))
    disabled = QPalette.ColorGroup.Disabled
    for colour_role in (role.WindowText, role.Text, role.ButtonText):
        result.setColor(disabled, colour_role, QColor(palette.text_faint))
    result.setColor(disabled, role.Highlight, QColor(palette.border))
    return result


class Theme(QObject):
    """The scheme in use: the person's choice, or the system's while they chose "system".

    `changed` fires with the new `Palette` after the application palette and every attached
    window's style sheet were updated.
    """

    changed = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.preference: Preference = "system"
        hints = QGuiApplication.styleHints()
        self._system = hints.colorScheme()
        hints.colorSchemeChanged.connect(self._system_changed)
        self._palette = self._pick()
        self._attached: list[tuple[weakref.ref[QWidget], str]] = []
        self._applied = False

    @property
    def palette(self) -> Palette:
        return self._palette

    def _pick(self) -> Palette:
        if self.preference != "system":
            return PALETTES[self.preference]
        return DARK if self._system == Qt.ColorScheme.Dark else LIGHT

    def _system_changed(self, scheme: Qt.ColorScheme) -> None:
        self._system = scheme
        if self.preference == "system":
            self._apply()

    def set_preference(self, preference: Preference) -> None:
        """Follow the system, or always use light or dark; applies at once."""
        if preference == self.preference and self._applied:
            return
        self.preference = preference
        hints = QGuiApplication.styleHints()
        if sys.platform == "darwin" and hasattr(hints, "setColorScheme"):
            # Native Mac widgets and title bars follow the app's scheme (Qt 6.8+).
            scheme = {"light": Qt.ColorScheme.Light, "dark": Qt.ColorScheme.Dark}
            hints.setColorScheme(scheme.get(preference, Qt.ColorScheme.Unknown))
        self._apply()

    def follow(self, workspace: Workspace) -> None:
        """Use the workspace's saved choice, now and whenever its settings are saved."""
        if self._settings_changed not in workspace.live.listeners:
            workspace.live.listeners.append(self._settings_changed)
        self.set_preference(workspace.settings.appearance.theme)

    def _settings_changed(self, settings: Settings) -> None:
        self.set_preference(settings.appearance.theme)

    def attach(self, widget: QWidget, template: str) -> None:
        """Style `widget` with `template` rendered in the current scheme, now and on changes."""
        self._attached = [(ref, t) for ref, t in self._attached if _alive(ref)]
        self._attached.append((weakref.ref(widget), template))
        if not self._applied:
            self._apply()
        else:
            widget.setStyleSheet(render(template, self._palette))

    def _apply(self) -> None:
        self._applied = True
        self._palette = self._pick()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            if (
                sys.platform != "darwin"
                and not _fusion_from_start
                and app.style().name().lower() != "fusion"
            ):
                app.setStyle("Fusion")  # the platform styles elsewhere ignore a dark palette
            app.setPalette(qpalette(self._palette))
        for ref, template in self._attached:
            widget = ref()
            if widget is not None and shiboken6.isValid(widget):
                widget.setStyleSheet(render(template, self._palette))
        self.changed.emit(self._palette)


_fusion_from_start = False  # see application_arguments


def application_arguments(argv: list[str]) -> list[str]:
    """The arguments to start the QApplication with: on Linux and Windows, Qt's Fusion style
    from the start (the platform styles there ignore a dark palette; the Mac keeps its own).
    Chosen this way, the platform's own style is never built only to be replaced, and the
    theme need not look at the style to know."""
    global _fusion_from_start
    if sys.platform == "darwin":
        return list(argv)
    _fusion_from_start = True
    return [*argv, "-style", "fusion"]


def _alive(ref: weakref.ref[QWidget]) -> bool:
    widget = ref()
    return widget is not None and shiboken6.isValid(widget)


_theme: Theme | None = None


def theme() -> Theme:
    """The application's one `Theme` (made on first use, once a QApplication exists)."""
    global _theme
    if _theme is None:
        _theme = Theme(QGuiApplication.instance())
    return _theme


def current() -> Palette:
    """The palette in use (light before the theme is set up)."""
    return _theme.palette if _theme is not None else LIGHT


class FocusRing(QObject):
    """Marks `frame` with the `focused` property while `child` (or, without one, any child the
    frame holds directly, as a stack holds its pages) has keyboard focus, so a style sheet can
    draw the frame's ring: a rule cannot select a parent by its child's state, and a ring on
    a scrolling area itself would cost it its fast scrolling."""

    def __init__(self, frame: QWidget, child: QWidget | None = None) -> None:
        super().__init__(frame)
        self._frame = frame
        if child is not None:
            child.installEventFilter(self)
        else:
            app = QApplication.instance()
            if isinstance(app, QApplication):
                app.focusChanged.connect(self._focus_changed)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.FocusIn, QEvent.Type.FocusOut):
            self._show(event.type() == QEvent.Type.FocusIn)
        return False

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        if shiboken6.isValid(self._frame):
            self._show(new is not None and new.parentWidget() is self._frame)

    def _show(self, focused: bool) -> None:
        if self._frame.property("focused") != focused:
            self._frame.setProperty("focused", focused)
            self._frame.style().unpolish(self._frame)
            self._frame.style().polish(self._frame)


# The look shared by every window: buttons, fields, lists, scroll bars and focus rings.
BASE_STYLE = """
QDialogButtonBox { dialogbuttonbox-buttons-have-icons: 0; }
QToolTip { background: $surface; color: $text; border: 1px solid $border; padding: 4px 6px; }
QPushButton, QToolButton, QCheckBox, QRadioButton { outline: none; }
QPushButton {
    background: $surface; color: $text; border: 1px solid $border; border-radius: 6px;
    padding: 5px 14px; min-height: 18px;
}
QPushButton:hover { background: $hover; }
QPushButton:pressed { background: $selected; }
QPushButton:disabled { color: $text_faint; border-color: $border_soft; background: $raised; }
QPushButton:default { background: $accent; color: $on_accent; border-color: $accent; }
QPushButton:default:hover { background: $accent_hover; }
QPushButton:focus { border: 2px solid $focus; padding: 4px 13px; }
QPushButton:default:focus { border: 2px solid $text; }
QPushButton[destructive="true"] {
    background: $danger_button; color: $on_accent; border-color: $danger_button;
}
QPushButton[destructive="true"]:hover { background: $danger_button_hover; }
QPushButton[destructive="true"]:focus { border: 2px solid $text; }
QToolButton:focus { border: 2px solid $focus; border-radius: 4px; }
QLineEdit, QPlainTextEdit, QTextEdit {
    background: $surface; color: $text; border: 1px solid $border; border-radius: 6px;
    padding: 4px 6px; selection-background-color: $accent; selection-color: $on_accent;
}
QLineEdit:focus, QPlainTextEdit:focus, QTextEdit:focus {
    border: 2px solid $focus; padding: 3px 5px;
}
QLineEdit:disabled { color: $text_faint; background: $raised; }
QComboBox {
    background: $surface; color: $text; border: 1px solid $border; border-radius: 6px;
    padding: 4px 8px; min-height: 18px;
}
QComboBox:hover { border-color: $scroll_handle_hover; }
QComboBox:focus { border: 2px solid $focus; padding: 3px 7px; }
QComboBox:disabled { color: $text_faint; background: $raised; }
QComboBox::drop-down { border: none; width: 22px; }
QComboBox::down-arrow { image: url("$arrow_down"); width: 11px; height: 11px; }
QComboBox QAbstractItemView {
    background: $surface; color: $text; border: 1px solid $border;
    selection-background-color: $selected; selection-color: $text; outline: 0;
}
QCheckBox::indicator, QRadioButton::indicator {
    width: 14px; height: 14px; border: 1px solid $scroll_handle_hover; background: $surface;
}
QCheckBox::indicator { border-radius: 4px; }
QRadioButton::indicator { border-radius: 8px; }
QCheckBox::indicator:checked {
    background: $accent; border-color: $accent; image: url("$check_mark");
}
QRadioButton::indicator:checked { border: 4px solid $accent; width: 8px; height: 8px; }
QCheckBox::indicator:focus, QRadioButton::indicator:focus { border: 2px solid $focus; }
QCheckBox::indicator:checked:focus { border: 2px solid $focus; }
QRadioButton::indicator:checked:focus { border: 4px solid $focus; }
QCheckBox:disabled, QRadioButton:disabled { color: $text_faint; }
QListWidget, QTableWidget, QTableView {
    background: $surface; color: $text; border: 1px solid $border_soft; border-radius: 6px;
    alternate-background-color: $raised; gridline-color: $border_soft;
    selection-background-color: $selected; selection-color: $text;
}
QListWidget:focus, QTableWidget:focus { border: 2px solid $focus; }
QHeaderView::section {
    background: $table_head_bg; color: $text_muted; border: none;
    border-bottom: 1px solid $border_soft; border-right: 1px solid $border_soft;
    padding: 5px 8px; font-weight: 600;
}
QScrollBar:vertical { background: transparent; width: 12px; margin: 2px 2px 2px 0px; }
QScrollBar:horizontal { background: transparent; height: 12px; margin: 0px 2px 2px 2px; }
QScrollBar::handle:vertical {
    background: $scroll_handle; border-radius: 4px; min-height: 28px; margin: 0px 2px;
}
QScrollBar::handle:horizontal {
    background: $scroll_handle; border-radius: 4px; min-width: 28px; margin: 2px 0px;
}
QScrollBar::handle:hover { background: $scroll_handle_hover; }
QScrollBar::add-line, QScrollBar::sub-line { width: 0px; height: 0px; border: none; }
QScrollBar::add-page, QScrollBar::sub-page { background: transparent; }
QMenu { background: $surface; color: $text; border: 1px solid $border; padding: 4px; }
QMenu::item { padding: 5px 18px; border-radius: 4px; }
QMenu::item:selected { background: $selected; }
QMenu::separator { height: 1px; background: $border_soft; margin: 4px 6px; }
QMenuBar { background: $chrome; color: $text; }
QMenuBar::item:selected { background: $hover; }
QStatusBar { background: $chrome; color: $text_muted; }
QLabel[role="error"] { color: $danger; }
QLabel[role="hint"] { color: $text_faint; }
"""
