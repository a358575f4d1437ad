"""Count the imports written inside function bodies in desktop/, tools/ and ui/.

An import inside a function runs when the function first does, not when its module loads:
Deskhand keeps them only where a start-up figure needs it (the window's launch, `deskhand
--version`, `deskhand apps dictionary`). This counts them, so that figure can be measured again:
an `import` or `from … import` statement anywhere under a `def` (nested ones included), but not
under `if TYPE_CHECKING:` at module level, which never runs.

    .venv/bin/python bench/function_imports.py [--list] [--by-file] [--root TREE]

Prints the total and the count per top-level package; `--by-file` a line per file, `--list` a
line per import (file:line and what it imports).
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("desktop", "tools", "ui")


def function_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) of every import statement inside a function body of `tree`."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if in_function and isinstance(child, ast.Import):
                found.append((child.lineno, ", ".join(alias.name for alias in child.names)))
            elif in_function and isinstance(child, ast.ImportFrom):
                module = "." * child.level + (child.module or "")
                names = ", ".join(alias.name for alias in child.names)
                found.append((child.lineno, f"{module}: {names}"))
            visit(child, inside)

    visit(tree, False)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="a line per import")
    parser.add_argument("--by-file", action="store_true", help="a line per file")
    parser.add_argument("--root", type=Path, default=ROOT, help="another checkout to count")
    options = parser.parse_args()
    root = options.root
    per_package: Counter[str] = Counter()
    per_file: Counter[str] = Counter()
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            name = str(path.relative_to(root))
            for line, what in function_imports(ast.parse(path.read_text(), name)):
                per_package[package] += 1
                per_file[name] += 1
                if options.list:
                    print(f"{name}:{line}  {what}")
    if options.by_file:
        for name, count in sorted(per_file.items()):
            print(f"{count:4d}  {name}")
    parts = ", ".join(f"{package}/ {per_package[package]}" for package in PACKAGES)
    print(f"imports inside function bodies: {sum(per_package.values())} ({parts})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
