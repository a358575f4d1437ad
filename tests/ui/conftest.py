"""Every window test starts in the system's scheme, whatever the test before it chose."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ui import theme


@pytest.fixture(autouse=True)
def system_scheme_afterwards() -> Iterator[None]:
    yield
    if theme._theme is not None:  # only once a test has made one
        theme.theme().set_preference("system")
