"""The main window's style sheet: its own rules and those of every view it holds, as one
template of theme tokens (see ui/theme.py)."""

from __future__ import annotations

from ui import theme
from ui.routines import style as routines_style
from ui.settings import welcome
from ui.sheets import style as sheets_style
from ui.thread import attachment_views, earlier_versions, image_viewer, tool_card
from ui.thread import items as thread_items
from ui.thread import view as thread_view
from ui.thread.markdown import style as markdown_style
from ui.window import banners, composer, session_list
from ui.window import toolbar as window_toolbar

_WINDOW_STYLE = """
QMainWindow { background: $chrome; }
#mainPane { background: $canvas; }
#mainSplitter::handle { background: $sidebar; border-right: 1px solid $border_soft; }
#usageLabel { color: $text_muted; padding-left: 6px; }
#modeToolbar {
    background: $chrome; border: none; border-bottom: 1px solid $border_soft; spacing: 6px;
    padding: 2px 10px;
}
#modeLabel { color: $text_muted; }
"""


STYLE = "\n".join(
    [
        theme.BASE_STYLE,
        _WINDOW_STYLE,
        banners.STYLE,
        session_list.STYLE,
        thread_items.STYLE,
        thread_view.STYLE,
        markdown_style.STYLE,
        tool_card.STYLE,
        composer.STYLE,
        sheets_style.APPROVAL,
        sheets_style.PLAN,
        sheets_style.ROUTINES,
        image_viewer.STYLE,
        welcome.STYLE,
        # Newer surfaces, drawn from the palette's roles so they follow light and dark.
        window_toolbar.STYLE,
        session_list.LIST_STYLE,
        attachment_views.STYLE,
        earlier_versions.STYLE,
        thread_items.ACTIONS_STYLE,
        thread_view.JUMP_STYLE,
        routines_style.SECTION,
        routines_style.RUN_FORM,
        routines_style.UPDATE_BAR,
        routines_style.PAGE,
        routines_style.WAITING,
    ]
)
"""The window's style sheet as a template of theme tokens (see ui/theme.py)."""
