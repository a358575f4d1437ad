"""The style rules of the routines' surfaces, apart from their widgets: the window's style sheet
is set before its first paint, and the routines' widgets are made after it, once their modules
are in (ui/routines/window_parts.py)."""

from __future__ import annotations

# The sidebar's section (section.py).
SECTION = """
#routinesSection { border-top: 1px solid $border_soft; }
#routinesHeading { color: palette(placeholder-text); padding: 4px 10px 2px 10px; }
#routinesEmpty { color: $text_faint; padding: 0px 10px 4px 10px; }
#routineRow { border-radius: 6px; }
#routineRow:hover { background: $hover; }
#routineName { color: $text; }
#routineMark { border-radius: 6px; padding: 0px 5px; font-size: 11px; }
#routineMark[kind="running"] { color: $on_accent; background: $accent; }
#routineMark[kind="problem"] { color: $warning_text; background: $warning_bg; }
#routineMark[kind="waiting"] { color: $warning_text; background: $warning_bg; }
#routineMark[kind="scheduled"] { color: $text_muted; background: $raised; }
QPushButton#routineRun { padding: 2px 8px; min-height: 14px; border-radius: 5px; }
QPushButton#routineRun:focus { padding: 1px 7px; }
#routineMenuButton {
    border: none; background: transparent; color: $text_muted; padding: 0px 4px;
}
#routineMenuButton:hover { color: $text; }
"""

# The form that asks for a run's parameters (run_form.py).
RUN_FORM = """
#routineFormHeading { font-weight: bold; font-size: 14px; }
#routineFormAbout { color: $text_muted; }
#routineFormProblem { color: $danger; }
"""

# The bar that offers a healed run's update (update_bar.py).
UPDATE_BAR = """
#routineUpdateBar {
    background: $raised; border: 1px solid $accent; border-radius: 8px; margin-top: 10px;
}
#routineUpdateText { color: $text; }
QPushButton#routineUpdateButton { background: $accent; color: $on_accent; border-color: $accent; }
QPushButton#routineUpdateButton:hover { background: $accent_hover; }
QPushButton#routineUpdateButton:focus { border: 2px solid $text; }
#routineUpdateClose { border: none; background: transparent; color: $text_muted; }
#routineUpdateDiff { background: $code_bg; border: 1px solid $code_border; }
"""

# A routine's page: its schedule and runs (page.py).
PAGE = """
#routinePage { background: $canvas; }
#routinePageHeading { font-size: 20px; font-weight: 600; color: $text; }
#routinePageTask { color: $text_muted; }
#routinePageSection { font-weight: 600; color: $text; }
#routineNextRun { color: $text; }
#routinePageNote { color: $warning_text; background: $warning_bg; border-radius: 6px; padding: 6px 8px; }
#routinePageEmpty { color: $text_faint; }
#routineRunList::item { padding: 5px 8px; }
"""

# The bar of a scheduled run that waits for the person (waiting.py).
WAITING = """
#waitingBar {
    background: $warning_bg; border: 1px solid $border_soft; border-radius: 8px; margin-top: 8px;
}
#waitingText { color: $warning_text; }
"""

# The quick entry's offer of a routine by name (quick_offer.py).
QUICK_OFFER = """
#routineOffer { color: $text_muted; padding: 0px 6px; }
"""
