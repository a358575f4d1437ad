"""Fixtures of the window's tests: a shown main window on the test's workspace, and every window
test starts in the system's scheme, whatever the test before it chose."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ui import theme
from ui.window.main_window import MainWindow


@pytest.fixture(autouse=True)
def system_scheme_afterwards() -> Iterator[None]:
    yield
    if theme._theme is not None:  # only once a test has made one
        theme.theme().set_preference("system")


@pytest.fixture
def window(qtbot, workspace, aloop):  # type: ignore[no-untyped-def]
    """The main window on the test's workspace, shown (modules with their own window override it)."""
    win = MainWindow(workspace)
    qtbot.addWidget(win)
    win.show()
    win.add_routines()  # as the app does once the window is painted
    return win
