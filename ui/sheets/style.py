"""The sheets' rules in the window's style sheet (a template of theme tokens, ui/theme.py).

Here, apart from the sheets themselves, so that the window's style sheet is whole from the
start while the sheets' modules load only when the first one opens."""

from __future__ import annotations

APPROVAL = """
#riskBadge { border-radius: 8px; padding: 2px 8px; }
#riskBadge[risk="read"] { color: $read_fg; background: $read_bg; }
#riskBadge[risk="change"] { color: $change_fg; background: $change_bg; }
#riskBadge[risk="consequential"] { color: $consequential_fg; background: $consequential_bg; }
#approvalInput { background: $code_bg; border: 1px solid $code_border; }
#approvalPlanNote { color: $change_fg; font-weight: bold; }
"""

PLAN = """
#planHeading { font-weight: bold; }
QPushButton#approvePlan { background: $accent; color: $on_accent; border-color: $accent; }
QPushButton#approvePlan:hover { background: $accent_hover; }
QPushButton#approvePlan:disabled { background: $surface; color: $text_faint; border-color: $border; }
#planStep { margin-left: 8px; }
#planItem { margin-left: 8px; }
#planChip { border: 1px solid $border; border-radius: 12px; background: $raised; }
#planChip QToolButton { border: none; padding: 3px 6px; color: $text; background: transparent; }
#planChip QToolButton#planChipEnd { color: $link; }
#planChip QToolButton:hover { text-decoration: underline; }
"""

ROUTINES = """
#routineHeading { font-weight: bold; }
#routineStep { margin-left: 8px; }
#routineItem { margin-left: 8px; }
#routineTarget { margin-left: 26px; }
#routineInput { margin-left: 26px; color: $text_muted; }
#routineDropped { margin-left: 8px; }
#routineTyped { margin-left: 8px; }
#routineError { color: $danger; }
#routineScroll, #routineBody { background: transparent; }
QPushButton#saveRoutine { background: $accent; color: $on_accent; border-color: $accent; }
QPushButton#saveRoutine:hover { background: $accent_hover; }
QPushButton#saveRoutine:disabled { background: $surface; color: $text_faint; border-color: $border; }
"""
