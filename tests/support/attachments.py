"""Files a person attaches in the window's tests: a screenshot too large to send as it is, a PDF
and a text note."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image


def make_files(folder: Path) -> list[Path]:
    image = folder / "screen shot.png"
    out = io.BytesIO()
    Image.new("RGB", (2400, 1600), (20, 120, 200)).save(out, format="PNG")
    image.write_bytes(out.getvalue())
    pdf = folder / "invoice.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%a small document\n")
    notes = folder / "notes.txt"
    notes.write_text("buy milk\n")
    return [image, pdf, notes]
