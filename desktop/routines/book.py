"""The routine files: one readable JSON file per routine under the data folder, signed.

`routines/NAME.json` holds the routine (`deskhand.routine/1`) and, under `signature`, its code
under Deskhand's key (the permissions' `Seal`). A file Deskhand did not write, or that was
changed outside it, reads as not kept: it runs only after the person keeps it on a sheet that
shows its plan and steps (`keep`). Exports carry no signature, so an imported file is one the
person keeps the same way. A file that does not parse is reported, never dropped.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from desktop.routines.model import NAME_PATTERN, Routine
from desktop.system.settings.signed import Seal
from tools.data import Data

SIGNATURE = "signature"
SUFFIX = ".json"

ErrorCode = Literal["bad_input", "not_found", "already_running", "refused", "not_running"]


class RoutineError(Exception):
    """A routine could not be read, found or run: `message` for the person, `code` for programs."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Stored(Data):
    """A routine as its file holds it: kept (signed by Deskhand) or waiting to be kept."""

    routine: Routine
    kept: bool


class Listed(Data):
    """One file in the routines folder, for lists: its routine, or why it cannot be read."""

    name: str
    routine: Routine | None = None
    kept: bool = False
    problem: str = ""


def unreadable(name: str, why: str) -> RoutineError:
    return RoutineError(
        "bad_input",
        f"The routine file “{name}{SUFFIX}” cannot be read ({why}). Fix or remove it in the "
        "routines folder, or export the routine again.",
    )


def parse(text: str, name: str) -> tuple[Routine, str | None]:
    """A routine file's routine and its signature; RoutineError (`bad_input`) saying why not."""
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise unreadable(name, f"not JSON: line {getattr(exc, 'lineno', '?')}") from None
    if not isinstance(raw, dict):
        raise unreadable(name, "not a JSON object")
    signature = raw.pop(SIGNATURE, None)
    try:
        routine = Routine.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "the file"
        raise unreadable(name, f"{where}: {first.get('msg', 'invalid')}") from None
    return routine, signature if isinstance(signature, str) else None


class RoutineBook:
    """The routines folder: read, save (signed), keep, import, export and remove."""

    def __init__(self, folder: Path, seal: Seal) -> None:
        self.folder = folder
        self.seal = seal

    def path(self, name: str) -> Path:
        if not re.match(NAME_PATTERN, name) or name.strip(" .") != name.strip():
            raise RoutineError(
                "bad_input",
                f"“{name}” cannot be a routine's name: use letters, digits, spaces, dots, dashes "
                "and underscores (at most 80).",
            )
        return self.folder / f"{name}{SUFFIX}"

    def names(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(
            (path.stem for path in self.folder.glob(f"*{SUFFIX}") if not path.name.startswith(".")),
            key=str.casefold,
        )

    def entries(self) -> list[Listed]:
        listed: list[Listed] = []
        for name in self.names():
            try:
                stored = self.load(name)
            except RoutineError as error:
                listed.append(Listed(name=name, problem=error.message))
            else:
                listed.append(Listed(name=name, routine=stored.routine, kept=stored.kept))
        return listed

    def load(self, name: str) -> Stored:
        path = self.path(name)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise RoutineError(
                "not_found",
                f"There is no routine named “{name}”. `deskhand routine list` names them.",
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise unreadable(name, type(exc).__name__) from None
        routine, signature = parse(text, name)
        if routine.name != name:
            raise unreadable(name, f"it names itself “{routine.name}”")
        return Stored(routine=routine, kept=self._signed(routine, signature))

    def _signed(self, routine: Routine, signature: str | None) -> bool:
        return signature is not None and self.seal.good(routine.document(), signature)

    def save(self, routine: Routine) -> Routine:
        """Write the routine, signed: the person made or kept it in Deskhand."""
        path = self.path(routine.name)
        document = routine.document()
        data: dict[str, Any] = {**document, SIGNATURE: self.seal.code(document)}
        self.folder.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.new")
        temporary.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", "utf-8")
        os.replace(temporary, path)  # whole or not at all: a crash never leaves half a routine
        return routine

    def keep(self, routine: Routine) -> Routine:
        """The person kept this routine (shown on the keep sheet): sign it as it is."""
        return self.save(routine)

    def read_file(self, path: Path) -> Routine:
        """A routine file from anywhere (File → Import Routine…), not saved until kept."""
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise RoutineError("not_found", f"There is no file {path}.") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise unreadable(path.stem, type(exc).__name__) from None
        routine, _signature = parse(
            text, path.stem
        )  # a signature from elsewhere counts for nothing
        self.path(routine.name)  # its name must make a file name here
        return routine

    def export(self, name: str, destination: Path) -> Path:
        """The routine's file, without its signature (File → Export)."""
        stored = self.load(name)
        destination.write_text(
            json.dumps(stored.routine.document(), indent=2, ensure_ascii=False) + "\n", "utf-8"
        )
        return destination

    def remove(self, name: str) -> None:
        path = self.path(name)
        if not path.exists():
            raise RoutineError("not_found", f"There is no routine named “{name}”.")
        path.unlink()
