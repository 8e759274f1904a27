"""What the fresh user of session 8 found: files and standard input read with no size limit
(``guts rules --rules /dev/zero`` killed for memory, ``yes | guts referee -`` a MemoryError
traceback). Every file a person names is read through :func:`gutskit.io.files.read_text`,
at most :data:`~gutskit.io.files.MAX_FILE_BYTES` bytes."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli import assert_user_error, guts

from gutskit.io import files
from gutskit.io.files import FileTooLargeError, read_text

LIMIT = 10
"""A small limit (bytes) the tests set, so that 11 bytes are too many."""


@pytest.fixture
def small_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "MAX_FILE_BYTES", LIMIT)


def _over(tmp_path: Path, name: str) -> str:
    file = tmp_path / name
    file.write_text("x" * (LIMIT + 1), encoding="utf-8")
    return str(file)


def _message(path: str) -> str:
    return (f"error: {path!r} is larger than 10 bytes: gutskit reads files of at most "
            "10 bytes (10 bytes)")


def test_read_text_takes_a_file_of_exactly_the_limit(tmp_path: Path,
                                                     small_limit: None) -> None:
    file = tmp_path / "ten.txt"
    file.write_text("0123456789", encoding="utf-8")
    assert read_text(file) == "0123456789"
    file.write_text("0123456789A", encoding="utf-8")
    with pytest.raises(FileTooLargeError) as error:
        read_text(file)
    assert str(error.value) == (f"{str(file)!r} is larger than 10 bytes: gutskit reads "
                                "files of at most 10 bytes (10 bytes)")


def test_the_real_limit_is_64_mib_in_words() -> None:
    assert files.MAX_FILE_BYTES == 67_108_864
    assert files.size_words(files.MAX_FILE_BYTES) == "64 MiB"


@pytest.mark.parametrize("command", [
    ("rules", "--rules"),
    ("referee",),
    ("verify",),
    ("analyze", "--history"),
])
def test_a_file_over_the_limit_is_refused_in_one_line(tmp_path: Path, small_limit: None,
                                                      command: tuple[str, ...]) -> None:
    path = _over(tmp_path, "big.txt")
    line = assert_user_error(guts(*command, path))
    assert line == _message(path)


def test_play_refuses_a_rules_file_over_the_limit_and_writes_nothing(
        tmp_path: Path, small_limit: None) -> None:
    path = _over(tmp_path, "big.toml")
    db = tmp_path / "g.db"
    line = assert_user_error(guts("play", "--rules", path, "--db", str(db), input="q\n"))
    assert line == _message(path)
    assert not db.exists()


def test_verify_refuses_a_hand_history_over_the_limit(tmp_path: Path,
                                                      small_limit: None) -> None:
    from gutskit.server.verify import load_history

    path = _over(tmp_path, "h.jsonl")
    with pytest.raises(FileTooLargeError, match=r"is larger than 10 bytes"):
        load_history(path)


def test_the_referee_refuses_standard_input_over_the_limit(small_limit: None) -> None:
    line = assert_user_error(guts("referee", "-", input="y\n" * 100))
    assert line == ("error: standard input is larger than 10 bytes: gutskit reads files "
                    "of at most 10 bytes (10 bytes)")


def test_dev_zero_stops_at_the_limit(small_limit: None) -> None:
    # /dev/zero never ends: the bounded read takes LIMIT + 1 bytes and stops
    line = assert_user_error(guts("rules", "--rules", "/dev/zero"))
    assert line == _message("/dev/zero")


# --- infinite option values (inf passed a lower bound; nan never did) ---------------------------

@pytest.mark.parametrize(("args", "expected"), [
    (("serve", "--bot-delay", "inf"),
     "error: --bot-delay inf is not a finite number: it must be at least 0.0 "
     "(see 'guts serve --help')"),
    (("serve", "--idle-minutes", "1e999"),
     "error: --idle-minutes inf is not a finite number: it must be at least 0.01 "
     "(see 'guts serve --help')"),
    (("serve", "--bot-delay", "nan"),
     "error: --bot-delay nan is not a number: it must be at least 0.0 "
     "(see 'guts serve --help')"),
])
def test_an_infinite_number_is_refused_like_nan(args: tuple[str, ...], expected: str) -> None:
    assert assert_user_error(guts(*args)) == expected


def test_finite_passes_a_finite_value_through() -> None:
    from gutskit.cli.errors import finite

    assert finite(None, None, 1.8) == 1.8
    assert finite(None, None, None) is None


# --- guts play --name of a bot ------------------------------------------------------------------

def test_play_says_a_bot_has_the_name_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    line = assert_user_error(guts("play", "--name", "Ava", "--players", "3", "--db", str(db),
                                  input="q\n"))
    assert line == ("error: --name 'Ava' is a bot's name at this table (the bots are Ava, "
                    "Bruno, named in seat order): choose another name with --name")
    assert not db.exists()


def test_play_takes_a_bot_name_no_bot_has_at_this_table(tmp_path: Path) -> None:
    # 3 seats: the bots are Ava and Bruno, so Chen is free
    result = guts("play", "--name", "Chen", "--players", "3", "--seed", "7",
                  "--db", str(tmp_path / "g.db"), input="q\n")
    assert result.exit_code == 0, result.stderr
    assert "Chen" in result.stdout
