"""What is on the screen at a point, as accessibility reports it: the seam for AT-SPI and AX.

The gate judges a click or a keystroke by the element it affects, however it is addressed. An
`Inspector` answers two questions, in global logical coordinates: which element is under a
point, and which element has the keyboard focus. Its answers are screen content (an attacker
may have written the names), so they are shown quoted and never followed.

Until an inspector is plugged in (`ScreenComputer(inspector=...)`) both answers are None: the
effect of a click or of typing cannot be established, and the gate treats it as consequential.
The driver awaits an inspector on the event loop before every call it describes and before
typing, within a time limit (an application that does not answer counts as unknown), so its
answers must come from other processes without blocking the loop (`atspi.py` asks over D-Bus).
"""

from __future__ import annotations

from typing import Protocol

from pydantic import ConfigDict

from tools.data import Data
from tools.screen.geometry import Point, Rect

__all__ = ["Element", "Inspector"]


class Element(Data):
    """One accessible element."""

    model_config = ConfigDict(frozen=True)

    role: str  # the accessibility role in plain lower-case words: "push button", "text"
    name: str = ""  # its accessible name or label (screen content: untrusted)
    app: str = ""  # the application it belongs to
    window: str = ""  # the title of the window holding it, when known
    near: str = ""  # the name of the nearest named element holding it, when known
    secure: bool = False  # a password or other secure text field: nothing is typed into it
    bounds: Rect | None = None  # where it is, in global logical units, when known
    enabled: bool = True


class Inspector(Protocol):
    async def element_at(self, point: Point) -> Element | None:
        """The element under a global point, or None when it cannot be told."""
        ...

    async def focused_element(self) -> Element | None:
        """The element with the keyboard focus, or None when it cannot be told."""
        ...
