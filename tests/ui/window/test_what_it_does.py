"""The first-run welcome and Help → About Deskhand name what Deskhand does today, a line each:
the browser, Mac apps, the screen, connectors, plans, quick entry and routines."""

from __future__ import annotations

from PySide6.QtGui import QTextDocument

from ui.settings.welcome import WelcomePanel
from ui.window.main_window import MainWindow

NAMED = ["The browser", "Mac apps", "The screen", "Connectors", "Plans", "Quick entry", "Routines"]


def lines_of(html: str) -> list[str]:
    """Rich text as the person reads it, a line per paragraph or list item."""
    document = QTextDocument()
    document.setHtml(html)
    return [line.strip() for line in document.toPlainText().splitlines() if line.strip()]


def named(lines: list[str]) -> list[str]:
    return [line.split(":")[0] for line in lines if line.split(":")[0] in NAMED]


def test_the_welcome_and_about_name_each_thing_deskhand_does(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    welcome = WelcomePanel()
    qtbot.addWidget(welcome)
    welcome_lines = lines_of(welcome.text())
    assert named(welcome_lines) == NAMED
    assert (
        "Routines: save a finished task and do it again without Claude, through the same "
        "approvals." in welcome_lines
    )

    about = window.show_about()
    about_lines = lines_of(about.informativeText())
    assert named(about_lines) == NAMED
    # One list serves both: the same words, line for line.
    assert [line for line in about_lines if line.split(":")[0] in NAMED] == [
        line for line in welcome_lines if line.split(":")[0] in NAMED
    ]
    about.close()
