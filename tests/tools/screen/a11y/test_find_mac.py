"""A click's target kept by meaning and found again on a real Mac, through the Accessibility API.

Marked `macos` (skipped elsewhere), on the AppKit form of `test_ax_effects_mac.py`; the same
checks as the AT-SPI tests (`tests/tools/screen/test_refind.py`), kept small: the meaning the
gate's element gives, the coordinate found for it, and the words for one that is not there.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import pytest

from tests.tools.screen.a11y.test_ax_effects_mac import (  # noqa: F401 (fixtures)
    _centre,
    _named,
    _window,
    accessibility,
    anyio_backend,
    form,
)
from tools.meaning import Found

if TYPE_CHECKING:
    from tools.screen.a11y.ax.reader import AxAccessibility

pytestmark = [
    pytest.mark.macos,
    pytest.mark.anyio,
    pytest.mark.skipif(sys.platform != "darwin", reason="needs macOS"),
]


async def test_the_box_is_kept_by_meaning_and_found_again(
    accessibility: AxAccessibility,  # noqa: F811 (the fixture)
    form: None,  # noqa: F811
) -> None:
    from tools.screen import ScreenComputer
    from tools.screen.a11y.ax.watching import AxWatchingInspector
    from tools.screen.a11y.find import subject
    from tools.screen.refind import meaning_of

    async def allow(_context: object) -> bool:
        return True

    _app, _frame, nodes = await _window(accessibility)
    inspector = AxWatchingInspector(accessibility, own_pids={1})
    toolset = ScreenComputer(confirm=allow, inspector=inspector)
    try:
        frame = await toolset._frame()
        box = _named(nodes, "Remember me")
        shown = frame.to_image(_centre(box))
        element = await inspector.element_at(_centre(box))
        meaning = meaning_of("left_click", {"coordinate": [shown.x, shown.y]}, element)
        assert meaning is not None
        assert (meaning.role, meaning.name) == (box.role, "Remember me") and meaning.app
        found = await toolset.find_again(meaning, within=5)
        assert found == Found(input={"coordinate": [shown.x, shown.y]}, count=1)
        renamed = meaning.model_copy(update={"name": "Forget me"})
        missing = await toolset.find_again(renamed, within=0.2)
        assert missing == Found(why=f"No {subject(renamed)} in {meaning.window or meaning.app}.")
    finally:
        await toolset.close()
