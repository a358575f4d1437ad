"""A chat exported as Markdown, with its images and attached files in a folder beside it.

It writes what the thread shows, from the same replayed events (desktop/chat/transcript.py):
the person's messages and attachments, Claude's replies, each tool call as a quoted
line with its outcome and screenshots, and where a turn failed or was stopped. The versions Edit or Regenerate replaced are
quoted where they were replaced, just above the message that replaced them, each marked
as an earlier version with its number. `notes.md` gets `notes_files/` next to it, and
links to it are relative, so the pair can be moved or zipped together.
"""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path
from urllib.parse import quote

from desktop.chat import events

OUTCOME_WORDS = {
    "ok": "done",
    "error": "failed",
    "denied": "denied by you",
    "blocked": "blocked by your rule",
    "stopped": "stopped",
}


class _Files:
    """Copies files into the folder beside the Markdown, each under a unique name."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.count = 0

    def link(self, source: str, name: str | None = None) -> str | None:
        path = Path(source)
        if not path.is_file():
            return None
        self.count += 1
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self.folder / f"{self.count:03d}-{name or path.name}"
        shutil.copyfile(path, target)
        return f"{quote(self.folder.name)}/{quote(target.name)}"


def _quoted(text: str) -> list[str]:
    """Markdown lines as a block quote."""
    return [f"> {line}" if line.strip() else ">" for line in text.strip().splitlines()]


def _label(text: str) -> str:
    """Text safe inside a Markdown link label."""
    return text.replace("[", "(").replace("]", ")").replace("\n", " ")


def to_markdown(title: str, turns: list[list[events.AgentEvent]], target: Path) -> None:
    """Write the chat to `target` (a .md file) and its files to `<stem>_files/` beside it."""
    folder = target.with_name(f"{target.stem}_files")
    if folder.exists():
        shutil.rmtree(folder)
    writer = _Writer(_Files(folder))
    writer.lines += [
        f"# {title}",
        "",
        f"*Exported from Deskhand on {datetime.now().strftime('%Y-%m-%d %H:%M')}*",
    ]
    for turn in turns:
        writer.turn(turn)
    target.write_text("\n".join(writer.lines).rstrip() + "\n", encoding="utf-8")


class _Writer:
    def __init__(self, files: _Files) -> None:
        self.files = files
        self.lines: list[str] = []
        self.cards: dict[str, events.ToolStarted] = {}
        self.reply: list[str] = []
        self.speaker = ""

    def say(self, who: str) -> None:
        if self.speaker != who:
            if self.lines and self.lines[-1]:
                self.lines.append("")
            self.lines.extend([f"### {who}", ""])
            self.speaker = who

    def flush(self) -> None:
        if "".join(self.reply).strip():
            self.say("Claude")
            self.lines.extend(["".join(self.reply).strip(), ""])
        self.reply.clear()

    def turn(self, turn: list[events.AgentEvent]) -> None:
        self.speaker = ""
        for event in turn:
            if isinstance(event, events.TextDelta):
                self.reply.append(event.text)
                continue
            self.flush()
            if isinstance(event, events.PromptAdded):
                self.prompt(event)
            elif isinstance(event, events.EarlierVersions):
                self.earlier(event)
            elif isinstance(event, events.ToolStarted):
                self.cards[event.tool_use_id] = event
            elif isinstance(event, events.ToolFinished):
                self.tool(event)
            elif isinstance(event, events.MessageCommitted) and event.status != "complete":
                ended = "stopped" if event.status == "stopped" else "interrupted"
                self.lines.extend([f"*({ended})*", ""])
            elif isinstance(event, events.ReplyContinued):
                self.lines.extend(["*(continued)*", ""])
            elif isinstance(event, events.TurnFinished) and event.notice:
                self.lines.extend([f"*{event.notice}*", ""])
            elif isinstance(event, events.TurnFailed):
                self.lines.extend([f"*({event.title}: {event.detail})*", ""])
            elif isinstance(event, events.TurnStopped) and self.lines[-2:] != ["*(stopped)*", ""]:
                self.lines.extend(["*(stopped)*", ""])
        self.flush()

    def prompt(self, event: events.PromptAdded) -> None:
        self.say("You")
        for attachment in event.attachments:
            link = self.files.link(attachment.path, attachment.name)
            name = _label(attachment.name)
            if link is None:
                self.lines.append(f"*{name} (no longer on disk)*")
            elif attachment.kind == "image":
                self.lines.append(f"![{name}]({link})")
            else:
                self.lines.append(f"[{name}]({link})")
            self.lines.append("")
        if event.text.strip():
            self.lines.extend([event.text.strip(), ""])

    def earlier(self, event: events.EarlierVersions) -> None:
        """The replaced versions, quoted, oldest first, before the message now current."""
        total = len(event.order())
        current = event.number_of(event.current_id)
        if self.lines and self.lines[-1]:
            self.lines.append("")
        for version in sorted(event.versions, key=lambda v: v.message_id):
            number = event.number_of(version.message_id)
            self.lines += [
                f"> **Earlier version {number} of {total}** "
                f"*(replaced; version {current} follows)*",
                ">",
            ]
            # Edit and Regenerate keep attachments: only words that changed are repeated.
            if version.prompt.strip() and version.prompt != event.current_prompt:
                self.lines += ["> **You:**", ">", *_quoted(version.prompt), ">"]
            self.lines += ["> **Claude:**", ">", *_quoted(version.reply or "*(no answer)*")]
            if version.steps:
                steps = f"{version.steps} tool step" + ("s" if version.steps > 1 else "")
                self.lines += [">", f"> *({steps} not shown)*"]
            self.lines.append("")
        self.speaker = ""  # the current version starts under its own heading

    def tool(self, event: events.ToolFinished) -> None:
        self.say("Claude")
        started = self.cards.get(event.tool_use_id)
        label = started.label if started else "Tool"
        summary = f" — {started.summary}" if started and started.summary else ""
        words = OUTCOME_WORDS.get(event.outcome, event.outcome)
        self.lines.append(f"> **{label}**{summary} ({words})")
        for number, image in enumerate(event.images, start=1):
            if link := self.files.link(image):
                self.lines.extend([">", f"> ![Screenshot {number}]({link})"])
        self.lines.append("")
