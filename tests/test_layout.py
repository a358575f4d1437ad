"""The test tree keeps the shape of the code: a test module imports shared helpers only from
`tests/support/` or a `conftest.py`, never from another test module, so each test function is
collected once, in the module that defines it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def python_files() -> Iterator[Path]:
    for path in sorted(TESTS.rglob("*.py")):
        if "node_modules" not in path.parts:
            yield path


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imported(path: Path) -> Iterator[tuple[int, str, list[str]]]:
    """Each import of `path`: its line, the absolute module, and the names taken from it."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path.parent)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, module] if module else base)
            yield node.lineno, module, [alias.name for alias in node.names]


def allowed(module: str) -> bool:
    return (
        module in {"tests", "tests.support"}
        or module.startswith("tests.support.")
        or module.rsplit(".", 1)[-1] == "conftest"
    )


def test_tests_import_helpers_only_from_support_and_conftest() -> None:
    found = []
    for path in python_files():
        for line, module, names in imported(path):
            # `from tests.ui.window import test_main_window` takes a module too.
            taken = [module, *(f"{module}.{n}" for n in names if is_module(f"{module}.{n}"))]
            for name in taken:
                if name.split(".")[0] == "tests" and not allowed(name):
                    found.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert found == []


def test_no_test_function_is_imported_into_another_module() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line} imports {name} from {module}"
        for path in python_files()
        for line, module, names in imported(path)
        for name in names
        if name.startswith("test")
    ]
    assert found == []
