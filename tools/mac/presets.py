"""Window layouts as the settings keep them: a named preset, and each app's place in it.

Plain data with no Mac code, so the settings model can hold presets without loading the tool."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tools.data import Data

MAX_NAME = 200
Monitor = Literal["main", "left", "right"]


class PresetItem(Data):
    """One app's place in a layout: exact bounds, the monitor as a fallback, or both."""

    app: str = Field(max_length=MAX_NAME)
    monitor: Monitor | None = None
    bounds: list[int] | None = Field(None, min_length=4, max_length=4)


class Preset(Data):
    """A named layout, as stored in settings (plain data: `model_dump()`)."""

    name: str = Field(max_length=MAX_NAME)
    items: list[PresetItem] = Field(default_factory=list)
