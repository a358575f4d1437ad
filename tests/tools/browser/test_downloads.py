"""Download names: whatever the page calls a file, it is saved inside the downloads folder."""

from __future__ import annotations

from pathlib import Path

from tools.browser.downloads import safe_filename, unique_path


def test_download_names_stay_inside_the_folder(tmp_path: Path) -> None:
    assert safe_filename("../../etc/passwd") == "passwd"
    assert safe_filename("..\\..\\boot.ini") == "boot.ini"
    assert safe_filename(".bashrc") == "bashrc"
    assert safe_filename("") == "download"
    assert safe_filename("report\u202egpj.exe") == "report_gpj.exe"
    (tmp_path / "a.txt").write_text("x")
    assert unique_path(tmp_path, "a.txt").name == "a (2).txt"
