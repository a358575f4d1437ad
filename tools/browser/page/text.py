"""The page scripts the driver runs (constants: values travel as arguments) and text bounding.

`PAGE_TEXT_SCRIPT` returns the readable text of a page, preferring its main content;
`RUN_SCRIPT` evaluates the model's `javascript_exec` code, passed in as an argument, and
reports a thrown error by its name only. `bound_text` cuts what the model reads to about
20,000 characters and says how much was left out.
"""

from __future__ import annotations

import re

__all__ = ["PAGE_TEXT_CAP", "PAGE_TEXT_SCRIPT", "RUN_SCRIPT", "bound_text"]

PAGE_TEXT_CAP = 20_000

# The largest of <main>, [role=main] and <article> when it holds most of the text, else <body>:
# that keeps navigation, footers and cookie banners out of an article.
PAGE_TEXT_SCRIPT = """() => {
  const body = document.body;
  if (!body) return document.documentElement ? document.documentElement.innerText : "";
  const whole = body.innerText || "";
  let best = null, bestLength = 0;
  for (const candidate of document.querySelectorAll("main, [role=main], article")) {
    const length = (candidate.innerText || "").length;
    if (length > bestLength) { best = candidate; bestLength = length; }
  }
  const title = document.title ? document.title + "\\n\\n" : "";
  if (best && bestLength >= 0.3 * whole.length && bestLength > 200) return title + best.innerText;
  return title + whole;
}"""

RUN_SCRIPT = """async (code) => {
  try {
    const value = await (0, eval)(code);
    return value === undefined ? { ok: true, undefined: true } : { ok: true, value };
  } catch (error) {
    const name = error && typeof error.name === "string" ? error.name : "Error";
    return { ok: false, name };
  }
}"""

_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*){2,}")
_TRAILING = re.compile(r"[ \t]+\n")


def bound_text(text: str, *, what: str, cap: int = PAGE_TEXT_CAP) -> str:
    """`text` tidied (no runs of blank lines) and cut to `cap` characters with a marker."""
    text = _BLANK_LINES.sub("\n\n", _TRAILING.sub("\n", text)).strip()
    if not text:
        return f"(the {what} is empty)"
    if len(text) <= cap:
        return text
    cut = text.rfind("\n", 0, cap)
    cut = cut if cut > cap * 0.8 else cap
    rest = len(text) - cut
    return (
        text[:cut].rstrip()
        + f"\n[… {rest:,} more characters of {what} cut. Use read_page, find or scroll for the rest.]"
    )
