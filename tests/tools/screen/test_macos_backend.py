"""The Quartz backend on a real Mac: permissions, displays, capture and the pointer.

These run only on macOS (marked `macos`); capture and input also need Deskhand's terminal to
hold the Screen Recording and Accessibility permissions, and say so when it does not.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tools.screen import screen_status
from tools.screen.displays import number_displays, primary_display
from tools.screen.geometry import Point

if TYPE_CHECKING:
    from tools.screen.backends.macos import MacBackend

pytestmark = [
    pytest.mark.macos,
    pytest.mark.skipif(sys.platform != "darwin", reason="needs macOS"),
]


@pytest.fixture
def backend() -> Iterator[MacBackend]:
    from tools.screen.backends.macos import MacBackend

    made = MacBackend()
    yield made
    made.close()


def usable() -> None:
    status = screen_status()
    if not status.available:
        pytest.skip(f"{status.reason} {status.fix}")


def test_status_works_or_names_the_permission() -> None:
    status = screen_status()
    assert status.available or "Privacy & Security" in status.fix


def test_displays_have_a_primary_at_the_origin(backend: MacBackend) -> None:
    displays = number_displays(backend.displays())
    main = primary_display(displays)
    assert main is not None and (main.frame.x, main.frame.y) == (0, 0)
    assert all(d.scale >= 1.0 for d in displays)


def test_capture_is_at_the_displays_own_resolution(backend: MacBackend) -> None:
    usable()
    main = primary_display(number_displays(backend.displays()))
    assert main is not None
    image = backend.capture(main.frame, main.scale)
    assert image.size == (
        round(main.frame.width * main.scale),
        round(main.frame.height * main.scale),
    )


def test_the_pointer_goes_where_it_is_sent(backend: MacBackend) -> None:
    usable()
    main = primary_display(number_displays(backend.displays()))
    assert main is not None
    target = Point(main.frame.width // 2, main.frame.height // 2)
    backend.move(target)
    assert backend.pointer() == target


def test_each_permission_has_a_status_that_agrees_with_the_screen_status() -> None:
    from tools.screen.backends.mac_permissions import mac_permissions

    permissions = {p.key: p for p in mac_permissions()}
    assert set(permissions) == {"screen_recording", "accessibility"}
    assert all(
        p.settings_url.startswith("x-apple.systempreferences:") for p in permissions.values()
    )
    both = permissions["screen_recording"].granted and permissions["accessibility"].granted
    assert screen_status().available == both


def test_the_focus_goes_back_to_the_front_window_it_was_taken_from(backend: MacBackend) -> None:
    usable()
    before = backend.focused_window()
    if before is None:
        pytest.skip("no window has the focus")
    backend.activate(before)  # the app that had the focus is brought to the front again
    after = backend.focused_window()
    assert after is not None and after.pid == before.pid


def test_windows_are_listed_and_one_is_captured_by_its_id(backend: MacBackend) -> None:
    """The window list the `tabs` screenshot matches a browser window against, and the capture
    of that one window (at the display's resolution, whatever covers it)."""
    usable()
    windows = backend.windows()
    if not windows:
        pytest.skip("no window is on screen")
    assert all(w.rect.width > 0 and w.rect.height > 0 for w in windows)
    front = windows[0]
    image = backend.capture_window(front.id)
    assert image.width >= front.rect.width and image.height >= front.rect.height
