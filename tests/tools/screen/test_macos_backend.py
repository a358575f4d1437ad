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
    from tools.screen.macos import MacBackend

pytestmark = [
    pytest.mark.macos,
    pytest.mark.skipif(sys.platform != "darwin", reason="needs macOS"),
]


@pytest.fixture
def backend() -> Iterator[MacBackend]:
    from tools.screen.macos import MacBackend

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
