"""Files the person attaches to a message: images, PDFs and text files, made ready for the model.

An attachment is prepared when it is attached (read, checked, images bounded like
screenshots) and kept as a file under the data dir, so sending is instant and the
chat keeps working after the original is moved. In a stored user message each one is
a content block with its display details under ATTACHMENT_KEY (never sent):

- an image: an image block with `deskhand_image` (see `desktop.chat.images`), so it is
  bounded, pruned and hydrated exactly like a screenshot;
- a PDF: a document block with DOCUMENT_KEY, hydrated to base64 when a request is built;
- a text file: a text block holding the file's text, wrapped with its name.
"""

from __future__ import annotations

import asyncio
import base64
import mimetypes
import shutil
import uuid
from pathlib import Path
from typing import Any, Literal

from desktop.chat import images
from desktop.system.message_text import ATTACHMENT_KEY
from tools.data import Data

DOCUMENT_KEY = "deskhand_document"
IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/tiff"}
MAX_IMAGE_BYTES = 40 * 1024 * 1024
MAX_PDF_BYTES = 20 * 1024 * 1024  # base64 adds a third; the API takes 32 MB per request
MAX_TEXT_BYTES = 200 * 1024  # about 50,000 tokens
PDF_GONE = "[This PDF is no longer on disk.]"

Kind = Literal["image", "pdf", "text"]


class AttachmentError(Exception):
    """A file that cannot be attached; `str(error)` says why, for the person.

    Not an `errors.AppError`: that module loads the SDK, which the window must not wait for.
    """


class Attachment(Data):
    """One attached file as kept: what the chip and the sent message show."""

    kind: Kind
    name: str
    path: str  # the kept copy under the data dir
    media_type: str
    size: int
    width: int | None = None
    height: int | None = None
    model_path: str | None = None  # an image's bounded copy, when it had to be scaled
    text: str | None = None  # a text file's contents


def _kind_of(name: str, head: bytes) -> tuple[Kind, str] | None:
    guessed = mimetypes.guess_type(name)[0] or ""
    if head.startswith(b"%PDF-") or guessed == "application/pdf":
        return "pdf", "application/pdf"
    if guessed in IMAGE_TYPES or head.startswith((b"\x89PNG", b"\xff\xd8\xff", b"GIF8")):
        return "image", guessed or "image/png"
    if b"\x00" not in head:
        return "text", guessed or "text/plain"
    return None


def _prepare(data: bytes, name: str, folder: Path) -> Attachment:
    """Check and keep one file's bytes (CPU and disk work: runs in a thread)."""
    found = _kind_of(name, data[:1024])
    if found is None:
        raise AttachmentError(f"{name}: only images, PDFs and text files can be attached.")
    kind, media_type = found
    folder.mkdir(parents=True, exist_ok=True)
    stem = uuid.uuid4().hex[:12]
    suffix = Path(name).suffix.lower() or mimetypes.guess_extension(media_type) or ""
    path = folder / f"{stem}{suffix}"
    if kind == "image":
        if len(data) > MAX_IMAGE_BYTES:
            raise AttachmentError(f"{name}: images up to 40 MB can be attached.")
        try:
            bounded, model_type, width, height = images.bound(data, media_type)
        except Exception as exc:  # Pillow raises many kinds for a file it cannot read
            raise AttachmentError(f"{name}: this image could not be read.") from exc
        path.write_bytes(data)
        model_path = path
        if bounded is not data:
            model_path = folder / f"{stem}.model{mimetypes.guess_extension(model_type) or '.png'}"
            model_path.write_bytes(bounded)
        return Attachment(
            kind="image",
            name=name,
            path=str(path),
            media_type=model_type,
            size=len(data),
            width=width,
            height=height,
            model_path=str(model_path),
        )
    if kind == "pdf":
        if len(data) > MAX_PDF_BYTES:
            raise AttachmentError(f"{name}: PDFs up to 20 MB can be attached.")
        path.write_bytes(data)
        return Attachment(
            kind="pdf", name=name, path=str(path), media_type=media_type, size=len(data)
        )
    if len(data) > MAX_TEXT_BYTES:
        raise AttachmentError(f"{name}: text files up to 200 KB can be attached.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise AttachmentError(
            f"{name}: only images, PDFs and text files (UTF-8) can be attached."
        ) from exc
    path.write_bytes(data)
    return Attachment(
        kind="text", name=name, path=str(path), media_type=media_type, size=len(data), text=text
    )


async def prepare_file(source: Path, folder: Path) -> Attachment:
    """Attach a file from disk; AttachmentError says why one cannot be attached."""

    def read() -> bytes:
        if not source.is_file():
            raise AttachmentError(f"{source.name}: only files can be attached, not folders.")
        if source.stat().st_size > MAX_IMAGE_BYTES:
            raise AttachmentError(f"{source.name}: this file is too large to attach.")
        return source.read_bytes()

    try:
        data = await asyncio.to_thread(read)
    except OSError as exc:
        raise AttachmentError(f"{source.name}: this file could not be read.") from exc
    return await asyncio.to_thread(_prepare, data, source.name, folder)


async def prepare_data(data: bytes, name: str, folder: Path) -> Attachment:
    """Attach bytes that are not a file yet (a pasted image)."""
    return await asyncio.to_thread(_prepare, data, name, folder)


def discard(attachment: Attachment) -> None:
    """Remove a prepared attachment that will not be sent."""
    for path in {attachment.path, attachment.model_path}:
        if path:
            Path(path).unlink(missing_ok=True)


def move(attachment: Attachment, folder: Path) -> Attachment:
    """The attachment moved into `folder` (its chat's own folder, when it is sent)."""
    folder.mkdir(parents=True, exist_ok=True)
    moved: dict[str, str] = {}
    for key in ("path", "model_path"):
        value = getattr(attachment, key)
        if value and value not in moved:
            target = folder / Path(value).name
            shutil.move(value, target)
            moved[value] = str(target)
    return attachment.model_copy(
        update={
            "path": moved.get(attachment.path, attachment.path),
            "model_path": moved.get(attachment.model_path or "", attachment.model_path),
        }
    )


def files_of(attachment: Attachment) -> list[Path]:
    return [Path(p) for p in dict.fromkeys([attachment.path, attachment.model_path]) if p]


def block(attachment: Attachment) -> dict[str, Any]:
    """How an attachment sits in a stored user message."""
    shown = attachment.model_dump(exclude={"text"})
    if attachment.kind == "image":
        stored = images.stored_image(
            Path(attachment.path),
            Path(attachment.model_path or attachment.path),
            attachment.media_type,
            attachment.width or 0,
            attachment.height or 0,
        )
        return {**stored, ATTACHMENT_KEY: shown}
    if attachment.kind == "pdf":
        return {
            "type": "document",
            "title": attachment.name,
            DOCUMENT_KEY: {"path": attachment.path, "media_type": attachment.media_type},
            ATTACHMENT_KEY: shown,
        }
    text = _text_header(attachment.name) + (attachment.text or "")
    return {"type": "text", "text": text, ATTACHMENT_KEY: shown}


def _text_header(name: str) -> str:
    # The name is the person's data: plain words around it, never markup the model must parse.
    return f"The attached file “{name}” contains:\n\n"


def attachment_in(content_block: dict[str, Any]) -> Attachment | None:
    """The attachment a stored block holds, if it is one."""
    shown = content_block.get(ATTACHMENT_KEY)
    if not isinstance(shown, dict):
        return None
    attachment = Attachment.model_validate(shown)
    if attachment.kind == "text":
        text = str(content_block.get("text", ""))
        attachment.text = text.removeprefix(_text_header(attachment.name))
    return attachment


def hydrate_documents(messages: list[dict[str, Any]]) -> None:
    """Each stored PDF as the API wants it (base64), or a text stub if the file is gone."""
    for message in messages:
        content = message["content"]
        for index, item in enumerate(content):
            info = item.get(DOCUMENT_KEY) if isinstance(item, dict) else None
            if not isinstance(info, dict):
                continue
            try:
                data = Path(info["path"]).read_bytes()
            except OSError:
                content[index] = {"type": "text", "text": PDF_GONE}
                continue
            content[index] = {
                "type": "document",
                "title": str(item.get("title") or "Attached PDF"),
                "source": {
                    "type": "base64",
                    "media_type": info["media_type"],
                    "data": base64.b64encode(data).decode(),
                },
            }
