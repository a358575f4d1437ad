"""The chat threads the window holds: a view per open chat, the draft of a new one, one shown.

Views of recently visited chats are kept, so switching back is instant and keeps error cards;
views of chats with a running turn are never dropped, so a hidden thread keeps rendering its
reply and shows it as it stands when the person comes back.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from PySide6.QtWidgets import QStackedWidget, QWidget

from ui import theme
from ui.thread.view import ThreadView

MAX_CACHED_VIEWS = 8


class ThreadStack(QStackedWidget):
    """The threads, one shown at a time; `make_view` builds a view wired to the window."""

    def __init__(
        self, make_view: Callable[[int | None], ThreadView], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("threadStack")
        theme.FocusRing(self)  # the thread's ring, when it has the keyboard
        self._make_view = make_view
        self._views: OrderedDict[int, ThreadView] = OrderedDict()
        self._draft: ThreadView | None = None

    def current(self) -> ThreadView:
        view = self.currentWidget()
        assert isinstance(view, ThreadView)
        return view

    def view_of(self, session_id: int | None) -> ThreadView | None:
        return self._views.get(session_id) if session_id is not None else None

    def all_views(self) -> list[ThreadView]:
        """Every view held, the draft's included."""
        return [*self._views.values(), *([self._draft] if self._draft else [])]

    def draft(self) -> ThreadView:
        """The thread of a chat not sent yet (made once, until its first message)."""
        if self._draft is None:
            self._draft = self._new_view(None)
        return self._draft

    def opened(self, session_id: int) -> ThreadView:
        """A view for a chat that had none (the caller loads its history)."""
        view = self._views[session_id] = self._new_view(session_id)
        return view

    def revisited(self, session_id: int) -> ThreadView | None:
        """The kept view of a chat, now the most recently visited; None when it has none."""
        view = self._views.get(session_id)
        if view is not None:
            self._views.move_to_end(session_id)
        return view

    def adopt_draft(self, session_id: int) -> ThreadView:
        """The draft's first message made it a chat: its view is that chat's from now on."""
        view = self.draft()
        self._draft = None
        view.session_id = session_id
        self._views[session_id] = view
        return view

    def drop_old(self, current: int | None, running: Callable[[int], bool]) -> None:
        """Let go of the least recently visited idle views beyond the most kept."""
        idle = [sid for sid in self._views if sid != current and not running(sid)]
        for sid in idle[: max(0, len(self._views) - MAX_CACHED_VIEWS)]:
            self.discard(sid)

    def discard(self, session_id: int) -> None:
        view = self._views.pop(session_id, None)
        if view is not None:
            self.removeWidget(view)
            view.deleteLater()

    def _new_view(self, session_id: int | None) -> ThreadView:
        view = self._make_view(session_id)
        self.addWidget(view)
        return view
