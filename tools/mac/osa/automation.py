"""What macOS answered when Deskhand tried to control each app (the Automation permission).

Qt-free, for Settings → Apps and `deskhand doctor`: a call that reached the app means "allowed",
-1743/-1744 means "denied", and a try that told nothing (the app was not running, timed out)
leaves "unknown" unless something was already known. Listeners hear every change.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal

from tools.mac.osa.errors import OsaProblem, ProblemKind

AutomationState = Literal["allowed", "denied", "unknown"]
AUTOMATION_STATES: tuple[AutomationState, ...] = ("allowed", "denied", "unknown")

# Opens System Settings → Privacy & Security → Automation.
AUTOMATION_SETTINGS_URL = (
    "x-apple.systempreferences:com.apple.preference.security?Privacy_Automation"
)

Listener = Callable[[str, AutomationState], None]


class AutomationLog:
    """The Automation permission state of each app Deskhand has tried to control."""

    def __init__(self, states: Mapping[str, str] | None = None) -> None:
        self._states: dict[str, AutomationState] = {}
        for app, state in (states or {}).items():
            if state in AUTOMATION_STATES:
                self._states[app] = state
        self._listeners: list[Listener] = []

    def states(self) -> dict[str, AutomationState]:
        return dict(self._states)

    def state(self, app: str) -> AutomationState | None:
        """None when Deskhand never tried this app."""
        return self._states.get(app)

    def record(self, app: str, state: AutomationState) -> None:
        if self._states.get(app) == state:
            return
        self._states[app] = state
        for listener in list(self._listeners):
            listener(app, state)

    def observe(self, app: str, problem: OsaProblem | None) -> None:
        """Learn from one call to `app`: None means it succeeded."""
        if problem is None:
            self.record(app, "allowed")
        elif problem.kind is ProblemKind.NOT_ALLOWED:
            self.record(app, "denied")
        elif app not in self._states:
            self.record(app, "unknown")

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(app, state)` on every change; returns a function that unsubscribes."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe
