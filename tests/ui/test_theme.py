"""Light and dark: the window follows the system's scheme live, or the person's choice, and
every part of it stays readable in both."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QWidget

from desktop.workspace import Workspace
from tests.support.waiting import wait_until
from ui import theme
from ui.settings import SettingsDialog
from ui.settings.appearance import AppearancePage
from ui.thread.markdown.view import CodeBlockView, ProseBlockView
from ui.window.main_window import MainWindow

REPLY = "Claude's answer, in **plain** words with a [link](https://example.com).\n"


def luminance(colour: QColor) -> float:
    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(colour.redF())
        + 0.7152 * channel(colour.greenF())
        + 0.0722 * channel(colour.blueF())
    )


def contrast(a: QColor, b: QColor) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def as_drawn(widget: QWidget, viewport: QWidget) -> tuple[QColor, float]:
    """The background `widget` shows on in `viewport` (its commonest pixel) and how far its
    text stands out from it: the strongest contrast of any pixel (WCAG ratio, 1 to 21)."""
    area = QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size())
    image = viewport.grab(area).toImage().convertToFormat(QImage.Format.Format_RGB32)
    assert not image.isNull()
    pixels = [
        image.pixelColor(x, y).rgb()
        for y in range(0, image.height(), 2)
        for x in range(0, image.width(), 2)
    ]
    background = QColor.fromRgb(Counter(pixels).most_common(1)[0][0])
    return background, max(contrast(QColor.fromRgb(p), background) for p in set(pixels))


@pytest.fixture(autouse=True)
def system_theme_afterwards() -> Iterator[None]:
    yield
    theme.theme().set_preference("system")
    QGuiApplication.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Light)


@pytest.fixture
def window(qtbot, workspace: Workspace, aloop) -> MainWindow:  # type: ignore[no-untyped-def]
    sid = workspace.store.create_session("Colours").id
    workspace.store.add_message(sid, "user", [{"type": "text", "text": "Hello"}])
    workspace.store.add_message(sid, "assistant", [{"type": "text", "text": REPLY}])
    win = MainWindow(workspace)
    qtbot.addWidget(win)
    win.show()
    win.open_session(sid)
    return win


def choose(workspace: Workspace, preference: str) -> None:
    settings = workspace.settings.model_copy(deep=True)
    settings.appearance.theme = preference  # type: ignore[assignment]
    workspace.live.apply(settings)


def test_a_reply_is_readable_in_light_and_in_dark(qtbot, window, workspace) -> None:  # type: ignore[no-untyped-def]
    [prose] = window.thread.findChildren(ProseBlockView)
    for preference, dark in (("light", False), ("dark", True), ("light", False)):
        choose(workspace, preference)  # applies at once, without a restart
        app_window = QApplication.palette().color(QApplication.palette().ColorRole.Window)
        assert (app_window.lightness() < 128) is dark
        # The reply as drawn: on the scheme's background, its text stands out (WCAG AA: 4.5).
        canvas, ink = as_drawn(prose, window.thread.viewport())
        assert (canvas.lightness() < 128) is dark, preference
        assert ink >= 4.5, preference
        for part in (window.thread.column, window.thread.viewport()):
            assert part.palette().color(part.backgroundRole()) == canvas

        # The link inside the reply is recoloured too, and readable.
        html = prose.document().toHtml()
        link = theme.current().link
        assert link in html and contrast(QColor(link), canvas) >= 4.5


def test_the_system_scheme_is_followed_live_until_the_person_chooses(
    qtbot, window, workspace
) -> None:  # type: ignore[no-untyped-def]
    hints = QGuiApplication.styleHints()
    choose(workspace, "system")
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)  # the system switched to dark
    assert theme.current() is theme.DARK
    assert QApplication.palette().color(QApplication.palette().ColorRole.Window).lightness() < 128
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert theme.current() is theme.LIGHT
    choose(workspace, "dark")  # a choice of their own wins over the system
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert theme.current() is theme.DARK


def test_no_colour_in_the_window_is_left_from_the_other_scheme(qtbot, window, workspace) -> None:  # type: ignore[no-untyped-def]
    choose(workspace, "dark")
    sheet = window.styleSheet()
    light_only = {value for value in theme.LIGHT.tokens().values() if value.startswith("#")}
    light_only -= set(theme.DARK.tokens().values())
    assert not [value for value in light_only if value in sheet]
    assert "$" not in sheet  # every token was filled in


def test_appearance_previews_at_once_and_cancel_puts_back_the_saved_theme(
    qtbot, aloop, workspace
) -> None:  # type: ignore[no-untyped-def]
    choose(workspace, "light")
    dialog = SettingsDialog(workspace, page="appearance")
    qtbot.addWidget(dialog)
    dialog.open()
    page = dialog.page("appearance")
    assert isinstance(page, AppearancePage)
    field = page.theme_field
    assert field.currentText() == "Light"
    field.setCurrentIndex(field.findData("dark"))
    assert theme.current() is theme.DARK  # a preview, before Save
    dialog.button(QDialogButtonBox.StandardButton.Cancel).click()
    assert theme.current() is theme.LIGHT and workspace.settings.appearance.theme == "light"

    dialog = SettingsDialog(workspace, page="appearance")
    qtbot.addWidget(dialog)
    dialog.open()
    page = dialog.page("appearance")
    assert isinstance(page, AppearancePage)
    page.theme_field.setCurrentIndex(page.theme_field.findData("dark"))
    with qtbot.waitSignal(dialog.saved):
        dialog.button(QDialogButtonBox.StandardButton.Save).click()
    assert theme.current() is theme.DARK
    assert Workspace.open(workspace.paths.root).settings.appearance.theme == "dark"


def test_code_is_highlighted_in_both_schemes(qtbot, aloop, workspace) -> None:  # type: ignore[no-untyped-def]
    sid = workspace.store.create_session("Code").id
    code = "def greet(name):\n    return f'hello {name}'  # a greeting\n"
    reply = f"Here:\n\n```python\n{code}```\n"
    workspace.store.add_message(sid, "assistant", [{"type": "text", "text": reply}])
    window = MainWindow(workspace)
    qtbot.addWidget(window)
    window.show()
    choose(workspace, "light")
    window.open_session(sid)
    [view] = window.thread.findChildren(CodeBlockView)
    aloop.run_until_complete(wait_until(lambda: view.highlighted, what="the highlighting"))

    def keyword_colour() -> QColor:
        [first] = [r for r in view.code.document().firstBlock().layout().formats() if r.start == 0]
        assert first.length == len("def")
        return first.format.foreground().color()

    light = keyword_colour()
    canvas = QColor(theme.LIGHT.code_bg)
    assert contrast(light, canvas) >= 3
    choose(workspace, "dark")
    dark = keyword_colour()
    assert dark != light and contrast(dark, QColor(theme.DARK.code_bg)) >= 3
    # Colour only: the text, and what Copy takes, stay exactly the code.
    assert view.code.plain_text() == code.rstrip("\n")
