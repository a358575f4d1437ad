"""A chat of hundreds of browser steps with screenshots opens at once and stays light."""

from __future__ import annotations

import io
import time
from pathlib import Path

from PIL import Image

from desktop.calls.contract import CARD_KEY
from desktop.chat.images import stored_image
from tests.support import seen
from tests.support.seen import cards_in_order
from ui.thread.image_viewer import ImageThumbnail
from ui.thread.tool_card import ToolRun

STEPS = 120


def add_browsing_chat(workspace, folder: Path, *, words: bool = True) -> int:  # type: ignore[no-untyped-def]
    """One prompt answered by STEPS screenshot steps, stored as the app stores them; with
    `words`, each step says a few words before its call."""
    store = workspace.store
    sid = store.create_session("Browsing").id
    folder.mkdir(parents=True)
    out = io.BytesIO()
    Image.new("RGB", (1280, 800), (230, 240, 250)).save(out, format="PNG")
    store.add_message(sid, "user", [{"type": "text", "text": "Look at every page"}])
    for step in range(STEPS):
        path = folder / f"shot-{step}.png"
        path.write_bytes(out.getvalue())
        use = f"toolu_{step:04d}"
        store.add_message(
            sid,
            "assistant",
            [
                *([{"type": "text", "text": f"Page {step}."}] if words else []),
                {"type": "tool_use", "id": use, "name": "screenshot", "input": {}},
            ],
        )
        card = {"label": f"Step {step}", "summary": "", "outcome": "ok", "result": ""}
        store.add_message(
            sid,
            "user",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": use,
                    "content": [stored_image(path, path, "image/png", 1280, 800)],
                    CARD_KEY: card,
                }
            ],
        )
    store.add_message(sid, "assistant", [{"type": "text", "text": "All pages seen."}])
    return sid


def test_a_chat_of_many_screenshot_steps_opens_at_its_end_and_fills_in(  # type: ignore[no-untyped-def]
    qtbot, window, workspace, tmp_path
):
    sid = add_browsing_chat(workspace, tmp_path / "shots")
    started = time.monotonic()
    window.open_session(sid)
    opened = time.monotonic() - started
    thread = window.thread
    # The newest steps are there at once, not all of the one long turn.
    assert "All pages seen." in seen.text(thread)
    assert thread.loading_history
    shown_at_once = cards_in_order(window)
    assert 0 < len(shown_at_once) < STEPS / 2
    assert opened < 1.0, f"opening took {opened:.2f} s"

    with qtbot.waitSignal(thread.history_loaded, timeout=30_000):
        pass
    cards = cards_in_order(window)
    assert [c.title.text() for c in cards] == [f"Step {n}" for n in range(STEPS)]
    assert all(len(c.thumbnails) == 1 for c in cards)
    # Compact cards keep their screenshots closed: nothing is decoded until one is opened.
    assert not any(t.decoded for t in thread.findChildren(ImageThumbnail))
    # Opened, only the thumbnails that were painted (on screen) are decoded.
    cards[-1].set_expanded(True)
    thread.verticalScrollBar().setValue(thread.verticalScrollBar().maximum())
    qtbot.waitUntil(lambda: any(t.decoded for t in thread.findChildren(ImageThumbnail)))
    decoded = [t for t in thread.findChildren(ImageThumbnail) if t.decoded]
    assert len(decoded) < 10


def test_a_long_run_of_steps_without_words_opens_at_its_end_as_one_run(  # type: ignore[no-untyped-def]
    qtbot, window, workspace, tmp_path
):
    sid = add_browsing_chat(workspace, tmp_path / "shots", words=False)
    started = time.monotonic()
    window.open_session(sid)
    opened = time.monotonic() - started
    thread = window.thread
    assert 0 < len(cards_in_order(window)) < STEPS / 2  # the newest steps, not all at once
    assert opened < 1.0, f"opening took {opened:.2f} s"
    with qtbot.waitSignal(thread.history_loaded, timeout=30_000):
        pass
    # Filled in above, the older steps join the run in front, in order, as live.
    [run] = [item for item in thread.items() if isinstance(item, ToolRun)]
    assert [c.title.text() for c in run.cards()] == [f"Step {n}" for n in range(STEPS)]
    assert (run.title.text(), run.state.text()) == (f"{STEPS} steps", "Done")
