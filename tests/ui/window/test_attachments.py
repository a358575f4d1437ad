"""Attaching files (button, drop, paste), how they show, and exporting a chat, in the real window."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QDragEnterEvent, QDropEvent, QGuiApplication, QImage
from PySide6.QtWidgets import QApplication, QFileDialog

from tests.support.attachments import make_files
from tests.support.model_server import text_reply
from tests.support.window import finish_turn, settle, type_and_send
from ui.thread.attachment_views import AttachmentStrip
from ui.window.main_window import MainWindow


def chips_ready(window: MainWindow, count: int) -> bool:
    chips = window.composer.chips
    return len(chips) == count and all(chip.ready or chip.error for chip in chips)


def drop(window: MainWindow, data: QMimeData) -> bool:
    """Drag `data` over the thread and drop it, as a file manager would."""
    target = window.thread
    at = QPointF(target.mapTo(window, target.rect().center()))
    actions = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(
        at.toPoint(), actions, data, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(window, enter)
    if not enter.isAccepted():
        return False
    QApplication.sendEvent(
        window,
        QDropEvent(at, actions, data, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier),
    )
    return True


def test_files_from_the_attach_button_show_as_chips_then_in_the_sent_message(  # type: ignore[no-untyped-def]
    qtbot, window, workspace, model_server, aloop, tmp_path
):
    files = make_files(tmp_path)
    model_server.enqueue(text_reply("Three files, seen."))
    qtbot.mouseClick(window.composer.attach_button, Qt.MouseButton.LeftButton)
    dialog = window.composer.file_dialog
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    assert dialog.fileMode() == QFileDialog.FileMode.ExistingFiles
    dialog.filesSelected.emit([str(path) for path in files])  # what choosing three files does
    dialog.close()
    settle(aloop, lambda: chips_ready(window, 3), "the chips")
    chips = window.composer.chips
    assert window.composer.tray_area.isVisible()
    assert [chip.name.text() for chip in chips] == ["screen shot.png", "invoice.pdf", "notes.txt"]
    assert chips[0].detail.text().startswith("Image · ")
    assert chips[1].detail.text() == "PDF · 27 B"

    type_and_send(qtbot, window, "What are these?")
    assert window.composer.chips == [] and not window.composer.tray_area.isVisible()
    finish_turn(aloop, window)
    [bubble] = window.thread.bubbles()
    assert bubble.attachments is not None
    assert bubble.attachments.names() == ["screen shot.png", "invoice.pdf", "notes.txt"]
    assert len(bubble.attachments.thumbnails) == 1 and len(bubble.attachments.chips) == 2
    assert bubble.attachments.thumbnails[0].isVisible()
    content = model_server.message_requests[0]["messages"][0]["content"]
    assert [block["type"] for block in content] == ["image", "document", "text", "text"]

    # Reopened, the message shows the same attachments.
    reopened = MainWindow(workspace)
    qtbot.addWidget(reopened)
    reopened.open_session(window.current_session_id)
    [strip] = reopened.thread.findChildren(AttachmentStrip)
    assert strip.names() == bubble.attachments.names()
    assert len(strip.thumbnails) == 1


def test_dropped_files_are_attached(qtbot, window, model_server, aloop, tmp_path):  # type: ignore[no-untyped-def]
    files = make_files(tmp_path)
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(path)) for path in files[:2]])
    assert drop(window, data)
    settle(aloop, lambda: chips_ready(window, 2), "the chips")
    assert [a.name for a in window.composer.attachments()] == ["screen shot.png", "invoice.pdf"]
    plain = QMimeData()
    plain.setText("just words")
    assert not drop(window, plain)  # text is not a file: the window does not take it


def test_a_pasted_image_is_attached_and_pasted_text_is_still_text(  # type: ignore[no-untyped-def]
    qtbot, window, model_server, aloop
):
    image = QImage(64, 48, QImage.Format.Format_RGB32)
    image.fill(QColor("orange"))
    QGuiApplication.clipboard().setImage(image)
    window.composer.editor.setFocus()
    window.composer.editor.paste()
    settle(aloop, lambda: chips_ready(window, 1), "the pasted image")
    [attachment] = window.composer.attachments()
    assert attachment.name == "Pasted image.png" and (attachment.width, attachment.height) == (
        64,
        48,
    )
    assert window.composer.text() == ""
    QGuiApplication.clipboard().setText("some words")
    window.composer.editor.paste()
    assert window.composer.text() == "some words"

    model_server.enqueue(text_reply("An orange rectangle."))
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    finish_turn(aloop, window)
    content = model_server.message_requests[0]["messages"][0]["content"]
    assert [block["type"] for block in content] == ["image", "text"]


def test_a_file_that_cannot_go_says_why_and_a_removed_one_is_not_sent(  # type: ignore[no-untyped-def]
    qtbot, window, workspace, model_server, aloop, tmp_path
):
    archive = tmp_path / "backup.zip"
    archive.write_bytes(b"PK\x03\x04\x00\x00\x00binary")
    image, pdf, _ = make_files(tmp_path)
    window.composer.attach_paths([archive, image, pdf])
    settle(aloop, lambda: chips_ready(window, 3), "the chips")
    refused, kept, removed = window.composer.chips
    assert refused.error and "only images, PDFs and text files" in refused.detail.text()
    assert removed.attachment is not None
    pending = Path(removed.attachment.path)
    assert pending.is_file()
    qtbot.mouseClick(removed.remove, Qt.MouseButton.LeftButton)
    assert not pending.exists() and len(window.composer.chips) == 2

    model_server.enqueue(text_reply("One image."))
    type_and_send(qtbot, window, "Look")
    finish_turn(aloop, window)
    content = model_server.message_requests[0]["messages"][0]["content"]
    assert [block["type"] for block in content] == ["image", "text"]
    assert kept.attachment is not None


def test_export_writes_markdown_with_its_images_beside_it(  # type: ignore[no-untyped-def]
    qtbot, window, model_server, aloop, tmp_path
):
    image, _, _ = make_files(tmp_path)
    window.composer.attach_paths([image])
    settle(aloop, lambda: chips_ready(window, 1), "the chip")
    model_server.enqueue(text_reply("A **blue** screen."))
    type_and_send(qtbot, window, "What is this?")
    finish_turn(aloop, window)

    assert window.export_action.text().startswith("&Export Chat")
    window.export_action.trigger()
    dialog = window.chat_export.dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.selectedFiles()[0].endswith("What is this.md")
    dialog.close()

    target = tmp_path / "out" / "My chat.md"
    target.parent.mkdir()
    assert window.chat_export.write(window.current_session_id, target)
    text = target.read_text()
    assert text.startswith("# What is this?\n")
    assert "### You\n\n![screen shot.png](My%20chat_files/001-screen%20shot.png)" in text
    assert "What is this?\n\n### Claude\n\nA **blue** screen." in text
    copied = target.parent / "My chat_files" / "001-screen shot.png"
    assert copied.read_bytes() == image.read_bytes()
