"""The routine sheets keep their width whatever a routine holds (an address with no space to
wrap at, a long typed text), and show what a page or the model wrote as written: every
character of a step's input in sight, tags in its words as text."""

from __future__ import annotations

import json

from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel

from desktop.routines.model import Routine, Step
from desktop.routines.record import Draft, TypedText
from tools.meaning import TargetMeaning
from ui.sheets.routines.keep import KeepRoutineSheet
from ui.sheets.routines.parts import SHEET_WIDTH, Scrolled
from ui.sheets.routines.save import SaveRoutineSheet

LONG_URL = "https://docs.example/" + "a" * 300 + "?q=\u202e"
WORDS = f"Open <b>{LONG_URL}</b>"


def step() -> Step:
    return Step(
        source="browser",
        member="navigate",
        toolset_name="browser",
        words=WORDS,
        target=TargetMeaning(role="link", name="<img src=x>", url=LONG_URL),
        input={"url": LONG_URL},
    )


def widest_word(label: QLabel) -> int:
    """The widest a wrapped label can be: its longest word (it breaks only at spaces)."""
    words = [word for line in label.text().split("\n") for word in line.split(" ")]
    return max(label.fontMetrics().horizontalAdvance(word) for word in words)


def shown_text(tip: str) -> str:
    document = QTextDocument()
    document.setHtml(tip)
    return document.toPlainText()


def test_the_keep_sheet_keeps_its_width_and_shows_every_character(qtbot, workspace) -> None:  # type: ignore[no-untyped-def]
    routine = Routine(name="Docs", task=f"Open {LONG_URL}", steps=[step()])
    sheet = KeepRoutineSheet(routine)
    qtbot.addWidget(sheet)
    sheet.show()
    qtbot.waitExposed(sheet)
    assert sheet.width() <= SHEET_WIDTH + 40
    [words] = sheet.steps
    assert words.text().startswith("1. Open <b>https://docs.example/aaa") and "…" in words.text()
    [exact] = [label for label in sheet.findChildren(QLabel) if "navigate" in label.text()]
    # Nothing runs past the sheet's edge, where it would be cut off unseen.
    room = sheet.findChild(Scrolled).viewport().width()
    for label in (words, exact, sheet.task):
        assert widest_word(label) <= room, label.text()
    line = exact.text()
    # Broken into lines, but whole: the escaped right-to-left mark is there too.
    assert line.replace("\n", "") == 'browser · navigate {"url": ' + json.dumps(LONG_URL) + "}"
    assert "\\u202e" in line


def test_the_save_sheet_keeps_its_width_and_its_tips_are_text(qtbot, workspace) -> None:  # type: ignore[no-untyped-def]
    draft = Draft(
        session_id=1,
        name="Docs",
        task="Open the docs",
        steps=[step()],
        typed=[TypedText(step=0, key="url", text=LONG_URL)],
    )
    sheet = SaveRoutineSheet(draft, workspace.routines)
    qtbot.addWidget(sheet)
    sheet.show()
    qtbot.waitExposed(sheet)
    assert sheet.width() <= SHEET_WIDTH + 40
    [box] = sheet.step_boxes
    [row] = sheet.typed_rows
    room = sheet.findChild(Scrolled).viewport().width()
    assert "…" in box.text() and box.sizeHint().width() <= room
    assert widest_word(row.label) + row.field.minimumSizeHint().width() <= room
    assert shown_text(box.toolTip()) == f"1. {WORDS}\nlink “<img src=x>” on {LONG_URL}"
    assert shown_text(row.label.toolTip()) == LONG_URL
