"""The JXA scripts: valid syntax, data in and never code, and the worker loop as plain JavaScript."""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.jxa.forbidden import FORBIDDEN_JS
from tests.support.jxa.world import STANDIN_DIR
from tools.mac.osa.engine import SCRIPTS_DIR, WORKER_SCRIPT

from .conftest import TEST_SCRIPTS, needs_node

REPO = Path(__file__).resolve().parents[4]
ACTION_SCRIPTS = sorted(
    path
    for path in SCRIPTS_DIR.rglob("*.js")
    if path != WORKER_SCRIPT and not path.name.startswith("_")
)
PRELUDES = sorted(SCRIPTS_DIR.rglob("_prelude.js"))
ALL_JS = [
    *SCRIPTS_DIR.rglob("*.js"),
    *STANDIN_DIR.glob("*.js"),
    STANDIN_DIR / "osascript",
    *(path for path in TEST_SCRIPTS.glob("*.js") if path.name != "broken.js"),
]
PYTHON_SOURCES = [
    *sorted((REPO / "tools" / "mac" / "osa").glob("*.py")),
    *(
        REPO / "tools" / "mac" / name
        for name in ("macos.py", "apps.py", "desktop_context.py", "action_table.py")
    ),
    *sorted((REPO / "tools" / "mac" / "tabs").glob("*.py")),
]
# Safari runs page JavaScript only through doJavaScript; page.js makes exactly one such call,
# fed by the approved run_js code or a constant page function (tests/tools/mac/test_tabs.py).
PAGE_SCRIPT_ALLOWED = {"doJavaScript"}


@needs_node
@pytest.mark.parametrize("script", ALL_JS, ids=lambda path: str(path.relative_to(REPO)))
def test_node_check(script: Path) -> None:
    result = subprocess.run(["node", "--check", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("tool", ["macos", "apps", "tabs"])
def test_every_action_the_tool_names_has_a_script(tool: str) -> None:
    from importlib import import_module

    table = import_module(f"tools.mac.{tool}").ACTIONS
    for spec in table:
        assert SCRIPTS_DIR.joinpath(*spec.script.split("/")).with_suffix(".js").is_file()


# --- data in, never code: the JavaScript side ----------------------------------------------


@pytest.mark.parametrize("script", ACTION_SCRIPTS, ids=lambda path: path.name)
def test_action_scripts_take_one_json_argument_and_run_no_code(script: Path) -> None:
    source = script.read_text(encoding="utf-8")
    assert "function run(argv)" in source
    assert "JSON.parse(argv[0])" in source
    assert len(re.findall(r"\bargv\b", source)) == 2  # declared, then parsed: nothing else
    assert "eval" not in source
    allowed = PAGE_SCRIPT_ALLOWED if script == SCRIPTS_DIR / "tabs" / "page.js" else set()
    for token in FORBIDDEN_JS:
        if token not in allowed:
            assert token not in source


@pytest.mark.parametrize("prelude", PRELUDES, ids=lambda path: str(path.relative_to(SCRIPTS_DIR)))
def test_a_prelude_takes_no_input_and_runs_no_code(prelude: Path) -> None:
    source = prelude.read_text(encoding="utf-8")
    assert not re.search(r"\bargv\b", source) and not re.search(r"\bfunction run\(", source)
    assert "eval" not in source
    for token in FORBIDDEN_JS:
        assert token not in source


def test_the_worker_evaluates_only_script_files() -> None:
    source = WORKER_SCRIPT.read_text(encoding="utf-8")
    for token in FORBIDDEN_JS:
        assert token not in source
    assert source.count("eval(") == 1
    assert "eval(source);" in source  # inside compileAction, fed only by io.readScript
    assert re.search(r"var source = io\.readScript\(request\.script\);", source)
    assert "var SCRIPT_NAME = /^[a-z0-9][a-z0-9_]*(\\/[a-z0-9][a-z0-9_]*)*$/;" in source
    # The one other file it reads: the folder's prelude, by a name no request can give.
    assert 'io.readScript(request.script.slice(0, folder) + "/_prelude")' in source


# --- data in, never code: the Python side --------------------------------------------------

JS_MARKERS = re.compile(r"function\s*\w*\s*\(|Application\(|ObjC\.|\$\.NS|=>|\.whose\(|JSON\.parse")


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


@pytest.mark.parametrize("source", PYTHON_SOURCES, ids=lambda path: path.name)
def test_python_holds_no_script_text_and_writes_no_files(source: Path) -> None:
    tree = ast.parse(source.read_text(encoding="utf-8"))
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings:
                assert not JS_MARKERS.search(node.value), f"script-like text: {node.value!r}"
        if isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            assert name not in {
                "create_subprocess_shell",
                "system",
                "popen",
                "Popen",
                "write_text",
                "write_bytes",
                "NamedTemporaryFile",
                "mkstemp",
                "open",
            }, f"{source.name}: {name}"
            if name == "create_subprocess_exec":
                assert source.name == "process.py"
        if isinstance(node, ast.keyword) and node.arg == "shell":
            raise AssertionError("shell=")


def _spawn_calls() -> list[tuple[str, ast.Call]]:
    calls = []
    for source in PYTHON_SOURCES:
        tree = ast.parse(source.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "spawn":
                calls.append((source.name, node))
    return calls


def test_osascript_is_only_started_with_a_script_file_and_one_json_argument() -> None:
    calls = _spawn_calls()
    assert {name for name, _ in calls} == {"oneshot.py", "worker.py"}
    for name, call in calls:
        argv = call.args[0]
        assert isinstance(argv, ast.List) and len(argv.elts) == 5, name
        program, flag, language, script, data = argv.elts
        assert isinstance(program, ast.Name) and program.id == "osascript"
        assert (ast.literal_eval(flag), ast.literal_eval(language)) == ("-l", "JavaScript")
        if name == "oneshot.py":  # the file, or `-e` and the text of its prelude and the file
            assert isinstance(script, ast.Starred) and ast.unparse(script) == "*program"
        else:
            assert isinstance(script, ast.Name) and script.id == "worker_script"
        assert isinstance(data, ast.Name) and data.id in {"payload", "options"}
    oneshot = (REPO / "tools" / "mac" / "osa" / "oneshot.py").read_text(encoding="utf-8")
    assert 'program: list[str | Path] = [script] if source is None else ["-e", source]' in oneshot
    engine = (REPO / "tools" / "mac" / "osa" / "engine.py").read_text(encoding="utf-8")
    assert engine.count("source=") == 1 and "source=self.script_source(path)," in engine


# --- the worker's request loop, run as plain JavaScript under Node ---------------------------

ECHO = "function run(argv) { return JSON.stringify({ got: JSON.parse(argv[0]) }); }"
FAILS = (
    "function run(argv) { var e = new Error('Not authorized to send Apple events to Mail.');"
    " e.errorNumber = -1743; throw e; }"
)
NO_RUN = "var helper = 1;"
BROKEN = "function run(argv) { return ( }"


def serve(
    chunks: list[str], scripts: dict[str, str]
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    spec = {"worker": str(WORKER_SCRIPT), "scripts": scripts, "chunks": chunks}
    done = subprocess.run(
        ["node", str(STANDIN_DIR / "serve_plain.js")],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout)
    for line in result["lines"]:
        assert line.isascii()
    return [json.loads(line) for line in result["lines"]], result["reads"]


def request(request_id: int, script: str, value: Any) -> str:
    return json.dumps({"id": request_id, "script": script, "input": json.dumps(value)}) + "\n"


@needs_node
def test_worker_loop_answers_line_by_line_across_chunks() -> None:
    text = 'é \u2028 😀 中文 עברית "q" \\'
    stream = request(1, "echo", {"t": text}) + request(2, "echo", {"n": 2}) + request(3, "echo", {})
    chunks = [stream[:7], stream[7:60], stream[60:]]
    lines, reads = serve(chunks, {"echo": ECHO})
    assert lines[0] == {"id": None, "ready": True, "protocol": 1}
    assert [line["id"] for line in lines[1:]] == [1, 2, 3]
    assert json.loads(lines[1]["output"]) == {"got": {"t": text}}
    assert reads == {"echo": 1}  # loaded once, then cached


@needs_node
def test_worker_loop_reports_errors_as_data() -> None:
    stream = "".join(
        [
            "not json\n",
            request(1, "../../etc/passwd", {}),
            request(2, "missing", {}),
            request(3, "fails", {}),
            request(4, "no_run", {}),
            request(5, "broken", {}),
            json.dumps({"id": 6, "script": "echo", "input": {"not": "text"}}) + "\n",
            request(7, "echo", {"ok": True}),
        ]
    )
    scripts = {"fails": FAILS, "no_run": NO_RUN, "broken": BROKEN, "echo": ECHO}
    lines, reads = serve([stream], scripts)
    errors = {line["id"]: line.get("error") for line in lines[1:]}
    assert errors[None]["kind"] == "protocol"
    assert errors[1]["kind"] == errors[2]["kind"] == errors[4]["kind"] == "protocol"
    assert errors[3] == {
        "number": -1743,
        "kind": "execution",
        "message": "Not authorized to send Apple events to Mail.",
    }
    assert errors[5]["kind"] == "syntax"
    assert errors[6]["kind"] == "protocol"
    assert lines[-1] == {"id": 7, "ok": True, "output": '{"got":{"ok":true}}'}
    assert "../../etc/passwd" not in reads  # a bad name never reaches the file system
