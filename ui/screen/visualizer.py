"""When the screen's visualizer shows, and what it draws: it listens to the screen's plain events
and to the conversations, shows the overlays and the control pill (ui/screen/overlay.py,
ui/screen/pill.py) while a chat controls the screen and the setting is on (Settings → Screen),
hides them while pixels are captured, and Stop stops the turns that control the screen.

It is made with the window, so it hears the screen's first event whenever that comes; the
drawing itself loads with the first thing to draw.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QObject, QPoint, QRect
from PySide6.QtGui import QColor, QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

from desktop.chat.conversations import ConversationEvent, TurnRunning
from desktop.system.settings.model import Settings
from desktop.workspace import Workspace

if TYPE_CHECKING:
    from desktop.calls.sources.screen.hooks import HandState
    from desktop.calls.sources.screen.source import ScreenEvent
    from ui.screen.overlay import Mark, ScreenOverlay
    from ui.screen.pill import ControlPill

# After hiding, how long the window system needs before the pixels below are back: a
# compositor's next frame, or (plain X11) the apps below repainting what was covered.
CAPTURE_SETTLE = 0.06


class ScreenVisualizer(QObject):
    """Shows what Claude does on the screen while a chat controls it (if the setting is on)."""

    def __init__(self, workspace: Workspace, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        hooks = workspace.screen_hooks  # the screen itself loads after the first paint
        self.controlling: set[int] = set()  # chats whose turn is using the screen
        self.overlays: list[ScreenOverlay] = []
        self.pills: list[ControlPill] = []
        self.captures = 0  # captures under way (chats capture on their own threads)
        self._clear_at = 0.0  # when the screen below is whole again after the last hiding
        self.last_point: QPoint | None = None  # where the pointer was last sent
        self._closed = False
        hooks.listeners.append(self.show_event)
        hooks.before_capture = self.hide_for_capture
        hooks.after_capture = self.show_after_capture
        self.hand = hooks.hand
        self.hand.listeners.append(self._hand_changed)
        self._unsubscribe = workspace.conversations.subscribe(self._on_conversation)
        workspace.live.listeners.append(self._settings_changed)
        app = QGuiApplication.instance()
        assert isinstance(app, QGuiApplication)
        app.screenAdded.connect(self._screens_changed)
        app.screenRemoved.connect(self._screens_changed)
        app.paletteChanged.connect(self._restyle)

    @property
    def enabled(self) -> bool:
        return self.workspace.settings.screen.visualizer

    @property
    def active(self) -> bool:
        """Whether the overlay shows: while a chat controls the screen (if the setting is on),
        and always while the person has the controls (their Resume must be at hand)."""
        return (bool(self.controlling) and self.enabled) or self.hand.holder != "claude"

    # -- events in ------------------------------------------------------------------

    def show_event(self, session_id: int, event: ScreenEvent) -> None:
        """The driver is about to act (or has just captured): draw it."""
        if not self.enabled or not shiboken6.isValid(self):
            return
        self.controlling.add(session_id)
        self._show()
        for mark in self.marks_for(event):
            for overlay in self.overlays:
                if overlay.covers(mark):
                    overlay.add(mark)

    def marks_for(self, event: ScreenEvent) -> list[Mark]:
        from ui.screen.overlay import (
            ACCENT,
            BUTTON_COLORS,
            DOT_LIFE,
            DRAG_LIFE,
            FLASH_LIFE,
            SCROLL_ARROWS,
            SCROLL_LIFE,
            Mark,
            bubble_life,
            typed_text,
        )

        points = tuple(QPoint(p.x, p.y) for p in event.points)
        if points:
            self.last_point = points[-1]
        color = QColor(BUTTON_COLORS.get(event.button or "left", ACCENT))
        match event.kind:
            case "click" | "press":
                return [Mark("ripple", points, count=max(1, event.count), color=color)]
            case "release":
                return [Mark("dot", points, color=color, life=DOT_LIFE)]
            case "move":
                return [Mark("dot", points, life=DOT_LIFE)]
            case "drag":
                return [Mark("drag", points, life=DRAG_LIFE)]
            case "scroll":
                arrow = SCROLL_ARROWS.get(event.text, "↕")
                return [Mark("scroll", points, text=arrow, life=SCROLL_LIFE)]
            case "type" | "key":
                text = typed_text(event.text) if event.kind == "type" else event.text
                label = f"⌨  {text}" if event.kind == "type" else f"Keys  {text}"
                anchor = (self.last_point,) if self.last_point is not None else ()
                return [Mark("bubble", anchor, text=label, life=bubble_life(text))]
            case "screenshot" | "zoom":
                if event.region is None:
                    return []
                x, y, width, height = event.region
                return [Mark("flash", rect=QRect(x, y, width, height), life=FLASH_LIFE)]
        return []

    def _on_conversation(self, event: ConversationEvent) -> None:
        if isinstance(event, TurnRunning) and not event.running:
            self.controlling.discard(event.session_id)
            if not self.workspace.conversations.running:
                self.hand.release()  # no turn left to pause: stop watching the person's input
            if not self.controlling:
                self._hide()

    def _settings_changed(self, settings: Settings) -> None:
        if not self.active:
            self._hide()

    # -- the windows ------------------------------------------------------------------

    def _build(self) -> None:
        if self.overlays:
            return
        from ui.screen.overlay import ScreenOverlay
        from ui.screen.pill import ControlPill

        for screen in QGuiApplication.screens():
            self.overlays.append(ScreenOverlay(screen))
            pill = ControlPill(self.stop, on_take_over=self.hand.take_over, on_resume=self.resume)
            pill.set_holder(self.hand.holder)
            pill.place(screen)
            self.pills.append(pill)

    def _show(self) -> None:
        if self.captures or not self.active:
            return
        self._build()
        drawing = self.enabled and bool(self.controlling)  # else only the pill, for Resume
        for overlay in self.overlays:
            if not drawing:
                continue
            overlay.set_bordered(True)
            if not overlay.isVisible():
                overlay.show()
            overlay.raise_()
        for pill in self.pills:
            if not pill.isVisible():
                pill.show()
            pill.raise_()

    def _hide(self) -> None:
        for overlay in self.overlays:
            overlay.clear()
        for window in self.windows():
            window.hide()

    def windows(self) -> Iterable[QWidget]:
        return [*self.overlays, *self.pills]

    def visible(self) -> bool:
        return any(window.isVisible() for window in self.windows())

    def _screens_changed(self, _screen: QScreen) -> None:
        """A display came or went: rebuild the windows, one per display."""
        shown = self.visible()
        for window in self.windows():
            window.hide()
            window.deleteLater()
        self.overlays, self.pills = [], []
        if shown:
            self._show()

    def _restyle(self, *_args: object) -> None:
        for pill in self.pills:
            pill.restyle()
        for overlay in self.overlays:
            overlay.update()

    # -- around a capture --------------------------------------------------------------

    async def hide_for_capture(self) -> None:
        """Before the driver reads pixels: out of the picture, and wait until it is."""
        self.captures += 1
        now = time.monotonic()
        if self.visible():
            for window in self.windows():
                window.hide()
            self._clear_at = now + CAPTURE_SETTLE
        if self._clear_at > now:  # hidden a moment ago, maybe for another chat's capture
            await asyncio.sleep(self._clear_at - now)

    def show_after_capture(self) -> None:
        self.captures = max(0, self.captures - 1)
        if shiboken6.isValid(self):
            self._show()

    # -- who has the controls ----------------------------------------------------------

    def _hand_changed(self, state: HandState) -> None:
        if not shiboken6.isValid(self):
            return
        for pill in self.pills:
            pill.set_holder(state.holder)
        if state.holder != "claude":
            self._show()
        elif not self.active:
            self._hide()

    def resume(self) -> None:
        """Resume or Hand back: Claude continues, and looks again first."""
        self.hand.resume()

    # -- Stop -------------------------------------------------------------------------

    def stop(self) -> None:
        """The pill's Stop: every chat controlling the screen stops its turn now, paused or
        not."""
        for session_id in sorted(self.controlling) or list(self.workspace.conversations.running):
            self.workspace.conversations.stop(session_id)
        self.hand.release()

    def close(self) -> None:
        """The window is closing: let go of the screen's hooks and the windows."""
        if self._closed:
            return
        self._closed = True
        control = self.workspace.screen_hooks
        if self.show_event in control.listeners:
            control.listeners.remove(self.show_event)
        if control.before_capture == self.hide_for_capture:
            control.before_capture = None
        if control.after_capture == self.show_after_capture:
            control.after_capture = None
        if self._hand_changed in self.hand.listeners:
            self.hand.listeners.remove(self._hand_changed)
        self._unsubscribe()
        if self._settings_changed in self.workspace.live.listeners:
            self.workspace.live.listeners.remove(self._settings_changed)
        for window in self.windows():
            window.hide()
            window.deleteLater()
        self.overlays, self.pills = [], []
