"""Records the events a turn emits, for tests that read them back by kind or as the reply's text."""

from __future__ import annotations

from desktop.chat.events import AgentEvent, TextDelta


class Recorder:
    def __init__(self) -> None:
        self.events: list[AgentEvent] = []

    def __call__(self, event: AgentEvent) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]

    @property
    def text(self) -> str:
        return "".join(e.text for e in self.of(TextDelta))
