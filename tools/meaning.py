"""What a call acted on, by meaning: what finds it again later without the model.

A ref (`ref_12`) or a point (640, 380) names an element only in the page or on the screen as
it was when the model read it. A routine replays a step days later, in a page or window that
was built again, so each acting call also keeps what its target *is*: the browser's role,
accessible name, nearest heading or landmark and page address; the screen's app, window title,
role and name. Sources fill it while they judge a call (they resolve the element then anyway);
the card keeps it, and a routine's step is made from it.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from tools.data import Data


class TargetMeaning(Data, frozen=True):
    """An element by what it is, not where it was. Empty fields were not known."""

    role: str = ""
    name: str = ""
    # The nearest heading above it, or the landmark it sits in ("navigation “Docs”"): what
    # tells two elements with the same role and name apart.
    near: str = ""
    url: str = ""  # the browser's page address when it was acted on
    app: str = ""  # the screen's app and window title
    window: str = ""
    # It is, or forwards to, a password field: a routine never records a step that typed there.
    secret: bool = False

    @property
    def known(self) -> bool:
        """Whether there is enough to look for it: a role, or a name."""
        return bool(self.role or self.name)


class Found(Data, frozen=True):
    """A target looked for by its meaning in the page or window as it is now.

    `input` is what replaces the recorded call's addressing (the browser's
    ``{"target": {"type": "ref", "ref": "ref_31"}}``, the screen's ``{"coordinate": [x, y]}``),
    empty when it was not found once: `count` says whether nothing matched (0) or several did
    with nothing to tell them apart, and `why` says so in words for the person and the model.
    """

    input: dict[str, Any] = Field(default_factory=dict)
    count: int = 0
    why: str = ""

    @property
    def found(self) -> bool:
        return bool(self.input)
