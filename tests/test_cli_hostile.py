"""User mistakes found by a hostile new-user test: each is one line ``error: ...``, exit 2,
nothing on stdout, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gutskit.cli.app import app


@pytest.mark.parametrize(("content", "message"), [
    ("[" * 20000 + "]" * 20000, "nested too deeply"),
    ('{"players": [{"name": "A", "stack": ' + "9" * 5000 + "}]}",
     "it holds a number with more than 4300 digits"),
])
def test_referee_pathological_json(tmp_path: Path, content: str, message: str) -> None:
    file = tmp_path / "bad.json"
    file.write_text(content)
    result = CliRunner().invoke(app, ["referee", str(file)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_history_session_id_beyond_any_row(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    from gutskit.io.storage import open_store

    open_store(str(db))  # an empty database: 'guts history' refuses a missing one
    result = CliRunner().invoke(app, ["history", "99999999999999999999999", "--db", str(db)])
    assert result.exit_code == 2
    assert "no session 99999999999999999999999" in result.stderr


def test_database_url_without_its_driver(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["history", "--db", "mysql://x"])
    assert result.exit_code == 2
    assert "driver is not installed" in result.stderr


def test_analyze_a_binary_history_file(tmp_path: Path) -> None:
    file = tmp_path / "rand.bin"
    file.write_bytes(bytes(range(256)) * 4)
    result = CliRunner().invoke(app, ["analyze", "--history", str(file)])
    assert result.exit_code == 2
    assert "not a UTF-8 text file" in result.stderr
    assert "Traceback" not in result.stderr
